"""The adversary's problem, solved once for the whole library.

A feature-deleting adversary (Dekel & Shamir, ICML 2008, §2) removes a set D of features with total
value ``V(D) = sum_{j in D} v_j <= N`` from a row. If feature j contributes ``g_j`` to the quantity
the adversary wants to lower (the margin ``y (b + w.x)``, or the LP's Eq. (7) objective), deleting D
lowers it by ``sum_{j in D} g_j``. The adversary therefore solves a 0/1 knapsack per row::

    max_{delta in {0,1}^n} sum_j delta_j g_j   s.t.   sum_j delta_j v_j <= N.        (K)

(the inner minimum of Dekel & Shamir's Eq. (2), and their Eq. (6) with ``gamma = 0``, after the
change of variables ``tau = 1 - delta``: tau marks the *kept* features, ``V(J) >= V([n]) - N``).
Items with ``v_j = 0`` and ``g_j > 0`` are free and always taken; items with ``g_j <= 0`` never help
the adversary. Three solutions of (K) are computed here, for all rows at once:

* :func:`knapsack_deletion` -- the LP relaxation (``delta in [0, 1]^n``), a *fractional* knapsack
  solved exactly by sorting the items with positive gain by ``g_j / v_j`` and taking them in that
  order until the budget is spent (the last one fractionally). Its value is an **upper bound** on
  (K), exact for ``v_j in {0, 1}`` and integer ``N`` (Lemma 1(b): no fractional item arises). This
  is Dekel & Shamir's Eq. (7).
* :func:`greedy_knapsack_deletion` -- the paper's greedy adversary (§4: it "deletes the most
  valuable features of each instance until either the limit N is reached or all useful features
  are deleted"): the same order, each item taken if it still fits, *skipped* otherwise, and the
  scan goes on with the next. A feasible deletion, so a **lower bound** on (K).
* :func:`exact_knapsack_deletion` -- (K) itself: dynamic programming for integer values, otherwise
  for the rows whose greedy and relaxed values differ, a reduction by reduced costs, then the
  subsets of the few items left enumerated, or a mixed-integer program solved by HiGHS
  (``scipy.optimize.milp``), many rows per call as one block-diagonal program.

Every part of the library that needs the worst case calls these functions: the test-time
adversaries, the certified error, and the robust losses of the estimators.

The gains are whatever the caller's deletion removes: for the certificate,
``g_ij = y_i (w_j x_ij - D_j)`` with ``D_j`` the score a deleted feature keeps (0 for a raw-zero
deletion, nonzero e.g. for an absent entry behind a ``StandardScaler`` or an imputer; see
:mod:`robustclf.certify`). :func:`csr_knapsack_deletion` and
:func:`csr_greedy_knapsack_deletion` read only stored entries and take the others as
non-positive gains, which holds when ``D = 0`` (an implicit zero then has gain 0). With
``D != 0`` an implicit zero has gain ``-y_i D_j``, the same for every row of a class:
:func:`csr_deletion_bounds` (relaxation and greedy) and :func:`csr_exact_knapsack_deletion`
take those gains too, exactly, without forming the (n_samples, n_features) matrix of gains.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

__all__ = ["KnapsackDeletion", "knapsack_deletion", "unit_knapsack_deletion",
           "csr_knapsack_deletion", "csr_greedy_knapsack_deletion", "greedy_knapsack_deletion",
           "ExactDeletion", "exact_knapsack_deletion", "SparseDeletionBounds",
           "csr_deletion_bounds", "csr_exact_knapsack_deletion"]

# Relative slack when comparing cumulative values with the budget, so that sums of values such as
# 0.1 + 0.2 that should exactly exhaust a budget of 0.3 are not rejected by round-off.
_BUDGET_RTOL = 1e-12
# An exact solve counts as optimal when its proven upper bound exceeds the harm of its deletion
# by at most this fraction of the row's total positive gain (far below any margin of interest).
_GAP_RTOL = 1e-10
# Binary variables per block-diagonal MILP (after the reduced-cost fixing): about 25 spambase
# rows. HiGHS spends some milliseconds per call even on a handful of binaries, which blocks
# share; but its branch-and-bound works on a block as a whole, so large blocks of harder rows
# (Amazon reviews, 10-40 binaries a row) take longer than the same rows one by one (measured:
# 100 binaries break even there, 600 take twice as long).
_MILP_BLOCK_VARS = 100
# Residual problems (after the fixing) with at most this many binaries are solved by enumerating
# their 2^k subsets, all rows with the same k at once: HiGHS spends about 10 ms on even a handful
# of binaries and 10-60 ms on 13-20 of them, enumerating 2^16 subsets about 1 ms. (2,000 rows of
# 57 Gaussian gains, N = 5: 15 s with 12 here, 1.5 s with 16.)
_ENUM_MAX_VARS = 16
# Largest (rows x subsets) array enumerated at once (16 MB of float64).
_ENUM_ENTRIES = 2_000_000
# HiGHS settings: prove optimality (no relative gap), an absolute gap far below _GAP_RTOL for
# objectives scaled to [-1, 0] per row, and a budget feasibility tolerance far below the margins.
_MILP_OPTIONS = {"mip_rel_gap": 0.0, "mip_abs_gap": 1e-13, "mip_feasibility_tolerance": 1e-10,
                 "primal_feasibility_tolerance": 1e-10}


def _budget_limit(budget: float) -> float:
    return budget * (1.0 + _BUDGET_RTOL) + _BUDGET_RTOL


def _ratio_order(gains: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items of every row sorted by harm per unit of value ``g_j / v_j``, useful ones first.

    Free items (``v_j = 0``, ``g_j > 0``) come first (ratio +inf); items with ``g_j <= 0`` last.
    Ties are broken by column index (stable sort). Returns ``(order, useful)``.
    """
    useful = gains > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(values > 0, gains / np.where(values > 0, values, 1.0), np.inf)
    ratio = np.where(useful, ratio, -np.inf)
    return np.argsort(-ratio, axis=1, kind="stable"), useful


