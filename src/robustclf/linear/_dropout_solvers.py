"""Solvers of the marginalised-corruption objectives of Chen et al. (2014): arrays in, arrays out.

Every objective handled here (see :mod:`._dropout_problem`) has the form, for each binary
problem k (one-vs-all column),

    F_k(w, b) = ||w||^2 + sum_n loss(m_nk, u_nk; y_nk),   m_nk = w^T x_n + b,   u_nk = w^T V_n w,

where ``x_n = E[x̃_n]`` and ``V_n = diag(Var[x̃_n])`` come from a noise model (the bias is an
uncorrupted, unregularised constant feature, footnote 4) and ``loss`` is one of the per-sample
losses of :mod:`._dropout_losses` (the variational bounds U minimised by the paper's IRLS, or the
Gaussian approximations). All classes are solved together: every pass over ``X`` is a
matrix-matrix product serving all still-active columns.

Solvers
-------
``irls``
    The paper's algorithm (Eqs. 9-14 for the hinge, 19-22 for the logistic loss): a
    majorise-minimise scheme whose M-step is the re-weighted least squares problem (Eq. 13 / 21),
    solved by Cholesky on the normal equations (dense X, moderate d) or warm-started conjugate
    gradients (sparse X, high d). Monotone; converges linearly.
``newton``
    Inexact Newton: Hessian-free preconditioned conjugate gradients for the Newton system,
    Levenberg-Marquardt damping and an Armijo backtracking line search; converges superlinearly
    to the same optimum. On large data the Hessian products use a sub-sample in float32
    (sub-sampled Newton) after a presolve on that sub-sample; the plain hinge (no noise) is
    approached along a path of decreasing smoothing.
``lbfgs``
    scipy's L-BFGS-B on all classes at once, for cross-checking.

*Row weights.* Every solver takes ``sample_weight`` (None, or non-negative weights of shape
(n_samples,)) and then minimises ``||w||^2 + sum_n s_n loss_n``: the loss's ``c`` becomes a
per-row ``c s_n`` (:func:`~._dropout_losses.with_row_weights`), so margins, variances,
gradients, IRLS weights and Hessian curvatures all carry the row's weight, and an integer weight
k gives the optimum of k copies of the row. ``None`` leaves the unweighted computation untouched.

Each returns a :class:`SolverResult`. Every solver stops a binary problem on the same measure of
optimality, the relative gradient norm

    r_k(theta) = ||grad F_k(theta)||_inf / ||grad F_k(0)||_inf,

the largest partial derivative of the objective against its value at the null model ``w = 0,
b = 0`` (:meth:`_Problem.gradient_scale`), which makes ``tol`` free of the number of samples,
the scale of ``C`` and of the features. ``F_k`` is ``||w||^2`` (strongly convex, modulus 2 in
``w``) plus a convex loss, so ``r_k <= tol`` bounds the distance to the optimum:
``||w - w*|| <= tol ||grad F_k(0)||_inf sqrt(d) / 2`` for the optimal bias. A problem stops for
any other reason -- ``max_iter``, a line search that finds no decrease, an abnormal status of
scipy's L-BFGS-B -- only with ``converged`` False and its ``status`` saying why.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve
from scipy.optimize import minimize

from ._dropout_losses import with_row_weights
from ._dropout_problem import (
    Variance,
    _cholesky,
    _jacobi,
    _pcg,
    _Problem,
    newton_precision,
    objective,
)

__all__ = ["SolverResult", "Variance", "irls", "newton", "lbfgs", "least_squares",
           "libsvm_hinge", "newton_precision", "objective"]

_ARMIJO = 1e-4
_MAX_BACKTRACK = 50
_STAGE_TOL = 1e-3
_FORCING = 0.1
_MIN_DAMPING, _MAX_DAMPING = 1e-12, 1e12
_EPS_DECREASE = 8 * np.finfo(float).eps
_MAX_STALLS = 5
_RESOLUTION = 1e3 * np.finfo(float).eps
_PRESOLVE_TOL = 1e-3

CONVERGED, MAX_ITER, NO_DESCENT, ABNORMAL = 0, 1, 2, 3
STATUS_MESSAGES = {
    CONVERGED: "converged",
    MAX_ITER: "the iteration limit was reached",
    NO_DESCENT: "the line search found no decrease (the objective is flat at machine precision)",
    ABNORMAL: "scipy's L-BFGS-B stopped abnormally",
}
"""``SolverResult.status`` codes and what they mean (the wording of the ConvergenceWarning)."""


class SolverResult(NamedTuple):
    """What every solver returns.

    Attributes
    ----------
    coef : ndarray of shape (n_columns, n_features)
    intercept : ndarray of shape (n_columns,)
    n_iter : ndarray of int of shape (n_columns,)
        Outer iterations (IRLS or Newton steps) used by each binary problem.
    objective : list of ndarray
        For each column, the objective before the first and after every iteration.
    converged : ndarray of bool of shape (n_columns,)
        Whether the relative gradient norm reached ``tol``.
    measure : ndarray of shape (n_columns,)
        The relative gradient norm ``r_k`` at the returned point.
    status : ndarray of int of shape (n_columns,)
        Why each problem stopped: a key of :data:`STATUS_MESSAGES`.
    """

    coef: np.ndarray
    intercept: np.ndarray
    n_iter: np.ndarray
    objective: list
    converged: np.ndarray
    measure: np.ndarray
    status: np.ndarray


class _Tracker:
    """Per-column bookkeeping shared by the iterative solvers: history, counts, optimality."""

    def __init__(self, f0, tol):
        self.history = [[float(v)] for v in f0]
        self.n_iter = np.zeros(f0.size, dtype=int)
        self.status = np.full(f0.size, MAX_ITER)
        self.measure = np.full(f0.size, np.inf)
        self.tol = tol

    def active(self):
        return np.flatnonzero(self.status == MAX_ITER)

    def record(self, cols, f_new):
        """One iteration of columns ``cols`` ended at objectives ``f_new``."""
        for c, v in zip(cols, f_new, strict=True):
            self.history[c].append(float(v))
        self.n_iter[cols] += 1

    def check(self, cols, measure, final=True):
        """Store the optimality measure of ``cols``; those at their final stage with
        ``measure <= tol`` are done."""
        self.measure[cols] = measure
        done = cols[np.asarray(final & (measure <= self.tol), dtype=bool)]
        self.status[done] = CONVERGED

    def stop(self, cols, status):
        self.status[cols] = status

    def result(self, problem, theta):
        d = problem.d
        intercept = theta[d] if problem.fit_intercept else np.zeros(theta.shape[1])
        return SolverResult(theta[:d].T.copy(), intercept.copy(), self.n_iter,
                            [np.asarray(h) for h in self.history], self.status == CONVERGED,
                            self.measure.copy(), self.status.copy())


def _start(X, Y, var, loss, fit_intercept, theta0):
    """The problem (``loss`` already weighted) and the starting point."""
    problem = _Problem(X, Y, var, loss, fit_intercept)
    if theta0 is not None:
        return problem, np.array(theta0, dtype=np.float64)
    return problem, _initial_theta(problem)


def _initial_theta(problem, exact=False):
    """Minimiser of the IRLS surrogate at ``theta = 0``, where every sample has the same weight.

    The system ``(2 P + a X̄^T X̄ + a diag(V^T 1)) theta = X̄^T z`` is shared by all columns: one
    Gram product and one Cholesky factorisation for dense, moderate-d X; warm-free CG otherwise.
    For the bounds this is the first IRLS step from zero (an expected-quadratic-loss fit). As a
    mere starting point (``exact=False``) the Gram is taken on the Hessian's sub-sample.
    """
    a, rhs_z = problem.loss.surrogate_at_zero(problem.Y)
    rhs = problem.lin_t(rhs_z)
    ones = np.ones((problem.X.shape[0], 1))
    weighted = np.ndim(a) > 0               # a per-row column (row weights), else one float
    reg = problem.pad(2.0 + (problem.var.adjoint(a) if weighted
                             else a * problem.var.adjoint(ones)))[:, 0]
    rtol = 1e-10 if exact else 1e-3
    if problem.uses_gram:
        source = problem if exact else problem.fast
        if weighted:
            if source is not problem and problem.rows is not None:   # the Hessian's rows
                a = problem.scale * a[problem.rows]
            return cho_solve(_cholesky(_weighted_gram(source, a[:, 0], reg)), rhs)
        A = (a * problem.scale if source is not problem else a) * source.gram.astype(np.float64)
        A[np.diag_indices_from(A)] += reg
        return cho_solve(_cholesky(A), rhs)
    diag = np.repeat((problem.lin2_t(a) if weighted else a * problem.lin2_t(ones))
                     + reg[:, None], rhs.shape[1], axis=1)

    def matvec(V, cols):
        if weighted:
            return problem.lin_t(a * problem.lin(V)) + reg[:, None] * V
        return a * problem.lin_t(problem.lin(V)) + reg[:, None] * V
    return _pcg(matvec, rhs, _jacobi(diag), np.full(rhs.shape[1], rtol),
                10 * rhs.shape[0], np.zeros_like(rhs))


def least_squares(X, Y, var: Variance, loss, *, fit_intercept: bool = True,
                  sample_weight=None) -> SolverResult:
    """Minimise the IRLS surrogate at zero, exactly: the solution for a quadratic loss.

    One shared Gram product and Cholesky factorisation (dense X) or conjugate gradients.
    """
    loss = with_row_weights(loss, sample_weight)
    problem = _Problem(X, Y, var, loss, fit_intercept)
    theta = _initial_theta(problem, exact=True)
    f, m, u = problem.evaluate(theta, Y)
    track = _Tracker(f, np.inf)
    track.n_iter[:] = 1
    track.check(np.arange(Y.shape[1]), _relative_gradient(problem, loss, theta, m, u, Y))
    return track.result(problem, theta)


def _relative_gradient(problem, loss, theta, m, u, Y, cols=None):
    """The optimality measure ``r_k`` of columns ``cols`` (all by default) at ``theta``."""
    cols = np.arange(Y.shape[1]) if cols is None else cols
    lm, lu = loss.derivatives(m, u, Y, order=1)
    g = problem.gradient(theta, lm, lu)
    return np.abs(g).max(axis=0) / problem.gradient_scale()[cols]


def irls(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
         max_iter: int = 100, linear_solver: str = "auto", theta0=None,
         sample_weight=None) -> SolverResult:
    """The paper's IRLS: minimise the variational bound by re-weighted least squares.

    With ``S_n = (m_n - t_n)^2 + u_n`` the bound is ``lin_n m_n + h(S_n)`` with ``h`` concave
    (``h(S) = c sqrt(S)`` for the hinge, Eqs. 9-14; ``c log cosh(sqrt(S) / 2)`` for the logistic
    loss, Eqs. 19-22), so its tangent at the current ``S_n`` majorises it; minimising the tangent
    surrogate is the M-step (Eq. 13 / 21) with weights ``a_n = 2 h'(S_n)`` (``= 2 c gamma_n`` up
    to the paper's scalings) and solves the normal equations

        (2 P + X̄^T diag(a) X̄ + diag(sum_n a_n Var[x̃_n])) theta = X̄^T (a t - lin),

    ``P`` the identity without the bias entry. ``linear_solver="cholesky"`` factorises this
    (d + 1)-square matrix (dense X only; never an explicit inverse); ``"cg"`` runs warm-started
    preconditioned CG, which keeps memory at O(nnz + d); ``"auto"`` takes Cholesky for dense X
    with fewer than 4096 features. Either way the surrogate, hence the objective, never
    increases. A problem stops when its relative gradient norm is at most ``tol``; IRLS
    converges linearly, slowly where the optimum puts examples on the hinge's kink.
    """
    if linear_solver not in ("auto", "cholesky", "cg"):
        raise ValueError(f"linear_solver must be 'auto', 'cholesky' or 'cg', "
                         f"got {linear_solver!r}.")
    if linear_solver == "cholesky" and sp.issparse(X):
        raise ValueError("linear_solver='cholesky' needs a dense X; use 'cg' for sparse X.")
    if not getattr(loss, "supports_irls", False):
        raise ValueError(f"IRLS needs a variational bound; {type(loss).__name__} is not one.")
    loss = with_row_weights(loss, sample_weight)
    problem, theta = _start(X, Y, var, loss, fit_intercept, theta0)
    if linear_solver == "auto":
        linear_solver = "cholesky" if problem.uses_gram else "cg"
    f, m, u = problem.evaluate(theta, Y)
    track = _Tracker(f, tol)
    track.check(track.active(), _relative_gradient(problem, loss, theta, m, u, Y))
    d = problem.d
    for _ in range(max_iter):
        cols = track.active()
        if cols.size == 0:
            break
        a, rhs_z = loss.majoriser(m[:, cols], u[:, cols], Y[:, cols])
        rhs = problem.lin_t(rhs_z)
        reg = problem.pad(2.0 + var.adjoint(a))          # diagonal part, bias entry 0
        if linear_solver == "cholesky":
            new = np.empty((theta.shape[0], cols.size))
            for j in range(cols.size):                    # one Gram product per class
                new[:, j] = cho_solve(_cholesky(_weighted_gram(problem, a[:, j], reg[:, j])),
                                      rhs[:, j])
        else:
            def matvec(V, sub, a=a, reg=reg):
                return problem.lin_t(a[:, sub] * problem.lin(V)) + reg[:, sub] * V
            diag = problem.lin2_t(a) + reg
            start = theta[:, cols]
            # warm start: the initial residual is the gradient of the objective itself
            resid = np.linalg.norm(rhs - matvec(start, np.arange(cols.size)), axis=0)
            rtol = np.minimum(1e-2, resid / np.maximum(np.linalg.norm(rhs, axis=0), 1e-300))
            new = _pcg(matvec, rhs, _jacobi(diag), 1e-2 * rtol, 10 * (d + 1), start)
        f_new, m_new, u_new = problem.evaluate(new, Y[:, cols])
        theta[:, cols], m[:, cols], u[:, cols] = new, m_new, u_new
        track.record(cols, f_new)
        track.check(cols, _relative_gradient(problem, loss, new, m_new, u_new, Y[:, cols], cols))
        f[cols] = f_new
    return track.result(problem, theta)


def _weighted_gram(problem, a, reg):
    """``X̄^T diag(a) X̄ + diag(reg)`` for one column, by one BLAS product (a >= 0), in
    float64."""
    X = problem.X
    Xa = X * np.sqrt(a)[:, None].astype(X.dtype, copy=False)
    gram = np.asarray(Xa.T @ Xa, dtype=np.float64)
    if problem.fit_intercept:
        xa = X.T @ a
        gram = np.block([[gram, xa[:, None]], [xa[None, :], np.array([[a.sum()]])]])
    gram[np.diag_indices_from(gram)] += reg
    return gram


def newton(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
           max_iter: int = 100, theta0=None, sample_weight=None) -> SolverResult:
    """Inexact Newton with Hessian-free preconditioned CG and Armijo backtracking.

    The Hessian of ``F`` needs the second derivatives of the per-sample loss in ``(m, u)``;
    with ``dm = X̄ v`` and ``du = 2 sum_d Var[n, d] w_d v_d`` its product with ``v`` is

        H v = 2 P v + X̄^T (l_mm dm + l_mu du) + 2 v * V^T l_u + 2 w * V^T (l_mu dm + l_uu du),

    four passes over the data for all classes together. CG is preconditioned by the dominant
    diagonal ``2 + diag(X̄^T diag(l_mm) X̄) + 2 V^T l_u`` and stopped at the relative residual
    ``min(0.1, sqrt(r_k))`` (superlinear convergence). Levenberg-Marquardt damping and an
    Armijo line search globalise it.

    *Continuation.* The hinge-type losses are ``sqrt(S + delta^2)`` with ``delta`` tiny: where
    the optimum puts examples on the kink (``S = 0``; e.g. a one-vs-rest column whose optimum
    is nearly ``w = 0``, all negatives exactly at the margin) the curvature is ``~ c / delta``
    and Newton from a far start crawls. Each column therefore follows its own path of
    smoothing levels ``delta / margin = 0.1, 0.01, ..., 1e-8`` (:meth:`_Smoothed.levels`), moving
    to the next level once its relative gradient for the current level is at most
    ``max(tol, 1e-3)``: a path-following method whose every stage starts close to its optimum.
    Only the final level, the loss itself, decides convergence.

    For large data (see :attr:`_Problem.fast`) the same Newton method first solves the problem
    restricted to the Hessian's sub-sample (its loss scaled by ``n / len(rows)``) to a relative
    gradient of ``_PRESOLVE_TOL``; the full-data iterations start from that point and only
    polish it, so most work touches a fraction of the data. Row weights travel with their rows:
    the sub-sample's curvatures and presolve carry the weights of the rows drawn.
    """
    loss = with_row_weights(loss, sample_weight)
    problem = _Problem(X, Y, var, loss, fit_intercept)
    if theta0 is None and problem.fast.rows is None and problem.rows is not None:
        sub = problem.fast
        pre = newton(sub.X, Y[problem.rows], sub.var,
                     _scaled(loss, problem.scale, problem.rows),
                     fit_intercept=fit_intercept, tol=max(tol, _PRESOLVE_TOL), max_iter=max_iter)
        theta0 = pre.coef.T if not fit_intercept else np.vstack([pre.coef.T, pre.intercept])
    problem, theta = _start(X, Y, var, loss, fit_intercept, theta0)
    problem.gradient_scale()                       # of the final loss, before any stage
    f, m, u = problem.evaluate(theta, Y)
    track = _Tracker(f, tol)
    levels = loss.levels() if hasattr(loss, "levels") else None
    level = np.zeros(Y.shape[1], dtype=int)
    if theta0 is not None and levels is not None:   # a warm start skips the smoothing path
        level[:] = levels.size - 1
    stage_tol = max(tol, _STAGE_TOL)
    damping = np.ones(Y.shape[1])
    stalls = np.zeros(Y.shape[1], dtype=int)
    exact_hessian = np.zeros(Y.shape[1], dtype=bool)
    last = None if levels is None else levels.size - 1

    def state(cols):
        """Stage loss, curvature, gradient and measure of ``cols`` at their current levels."""
        stage = loss if levels is None else loss.at(levels[level[cols]])
        lm, lu, lmm, lmu, luu = stage.derivatives(m[:, cols], u[:, cols], Y[:, cols])
        Vlu = var.adjoint(lu)
        g = problem.gradient(theta[:, cols], lm, lu, Vlu)
        return stage, g, lmm, lmu, luu, Vlu, np.abs(g).max(axis=0) / problem.gradient_scale()[
            cols]

    for it in range(max_iter + 1):
        cols = track.active()
        if cols.size == 0:
            break
        while True:    # columns done with their stage move on, possibly over several levels
            stage, g, lmm, lmu, luu, Vlu, measure = state(cols)
            final = True if levels is None else level[cols] == last
            track.check(cols, measure, final)
            done = track.status[cols] == CONVERGED
            advance = ~final & (measure <= stage_tol)
            level[cols[advance]] += 1
            if not advance.any():
                break
            cols = cols[~done]
        keep = ~done
        if it == max_iter or not keep.any():
            continue
        cols = cols[keep]
        g, lmm, lmu, luu, Vlu = (a[:, keep] for a in (g, lmm, lmu, luu, Vlu))
        if levels is not None:
            stage = loss.at(levels[level[cols]])
        problem.loss = stage
        Yc, th = Y[:, cols], theta[:, cols]
        w = th[: problem.d]
        f_stage = (w * w).sum(axis=0) + stage.value(m[:, cols], u[:, cols], Yc).sum(axis=0)

        mu = damping[cols]
        rtol = np.minimum(_FORCING, np.sqrt(measure[keep]))
        step = np.empty_like(g)
        for exact in (False, True):      # sub-sampled and exact Hessians, one CG each
            grp = np.flatnonzero(exact_hessian[cols] == exact)
            if grp.size == 0:
                continue
            step[:, grp] = _newton_step(problem, w[:, grp], g[:, grp],
                                        tuple(c[:, grp] for c in (lmm, lmu, luu, Vlu)),
                                        mu[grp], rtol[grp], exact)
        f_new, th_new, m_new, u_new, t = _backtrack(problem, th, step, g, f_stage, Yc)
        # Levenberg-Marquardt damping: the model's predicted decrease against the actual one
        slope = (g * step).sum(axis=0)
        curv = np.maximum(-slope - mu * (step * step).sum(axis=0), 0.0)
        pred = -(t * slope + 0.5 * t * t * curv)
        ratio = (f_stage - f_new) / np.maximum(pred, 1e-300)
        damping[cols] = np.clip(
            np.where(t < 1, 4.0 * mu, np.where(ratio > 0.5, mu / 4.0,
                                               np.where(ratio < 0.25, 2.0 * mu, mu))),
            _MIN_DAMPING, _MAX_DAMPING)
        theta[:, cols], m[:, cols], u[:, cols] = th_new, m_new, u_new
        f_true = (th_new[: problem.d] ** 2).sum(axis=0) + loss.value(m_new, u_new, Yc).sum(0)
        track.record(cols, f_true)
        f[cols] = f_true
        # no decrease at the final level for _MAX_STALLS steps in a row: the point cannot be
        # improved at this precision (the measure says how close it is)
        at_final = level[cols] == levels.size - 1 if levels is not None else True
        flat = (t == 0) | (f_stage - f_new <= _EPS_DECREASE * np.abs(f_new))
        stalls[cols] = np.where(flat & at_final, stalls[cols] + 1, 0)
        if problem.fast is not problem:   # the sub-sample misses curvature that matters here
            exact_hessian[cols[((t < 1) & at_final) | (t == 0)]] = True
        track.stop(cols[stalls[cols] >= _MAX_STALLS], NO_DESCENT)
    problem.loss = loss
    return track.result(problem, theta)


def _newton_step(problem, w, g, curvature, mu, rtol, exact):
    """The damped Newton step ``-(H + mu I)^{-1} g`` of some columns by preconditioned CG.

    ``exact=False``: ``H`` on the Hessian's sub-sample and precision (:attr:`_Problem.fast`),
    CG's relative residual floored at 1e-5 there (no use solving beyond the sub-sample's
    accuracy); ``exact=True``: ``H`` on all rows.
    """
    lmm, lmu, luu, Vlu = curvature
    fast = problem.fast                      # (sets problem.rows)
    if exact or problem.rows is None:
        source, scale, full = (problem if exact else fast), 1.0, curvature
    else:
        rows = problem.rows
        source, scale, full = fast, problem.scale, (lmm[rows], lmu[rows], luu[rows], Vlu)
    if not exact and fast is not problem:
        rtol = np.maximum(rtol, 1e-5)
    diag = scale * source.lin2_t(full[0]) + problem.pad(2.0 + 2.0 * Vlu)

    def hess(V, sub):
        return problem.hessian_vector(w, full, V, sub, exact=exact) + mu[sub] * V

    return _pcg(hess, -g, _jacobi(diag + mu), rtol, 2 * (problem.d + 1), np.zeros_like(g))


def libsvm_hinge(X, Y, var: Variance, loss, *, sample_weight=None) -> SolverResult:
    """Without noise the hinge objectives are the linear SVM with a free bias: solved by libsvm.

    ``||w||^2 + 2C sum max(0, l - y (w^T x + b))`` is ``l^2`` times the SVM objective of
    ``v = w / l`` with ``C / l``, which ``SVC(kernel="linear", C=C / l)`` solves exactly (SMO,
    stopped on its KKT violation at 1e-8, no iteration cap). The smoothed Newton path cannot
    certify this non-smooth optimum, where every support vector sits on the kink. ``measure``
    is NaN: libsvm's own KKT criterion applies. Row weights are libsvm's own per-sample ``C``
    (``sample_weight`` of ``SVC.fit``).
    """
    from sklearn.svm import SVC

    if not var.is_zero():
        raise ValueError("libsvm_hinge solves the noiseless hinge only.")
    margin = float(loss.margin)
    coef = np.empty((Y.shape[1], X.shape[1]))
    intercept = np.empty(Y.shape[1])
    n_iter = np.empty(Y.shape[1], dtype=int)
    for k in range(Y.shape[1]):
        svc = SVC(kernel="linear", C=loss.C / margin, tol=1e-8).fit(
            X, Y[:, k], sample_weight=sample_weight)
        coef[k] = margin * np.asarray(svc.coef_.todense() if sp.issparse(svc.coef_)
                                      else svc.coef_).ravel()
        intercept[k] = margin * svc.intercept_[0]
        n_iter[k] = np.atleast_1d(svc.n_iter_)[0]
    problem = _Problem(X, Y, var, with_row_weights(loss, sample_weight), True)
    f0 = problem.evaluate(np.zeros((X.shape[1] + 1, Y.shape[1])), Y)[0]
    f = problem.evaluate(np.vstack([coef.T, intercept]), Y)[0]
    history = [np.array([a, b]) for a, b in zip(f0, f, strict=True)]
    return SolverResult(coef, intercept, n_iter, history, np.ones(Y.shape[1], dtype=bool),
                        np.full(Y.shape[1], np.nan), np.full(Y.shape[1], CONVERGED))


def _scaled(loss, factor, rows=None):
    """The loss with its weight ``C`` multiplied by ``factor``, restricted to ``rows`` when its
    ``C`` is per row."""
    out = copy.copy(loss)
    C = loss.C if rows is None or np.ndim(loss.C) == 0 else loss.C[rows]
    out.C = C * factor
    return out


def _columns(loss, idx):
    """``loss`` restricted to columns ``idx`` (a per-column smoothing is sliced)."""
    smoothing = getattr(loss, "smoothing", None)
    if smoothing is None or np.ndim(smoothing) == 0:
        return loss
    return loss.at(np.asarray(smoothing)[idx])


def _backtrack(problem, theta, step, g, f0, Y):
    """Armijo backtracking, column by column; a column that cannot descend keeps its point.

    Where the decrease the step promises is below what the objective can resolve in floating
    point (``|slope| <= resolution |f|``, 1e3 float64 epsilons, or 10 float32 epsilons when X
    is read in float32: near an optimum with examples on a kink, where the
    curvature is ``~ c / delta``), the objective cannot tell a good step from a bad one; the
    step is then accepted when it reduces the gradient's largest entry instead.
    """
    loss = problem.loss
    slope = (g * step).sum(axis=0)
    # the objective's resolution: float64 arithmetic, or float32 passes over a large X
    resolution = max(_RESOLUTION, 10 * np.finfo(problem.X.dtype).eps)
    unresolved = -slope <= resolution * np.abs(f0)
    gmax = np.abs(g).max(axis=0)
    t = np.ones(theta.shape[1])
    theta_new = theta + step
    f_new, m_new, u_new = problem.evaluate(theta_new, Y)

    def accepted(cols, f_c, m_c, u_c, cand):
        ok = f_c <= f0[cols] + _ARMIJO * t[cols] * slope[cols]
        flat = ~ok & unresolved[cols]
        if flat.any():
            sub = cols[flat]
            problem.loss = _columns(loss, sub)
            lm, lu = problem.loss.derivatives(m_c[:, flat], u_c[:, flat], Y[:, sub], order=1)
            g_c = problem.gradient(cand[:, flat], lm, lu)
            ok[flat] = np.abs(g_c).max(axis=0) <= (1.0 - _ARMIJO) * gmax[sub]
        return ok

    try:
        every = np.arange(theta.shape[1])
        todo = every[~accepted(every, f_new, m_new, u_new, theta_new)]
        for _ in range(_MAX_BACKTRACK):
            if todo.size == 0:
                break
            t[todo] *= 0.5
            cand = theta[:, todo] + t[todo] * step[:, todo]
            problem.loss = _columns(loss, todo)
            f_c, m_c, u_c = problem.evaluate(cand, Y[:, todo])
            theta_new[:, todo], f_new[todo], m_new[:, todo], u_new[:, todo] = cand, f_c, m_c, u_c
            todo = todo[~accepted(todo, f_c, m_c, u_c, cand)]
        if todo.size:  # no descent found at machine precision: stay put
            theta_new[:, todo], f_new[todo] = theta[:, todo], f0[todo]
            problem.loss = _columns(loss, todo)
            _, m_new[:, todo], u_new[:, todo] = problem.evaluate(theta[:, todo], Y[:, todo])
            t[todo] = 0.0
    finally:
        problem.loss = loss
    return f_new, theta_new, m_new, u_new, t


def lbfgs(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
          max_iter: int = 100, theta0=None, sample_weight=None) -> SolverResult:
    """scipy's L-BFGS-B on the sum of the column objectives (they are independent).

    Stopped by scipy's projected-gradient test ``max_i |g_i| <= gtol`` with
    ``gtol = tol * min_k ||grad F_k(0)||_inf``, so that every column's relative gradient norm
    is at most ``tol`` (the objective-change test is off). ``max_iter`` counts L-BFGS
    iterations (shared by all columns). scipy's status is reported per column: a column whose
    measure is above ``tol`` when scipy stops is not converged (``MAX_ITER`` at the iteration
    limit, ``ABNORMAL`` otherwise, e.g. when the line search fails).
    """
    loss = with_row_weights(loss, sample_weight)
    problem, theta = _start(X, Y, var, loss, fit_intercept, theta0)
    shape = theta.shape
    last = {}

    def fun(x):
        th = x.reshape(shape)
        f, m, u = problem.evaluate(th, Y)
        last.update(x=x.copy(), f=f)
        lm, lu = loss.derivatives(m, u, Y, order=1)
        return f.sum(), problem.gradient(th, lm, lu).ravel()

    def callback(xk):
        same = "x" in last and np.array_equal(xk, last["x"])
        history.append(last["f"] if same else problem.evaluate(xk.reshape(shape), Y)[0])

    history = [problem.evaluate(theta, Y)[0]]
    gtol = tol * float(problem.gradient_scale().min())
    res = minimize(fun, theta.ravel(), jac=True, method="L-BFGS-B", callback=callback,
                   options={"maxiter": max_iter, "ftol": 0.0, "gtol": gtol, "maxcor": 20})
    theta = res.x.reshape(shape)
    track = _Tracker(history[0], tol)
    track.history = [list(h) for h in np.array(history).T]
    track.n_iter[:] = res.nit
    track.stop(track.active(), MAX_ITER if res.nit >= max_iter else ABNORMAL)
    _, m, u = problem.evaluate(theta, Y)
    measure = _relative_gradient(problem, loss, theta, m, u, Y)
    track.measure[:] = measure
    track.status[measure <= tol] = CONVERGED
    return track.result(problem, theta)
