"""Solvers of Dekel & Shamir's deletion-robust LP (ICML 2008, Eq. 4) for one binary problem.

All solvers minimise the same objective over ``(w, b)`` with ``||w||_inf <= C`` (``b`` free)::

    F(w, b) = (1 / (S gamma)) sum_i s_i xi_i(w, b),      S = sum_i s_i,
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
  (a lower bound) meets ``F`` at its solution (an upper bound), so its optimum is Eq. (4)'s. The
  cut LP lives in one HiGHS object across rounds (warm-started dual simplex), its first cuts come
  from a few subgradient epochs, and examples whose cuts keep changing can be switched to Eq.
  (4)'s own rows (:func:`_exact_rows`).
* :func:`solve_subgradient` runs restarted, averaged projected stochastic subgradient descent
  (AdaGrad steps) on ``F``; :class:`SubgradientStream` makes the same steps on a stream of
  batches (``partial_fit``), without the restarts.
* :func:`choose_solver` is ``solver="auto"``: the cutting planes for small problems (the full
  LP when they are small but wide), the first-order method for large ones.

with row weights ``s_i`` (``sample_weight``; all one, ``S = m``, when it is ``None``: Eq. (4)
as printed). A row of integer weight k costs what k copies of it cost, so the weighted problem
is Eq. (4) on the repeated rows (same optimum, same objective value); the weights enter only
the slack costs ``s_i / (S gamma)`` of the LPs, the step of the subgradient method and the dual
bounds. Rows of weight zero must be removed by the caller (the estimator does).

Every solver takes ``y`` in {-1, +1} and returns a :class:`DeletionLPResult`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from .._compat import persistent_highs
from .._validation import check_option
from .._worst_case import csr_knapsack_deletion, knapsack_deletion

__all__ = ["DeletionLPResult", "robust_hinge", "solve_full_lp", "solve_cutting_plane",
           "solve_subgradient", "SubgradientStream", "choose_solver", "SOLVERS"]

_LP_FEASIBILITY_TOL = 1e-7  # HiGHS's default primal and dual feasibility tolerances

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
        Whether the certified relative gap ``(objective - lower_bound) / max(objective, 1e-3)``
        reached the solver's ``tol`` (the full LP: HiGHS's status "optimal").
    slack : ndarray of shape (n_samples,) or None
        The LP's own ``xi`` (full LP only), to check it against :func:`robust_hinge`.
    reason : str or None
        Why the solver stopped short of optimality (``None`` when converged).
    """

    coef: np.ndarray
    intercept: float
    objective: float
    lower_bound: float
    n_iter: int
    converged: bool
    slack: np.ndarray | None = None
    reason: str | None = None

    @property
    def gap(self) -> float:
        """The certified relative gap ``(objective - lower_bound) / max(objective, 1e-3)``."""
        return relative_gap(self.objective, self.lower_bound)


def relative_gap(upper: float, lower: float) -> float:
    """``(upper - lower) / max(upper, 1e-3)``, the measure every solver here stops on (>= 0);
    ``inf`` without a lower bound. The floor 1e-3 keeps it finite when the optimum is 0."""
    if not np.isfinite(lower):
        return float("inf")
    return max(upper - lower, 0.0) / max(upper, 1e-3)


def _gains(X, y, w, values, margin, P):
    """``g_ij = y_i w_j x_ij - gamma v_j / P`` for every row of a dense ``X`` ((m, n) array)."""
    return y[:, None] * (X * w[None, :]) - (margin / P) * values[None, :]


def _csr_gains(X, data):
    """A CSR matrix with ``X``'s sparsity pattern and the stored entries ``data``."""
    return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)


def _worst_case(X, y, w, b, values, budget, margin):
    """``theta_i`` of Eq. (7) at ``(w, b)`` and the adversary's fractional deletion ``delta``.

    ``delta`` is a dense (m, n) array for a dense ``X`` (the shared
    :func:`~robustclf._worst_case.knapsack_deletion`) and a CSR matrix with ``X``'s pattern for
    a sparse ``X`` (:func:`~robustclf._worst_case.csr_knapsack_deletion` on the stored entries:
    a zero entry's gain ``-gamma v_j / P`` is never taken): a sparse ``X`` is never densified.
    """
    P = float(np.sum(values)) - budget
    if sp.issparse(X):
        row = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        gains = y[row] * X.data * w[X.indices] - (margin / P) * values[X.indices]
        relaxed, delta = csr_knapsack_deletion(_csr_gains(X, gains), values, budget)
        total = y * np.asarray(X @ w).ravel() - (margin / P) * float(np.sum(values))
    else:
        g = _gains(X, y, w, values, margin, P)
        ks = knapsack_deletion(g, values, budget)
        relaxed, delta, total = ks.relaxed_gain, ks.fractions, g.sum(axis=1)
    return y * b + total - relaxed, delta


def _kept_products(X, y, delta, idx=None):
    """Rows ``y_i (1 - delta_i) * x_i`` (CSR for sparse ``X``, else dense) of the rows ``idx``."""
    Xi, Di, yi = (X, delta, y) if idx is None else (X[idx], delta[idx], y[idx])
    if sp.issparse(Xi):
        Xi, Di = sp.csr_matrix(Xi), sp.csr_matrix(Di)
        rows = np.repeat(np.arange(Xi.shape[0]), np.diff(Xi.indptr))
        return sp.csr_matrix((yi[rows] * Xi.data * (1.0 - Di.data), Xi.indices, Xi.indptr),
                             shape=Xi.shape)
    return yi[:, None] * Xi * (1.0 - Di)


def robust_hinge(X, y, w, b, values, budget, margin):
    """Slack ``xi_i`` of Eq. (4) at ``(w, b)`` for every row, and the worst-case vertices.

    Returns
    -------
    xi : ndarray of shape (n_samples,)
        ``max(0, -theta_i)`` with ``theta_i`` the value of Eq. (7): the robust hinge loss.
    tau : ndarray or sparse matrix of shape (n_samples, n_features)
        A minimiser of Eq. (7) per row (a vertex of T: at most one fractional entry); for a
        sparse ``X`` the CSR matrix ``1 - tau`` on ``X``'s pattern is what is computed, and
        ``tau`` is returned densified only here (tests; the solvers use :func:`_worst_case`).
    """
    theta, delta = _worst_case(X, y, w, b, values, budget, margin)
    tau = 1.0 - (delta.toarray() if sp.issparse(delta) else delta)
    return np.maximum(0.0, -theta), tau


def _objective(X, y, w, b, values, budget, margin, sample_weight=None):
    """``F(w, b)``, the slacks ``xi`` and the deletion ``delta`` (see :func:`_worst_case`);
    with ``sample_weight`` F is the weighted mean ``sum_i s_i xi_i / (S gamma)``."""
    theta, delta = _worst_case(X, y, w, b, values, budget, margin)
    xi = np.maximum(0.0, -theta)
    if sample_weight is None:
        return xi.sum() / (X.shape[0] * margin), xi, delta
    return (sample_weight @ xi) / (sample_weight.sum() * margin), xi, delta


