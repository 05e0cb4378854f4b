"""chechik-votes, one method (same data, folds, grids and seeds as run_votes)."""
import sys, time
from pathlib import Path
from robustclf.datasets import load_votes
from robustclf.experiments.chechik import cached_method_grids, cross_validated_errors
OUT = Path("/tmp/s10/mcar")
for method in sys.argv[1:]:
    t = time.perf_counter()
    X, y = load_votes(return_X_y=True)
    with cached_method_grids(fast=False, random_state=0) as grids:
        frame = cross_validated_errors([(0, X, y)], {method: grids[method]}, corruption="none",
                                       level_name="dataset", n_folds=5, random_state=0, n_jobs=1)
    frame.to_csv(OUT / f"votes_{method}.csv", index=False)
    print(time.strftime("%H:%M:%S"), f"done votes:{method} in {time.perf_counter() - t:.0f} s", flush=True)
