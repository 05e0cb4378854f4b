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

Each returns a :class:`SolverResult`. Iterations stop when the relative decrease of the objective
over one iteration is at most ``tol``.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_solve
from scipy.optimize import minimize

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
           "newton_precision", "objective"]

_ARMIJO = 1e-4
_MAX_BACKTRACK = 50
_STAGE_TOL = 1e-5
_FORCING = 0.1
_PRESOLVE_TOL = 1e-3


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
    """

    coef: np.ndarray
    intercept: np.ndarray
    n_iter: np.ndarray
    objective: list
    converged: np.ndarray


class _Tracker:
    """Per-column bookkeeping shared by the iterative solvers: history, counts, convergence."""

    def __init__(self, f0, tol):
        self.history = [[float(v)] for v in f0]
        self.n_iter = np.zeros(f0.size, dtype=int)
        self.converged = np.zeros(f0.size, dtype=bool)
        self.tol = tol

    def active(self):
        return np.flatnonzero(~self.converged)

    def record(self, cols, f_old, f_new, final=True):
        for c, v in zip(cols, f_new, strict=True):
            self.history[c].append(float(v))
        self.n_iter[cols] += 1
        self.converged[cols] = final & ((f_old - f_new) <= self.tol * np.abs(f_new))

    def result(self, problem, theta):
        d = problem.d
        intercept = theta[d] if problem.fit_intercept else np.zeros(theta.shape[1])
        return SolverResult(theta[:d].T.copy(), intercept.copy(), self.n_iter,
                            [np.asarray(h) for h in self.history], self.converged)


def _start(X, Y, var, loss, fit_intercept, theta0):
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
    reg = problem.pad(2.0 + a * problem.var.adjoint(ones))[:, 0]
    rtol = 1e-10 if exact else 1e-3
    if problem.uses_gram:
        source = problem if exact else problem.fast
        A = (a * problem.scale if source is not problem else a) * source.gram.astype(np.float64)
        A[np.diag_indices_from(A)] += reg
        return cho_solve(_cholesky(A), rhs)
    diag = np.repeat(a * problem.lin2_t(ones) + reg[:, None], rhs.shape[1], axis=1)

    def matvec(V, cols):
        return a * problem.lin_t(problem.lin(V)) + reg[:, None] * V
    return _pcg(matvec, rhs, _jacobi(diag), np.full(rhs.shape[1], rtol),
                10 * rhs.shape[0], np.zeros_like(rhs))


def least_squares(X, Y, var: Variance, loss, *, fit_intercept: bool = True) -> SolverResult:
    """Minimise the IRLS surrogate at zero, exactly: the solution for a quadratic loss.

    One shared Gram product and Cholesky factorisation (dense X) or conjugate gradients.
    """
    problem = _Problem(X, Y, var, loss, fit_intercept)
    theta = _initial_theta(problem, exact=True)
    track = _Tracker(problem.evaluate(theta, Y)[0], 0.0)
    track.converged[:] = True
    track.n_iter[:] = 1
    return track.result(problem, theta)


def irls(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
         max_iter: int = 100, linear_solver: str = "auto", theta0=None) -> SolverResult:
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
    increases.
    """
    if linear_solver not in ("auto", "cholesky", "cg"):
        raise ValueError(f"linear_solver must be 'auto', 'cholesky' or 'cg', "
                         f"got {linear_solver!r}.")
    if linear_solver == "cholesky" and sp.issparse(X):
        raise ValueError("linear_solver='cholesky' needs a dense X; use 'cg' for sparse X.")
    if not getattr(loss, "supports_irls", False):
        raise ValueError(f"IRLS needs a variational bound; {type(loss).__name__} is not one.")
    problem, theta = _start(X, Y, var, loss, fit_intercept, theta0)
    if linear_solver == "auto":
        linear_solver = "cholesky" if problem.uses_gram else "cg"
    f, m, u = problem.evaluate(theta, Y)
    track = _Tracker(f, tol)
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
        track.record(cols, f[cols], f_new)
        f[cols] = f_new
    return track.result(problem, theta)