def _slack_costs(m, margin, sample_weight):
    """The LP cost ``m s_i / (S gamma)`` of every slack ``xi_i`` (``1 / gamma`` unweighted).

    That is ``m F``, not ``F``: HiGHS's optimality tolerances are absolute (1e-7 on reduced
    costs), and with costs ``1 / (m gamma)`` they were relative errors of 1e-7 m on the LP's
    value, not far from the optimum itself on a few hundred rows: "optimal" cut LPs of the same
    Eq. (4) (THRESHOLD + outliers, 120 x 215) then ended 1e-3 apart, relative. The LP solvers
    divide the LP's value by m.
    """
    if sample_weight is None:
        return np.full(m, 1.0 / margin)
    return m * sample_weight / (sample_weight.sum() * margin)


def dual_bound(X, y, alpha, kept_sum, kept_value, values, budget, margin, weight_bound,
               fit_intercept=True, total_weight=None):
    """A certified lower bound on Eq. (4)'s optimum from any dual point ``(alpha, u)``.

    Writing each slack as ``xi_i = max_{alpha_i in [0, 1], u_i in alpha_i T} gamma u_i.v / P -
    alpha_i y_i b - sum_j u_ij y_i x_ij w_j`` (Eq. 7 with the hinge's ``max(0, .)``), weak
    duality gives, for every such point with ``sum_i alpha_i y_i = 0`` (needed for the free
    bias; not with ``fit_intercept=False``)::

        F(w, b) >= (1 / (m gamma)) [gamma / P sum_i u_i.v - C ||sum_i y_i u_i * x_i||_1]

    (the minimum over ``||w||_inf <= C`` of the linear term). The caller passes the sums per
    class: ``alpha`` = (sum of alpha_i over y = +1, over y = -1), ``kept_sum`` = (sum of
    ``u_i * x_i`` over y = +1, over y = -1) as two n-vectors, ``kept_value`` = (sum of
    ``u_i.v`` over each class). With an intercept, the class with the larger ``sum alpha`` is
    scaled down to balance them (``alpha_i``, ``u_i`` scaled together stay feasible).

    With row weights the objective is ``(1 / (S gamma)) sum_i s_i xi_i`` and the same argument
    holds with every term of row i multiplied by ``s_i``: the caller passes the weighted sums
    (``sum s_i alpha_i``, ...) and ``total_weight = S``, which replaces m.
    """
    m = X.shape[0] if total_weight is None else total_weight
    P = float(np.sum(values)) - budget
    a_pos, a_neg = alpha
    rho_pos = rho_neg = 1.0
    if fit_intercept:
        rho_pos = min(1.0, a_neg / a_pos) if a_pos > 0 else 0.0
        rho_neg = min(1.0, a_pos / a_neg) if a_neg > 0 else 0.0
    G = rho_pos * kept_sum[0] - rho_neg * kept_sum[1]
    value = (margin / P) * (rho_pos * kept_value[0] + rho_neg * kept_value[1])
    return (value - weight_bound * float(np.abs(G).sum())) / (m * margin)


def _dual_terms(X, y, delta, active, values):
    """Per-class sums of ``alpha_i``, ``u_i * x_i`` and ``u_i.v`` for ``alpha = active`` and
    ``u_i = alpha_i (1 - delta_i)`` (the terms of :func:`dual_bound`); a weighted ``active``
    (``s_i alpha_i``) gives the weighted sums."""
    V = float(np.sum(values))
    kept = _kept_products(X, np.ones(X.shape[0]), delta)
    dv = (delta @ values) if not sp.issparse(delta) else np.asarray(delta @ values).ravel()
    out = []
    for cls in (y > 0, y < 0):
        a = active * cls
        s = kept.T @ a
        out.append((float(a.sum()), np.asarray(s).ravel(), float(a @ (V - dv))))
    return tuple(zip(*out, strict=True))


def _weight_bounds(X, weight_bound):
    """Lower and upper bounds ``(2, n)`` of ``w``: the box, but 0 for unseen features.

    A feature that is 0 in every training row appears in no constraint of Eq. (4), so any
    ``w_j`` in the box is optimal, and HiGHS returns a bound (``-C`` on digits' blank border
    pixels), which then decides test rows where the pixel is not blank. Such weights are fixed
    at 0 (the choice that changes no training margin and none of an unseen feature's test
    rows). The subgradient method leaves them at 0 by itself (their subgradients are 0).
    """
    seen = (np.asarray(abs(X).sum(axis=0)).ravel() > 0) if sp.issparse(X) \
        else np.any(X != 0, axis=0)
    bound = np.where(seen, weight_bound, 0.0)
    return np.vstack([-bound, bound])


def _check_linprog(res, what: str):
    """The solution of a ``linprog`` (HiGHS) result and why it is not optimal (``None`` if it is).

    Eq. (4) and the cut LPs are always feasible (``w = 0, b = 0`` with large ``xi``) and bounded
    (the objective is >= 0), so "infeasible" or "unbounded" can only come from numerical
    trouble: ``RuntimeError``. A time or iteration limit, or a non-optimal status that still
    returns a point, gives that point and the reason (the caller warns).
    """
    if res.status == 0:
        return res.x, None
    reason = _LINPROG_STATUS.get(res.status, f"status {res.status}")
    if res.status in (2, 3):
        raise RuntimeError(
            f"HiGHS reports the {what} {reason} ({res.message}), but it is always feasible and "
            "bounded: numerical trouble. Scale the data (e.g. MinMaxScaler) or change solver.")
    if res.x is None:
        raise RuntimeError(f"HiGHS stopped on the {what} without a solution ({reason}: "
                           f"{res.message}). Increase time_limit, or use solver='cutting_plane'.")
    return res.x, f"HiGHS stopped on the {what} ({reason}: {res.message})"


def full_lp_model(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                  sample_weight=None):
    """Eq. (4) as ``min c.z  s.t.  A z <= rhs,  bounds``, for :func:`solve_full_lp`.

    Variables are ordered ``[w (n), b, xi (m), lambda (m), alpha (m n)]``; returns ``(c, A,
    rhs, bounds)`` with ``A`` in CSR and ``bounds`` an (n_variables, 2) array.
    """
    X = sp.csr_matrix(X)
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
    c[o_xi:o_xi + m] = _slack_costs(m, margin, sample_weight)
    bounds = np.zeros((n_var, 2))
    bounds[:, 1] = np.inf
    bounds[:n] = _weight_bounds(X, weight_bound).T
    bounds[o_b] = (-np.inf, np.inf) if fit_intercept else (0.0, 0.0)
    return c, A, rhs, bounds


