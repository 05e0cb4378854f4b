"""Setting 7 (added after the first run), appended to fair.csv; the same seeds and grids.

Every (setting, repeat) of ``fair_comparison`` draws its own sample (seed 1000 * setting + r)
and its own inner splits, so running setting 7 alone gives the rows a full run would give.
"""

from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences
from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison, fair_grids

here = Path(__file__).parent
new = fair_comparison({7: FAIR_SETTINGS[7]}, n_train=400, n_test=4000, n_repeats=10,
                      grids=fair_grids(fast=False, random_state=0), inner_folds=3,
                      random_state=0, n_jobs=2)
old = pd.read_csv(here / "fair.csv", keep_default_na=False)
frame = pd.concat([old[old.level != 7], new], ignore_index=True)
frame.to_csv(here / "fair.csv", index=False)
paired_differences(frame, "zero").to_csv(here / "paired_vs_zero.csv", index=False)
paired_differences(frame, "geometric").to_csv(here / "paired_vs_geometric.csv", index=False)
