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

from collections.abc import Callable

import numpy as np

__all__ = ["polish"]

#: Free rows beyond which the dense system is not formed (its solve costs O(|F|^3)).
MAX_FREE = 2048
_ROUNDS = 50


def _violations(margin_gap: np.ndarray, free: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """KKT violation of every row in margin units (0 where the row's condition holds)."""
    lower = ~free & ~upper
    return np.where(free, np.abs(margin_gap),
                    np.where(upper, np.maximum(0.0, margin_gap),
                             np.where(lower, np.maximum(0.0, -margin_gap), 0.0)))


def polish(gram: Callable[[np.ndarray], np.ndarray], kernel_times: Callable[[np.ndarray],
           np.ndarray], y: np.ndarray, d: np.ndarray, m: np.ndarray, u: np.ndarray,
           a: np.ndarray, b: float, residual: float) -> tuple[np.ndarray, float, float] | None:
    """Polish a dual solution ``a`` (``= y g``, in ``[0, u]``) with intercept ``b``.

    Parameters
    ----------
    gram : callable
        ``gram(rows)`` returns ``K[rows][:, rows]`` (unscaled kernel).
    kernel_times : callable
        ``kernel_times(coef)`` returns ``K @ coef`` for a dense ``coef`` of shape ``(n,)``.
    y : ndarray of shape (n,), in {-1, +1}
    d, m, u : ndarray of shape (n,)
        Row scaling, margins and bounds of the reading
        (:func:`robustclf.missing._geometric_solver._reading`).
    a : ndarray of shape (n,)
        The solution to polish, ``y g``, feasible (``sum y a = 0``); not modified.
    b : float
    residual : float
        Its KKT residual (:func:`robustclf.missing._geometric_solver.kkt_residual`).

    Returns
    -------
    (a, b, residual) or None
        The polished solution and its KKT residual, or None when no partition tried gave a
        smaller residual (or the free set is larger than :data:`MAX_FREE`).
    """
    upper = a >= u * (1.0 - 1e-12)
    free = (a > 0.0) & ~upper
    a = np.where(free, a, np.where(upper, u, 0.0))  # the bounded rows exactly at their bounds
    target_residual = 1e-10 * max(float(m.max(initial=1.0)), 1.0)
    best, released = None, -1
    for _ in range(_ROUNDS):
        F = np.flatnonzero(free)
        if F.size > MAX_FREE:
            break
        # the Newton step (p, delta) of the free rows and the bias; minimum norm, as Q_FF may
        # be singular (its null space does not change the objective)
        gradient = y[F] * m[F] - d[F] * kernel_times(y * a * d)[F] - b
        system = np.zeros((F.size + 1, F.size + 1))
        system[:F.size, :F.size] = gram(F) * np.outer(d[F], d[F])
        system[:F.size, F.size] = 1.0
        system[F.size, :F.size] = 1.0
        rhs = np.append(gradient, -float(y @ a))
        step = np.linalg.lstsq(system, rhs, rcond=None)[0]
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
        if F.size and (along_null or limit[blocking] < 1.0):
            t = max(float(limit[blocking]), 0.0)
            row = F[blocking]
            if t == 0.0 and row == released:
                break  # the freed row cannot move: degenerate, keep the best point found
            a[F] += t * p
            b += t * delta
            free[row], upper[row] = False, p[blocking] > 0.0
            a[row] = u[row] if upper[row] else 0.0
            released = -1
            continue
        a[F] += p
        b += delta
        margin_gap = y * (d * kernel_times(y * a * d) + b) - m
        violation = _violations(margin_gap, free, upper)
        new_residual = float(violation.max(initial=0.0))
        if new_residual < (residual if best is None else best[2]):
            best = (a.copy(), b, new_residual)
        if new_residual <= target_residual:
            break
        released = int(np.argmax(np.where(free, 0.0, violation)))
        if free[released] or violation[released] <= target_residual:
            break  # only the free rows' rounding is left
        free[released], upper[released] = True, False
    return best