@dataclass(frozen=True)
class KnapsackDeletion:
    """Solution of the adversary's fractional knapsack (LP relaxation of (K)) for every row.

    Attributes
    ----------
    relaxed_gain : ndarray of shape (n_samples,)
        Optimal value of the LP relaxation: an upper bound on the harm any feasible deletion can
        do; exact for 0/1 values and an integer budget.
    fractions : ndarray of shape (n_samples, n_features)
        An optimal fractional deletion ``delta`` in [0, 1], at most one fractional entry per row
        (Dekel & Shamir, Lemma 1(c)).
    """

    relaxed_gain: np.ndarray
    fractions: np.ndarray


def knapsack_deletion(gains: np.ndarray, values: np.ndarray, budget: float) -> KnapsackDeletion:
    """Solve the adversary's fractional knapsack for all rows at once by sorting.

    Parameters
    ----------
    gains : ndarray of shape (n_samples, n_features)
        ``g_ij``: how much deleting feature j lowers row i's objective, e.g. the margin
        contributions ``a_ij = y_i w_j x_ij`` (Dekel & Shamir §2) or the Eq. (7) coefficients
        ``y_i w_j x_ij - gamma v_j / P``. Non-positive gains are never deleted.
    values : ndarray of shape (n_features,)
        Non-negative feature values ``v_j``. Zero-valued features with positive gain are free.
    budget : float
        The value budget ``N >= 0``.

    Returns
    -------
    KnapsackDeletion

    Notes
    -----
    Cost: one ``argsort`` of an (n_samples, n_features) array, O(m n log n). Ties in
    ``g_j / v_j`` do not change the optimal value. Inputs are trusted: callers validate them
    (see :mod:`robustclf._validation`).
    """
    gains = np.asarray(gains, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    m, n = gains.shape
    if n == 0:  # nothing to delete
        return KnapsackDeletion(np.zeros(m), np.zeros((m, 0)))
    order, useful = _ratio_order(gains, values)
    sorted_useful = np.take_along_axis(useful, order, axis=1)
    sorted_values = np.where(sorted_useful, values[order], 0.0)
    sorted_gains = np.where(sorted_useful, np.take_along_axis(gains, order, axis=1), 0.0)
    cum_values = np.cumsum(sorted_values, axis=1)
    whole = sorted_useful & (cum_values <= _budget_limit(budget))

    # The first useful item that no longer fits is taken fractionally with what budget is left.
    over = sorted_useful & ~whole
    has_over = over.any(axis=1)
    first_over = np.argmax(over, axis=1)
    rows = np.arange(m)
    left = budget - np.where(first_over > 0, cum_values[rows, first_over - 1], 0.0)
    part = np.zeros(m)
    v_over = sorted_values[rows, first_over]
    ok = has_over & (v_over > 0)
    part[ok] = np.clip(left[ok] / v_over[ok], 0.0, 1.0)

    sorted_fractions = whole.astype(np.float64)
    sorted_fractions[rows[ok], first_over[ok]] = part[ok]
    fractions = np.empty((m, n))
    np.put_along_axis(fractions, order, sorted_fractions, axis=1)
    relaxed_gain = np.where(whole, sorted_gains, 0.0).sum(axis=1) + part * sorted_gains[
        rows, first_over]
    return KnapsackDeletion(relaxed_gain, fractions)


def csr_knapsack_deletion(gains: sp.csr_matrix, values: np.ndarray, budget: float,
                          ) -> tuple[np.ndarray, sp.csr_matrix]:
    """:func:`knapsack_deletion` on the stored entries of a CSR matrix of gains.

    Entries not stored are taken as non-positive gains, which the adversary never deletes (e.g.
    Eq. (7)'s ``-gamma v_j / P`` at a zero ``x_ij``), so only the stored positive gains
    compete: they are sorted by ``g_ij / v_j`` within their row (one ``lexsort`` over the
    non-zeros, ties by position, as the dense sort) and taken until the budget is spent, the
    first that does not fit fractionally -- without forming an (m, n) array.

    Returns
    -------
    relaxed_gain : ndarray of shape (n_samples,)
    fractions : csr_matrix with ``gains``' sparsity pattern
    """
    m = gains.shape[0]
    row = np.repeat(np.arange(m), np.diff(gains.indptr))
    v = values[gains.indices]
    useful = np.flatnonzero(gains.data > 0)
    delta = np.zeros(gains.nnz)
    relaxed = np.zeros(m)
    if useful.size:
        r, g, vu = row[useful], gains.data[useful], v[useful]
        with np.errstate(divide="ignore"):
            ratio = np.where(vu > 0, g / np.where(vu > 0, vu, 1.0), np.inf)
        order = np.lexsort((-ratio, r))
        r, g, vu, useful = r[order], g[order], vu[order], useful[order]
        start = np.r_[0, np.flatnonzero(np.diff(r)) + 1]
        length = np.diff(np.r_[start, r.size])
        cum = np.cumsum(vu)
        cum -= np.repeat(cum[start] - vu[start], length)  # cumulative value within the row
        frac = (cum <= _budget_limit(budget)).astype(float)
        # the first item of each row that does not fit is taken with the budget left
        n_whole = np.add.reduceat(frac, start)
        has_over = n_whole < length
        first = (start + n_whole.astype(int))[has_over]
        left = budget - (cum[first] - vu[first])
        frac[first] = np.clip(left / np.where(vu[first] > 0, vu[first], 1.0), 0.0, 1.0)
        delta[useful] = frac
        relaxed = np.bincount(r, weights=frac * g, minlength=m)
    return relaxed, sp.csr_matrix((delta, gains.indices, gains.indptr), shape=gains.shape)


def csr_greedy_knapsack_deletion(gains: sp.csr_matrix, values: np.ndarray, budget: float,
                                 ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`greedy_knapsack_deletion` on the stored entries of a CSR matrix of gains.

    Entries not stored are non-positive gains, never deleted. The stored positive gains of each
    row are sorted by ``g_ij / v_j`` (free items first, ties by column, as the dense greedy) and
    scanned in that order, each taken if it still fits: one pass per rank, vectorised over the
    rows, so O(nnz log nnz) without forming an (m, n) array.

    Returns
    -------
    gain : ndarray of shape (n_samples,)
    taken : ndarray of bool, shape (nnz,)
        The deleted stored entries, in storage order.
    """
    m = gains.shape[0]
    row = np.repeat(np.arange(m), np.diff(gains.indptr))
    useful = np.flatnonzero(gains.data > 0)
    taken = np.zeros(gains.nnz, dtype=bool)
    if useful.size == 0:
        return np.zeros(m), taken
    r, g, v = row[useful], gains.data[useful], values[gains.indices[useful]]
    with np.errstate(divide="ignore"):
        ratio = np.where(v > 0, g / np.where(v > 0, v, 1.0), np.inf)
    order = np.argsort(-ratio, kind="stable")  # storage order breaks ties: by column
    order = order[np.argsort(r[order], kind="stable")]
    r, v, useful = r[order], v[order], useful[order]
    rank = np.arange(r.size) - np.searchsorted(r, r)  # position within the row's scan
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(rank))]
    limit = _budget_limit(budget)
    used = np.zeros(m)
    for k in range(bounds.size - 1):  # a loop over scan positions; all rows at once
        at = by_rank[bounds[k]:bounds[k + 1]]
        fits = used[r[at]] + v[at] <= limit
        used[r[at[fits]]] += v[at[fits]]
        taken[useful[at[fits]]] = True
    return np.bincount(row[taken], weights=gains.data[taken], minlength=m), taken


# -- rows whose implicit zeros have gains too ----------------------------------------------------

#: Largest number of (row, item) pairs :func:`csr_deletion_bounds` and
#: :func:`csr_exact_knapsack_deletion` hold at once (some 10 MB of temporaries).
_CSR_BLOCK_ENTRIES = 2**17
#: Implicit items a row's first scan takes beyond those its budget can buy at once (room for
#: the columns it stores, which are not implicit in that row).
_PREFIX_SLACK = 16


@dataclass(frozen=True)
class SparseDeletionBounds:
    """The relaxed and greedy solutions of (K) for the rows of a sparse matrix of gains.

    Attributes
    ----------
    relaxed_gain : ndarray of shape (n_samples,)
        Optimal value of the LP relaxation (as :func:`knapsack_deletion`): an upper bound.
    greedy_gain : ndarray of shape (n_samples,)
        Harm of the greedy deletion (as :func:`greedy_knapsack_deletion`): a lower bound.
    rows, cols : ndarray of int
        The greedy deletion's entries (stored ones and implicit zeros alike), by row.
    """

    relaxed_gain: np.ndarray
    greedy_gain: np.ndarray
    rows: np.ndarray
    cols: np.ndarray


@dataclass(frozen=True)
class _Items:
    """One group's useful implicit items in the order of the scan (best ratio first, ties by
    column), with the suffix minima of their values and every column's position (-1: none)."""

    cols: np.ndarray
    gains: np.ndarray
    values: np.ndarray
    ratio: np.ndarray
    suffix_min: np.ndarray  # (size + 1,): min value from each position on (inf at the end)
    position: np.ndarray | None  # (n_features,)

    @classmethod
    def of(cls, implicit_row, values) -> _Items:
        cols = np.flatnonzero(implicit_row > 0)
        g, v = implicit_row[cols], values[cols]
        ratio = _ratios(g, v)
        order = np.lexsort((cols, -ratio))
        cols, g, v, ratio = cols[order], g[order], v[order], ratio[order]
        suffix = np.r_[np.minimum.accumulate(v[::-1])[::-1], np.inf]
        position = np.full(implicit_row.size, -1)
        position[cols] = np.arange(cols.size)
        return cls(cols, g, v, ratio, suffix, position)

    @classmethod
    def none(cls) -> _Items:
        empty = np.zeros(0)
        return cls(np.zeros(0, dtype=np.intp), empty, empty, empty, np.array([np.inf]), None)


def _ratios(g: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``g / v`` (``+inf`` for free items), by the dense sort's operations."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, g / np.where(v > 0, v, 1.0), np.inf)


def csr_deletion_bounds(gains: sp.csr_matrix, implicit: np.ndarray, group: np.ndarray,
                        values: np.ndarray, budget: float) -> SparseDeletionBounds:
    """:func:`knapsack_deletion` and :func:`greedy_knapsack_deletion` on sparse rows, exactly.

    Row i's items are all n features: its stored entries, with the gains stored in ``gains``,
    and its implicit zeros, whose gain ``implicit[group[i], j]`` is shared by the rows of a
    group (for the certificate, ``-y_i D_j``: what deleting a raw zero does when a deleted
    feature keeps ``D_j``; all zero when deletion writes a raw zero, so that only stored entries
    compete, as in :func:`csr_knapsack_deletion`). Both solutions are those of the dense
    functions on the (n_samples, n_features) matrix of gains -- the same items, taken in the
    same order (ratio ``g_j / v_j``, ties by column), the budget compared after the same
    additions -- without forming it:

    * a group's useful implicit items (positive gain) are sorted once; a row scans its stored
      useful entries merged with the first ``K`` of them, skipping the columns it stores
      (holes), which is a prefix of its full scan;
    * the relaxation is settled once the prefix holds the first item that does not fit, the
      greedy once no later item can fit (the row's budget left is below the smallest value
      after the prefix); rows not settled are scanned again with a longer prefix (``K``
      doubled, or as far as the smallest value left requires).

    The scan is one pass per position, vectorised over the rows, on blocks of rows of at most
    ``_CSR_BLOCK_ENTRIES`` items. With no useful implicit item (the raw-zero deletion) this is
    O(nnz log nnz) time and O(nnz) memory; otherwise each row also scans the implicit items
    its budget can reach -- for unit values about ``budget`` of them, for unequal values the
    items up to the last one that is cheap enough to fit, at worst all n.

    Parameters
    ----------
    gains : csr_matrix of shape (n_samples, n_features)
        Gains of the stored entries; canonical (sorted indices, no duplicates). Stored gains
        of any sign; an explicit zero entry is a stored entry.
    implicit : ndarray of shape (n_groups, n_features)
        Gains of the entries not stored, per group.
    group : ndarray of int, shape (n_samples,)
        Each row's group.
    values : ndarray of shape (n_features,)
    budget : float

    Returns
    -------
    SparseDeletionBounds
    """
    m = gains.shape[0]
    values = np.asarray(values, dtype=np.float64)
    relaxed, greedy = np.zeros(m), np.zeros(m)
    taken_rows, taken_cols = [], []
    useful = (implicit > 0).any(axis=1)
    plain = np.flatnonzero(~useful[group])  # only stored entries can help the adversary
    jobs = [(plain, _Items.none())] + [(np.flatnonzero(group == g), _Items.of(implicit[g], values))
                                      for g in np.flatnonzero(useful)]
    for rows, items in jobs:
        if rows.size == 0:
            continue
        sub = gains if rows.size == m else gains[rows]
        rel, grd, r, c = _group_bounds(sub, items, values, budget)
        relaxed[rows], greedy[rows] = rel, grd
        taken_rows.append(rows[r])
        taken_cols.append(c)
    rows = np.concatenate(taken_rows) if taken_rows else np.zeros(0, dtype=np.intp)
    cols = np.concatenate(taken_cols) if taken_cols else np.zeros(0, dtype=np.intp)
    order = np.argsort(rows, kind="stable")
    return SparseDeletionBounds(relaxed, greedy, rows[order], cols[order])


def _group_bounds(sub, items: _Items, values, budget):
    """:func:`csr_deletion_bounds` for rows sharing their implicit items; prefixes deepened."""
    m = sub.shape[0]
    limit = _budget_limit(budget)
    size = items.cols.size
    # the implicit items the budget can buy, the first that it cannot, and some room for holes
    affordable = int(np.searchsorted(np.cumsum(items.values), limit, side="right"))
    prefix = min(size, affordable + 1 + _PREFIX_SLACK)
    relaxed, greedy = np.zeros(m), np.zeros(m)
    taken_rows, taken_cols = [], []
    pending = np.arange(m)
    counts = np.diff(sub.indptr)
    while pending.size:
        unsettled, reach = [], [0]
        for block in _blocks(counts[pending] + prefix, _CSR_BLOCK_ENTRIES):
            rows = pending[block]
            out = _scan_prefix(sub[rows], items, prefix, values, budget, limit)
            rel, grd, r, c, settled, needed = out
            relaxed[rows[settled]], greedy[rows[settled]] = rel[settled], grd[settled]
            keep = settled[r]
            taken_rows.append(rows[r[keep]])
            taken_cols.append(c[keep])
            unsettled.append(rows[~settled])
            reach.append(int(needed.max(initial=0)))
        pending = np.concatenate(unsettled)
        prefix = min(size, max(2 * prefix + 1, max(reach)))
    rows = np.concatenate(taken_rows) if taken_rows else np.zeros(0, dtype=np.intp)
    cols = np.concatenate(taken_cols) if taken_cols else np.zeros(0, dtype=np.intp)
    return relaxed, greedy, rows, cols


def _scan_prefix(sub, items: _Items, prefix, values, budget, limit):
    """Scan each row's items up to the group's ``prefix``-th implicit item (excluded).

    Returns the relaxed and greedy gains, the greedy deletion's (row, column) pairs, which rows
    are settled (their full scan could not differ) and, for the others, how many implicit
    items the greedy's budget left can still reach.
    """
    m = sub.shape[0]
    row = np.repeat(np.arange(m), np.diff(sub.indptr))
    col, g = sub.indices, sub.data
    ratio = _ratios(g, values[col])
    useful = g > 0
    complete = prefix >= items.cols.size
    later = np.full(m, np.inf)  # smallest value of the items after the prefix
    if not complete:
        cut_ratio, cut_col = items.ratio[prefix], items.cols[prefix]
        before = (ratio > cut_ratio) | ((ratio == cut_ratio) & (col < cut_col))
        after = useful & ~before
        np.minimum.at(later, row[after], values[col[after]])
        later = np.minimum(later, items.suffix_min[prefix])
        useful &= before
    # the prefix's implicit items, except the columns a row stores (holes)
    hole = np.zeros((m, prefix), dtype=bool)
    if prefix:
        pos = items.position[col]
        at = (pos >= 0) & (pos < prefix)
        hole[row[at], pos[at]] = True
    r_imp, k_imp = np.nonzero(~hole)
    del hole
    row = np.concatenate([row[useful], r_imp])
    col = np.concatenate([col[useful], items.cols[k_imp]])
    g = np.concatenate([g[useful], items.gains[k_imp]])
    ratio = np.concatenate([ratio[useful], items.ratio[k_imp]])
    order = np.lexsort((col, -ratio, row))  # the dense scan's order, row by row
    row, col, g = row[order], col[order], g[order]
    v = values[col]
    del ratio, order, r_imp, k_imp
    rank = np.arange(row.size) - np.searchsorted(row, row)
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(rank))]
    used, cum, relaxed = np.zeros(m), np.zeros(m), np.zeros(m)
    over = np.zeros(m, dtype=bool)
    taken = np.zeros(row.size, dtype=bool)
    for k in range(bounds.size - 1):  # one scan position at a time, every row at once
        at = by_rank[bounds[k]:bounds[k + 1]]
        r, vk, gk = row[at], v[at], g[at]
        # greedy: take the item if it still fits, else skip it
        fits = used[r] + vk <= limit
        used[r[fits]] += vk[fits]
        taken[at[fits]] = True
        # relaxation: whole items while the cumulative value fits, then one fraction
        live = ~over[r]
        r, vk, gk = r[live], vk[live], gk[live]
        total = cum[r] + vk
        whole = total <= limit
        cum[r[whole]] = total[whole]
        relaxed[r[whole]] += gk[whole]
        r, vk, gk = r[~whole], vk[~whole], gk[~whole]
        left = budget - cum[r]
        part = np.where(vk > 0, np.clip(left / np.where(vk > 0, vk, 1.0), 0.0, 1.0), 0.0)
        relaxed[r] += part * gk
        over[r] = True
    greedy = np.bincount(row[taken], weights=g[taken], minlength=m)
    if complete:
        settled = np.ones(m, dtype=bool)
        needed = np.zeros(0, dtype=np.intp)
    else:
        settled = over & (used + later > limit)
        # the greedy's budget left reaches implicit items up to the first beyond it
        needed = np.searchsorted(items.suffix_min, limit - used[~settled], side="right")
    return relaxed, greedy, row[taken], col[taken], settled, needed


