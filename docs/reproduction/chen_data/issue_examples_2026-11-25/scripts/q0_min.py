"""Minimal: DropoutSVC(q=0) is the hinge SVM (||w||^2 + 2C sum hinge, free bias) = 2 x SVC(kernel='linear', C) objective."""
import warnings
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from robustclf.linear import DropoutSVC

X, y = load_digits(return_X_y=True)
X = X / 16.0
for a, b in [(3, 8), (1, 7), (4, 9)]:
    m = (y == a) | (y == b)
    Xb, yb = X[m], (y[m] == b).astype(int)
    s = 2.0 * yb - 1
    for C in [1.0, 100.0]:
        obj = lambda w, c0: w @ w + 2 * C * np.maximum(0, 1 - s * (Xb @ w + c0)).sum()
        with warnings.catch_warnings(record=True) as wr:
            warnings.simplefilter("always", ConvergenceWarning)
            d = DropoutSVC(q=0.0, C=C).fit(Xb, yb)
        r = SVC(kernel="linear", C=C, tol=1e-10).fit(Xb, yb)
        fd, fr = obj(d.coef_.ravel(), d.intercept_[0]), obj(r.coef_.ravel(), r.intercept_[0])
        print(f"{a} vs {b} C={C}: DropoutSVC(q=0) {fd:.6f}  libsvm {fr:.6f}  rel gap {(fd - fr) / fr:.2e}  "
              f"n_iter {d.n_iter_}  warnings {[str(x.message)[:120] for x in wr]}")
