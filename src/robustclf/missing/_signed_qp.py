"""The SVM dual for fixed scalings as a sign-constrained box QP, solved by libsvm's epsilon-SVR.

Both bias readings of Chechik et al. (2007), for fixed scalings, are instances of (see
:mod:`robustclf.missing._geometric_solver`)::

    min_g  1/2 g' G g - m' (y * g)
    s.t.   0 <= y_i g_i <= u_i,   sum_i g_i = r                                   (QP)

with ``r = 0`` for the full problem. libsvm's C-SVC fixes the linear term to ``-1``; its
epsilon-SVR does not: with targets ``z = m y + eps y``, ``sample_weight = u / max(u)`` and a large
``eps`` the SVR dual ``min 1/2 g'Gg - z'g + eps |g|_1, sum g = 0, |g_i| <= u_i`` equals (QP) on
``y_i g_i >= 0`` and charges ``2 eps`` more per unit of a wrong-sign coefficient, so its optimum
solves (QP) as soon as it has none (otherwise ``eps`` is raised). Its intercept is the
multiplier ``b`` of the equality.

**Warm start** (:func:`solve_warm`). libsvm starts every solve from ``g = 0``. On the rescaled
problems of the later iterates a cold solve needs about twice the SMO iterations of the first one
on ``K`` (a scaling ``s_i < 1`` acts like a larger C), most of them moving rows from 0 to their
bound or back to where the previous iterate already had them. The previous iterate ``(g, b)``,
evaluated under the new ``(G, m)``, seeds the solve in three ways:

1. *Partition.* Rows whose margin ``y_i (G g + b)_i`` is below ``m_i (1 - band)`` are fixed at
   their bound ``y_i g_i = u_i``, rows above ``m_i (1 + band)`` are left out at 0, and libsvm
   solves (QP) only on the rows in between, with the fixed rows folded into the linear term.
2. *Starting point.* The solved rows start where the previous iterate had them (clipped into the
   new box), and libsvm solves for the step ``h = g - g0``. Its box ``y_i h_i in [-p_i, u_i - p_i]``
   is not symmetric, which the SVR cannot express, so a row with room both ways appears twice
   with the same kernel column, one copy per direction, each sign-constrained as above.
3. *Sum.* The start's sum ``sum g0`` is generally not 0, so the step must sum to ``-sum g0``: a
   non-zero ``r`` is carried by one extra row with no kernel interaction, box ``|r|`` and a
   linear reward that pins it at ``-r``.

The KKT conditions of (QP) are then checked on *every* row (fixed rows need margin ``<= m_i``,
left-out rows ``>= m_i``, both up to ``tol``); if one fails, the rows are partitioned again
around the new point, the violators are solved in any case, and the reduced problem is solved
again (at most ``_MAX_ROUNDS`` times; then, or when the start does not help, the caller solves
cold). The result therefore meets the same
optimality conditions as a cold solve; only the time differs. This is a standard decomposition
(the working set of SVMlight, libsvm's shrinking) seeded from the previous iterate, with libsvm
as the solver, not a new QP solver.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVR

from .._convergence import warn_not_converged

__all__ = ["solve_cold", "solve_warm", "libsvm_max_iter"]

_EPS_START = 1e2  # first SVR epsilon, in units of max(|linear term|, 1); raised if too small
_EPS_GROWTH = 1e2
_EPS_TRIES = 4
_PIN = 1e3  # the extra row's reward, in units of eps + |r| + max |linear term| + 1
_BAND = 0.2  # rows within m_i (1 +- _BAND) of their margin are solved by libsvm
_MAX_BAND = 1.0  # beyond it (scalings more than halved or doubled) a cold solve is made
_MAX_ROUNDS = 6
_LIBSVM_MAX_ITER = 10_000_000  # upstream libsvm's cap; scikit-learn's fork has none by default


def libsvm_max_iter(n: int) -> int:
    """SMO iteration cap of one libsvm solve on ``n`` rows: ``max(1e7, 100 n)``.

    The cap of upstream libsvm (scikit-learn's copy runs without one unless ``max_iter`` is
    set, and then may never stop on a badly conditioned kernel). Reaching it makes
    scikit-learn raise a ``ConvergenceWarning`` ("Solver terminated early"), which
    :func:`robustclf.missing._geometric_solver.fit_binary` records and the estimator reports
    with the KKT residual reached.
    """
    return max(_LIBSVM_MAX_ITER, 100 * int(n))


def _svr_solve(G: np.ndarray, y: np.ndarray, lin: np.ndarray, u: np.ndarray, r: float,
               tol: float) -> tuple[np.ndarray, float] | None:
    """(QP) with linear term ``lin`` (``= m y`` plus folded rows) and sum ``r``.

    ``G`` has shape ``(n, n)``, or ``(n + 1, n + 1)`` with room for the extra row (whose entries
    are overwritten). Returns the dense ``g`` and ``b``, or None when the extra row is not
    pinned at ``-r`` (the reduced problem is infeasible or badly scaled; the caller falls back).
    """
    n = y.shape[0]
    pinned = r != 0.0
    if pinned and not -u[y < 0].sum() < r < u[y > 0].sum():
        return None  # no g of the right signs sums to r
    if pinned:  # extra row n: no kernel interaction, g_n = -r at the optimum
        if G.shape[0] == n:
            G = np.pad(G, ((0, 1), (0, 1)))
        G[n, :] = 0.0
        G[:, n] = 0.0
        G[n, n] = 1.0
    elif G.shape[0] > n:
        G = G[:n, :n].copy()
    scale = max(float(np.abs(lin).max(initial=0.0)), 1.0)
    eps = _EPS_START * scale
    u_max = float(u.max(initial=0.0))
    if pinned:
        u_max = max(u_max, abs(r))
    for _ in range(_EPS_TRIES):
        z = lin + eps * y
        weights = u / u_max
        if pinned:
            z = np.append(z, -np.sign(r) * _PIN * (eps + abs(r) + scale))
            weights = np.append(weights, abs(r) / u_max)
        svr = SVR(kernel="precomputed", C=u_max, epsilon=eps, tol=tol,
                  max_iter=libsvm_max_iter(G.shape[0]))
        svr.fit(G, z, sample_weight=weights)
        g = np.zeros(n + pinned)
        g[svr.support_] = svr.dual_coef_[0]
        if np.all(y * g[:n] >= 0.0):
            break
        eps *= _EPS_GROWTH
    else:  # in practice unreachable: needs margins beyond 2e8 * max(|lin|, 1)
        if pinned:
            return None
        warn_not_converged("The SVR reformulation of the SVM dual",
                           reason="it kept wrong-sign coefficients after raising epsilon "
                                  f"{_EPS_TRIES} times; the solution is approximate",
                           advice="Scale the data.", stacklevel=4)
    if pinned and abs(g[n] + r) > 1e-9 * max(abs(r), 1.0):
        return None
    return g[:n], float(svr.intercept_[0])


def solve_cold(G: np.ndarray, y: np.ndarray, m: np.ndarray, u: np.ndarray,
               tol: float) -> tuple[np.ndarray, float]:
    """(QP) with ``r = 0`` on all rows, from ``g = 0``; returns dense ``g`` and ``b``."""
    result = _svr_solve(G, y, m * y, u, 0.0, tol)
    assert result is not None  # r = 0: nothing to pin
    return result


def solve_warm(K: np.ndarray, d: np.ndarray, y: np.ndarray, m: np.ndarray, u: np.ndarray,
               tol: float, g_start: np.ndarray, b_start: float,
               G_g_start: np.ndarray | None = None, band: float = _BAND,
               ) -> tuple[np.ndarray, float, int] | None:
    """(QP) on ``G = diag(d) K diag(d)``, seeded by a previous solution (module docstring).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel; ``G`` is never formed.
    d : ndarray of shape (n,)
        Row and column scaling of ``K``.
    y : ndarray of shape (n,), in {-1, +1}
    m, u : ndarray of shape (n,)
        Margins and upper bounds.
    tol : float
        libsvm's stopping tolerance, also the KKT tolerance of the check on all rows.
    g_start, b_start : a previous solution, in the variables of this problem.
    G_g_start : ndarray of shape (n,), optional
        ``G @ g_start`` when the caller has it.
    band : float, default=_BAND
        Rows whose margin is within ``m_i (1 +- band)`` are solved by libsvm.

    Returns
    -------
    (g, b, rounds) : ndarray of shape (n,), float, int
        The solution and the number of reduced solves made; or None when the start does not
        help (more than 3/4 of the rows to solve, no rows, an infeasible reduced problem, or
        ``_MAX_ROUNDS`` rounds without meeting the KKT conditions): the caller solves cold.
    """
    scaled = bool(np.any(d != 1.0))

    def G_times(v: np.ndarray) -> np.ndarray:
        return d * (K @ (d * v)) if scaled else K @ v

    n = y.shape[0]
    if G_g_start is None:
        G_g_start = G_times(g_start)
    g, margin = g_start, y * (G_g_start + b_start)
    fixed = margin < m * (1.0 - band)
    solved = ~fixed & (margin <= m * (1.0 + band))
    for rounds in range(1, _MAX_ROUNDS + 1):
        if not solved.any() or solved.sum() > 0.75 * n:
            break  # nothing gained over a cold solve
        # start point: fixed rows at their bound, left-out rows at 0, solved rows where they were
        g0 = np.where(fixed, y * u, np.where(solved, y * np.clip(y * g, 0.0, u), 0.0))
        # the step h = g - g0 of a solved row lies in y_i [-p_i, u_i - p_i]: one copy of the row
        # per direction with room (identical kernel columns), each sign-constrained like (QP)
        F = np.flatnonzero(solved)
        p = y[F] * g0[F]
        up, down = F[u[F] - p > 0.0], F[p > 0.0]
        rows = np.concatenate([up, down])
        direction = np.concatenate([y[up], -y[down]])
        room = np.concatenate([u[up] - y[up] * g0[up], y[down] * g0[down]])
        lin = (m * y - G_times(g0))[rows]
        slot = np.append(rows, 0)  # one gather, with a row and column for the pinned row
        G_rows = K[np.ix_(slot, slot)]
        if scaled:
            G_rows[:-1] *= d[rows, None]
            G_rows[:, :-1] *= d[rows]
        result = _svr_solve(G_rows, direction, lin, room, -float(g0.sum()), tol)
        if result is None:
            break
        g = g0.copy()
        np.add.at(g, rows, result[0])
        b = result[1]
        margin = y * (G_times(g) + b)
        leave = fixed & (margin > m + tol)
        enter = ~fixed & ~solved & (margin < m - tol)
        if not (leave.any() or enter.any()):
            return g, b, rounds
        # partition again around this better point; the violators are solved in any case
        fixed = margin < m * (1.0 - band)
        solved = (~fixed & (margin <= m * (1.0 + band))) | leave | enter
        fixed &= ~solved
    return None
