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
  it with scipy's BFGS from zero at a gradient tolerance of 1e-10 (relative);
* the Gaussian objective of ``DropoutSVC`` (``objective="gaussian"``, its default),
  ``||w||^2 + 2c sum_n [mu_n Phi(mu_n / sigma_n) + sigma_n phi(mu_n / sigma_n)]``,
  ``mu_n = l - y_n (w^T x_n + b)``, ``sigma_n^2 = sum_d Var_nd w_d^2 + delta^2``, is smooth and
  convex; :func:`hinge_gaussian_lbfgs` minimises it with scipy's L-BFGS-B in float64 from zero
  (``ftol=0``, gradient tolerance 1e-10 relative to the gradient at zero) with the gradient
  written out by hand here (:func:`hinge_gaussian_objective`).

``delta = 1e-8 l`` is the library's documented smoothing of the hinge's kink; with it the SOCP
and the estimator have the same optimum; the Gaussian oracle carries the same ``delta`` in
``sigma_n`` (it moves the objective by at most ``2 c n delta phi(0)``). ``Var`` is the dropout
variance ``q / (1 - q) x^2`` of unbiased blankout, whose mean ``E[x̃] = x`` (kept entries are
rescaled by ``1 / (1 - q)``), so the margins' means use ``x`` itself.