def csr_exact_knapsack_deletion(gains: sp.csr_matrix, implicit: np.ndarray, group: np.ndarray,
                                rows: np.ndarray, values: np.ndarray, budget: float, *,
                                method: str = "auto", time_limit: float | None = None,
                                max_work: float = 5e7) -> ExactDeletion:
    """:func:`exact_knapsack_deletion` for some rows of the sparse gains of
    :func:`csr_deletion_bounds` (stored entries and implicit zeros), memory bounded.

    The rows go to the dense solver in blocks, each restricted to the columns where one of its
    rows has a useful item (a stored positive gain or a positive implicit gain of its group):
    the other columns are items no row of the block would take, so the solutions are the dense
    solver's on all n columns (the columns keep their order, and with it the ties). A block
    holds at most ``_CSR_BLOCK_ENTRIES`` entries (or one row). ``method="auto"`` chooses as the
    dense solver would on all ``rows`` and n columns (dynamic programming if the values are
    integers and that table fits ``max_work``), so that both give the same kind of answer;
    ``time_limit`` covers all blocks.

    Returns
    -------
    ExactDeletion
        One entry per row of ``rows``; ``mask`` is a boolean CSR matrix of shape
        (rows.size, n_features).
    """
    values = np.asarray(values, dtype=np.float64)
    n = gains.shape[1]
    if method == "auto":
        integer = bool(np.all(values == np.round(values)))
        capacity = int(np.floor(_budget_limit(budget)))
        method = ("dp" if integer and float(rows.size) * n * (capacity + 1) <= max_work
                  else "milp")
    sub = gains[rows]
    useful = np.bincount(np.repeat(np.arange(rows.size), np.diff(sub.indptr)),
                         weights=sub.data > 0, minlength=rows.size)
    positive = implicit > 0
    deadline = np.inf if time_limit is None else time.perf_counter() + time_limit
    gain, bound = np.zeros(rows.size), np.zeros(rows.size)
    solved = np.zeros(rows.size, dtype=bool)
    mask_rows, mask_cols = [], []
    status = "optimal"
    for block in _exact_blocks(useful, int(positive.any(axis=0).sum())):
        part = sub[block]
        groups = np.unique(group[rows[block]])
        cols = np.union1d(part.indices[part.data > 0],
                          np.flatnonzero(positive[groups].any(axis=0)))
        dense = implicit[:, cols][group[rows[block]]]
        r = np.repeat(np.arange(block.size), np.diff(part.indptr))
        pos = np.searchsorted(cols, part.indices)
        inside = pos < cols.size
        inside[inside] = cols[pos[inside]] == part.indices[inside]
        dense[r[inside], pos[inside]] = part.data[inside]
        remaining = None if time_limit is None else max(deadline - time.perf_counter(), 0.0)
        sol = exact_knapsack_deletion(dense, values[cols], budget, method=method,
                                      time_limit=remaining, max_work=max_work)
        gain[block], bound[block], solved[block] = sol.gain, sol.bound, sol.solved
        br, bc = np.nonzero(sol.mask)
        mask_rows.append(block[br])
        mask_cols.append(cols[bc])
        if sol.status != "optimal":
            status = sol.status
    mr = np.concatenate(mask_rows) if mask_rows else np.zeros(0, dtype=np.intp)
    mc = np.concatenate(mask_cols) if mask_cols else np.zeros(0, dtype=np.intp)
    mask = sp.csr_matrix((np.ones(mr.size, dtype=bool), (mr, mc)), shape=(rows.size, n))
    return ExactDeletion(gain, bound, mask, solved, method, status)


