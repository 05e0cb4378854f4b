"""Independent reference solves for Dekel & Shamir's LP / Perceptron objective and for FDROP.

* :func:`eq4_lp` writes Dekel & Shamir's Eq. (4) out as printed (one ``lambda_i`` per example,
  one ``alpha_ij`` per example and feature, O(mn) rows) and hands it to HiGHS through
  :func:`scipy.optimize.linprog` (interior point with crossover): a different method from the
  library's default cutting planes, on the paper's own formulation. ``bias_bound`` bounds
  ``|b|`` (the Perceptron's cube).
* :func:`fdrop_qp` writes Globerson & Roweis's QP with its LP-dual variables (``z_i``,
  ``v_ij``) in cvxpy and solves it with Clarabel at tight tolerances.
* :func:`ovr_oracle` runs either for every one-vs-rest column with the estimators' label
  convention (one problem for two classes, else one per class).
* :func:`bench_cases` fits each estimator at its defaults and tightly, and compares with the
  oracle (objective gap, time, held-out predictions).

Nothing here is used by the estimators.
"""

from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from ._timing import timed

__all__ = ["eq4_lp", "fdrop_qp", "ovr_oracle", "ovr_predict", "digits_split",
           "breast_cancer_split", "bench_cases"]


def eq4_lp(X, y, values, budget, margin=1.0, weight_bound=10.0, *, fit_intercept=True,
           bias_bound=None, sample_weight=None):
    """Dekel & Shamir's Eq. (4) for ``y`` in {-1, +1}, solved by HiGHS's interior point.

    ``min (1/(m gamma)) sum_i xi_i`` (with ``sample_weight``: ``(1/(S gamma)) sum_i s_i xi_i``,
    ``S = sum_i s_i``; rows of weight 0 are kept, with slack cost 0)
    s.t. ``P lambda_i - sum_j alpha_ij + y_i b >= -xi_i``,
    ``y_i w_j x_ij - gamma v_j / P >= lambda_i v_j - alpha_ij``, ``alpha, lambda, xi >= 0``,
    ``||w||_inf <= C`` (and ``|b| <= bias_bound`` if given). Features that are 0 in every row
    get ``w_j = 0`` (they are in no constraint: any weight is optimal; the estimators' choice).
    Returns ``(w, b, objective)``.
    """
    X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=float)
    y = np.asarray(y, dtype=float)
    m, n = X.shape
    values = np.asarray(values, dtype=float)
    P = values.sum() - budget
    eye_m = sp.identity(m, format="csr")
    # columns: w (n) | b (1) | xi (m) | lambda (m) | alpha (m n, row-major)
    first = sp.hstack([sp.csr_matrix((m, n)), sp.csr_matrix(-y[:, None]), -eye_m, -P * eye_m,
                       sp.kron(eye_m, np.ones((1, n)))], format="csr")
    yx = (y[:, None] * X).ravel()  # the coefficient of w_j in row (i, j)
    w_block = sp.csr_matrix((-yx, (np.arange(m * n), np.tile(np.arange(n), m))),
                            shape=(m * n, n))
    second = sp.hstack([w_block, sp.csr_matrix((m * n, 1 + m)),
                        sp.kron(eye_m, values[:, None]), -sp.identity(m * n)], format="csr")
    A = sp.vstack([first, second], format="csr")
    rhs = np.concatenate([np.zeros(m), np.tile(-margin * values / P, m)])
    slack_cost = np.full(m, 1.0 / (m * margin)) if sample_weight is None else \
        np.asarray(sample_weight, dtype=float) / (np.sum(sample_weight) * margin)
    cost = np.concatenate([np.zeros(n + 1), slack_cost, np.zeros(m + m * n)])
    if not fit_intercept:
        b_range = (0.0, 0.0)
    elif bias_bound is None:
        b_range = (None, None)
    else:
        b_range = (-bias_bound, bias_bound)
    # the estimators' convention for features that are 0 in every training row of positive
    # weight (any weight is optimal for them): weight 0
    rows = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
    w_range = [(-weight_bound, weight_bound) if seen else (0.0, 0.0)
               for seen in rows.any(axis=0)]
    bounds = w_range + [b_range] + [(0, None)] * (2 * m + m * n)
    res = linprog(cost, A_ub=A, b_ub=rhs, bounds=bounds, method="highs-ipm",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0:
        raise RuntimeError(f"oracle LP failed: {res.message}")
    return res.x[:n], float(res.x[n]), float(res.fun)


def fdrop_qp(X, y, budget, C=1.0, *, fit_intercept=True, sample_weight=None):
    """Globerson & Roweis's QP (with ``z_i``, ``v_ij``) in cvxpy, solved by Clarabel.

    ``min 1/2 ||w||^2 + C sum xi`` (with ``sample_weight``: ``C sum_i s_i xi_i``)
    s.t. ``y_i (b + w.x_i) - K z_i - sum_j v_ij >= 1 - xi_i``,
    ``z_i + v_ij >= y_i w_j x_ij``, ``xi, z, v >= 0``. Returns ``(w, b, objective)``.

    A sparse ``X`` keeps ``v_ij`` for its stored entries only (for ``x_ij = 0`` the pair
    constraint holds at ``v_ij = 0``, which only loosens the margin row), so that problems with
    thousands of features fit in memory.
    """
    import cvxpy as cp

    y = np.asarray(y, dtype=float)
    m, n = X.shape
    w, b = cp.Variable(n), cp.Variable()
    xi, z = cp.Variable(m, nonneg=True), cp.Variable(m, nonneg=True)
    if sp.issparse(X):
        SX = sp.csr_matrix(sp.csr_matrix(X, dtype=float).multiply(y[:, None]))
        SX.eliminate_zeros()
        entry = SX.tocoo()
        k = np.arange(entry.nnz)
        pair = sp.csr_matrix((entry.data, (k, entry.col)), shape=(entry.nnz, n))
        owner = sp.csr_matrix((np.ones(entry.nnz), (entry.row, k)), shape=(m, entry.nnz))
        v = cp.Variable(entry.nnz, nonneg=True)
        cons = [cp.multiply(y, b) + SX @ w - budget * z - owner @ v >= 1 - xi,
                v + owner.T @ z >= pair @ w]
    else:
        SX = y[:, None] * np.asarray(X, dtype=float)
        V = cp.Variable((m, n), nonneg=True)
        cons = [cp.multiply(y, b) + SX @ w - budget * z - cp.sum(V, axis=1) >= 1 - xi,
                V + z[:, None] >= SX @ cp.diag(w)]
    if not fit_intercept:
        cons.append(b == 0)
    loss = cp.sum(xi) if sample_weight is None else \
        cp.sum(cp.multiply(np.asarray(sample_weight, dtype=float), xi))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * loss), cons)
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    if prob.status != cp.OPTIMAL:
        raise RuntimeError(f"oracle QP failed: {prob.status}")
    return np.asarray(w.value), float(b.value), float(prob.value)


