"""Independent solves of the marginalised dropout objectives (Chen et al. 2014).

The objectives are written out here again from the paper, without the library's loss classes,
problem object or solvers:

* the hinge bound U (Eq. 10 with q(lambda) eliminated), for each one-vs-rest column,

      U(w, b) = ||w||^2 + c sum_n [ zeta_n + sqrt(zeta_n^2 + sum_d Var_nd w_d^2 + delta^2) ],
      zeta_n = l - y_n (w^T x_n + b),

  is a second-order cone program: each square root is the Euclidean norm of
  ``(zeta_n, sqrt(Var_n) * w, delta)``. :func:`hinge_bound_socp` solves it with cvxpy and
  Clarabel at tight tolerances (an interior-point method, nothing in common with Newton-CG);
* the Polya-Gamma bound of the logistic loss (Eqs. 16-22),
  ``||w||^2 + c sum_n [log 2 - y_n m_n / 2 + log cosh(s_n / 2)]``,
  ``s_n = sqrt(m_n^2 + sum_d Var_nd w_d^2)``, is smooth; :func:`logistic_bound_bfgs` minimises
  it with scipy's BFGS from zero at a gradient tolerance of 1e-10 (relative).

``delta = 1e-8 l`` is the library's documented smoothing of the hinge's kink; with it the SOCP
and the estimator have the same optimum. ``Var`` is the dropout variance
``q / (1 - q) x^2`` (unbiased blankout).

Row weights (``sample_weight``, scikit-learn's meaning) multiply each row's term of the sum:
``c sum_n s_n [...]``; None is all ones.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

__all__ = ["dropout_variance", "hinge_bound_objective", "hinge_bound_socp",
           "logistic_bound_objective", "logistic_bound_bfgs", "bench_cases"]

_DELTA = 1e-8


def dropout_variance(X, q: float):
    """``Var[x̃_nd] = q / (1 - q) x_nd^2`` of unbiased dropout, dense or sparse like X."""
    factor = q / (1.0 - q)
    return X.multiply(X) * factor if sp.issparse(X) else factor * X * X


def _signed(y, positive):
    return np.where(y == positive, 1.0, -1.0)


def _row_weights(sample_weight, n):
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)


def hinge_bound_objective(w, b, X, s, var, C, margin=1.0, sample_weight=None):
    """``U(w, b)`` of one column (``s`` the ±1 labels), evaluated entry by entry."""
    m = np.asarray(X @ w).ravel() + b
    zeta = margin - s * m
    u = np.asarray(var @ (w * w)).ravel()
    terms = zeta + np.sqrt(zeta**2 + u + (_DELTA * margin) ** 2)
    return float(w @ w + C * np.sum(_row_weights(sample_weight, X.shape[0]) * terms))


def hinge_bound_socp(X, s, var, C, margin=1.0, fit_intercept=True, sample_weight=None):
    """Minimise ``U`` of one column by cvxpy + Clarabel; returns ``(w, b, objective)``."""
    import cvxpy as cp

    n, d = X.shape
    w = cp.Variable(d)
    b = cp.Variable() if fit_intercept else 0.0
    zeta = margin - cp.multiply(s, X @ w + b)
    root = sp.csr_matrix(var).sqrt() if sp.issparse(var) else np.sqrt(var)
    spread = root @ cp.diag(w)
    cone = cp.hstack([cp.reshape(zeta, (n, 1), order="C"), spread,
                      np.full((n, 1), _DELTA * margin)])
    weights = _row_weights(sample_weight, n)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(w) + C * cp.sum(
        cp.multiply(weights, zeta + cp.norm(cone, 2, axis=1)))))
    with warnings.catch_warnings():   # "inaccurate" at 1e-11 is checked by the callers' 1e-6
        warnings.filterwarnings("ignore", message="Solution may be inaccurate")
        problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11,
                      max_iter=500)
    if problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"the SOCP oracle failed: {problem.status}")
    w_opt = np.asarray(w.value, dtype=float)
    b_opt = float(b.value) if fit_intercept else 0.0
    return w_opt, b_opt, hinge_bound_objective(w_opt, b_opt, X, s, var, C, margin, sample_weight)


def logistic_bound_objective(theta, X, s, var, C, fit_intercept=True, gradient=False,
                             sample_weight=None):
    """The Polya-Gamma bound of one column and (optionally) its gradient."""
    d = X.shape[1]
    Cn = C * _row_weights(sample_weight, X.shape[0])          # the weight of each row
    w, b = theta[:d], (theta[d] if fit_intercept else 0.0)
    m = np.asarray(X @ w).ravel() + b
    u = np.asarray(var @ (w * w)).ravel()
    r = np.sqrt(m * m + u)
    # log cosh(r / 2) = r / 2 + log(1 + exp(-r)) - log 2
    f = w @ w + np.sum(Cn * (-0.5 * s * m + 0.5 * r + np.log1p(np.exp(-r))))
    if not gradient:
        return float(f)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = np.where(r > 1e-8, np.tanh(0.5 * r) / (4.0 * r), 0.125)  # d/dS log cosh(sqrt(S)/2)
    dm = Cn * (-0.5 * s + 2.0 * k * m)
    du = Cn * k
    gw = 2.0 * w + np.asarray(X.T @ dm).ravel() + 2.0 * w * np.asarray(var.T @ du).ravel()
    g = np.append(gw, dm.sum()) if fit_intercept else gw
    return float(f), g


def logistic_bound_bfgs(X, s, var, C, fit_intercept=True, sample_weight=None):
    """Minimise the logistic bound of one column by scipy's BFGS; ``(w, b, objective)``."""
    d = X.shape[1]
    theta0 = np.zeros(d + int(fit_intercept))
    _, g0 = logistic_bound_objective(theta0, X, s, var, C, fit_intercept, gradient=True,
                                     sample_weight=sample_weight)
    res = minimize(logistic_bound_objective, theta0,
                   args=(X, s, var, C, fit_intercept, True, sample_weight),
                   jac=True, method="BFGS",
                   options={"gtol": 1e-10 * np.abs(g0).max(), "maxiter": 100_000})
    w = res.x[:d]
    b = float(res.x[d]) if fit_intercept else 0.0
    return w, b, logistic_bound_objective(res.x, X, s, var, C, fit_intercept,
                                          sample_weight=sample_weight)


