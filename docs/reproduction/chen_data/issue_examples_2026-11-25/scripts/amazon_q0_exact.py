"""Fig. 1's q = 0 point solved exactly: the hinge SVM with a free bias is SVC(kernel='linear', C=c)
(DropoutSVC's q = 0 problem, see its Notes), and LinearSVC (liblinear, penalised bias) for reference;
the same protocol as dropout-amazon-q (5 folds, c in {0.01, 0.1, 1} chosen on a 25 % split, refit)."""
import numpy as np
from sklearn.svm import SVC, LinearSVC
from robustclf.experiments import _chen_amazon as A
from robustclf.experiments._chen_common import MAX_SEED

print("domain,model,fold,error,c")
for domain in ("books", "kitchen"):
    X, y = A.load_amazon_top(domain, n_features=20_000, n_rows=None)
    folds = A._folds(y, 5, 0)
    seeds = np.random.default_rng(0).integers(0, MAX_SEED, size=len(folds))
    for label, make in [("SVC linear (exact q = 0 optimum)", lambda q, c: SVC(kernel="linear", C=c, tol=1e-6)),
                        ("LinearSVC", lambda q, c: LinearSVC(loss="hinge", C=c, max_iter=20_000, random_state=0))]:
        for k, (tr, te) in enumerate(folds):
            err, _, _, (_, c) = A._select_refit(make, [(0.0, c) for c in (0.01, 0.1, 1.0)],
                                                X[tr], y[tr], X[te], y[te], int(seeds[k]))
            print(f"{domain},{label},{k},{err:.4f},{c}", flush=True)
