"""Geometric rows again on main after b9578fe (refit after early stopping, min_scaling), plus
``geometric-es`` (the paper's early stopping), same seeds; merged into fair.csv.

The rows of the first run (estimator as at 0ab981e) are kept in fair_0ab981e.csv.
"""

import shutil
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences
from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison, fair_grids

here = Path(__file__).parent
if not (here / "fair_0ab981e.csv").exists():
    shutil.copy(here / "fair.csv", here / "fair_0ab981e.csv")
grids = {k: v for k, v in fair_grids(fast=False, random_state=0).items()
         if k in ("geometric", "geometric-es")}
new = fair_comparison(FAIR_SETTINGS, n_train=400, n_test=4000, n_repeats=10, grids=grids,
                      inner_folds=3, random_state=0, n_jobs=2)
old = pd.read_csv(here / "fair_0ab981e.csv", keep_default_na=False)
frame = pd.concat([old[~old.estimator.isin(grids)], new[new.estimator != "bayes"]],
                  ignore_index=True)
frame.to_csv(here / "fair.csv", index=False)
paired_differences(frame, "zero").to_csv(here / "paired_vs_zero.csv", index=False)
paired_differences(frame, "geometric").to_csv(here / "paired_vs_geometric.csv", index=False)
