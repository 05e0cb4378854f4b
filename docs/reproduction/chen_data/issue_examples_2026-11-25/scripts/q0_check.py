"""At q = 0 DropoutSVC's bound and Gaussian objectives are both the hinge SVM
||w||^2 + 2C sum hinge (unregularised bias) = 2 x SVC(kernel='linear', C). Compare on an Amazon fold."""
import sys, time, warnings
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from robustclf.experiments import _chen_amazon as A
from robustclf.linear import DropoutSVC

domain, fold, C = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
X, y = A.load_amazon_top(domain, n_features=20_000, n_rows=None)
tr, te = A._folds(y, 5, 0)[fold]
Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
s = np.where(ytr == np.unique(ytr)[1], 1.0, -1.0)

def obj(w, b):
    return w @ w + 2 * C * np.maximum(0, 1 - s * (Xtr @ w + b)).sum()

res = {}
for name, est in [("bound", DropoutSVC(q=0.0, C=C, objective="bound")),
                  ("gaussian", DropoutSVC(q=0.0, C=C, objective="gaussian")),
                  ("bound tol=1e-9", DropoutSVC(q=0.0, C=C, objective="bound", tol=1e-9, max_iter=1000)),
                  ("SVC libsvm tol=1e-8", SVC(kernel="linear", C=C, tol=1e-8))]:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", ConvergenceWarning)
        t = time.perf_counter(); est.fit(Xtr, ytr); ft = time.perf_counter() - t
    coef = np.asarray(est.coef_.todense() if hasattr(est.coef_, "todense") else est.coef_).ravel()
    b = float(np.ravel(est.intercept_)[0])
    pred = est.predict(Xte)
    res[name] = pred
    msgs = [str(x.message)[:400] for x in w if issubclass(x.category, ConvergenceWarning)]
    print(f"{name:22s} fit {ft:6.1f}s objective {obj(coef, b):.8f} test err {np.mean(pred != yte):.4f} "
          f"n_iter {getattr(est, 'n_iter_', '-')} warnings: {msgs}", flush=True)
ref = res["SVC libsvm tol=1e-8"]
for k, p in res.items():
    print(k, "test predictions differing from libsvm:", int((p != ref).sum()))
