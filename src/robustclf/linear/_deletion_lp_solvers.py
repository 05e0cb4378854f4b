"""Solvers of Dekel & Shamir's deletion-robust LP (ICML 2008, Eq. 4) for one binary problem.

All solvers minimise the same objective over ``(w, b)`` with ``||w||_inf <= C`` (``b`` free)::

    F(w, b) = (1 / (m gamma)) sum_i xi_i(w, b),
    xi_i(w, b) = max(0, -theta_i),                                                    (H)
    theta_i = min_{tau in T} y_i b + sum_j tau_j (y_i w_j x_ij - gamma v_j / P)       (Eq. 7)

with ``T = {tau in [0, 1]^n : sum_j tau_j v_j >= P}``, ``P = V([n]) - N``. Eq. (7) is LP duality's
twin of the inner maximisation of Eq. (8), so ``F``'s minimum over the box is exactly the optimal
value of Eq. (4) (proof of Theorem 1). With ``delta = 1 - tau`` Eq. (7) is the fractional knapsack
of :func:`robustclf._worst_case.knapsack_deletion` on the gains ``g_ij = y_i w_j x_ij - gamma v_j
/ P``: ``theta_i = y_i b + sum_j g_ij - relaxed_gain_i``.

* :func:`solve_full_lp` builds Eq. (4) itself (O(mn) variables and non-zeros) for HiGHS.
* :func:`solve_cutting_plane` keeps only ``(w, b, xi)`` and adds, round by round, the most
  violated vertex of ``T`` for each example (the knapsack's sort-based solution) as the cut
  ``y_i b + sum_j tau_j y_i x_ij w_j + xi_i >= gamma tau.v / P``; it stops when the cut LP's value
  (a lower bound) meets ``F`` at its solution (an upper bound), so its optimum is Eq. (4)'s.
* :func:`solve_subgradient` runs averaged projected stochastic subgradient descent (AdaGrad
  steps) on ``F``.

Every solver takes ``y`` in {-1, +1} and returns a :class:`DeletionLPResult`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning

from .._worst_case import knapsack_deletion

__all__ = ["DeletionLPResult", "robust_hinge", "solve_full_lp", "solve_cutting_plane",
           "solve_subgradient", "SOLVERS"]

# HiGHS status codes (scipy's linprog) and what they mean for us.
_LINPROG_STATUS = {0: "optimal", 1: "iteration or time limit reached", 2: "infeasible",
                   3: "unbounded", 4: "numerical difficulties"}


@dataclass(frozen=True)
class DeletionLPResult:
    """What every solver returns.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
    intercept : float
    objective : float
        ``F(coef, intercept)``, Eq. (4)'s objective evaluated exactly by the sort-based loss.
    lower_bound : float
        A certified lower bound on Eq. (4)'s optimum (``nan`` when the solver gives none).
    n_iter : int
        HiGHS iterations (full LP), cutting-plane rounds, or epochs (subgradient).
    converged : bool
    slack : ndarray of shape (n_samples,) or None
        The LP's own ``xi`` (full LP only), to check it against :func:`robust_hinge`.
    """

    coef: np.ndarray
    intercept: float
    objective: float
    lower_bound: float
    n_iter: int
    converged: bool
    slack: np.ndarray | None = None


def _gains(X, y, w, values, margin, P):
    """``g_ij = y_i w_j x_ij - gamma v_j / P`` for every row (dense (m, n) array)."""
    if sp.issparse(X):
        contrib = X.multiply(w[None, :]).toarray()
    else:
        contrib = X * w[None, :]
    return y[:, None] * contrib - (margin / P) * values[None, :]


def robust_hinge(X, y, w, b, values, budget, margin):
    """Slack ``xi_i`` of Eq. (4) at ``(w, b)`` for every row, and the worst-case vertices.

    Returns
    -------
    xi : ndarray of shape (n_samples,)
        ``max(0, -theta_i)`` with ``theta_i`` the value of Eq. (7): the robust hinge loss.
    tau : ndarray of shape (n_samples, n_features)
        A minimiser of Eq. (7) per row (a vertex of T: at most one fractional entry).
    """
    P = float(np.sum(values)) - budget
    g = _gains(X, y, w, values, margin, P)
    ks = knapsack_deletion(g, values, budget)
    theta = y * b + g.sum(axis=1) - ks.relaxed_gain
    return np.maximum(0.0, -theta), 1.0 - ks.fractions


def _objective(X, y, w, b, values, budget, margin):
    xi, tau = robust_hinge(X, y, w, b, values, budget, margin)
    return xi.sum() / (X.shape[0] * margin), xi, tau


def _check_linprog(res, what: str):
    """Raise on infeasible/unbounded/numerical failure; warn on a limit; return the solution."""
    if res.status == 0:
        return res.x
    reason = _LINPROG_STATUS.get(res.status, f"status {res.status}")
    if res.status == 1 and res.x is not None:
        warnings.warn(f"HiGHS stopped early on the {what} ({reason}: {res.message}); the "
                      "solution may not be optimal.", ConvergenceWarning, stacklevel=3)
        return res.x
    raise RuntimeError(f"HiGHS failed on the {what}: {reason} ({res.message}).")


def solve_full_lp(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                  time_limit=None, **_):
    """Solve Eq. (4) as printed, with its O(mn) variables, by HiGHS.

    Variables are ordered ``[w (n), b, xi (m), lambda (m), alpha (m n)]``. Rows: the m constraints
    ``-P lambda_i + sum_j alpha_ij - y_i b - xi_i <= 0`` and the mn constraints
    ``-y_i x_ij w_j + v_j lambda_i - alpha_ij <= -gamma v_j / P``.
    """
    X = sp.csr_matrix(X) if not sp.issparse(X) else X.tocsr()
    m, n = X.shape
    P = float(np.sum(values)) - budget
    o_b, o_xi, o_lam, o_al = n, n + 1, n + 1 + m, n + 1 + 2 * m
    n_var = o_al + m * n
    i = np.arange(m)
    # first block: one row per example
    rows1 = np.concatenate([np.repeat(i, n), i, i, i])
    cols1 = np.concatenate([o_al + np.arange(m * n), np.full(m, o_b), o_xi + i, o_lam + i])
    data1 = np.concatenate([np.ones(m * n), -y.astype(float), -np.ones(m), -P * np.ones(m)])
    # second block: row (i, j) = m + i n + j
    coo = X.tocoo()
    r_w = m + coo.row * n + coo.col
    d_w = -y[coo.row] * coo.data
    ii, jj = np.divmod(np.arange(m * n), n)
    pos = values[jj] > 0
    r_lam = (m + np.arange(m * n))[pos]
    rows2 = np.concatenate([r_w, r_lam, m + np.arange(m * n)])
    cols2 = np.concatenate([coo.col, o_lam + ii[pos], o_al + np.arange(m * n)])
    data2 = np.concatenate([d_w, values[jj][pos], -np.ones(m * n)])
    A = sp.csr_matrix((np.concatenate([data1, data2]),
                       (np.concatenate([rows1, rows2]), np.concatenate([cols1, cols2]))),
                      shape=(m + m * n, n_var))
    rhs = np.concatenate([np.zeros(m), np.tile(-(margin / P) * values, m)])
    c = np.zeros(n_var)
    c[o_xi:o_xi + m] = 1.0 / (m * margin)
    bounds = np.zeros((n_var, 2))
    bounds[:, 1] = np.inf
    bounds[:n] = (-weight_bound, weight_bound)
    bounds[o_b] = (-np.inf, np.inf) if fit_intercept else (0.0, 0.0)
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    res = linprog(c, A_ub=A, b_ub=rhs, bounds=bounds, method="highs", options=options)
    x = _check_linprog(res, "full LP of Eq. (4)")
    w, b = x[:n].copy(), float(x[o_b])
    obj = _objective(X, y, w, b, values, budget, margin)[0]
    return DeletionLPResult(w, b, obj, float(res.fun), int(getattr(res, "nit", 0)),
                            res.status == 0, x[o_xi:o_xi + m].copy())


def _cut_rows(X, y, tau, idx, values, margin, P):
    """Cut ``y_i b + sum_j tau_j y_i x_ij w_j + xi_i >= gamma tau.v / P`` as ``A z <= r`` rows."""
    Xi = X[idx]
    Ti = tau[idx]
    coef_w = (Xi.multiply(Ti) if sp.issparse(Xi) else sp.csr_matrix(Xi * Ti))
    coef_w = sp.csr_matrix(-coef_w.multiply(y[idx][:, None]))
    k = idx.size
    m = X.shape[0]
    rest = sp.csr_matrix((np.concatenate([-y[idx].astype(float), -np.ones(k)]),
                          (np.concatenate([np.arange(k), np.arange(k)]),
                           np.concatenate([np.zeros(k, dtype=int), 1 + idx]))),
                         shape=(k, 1 + m))
    return sp.hstack([coef_w, rest], format="csr"), -(margin / P) * (Ti @ values)


def solve_cutting_plane(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                        tol=1e-8, max_iter=100, method="highs",
                        purge_after=3, stability=0.5, **_):
    """Solve Eq. (4) exactly by cutting planes over ``(w, b, xi)``; see the module docstring.

    ``tol`` is the stopping gap between ``F`` at the cut LP's solution and the cut LP's value,
    relative to ``max(F, 1e-3)``. The first round's cuts are the vertices for ``w = 0`` (no
    deletion, ``tau = 1``). A cut slack at the LP optimum for ``purge_after`` consecutive rounds
    is dropped (its dual is zero, so the bound is unchanged; waiting a few rounds avoids
    re-adding it at once); this keeps the LP near the size of its basis. Cuts are separated at
    ``stability * (LP solution) + (1 - stability) * (best point)`` when they cut off the LP
    solution (in-out separation), else at the LP solution itself. Plain Kelley cuts converge
    slowly when n >> m (e.g. 50 MNIST rows, 784 pixels): use the full LP there.
    """
    m, n = X.shape
    P = float(np.sum(values)) - budget
    c = np.concatenate([np.zeros(n + 1), np.full(m, 1.0 / (m * margin))])
    bounds = [(-weight_bound, weight_bound)] * n
    bounds += [(None, None) if fit_intercept else (0.0, 0.0)] + [(0.0, None)] * m
    tau = np.ones((m, n))
    A, r = _cut_rows(X, y, tau, np.arange(m), values, margin, P)
    age = np.zeros(m, dtype=int)
    # the point with the lowest exact objective so far (upper bound; the stability centre)
    best = (np.zeros(n), 0.0, _objective(X, y, np.zeros(n), 0.0, values, budget, margin)[0])
    lower, prev_lower = 0.0, -np.inf
    converged = False
    rounds = 0
    while rounds < max_iter:
        rounds += 1
        res = linprog(c, A_ub=A, b_ub=r, bounds=bounds, method=method)
        z = _check_linprog(res, "cutting-plane LP")
        w, b, xi_lp = z[:n], float(z[n]), z[n + 1:]
        lower = max(lower, float(res.fun))
        obj, xi, tau = _objective(X, y, w, b, values, budget, margin)
        if obj < best[2]:
            best = (w.copy(), b, obj)
        if best[2] - lower <= tol * max(best[2], 1e-3):
            converged = True
            break
        # In-out separation: look for cuts at a point between the LP solution and the best
        # point, which damps the zig-zag of plain Kelley cuts when n >> m; fall back to the
        # LP solution's own most violated vertices when those cuts do not cut it off.
        ws = stability * w + (1 - stability) * best[0]
        bs = stability * b + (1 - stability) * best[1]
        obj_s, _, tau_s = _objective(X, y, ws, bs, values, budget, margin)
        if obj_s < best[2]:
            best = (ws, bs, obj_s)
        g = _gains(X, y, w, values, margin, P)
        violated = np.flatnonzero(y * b + (tau_s * g).sum(axis=1) + xi_lp < -tol * margin)
        if violated.size:
            tau = tau_s
        else:
            violated = np.flatnonzero(xi - xi_lp > tol * margin)
        if violated.size == 0:
            converged = True
            break
        # Cuts that are slack at the LP optimum have zero duals: dropping them keeps the same
        # optimum and bound, so the LP stays about as small as its basis. Purging only while the
        # bound strictly rises rules out cycling (e.g. when the optimum is 0 and the LP's
        # solution set is large).
        age = np.where(res.slack <= 1e-9 * margin * (1.0 + np.abs(r)), 0, age + 1)
        rising = float(res.fun) > prev_lower + 1e-12 * max(1.0, abs(prev_lower))
        keep = (age < purge_after) | (not rising)
        prev_lower = float(res.fun)
        A_new, r_new = _cut_rows(X, y, tau, violated, values, margin, P)
        A = sp.vstack([A[keep], A_new], format="csr")
        r = np.concatenate([r[keep], r_new])
        age = np.concatenate([age[keep], np.zeros(violated.size, dtype=int)])
    w, b, obj = best
    return DeletionLPResult(w, b, obj, lower, rounds, converged)


def solve_subgradient(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                      max_iter=50, batch_size=32, step=0.3, random_state=None, **_):
    """Projected stochastic subgradient descent with AdaGrad steps and suffix averaging on ``F``.

    A subgradient of ``xi_i`` in ``w`` is ``-y_i tau_ij x_ij`` at the worst-case vertex ``tau_i``
    (Danskin), and ``-y_i`` in ``b``, when ``xi_i > 0``. Each coordinate moves by
    ``step * C * g_j / sqrt(sum of its squared past g_j)`` (AdaGrad: spambase's columns differ
    wildly in scale and sparsity, and a single step size left a ~15 % gap to the optimum where
    AdaGrad gets within ~0.2 %), then ``w`` is clipped to the box. The returned point is the
    average of the iterates over the second half of the run. ``max_iter`` counts epochs.
    """
    rng = np.random.default_rng(random_state)
    m, n = X.shape
    P = float(np.sum(values)) - budget
    w, b = np.zeros(n), 0.0
    G, Gb = np.full(n, 1e-12), 1e-12
    w_avg, b_avg, n_avg = np.zeros(n), 0.0, 0
    for epoch in range(max_iter):
        order = rng.permutation(m)
        for s in range(0, m, batch_size):
            idx = order[s:s + batch_size]
            Xb, yb = X[idx], y[idx]
            g = _gains(Xb, yb, w, values, margin, P)
            ks = knapsack_deletion(g, values, budget)
            active = yb * b + g.sum(axis=1) - ks.relaxed_gain < 0
            if active.any():
                coeff = (1.0 - ks.fractions[active]) * yb[active][:, None]
                xa = Xb[active]
                xa = xa.multiply(coeff).toarray() if sp.issparse(xa) else xa * coeff
                gw = -np.asarray(xa.sum(axis=0)).ravel() / idx.size
                G += gw * gw
                w = np.clip(w - step * weight_bound * gw / np.sqrt(G), -weight_bound,
                            weight_bound)
                if fit_intercept:
                    gb = -yb[active].sum() / idx.size
                    Gb += gb * gb
                    b -= step * weight_bound * gb / np.sqrt(Gb)
            if epoch >= max_iter // 2:
                n_avg += 1
                w_avg += (w - w_avg) / n_avg
                b_avg += (b - b_avg) / n_avg
    obj = _objective(X, y, w_avg, b_avg, values, budget, margin)[0]
    return DeletionLPResult(w_avg, float(b_avg), obj, float("nan"), max_iter, True)


SOLVERS = {"cutting_plane": solve_cutting_plane, "lp": solve_full_lp,
           "subgradient": solve_subgradient}