def solve_full_lp(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                  time_limit=None, sample_weight=None, **_):
    """Solve Eq. (4) as printed, with its O(mn) variables, by HiGHS.

    Variables are ordered ``[w (n), b, xi (m), lambda (m), alpha (m n)]``. Rows: the m constraints
    ``-P lambda_i + sum_j alpha_ij - y_i b - xi_i <= 0`` and the mn constraints
    ``-y_i x_ij w_j + v_j lambda_i - alpha_ij <= -gamma v_j / P``.

    HiGHS runs its interior point method (with crossover to a vertex). Its default choice, the
    dual simplex, is slower on every data set measured (1,000 rows or fewer: spambase 3.4-4.1 s
    against 1.9-2.0 s, digits 11-25 s against 13 s, THRESHOLD 13-21 s against 2.0-4.6 s) and
    stalls on degenerate optima: THRESHOLD with 20 % training outliers (360 x 215, budget 4)
    was not solved in 300 s, against 33 s.

    ``time_limit`` (seconds) is passed to HiGHS. HiGHS checks it in presolve and in the
    interior point, but hands the interior point the time *left after presolve*, and a
    non-positive time left means no limit to it: a limit shorter than presolve itself (e.g.
    1e-3 s) is not enforced. When HiGHS stops on it, on its iteration limit
    or with another non-optimal status but a point, that point is returned with
    ``converged=False``, its ``reason`` and no certified lower bound (``nan``). HiGHS's simplex
    and interior point usually have no point when they stop on a limit (spambase, 1,500 rows,
    0.5 s and 3 s): then the always feasible ``w = 0, b = 0`` is returned the same way (the
    estimator warns; the model is constant). Infeasible or unbounded (numerical trouble: the LP
    is always feasible and bounded) raise ``RuntimeError`` (:func:`_check_linprog`).
    """
    X = sp.csr_matrix(X) if not sp.issparse(X) else X.tocsr()
    m, n = X.shape
    o_b, o_xi = n, n + 1
    c, A, rhs, bounds = full_lp_model(X, y, values, budget, margin, weight_bound,
                                      fit_intercept=fit_intercept, sample_weight=sample_weight)
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    res = linprog(c, A_ub=A, b_ub=rhs, bounds=bounds, method="highs-ipm", options=options)
    if res.status == 1 and res.x is None:
        # stopped on the limit before any point: fall back on the feasible w = 0, b = 0
        w, b = np.zeros(n), 0.0
        obj = _objective(X, y, w, b, values, budget, margin, sample_weight)[0]
        reason = (f"HiGHS reached its time or iteration limit on the full LP of Eq. (4) before "
                  f"finding a point (time_limit={time_limit}); the model is w = 0, b = 0. "
                  "Increase time_limit, or use solver='cutting_plane'")
        return DeletionLPResult(w, b, obj, float("nan"), int(getattr(res, "nit", 0)), False,
                                None, reason)
    x, reason = _check_linprog(res, "full LP of Eq. (4)")
    w, b = x[:n].copy(), float(x[o_b])
    obj = _objective(X, y, w, b, values, budget, margin, sample_weight)[0]
    lower = float(res.fun) / m if reason is None else float("nan")  # (costs: m F)
    return DeletionLPResult(w, b, obj, lower, int(getattr(res, "nit", 0)), reason is None,
                            x[o_xi:o_xi + m].copy(), reason)


def _cut_rows(X, y, delta, idx, values, margin, P):
    """Cuts ``y_i b + sum_j tau_j y_i x_ij w_j + xi_i >= gamma tau.v / P`` as ``A z >= r`` rows,
    for the rows ``idx`` with ``tau = 1 - delta`` (dense, or CSR on a sparse ``X``'s pattern)."""
    coef_w = sp.csr_matrix(_kept_products(X, y, delta, idx))
    k = idx.size
    m = X.shape[0]
    rest = sp.csr_matrix((np.concatenate([y[idx].astype(float), np.ones(k)]),
                          (np.concatenate([np.arange(k), np.arange(k)]),
                           np.concatenate([np.zeros(k, dtype=int), 1 + idx]))),
                         shape=(k, 1 + m))
    kept_value = float(np.sum(values)) - np.asarray(delta[idx] @ values).ravel()
    return sp.hstack([coef_w, rest], format="csr"), (margin / P) * kept_value


def _cut_value(X, y, w, b, delta, values, margin, P):
    """``y_i b + sum_j tau_ij g_ij(w)`` of every row's cut (``tau = 1 - delta``) at ``(w, b)``."""
    total = y * np.asarray(X @ w).ravel() - (margin / P) * float(np.sum(values))
    if sp.issparse(delta):
        rows = np.repeat(np.arange(X.shape[0]), np.diff(delta.indptr))
        g = y[rows] * X.data * w[X.indices] - (margin / P) * values[X.indices]
        taken = np.bincount(rows, weights=delta.data * g, minlength=X.shape[0])
    else:
        taken = (delta * _gains(X, y, w, values, margin, P)).sum(axis=1)
    return y * b + total - taken


def _exact_rows(X, y, idx, values, margin, P, n_col):
    """Eq. (4)'s own constraints for the rows ``idx``, with new columns ``lambda_i, alpha_ij``.

    Only the ``alpha_ij`` of non-zero ``x_ij`` are kept: when ``x_ij = 0`` the smallest feasible
    ``alpha_ij`` is ``v_j (lambda_i + gamma / P)``, so their sum over the zero features is
    ``(lambda_i + gamma / P) V0_i`` and they can be eliminated exactly. The rows, as
    ``A z >= r`` over ``[w, b, xi, (previous new columns), lambda_idx, alpha]``, are::

        y_i b + (P - V0_i) lambda_i - sum_{j: x_ij != 0} alpha_ij + xi_i >= gamma V0_i / P
        y_i x_ij w_j - v_j lambda_i + alpha_ij >= gamma v_j / P        (x_ij != 0)

    Returns ``(A, r, number of new columns)``; the new columns start at ``n_col``.
    """
    m, n = X.shape
    Xi = sp.csr_matrix(X[idx])
    Xi.eliminate_zeros()
    k, nnz = idx.size, Xi.nnz
    counts = np.diff(Xi.indptr)
    owner = np.repeat(np.arange(k), counts)  # which promoted row each non-zero belongs to
    col_lam = n_col + np.arange(k)
    col_alpha = n_col + k + np.arange(nnz)
    v0 = values.sum() - np.bincount(owner, weights=values[Xi.indices], minlength=k)
    # first block: one row per promoted example
    r1 = np.concatenate([np.arange(k), np.arange(k), owner, np.arange(k)])
    c1 = np.concatenate([np.full(k, n), col_lam, col_alpha, n + 1 + idx])
    d1 = np.concatenate([y[idx].astype(float), P - v0, -np.ones(nnz), np.ones(k)])
    # second block: one row per non-zero (i, j)
    e = np.arange(nnz)
    r2 = k + np.concatenate([e, e, e])
    c2 = np.concatenate([Xi.indices, col_lam[owner], col_alpha])
    d2 = np.concatenate([y[idx][owner] * Xi.data, -values[Xi.indices], np.ones(nnz)])
    A = sp.csr_matrix((np.concatenate([d1, d2]), (np.concatenate([r1, r2]),
                                                  np.concatenate([c1, c2]))),
                      shape=(k + nnz, n_col + k + nnz))
    A.eliminate_zeros()
    r = np.concatenate([(margin / P) * v0, (margin / P) * values[Xi.indices]])
    return A, r, k + nnz


