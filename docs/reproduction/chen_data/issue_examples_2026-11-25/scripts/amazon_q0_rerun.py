"""Fig. 1's q = 0 cells of Dropout-SVM rerun on main after 4981768 (q = 0 hinge handed to libsvm)."""
import numpy as np
from robustclf.experiments import _chen_amazon as A
from robustclf.experiments._chen_common import MAX_SEED

s = A._settings(False)
print("domain,estimator,fold,error,c,refit_s", flush=True)
for domain in ("books", "kitchen"):
    X, y = A.load_amazon_top(domain, n_features=s["n_features"], n_rows=None)
    folds = A._folds(y, s["n_folds"], 0)
    seeds = np.random.default_rng(0).integers(0, MAX_SEED, size=len(folds))
    for name in ("Dropout-SVM (bound)", "Dropout-SVM (gaussian)"):
        for k, (tr, te) in enumerate(folds):
            out = A._q_task(k, tr, te, X, y, name, 0.0, s["cs"], int(seeds[k]))
            print(f"{domain},{name},{k},{out[3]:.4f},{out[7]},{out[4]:.2f}", flush=True)
