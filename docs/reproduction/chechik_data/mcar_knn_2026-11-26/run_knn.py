"""The `knn` rows of chechik-mcar on spambase, never rerun since 22 Nov 2026 (kNN was stopped
for lack of time on 25 Nov; its code did not change): same data, levels, folds, grids and seeds
as the CLI run, into this script's folder.

usage: OMP_NUM_THREADS=1 python -W ignore run_knn.py
"""
import time
from pathlib import Path

from robustclf.datasets import load_spambase
from robustclf.experiments.chechik import (
    MCAR_LEVELS,
    _subsample,
    cached_method_grids,
    cross_validated_errors,
    mcar_corrupt,
)

start = time.perf_counter()
X, y = _subsample(*load_spambase(return_X_y=True), None, 0)
data = [(lv, mcar_corrupt(X, lv, i, 0), y) for i, lv in enumerate(MCAR_LEVELS)]
with cached_method_grids(fast=False, random_state=0) as grids:
    frame = cross_validated_errors(data, {"knn": grids["knn"]}, corruption="RandomDeletion",
                                   level_name="fraction", n_folds=5, random_state=0, n_jobs=1)
frame.to_csv(Path(__file__).parent / "spambase_knn.csv", index=False)
print(time.strftime("%H:%M:%S"), f"done in {time.perf_counter() - start:.0f} s", flush=True)
