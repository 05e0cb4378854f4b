"""Checkpointing driver for dropout-mnist-nightmare at 10,000 training rows (run (d)'s setup).

Same pieces and seeds as `robustclf reproduce dropout-mnist-nightmare` (chen._mnist_setup,
chen._mnist_tasks, chen._mnist_result) with chen.MNIST_FULL_TRAIN = 10_000, as in runs (a)-(d)
of docs/reproduction/chen.md. Grid points are fitted one by one in a priority order (estimator by
estimator) and appended to a checkpoint, with the ConvergenceWarnings each fit raised (the CLI
silences them), so that a time-boxed run leaves complete estimators and can resume.
"""
import pickle
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustclf.experiments import chen
from robustclf.experiments._chen_common import errors, make_estimator
from robustclf.report import write_experiment

out = Path(sys.argv[1])
with_fdrop = len(sys.argv) > 2 and sys.argv[2] == "fdrop"
out.mkdir(parents=True, exist_ok=True)
ckpt = Path("/tmp/chen25/mnist_points.pkl")
done = pickle.loads(ckpt.read_bytes()) if ckpt.exists() else {}
chen.MNIST_FULL_TRAIN = 10_000
t0 = time.time()


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} +{time.time() - t0:7.1f}s {msg}", flush=True)


X, y, val_sets, test_sets, levels, sizes = chen._mnist_setup(False, 0, None)
log(f"setup {X.shape} val {len(val_sets)} test {len(test_sets)} sizes {sizes}")
priority = ["Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Hinge-L2 (LinearSVC)",
            "LogisticRegression", "MCF-Quadratic", "Dropout-Logistic (gaussian)",
            "MCF-Logistic", "Dropout-Logistic (bound)"] + (["FDROP"] if with_fdrop else [])
tasks = [t for name in priority for t in chen._mnist_tasks(False) if t[0] == name]
for i, (name, q, c) in enumerate(tasks):
    if (name, q, c) in done:
        continue
    est = clone(make_estimator(name, q, c))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        ts = time.perf_counter()
        est.fit(X, y)
        fit_s = time.perf_counter() - ts
    conv = [str(x.message) for x in w if issubclass(x.category, ConvergenceWarning)]
    val, _ = errors(est, val_sets)
    test, pred_s = errors(est, test_sets)
    n_iter = getattr(est, "n_iter_", None)
    done[(name, q, c)] = dict(fit_seconds=fit_s, predict_seconds=pred_s / len(test_sets),
                              val=val, test=test, warnings=conv,
                              n_iter=None if n_iter is None else repr(n_iter))
    ckpt.write_bytes(pickle.dumps(done))
    log(f"[{i + 1}/{len(tasks)}] {name} q={q} c={c}: fit {fit_s:.1f}s clean {test[:3].mean():.4f}"
        f" 50% {test[15:18].mean():.4f} warnings {len(conv)} {conv[0][:150] if conv else ''}")

complete = [n for n in priority if all(t in done for t in chen._mnist_tasks(False) if t[0] == n)]
log(f"complete estimators: {complete}")
rows = [(n, q, c, d["fit_seconds"], d["predict_seconds"], d["val"], d["test"])
        for (n, q, c), d in done.items() if n in complete]
points = pd.DataFrame(rows, columns=chen.POINT_COLUMNS)
result = chen._mnist_result(points, levels, sizes, False)
write_experiment(result, out)
grid = pd.DataFrame([dict(estimator=n, q=q, C=c, fit_seconds=round(d["fit_seconds"], 2),
                          clean_test_error=round(float(d["test"][:3].mean()), 4),
                          test_error_50pct=round(float(d["test"][15:18].mean()), 4),
                          n_convergence_warnings=len(d["warnings"]),
                          warning=(d["warnings"][0][:200] if d["warnings"] else ""))
                     for (n, q, c), d in done.items()])
grid.to_csv(out / "grid_points.csv", index=False)
log("written")
