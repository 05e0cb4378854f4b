"""Merge the issue-15 rerun's grid points with the afternoon's 10k checkpoint; write the outputs.

Fresh points (this rerun, /tmp/chen15/p*.pkl) replace the checkpoint's (/tmp/chen25/
mnist_points.pkl, run 20:14-21:09 UTC at f5b26a0 / 114164e on the same rows, seeds and
deletion draws). Writes the experiment's report, CSVs and PNGs (robustclf.report), the grid
points with fit times, warnings, provenance and libsvm duality gaps, and the paired differences
of both protocols.

usage: merge.py OUTDIR
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
old = pickle.loads(Path("/tmp/chen25/mnist_points.pkl").read_bytes())
points = {k: dict(v, source="checkpoint 21:09 UTC (f5b26a0/114164e)") for k, v in old.items()}
fresh = {}
for f in sorted(Path("/tmp/chen15").glob("p*.pkl")):
    fresh.update(pickle.loads(f.read_bytes()))
agree = []
for k, v in fresh.items():
    if k in old:
        agree.append((*k, float(np.abs(v["test"] - old[k]["test"]).max()),
                      float(np.abs(v["val"] - old[k]["val"]).max())))
    points[k] = dict(v, source="rerun 25 Nov 2026 (issue 15)")
pd.DataFrame(agree, columns=["estimator", "q", "C", "max_abs_test_diff", "max_abs_val_diff"]
             ).to_csv(out / "fresh_vs_checkpoint.csv", index=False)
# keep only estimators whose grid is complete
tasks = chen._mnist_tasks(False)
names = list(dict.fromkeys(n for n, _, _ in tasks))
complete = [n for n in names if all(t in points for t in tasks if t[0] == n)]
rows = [(n, q, c, d["fit_seconds"], d["predict_seconds"], d["val"], d["test"])
        for (n, q, c), d in points.items() if n in complete]
frame = pd.DataFrame(rows, columns=chen.POINT_COLUMNS)
levels = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
sizes = (10_000, 1_000, 10_000, 3)
result = chen._mnist_result(frame, levels, sizes, False)
write_experiment(result, out)
grid = pd.DataFrame([dict(
    estimator=n, q=q, C=c, source=d["source"], fit_seconds=round(d["fit_seconds"], 2),
    clean_test_error=round(float(d["test"][:3].mean()), 4),
    test_error_50pct=round(float(d["test"][15:18].mean()), 4),
    test_error_70pct=round(float(d["test"][21:24].mean()), 4),
    max_relative_duality_gap=(float(np.max(d["gap"])) if d.get("gap") is not None else np.nan),
    n_iter=d.get("n_iter"), n_convergence_warnings=len(d["warnings"]),
    warning=(d["warnings"][0][:200] if d["warnings"] else ""))
    for (n, q, c), d in points.items() if n in complete])
grid.to_csv(out / "grid_points.csv", index=False)
# every grid point's 30 validation and 30 test errors (level-major, then draw): enough to redo
# the selection of both protocols without the checkpoints
cols = [f"{kind}_{lvl:g}_{r}" for kind in ("val", "test") for lvl in levels for r in range(3)]
errs = pd.DataFrame([[n, q, c, *d["val"], *d["test"]] for (n, q, c), d in points.items()
                     if n in complete], columns=["estimator", "q", "C", *cols])
errs.to_csv(out / "grid_point_errors.csv", index=False, float_format="%.4f")
clean = chen.select_per_level(frame, levels, per_level=False, repeats=3)
per = result.curves[0].frame
both = pd.concat([chen.paired_versus_baselines(per).assign(protocol="per level (paper)"),
                  chen.paired_versus_baselines(clean).assign(protocol="clean selection")])
both.to_csv(out / "paired_differences.csv", index=False)
print("complete:", complete)
pd.set_option("display.width", 250)
for proto, part in both.groupby("protocol", sort=False):
    print(proto)
    for lvl in (0.5, 0.7, 0.9):
        print(part[part["level"] == lvl][["estimator", "reference", "level", "mean", "ci_low",
                                          "ci_high"]].round(4).to_string(index=False))
means = per.groupby(["estimator", "level"])["error"].mean().unstack().round(3)
print(means)
print(per.groupby(["estimator", "level"])[["q", "C"]].agg(lambda s: "/".join(
    sorted({f"{v:g}" for v in s}))).unstack().to_string())
