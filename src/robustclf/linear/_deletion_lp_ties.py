"""One optimum of Dekel & Shamir's Eq. (4) when it has many: the smallest ``||w||_1``.

On training data that some ``(w, b)`` in the box separates with robust margin gamma against
every deletion of value ``<= N`` (optimum ``F* = 0``: common when ``n_features >= n_samples``,
e.g. THRESHOLD, 300 x 215), every such ``(w, b)`` is optimal, and which one a solver returned
decided the model under deletion. THRESHOLD split 0, three optimal points of the same Eq. (4)
(HiGHS's full LP, the cutting planes from two warm starts), their predictions on the test rows
with half the features deleted (three draws, 3,000 predictions): 145-888 differ at budget 1 and
508-529 at budget 4; the weights' l1 norms were 1,176-2,150 and 1,448-1,806. In the full
benchmark the order of the errors of two such points reversed between data sets. A model should
not depend on the LP algorithm.

When the solver has certified ``F* = 0`` (to ``eps = max(tol, 1e-7)``),
:func:`solve_breaking_ties` therefore also solves

    min_{w, b}  ||w||_1   s.t.  xi_i(w, b) <= xi_i(w*, b*) + eps gamma  (every i),
                              ||w||_inf <= C,                                             (S)

from the solver's point ``(w*, b*)``, whose slacks are all (about) 0: the robust margin
constraints of every example made hard. That is the robust analogue of the 1-norm SVM (the
hard-margin LP of Mangasarian, 1999; Zhu, Rosset, Hastie and Tibshirani, 2003), the
regulariser of the LP-SVM family Eq. (4) belongs to, and an LP, solved by the same cutting
planes (:func:`min_l1_optimum`). The estimator's fits (full LP, cutting planes from two
seeds; THRESHOLD splits 0 and 1) then have equal l1 norms (7.016, 75.601, 8.014 at budgets 1,
4, 1) and their predictions on the rows with half the features deleted differ on 0-72 of 3,000
instead of 308-927: the l1-optimal face is smaller, but not always a point (on split 0 at
budget 1 two pairs of THRESHOLD's nested encoding features share their weight 0.49 / 0.51 in
one fit and 0.43 / 0.57 in another, which moves 72 predictions). The cut LPs are re-solved by
interior point without crossover, whose central solutions split such weight more evenly than
vertices: with dual-simplex vertices the three direct solves of split 0 at budget 1 differed
on 277 of 3,000 predictions at equal l1 norm, with central ones on none.

``tie_break="centre"`` (:func:`centre_optimum`) returns another point of the same face: its
analytic centre, which uses nothing from the solver's point, and whose weights are dense.
Neither choice wins everywhere: dense weights resist a worst-case adversary beyond the training
budget, sparse ones resist random deletion (numbers in the estimator's ``tie_break``).

Why only at ``F* = 0``: when ``F* > 0`` the optimal face is cut out by the slack caps of (S)
(or by the row ``F <= F*``), a set without interior, and HiGHS's interior point and simplex did
not solve that LP in 200-300 s where Eq. (4) itself took 4 s (THRESHOLD split 1, budget 4,
``F* = 0.0072``; its optimal points' l1 norms range from 366 to 1,435). There the solver's
optimum is returned as it is.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .._compat import persistent_highs
from ._deletion_lp_solvers import (
    _LP_FEASIBILITY_TOL,
    DeletionLPResult,
    _cut_rows,
    _HighsMaster,
    _LinprogMaster,
    _objective,
    _weight_bounds,
    cuts_or_exact_rows,
    full_lp_model,
)

__all__ = ["min_l1_optimum", "centre_optimum", "solve_breaking_ties"]

_PROMOTE_AFTER = 3  # cuts per example before its exact rows (finite termination)


def _l1_rows(n, m):
    """``u_j - w_j >= 0`` and ``u_j + w_j >= 0`` over ``[w (n), b, xi (m), u (n)]``."""
    j = np.arange(n)
    u = n + 1 + m + j
    rows = np.concatenate([j, j, n + j, n + j])
    cols = np.concatenate([u, j, u, j])
    data = np.concatenate([np.ones(n), -np.ones(n), np.ones(n), np.ones(n)])
    return sp.csr_matrix((data, (rows, cols)), shape=(2 * n, 2 * n + 1 + m)), np.zeros(2 * n)


def min_l1_optimum(X, y, values, budget, first, *, margin, weight_bound, fit_intercept=True,
                   tol=1e-8, max_iter=100, time_limit=None, sample_weight=None,
                   backend="auto", resolve="ipm", **_):
    """Solve (S) (module docstring) from the certified optimum ``first`` of Eq. (4).

    Cutting planes over ``(w, b, xi, u)``: minimise ``sum_j u_j`` subject to ``|w_j| <= u_j``,
    the box, ``0 <= xi_i <= xi_i(first) + eps gamma`` and, for every example, its cuts (the
    first at ``first``'s worst case). Each cut LP is a relaxation of (S), so its solution is
    (S)'s optimum as soon as it satisfies (S)'s constraints, i.e. every exact slack ``xi_i(w,
    b)`` is within ``2 eps gamma`` of ``xi_i(first)``: that is the stopping rule (primal
    feasibility of a relaxation's optimum, to the accuracy of ``F*``'s certificate). Otherwise
    the examples beyond their cap by more than ``eps gamma`` get the most violated vertex as a
    new cut, and after three cuts Eq. (4)'s own rows, so the method terminates.

    Returns a :class:`~._deletion_lp_solvers.DeletionLPResult` with the tie-broken point, its
    objective (within ``2 eps`` of ``first.objective``), ``first``'s lower bound and the rounds
    of both solves. If (S) is not solved within ``max_iter`` rounds or ``time_limit`` seconds,
    ``first``'s point is kept and the result says why (``converged=False``: the estimator
    warns that the tie was not broken); its objective is still certified.
    """
    start = time.perf_counter()
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sort_indices()
    m, n = X.shape
    eps = max(tol, _LP_FEASIBILITY_TOL)
    cut_tol = eps * margin
    P = float(np.sum(values)) - budget
    _, xi_first, delta = _objective(X, y, first.coef, first.intercept, values, budget, margin,
                                    sample_weight)
    cap = xi_first + cut_tol
    box = _weight_bounds(X, weight_bound)
    c = np.concatenate([np.zeros(n + 1 + m), np.ones(n)])
    lo = np.concatenate([box[0], [-np.inf if fit_intercept else 0.0], np.zeros(m), np.zeros(n)])
    hi = np.concatenate([box[1], [np.inf if fit_intercept else 0.0], cap, box[1]])
    highs_class = persistent_highs() if backend in ("auto", "highs") else None
    lp = (_HighsMaster(c, lo, hi, highs_class, later=resolve) if highs_class
          else _LinprogMaster(c, lo, hi))
    lp.add_rows(*_l1_rows(n, m))
    lp.add_rows(*_cut_rows(X, y, delta, np.arange(m), values, margin, P))
    n_cuts = np.ones(m, dtype=int)
    promoted = np.zeros(m, dtype=bool)
    n_col = c.size
    rounds, reason = 0, None
    while True:
        if rounds >= max_iter:
            reason = f"the tie-break (min ||w||_1 over the optimal face) reached {max_iter} rounds"
            break
        rounds += 1
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 0)
        z, _, _, optimal = lp.solve(left)
        if not optimal:
            reason = "the tie-break (min ||w||_1 over the optimal face) reached time_limit"
            break
        w, b = z[:n].copy(), float(z[n])
        obj, xi, delta = _objective(X, y, w, b, values, budget, margin, sample_weight)
        violated = np.flatnonzero((xi - cap > cut_tol) & ~promoted)
        if violated.size == 0:  # feasible for (S) and optimal for a relaxation of it
            return DeletionLPResult(w, b, obj, min(first.lower_bound, obj),
                                    first.n_iter + rounds, True)
        new_rows, k_new = cuts_or_exact_rows(X, y, delta, violated, n_cuts, promoted,
                                             _PROMOTE_AFTER, values, margin, P, n_col)
        if k_new:
            lp.add_cols(k_new)
            n_col += k_new
        for A_new, r_new, _ in new_rows:
            lp.add_rows(A_new, r_new)
    return DeletionLPResult(first.coef, first.intercept, first.objective, first.lower_bound,
                            first.n_iter + rounds, False, reason=reason)


def centre_optimum(X, y, values, budget, first, *, margin, weight_bound, fit_intercept=True,
                   tol=1e-8, time_limit=None, sample_weight=None, **_):
    """The analytic centre of the optimal face of a zero optimum (``tie_break="centre"``).

    Eq. (4) as printed (:func:`~._deletion_lp_solvers.full_lp_model`) with every slack fixed
    to ``[0, eps gamma]`` (the hard robust-margin constraints, feasible because ``first``
    certified ``F* = 0``) and a zero objective, solved by HiGHS's interior point without
    crossover: with nothing to minimise, its central path is one point, the analytic centre of
    that polytope, which does not depend on the solver that found ``F* = 0``. Its weights are
    dense (THRESHOLD, 300 x 215: l1 norm 1,749-1,997 against 7-76 for ``"min_l1"``). It costs
    one full-LP solve (6 s there), O(m n) memory, and ``time_limit`` applies to it; when HiGHS
    does not finish, ``first``'s point is kept with ``converged=False`` and the reason.
    """
    highs_class = persistent_highs()
    if highs_class is None:  # pragma: no cover - scipy < 1.15
        raise ImportError("tie_break='centre' needs scipy >= 1.15 (HiGHS's solver object).")
    X = sp.csr_matrix(X)
    m, n = X.shape
    eps = max(tol, _LP_FEASIBILITY_TOL)
    c, A, rhs, bounds = full_lp_model(X, y, values, budget, margin, weight_bound,
                                      fit_intercept=fit_intercept, sample_weight=sample_weight)
    bounds[n + 1:n + 1 + m, 1] = eps * margin
    lp = _HighsMaster(np.zeros(c.size), bounds[:, 0], bounds[:, 1], highs_class,
                      central=True)
    lp.add_rows(-A, -rhs)
    z, _, _, optimal = lp.solve(time_limit)
    if not optimal:
        return DeletionLPResult(first.coef, first.intercept, first.objective, first.lower_bound,
                                first.n_iter, False,
                                reason="the tie-break (analytic centre) reached time_limit")
    w, b = z[:n].copy(), float(z[n])
    obj = _objective(X, y, w, b, values, budget, margin, sample_weight)[0]
    return DeletionLPResult(w, b, obj, min(first.lower_bound, obj), first.n_iter + 1, True)


_TIE_BREAKS = {"min_l1": min_l1_optimum, "centre": centre_optimum}


def solve_breaking_ties(solve, X, y, values, budget, *, tie_break=None, **options):
    """``solve(X, y, values, budget, **options)``, then (S) when its certified optimum is 0.

    ``tie_break="min_l1"`` is the estimator's default; ``None`` returns the solver's point (the
    estimator passes None for the subgradient method, whose point is not a certified optimum).
    """
    first = solve(X, y, values, budget, **options)
    eps = max(options.get("tol", 0.0), _LP_FEASIBILITY_TOL)
    if tie_break is None or not first.converged or first.objective > eps:
        return first
    options.pop("max_iter", None)  # (the solver's rounds; (S) has its own default)
    return _TIE_BREAKS[tie_break](X, y, values, budget, first, **options)