def _weighted_gram(problem, a, reg):
    """``X̄^T diag(a) X̄ + diag(reg)`` for one column, by one BLAS product (a >= 0)."""
    X = problem.X
    Xa = X * np.sqrt(a)[:, None]
    gram = Xa.T @ Xa
    if problem.fit_intercept:
        xa = X.T @ a
        gram = np.block([[gram, xa[:, None]], [xa[None, :], np.array([[a.sum()]])]])
    gram[np.diag_indices_from(gram)] += reg
    return gram


def newton(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
           max_iter: int = 100, theta0=None) -> SolverResult:
    """Inexact Newton with Hessian-free preconditioned CG and Armijo backtracking.

    The Hessian of ``F`` needs the second derivatives of the per-sample loss in ``(m, u)``;
    with ``dm = X̄ v`` and ``du = 2 sum_d Var[n, d] w_d v_d`` its product with ``v`` is

        H v = 2 P v + X̄^T (l_mm dm + l_mu du) + 2 v * V^T l_u + 2 w * V^T (l_mu dm + l_uu du),

    four passes over the data for all classes together. CG is preconditioned by the dominant
    diagonal ``2 + diag(X̄^T diag(l_mm) X̄) + 2 V^T l_u`` and stopped at the relative residual
    ``min(0.1, sqrt(||g|| / ||g_0||))`` (superlinear convergence).

    For large data (see :attr:`_Problem.fast`) the same Newton method first solves the problem
    restricted to the Hessian's sub-sample (its loss scaled by ``n / len(rows)``) to a relative
    tolerance of ``_PRESOLVE_TOL``; the full-data iterations start from that point and only
    polish it, so most work touches a fraction of the data.
    """
    problem = _Problem(X, Y, var, loss, fit_intercept)
    if theta0 is None and problem.fast.rows is None and problem.rows is not None:
        sub = problem.fast
        pre = newton(sub.X, Y[problem.rows], sub.var, _scaled(loss, problem.scale),
                     fit_intercept=fit_intercept, tol=max(tol, _PRESOLVE_TOL), max_iter=max_iter)
        theta0 = pre.coef.T if not fit_intercept else np.vstack([pre.coef.T, pre.intercept])
    problem, theta = _start(X, Y, var, loss, fit_intercept, theta0)
    f, m, u = problem.evaluate(theta, Y)
    track = _Tracker(f, tol)
    g0norm = None
    damping = np.ones(Y.shape[1])
    smooth = hasattr(loss, "continuation") and var.is_zero()   # the plain, kinked hinge
    path = loss.continuation() if smooth else [loss]
    level = 0
    for _ in range(max_iter):
        cols = track.active()
        if cols.size == 0:
            break
        problem.loss = stage = path[level]
        Yc, th = Y[:, cols], theta[:, cols]
        f_stage = f[cols] if stage is loss else problem.evaluate(th, Yc)[0]
        w = th[: problem.d]
        lm, lu, lmm, lmu, luu = stage.derivatives(m[:, cols], u[:, cols], Yc)
        Vlu = var.adjoint(lu)
        g = problem.gradient(th, lm, lu, Vlu)
        gnorm = np.linalg.norm(g, axis=0)
        if g0norm is None:
            g0norm = np.maximum(gnorm, 1e-300)

        mu = damping[cols]
        fast = problem.fast
        rows = slice(None) if problem.rows is None else problem.rows
        curvature = (lmm[rows], lmu[rows], luu[rows], Vlu)   # on the Hessian's rows
        diag = problem.scale * fast.lin2_t(curvature[0]) + problem.pad(2.0 + 2.0 * Vlu)

        def hess(V, sub, w=w, curvature=curvature, mu=mu):
            return problem.hessian_vector(w, curvature, V, sub) + mu[sub] * V

        rtol = np.minimum(_FORCING, np.sqrt(gnorm / g0norm[cols]))
        if fast is not problem:
            rtol = np.maximum(rtol, 1e-5)
        step = _pcg(hess, -g, _jacobi(diag + mu), rtol, 2 * (problem.d + 1), np.zeros_like(g))
        f_new, th_new, m_new, u_new, t = _backtrack(problem, th, step, g, f_stage, Yc)
        # Levenberg-Marquardt damping: the model's predicted decrease against the actual one
        slope = (g * step).sum(axis=0)
        curv = np.maximum(-slope - mu * (step * step).sum(axis=0), 0.0)
        pred = -(t * slope + 0.5 * t * t * curv)
        ratio = (f_stage - f_new) / np.maximum(pred, 1e-300)
        damping[cols] = np.where(t < 1, 4.0 * mu, np.where(ratio > 0.5, mu / 4.0,
                                                          np.where(ratio < 0.25, 2.0 * mu, mu)))
        theta[:, cols], m[:, cols], u[:, cols] = th_new, m_new, u_new
        if stage is not loss:   # still smoothing: record the true objective, do not stop
            if np.all(f_stage - f_new <= _STAGE_TOL * np.abs(f_new)):
                level += 1
            f_new = (th_new[: problem.d] ** 2).sum(axis=0) + loss.value(m_new, u_new, Yc).sum(0)
        track.record(cols, f[cols], f_new, final=stage is loss)
        f[cols] = f_new
    return track.result(problem, theta)


