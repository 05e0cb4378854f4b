"""The marginalised-corruption objectives solved on row blocks (dask), one pass per evaluation.

The objective of :mod:`._dropout_solvers`,

    F_k(w, b) = ||w||^2 + sum_n loss(m_nk, u_nk; y_nk),   m_nk = w^T x_n + b,   u_nk = w^T V_n w,

is a sum over rows, so its value, gradient and Hessian are sums of per-chunk terms. Here they
are computed chunk by chunk where the chunks live (:meth:`robustclf._blockwise.RowBlocks.reduce`)
and only the ``(d + 1)``-sized sums travel; the per-row quantities (``m``, ``u`` and the loss's
derivatives) never leave their chunk. Two solvers:

``newton`` (:func:`newton`)
    Newton's method with the Hessian of every one-vs-all column assembled from per-chunk
    blocks (moderate ``d``: ``(d + 1)^2`` floats per column travel): exact up to
    ``2 * _HESSIAN_ROWS`` rows, sub-sampled beyond (:class:`_HessianPlan`, the in-memory
    solver's sub-sampled Newton), so that a pass costs ``O(n d)`` reading plus
    ``O(k d^2 min(n, _HESSIAN_ROWS))`` for the curvature, whatever ``n``. A step is the Cholesky
    solve of the Levenberg-Marquardt damped system; the line search evaluates the objective at
    the eight step lengths ``1, 1/2, ..., 1/128`` *and* the gradient and Hessian at the full
    step in the same pass, so an iteration whose full step is accepted -- all of them near
    the optimum -- costs one pass over the data, and one that backtracks two. The hinge-type
    losses follow the same smoothing path as the in-memory Newton solver (continuation, see
    :func:`._dropout_solvers.newton`), and advancing along it costs no pass: while a column
    is close to its next level (relative gradient within ``_AHEAD_WITHIN``), each pass also
    sums the value and gradient at every level ahead of it and the Hessian at the next and
    the final level, where it lands (past the levels it already satisfies) nearly always.
    The margins and variances are computed once for all these losses, and their gradients
    in one product with the chunk. On digits, DropoutSVC takes 8 passes for 6 iterations
    (binary) and 14 for 10 (10 classes), against 15 and 40 with one pass per level.
``lbfgs`` (:func:`lbfgs`)
    scipy's L-BFGS-B on the summed objective, one pass per function-and-gradient evaluation:
    for wide data where Hessian blocks do not fit.

Both stop a column on the in-memory solvers' measure, the relative gradient norm
``||grad F_k||_inf / ||grad F_k(0)||_inf <= tol``, so a fit on a dask array reaches the optimum
of the in-memory fit on the same rows (to the tolerance; Newton's last step usually overshoots
the tolerance by orders of magnitude), and return the same :class:`SolverResult`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize

from ._dropout_losses import value_and_derivatives, with_row_weights
from ._dropout_problem import _HESSIAN_ROWS, Variance, _Problem
from ._dropout_solvers import (
    _ARMIJO,
    _EPS_DECREASE,
    _MAX_DAMPING,
    _MAX_STALLS,
    _MIN_DAMPING,
    _RESOLUTION,
    _STAGE_TOL,
    ABNORMAL,
    CONVERGED,
    MAX_ITER,
    NO_DESCENT,
    SolverResult,
)

__all__ = ["MAX_HESSIAN_FEATURES", "lbfgs", "newton"]

#: Widest data (features) whose Hessian blocks the blockwise Newton solver assembles.
MAX_HESSIAN_FEATURES = 2048
#: Seed of the rows the sub-sampled Hessian blocks are summed over.
_HESSIAN_SEED = 0
#: Relative gradient norm below which a column on its smoothing path is given the terms of
#: the levels ahead in every pass (see ``newton``).
_AHEAD_WITHIN = 0.1
#: Step lengths the line search evaluates in one pass.
_STEPS = 0.5 ** np.arange(8)


@dataclass(frozen=True)
class _Chunk:
    """What every chunk task needs besides the chunk: how to read it and the objective."""

    reader: object          # robustclf.linear._base.ChunkReader
    noise: object           # the fitted noise model
    fit_intercept: bool

    def problems(self, Xb, yb, wb, *losses):
        """The chunk's :class:`_Problem` for each loss (weighted by the chunk's row weights)."""
        X, Y, weights = self.reader.read(Xb, yb, wb)
        self.noise._check_input_values(X)
        var = Variance(*self.noise._variance_terms(X), X.shape)
        return [_Problem(X, Y, var, with_row_weights(loss, weights), self.fit_intercept)
                for loss in losses]

    def problem(self, Xb, yb, wb, loss):
        return self.problems(Xb, yb, wb, loss)[0]


def _data_terms(problem, theta, order, plan=None, sampled=None):
    """Data term of every column at ``theta``: value, and gradient (``order >= 1``) and
    Hessian blocks (``order == 2``, assembled as ``plan`` says). The ``||w||^2`` term is added
    by the caller."""
    if order == 0:
        w = theta[: problem.d]
        m, u = problem.lin(theta), problem.var.forward(w * w)
        return problem.loss.value(m, u, problem.Y).sum(axis=0)
    plan = (True if plan is None else plan) if order == 2 else None
    return _shared_terms([problem], theta, [plan], sampled)[0]


def _shared_terms(problems, theta, plans, sampled=None):
    """:func:`_data_terms` at ``theta`` under the loss of each of ``problems`` (the same chunk,
    the same ``theta``): value and gradient, and the Hessian blocks where ``plans`` holds a
    plan (``True`` for all columns). The margins and variances are computed once, and the
    gradients of all losses in one product with the chunk."""
    first = problems[0]
    Y, d = first.Y, first.d
    w = theta[:d]
    m = first.lin(theta)
    u = first.var.forward(w * w)
    values, derivs = zip(*(value_and_derivatives(p.loss, m, u, Y, 2 if plan is not None else 1)
                           for p, plan in zip(problems, plans, strict=True)), strict=True)
    lm = np.hstack([dv[0] for dv in derivs])
    Vlu = first.var.adjoint(np.hstack([dv[1] for dv in derivs]))
    grads = first.lin_t(lm) + first.pad(2.0 * np.tile(w, len(problems)) * Vlu)
    k = Y.shape[1]
    out = []
    for i, (problem, plan, value, dv) in enumerate(zip(problems, plans, values, derivs,
                                                       strict=True)):
        cols = slice(i * k, (i + 1) * k)
        terms = (value.sum(axis=0), grads[:, cols])
        if plan is not None:
            plan = None if plan is True else plan
            terms += (_hessian_blocks(problem, w, dv[2:], Vlu[:, cols], plan, sampled),)
        out.append(terms)
    return out


@dataclass(frozen=True)
class _HessianPlan:
    """Which rows and columns the Hessian blocks of a pass are assembled from.

    A sub-sampled Newton method (Byrd et al. 2011), as the in-memory solver's: beyond
    ``2 * _HESSIAN_ROWS`` rows the curvature terms are summed over a pseudo-random subset
    (each row kept with probability ``fraction``, drawn from the seed and the row's block, so
    every pass uses the same rows) and scaled by ``1 / fraction``; a column whose line search
    backtracked at its final level is given the exact Hessian (``exact``) from then on.
    Columns already done (``~active``) get none.
    """

    fraction: float
    exact: np.ndarray
    active: np.ndarray

    def rows(self, start, n):
        if self.fraction >= 1.0 or self.exact[self.active].all():
            return None
        return np.random.default_rng([_HESSIAN_SEED, start]).random(n) < self.fraction


def _hessian_blocks(problem, W, curvature, Vlu, plan=None, sampled=None):
    """``sum_n`` of the data term's Hessian for every column, shape (k, p, p), ``p = d (+ 1)``.

    With ``x̄_n = [x_n, 1]`` and ``B_n = 2 V_n w`` (zero in the bias entry), the Hessian of
    ``l(m_n, u_n)`` is ``l_mm x̄ x̄^T + l_mu (x̄ B^T + B x̄^T) + l_uu B B^T + 2 l_u diag(V_n)``.
    The products run in float32 on dense chunks (the Hessian only shapes the step; values and
    gradients stay float64). The diagonal term ``2 V^T l_u`` is always summed over all rows;
    the others over the ``sampled`` rows (a boolean mask, scaled by ``1 / plan.fraction``)
    for the columns ``plan`` does not mark exact.
    """
    d = problem.X.shape[1]
    p = d + 1 if problem.fit_intercept else d
    k = W.shape[1]
    out = np.zeros((k, p, p))
    active = np.ones(k, dtype=bool) if plan is None else plan.active
    exact = np.ones(k, dtype=bool) if sampled is None else plan.exact
    for use_all in (True, False):
        cols = np.flatnonzero(active & (exact == use_all))
        if cols.size == 0:
            continue
        rows, scale = (None, 1.0) if use_all else (sampled, 1.0 / plan.fraction)
        _add_curvature(out, problem, W, curvature, cols, rows, scale)
    out[:, np.arange(d), np.arange(d)] += 2.0 * Vlu.T
    return out


def _add_curvature(out, problem, W, curvature, cols, rows, scale):
    """Add ``scale`` times the curvature terms of ``rows`` (all when None) to ``out[cols]``."""
    X, var = problem.X, problem.var
    E = var.entrywise
    if rows is not None:
        X = X[rows]
        E = None if E is None else E[rows]
        curvature = tuple(c[rows] for c in curvature)
    lmm, lmu, luu = (scale * c for c in curvature)
    if not sp.issparse(X):
        X = X.astype(np.float32)
        E = None if E is None or sp.issparse(E) else E.astype(np.float32)
    var = Variance(E, var.constant, X.shape)
    Xbar = _with_ones(X) if problem.fit_intercept else X
    for k in cols:       # columns (classes), not rows
        H = _cross(Xbar, Xbar, lmm[:, k])
        if not var.is_zero():
            B = _variance_rows(var, 2.0 * W[:, k].astype(X.dtype), X.shape[0])
            if problem.fit_intercept:
                B = _pad_column(B)
            XB = _cross(Xbar, B, lmu[:, k])
            H += XB + XB.T + _cross(B, B, luu[:, k])
        out[k] += H


def _with_ones(X):
    ones = np.ones((X.shape[0], 1), dtype=X.dtype)
    return sp.hstack([X, ones], format="csr") if sp.issparse(X) else np.hstack([X, ones])


def _pad_column(B):
    zeros = np.zeros((B.shape[0], 1), dtype=B.dtype)
    return sp.hstack([B, zeros], format="csr") if sp.issparse(B) else np.hstack([B, zeros])


def _variance_rows(var, v, n):
    """The rows ``Var[x̃_n] * v`` (entrywise), sparse when the variance is."""
    E = var.entrywise
    if E is None:
        return np.broadcast_to(var.constant * v, (n, v.size)).copy()
    if sp.issparse(E):
        rows = E.multiply(v[None, :]).tocsr()
        return rows.toarray() + var.constant * v if var.constant else rows
    return E * v + var.constant * v


def _cross(A, B, c):
    """``A^T diag(c) B`` as a dense float64 array (A, B dense or sparse)."""
    c = c.astype(B.dtype, copy=False)[:, None]
    Bc = B.multiply(c).tocsr() if sp.issparse(B) else B * c
    out = A.T @ Bc
    return out.toarray().astype(np.float64) if sp.issparse(out) else np.asarray(
        out, dtype=np.float64)


def _full_pass(Xb, yb, wb, start, theta, candidates, chunk, loss, final_loss, plan,
               true_loss=None, ahead=()):
    """One chunk's data terms: value, gradient and Hessian (as ``plan`` says) at ``theta``,
    the values at the ``candidates`` (columns grouped by step length), when ``final_loss`` is
    given the gradient of the final loss at ``theta`` (the scale of the optimality measure),
    when ``true_loss`` is given the candidates' values under it (the objective reported in
    the history while a column is on its smoothing path; no pass of its own), and for every
    ``(loss, plan)`` of ``ahead`` the value and gradient at ``theta`` under that loss, with
    the Hessian when its plan is not None (the terms at the smoothing levels a column may
    advance to, so that advancing costs no pass of its own)."""
    losses = [loss] + [extra for extra in (final_loss, true_loss) if extra is not None]
    problem, *extra = chunk.problems(Xb, yb, wb, *losses, *(a for a, _ in ahead))
    final_problem = extra.pop(0) if final_loss is not None else None
    true_problem = extra.pop(0) if true_loss is not None else None
    at_theta = [problem] + ([final_problem] if final_problem is not None else []) + extra
    plans = [plan] + ([None] if final_problem is not None else []) + [p for _, p in ahead]
    terms = _shared_terms(at_theta, theta, plans, plan.rows(start, Xb.shape[0]))
    out = list(terms.pop(0))
    if candidates is not None:
        out.append(_candidate_values(problem, candidates))
    if final_problem is not None:
        out.append(terms.pop(0)[1])
    if true_problem is not None:
        out.append(_candidate_values(true_problem, candidates))
    out.append(tuple(terms))
    return tuple(out)


def _candidate_values(problem, candidates):
    """Data-term values at ``len(_STEPS)`` candidate points, each a block of k columns."""
    k = problem.Y.shape[1]
    n_steps = candidates.shape[1] // k
    tiled = _Problem(problem.X, np.tile(problem.Y, n_steps), problem.var,
                     _tiled(problem.loss, n_steps), problem.fit_intercept)
    return _data_terms(tiled, candidates, 0)


def _tiled(loss, times):
    """``loss`` for ``times`` side-by-side copies of its columns (a per-column smoothing is
    repeated)."""
    smoothing = getattr(loss, "smoothing", None)
    if smoothing is None or np.ndim(smoothing) == 0:
        return loss
    return loss.at(np.tile(np.asarray(smoothing), times))


def _surrogate_pass(Xb, yb, wb, chunk, loss):
    """One chunk's part of the IRLS surrogate at zero: ``X̄^T diag(a) X̄``, ``V^T a`` and
    ``X̄^T z`` (see :func:`._dropout_solvers._initial_theta`)."""
    problem = chunk.problem(Xb, yb, wb, loss)
    a, rhs_z = problem.loss.surrogate_at_zero(problem.Y)
    a = np.broadcast_to(np.asarray(a, dtype=float).reshape(-1, 1), (problem.X.shape[0], 1))
    Xbar = _with_ones(problem.X) if problem.fit_intercept else problem.X
    return _cross(Xbar, Xbar, a[:, 0]), problem.var.adjoint(a)[:, 0], problem.lin_t(rhs_z)


def _initial_theta(data, chunk, loss, d):
    """The in-memory solvers' starting point: the minimiser of the IRLS surrogate at ``w = 0``
    (an expected-quadratic-loss fit shared by all columns), assembled in one pass."""
    gram, var_a, rhs = data.reduce(_surrogate_pass, chunk, loss)
    A = gram.copy()
    diag = np.arange(d)
    A[diag, diag] += 2.0 + var_a
    return cho_solve(cho_factor(A, check_finite=False), rhs, check_finite=False)


def _gradient_pass(Xb, yb, wb, theta, chunk, loss):
    problem = chunk.problem(Xb, yb, wb, loss)
    return _data_terms(problem, theta, 1)


def _reg(theta, d):
    """``||w||^2`` of every column and its gradient ``2 w`` (bias entry 0)."""
    w = theta[:d]
    grad = np.zeros_like(theta)
    grad[:d] = 2.0 * w
    return (w * w).sum(axis=0), grad


def newton(data, chunk: _Chunk, loss, n_columns: int, *, tol: float = 1e-6,
           max_iter: int = 100) -> SolverResult:
    """Damped Newton with exact Hessian blocks on row blocks; see the module docstring.

    Parameters
    ----------
    data : RowBlocks
    chunk : _Chunk
    loss : a loss of :mod:`._dropout_losses` (scalar ``C``; row weights come with the chunks)
    n_columns : int
        Number of one-vs-all columns.
    tol, max_iter : float, int
        The relative gradient norm to reach and the limit on Newton steps.
    """
    d = data.shape[1]
    k = n_columns
    theta = _initial_theta(data, chunk, loss, d)
    levels = loss.levels() if hasattr(loss, "levels") else None
    last = None if levels is None else levels.size - 1
    level = np.zeros(k, dtype=int)
    stage_tol = max(tol, _STAGE_TOL)

    def stage_loss():
        return loss if levels is None else loss.at(levels[level])

    n = data.shape[0]
    fraction = 1.0 if n <= 2 * _HESSIAN_ROWS else _HESSIAN_ROWS / n
    exact = np.zeros(k, dtype=bool)
    status = np.full(k, MAX_ITER)

    def ahead_losses():
        """The losses at every smoothing level still ahead of a column (column-wise offsets
        1, 2, ... clipped at the final level), with Hessians at the next level and at the
        final one: where a column lands when it advances, nearly always. Only while some
        column is close to advancing (its measure within ``_AHEAD_WITHIN``), with Hessians for
        those columns: elsewhere the terms would cost more than the pass they save."""
        smoothing = (status == MAX_ITER) & (level < (last or 0)) & (measure <= _AHEAD_WITHIN)
        if levels is None or not smoothing.any():
            return [], smoothing
        depth = int((last - level[smoothing]).max())
        plan = _HessianPlan(fraction, exact.copy(), smoothing)
        return [(loss.at(levels[np.minimum(level + o, last)]),
                 plan if o in (1, depth) else None) for o in range(1, depth + 1)], smoothing

    def evaluate(th, candidates=None, scale=False, true_values=False):
        plan = _HessianPlan(fraction, exact.copy(), status == MAX_ITER)
        losses_ahead, covered = ahead_losses()
        f, g, H, *rest, ahead = data.reduce(
            _full_pass, th, candidates, chunk, stage_loss(), loss if scale else None, plan,
            loss if true_values else None, losses_ahead, with_offset=True)
        r, rg = _reg(th, d)
        f, g, H = _with_reg(f, g, H, r, rg, d)
        ahead = [_with_reg(*terms, r, rg, d) if len(terms) == 3
                 else (terms[0] + r, terms[1] + rg, None) for terms in ahead]
        return [f, g, H, *rest, (ahead, covered)]

    measure = np.full(k, np.inf)
    f, g, H, g0, ahead = evaluate(theta, scale=True)
    scale = np.maximum(np.abs(g0).max(axis=0), np.finfo(float).tiny)
    history = [[float(v)] for v in f]
    n_iter = np.zeros(k, dtype=int)
    damping = np.ones(k)
    stalls = np.zeros(k, dtype=int)
    for it in range(max_iter + 1):
        measure = np.abs(g).max(axis=0) / scale
        final = np.ones(k, dtype=bool) if levels is None else level == last
        active = status == MAX_ITER
        status[active & final & (measure <= tol)] = CONVERGED
        advance = active & ~final & (measure <= stage_tol)
        if advance.any():          # these columns move along their smoothing path
            landing = None if ahead is None else _landing(advance, level, last, *ahead,
                                                          scale, stage_tol)
            if landing is None:    # terms at the landing level not at hand: one pass
                level[advance] += 1
                f, g, H, *_, ahead = evaluate(theta)
            else:                  # from the pass that computed f, g and H
                moved, entry = landing
                for j in np.flatnonzero(advance):
                    f[j], g[:, j], H[j] = _column(ahead[0][entry[j]], j)
                    level[j] += moved[j]
                ahead = None       # consumed: the next pass brings fresh ones
            continue
        cols = np.flatnonzero(status == MAX_ITER)
        if cols.size == 0 or it == max_iter:
            break
        step = np.zeros_like(theta)
        for j in cols:
            step[:, j] = _damped_step(H[j], g[:, j], damping[j])
        slope = (g * step).sum(axis=0)
        candidates = np.hstack([theta + t * step for t in _STEPS])
        smoothing = levels is not None and not np.all(level == last)
        f1, g1, H1, f_cand, *true_cand, ahead1 = evaluate(theta + step, candidates,
                                                          true_values=smoothing)
        reg_cand = _reg_values(candidates, d, k)
        f_cand = f_cand.reshape(_STEPS.size, k) + reg_cand
        ok = f_cand <= f + _ARMIJO * _STEPS[:, None] * slope
        # below the objective's resolution a step is judged by the gradient it reaches
        unresolved = -slope <= _RESOLUTION * np.abs(f)
        ok[0] |= unresolved & (np.abs(g1).max(axis=0) <= (1.0 - _ARMIJO) * np.abs(g).max(0))
        first = np.where(ok.any(axis=0), ok.argmax(axis=0), -1)
        t = np.where(first >= 0, _STEPS[np.maximum(first, 0)], 0.0)
        t[status != MAX_ITER] = 0.0
        f_new = np.where(t > 0, f_cand[np.maximum(first, 0), np.arange(k)], f)
        curv = np.einsum("pk,kpq,qk->k", step, H, step)
        pred = -(t * slope + 0.5 * t * t * curv)
        ratio = (f - f_new) / np.maximum(pred, 1e-300)
        damping[cols] = np.clip(np.where(t < 1, 4.0 * damping, np.where(
            ratio > 0.5, damping / 4.0, np.where(ratio < 0.25, 2.0 * damping, damping))),
            _MIN_DAMPING, _MAX_DAMPING)[cols]
        flat = (t == 0) | (f - f_new <= _EPS_DECREASE * np.abs(f_new))
        at_final = np.ones(k, dtype=bool) if levels is None else level == last
        stalls[cols] = np.where(flat & at_final, stalls + 1, 0)[cols]
        if fraction < 1.0:      # the sub-sample misses curvature that matters here
            exact[cols[(((t < 1) & at_final) | (t == 0))[cols]]] = True
        theta = theta + t * step
        n_iter[cols] += 1
        if np.all(t[cols] == 1.0):          # every moving column took its full step
            f, g, H, ahead = f1, g1, H1, ahead1
        else:
            f, g, H, *_, ahead = evaluate(theta)
        if smoothing:       # the final objective at the step taken, from the step's pass
            true_cand = true_cand[0].reshape(_STEPS.size, k) + reg_cand
            previous = np.array([h[-1] for h in history])
            true_f = np.where(t > 0, true_cand[np.maximum(first, 0), np.arange(k)], previous)
        else:
            true_f = f
        for j in cols:
            history[j].append(float(true_f[j]))
        status[cols[stalls[cols] >= _MAX_STALLS]] = NO_DESCENT
    return _result(theta, d, chunk.fit_intercept, n_iter, history, status, measure)


def _with_reg(f, g, H, r, rg, d):
    """Data terms plus the regulariser: ``||w||^2`` to the values, ``2 w`` to the gradients,
    ``2 I`` (the weights' block) to the Hessians."""
    H = H.copy()
    H[:, np.arange(d), np.arange(d)] += 2.0
    return f + r, g + rg, H


def _column(terms, j):
    f, g, H = terms
    return f[j], g[:, j], H[j]


def _landing(advance, level, last, ahead, covered, scale, stage_tol):
    """Where each advancing column lands: past every level where its relative gradient is
    still within ``stage_tol`` (the in-memory solver's rule, one level at a time), at the
    final level at the latest. Returns the number of levels moved per column and the entry of
    ``ahead`` holding the terms there (the final level's are in the last entry, whatever the
    column's level), or ``None`` when some column lands where ``ahead`` has no Hessian, or
    was not ``covered`` by it."""
    if not covered[advance].all():
        return None
    moved = np.zeros(level.size, dtype=int)
    entry = np.zeros(level.size, dtype=int)
    for j in np.flatnonzero(advance):
        for o, (_, g_o, _) in enumerate(ahead, start=1):
            at_last = level[j] + o >= last
            if at_last or np.abs(g_o[:, j]).max() / scale[j] > stage_tol:
                entry[j] = len(ahead) - 1 if at_last else o - 1
                if ahead[entry[j]][2] is None:
                    return None
                moved[j] = o
                break
    return moved, entry


def _reg_values(candidates, d, k):
    w = candidates[:d]
    return (w * w).sum(axis=0).reshape(-1, k)


def _damped_step(H, g, mu):
    """``-(H + mu I)^{-1} g`` by Cholesky; the damping grows until the matrix factorises."""
    A = H.copy()
    diag = np.arange(A.shape[0])
    while True:
        A[diag, diag] = H[diag, diag] + mu
        try:
            return -cho_solve(cho_factor(A, check_finite=False), g, check_finite=False)
        except np.linalg.LinAlgError:
            mu = max(10.0 * mu, 1e-12 * max(1.0, np.abs(H[diag, diag]).max()))


def _result(theta, d, fit_intercept, n_iter, history, status, measure):
    intercept = theta[d] if fit_intercept else np.zeros(theta.shape[1])
    return SolverResult(theta[:d].T.copy(), intercept.copy(), n_iter,
                        [np.asarray(h) for h in history], status == CONVERGED,
                        np.asarray(measure, dtype=float).copy(), status.copy())


def lbfgs(data, chunk: _Chunk, loss, n_columns: int, *, tol: float = 1e-6,
          max_iter: int = 100) -> SolverResult:
    """scipy's L-BFGS-B on the sum of the column objectives, one pass per evaluation.

    The same stopping rule as the in-memory :func:`._dropout_solvers.lbfgs`: scipy's
    projected-gradient test with ``gtol = tol * min_k ||grad F_k(0)||_inf`` (the
    objective-change test off), and each column's relative gradient norm checked at the end.
    """
    d = data.shape[1]
    p = d + 1 if chunk.fit_intercept else d
    shape = (p, n_columns)
    last = {}

    def value_and_gradient(th):
        f, g = data.reduce(_gradient_pass, th, chunk, loss)
        r, rg = _reg(th, d)
        return f + r, g + rg

    def fun(x):
        f, g = value_and_gradient(x.reshape(shape))
        last.update(x=x.copy(), f=f, g=g)
        return f.sum(), g.ravel()

    f0, g0 = value_and_gradient(np.zeros(shape))
    scale = np.maximum(np.abs(g0).max(axis=0), np.finfo(float).tiny)
    history = [f0]
    res = minimize(fun, np.zeros(p * n_columns), jac=True, method="L-BFGS-B",
                   callback=lambda xk: history.append(last["f"]),
                   options={"maxiter": max_iter, "ftol": 0.0,
                            "gtol": tol * float(scale.min()), "maxcor": 20})
    theta = res.x.reshape(shape)
    g = last["g"] if np.array_equal(last.get("x"), res.x) else value_and_gradient(theta)[1]
    measure = np.abs(g).max(axis=0) / scale
    status = np.where(measure <= tol, CONVERGED, MAX_ITER if res.nit >= max_iter else ABNORMAL)
    n_iter = np.full(n_columns, res.nit)
    return _result(theta, d, chunk.fit_intercept, n_iter, list(np.array(history).T), status,
                   measure)
