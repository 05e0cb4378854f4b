"""Checkpointing driver for the 26 Nov 2026 rerun of dropout-mnist-nightmare at 59,000 rows.

The setup of run (e), the registered full mode of `robustclf reproduce dropout-mnist-nightmare`
(chen._mnist_setup with its defaults: 59,000 training rows, 1,000 validation rows, all 10,000
test images, 3 deletion draws per level, seed 0), on the optimality-stopped solvers and with the
free-bias baseline (FreeBiasLinearSVC's w-space path above 20,000 rows). Fits the named grid
points one by one, in the order given, and appends each to a checkpoint with its fit time, the
ConvergenceWarnings it raised (the experiment silences them) and, for the free-bias SVM, the
relative duality gap of every one-vs-rest column.

usage: drive.py CHECKPOINT NAME[@q@c] [NAME[@q@c] ...]
"""
import pickle
import sys
import time
import warnings
from pathlib import Path

from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from robustclf.experiments import chen
from robustclf.experiments._chen_common import errors, make_estimator

ckpt = Path(sys.argv[1])
names = sys.argv[2:]
done = pickle.loads(ckpt.read_bytes()) if ckpt.exists() else {}
t0 = time.time()


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} +{time.time() - t0:7.1f}s {msg}", flush=True)


X, y, val_sets, test_sets, levels, sizes = chen._mnist_setup(False, 0, None)
log(f"setup {X.shape} val {len(val_sets)} test {len(test_sets)} sizes {sizes}")
grid = chen._mnist_tasks(False)
tasks = [t for name in names for t in grid
         if t[0] == name or "@".join([t[0], f"{t[1]:g}", f"{t[2]:g}"]) == name]
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
    gap = getattr(est, "duality_gap_", None)
    done[(name, q, c)] = dict(fit_seconds=fit_s, predict_seconds=pred_s / len(test_sets),
                              val=val, test=test, warnings=conv, gap=gap,
                              n_iter=None if n_iter is None else repr(n_iter))
    ckpt.write_bytes(pickle.dumps(done))
    gap_s = f" max rel gap {gap.max():.2e}" if gap is not None else ""
    log(f"[{i + 1}/{len(tasks)}] {name} q={q} c={c}: fit {fit_s:.1f}s clean {test[:3].mean():.4f}"
        f" 50% {test[15:18].mean():.4f} 70% {test[21:24].mean():.4f}{gap_s}"
        f" warnings {len(conv)} {conv[0][:150] if conv else ''}")
log("done")