def ovr_oracle(solve, X, y, **kwargs):
    """``solve(X, s, **kwargs)`` on every one-vs-rest column; returns classes, W, b, objectives.

    The estimators' convention: two classes give one problem, positive for the larger label;
    more give one problem per class (that class against the rest).
    """
    classes = np.unique(y)
    columns = [classes[1]] if classes.size == 2 else list(classes)
    out = [solve(X, np.where(y == c, 1.0, -1.0), **kwargs) for c in columns]
    return (classes, np.array([o[0] for o in out]), np.array([o[1] for o in out]),
            np.array([o[2] for o in out]))


def ovr_predict(classes, W, b, X):
    """Predictions of a one-vs-rest linear model (the estimators' ``predict``)."""
    scores = np.asarray(X @ W.T) + b
    if classes.size == 2:
        return classes[(scores[:, 0] > 0).astype(int)]
    return classes[np.argmax(scores, axis=1)]


def digits_split(n_train=300, n_test=300, seed=0):
    """scikit-learn's digits, pixels / 16, a seeded permutation: 10 classes, 64 features."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    p = np.random.default_rng(seed).permutation(y.size)
    X, y = X[p] / 16.0, y[p]
    return X[:n_train], y[:n_train], X[n_train:n_train + n_test], y[n_train:n_train + n_test]


def breast_cancer_split(n_train=300, seed=0):
    """scikit-learn's breast cancer data, min-max scaled on the training rows: 2 classes, 30
    features."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    p = np.random.default_rng(seed).permutation(y.size)
    X, y = X[p], y[p]
    lo, hi = X[:n_train].min(axis=0), X[:n_train].max(axis=0)
    X = np.clip((X - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0, 1.0)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]