def _exact_blocks(useful: np.ndarray, shared: int) -> list[np.ndarray]:
    """Consecutive rows whose dense block (rows x (``shared`` + their ``useful`` items)) holds
    at most ``_CSR_BLOCK_ENTRIES`` entries, one row at least."""
    ends = np.r_[0, np.cumsum(useful)]
    blocks, start, m = [], 0, useful.size
    while start < m:
        stop = np.arange(start + 1, m + 1)
        size = (stop - start) * (shared + ends[stop] - ends[start])
        end = start + max(1, int(np.searchsorted(size, _CSR_BLOCK_ENTRIES, side="right")))
        blocks.append(np.arange(start, end))
        start = end
    return blocks


def unit_knapsack_deletion(gains: np.ndarray, budget: float, *, fractions: bool = False,
                           ) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`knapsack_deletion` with unit values, over the last axis of any array, by partition.

    With every value 1 the fractional knapsack deletes the ``floor(K)`` largest positive gains
    and a fraction ``K - floor(K)`` of the next one, so no sort is needed: the gains are split at
    their ``floor(K) + 1``-th largest value ``tau`` by ``np.partition`` (O(n) per row instead of
    O(n log n)), which matters in first-order solvers that call it on every mini-batch
    (FDROP's sgd). Same optimal value as :func:`knapsack_deletion`.

    Parameters
    ----------
    gains : ndarray of shape (..., n_features)
        Non-negative gains (clip them at 0 first); any float dtype, kept.
    budget : float
        ``K >= 0``.
    fractions : bool, default=False
        Also return an optimal deletion ``delta`` (same shape as ``gains``): 1 above ``tau``,
        and the budget left shared equally by the gains equal to ``tau``.

    Returns
    -------
    harm : ndarray of shape (...)
        The optimal (relaxed) harm ``max sum_j delta_j g_j`` s.t. ``sum_j delta_j <= K``.
    delta : ndarray or None
    """
    width = gains.shape[-1]
    whole = int(np.floor(budget))
    if whole >= width:  # every positive gain is deleted
        return gains.sum(axis=-1), ((gains > 0).astype(gains.dtype) if fractions else None)
    split = np.partition(gains, width - whole - 1, axis=-1)[..., width - whole - 1:]
    tau = split[..., 0]  # the (floor(K) + 1)-th largest gain; the rest of split are >= tau
    harm = split[..., 1:].sum(axis=-1) + (budget - whole) * tau
    if not fractions:
        return harm, None
    tau_ = tau[..., None]
    left = budget - (split > tau_).sum(axis=-1)  # budget left for the gains equal to tau
    tied = gains == tau_  # ties may sit outside the split
    share = np.where(tau > 0, left / tied.sum(axis=-1), 0.0)
    delta = (gains > tau_) + tied * share[..., None].astype(gains.dtype)
    return harm, delta


def greedy_knapsack_deletion(gains: np.ndarray, values: np.ndarray, budget: float,
                             ) -> tuple[np.ndarray, np.ndarray]:
    """The paper's greedy adversary: best ratio first, skipping the items that do not fit.

    Items with positive gain are scanned in decreasing order of ``g_j / v_j`` (free items
    first); each is deleted if its value still fits in the budget left, and otherwise *skipped*,
    the scan going on with the next ones. This is Dekel & Shamir's "deletes the most valuable
    features ... until either the limit N is reached or all useful features are deleted" (§4),
    read with "most valuable" as the most harm per unit of value, the order of the relaxation.
    Stopping at the first item that does not fit (the relaxation's whole-item prefix) would leave
    budget unused that a cheaper later feature could spend.

    Parameters
    ----------
    gains : ndarray of shape (n_samples, n_features)
    values : ndarray of shape (n_features,)
    budget : float

    Returns
    -------
    gain : ndarray of shape (n_samples,)
        The harm done by the deletion: a lower bound on the optimum of (K).
    mask : ndarray of bool, shape (n_samples, n_features)
        The deletion (value <= budget).

    Notes
    -----
    One sort, then one pass over the sorted positions, each vectorised over the rows:
    O(m n log n). Equal to the optimum of (K) for unit values (and for 0/1 values with an
    integer budget), where no later item can fit once one does not.
    """
    gains = np.asarray(gains, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    m, n = gains.shape
    mask = np.zeros((m, n), dtype=bool)
    if n == 0:
        return np.zeros(m), mask
    order, useful = _ratio_order(gains, values)
    sorted_useful = np.take_along_axis(useful, order, axis=1)
    sorted_values = values[order]
    limit = _budget_limit(budget)
    used = np.zeros(m)
    rows = np.arange(m)
    for k in range(int(sorted_useful.sum(axis=1).max(initial=0))):  # useful items sort first
        fits = sorted_useful[:, k] & (used + sorted_values[:, k] <= limit)
        used = np.where(fits, used + sorted_values[:, k], used)
        mask[rows[fits], order[fits, k]] = True
    return np.where(mask, gains, 0.0).sum(axis=1), mask


@dataclass(frozen=True)
class ExactDeletion:
    """Result of :func:`exact_knapsack_deletion`: the optimum of (K) per row, with its proof.

    Attributes
    ----------
    gain : ndarray of shape (n_samples,)
        Harm of ``mask``, recomputed from the chosen set: a lower bound on the optimum, equal to
        it (to ``_GAP_RTOL`` of the row's total positive gain) where ``solved``.
    bound : ndarray of shape (n_samples,)
        A proven upper bound on the optimum: the relaxation's value, lowered by the MILP's dual
        bound where one was computed.
    mask : ndarray of bool, shape (n_samples, n_features)
        A feasible deletion (value <= budget) attaining ``gain``.
    solved : ndarray of bool, shape (n_samples,)
        ``bound - gain <= _GAP_RTOL * sum_j max(g_j, 0)``: the optimum is known.
    method : str
        ``"dp"`` or ``"milp"``.
    status : str
        ``"optimal"``, or why some rows were left unsolved (time limit, HiGHS status).
    """

    gain: np.ndarray
    bound: np.ndarray
    mask: np.ndarray
    solved: np.ndarray
    method: str
    status: str = "optimal"


def exact_knapsack_deletion(
    gains: np.ndarray,
    values: np.ndarray,
    budget: float,
    *,
    method: str = "auto",
    time_limit: float | None = None,
    max_work: float = 5e7,
) -> ExactDeletion:
    """Solve the 0/1 knapsack (K) exactly for every row.

    Two exact methods:

    * ``"dp"``, **dynamic programming over integer values** (every ``v_j`` an integer): the table
      ``best[i, c]`` (best harm to row i using capacity ``c <= floor(N)``) is updated once per
      feature, for all rows at once; the chosen set is recovered by backtracking. Work and memory
      O(m n (floor(N) + 1)), at most ``max_work`` table entries.
    * ``"milp"``, **any real values**: (K) as a mixed-integer program solved by HiGHS
      (:func:`scipy.optimize.milp`). Rows whose greedy deletion already attains the relaxation's
      bound are solved without it. In each remaining row i the candidate items
      ``{j : g_ij > 0, 0 < v_j <= N}`` are first reduced by reduced costs (Dembo & Hammer, see
      :func:`_fix_items`): the items any deletion better than the greedy one must take form
      ``F_i``, those it must leave are dropped, and the rest ``C_i`` (typically a handful) are the
      binaries. Rows left with at most ``_ENUM_MAX_VARS`` binaries are solved by enumerating
      their subsets (a fast path: HiGHS spends milliseconds on even a few binaries). Each other
      row is one block of a block-diagonal program over about ``_MILP_BLOCK_VARS`` binaries::

          min  - sum_i sum_{j in C_i} (g_ij / s_i) delta_ij
          s.t. sum_{j in C_i} v_j delta_ij <= N - V(F_i)   for every row i,   delta_ij in {0, 1},

      with ``s_i = max_{j in C_i} g_ij`` so that every row weighs alike. The blocks are
      independent, so the program's optimum is every row's optimum. A row's upper bound comes
      from the program's dual bound ``D``: ``sum_i opt_i / s_i <= -D`` and ``opt_k >= gain_k``
      for the other rows give ``opt_i <= gain_i + s_i (-D - sum_k gain_k / s_k)`` (gains of the
      binaries only); HiGHS runs with no relative gap, so at optimality the last factor is zero
      up to round-off.

    ``"auto"`` uses ``"dp"`` when the values are integers and the table fits ``max_work``,
    ``"milp"`` otherwise.

    Parameters
    ----------
    gains : ndarray of shape (n_samples, n_features)
    values : ndarray of shape (n_features,)
    budget : float
    method : {"auto", "dp", "milp"}, default="auto"
    time_limit : float or None, default=None
        Seconds allowed for the MILP solves (None: no limit; the enumerations, at most
        ``2^_ENUM_MAX_VARS`` subsets a row, are not counted). Rows not proven optimal in time are
        returned with ``solved=False``, their best deletion found and the bound proven so far.
    max_work : float, default=5e7
        Largest dynamic-programming table (entries); ``method="dp"`` raises beyond it.

    Returns
    -------
    ExactDeletion
    """
    gains = np.asarray(gains, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    if method not in ("auto", "dp", "milp"):
        raise ValueError(f"method must be 'auto', 'dp' or 'milp', got {method!r}.")
    integer = bool(np.all(values == np.round(values)))
    capacity = int(np.floor(_budget_limit(budget)))
    work = float(gains.shape[0]) * gains.shape[1] * (capacity + 1)
    if method == "dp" or (method == "auto" and integer and work <= max_work):
        if not integer:
            raise ValueError("method='dp' needs integer feature values; use 'milp'.")
        if work > max_work:
            raise ValueError(
                f"exact worst case too large for dynamic programming ({work:.3g} table entries > "
                f"max_work={max_work:.3g}); use method='milp'."
            )
        gain, mask = _dp_deletion(gains, values, capacity)
        return ExactDeletion(gain, gain.copy(), mask, np.ones(gain.shape, dtype=bool), "dp")
    return _milp_deletion(gains, values, budget, time_limit)


def _dp_deletion(gains: np.ndarray, values: np.ndarray, capacity: int):
    """(K) for integer values by dynamic programming on the features useful to some row."""
    m, n = gains.shape
    candidates = np.flatnonzero((gains > 0).any(axis=0))
    free = candidates[values[candidates] == 0]
    paid = candidates[values[candidates] > 0]
    mask = np.zeros((m, n), dtype=bool)
    mask[:, free] = gains[:, free] > 0
    if paid.size:
        g = np.maximum(gains[:, paid], 0.0)  # a non-positive item is never worth taking
        chosen = _knapsack_dp(g, values[paid].astype(np.int64), capacity) & (g > 0)
        mask[:, paid] = chosen
    return np.where(mask, gains, 0.0).sum(axis=1), mask


def _knapsack_dp(g: np.ndarray, v: np.ndarray, capacity: int) -> np.ndarray:
    """0/1 knapsack with integer weights ``v`` for every row of ``g``; returns the chosen items."""
    m, k = g.shape
    best = np.zeros((m, capacity + 1))
    take = np.zeros((k, m, capacity + 1), dtype=bool)
    for item in range(k):  # a loop over features; every row is updated at once
        w = int(v[item])
        if w > capacity:
            continue
        candidate = best[:, : capacity + 1 - w] + g[:, item : item + 1]
        improves = candidate > best[:, w:]
        take[item, :, w:] = improves
        best[:, w:] = np.where(improves, candidate, best[:, w:])
    chosen = np.zeros((m, k), dtype=bool)
    c = np.full(m, capacity)
    rows = np.arange(m)
    for item in range(k - 1, -1, -1):
        t = take[item, rows, c]
        chosen[:, item] = t
        c = c - np.where(t, int(v[item]), 0)
    return chosen


def _milp_deletion(gains, values, budget, time_limit) -> ExactDeletion:
    """(K) for any values: the greedy where it meets the relaxation; elsewhere the reduced-cost
    fixing, then enumeration of small residuals and block MILPs for the others."""
    limit = _budget_limit(budget)
    gain, mask = greedy_knapsack_deletion(gains, values, budget)
    # items that can never fit take no part, not even fractionally: a tighter relaxation
    fit = np.where((gains > 0) & (values <= limit), gains, 0.0)
    relax = knapsack_deletion(fit, values, budget)
    bound = relax.relaxed_gain
    tol = _GAP_RTOL * np.maximum(gains, 0.0).sum(axis=1)
    open_rows = np.flatnonzero(bound - gain > tol)
    fixed_in, free_vars = _fix_items(fit[open_rows], values, relax.fractions[open_rows], limit,
                                     gain[open_rows], tol[open_rows])
    small = free_vars.sum(axis=1) <= _ENUM_MAX_VARS
    rows = open_rows[small]
    enum_gain, enum_mask = _enumerate_rows(gains[rows], values, limit, fixed_in[small],
                                           free_vars[small])
    # the enumeration's optimum is the row's, unless round-off broke the budget (then unsolved)
    feasible = enum_mask @ values <= limit
    better = feasible & (enum_gain > gain[rows])
    bound[rows[feasible]] = np.maximum(enum_gain, gain[rows])[feasible]
    gain[rows[better]], mask[rows[better]] = enum_gain[better], enum_mask[better]
    open_rows, fixed_in, free_vars = open_rows[~small], fixed_in[~small], free_vars[~small]
    deadline = np.inf if time_limit is None else time.perf_counter() + time_limit
    status = "optimal"
    for block in _blocks(free_vars.sum(axis=1), _MILP_BLOCK_VARS):
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            status = "the time limit was reached"
            break
        rows = open_rows[block]
        block_gain, block_bound, block_mask, message = _milp_block(
            gains[rows], values, limit, fixed_in[block], free_vars[block], gain[rows],
            mask[rows], remaining)
        gain[rows], mask[rows] = block_gain, block_mask
        bound[rows] = np.minimum(bound[rows], np.maximum(block_bound, block_gain))
        if message is not None:
            status = message
    solved = bound - gain <= tol
    return ExactDeletion(gain, bound, mask, solved, "milp", status if not solved.all()
                         else "optimal")


def _fix_items(fit, values, fractions, limit, lower, tol):
    """Items every deletion better than ``lower`` must take (or leave), by reduced costs.

    With ``r`` the ratio ``g_c / v_c`` of a row's fractional item, the Lagrangian bound
    ``L = r N + sum_j max(g_j - r v_j, 0)`` equals the relaxation's value, and any deletion that
    disagrees with the relaxation on item j harms at most ``L - |g_j - r v_j|`` (Dembo & Hammer's
    reduction). Where that is below the greedy's harm ``lower`` (minus ``tol``), item j is fixed
    to the relaxation's choice; the greedy deletion agrees with every fixing, so it stays
    feasible in the reduced problem. Free items are always taken.

    Returns ``(fixed_in, free_vars)``: boolean masks of the items fixed in the deletion and of
    those left to the MILP.
    """
    candidate = fit > 0
    critical = (fractions > 0) & (fractions < 1)
    has_critical = critical.any(axis=1)
    v_c = np.where(critical, values, 0.0).sum(axis=1)
    ratio = np.where(has_critical, np.where(critical, fit, 0.0).sum(axis=1)
                     / np.where(has_critical, v_c, 1.0), 0.0)
    reduced = fit - ratio[:, None] * values
    lagrangian = ratio * limit + np.where(candidate, np.maximum(reduced, 0.0), 0.0).sum(axis=1)
    decisive = candidate & has_critical[:, None] & (
        np.abs(reduced) > (lagrangian - lower + tol)[:, None])
    fixed_in = candidate & ((values == 0) | (decisive & (fractions >= 1.0)))
    free_vars = candidate & ~fixed_in & ~(decisive & (fractions <= 0.0))
    return fixed_in, free_vars


def _enumerate_rows(gains, values, limit, fixed_in, free_vars):
    """Optimal deletion of every row by enumerating the subsets of its ``free_vars`` items.

    ``fixed_in`` items are always deleted; the others may use the budget left. Rows with the
    same number k of free items are done together: their 2^k subset harms and values are two
    matrix products. Returns ``(gain, mask)``.
    """
    mask = fixed_in.copy()
    counts = free_vars.sum(axis=1)
    room = limit - fixed_in @ values
    for k in np.unique(counts):
        rows = np.flatnonzero(counts == k)
        cols = np.nonzero(free_vars[rows])[1].reshape(rows.size, k)  # each row's k columns
        subsets = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1).astype(np.float64)
        step = max(1, _ENUM_ENTRIES // subsets.shape[0])
        for start in range(0, rows.size, step):  # chunks of rows, to bound memory
            r, c = rows[start:start + step], cols[start:start + step]
            harm = gains[r[:, None], c] @ subsets.T
            harm[values[c] @ subsets.T > room[r, None]] = -np.inf  # the empty set always fits
            chosen = subsets[np.argmax(harm, axis=1)] > 0
            mask[r[:, None], c] |= chosen
    return np.where(mask, gains, 0.0).sum(axis=1), mask


def _blocks(sizes: np.ndarray, max_vars: int) -> list[np.ndarray]:
    """Consecutive groups of positions whose ``sizes`` add up to about ``max_vars`` each."""
    ends = np.cumsum(sizes)
    group = np.maximum(ends - 1, 0) // max_vars
    return [np.flatnonzero(group == k) for k in np.unique(group)]


def _milp_block(gains, values, limit, fixed_in, free_vars, fallback_gain, fallback_mask,
                time_limit):
    """One block-diagonal MILP for the rows of ``gains``; see :func:`exact_knapsack_deletion`.

    ``fixed_in`` items are deleted, ``free_vars`` items are the MILP's binaries (with the budget
    left after the fixed ones), the others are kept. Returns ``(gain, bound, mask, message)``: the
    best feasible deletion per row (the MILP's, or the fallback where the MILP's is infeasible or
    worse), the proven upper bound on each row's optimum, and None or why HiGHS stopped short.
    """
    rows, cols = np.nonzero(free_vars)
    base_gain = np.where(fixed_in, gains, 0.0).sum(axis=1)
    if rows.size == 0:  # everything fixed: the fixed set is optimal, and the greedy agrees
        return base_gain, base_gain.copy(), fixed_in.copy(), None
    scale = np.zeros(gains.shape[0])  # s_i: the row's largest gain among its binaries
    np.maximum.at(scale, rows, gains[rows, cols])
    scale[scale == 0] = 1.0
    cost = -gains[rows, cols] / scale[rows]
    A = sp.csr_array((values[cols], (rows, np.arange(rows.size))),
                     shape=(gains.shape[0], rows.size))
    room = np.maximum(limit - fixed_in @ values, 0.0)
    with warnings.catch_warnings():  # options beyond scipy's list go to HiGHS verbatim
        warnings.filterwarnings("ignore", "Unrecognized options", RuntimeWarning)
        res = milp(cost, integrality=np.ones(rows.size), bounds=Bounds(0.0, 1.0),
                   constraints=LinearConstraint(A, -np.inf, room),
                   options={**_MILP_OPTIONS, "time_limit": float(time_limit)})
    message = None if res.status == 0 else f"HiGHS stopped: {res.message}"
    if res.x is None:
        return fallback_gain, np.full(gains.shape[0], np.inf), fallback_mask, message
    taken = res.x > 0.5
    mask = fixed_in.copy()
    mask[rows[taken], cols[taken]] = True
    gain = np.where(mask, gains, 0.0).sum(axis=1)
    # keep the fallback where rounding broke the budget or did worse (both feasible lower bounds)
    keep = (mask @ values > limit) | (gain < fallback_gain)
    mask[keep] = fallback_mask[keep]
    gain[keep] = fallback_gain[keep]
    # sum_i opt_i / s_i <= -D and opt_k >= gain_k give opt_i <= gain_i + s_i * slack
    dual = res.mip_dual_bound if res.mip_dual_bound is not None else np.nan
    slack = -dual - np.sum((gain - base_gain) / scale)
    slack = max(float(slack), 0.0) if np.isfinite(slack) else np.inf
    return gain, gain + scale * slack, mask, message