class _HighsMaster:
    """The cut LP ``min c.z  s.t.  lo <= z <= hi,  A z >= r`` kept alive in one HiGHS object.

    The first solve runs HiGHS's interior-point method with crossover (much faster than simplex
    from scratch on the m initial cuts); later solves start from the previous optimal basis, which
    stays dual feasible when rows are added, so the dual simplex needs few pivots.
    ``central=True`` runs every solve, the first included, by interior point without crossover
    (see :meth:`resolve_with`).
    """

    def __init__(self, cost, lower, upper, highs_class, later="simplex", *, central=False):
        self._later = later
        self._h = h = highs_class()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        h.setOptionValue("solver", "ipm")
        inf = h.getInfinity()
        self._inf = inf
        empty = np.zeros(0, dtype=np.int32)
        h.addCols(cost.size, cost, np.maximum(lower, -inf), np.minimum(upper, inf), 0, empty,
                  empty, np.zeros(0))
        self._first = not central
        if central:
            self._later = "ipm"
            self._use("ipm")

    def add_rows(self, A, r):
        A = sp.csr_matrix(A)
        A.sort_indices()
        status = self._h.addRows(A.shape[0], r, np.full(A.shape[0], self._inf), A.nnz,
                                 A.indptr[:-1].astype(np.int32), A.indices.astype(np.int32),
                                 A.data)
        if status == type(status).kError:
            # HiGHS refuses (and does not add) rows with a coefficient above its
            # large_matrix_value, 1e15: the coefficients are entries of X times margin / P
            largest = float(np.abs(A.data).max(initial=0.0))
            raise ValueError(
                f"X has values too large for the cutting-plane LP: a cut coefficient of "
                f"magnitude {largest:.3g} (from the entries of X) exceeds the 1e15 that HiGHS "
                "accepts. Scale the features first (e.g. sklearn.preprocessing.StandardScaler), "
                "or use solver='subgradient'.")

    def add_cols(self, k):
        """Append ``k`` columns with zero cost and bounds ``[0, inf)``."""
        empty = np.zeros(0, dtype=np.int32)
        self._h.addCols(k, np.zeros(k), np.zeros(k), np.full(k, self._inf), 0, empty, empty,
                        np.zeros(0))

    def delete_rows(self, drop):
        idx = np.flatnonzero(drop).astype(np.int32)
        if idx.size:
            self._h.deleteRows(idx.size, idx)

    def resolve_with(self, solver):
        """Re-solve by ``solver`` (``"simplex"`` or ``"ipm"``) from the next round on.

        The interior point then runs without crossover and with presolve: its solution stays
        in the relative interior of the optimal face (a central point, not a vertex), which is
        what makes the next cuts deep when the LP's optimum is degenerate.
        """
        self._later = solver
        if not self._first:
            self._use(solver)

    def _use(self, solver):
        h = self._h
        h.setOptionValue("solver", solver)
        central = solver == "ipm"
        h.setOptionValue("run_crossover", "off" if central else "on")
        h.setOptionValue("presolve", "on" if central else "off")

    def _central_failed(self, status):
        if status == type(status).kOptimal:
            return False
        name = self._h.modelStatusToString(status).lower()
        return self._h.getOptionValue("run_crossover")[1] == "off" and "limit" not in name

    def solve(self, time_limit=None):
        """Return ``(z, value, row activities, optimal)``; stop early at ``time_limit`` seconds."""
        h = self._h
        # HiGHS compares its limit with the run time summed over every run() of the object
        limit = np.inf if time_limit is None else h.getRunTime() + time_limit
        h.setOptionValue("time_limit", float(limit))
        h.run()
        if self._first:
            self._first = False
            self._use(self._later)
        status = h.getModelStatus()
        if self._central_failed(status):
            # without crossover the interior point may end short of its tolerances ("Unknown"):
            # this LP is re-solved with crossover, which cleans the point up to a vertex
            h.setOptionValue("run_crossover", "on")
            h.run()
            h.setOptionValue("run_crossover", "off")
            status = h.getModelStatus()
        name = h.modelStatusToString(status)
        optimal = status == type(status).kOptimal
        if not optimal and "limit" not in name.lower():
            raise RuntimeError(f"HiGHS failed on the cutting-plane LP: {name}.")
        sol = h.getSolution()
        return (np.asarray(sol.col_value), float(h.getInfo().objective_function_value),
                np.asarray(sol.row_value), optimal)


class _LinprogMaster:
    """The same cut LP rebuilt and solved by ``linprog`` at every round (scipy < 1.15)."""

    def __init__(self, cost, lower, upper):
        self._c = cost
        self._bounds = np.column_stack([lower, upper])
        self._A = sp.csr_matrix((0, cost.size))
        self._r = np.zeros(0)

    def add_rows(self, A, r):
        A = sp.csr_matrix(A)
        A = sp.csr_matrix((A.data, A.indices, A.indptr), shape=(A.shape[0], self._c.size))
        self._A = sp.vstack([self._A, A], format="csr")
        self._r = np.concatenate([self._r, r])

    def add_cols(self, k):
        self._c = np.concatenate([self._c, np.zeros(k)])
        self._bounds = np.vstack([self._bounds, np.column_stack([np.zeros(k),
                                                                 np.full(k, np.inf)])])
        self._A = sp.csr_matrix((self._A.data, self._A.indices, self._A.indptr),
                                shape=(self._A.shape[0], self._c.size))

    def delete_rows(self, drop):
        self._A, self._r = self._A[~drop], self._r[~drop]

    def resolve_with(self, solver):
        """``linprog`` picks its own HiGHS method each round: nothing to switch."""

    def solve(self, time_limit=None):
        options = {} if time_limit is None else {"time_limit": float(time_limit)}
        res = linprog(self._c, A_ub=-self._A, b_ub=-self._r, bounds=self._bounds, method="highs",
                      options=options)
        z, reason = _check_linprog(res, "cutting-plane LP")
        return z, float(res.fun), self._A @ z, reason is None


def cuts_or_exact_rows(X, y, delta, violated, n_cuts, promoted, promote_after, values, margin,
                       P, n_col):
    """The rows a cutting-plane round adds for its ``violated`` examples.

    An example with fewer than ``promote_after`` cuts gets one more: the cut of its worst-case
    vertex ``delta`` (:func:`_cut_rows`). One with ``promote_after`` cuts already is promoted to
    Eq. (4)'s own rows (:func:`_exact_rows`, with new columns from ``n_col`` on), which make its
    slack exact, so it is never separated again. Updates ``n_cuts`` and ``promoted`` in place.

    Returns ``[(A, rhs, is_cut), ...]`` (rows over the columns after the new ones) and the
    number of new columns.
    """
    promote = violated[n_cuts[violated] >= promote_after]
    violated = violated[n_cuts[violated] < promote_after]
    n_cuts[violated] += 1
    rows = [(*_cut_rows(X, y, delta, violated, values, margin, P), True)]
    if promote.size == 0:
        return rows, 0
    promoted[promote] = True
    A_ex, r_ex, k_new = _exact_rows(X, y, promote, values, margin, P, n_col)
    return rows + [(A_ex, r_ex, False)], k_new


