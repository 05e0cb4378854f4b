"""Spot check of Fig. 1's fits: default fit vs tightly converged on Amazon books, fold-0 training fold
(1,600 x 20,000 counts); ConvergenceWarnings of the default and test predictions that differ."""
import time, warnings
import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from robustclf.experiments import _chen_amazon as A
from robustclf.experiments._chen_common import make_estimator

X, y = A.load_amazon_top("books", n_features=20_000, n_rows=None)
tr, te = A._folds(y, 5, 0)[0]
print("estimator,q,c,fit_default_s,warn_default,err_default,err_tight,pred_diff,warning", flush=True)
for name in ["Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
             "Dropout-Logistic (gaussian)", "MCF-Logistic", "MCF-Quadratic"]:
    for q in [0.5, 0.9]:
        for c in [0.01, 1.0]:
            est = make_estimator(name, q, c)
            out = []
            for tight in (False, True):
                e = clone(est)
                if tight:
                    e.set_params(tol=1e-10, max_iter=1000 if "MCF" not in name else 100000)
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always", ConvergenceWarning)
                    t = time.perf_counter(); e.fit(X[tr], y[tr]); ft = time.perf_counter() - t
                msgs = [str(x.message) for x in w if issubclass(x.category, ConvergenceWarning)]
                out.append((ft, msgs, e.predict(X[te])))
            (f0, m0, p0), (_, _, p1) = out
            print(f"{name},{q},{c},{f0:.2f},{len(m0)},{np.mean(p0 != y[te]):.4f},"
                  f"{np.mean(p1 != y[te]):.4f},{int((p0 != p1).sum())},"
                  f"{m0[0][:140].replace(',', ';') if m0 else ''}", flush=True)