def solve_ovr(kind, X, y, q, C, fit_intercept=True, sample_weight=None):
    """The oracle for every one-vs-rest column of ``DropoutSVC`` (``kind="hinge"``) or
    ``DropoutLogisticRegression`` (``kind="logistic"``); returns ``(coef, intercept, f)``.
    ``sample_weight`` (None: all ones) weights each row's term in every column."""
    classes = np.unique(y)
    positives = classes[1:] if classes.size == 2 else classes
    var = dropout_variance(X, q)
    out = []
    for positive in positives:
        s = _signed(y, positive)
        if kind == "hinge":
            out.append(hinge_bound_socp(X, s, var, C, fit_intercept=fit_intercept,
                                        sample_weight=sample_weight))
        else:
            out.append(logistic_bound_bfgs(X, s, var, C, fit_intercept, sample_weight))
    coef = np.array([o[0] for o in out])
    return coef, np.array([o[1] for o in out]), np.array([o[2] for o in out])


def objectives(kind, coef, intercept, X, y, q, C, sample_weight=None):
    """The oracle's own evaluation of a fitted model's objectives, column by column."""
    classes = np.unique(y)
    positives = classes[1:] if classes.size == 2 else classes
    var = dropout_variance(X, q)
    values = []
    for k, positive in enumerate(positives):
        s = _signed(y, positive)
        if kind == "hinge":
            values.append(hinge_bound_objective(coef[k], intercept[k], X, s, var, C,
                                                sample_weight=sample_weight))
        else:
            values.append(logistic_bound_objective(np.append(coef[k], intercept[k]), X, s,
                                                   var, C, sample_weight=sample_weight))
    return np.array(values)


def _digits():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm] / 16.0, y[perm]
    return X[:1200], y[:1200], X[1200:], y[1200:]


def _breast_cancer():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_breast_cancer(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm], y[perm]
    scaler = MinMaxScaler().fit(X[:400])
    return scaler.transform(X[:400]), y[:400], np.clip(scaler.transform(X[400:]), 0, 1), y[400:]


def bench_cases(data_dir=None) -> list[dict]:
    """Default and tight fits of both dropout estimators against the oracles (see module)."""
    from sklearn.exceptions import ConvergenceWarning

    from robustclf.linear import DropoutLogisticRegression, DropoutSVC

    cases = []
    for dataset, loader in (("digits (10 classes)", _digits), ("breast cancer", _breast_cancer)):
        Xtr, ytr, Xte, yte = loader()
        for Est, kind in ((DropoutSVC, "hinge"), (DropoutLogisticRegression, "logistic")):
            q, C = 0.5, 1.0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                t0 = time.perf_counter()
                model = Est(q=q, C=C).fit(Xtr, ytr)
                t_default = time.perf_counter() - t0
            t0 = time.perf_counter()
            Est(q=q, C=C, tol=1e-8, max_iter=1000).fit(Xtr, ytr)
            t_tight = time.perf_counter() - t0
            t0 = time.perf_counter()
            coef, intercept, f_opt = solve_ovr(kind, Xtr, ytr, q, C)
            t_oracle = time.perf_counter() - t0
            f = objectives(kind, model.coef_, model.intercept_, Xtr, ytr, q, C)
            classes = model.classes_
            scores = Xte @ coef.T + intercept
            pred = (classes[(scores[:, 0] > 0).astype(int)] if classes.size == 2
                    else classes[scores.argmax(axis=1)])
            cases.append(dict(
                estimator=f"{Est.__name__}(q={q}, C={C})", dataset=dataset,
                objective_gap=float(np.max((f - f_opt) / np.abs(f_opt))),
                time_default=t_default, time_tight=t_tight, time_oracle=t_oracle,
                same_predictions=bool(np.array_equal(model.predict(Xte), pred)),
                note=(f"error {np.mean(model.predict(Xte) != yte):.4f} vs oracle "
                      f"{np.mean(pred != yte):.4f}"
                      + ("; ConvergenceWarning" if caught else ""))))
    return cases