def solve_cutting_plane(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                        tol=1e-8, max_iter=100, warm_start=3, purge_after=3, stability=0.5,
                        promote_after=None, time_limit=None, random_state=None, backend="auto",
                        resolve="auto", stall_after=2, sample_weight=None, **_):
    """Solve Eq. (4) exactly by cutting planes over ``(w, b, xi)``; see the module docstring.

    Stopping (a certified optimality gap): the cut LP is a relaxation of Eq. (4), so its optimal
    value is a lower bound on the optimum, and ``F`` at the best point found an upper bound; the
    solver stops when ``(F - bound) / max(F, 1e-3) <= tol`` (:func:`relative_gap`), or when no
    example's exact slack exceeds its LP slack by more than ``max(tol, 1e-7) gamma`` (then the
    gap is at most ``max(tol, 1e-7)`` absolute: below that, cuts would be lost in HiGHS's
    feasibility tolerance). The bound is as accurate as HiGHS's optimality tolerances (1e-7).
    The result's ``lower_bound`` and ``gap`` report it; ``max_iter`` or ``time_limit`` return
    the best point with ``converged=False`` and the gap reached.

    * **Persistent LP** (``backend="highs"``, the default when scipy bundles HiGHS's solver
      object): one HiGHS model lives across rounds; new cuts are appended as rows and the LP is
      re-solved by dual simplex from the previous basis (first solve: interior point with
      crossover; ``resolve="ipm"`` uses the interior point at every round, without warm
      start; ``resolve="auto"``, the default, re-solves by dual simplex until the bound stalls,
      see below). ``backend="linprog"`` rebuilds the LP with ``linprog`` every round instead
      (same iterates, several times slower on large m).
    * **Warm start**: ``warm_start`` epochs of :func:`solve_subgradient` give a point near the
      optimum; the first cuts are the worst-case vertices of every example at that point (with
      ``warm_start=0``: the vertices at ``w = 0``, i.e. nothing deleted). Any vertices give valid
      cuts, so this changes the number of rounds, never the optimum.
    * **Purging**: a cut slack at the LP optimum for ``purge_after`` consecutive rounds is
      dropped (its dual is zero, so the bound is unchanged); only while the bound strictly rises,
      which rules out cycling (e.g. when the optimum is 0).
    * **In-out separation**: cuts are separated at ``stability * (LP solution) + (1 -
      stability) * (best point)`` when they cut off the LP solution, else at the LP solution
      itself; this damps the zig-zag of plain Kelley cuts when n >> m.
    * **Promotion** (``promote_after`` cuts; default 3 when n > m, else never): an example still
      violated after that many of its cuts gets Eq. (4)'s own constraints instead (its
      ``lambda_i`` and the ``alpha_ij`` of its non-zero features, :func:`_exact_rows`), which
      make its ``xi_i`` exact, so it is never separated again. Kelley cuts alone can stall when
      n >> m (the knapsack vertices keep changing); with promotion every example is eventually
      exact and the LP is Eq. (4) with O(nnz) variables, so the method terminates. On spambase
      (n << m) promotion only slowed the solve, hence the default.
    * **Stalls**: when the cut LP's value has not risen for ``stall_after`` rounds while the gap
      is open, the solver re-solves by interior point from then on (with ``resolve="auto"``),
      *without crossover* and with presolve, and promotes examples after 3 cuts (with
      ``promote_after=None``). This is the case of an optimum at or near 0 (separable or
      nearly separable data, e.g. THRESHOLD, 300 x 215): the bound stays 0 and every cut LP is
      degenerate, with a large optimal face. A vertex of that face (dual simplex, or interior
      point with crossover) gives shallow cuts: the dual simplex returned vertex after vertex
      at which the exact objective stayed at 0.03-0.19, and once took 198 s on one 2,481-row
      cut LP. The interior point's central solution (the relative interior of the face) gives
      deep ones. Measured (THRESHOLD, three draws x budgets 1, 2, 4, estimator defaults):
      clean, 0.0-0.3 s per fit (with crossover: 0.0-9.9 s); with 20 % training outliers (360
      x 215, the benchmark's contamination), 2.3-88 s, all certified (with crossover: 37-120
      s, one not converged at 120 s). The benchmark's cell (split 1, budget 4), five warm
      starts: all certified, objectives within 4e-11 of each other, 50-135 s beside another
      job (with crossover: 1 of 5 within 150 s; more than 25 minutes without a limit). There
      promotion turns the master into most of Eq. (4) (34,000-42,000 rows) and each
      re-solve costs about one solve of the full LP (17-42 s). An interior point without
      crossover may end short of its tolerances (HiGHS status "Unknown"): that LP is
      re-solved with crossover. When the optimum is not unique (F* = 0), the point returned
      is then such a central solution, not a vertex, and it predicts differently: on
      THRESHOLD split 0 under random deletion of 25 / 50 / 75 % of the features (the full
      benchmark), test error 0.041 / 0.142 / 0.443 against 0.102 / 0.409 / 0.455, and on
      other cells the other way round. The estimator therefore follows a zero optimum by
      ``_deletion_lp_ties.min_l1_optimum`` (its ``tie_break``). While the
      bound rises (spambase, digits) nothing changes: there the dual simplex's warm start is
      2-3 times faster than the interior point.

    The LP's costs are ``m F`` (:func:`_slack_costs`), so that HiGHS's absolute tolerances
    are relative ones; its value is accurate to HiGHS's tolerances (1e-7 absolute on ``m F``,
    less after an interior point without crossover: ``lower_bound`` is capped at the
    objective).

    ``time_limit`` (seconds, passed to HiGHS) stops early with ``converged=False``; the result
    then carries the best point and the last certified lower bound (the value of the last cut LP
    solved to optimality).
    """
    start = time.perf_counter()
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sort_indices()
    m, n = X.shape
    P = float(np.sum(values)) - budget
    c = np.concatenate([np.zeros(n + 1), _slack_costs(m, margin, sample_weight)])
    box = _weight_bounds(X, weight_bound)
    lo = np.concatenate([box[0], [-np.inf if fit_intercept else 0.0], np.zeros(m)])
    hi = np.concatenate([box[1], [np.inf if fit_intercept else 0.0], np.full(m, np.inf)])
    highs_class = persistent_highs() if backend in ("auto", "highs") else None
    if backend == "highs" and highs_class is None:  # pragma: no cover - scipy < 1.15
        raise ImportError("backend='highs' needs scipy >= 1.15 (HiGHS's solver object).")
    check_option(resolve, "resolve", ("auto", "simplex", "ipm"))
    first_resolve = "simplex" if resolve == "auto" else resolve
    lp = (_HighsMaster(c, lo, hi, highs_class, first_resolve) if highs_class
          else _LinprogMaster(c, lo, hi))
    # the point with the lowest exact objective so far (upper bound; the stability centre)
    w0, b0 = np.zeros(n), 0.0
    if warm_start:
        first = solve_subgradient(X, y, values, budget, margin, weight_bound,
                                  fit_intercept=fit_intercept, max_iter=int(warm_start),
                                  tol=0.0, random_state=random_state, sample_weight=sample_weight)
        w0, b0 = first.coef, first.intercept
    obj0, _, delta = _objective(X, y, w0, b0, values, budget, margin, sample_weight)
    if obj0 <= 0.0:  # F >= 0, so F = 0 is a certified optimum: no LP to solve (separable data)
        return DeletionLPResult(w0.copy(), float(b0), 0.0, 0.0, 0, True)
    best = (w0.copy(), float(b0), obj0)
    A0, rhs = _cut_rows(X, y, delta, np.arange(m), values, margin, P)
    lp.add_rows(A0, rhs)
    age = np.zeros(m, dtype=int)
    is_cut = np.ones(m, dtype=bool)  # rows that are cuts (may be purged), not exact rows
    n_cuts = np.ones(m, dtype=int)
    promoted = np.zeros(m, dtype=bool)
    n_col = c.size
    adaptive_promotion = promote_after is None
    if promote_after is None:
        promote_after = 3 if n > m else m + max_iter + 1  # (never, unless the bound stalls)
    flat_rounds = 0
    lower, prev_lower = 0.0, -np.inf  # F >= 0: 0 is a certified bound from the start
    # A cut violated by less than HiGHS's feasibility tolerance (1e-7) may not move the LP at
    # all: such cuts are not added. When none is left, every xi_i of the LP solution is within
    # cut_tol of the exact slack, so F(w, b) <= LP value + cut_tol / gamma: the gap is certified
    # to max(tol, 1e-7) absolute, and it is what is reported and tested.
    cut_tol = max(tol, _LP_FEASIBILITY_TOL) * margin
    converged = False
    reason = None
    rounds = 0
    while rounds < max_iter:
        rounds += 1
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 0)
        z, value, activity, optimal = lp.solve(left)
        value /= m  # the LP's costs are m F (see _slack_costs)
        w, b, xi_lp = z[:n], float(z[n]), z[n + 1:n + 1 + m]
        obj, xi, delta = _objective(X, y, w, b, values, budget, margin, sample_weight)
        if obj < best[2]:
            best = (w.copy(), b, obj)
        if optimal:  # (a limit inside the LP: its value is no certified bound)
            lower = max(lower, value)
        if relative_gap(best[2], lower) <= tol:
            converged = True
            break
        if not optimal:
            reason = ("HiGHS stopped on the cut LP before its optimum (time or iteration "
                      "limit)")
            break
        ws = stability * w + (1 - stability) * best[0]
        bs = stability * b + (1 - stability) * best[1]
        obj_s, _, delta_s = _objective(X, y, ws, bs, values, budget, margin, sample_weight)
        if obj_s < best[2]:
            best = (ws, bs, obj_s)
        violated = np.flatnonzero((_cut_value(X, y, w, b, delta_s, values, margin, P) + xi_lp
                                   < -cut_tol) & ~promoted)
        if violated.size:
            delta = delta_s
        else:
            violated = np.flatnonzero((xi - xi_lp > cut_tol) & ~promoted)
        if violated.size == 0:
            # every exact slack is within cut_tol of the LP's: F(w, b) <= value + cut_tol / gamma,
            # an absolute gap of at most max(tol, 1e-7) (HiGHS's own accuracy)
            converged = True
            break
        if time_limit is not None and time.perf_counter() - start > time_limit:
            reason = f"time_limit={time_limit:g} s was reached"
            break
        # Cuts slack at the LP optimum have zero duals: dropping them keeps the same optimum and
        # bound. Purging only while the bound strictly rises rules out cycling.
        slack = activity - rhs
        # (tight within cut_tol: an interior-point solution leaves its active cuts ~1e-8 slack)
        age = np.where(slack <= cut_tol * (1.0 + np.abs(rhs)), 0, age + 1)
        # (rising beyond the LP's own accuracy: an interior-point value near 0 jitters by ~1e-13)
        rising = value > prev_lower + 1e-8 * max(1e-3, abs(prev_lower))
        prev_lower = value
        flat_rounds = 0 if rising else flat_rounds + 1
        if flat_rounds == stall_after:  # the bound stalls: central points and exact rows
            if resolve == "auto":
                lp.resolve_with("ipm")
            if adaptive_promotion:
                promote_after = min(promote_after, 3)
        drop = (age >= purge_after) & rising & is_cut
        lp.delete_rows(drop)
        rhs, age, is_cut = rhs[~drop], age[~drop], is_cut[~drop]
        new_rows, k_new = cuts_or_exact_rows(X, y, delta, violated, n_cuts, promoted,
                                             promote_after, values, margin, P, n_col)
        if k_new:
            lp.add_cols(k_new)
            n_col += k_new
        for A_new, r_new, cut in new_rows:
            lp.add_rows(A_new, r_new)
            rhs = np.concatenate([rhs, r_new])
            age = np.concatenate([age, np.zeros(r_new.size, dtype=int)])
            is_cut = np.concatenate([is_cut, np.full(r_new.size, cut)])
    if not converged and reason is None:
        reason = f"max_iter={max_iter} rounds were reached"
    w, b, obj = best
    # an interior-point LP value is accurate to HiGHS's tolerances only, and may pass F by ~1e-7
    return DeletionLPResult(w, b, obj, min(float(lower), obj), rounds, converged, reason=reason)