def _case(name, dataset, make, oracle, split, note):
    """One bench dict: default and tight fits against the oracle on a split."""
    Xtr, ytr, Xte, yte = split
    default, t_default, caught = timed(lambda: make(False).fit(Xtr, ytr))
    tight, t_tight, _ = timed(lambda: make(True).fit(Xtr, ytr))
    (classes, W, b, objective), t_oracle, _ = timed(lambda: oracle(Xtr, ytr))
    ref = objective.sum()
    gap = (default.objective_.sum() - ref) / max(abs(ref), 1e-12)
    same = bool(np.array_equal(default.predict(Xte), ovr_predict(classes, W, b, Xte)))
    warned = [message[:80] for message in caught if "converge" in message]
    if hasattr(default, "duality_gap_"):
        note += (f"; certified gap {default.duality_gap_.sum() / max(abs(ref), 1e-12):.2e} "
                 f"(relative), bound below the optimum: "
                 f"{bool(np.all(default.lower_bound_ <= objective + 1e-9))}")
    return dict(estimator=name, dataset=dataset, objective_gap=float(gap),
                time_default=t_default, time_tight=t_tight, time_oracle=t_oracle,
                same_predictions=same,
                note=note + (f"; default warned: {warned[0]}" if warned else ""))


def bench_cases(data_dir=None) -> list[dict]:
    """Default vs tight vs oracle for DeletionRobustLP, FDROPClassifier and the Perceptron.

    Data: digits (200 training rows, 10 classes) and breast cancer (300 rows, 2 classes), or
    spambase (500 rows, MI values) when ``data_dir`` / ``ROBUSTCLF_DATA`` holds it.
    The Perceptron's row compares its objective with the optimum of the same objective over its
    cube (it is an online method with a fixed budget; its ``note`` gives the certified gap).
    """
    from ..linear import DeletionRobustLP, DeletionRobustPerceptron, FDROPClassifier

    splits = {"digits/16 (200 rows, 10 classes)": digits_split(n_train=200),
              "breast_cancer (300 rows)": breast_cancer_split()}
    data_dir = data_dir or os.environ.get("ROBUSTCLF_DATA")
    cases = []
    for dataset, split in splits.items():
        n = split[0].shape[1]
        cases.append(_case(
            "DeletionRobustLP", dataset,
            lambda tight: DeletionRobustLP(budget=8, random_state=0,
                                           **({"tol": 1e-12} if tight else {})),
            lambda X, y, n=n: ovr_oracle(eq4_lp, X, y, values=np.ones(n), budget=8),
            split, "budget=8, uniform values; oracle: Eq. (4) by HiGHS IPM; Eq. (4)'s optimum "
                   "need not be unique (predictions of two optima may differ)"))
        cases.append(_case(
            "FDROPClassifier", dataset,
            lambda tight: FDROPClassifier(budget=1, **({"tol": 1e-12} if tight else {})),
            lambda X, y: ovr_oracle(fdrop_qp, X, y, budget=1),
            split, "budget=1, C=1; oracle: GR QP in cvxpy/Clarabel"))
        perceptron = _case(
            "DeletionRobustPerceptron", dataset,
            lambda tight: DeletionRobustPerceptron(budget=2, random_state=0,
                                                   n_epochs=20 if tight else 1),
            lambda X, y, n=n: ovr_oracle(eq4_lp, X, y, values=np.ones(n), budget=2,
                                         bias_bound=10.0),
            split, "budget=2; tight = 20 epochs; oracle: Eq. (4) over the cube")
        cases.append(perceptron)
    if data_dir:
        try:
            from ..datasets import load_spambase

            Xs, ys = load_spambase(data_dir=data_dir, return_X_y=True)
        except (OSError, ValueError):  # not available
            Xs = None
        if Xs is not None:
            p = np.random.default_rng(0).permutation(ys.size)
            Xs, ys = np.asarray(Xs, dtype=float)[p], np.asarray(ys)[p]
            lo, hi = Xs[:500].min(axis=0), Xs[:500].max(axis=0)
            Xs = np.clip((Xs - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0, 1.0)
            split = (Xs[:500], ys[:500], Xs[500:1500], ys[500:1500])
            from ..feature_values import mutual_info_values

            values = mutual_info_values(split[0], split[1])
            cases.append(_case(
                "DeletionRobustLP", "spambase (500 rows)",
                lambda tight: DeletionRobustLP(budget=5, feature_values=values, random_state=0,
                                               **({"tol": 1e-12} if tight else {})),
                lambda X, y: ovr_oracle(eq4_lp, X, y, values=values, budget=5),
                split, "budget=5, MI values; oracle: Eq. (4) by HiGHS IPM"))
    return cases
