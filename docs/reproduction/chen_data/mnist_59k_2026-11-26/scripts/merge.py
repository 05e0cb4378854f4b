"""Merge the 59,000-row rerun's checkpoints; write the experiment's outputs for the complete grids.

Reads the checkpoints written by drive.py (given on the command line), keeps the estimators whose
grid is complete, and writes into OUTDIR what `robustclf reproduce dropout-mnist-nightmare`
writes (report, CSVs, PNGs; chen._mnist_result) plus the files that the 10k rerun's
`../../mnist_10k_issue15_2026-11-25/scripts/tables.py OUTDIR` turns into chen.md's tables: the
grid points (fit time, warnings, duality gaps), every point's 30 validation and 30 test errors,
and the paired differences of both protocols.

usage: merge.py OUTDIR CHECKPOINT [CHECKPOINT ...] [--without NAME@q@c ...]

``--without`` drops grid points from the grid (they count as neither done nor missing): the
free-bias SVM at c = 10, whose 59,000-row fit did not finish in the session (see chen.md).
"""
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from robustclf.experiments import chen
from robustclf.report import write_experiment

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
args = sys.argv[2:]
cut = args.index("--without") if "--without" in args else len(args)
without = set(args[cut + 1:])
points = {}
for ckpt in args[:cut]:
    points.update(pickle.loads(Path(ckpt).read_bytes()))
tasks = [t for t in chen._mnist_tasks(False)
         if "@".join([t[0], f"{t[1]:g}", f"{t[2]:g}"]) not in without]
names = list(dict.fromkeys(n for n, _, _ in tasks))
complete = [n for n in names if all(t in points for t in tasks if t[0] == n)]
missing = {n: sum(t not in points for t in tasks if t[0] == n) for n in names
           if n not in complete}
print("complete:", complete)
print("grid points missing:", missing, "left out of the grid:", sorted(without))
points = {k: d for k, d in points.items() if k[0] in complete and k in set(tasks)}
frame = pd.DataFrame([(n, q, c, d["fit_seconds"], d["predict_seconds"], d["val"], d["test"])
                      for (n, q, c), d in points.items()], columns=chen.POINT_COLUMNS)
levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
result = chen._mnist_result(frame, levels, (chen.MNIST_FULL_TRAIN, chen.MNIST_VALIDATION,
                                            10_000, chen.MNIST_REPEATS), False)
write_experiment(result, out)
pd.DataFrame([dict(
    estimator=n, q=q, C=c, source="rerun 26 Nov 2026", fit_seconds=round(d["fit_seconds"], 2),
    clean_test_error=round(float(d["test"][:3].mean()), 4),
    test_error_50pct=round(float(d["test"][15:18].mean()), 4),
    test_error_70pct=round(float(d["test"][21:24].mean()), 4),
    max_relative_duality_gap=(float(np.max(d["gap"])) if d.get("gap") is not None else np.nan),
    n_iter=d.get("n_iter"), n_convergence_warnings=len(d["warnings"]),
    warning=(d["warnings"][0][:200] if d["warnings"] else ""))
    for (n, q, c), d in points.items()]).to_csv(out / "grid_points.csv", index=False)
cols = [f"{kind}_{lvl:g}_{r}" for kind in ("val", "test") for lvl in levels for r in range(3)]
pd.DataFrame([[n, q, c, *d["val"], *d["test"]] for (n, q, c), d in points.items()],
             columns=["estimator", "q", "C", *cols]).to_csv(
    out / "grid_point_errors.csv", index=False, float_format="%.4f")
clean = chen.select_per_level(frame, levels, per_level=False, repeats=chen.MNIST_REPEATS)
per = result.curves[0].frame
pd.concat([chen.paired_versus_baselines(per).assign(protocol="per level (paper)"),
           chen.paired_versus_baselines(clean).assign(protocol="clean selection")]
          ).to_csv(out / "paired_differences.csv", index=False)
print("written", out)