class _DualSums:
    """Running per-class sums of a dual point of :func:`dual_bound` over the visited rows."""

    def __init__(self, n):
        self.alpha = np.zeros(2)
        self.kept_sum = np.zeros((2, n))
        self.kept_value = np.zeros(2)

    def add(self, X, y, delta, active, values, sample_weight=None):
        if sample_weight is not None:
            active = active * sample_weight
        alpha, kept_sum, kept_value = _dual_terms(X, y, delta, active, values)
        self.alpha += alpha
        self.kept_sum += np.asarray(kept_sum)
        self.kept_value += kept_value

    def bound(self, X, values, budget, margin, weight_bound, fit_intercept, scale,
              total_weight=None):
        """:func:`dual_bound` at the sums divided by ``scale`` (the number of epochs summed)."""
        return dual_bound(X, None, self.alpha / scale, self.kept_sum / scale,
                          self.kept_value / scale, values, budget, margin, weight_bound,
                          fit_intercept, total_weight)


def _adagrad_step(Xb, yb, w, b, G, Gb, values, budget, margin, weight_bound, step,
                  fit_intercept, row_scale=None):
    """One projected stochastic subgradient step with AdaGrad scaling on the mini-batch ``Xb``.

    The subgradient of the batch's mean slack is ``-mean_i a_i y_i tau_i * x_i`` in ``w`` and
    ``-mean_i a_i y_i`` in ``b``, with ``a_i = [theta_i < 0]`` (the active rows, Eq. 7 at the
    current point) times ``row_scale_i`` (None: one); each coordinate moves by ``step * C * g_j
    / sqrt(G_j)`` with ``G`` the running sum of its squared subgradients, then ``w`` is clipped
    to the box. ``G`` is updated in place; ``Gb`` (the bias's sum, a float) is returned.

    Returns ``(w, b, Gb, active, delta)``: the new point, the batch's activity (0/1 floats) and
    its worst-case deletion (for the dual certificate of :func:`solve_subgradient`).
    """
    theta, delta = _worst_case(Xb, yb, w, b, values, budget, margin)
    active = (theta < 0).astype(float)
    if active.any():
        size = yb.shape[0]
        kept = _kept_products(Xb, np.ones(size), delta)
        ay = active * yb if row_scale is None else active * yb * row_scale
        gw = -np.asarray(kept.T @ ay).ravel() / size
        G += gw * gw
        w = np.clip(w - step * weight_bound * gw / np.sqrt(G), -weight_bound, weight_bound)
        if fit_intercept:
            gb = -ay.sum() / size
            Gb += gb * gb
            b -= step * weight_bound * gb / np.sqrt(Gb)
    return w, b, Gb, active, delta


