"""Geometric rows again on main after the polish of every libsvm solve (968014c, 26 Nov 2026):
the ``geometric`` and ``geometric-es`` rows of all settings, same seeds, merged into fair.csv.
The rows of 61109a0 (the page's tables until then) are kept in fair_61109a0.csv; prints how many
(setting, repeat) cells moved and by how much."""

import shutil
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences
from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison, fair_grids

here = Path(__file__).parent
if not (here / "fair_61109a0.csv").exists():
    shutil.copy(here / "fair.csv", here / "fair_61109a0.csv")
grids = {k: v for k, v in fair_grids(fast=False, random_state=0).items()
         if k in ("geometric", "geometric-es")}
new = fair_comparison(FAIR_SETTINGS, n_train=400, n_test=4000, n_repeats=10, grids=grids,
                      inner_folds=3, random_state=0, n_jobs=2)
new = new[new.estimator != "bayes"]
old = pd.read_csv(here / "fair_61109a0.csv", keep_default_na=False)
key = ["estimator", "level", "repeat"]
moved = (new.set_index(key).error - old[old.estimator.isin(grids)].set_index(key).error).abs()
for est, part in moved.groupby(level="estimator"):
    print(f"{est}: {int((part > 1e-12).sum())} of {len(part)} cells moved, largest "
          f"{part.max():.4f}")
frame = pd.concat([old[~old.estimator.isin(grids)], new], ignore_index=True)
frame.to_csv(here / "fair.csv", index=False)
paired_differences(frame, "zero").to_csv(here / "paired_vs_zero.csv", index=False)
paired_differences(frame, "geometric").to_csv(here / "paired_vs_geometric.csv", index=False)