def _scaled(loss, factor):
    """The loss with its weight ``C`` multiplied by ``factor``."""
    out = copy.copy(loss)
    out.C = loss.C * factor
    return out


def _backtrack(problem, theta, step, g, f0, Y):
    """Armijo backtracking, column by column; a column that cannot descend keeps its point."""
    slope = (g * step).sum(axis=0)
    t = np.ones(theta.shape[1])
    f_new, m_new, u_new = problem.evaluate(theta + step, Y)
    theta_new = theta + step
    todo = np.flatnonzero(~(f_new <= f0 + _ARMIJO * t * slope))
    for _ in range(_MAX_BACKTRACK):
        if todo.size == 0:
            break
        t[todo] *= 0.5
        cand = theta[:, todo] + t[todo] * step[:, todo]
        f_c, m_c, u_c = problem.evaluate(cand, Y[:, todo])
        theta_new[:, todo], f_new[todo], m_new[:, todo], u_new[:, todo] = cand, f_c, m_c, u_c
        todo = todo[~(f_c <= f0[todo] + _ARMIJO * t[todo] * slope[todo])]
    if todo.size:  # no descent found at machine precision: stay put
        theta_new[:, todo], f_new[todo] = theta[:, todo], f0[todo]
        _, m_new[:, todo], u_new[:, todo] = problem.evaluate(theta[:, todo], Y[:, todo])
        t[todo] = 0.0
    return f_new, theta_new, m_new, u_new, t


def lbfgs(X, Y, var: Variance, loss, *, fit_intercept: bool = True, tol: float = 1e-6,
          max_iter: int = 100, theta0=None) -> SolverResult:
    """scipy's L-BFGS-B on the sum of the column objectives (they are independent).

    ``ftol=tol`` is the same relative-decrease criterion as the other solvers, applied to the
    sum; ``max_iter`` counts L-BFGS iterations (shared by all columns).
    """
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
    res = minimize(fun, theta.ravel(), jac=True, method="L-BFGS-B", callback=callback,
                   options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-12, "maxcor": 20})
    track = _Tracker(history[0], tol)
    track.history = [list(h) for h in np.array(history).T]
    track.n_iter[:] = res.nit
    track.converged[:] = res.nit < max_iter
    return track.result(problem, res.x.reshape(shape))
