"""Active-set polish of an SVM dual solution: libsvm's support sets, solved in double precision.

libsvm stops when the KKT violation of the dual (*) of
:mod:`robustclf.missing._geometric_solver` falls below its ``tol`` (1e-3 by default) and caches
the kernel in single precision, so its objective is typically 1e-5 to 1e-3 (relative) above the
optimum. The partition it returns -- rows at zero, rows at their bound, free rows -- is
nevertheless almost always the optimal one, and on a known partition (*) is a linear system:
with ``g`` the reading's coefficients (``sum g = 0``), ``Q = diag(d) K diag(d)``, margins ``m``
and bounds ``u``, the free rows ``F`` and the rows ``U`` at their bound satisfy::

    Q_FF g_F + b 1 = y_F m_F - Q_FU g_U,      1' g_F = -1' g_U,

the stationarity of the free rows (each exactly on its margin) and of the bias. This module
polishes libsvm's solution by the primal active-set method for convex QPs (Nocedal & Wright
2006, Algorithm 16.3), started from libsvm's partition and point: solve the system above
(least squares: ``Q_FF`` may be singular, and any solution is optimal); step towards its
solution as far as the box allows, a free row that blocks the step going to that bound (when
the system is inconsistent, along the descent direction in its null space instead); at a
full step, check every KKT condition on all rows in double precision and free the row that
violates most. Every step keeps the point feasible and lowers the objective, so the method
does not cycle; from libsvm's partition it usually ends after one solve. The polished point is
returned only if its KKT residual is smaller than the one it started from, so a polish can
never make a solve worse; the caller reports the residual reached.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.linalg import LinAlgError, LinAlgWarning, solve

__all__ = ["polish"]

#: Free rows beyond which the dense system is not formed (its solve costs O(|F|^3)).
MAX_FREE = 2048
_ROUNDS = 50


def _solve(system: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """The symmetric KKT system by LU (``assume_a="sym"``); least squares if it is singular."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinAlgWarning)
        try:
            return solve(system, rhs, assume_a="sym", check_finite=False)
        except (LinAlgError, LinAlgWarning):
            return np.linalg.lstsq(system, rhs, rcond=None)[0]


def _violations(margin_gap: np.ndarray, free: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """KKT violation of every row in margin units (0 where the row's condition holds)."""
    lower = ~free & ~upper
    return np.where(free, np.abs(margin_gap),
                    np.where(upper, np.maximum(0.0, margin_gap),
                             np.where(lower, np.maximum(0.0, -margin_gap), 0.0)))


def polish(columns: Callable[[np.ndarray], np.ndarray], y: np.ndarray, d: np.ndarray,
           m: np.ndarray, u: np.ndarray, a: np.ndarray, b: float, K_coef: np.ndarray,
           residual: float) -> tuple[np.ndarray, float, np.ndarray, float] | None:
    """Polish a dual solution ``a`` (``= y g``, in ``[0, u]``) with intercept ``b``.

    Parameters
    ----------
    columns : callable
        ``columns(rows)`` returns ``K[:, rows]``, shape ``(n, len(rows))`` (unscaled kernel).
        Only the columns of the free rows are ever formed, and ``K @ coef`` is updated from
        them, so a round costs ``O(n |F| + |F|^3)``, not ``O(n^2)``.
    y : ndarray of shape (n,), in {-1, +1}
    d, m, u : ndarray of shape (n,)
        Row scaling, margins and bounds of the reading
        (:func:`robustclf.missing._geometric_solver._reading`).
    a : ndarray of shape (n,)
        The solution to polish, ``y g``, feasible (``sum y a = 0``); not modified.
    b : float
    K_coef : ndarray of shape (n,)
        ``K @ coef`` at ``a`` (``coef = d y a``); not modified.
    residual : float
        Its KKT residual (:func:`robustclf.missing._geometric_solver.kkt_residual`).

    Returns
    -------
    (a, b, K_coef, residual) or None
        The polished solution, ``K @ coef`` there and its KKT residual, or None when no
        partition tried gave a smaller residual (or the free set is larger than
        :data:`MAX_FREE`).
    """
    upper = a >= u * (1.0 - 1e-12)
    free = (a > 0.0) & ~upper
    snapped = np.where(free, a, np.where(upper, u, 0.0))  # bounded rows exactly at their bounds
    K_coef = K_coef.copy()
    moved = np.flatnonzero(snapped != a)
    if moved.size:
        K_coef += columns(moved) @ (y[moved] * d[moved] * (snapped[moved] - a[moved]))
    a = snapped
    target_residual = 1e-10 * max(float(m.max(initial=1.0)), 1.0)
    best, released = None, -1
    for _ in range(_ROUNDS):
        F = np.flatnonzero(free)
        if F.size > MAX_FREE:
            break
        K_F = columns(F)
        # the Newton step (p, delta) of the free rows and the bias; minimum norm, as Q_FF may
        # be singular (its null space does not change the objective)
        gradient = y[F] * m[F] - d[F] * K_coef[F] - b
        system = np.zeros((F.size + 1, F.size + 1))
        system[:F.size, :F.size] = K_F[F] * np.outer(d[F], d[F])
        system[:F.size, F.size] = 1.0
        system[F.size, :F.size] = 1.0
        rhs = np.append(gradient, -float(y @ a))
        step = _solve(system, rhs)
        # an inconsistent system (more free rows on their margins than the kernel's rank
        # allows): its residual lies in the null space of the (symmetric) system and is a
        # descent direction along which the objective falls linearly, to the first bound
        null = rhs - system @ step
        along_null = np.linalg.norm(null) > 1e-10 * (np.linalg.norm(rhs) + 1.0)
        if along_null:
            step = null
        p, delta = y[F] * step[:F.size], float(step[F.size])
        # the longest step (at most 1 for a Newton step) that keeps every free row in its box
        with np.errstate(divide="ignore", invalid="ignore"):
            limit = np.where(p < 0.0, -a[F] / p, np.where(p > 0.0, (u[F] - a[F]) / p, np.inf))
        blocking = int(np.argmin(limit)) if F.size else -1
        if along_null and (not F.size or not np.isfinite(limit[blocking])):
            break  # unbounded along the null space: not a convex QP's situation, give up
        t = 1.0
        if F.size and (along_null or limit[blocking] < 1.0):
            t = max(float(limit[blocking]), 0.0)
            row = F[blocking]
            if t == 0.0 and row == released:
                break  # the freed row cannot move: degenerate, keep the best point found
        a_F = a[F] + t * p
        b += t * delta
        if t < 1.0 or along_null:  # the blocking row goes to the bound it reached
            free[row], upper[row] = False, p[blocking] > 0.0
            a_F[blocking] = u[row] if upper[row] else 0.0
        K_coef += K_F @ (y[F] * d[F] * (a_F - a[F]))
        a[F] = a_F
        if t < 1.0 or along_null:
            released = -1
            continue
        margin_gap = y * (d * K_coef + b) - m
        violation = _violations(margin_gap, free, upper)
        new_residual = float(violation.max(initial=0.0))
        if new_residual < (residual if best is None else best[3]):
            best = (a.copy(), b, K_coef.copy(), new_residual)
        if new_residual <= target_residual:
            break
        released = int(np.argmax(np.where(free, 0.0, violation)))
        if free[released] or violation[released] <= target_residual:
            break  # only the free rows' rounding is left
        free[released], upper[released] = True, False
    return best