def solve_subgradient(X, y, values, budget, margin, weight_bound, *, fit_intercept=True,
                      tol=1e-4, max_iter=50, batch_size=32, step=0.3, stage_epochs=10,
                      step_decay=0.5, random_state=None, sample_weight=None, **_):
    """Restarted projected stochastic subgradient descent with AdaGrad steps on ``F``.

    A subgradient of ``xi_i`` in ``w`` is ``-y_i tau_ij x_ij`` at the worst-case vertex ``tau_i``
    of Eq. (7) (Danskin), and ``-y_i`` in ``b``, when ``xi_i > 0``; a mini-batch of
    ``batch_size`` rows costs one sort-based knapsack (O(batch nnz log n); a sparse ``X`` stays
    sparse). Each coordinate moves by ``step * C * g_j / sqrt(sum of its squared past g_j)``
    (AdaGrad: spambase's columns differ wildly in scale and sparsity, and a single step size
    left a ~15 % gap to the optimum), then ``w`` is clipped to the box.

    The run is cut into stages of ``stage_epochs`` epochs. Each stage returns the average of its
    iterates over its second half (suffix averaging); the next stage restarts from that average
    with ``step`` multiplied by ``step_decay`` (the AdaGrad sums are kept). ``F`` is polyhedral,
    hence sharp (it grows at least linearly away from its minimisers), and for sharp objectives
    such restarts with geometrically decreasing steps converge much faster than one averaged
    run, whose error stalls at the noise level of its step (Yang & Lin, "RSG: Beating
    subgradient method without smoothness and strong convexity", JMLR 2018). On the
    spambase fold (4,140 x 57), relative gap to the optimum: ~5e-4 after 50 epochs without
    restarts; with them ~2e-4 after 30, ~1e-4 after 40, 5e-5 to 9e-5 after 50 (the default;
    four seeds), 4e-5 after 60 (``benchmarks/bench_deletion_lp.py --only first-order``). The
    schedule is per epoch, so fewer rows mean fewer steps: after 50 epochs ~2e-4 at 2,000 rows,
    ~4e-4 at 1,000, up to 7e-3 at 300 and 2 % at 100 (issue 15 rerun; more epochs do not close
    it, the step halves every stage). With
    ``max_iter <= stage_epochs`` (e.g. the cutting planes' warm start) there is a single stage.

    **Certificate.** The subgradients themselves give a dual point: the rows active in a
    mini-batch (``alpha_i = 1``) with their worst-case vertices (``u_i = tau_i``), averaged
    over the stage's suffix epochs (each row once per epoch, so ``alpha_i`` in [0, 1]), are
    feasible for the dual of :func:`dual_bound`, whose value is a certified lower bound (the
    ergodic dual of a subgradient method: its gap to the averaged iterate is at most the
    method's average regret, O(1 / sqrt(epochs))). The dual point of the averaged iterate's own
    active rows and vertices is tried too; the best bound is kept. At the end of every stage
    the solver stops if the relative gap (:func:`relative_gap`) is at most ``tol``; otherwise
    after ``max_iter`` epochs with ``converged=False``, and the gap reached. The rate makes
    small gaps expensive: on spambase the certified gap after 50 epochs is ~1e-2 while the true
    gap is ~1e-4, so for a certified optimum use the cutting planes.

    **Row weights.** Mini-batches are still drawn uniformly (every row once per epoch); a row's
    subgradient is multiplied by ``s_i m / S`` (its weight relative to the mean weight), which
    makes the mini-batch subgradient an unbiased estimate of a subgradient of the weighted
    ``F``. An integer weight k therefore solves the same problem as k copies of the row, but
    through another random sequence of iterates than a fit on the repeated rows (which draws
    its mini-batches from more rows): the two agree to the method's accuracy, not exactly. The
    certificate's dual sums are weighted by ``s_i`` and normalised by ``S`` (see
    :func:`dual_bound`), so it stays a valid lower bound.
    """
    rng = np.random.default_rng(random_state)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sort_indices()
    m, n = X.shape
    # row weights relative to their mean (unbiased mini-batch subgradients), None: all one
    scale = None if sample_weight is None else sample_weight * (m / sample_weight.sum())
    total = None if sample_weight is None else float(sample_weight.sum())
    w, b = np.zeros(n), 0.0
    G, Gb = np.full(n, 1e-12), 1e-12
    best = (w, b, np.inf)
    lower = -np.inf
    epoch = 0
    converged = False
    while epoch < max_iter:
        n_epochs = min(max(int(stage_epochs), 1), max_iter - epoch)
        w_avg, b_avg, n_avg = np.zeros(n), 0.0, 0
        sums = _DualSums(n)
        for e in range(n_epochs):
            order = rng.permutation(m)
            suffix = e >= n_epochs // 2
            for s in range(0, m, batch_size):
                idx = order[s:s + batch_size]
                Xb, yb = X[idx], y[idx]
                w, b, Gb, active, delta = _adagrad_step(
                    Xb, yb, w, b, G, Gb, values, budget, margin, weight_bound, step,
                    fit_intercept, None if scale is None else scale[idx])
                if suffix:
                    sums.add(Xb, yb, delta, active, values,
                             None if sample_weight is None else sample_weight[idx])
                    n_avg += 1
                    w_avg += (w - w_avg) / n_avg
                    b_avg += (b - b_avg) / n_avg
        epoch += n_epochs
        w, b = w_avg, b_avg  # restart from the stage's average
        step *= step_decay
        obj, xi, delta = _objective(X, y, w, b, values, budget, margin, sample_weight)
        if obj < best[2]:
            best = (w.copy(), float(b), obj)
        own = _DualSums(n)
        own.add(X, y, delta, (xi > 0).astype(float), values, sample_weight)
        lower = max(lower, sums.bound(X, values, budget, margin, weight_bound, fit_intercept,
                                      n_epochs - n_epochs // 2, total),
                    own.bound(X, values, budget, margin, weight_bound, fit_intercept, 1, total))
        if relative_gap(best[2], lower) <= tol:
            converged = True
            break
    reason = None if converged else f"max_iter={max_iter} epochs were reached"
    return DeletionLPResult(best[0], best[1], best[2], float(lower), epoch, converged,
                            reason=reason)


class SubgradientStream:
    """The steps of :func:`solve_subgradient` as an online method, for ``partial_fit``.

    Every one-vs-rest problem keeps its point ``(w, b)``, its AdaGrad sums and an average of
    its iterates; :meth:`partial_pass` takes the rows in the order given, in mini-batches of
    ``batch_size`` rows (the last one of a call may be shorter), and makes the step of
    :func:`_adagrad_step` on each. The base ``step`` is constant and the model is the
    polynomial-decay average ``wbar_t = (1 - 4 / (t + 3)) wbar_{t-1} + 4 / (t + 3) w_t`` over the
    steps t (Shamir & Zhang 2013; the suffix average of :func:`solve_subgradient` in a form that
    needs no horizon). :func:`solve_subgradient`'s restarts (every ``stage_epochs`` epochs of the
    whole training set, from the stage's average with the step halved) are not made: a stream
    has no epochs of known length. Without them the base step is smaller than the first
    stage's 0.3: relative gap to the optimum after 10 / 20 / 50 passes (spambase, 4,601 rows,
    N = 2, rows in a fixed order) 1.7e-3 / 5.9e-4 / 3.3e-4 with 0.1, 2.3e-3 / 1.6e-3 / 9.8e-4
    with 0.3, 1.6e-2 / 7e-3 / 2e-3 with 0.03 (``fit``'s restarted schedule: 7e-5 after 50
    epochs); a sparse synthetic problem (4,000 x 300) ranks the steps the same way. Nothing
    depends on how the rows are split between calls except where the mini-batches end: calls
    whose sizes are multiples of ``batch_size`` give bit for bit the model of one call on all
    their rows.

    Row weights ``s_i`` multiply the row's subgradient (scikit-learn's SGD convention; fit's
    solver divides them by their mean, which a stream does not know, and AdaGrad's steps are
    invariant to that common scale, up to the 1e-12 that starts its sums).
    """

    def __init__(self, coef, intercept, *, step=0.1, batch_size=32):
        self.coef = np.array(coef, dtype=np.float64)  # (k, n), the current points
        self.intercept = np.array(intercept, dtype=np.float64)  # (k,)
        self.coef_avg = self.coef.copy()
        self.intercept_avg = self.intercept.copy()
        self.sq_coef = np.full(self.coef.shape, 1e-12)  # AdaGrad sums, as solve_subgradient
        self.sq_intercept = np.full(self.intercept.shape, 1e-12)
        self.step = float(step)
        self.batch_size = int(batch_size)
        self.n_steps = 0

    def partial_pass(self, X, Y, values, budget, margin, weight_bound, fit_intercept,
                     sample_weight=None):
        """One pass over the rows of ``X`` (in order) for every column of ``Y`` (±1, (m, k))."""
        if sp.issparse(X) and not X.has_sorted_indices:  # ties broken by column, as dense
            X = sp.csr_matrix(X, copy=True)
            X.sort_indices()
        m = X.shape[0]
        for start in range(0, m, self.batch_size):
            Xb = X[start:start + self.batch_size]
            scale = None if sample_weight is None else sample_weight[start:start + Xb.shape[0]]
            self.n_steps += 1
            rho = 4.0 / (self.n_steps + 3.0)
            for k in range(self.coef.shape[0]):
                w, b, Gb, _, _ = _adagrad_step(
                    Xb, Y[start:start + Xb.shape[0], k], self.coef[k], self.intercept[k],
                    self.sq_coef[k], self.sq_intercept[k], values, budget, margin,
                    weight_bound, self.step, fit_intercept, scale)
                self.coef[k], self.intercept[k], self.sq_intercept[k] = w, b, Gb
            self.coef_avg += rho * (self.coef - self.coef_avg)
            self.intercept_avg += rho * (self.intercept - self.intercept_avg)


# solver="auto": the cutting planes while their LPs stay small, else the first-order method.
# Measured (2 cores, time to a certified 1e-8 gap or a 120-300 s limit): dense uniform data
# 2,000 x 200 in 25 s, 5,000 x 100 in 28 s, 20,000 x 100 in 81 s; but 100 x 784 dense, and
# 1,000 x 2,000 or 10,000 x 2,000 CSR at density 1 % not within the limit (each re-solve of the
# cut LP took 70-185 s of dual simplex, and on separable data its value stays 0, so the bound
# never rises), where the subgradient method takes 0.1-12 s.
_AUTO_MAX_FEATURES = 256
_AUTO_MAX_ENTRIES = 2_000_000
# Wider but small problems: the full LP (interior point), O(m n) variables. MNIST 4 vs 7 (784
# pixels, budget 20 uniform / 100 mutual information, C / gamma = 10), full LP against cutting
# planes: 100 rows 5.4-5.6 s against 7.0-7.2 s, 200 rows 16-18 s against 21-24 s, 400 rows
# 53-61 s against 77-86 s; the subgradient method's 50 epochs end at 1.1-4.4 times the optimum
# there (0.2-0.9 s, with a warning).
_AUTO_MAX_LP_CELLS = 200_000


def choose_solver(X) -> str:
    """The solver of ``solver="auto"`` for the training matrix ``X`` (m x n).

    * ``"cutting_plane"`` (exact) when ``X`` has at most 256 features and at most 2,000,000
      non-zero entries;
    * else ``"lp"`` (exact: Eq. (4) as printed, by HiGHS's interior point) when ``m n`` is at
      most 200,000 (e.g. 255 MNIST rows): few rows and many features, where the first-order
      method ends far from the optimum (1.1-4.4 times it on 100-400 MNIST rows);
    * otherwise ``"subgradient"`` (first order, approximate).

    Non-zeros are counted the same way for a dense array and a sparse matrix, so both give the
    same choice.
    """
    entries = X.count_nonzero() if sp.issparse(X) else int(np.count_nonzero(X))
    if X.shape[1] <= _AUTO_MAX_FEATURES and entries <= _AUTO_MAX_ENTRIES:
        return "cutting_plane"
    if X.shape[0] * X.shape[1] <= _AUTO_MAX_LP_CELLS:
        return "lp"
    return "subgradient"


SOLVERS = {"cutting_plane": solve_cutting_plane, "lp": solve_full_lp,
           "subgradient": solve_subgradient}