Row weights (``sample_weight``, scikit-learn's meaning) multiply each row's term of the sum:
``c sum_n s_n [...]``; None is all ones.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from ._timing import fit, timed

__all__ = ["dropout_variance", "hinge_bound_objective", "hinge_bound_socp",
           "logistic_bound_objective", "logistic_bound_bfgs", "hinge_gaussian_objective",
           "hinge_gaussian_lbfgs", "solve_ovr", "objectives", "default_kind", "default_problem",
           "ovr_predict", "check_default", "default_cases", "bench_cases"]

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
    """The oracle for every one-vs-rest column of ``DropoutSVC`` (``kind="hinge"``: the bound,
    ``"hinge_gaussian"``: the Gaussian objective) or ``DropoutLogisticRegression``
    (``kind="logistic"``); returns ``(coef, intercept, f)``. ``sample_weight`` (None: all
    ones) weights each row's term in every column.

    Raises RuntimeError if the Gaussian oracle stops above 1e-8 relative gradient (so that a
    test never compares with an unconverged reference)."""
    classes = np.unique(y)
    positives = classes[1:] if classes.size == 2 else classes
    var = dropout_variance(X, q)
    out = []
    for positive in positives:
        s = _signed(y, positive)
        if kind == "hinge":
            out.append(hinge_bound_socp(X, s, var, C, fit_intercept=fit_intercept,
                                        sample_weight=sample_weight))
        elif kind == "hinge_gaussian":
            *solution, info = hinge_gaussian_lbfgs(X, s, var, C, fit_intercept=fit_intercept,
                                                   sample_weight=sample_weight)
            if info["relative_gradient"] > 1e-8:
                raise RuntimeError(f"the L-BFGS-B oracle stopped early: {info}")
            out.append(solution)
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
        elif kind == "hinge_gaussian":
            values.append(hinge_gaussian_objective(np.append(coef[k], intercept[k]), X, s,
                                                   var, C, sample_weight=sample_weight))
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
    """Fits at q = 0.5, C = 1 (the bound, issue 14's configuration; default and tight
    tolerance) and the estimators' own defaults (:func:`default_cases`) against the oracles."""
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
    return cases + default_cases(data_dir)


# --- the Gaussian objective of DropoutSVC (objective="gaussian") -------------------------------

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def hinge_gaussian_objective(theta, X, s, var, C, margin=1.0, fit_intercept=True,
                             gradient=False, sample_weight=None):
    """The expected hinge loss under a Gaussian ``w^T x̃ + b`` of one column, and its gradient.

    ``F(w, b) = ||w||^2 + 2c sum_n r_n (mu_n Phi(t_n) + sigma_n phi(t_n))``, ``t = mu / sigma``,
    ``mu_n = l - y_n (w^T x_n + b)`` (``x_n = E[x̃_n]``: unbiased dropout rescales the kept
    entries by ``1 / (1 - q)``), ``sigma_n^2 = sum_d Var_nd w_d^2 + delta^2`` with the library's
    ``delta = 1e-8 l`` (Wang & Manning's fast dropout; ``r_n`` the row weights). Written from
    the formula: ``d/dmu (mu Phi + sigma phi) = Phi(t)``, ``d/dsigma = phi(t)``,
    ``d sigma / d w_d = Var_nd w_d / sigma``.
    """
    from scipy.special import ndtr

    d = X.shape[1]
    c2 = 2.0 * C * _row_weights(sample_weight, X.shape[0])
    w, b = theta[:d], (theta[d] if fit_intercept else 0.0)
    mu = margin - s * (np.asarray(X @ w).ravel() + b)
    sigma = np.sqrt(np.asarray(var @ (w * w)).ravel() + (_DELTA * margin) ** 2)
    t = mu / sigma
    cdf, pdf = ndtr(t), _INV_SQRT_2PI * np.exp(-0.5 * t * t)
    f = float(w @ w + np.sum(c2 * (mu * cdf + sigma * pdf)))
    if not gradient:
        return f
    dmu = -c2 * s * cdf                                   # d f / d (w^T x_n + b)
    gw = 2.0 * w + np.asarray(X.T @ dmu).ravel() \
        + w * np.asarray(var.T @ (c2 * pdf / sigma)).ravel()
    return f, (np.append(gw, dmu.sum()) if fit_intercept else gw)


def hinge_gaussian_lbfgs(X, s, var, C, margin=1.0, fit_intercept=True, sample_weight=None,
                         gtol=1e-10):
    """Minimise :func:`hinge_gaussian_objective` of one column from zero by scipy's L-BFGS-B.

    float64, ``ftol=0`` (no stop on a small decrease), ``gtol`` relative to the largest entry
    of the gradient at zero, 50 correction pairs, at most 100,000 iterations. Returns
    ``(w, b, objective, info)``; ``info`` holds scipy's message, the iterations and the final
    relative gradient (the caller decides whether it is small enough; L-BFGS-B may stop on a
    failed line search once the objective is flat at machine precision).
    """
    d = X.shape[1]
    theta0 = np.zeros(d + int(fit_intercept))
    args = (X, s, var, C, margin, fit_intercept, True, sample_weight)
    g0 = np.abs(hinge_gaussian_objective(theta0, *args)[1]).max()
    res = minimize(hinge_gaussian_objective, theta0, args=args, jac=True, method="L-BFGS-B",
                   options={"gtol": gtol * g0, "ftol": 0.0, "maxiter": 100_000,
                            "maxfun": 200_000, "maxcor": 50})
    w = res.x[:d]
    b = float(res.x[d]) if fit_intercept else 0.0
    info = dict(message=str(res.message), nit=int(res.nit),
                relative_gradient=float(np.abs(res.jac).max() / g0))
    return w, b, float(res.fun), info


# --- the default fits ---------------------------------------------------------------------------

_DEFAULT_KINDS = {("DropoutSVC", "bound"): "hinge", ("DropoutSVC", "gaussian"): "hinge_gaussian",
                  ("DropoutLogisticRegression", "bound"): "logistic"}


def default_kind(model) -> str:
    """The oracle ``kind`` of ``model``'s objective; KeyError (naming the objective) where this
    module has no oracle (``DropoutLogisticRegression(objective="gaussian")``)."""
    key = (type(model).__name__, model.objective)
    if key not in _DEFAULT_KINDS:
        raise KeyError(f"no oracle for {key[0]}(objective={key[1]!r})")
    return _DEFAULT_KINDS[key]


def default_problem(model):
    """``(kind, q, C)`` of ``model`` as the oracle reads them: its objective, its resolved
    dropout level (q = None means the class's default) and its C. Only the dropout noise,
    margin 1, a free intercept and no class weights are covered (ValueError otherwise)."""
    params = model.get_params()
    if (params["noise"] != "dropout" or not params["fit_intercept"]
            or params["class_weight"] is not None or params.get("margin", 1.0) != 1.0):
        raise ValueError(f"the oracle covers unweighted dropout with margin 1 only: {params}")
    return default_kind(model), float(model._resolved_q()), float(params["C"])


def ovr_predict(classes, coef, intercept, X):
    """Labels from one-vs-rest (or one binary) linear scores."""
    scores = np.asarray(X @ coef.T) + intercept
    if classes.size == 2:
        return classes[(scores[:, 0] > 0).astype(int)]
    return classes[scores.argmax(axis=1)]


def _digits_stratified():
    """Digits over 16 (pixels in [0, 1]), a stratified seed-0 split: 1,200 training rows."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, train_size=1200, stratify=y,
                                          random_state=0)
    return Xtr, ytr, Xte, yte


def _amazon_wide(data_dir=None):
    """Amazon book reviews, the 2,500 terms in most reviews, each over its maximum (CSR), a
    seed-0 permutation: 600 training and 1,000 test rows. FileNotFoundError without data."""
    from robustclf.datasets import load_amazon_reviews

    X, y = load_amazon_reviews("books", data_dir=data_dir, return_X_y=True)
    X = X.tocsr()
    top = np.argsort(-np.asarray((X != 0).sum(axis=0)).ravel())[:2500]
    perm = np.random.default_rng(0).permutation(X.shape[0])
    X, y = X[perm][:, top], y[perm]
    X = X.multiply(1.0 / X.max(axis=0).toarray().clip(1e-12)).tocsr()
    return X[:600], y[:600], X[600:1600], y[600:1600]


def check_default(model, Xtr, ytr, Xte):
    """The oracle's solve of ``model``'s (fitted) problem and its evaluation of the model.

    Returns a dict: ``f`` (the oracle's objective at the model's coefficients, per column),
    ``f_opt`` (at the oracle's optimum), ``gap`` (``(f - f_opt) / |f_opt|``), ``pred`` (the
    oracle's test labels), ``time_oracle`` (seconds).
    """
    kind, q, C = default_problem(model)
    (coef, intercept, f_opt), t_oracle, _ = timed(solve_ovr, kind, Xtr, ytr, q, C)
    f = objectives(kind, model.coef_, model.intercept_, Xtr, ytr, q, C)
    return dict(kind=kind, q=q, C=C, f=f, f_opt=f_opt, gap=(f - f_opt) / np.abs(f_opt),
                pred=ovr_predict(model.classes_, coef, intercept, Xte), time_oracle=t_oracle)


def default_cases(data_dir=None) -> list[dict]:
    """``DropoutSVC()`` and ``DropoutLogisticRegression()`` exactly as constructed by default
    against the oracles: digits (stratified, 10 classes), breast cancer and, with the data,
    the wide sparse Amazon problem (d = 2,500)."""
    from robustclf.linear import DropoutLogisticRegression, DropoutSVC

    datasets = [("digits (10 classes, stratified)", _digits_stratified()),
                ("breast cancer", _breast_cancer())]
    try:
        datasets.append(("amazon books, 2,500 terms (sparse)", _amazon_wide(data_dir)))
    except (FileNotFoundError, OSError):
        pass
    cases = []
    for dataset, (Xtr, ytr, Xte, _) in datasets:
        for Est in (DropoutSVC, DropoutLogisticRegression):
            model, t_default, caught = timed(fit, Est(), Xtr, ytr)
            _, t_tight, _ = timed(fit, Est(tol=1e-9, max_iter=1000), Xtr, ytr)
            out = check_default(model, Xtr, ytr, Xte)
            cases.append(dict(
                estimator=f"{Est.__name__}() [{out['kind']}, q={out['q']}, C={out['C']}]",
                dataset=dataset, objective_gap=float(out["gap"].max()),
                time_default=t_default, time_tight=t_tight, time_oracle=out["time_oracle"],
                same_predictions=bool(np.array_equal(model.predict(Xte), out["pred"])),
                note=("oracle: L-BFGS-B" if out["kind"] == "hinge_gaussian" else
                      "oracle: BFGS" if out["kind"] == "logistic" else "oracle: Clarabel")
                     + f"; warnings: {len(caught)}"))
    return cases
