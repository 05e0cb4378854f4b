"""Fig. 1 with the {N, 2N} grid (free-bias SVM), pooled over the repeats run: mean ± s.e. per
method and N, and paired differences method - SVM (95 % t intervals over the repeats). Run
from this folder: python fig1grid_table.py DATASET; writes fig1grid_DATASET_paired.csv."""
import sys
from pathlib import Path

import pandas as pd

from _paired_table import paired_table

from robustclf.evaluation import paired_differences

HERE = Path(__file__).parent
name = sys.argv[1]
frame = pd.concat([pd.read_csv(p) for p in
                   sorted(HERE.glob(f"fig1grid-{name}-*/fig1_{name}_random_deletion.csv"))])
levels = sorted(frame.level.unique())
stats = frame.groupby(["estimator", "level"]).error.agg(["mean", "sem"])
print(f"{frame.repeat.nunique()} repeats")
print("| method \\ N | " + " | ".join(f"{lv:g}" for lv in levels) + " |")
print("|---" * (len(levels) + 1) + "|")
for est in ["LP", "FDROP", "SVM"]:
    print(f"| {est} | " + " | ".join(f"{stats.loc[(est, lv), 'mean']:.3f} ± "
                                     f"{stats.loc[(est, lv), 'sem']:.3f}" for lv in levels)
          + " |")
diffs = paired_differences(frame, "SVM", value="error")
diffs.to_csv(HERE / f"fig1grid_{name}_paired.csv", index=False)
print()
print(paired_table(diffs, "estimator", "− SVM", levels))
