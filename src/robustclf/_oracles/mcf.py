"""Independent solves of MCF's objectives (van der Maaten et al. 2013) under dropout noise.

Both are written out entry by entry from the paper's definitions, not through the library's
noise objects or solvers, and minimised by a different algorithm:

* MCF-quadratic, ``||w||^2 + C sum_n [(y_n - w.x_n - b)^2 + sum_d Var[x̃_nd] w_d^2]`` with the
  dropout variance ``Var[x̃_nd] = q / (1 - q) x_nd^2``: the ridge-like problem as one stacked
  linear least-squares problem, solved by LAPACK's SVD-based ``lstsq`` (the library forms the
  normal equations and factorises them by Cholesky, or runs conjugate gradients);
* MCF-logistic, ``||w||^2 + C sum_n log(1 + exp(-y_n b) prod_d E[exp(-y_n w_d x̃_nd)])`` with
  ``E[exp(t x̃_nd)] = q + (1 - q) exp(t x_nd / (1 - q))`` (the Jensen bound): a damped Newton
  method with the exact Hessian, one binary problem at a time, stopped on the Newton decrement
  (the library runs L-BFGS-B on all classes jointly with the cumulants shared per value).

For sparse X (d > 2,000, e.g. Amazon reviews) the same objectives are solved by LSQR on the
stacked least-squares problem and by Newton-CG (scipy's ``trust-krylov``) with exact
Hessian-vector products over the stored entries.

Every function takes ``sample_weight`` (None: all ones): row weights multiplying each row's term
of ``C sum_n``, scikit-learn's meaning.

:func:`bench_cases` times the default fits of :class:`~robustclf.linear.MCFClassifier` and
:class:`~robustclf.linear.ExplicitCorruptionClassifier` beside tightly converged ones and these
oracles.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import expit

from ._timing import fit, timed

__all__ = ["quadratic_objective", "solve_quadratic", "logistic_objective", "solve_logistic",
           "solve_quadratic_sparse", "solve_logistic_sparse", "ovr_predict", "digits_split",
           "spambase_split", "amazon_split", "bench_cases"]


def _pm(y: np.ndarray, k) -> np.ndarray:
    return np.where(y == k, 1.0, -1.0)


def _weights(sample_weight, n: int) -> np.ndarray:
    return np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)


def quadratic_objective(X, s, w, b, q: float, C: float, sample_weight=None) -> float:
    """MCF-quadratic objective of one binary problem (``s`` in ±1) under dropout ``q``."""
    var = q / (1.0 - q) * X**2
    r = s - X @ w - b
    sw = _weights(sample_weight, X.shape[0])
    return float(w @ w + C * ((sw * r) @ r + (sw @ (var @ (w * w)))))


def solve_quadratic(X, s, q: float, C: float, fit_intercept: bool = True, sample_weight=None):
    """Minimiser ``(w, b)`` of :func:`quadratic_objective` by SVD least squares.

    ``||w||^2 + C sum_n s_n (y_n - x_n w - b)^2 + C sum_d v_d w_d^2`` (``v_d`` the weighted sum
    of the variances) is ``||A theta - t||^2`` with the rows ``sqrt(C s_n) [x_n, 1]`` (targets
    ``sqrt(C s_n) y_n``) and ``diag(sqrt(1 + C v))`` on ``w`` (targets 0).
    """
    n, d = X.shape
    sw = _weights(sample_weight, n)
    v = q / (1.0 - q) * (sw @ X**2)
    root = np.sqrt(C * sw)[:, None]
    top = root * (np.hstack([X, np.ones((n, 1))]) if fit_intercept else X)
    reg = np.diag(np.sqrt(1.0 + C * v))
    if fit_intercept:
        reg = np.hstack([reg, np.zeros((d, 1))])
    A = np.vstack([top, reg])
    t = np.concatenate([root[:, 0] * s, np.zeros(d)])
    theta = np.linalg.lstsq(A, t, rcond=None)[0]
    return (theta[:d], float(theta[d])) if fit_intercept else (theta, 0.0)


def _logistic_parts(theta, X, s, q: float, C: float, order: int, sample_weight=None):
    """Objective, gradient and Hessian of MCF-logistic in ``theta = (w, b)``."""
    d = X.shape[1]
    sw = _weights(sample_weight, X.shape[0])
    w, b = theta[:d], theta[d]
    a = -s[:, None] * X / (1.0 - q)                      # exponent slope of each entry
    t = a * w[None, :]
    log_mgf = np.logaddexp(np.log(q), np.log1p(-q) + t)  # log E[exp(-s w_d x̃_nd)]
    z = log_mgf.sum(axis=1) - s * b
    f = float(w @ w + C * (sw * np.logaddexp(0.0, z)).sum())
    if order == 0:
        return f, None, None
    r = expit(t + np.log1p(-q) - np.log(q))              # d log_mgf / d t
    sig = expit(z)
    G = np.hstack([a * r, -s[:, None]])                  # d z_n / d theta
    grad = C * G.T @ (sw * sig)
    grad[:d] += 2.0 * w
    H = C * (G.T * (sw * sig * (1.0 - sig))) @ G
    H[:d, :d] += np.diag(C * ((sw * sig)[:, None] * a * a * r * (1.0 - r)).sum(axis=0) + 2.0)
    return f, grad, H


def logistic_objective(X, s, w, b, q: float, C: float, sample_weight=None) -> float:
    """MCF-logistic objective (the Jensen bound) of one binary problem under dropout ``q``."""
    return _logistic_parts(np.append(w, b), X, s, q, C, 0, sample_weight)[0]


def solve_logistic(X, s, q: float, C: float, *, tol: float = 1e-20, max_iter: int = 100,
                   sample_weight=None):
    """Minimiser of :func:`logistic_objective` (with intercept) by damped Newton.

    Stops when half the squared Newton decrement, an estimate of the remaining objective
    decrease, is below ``tol * max(1, |f|)``; raises ``RuntimeError`` otherwise.
    """
    theta = np.zeros(X.shape[1] + 1)
    f, g, H = _logistic_parts(theta, X, s, q, C, 2, sample_weight)
    for _ in range(max_iter):
        step = np.linalg.solve(H, g)
        decrement = float(g @ step)
        if 0.5 * decrement <= tol * max(1.0, abs(f)):
            return theta[:-1], float(theta[-1]), f
        eta = 1.0
        while True:                                      # Armijo backtracking
            new = theta - eta * step
            f_new = _logistic_parts(new, X, s, q, C, 0, sample_weight)[0]
            if f_new <= f - 1e-4 * eta * decrement or eta < 1e-10:
                break
            eta *= 0.5
        theta = new
        f, g, H = _logistic_parts(theta, X, s, q, C, 2, sample_weight)
    raise RuntimeError("the Newton oracle did not reach its decrement tolerance")


def solve_quadratic_sparse(X, s, q: float, C: float, sample_weight=None):
    """:func:`solve_quadratic` for sparse ``X`` (with intercept) by LSQR on the same stacked
    least-squares problem (Paige & Saunders; not CG on the normal equations), to 1e-14."""
    from scipy.sparse.linalg import lsqr

    n, d = X.shape
    sw = _weights(sample_weight, n)
    v = q / (1.0 - q) * np.asarray(X.multiply(X).T @ sw).ravel()
    root = np.sqrt(C * sw)
    top = sp.diags(root) @ sp.hstack([X, np.ones((n, 1))])
    reg = sp.hstack([sp.diags(np.sqrt(1.0 + C * v)), sp.csr_matrix((d, 1))])
    A = sp.vstack([top, reg]).tocsr()
    t = np.concatenate([root * s, np.zeros(d)])
    theta = lsqr(A, t, atol=1e-14, btol=1e-14, iter_lim=100 * (d + 1))[0]
    return theta[:d], float(theta[d])


def _sparse_logistic_parts(theta, X, s, q: float, C: float, sample_weight=None):
    """Objective, gradient and a Hessian-vector product of MCF-logistic for CSR ``X``.

    Zero entries contribute ``log(q + (1 - q)) = 0`` to the cumulant, so only the stored
    entries of ``A = -diag(s) X / (1 - q)`` are used.
    """
    d = X.shape[1]
    w, b = theta[:d], theta[d]
    A = X.multiply(-s[:, None] / (1.0 - q)).tocsr()
    cols = A.indices
    t = A.data * w[cols]
    shift = np.log1p(-q) - np.log(q)
    log_mgf = np.logaddexp(np.log(q), np.log1p(-q) + t)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(A.indptr))
    z = np.bincount(rows, log_mgf, minlength=X.shape[0]) - s * b
    r = expit(t + shift)
    sw = _weights(sample_weight, X.shape[0])
    sig = expit(z)
    D1 = A.copy()
    D1.data = A.data * r                                  # d z_n / d w_d
    D2 = A.copy()
    D2.data = A.data**2 * r * (1.0 - r)                   # d^2 z_n / d w_d^2
    f = float(w @ w + C * (sw * np.logaddexp(0.0, z)).sum())
    grad = np.concatenate([2.0 * w + C * (D1.T @ (sw * sig)), [-C * (s @ (sw * sig))]])
    curv = C * sw * sig * (1.0 - sig)
    diag = C * (D2.T @ (sw * sig))

    def hessp(v):
        Gv = D1 @ v[:d] - s * v[d]
        out_w = 2.0 * v[:d] + D1.T @ (curv * Gv) + diag * v[:d]
        return np.concatenate([out_w, [-(s @ (curv * Gv))]])

    return f, grad, hessp


def solve_logistic_sparse(X, s, q: float, C: float, *, gtol: float = 1e-10, sample_weight=None):
    """Minimiser of MCF-logistic for CSR ``X`` by Newton-CG with exact Hessian-vector
    products (scipy's ``trust-krylov``), to a gradient ``gtol`` times its value at zero."""
    from scipy.optimize import minimize

    x0 = np.zeros(X.shape[1] + 1)
    g0 = np.abs(_sparse_logistic_parts(x0, X, s, q, C, sample_weight)[1]).max()
    cache = {}

    def parts(theta):
        key = theta.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = _sparse_logistic_parts(theta, X, s, q, C, sample_weight)
        return cache[key]

    res = minimize(lambda th: parts(th)[0], x0, jac=lambda th: parts(th)[1],
                   hessp=lambda th, v: parts(th)[2](v), method="trust-krylov",
                   options={"gtol": gtol * g0, "maxiter": 1000})
    if np.abs(parts(res.x)[1]).max() > gtol * g0 * 10:
        raise RuntimeError(f"the Newton-CG oracle stopped early: {res.message}")
    return res.x[:-1], float(res.x[-1]), float(res.fun)


def amazon_split(data_dir=None, n_features: int = 2500):
    """Amazon books reviews (counts, CSR), the ``n_features`` most frequent words, seed-0
    permutation: 1,500 training rows, 500 test rows. ``FileNotFoundError`` without data."""
    from robustclf.datasets import load_amazon_reviews

    X, y = load_amazon_reviews("books", data_dir=data_dir, return_X_y=True)
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    X = X[:, np.sort(np.argsort(-df, kind="stable")[:n_features])].tocsr()
    perm = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[perm], y[perm]
    return X[:1500], y[:1500], X[1500:], y[1500:]


def ovr_predict(classes, W, B, X):
    """Labels from one-vs-rest (or one binary) linear scores."""
    scores = X @ np.asarray(W).T + np.asarray(B)
    if len(classes) == 2:
        return np.asarray(classes)[(scores[:, -1] > 0).astype(int)]
    return np.asarray(classes)[np.argmax(scores, axis=1)]


def solve_ovr(loss: str, X, y, q: float, C: float, sample_weight=None):
    """Oracle ``(W, B, objectives)`` for every one-vs-rest problem of :class:`MCFClassifier`
    (the sparse solvers for CSR ``X``), rows weighted by ``sample_weight`` (None: ones)."""
    classes = np.unique(y)
    targets = classes[1:] if classes.size == 2 else classes
    sw = sample_weight
    W, B, F = [], [], []
    for k in targets:
        s = _pm(y, k)
        if loss == "quadratic" and sp.issparse(X):
            w, b = solve_quadratic_sparse(X, s, q, C, sw)
            f = quadratic_objective(X.toarray(), s, w, b, q, C, sw)
        elif loss == "quadratic":
            w, b = solve_quadratic(X, s, q, C, sample_weight=sw)
            f = quadratic_objective(X, s, w, b, q, C, sw)
        elif sp.issparse(X):
            w, b, f = solve_logistic_sparse(X, s, q, C, sample_weight=sw)
        else:
            w, b, f = solve_logistic(X, s, q, C, sample_weight=sw)
        W.append(w)
        B.append(b)
        F.append(f)
    return np.array(W), np.array(B), np.array(F)


def digits_split():
    """scikit-learn's digits, pixels / 16, seed-0 permutation: 1,200 training rows, 597 test."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm] / 16.0, y[perm]
    return X[:1200], y[:1200], X[1200:], y[1200:]


def spambase_split(data_dir=None):
    """Spambase, min-max scaled on the training rows: 2,000 training rows, 1,000 test rows
    (seed-0 permutation). Raises ``FileNotFoundError`` without the data."""
    from robustclf.datasets import load_spambase

    X, y = load_spambase(data_dir=data_dir, return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)
    X, y = X[perm], y[perm]
    Xtr, Xte = X[:2000], X[2000:3000]
    lo, span = Xtr.min(axis=0), np.ptp(Xtr, axis=0)
    span = np.where(span > 0, span, 1.0)
    return (Xtr - lo) / span, y[:2000], np.clip((Xte - lo) / span, 0.0, None), y[2000:3000]


def _liblinear_primal(model, X, y) -> np.ndarray:
    """``1/2 (||w||^2 + b^2) + C sum hinge`` of each one-vs-rest column (liblinear's, C=1)."""
    Y = np.where(y[:, None] == model.classes_[None, :], 1.0, -1.0)
    hinge = np.maximum(0.0, 1.0 - Y * (X @ model.coef_.T + model.intercept_))
    return 0.5 * ((model.coef_**2).sum(axis=1) + model.intercept_**2) + hinge.sum(axis=0)


def _datasets(data_dir):
    out = [("digits", digits_split())]
    for name, loader in [("spambase", spambase_split),
                         ("amazon books, 2,500 words", amazon_split)]:
        try:
            out.append((name, loader(data_dir)))
        except (FileNotFoundError, OSError):
            pass
    return out


_ORACLE_NAMES = {("quadratic", False): "SVD lstsq", ("quadratic", True): "LSQR",
                 ("logistic", False): "Newton", ("logistic", True): "Newton-CG (trust-krylov)"}


def bench_cases(data_dir=None) -> list[dict]:
    """Default vs tight vs oracle fits of MCF (both losses) and explicit corruption.

    For :class:`~robustclf.linear.ExplicitCorruptionClassifier` the oracle is the same
    LinearSVC on the same copies at ``tol=1e-5`` (liblinear's dual objective has no closed
    form here); ``objective_gap`` is then the relative gap of the primal objectives
    ``1/2 ||w||^2 + C sum hinge`` (bias penalised as liblinear does).
    """
    from sklearn.svm import LinearSVC

    from robustclf.linear import ExplicitCorruptionClassifier, MCFClassifier, explicit_corruption

    cases = []
    q, C = 0.5, 1.0
    for name, (Xtr, ytr, Xte, _) in _datasets(data_dir):
        for loss in ("quadratic", "logistic"):
            default, t_def, w_def = timed(fit, MCFClassifier(loss=loss), Xtr, ytr)
            _, t_tight, _ = timed(fit, MCFClassifier(loss=loss, tol=1e-7, max_iter=100_000),
                                   Xtr, ytr)
            (W, B, F), t_or, _ = timed(solve_ovr, loss, Xtr, ytr, q, C)
            gap = float(np.max((default.objective_ - F) / np.abs(F)))
            same = bool(np.array_equal(default.predict(Xte),
                                       ovr_predict(default.classes_, W, B, Xte)))
            cases.append(dict(estimator=f"MCFClassifier(loss={loss!r})", dataset=name,
                              objective_gap=gap, time_default=t_def, time_tight=t_tight,
                              time_oracle=t_or, same_predictions=same,
                              note=f"oracle: {_ORACLE_NAMES[loss, sp.issparse(Xtr)]}; "
                                   f"warnings: {len(w_def)}"))
        if name != "digits":
            continue
        default, t_def, w_def = timed(fit, ExplicitCorruptionClassifier(random_state=0),
                                       Xtr, ytr)
        Xc, yc = explicit_corruption(Xtr, ytr, n_copies=16, random_state=0)
        tight, t_tight, _ = timed(fit, LinearSVC(loss="hinge", tol=1e-5, max_iter=10**7,
                                                   random_state=0), Xc, yc)
        f_def = _liblinear_primal(default.estimator_, Xc, yc)
        f_tight = _liblinear_primal(tight, Xc, yc)
        cases.append(dict(estimator="ExplicitCorruptionClassifier()", dataset=name,
                          objective_gap=float(np.max((f_def - f_tight) / f_tight)),
                          time_default=t_def, time_tight=t_tight, time_oracle=t_tight,
                          same_predictions=bool(np.array_equal(default.predict(Xte),
                                                               tight.predict(Xte))),
                          note=f"oracle = LinearSVC(tol=1e-5) on the same copies; "
                               f"warnings: {len(w_def)}"))
    return cases
