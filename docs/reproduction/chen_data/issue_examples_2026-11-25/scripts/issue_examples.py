"""Issue 14's DropoutSVC examples: default vs tightly converged, MNIST 5,000 rows q=0.9 and digits.

Run with the code under test on PYTHONPATH (new: /work/main/src; old: git archive of 293b137^).
Prints one CSV line per fit: label,dataset,setting,fit_s,test_error,n_iter_max,n_warnings,warning
and saves coefficients to /tmp/chen25/coef_<label>_<dataset>_<setting>.npz for comparisons.
"""
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

import robustclf
from robustclf.datasets import load_mnist
from robustclf.linear import DropoutSVC

label = sys.argv[1]
which = sys.argv[2:] or ["digits", "mnist"]
print("# robustclf from", robustclf.__file__, file=sys.stderr)


def run(dataset, setting, est, Xtr, ytr, Xte, yte):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        t = time.perf_counter()
        est.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t
    conv = [str(x.message).replace(",", ";").replace("\n", " ")[:160] for x in w
            if issubclass(x.category, ConvergenceWarning)]
    err = np.mean(est.predict(Xte) != yte)
    n_iter = np.max(np.atleast_1d(getattr(est, "n_iter_", -1)))
    np.savez(f"/tmp/chen25/coef_{label}_{dataset}_{setting}.npz", coef=est.coef_,
             intercept=est.intercept_, pred=est.predict(Xte))
    print(f"{label},{dataset},{setting},{fit_s:.2f},{err:.4f},{n_iter},{len(conv)},"
          f"{conv[0] if conv else ''}", flush=True)


if "digits" in which:
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm] / 16.0, y[perm]
    for setting, kw in [("default", {}), ("tight", dict(tol=1e-9, max_iter=1000))]:
        run("digits", setting, DropoutSVC(**kw), X[:1200], y[:1200], X[1200:], y[1200:])
if "mnist" in which:
    Xa, Xt, ya, yt = load_mnist(scale=True, return_X_y=True)
    idx = np.random.default_rng(0).permutation(Xa.shape[0])[:5000]
    for setting, kw in [("default", {}), ("tight", dict(tol=1e-9, max_iter=1000))]:
        run("mnist5k_q0.9", setting, DropoutSVC(q=0.9, **kw), Xa[idx], ya[idx], Xt, yt)
