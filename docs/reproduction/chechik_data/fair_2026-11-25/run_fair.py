"""Full run of the fair Chechik comparison (issue 15); writes fair.csv and paired.csv here.

Run from the repository root:
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 .venv/bin/python \
    docs/reproduction/chechik_data/fair_2026-11-25/run_fair.py
"""

import time
from pathlib import Path

from robustclf.evaluation import paired_differences
from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison, fair_grids

here = Path(__file__).parent
t0 = time.time()
frame = fair_comparison(FAIR_SETTINGS, n_train=400, n_test=4000, n_repeats=10,
                        grids=fair_grids(fast=False, random_state=0), inner_folds=3,
                        random_state=0, n_jobs=2)
frame.to_csv(here / "fair.csv", index=False)
paired_differences(frame, "zero").to_csv(here / "paired_vs_zero.csv", index=False)
paired_differences(frame, "geometric").to_csv(here / "paired_vs_geometric.csv", index=False)
print(f"wall-clock {time.time() - t0:.0f} s")
