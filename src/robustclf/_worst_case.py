"""The adversary's problem, solved once for the whole library.

A feature-deleting adversary (Dekel & Shamir, ICML 2008, §2) removes a set D of features with total
value ``V(D) = sum_{j in D} v_j <= N`` from a row. If feature j contributes ``g_j`` to the quantity
the adversary wants to lower (the margin ``y (b + w.x)``, or the LP's Eq. (7) objective), deleting D
lowers it by ``sum_{j in D} g_j``. The adversary therefore solves a 0/1 knapsack per row::

    max_{delta in {0,1}^n} sum_j delta_j g_j   s.t.   sum_j delta_j v_j <= N.        (K)

Its LP relaxation (delta in [0, 1]^n) is a *fractional* knapsack, solved exactly by sorting the
items with positive gain by ``g_j / v_j`` and taking them in that order until the budget is spent
(the last one fractionally). Items with ``v_j = 0`` and ``g_j > 0`` are free and always taken;
items with ``g_j <= 0`` never help the adversary. This is Dekel & Shamir's Eq. (7) after the
change of variables ``tau = 1 - delta`` (tau marks the *kept* features, ``P = V([n]) - N``).

* The relaxation's value is an upper bound on (K); for ``v_j in {0, 1}`` and integer ``N`` it is
  exact (Lemma 1(b): the fractional item never arises).
* The *greedy* deletion (the whole items of the sorted prefix, i.e. the relaxation with its one
  fractional item dropped) is a feasible attack, so its value is a lower bound on (K).
* :func:`exact_knapsack_deletion` solves (K) exactly for small instances.

Every part of the library that needs the worst case calls :func:`knapsack_deletion`: the test-time
greedy adversary, the certified error, and the robust losses of the estimators. It works on all
rows at once; there is no Python loop over rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

__all__ = ["KnapsackDeletion", "knapsack_deletion", "unit_knapsack_deletion",
           "exact_knapsack_deletion"]

# Relative slack when comparing cumulative values with the budget, so that sums of values such as
# 0.1 + 0.2 that should exactly exhaust a budget of 0.3 are not rejected by round-off.
_BUDGET_RTOL = 1e-12


@dataclass(frozen=True)
class KnapsackDeletion:
    """Solution of the adversary's knapsack for every row.

    Attributes
    ----------
    relaxed_gain : ndarray of shape (n_samples,)
        Optimal value of the LP relaxation (fractional knapsack): an upper bound on the harm any
        feasible deletion can do; exact for 0/1 values and an integer budget.
    fractions : ndarray of shape (n_samples, n_features)
        An optimal fractional deletion ``delta`` in [0, 1], at most one fractional entry per row
        (Dekel & Shamir, Lemma 1(c)).
    greedy_mask : ndarray of bool, shape (n_samples, n_features)
        The whole items of the sorted prefix: a feasible deletion (value <= budget).
    greedy_gain : ndarray of shape (n_samples,)
        Harm done by ``greedy_mask``: a lower bound on the optimal harm.
    """

    relaxed_gain: np.ndarray
    fractions: np.ndarray
    greedy_mask: np.ndarray
    greedy_gain: np.ndarray


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
    ``g_j / v_j`` are broken by column index (stable sort); they do not change the optimal value.
    Inputs are trusted: callers validate them (see :mod:`robustclf._validation`).
    """
    gains = np.asarray(gains, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    m, n = gains.shape
    if n == 0:  # nothing to delete
        zeros = np.zeros(m)
        return KnapsackDeletion(zeros, np.zeros((m, 0)), np.zeros((m, 0), dtype=bool), zeros)
    useful = gains > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(values > 0, gains / np.where(values > 0, values, 1.0), np.inf)
    ratio = np.where(useful, ratio, -np.inf)
    order = np.argsort(-ratio, axis=1, kind="stable")

    sorted_useful = np.take_along_axis(useful, order, axis=1)
    sorted_values = np.where(sorted_useful, values[order], 0.0)
    sorted_gains = np.where(sorted_useful, np.take_along_axis(gains, order, axis=1), 0.0)
    cum_values = np.cumsum(sorted_values, axis=1)
    limit = budget * (1.0 + _BUDGET_RTOL) + _BUDGET_RTOL
    whole = sorted_useful & (cum_values <= limit)

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
    greedy_mask = np.zeros((m, n), dtype=bool)
    np.put_along_axis(greedy_mask, order, whole, axis=1)
    greedy_gain = np.where(whole, sorted_gains, 0.0).sum(axis=1)
    relaxed_gain = greedy_gain + part * sorted_gains[rows, first_over]
    return KnapsackDeletion(relaxed_gain, fractions, greedy_mask, greedy_gain)


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


def exact_knapsack_deletion(
    gains: np.ndarray,
    values: np.ndarray,
    budget: float,
    *,
    max_work: float = 5e7,
) -> tuple[np.ndarray, np.ndarray]:
    """Solve the 0/1 knapsack (K) exactly for every row (small instances only).

    Two exact methods, chosen automatically:

    * **Dynamic programming over integer values** when every ``v_j`` is an integer: the table
      ``best[i, c]`` (best harm to row i using capacity ``c <= floor(N)``) is updated once per
      feature, for all rows at once; the chosen set is recovered by backtracking. Work and memory
      are O(m n (floor(N) + 1)).
    * **Enumeration** of every subset that fits the budget, otherwise (non-integer values): the
      harm of all rows for all feasible subsets is one matrix product, so the method is limited to
      about 20 features with positive gain.

    Parameters
    ----------
    gains : ndarray of shape (n_samples, n_features)
    values : ndarray of shape (n_features,)
    budget : float
    max_work : float, default=5e7
        Refuse (``ValueError``) instances whose table or subset matrix would exceed this many
        entries; use the bounds of :func:`knapsack_deletion` instead.

    Returns
    -------
    gain : ndarray of shape (n_samples,)
        The optimal harm.
    mask : ndarray of bool, shape (n_samples, n_features)
        An optimal deletion.
    """
    gains = np.asarray(gains, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    m, n = gains.shape
    # Features that can never help (non-positive gain in every row) are left out of the search.
    candidates = np.flatnonzero((gains > 0).any(axis=0))
    free = candidates[values[candidates] == 0]
    paid = candidates[values[candidates] > 0]
    mask = np.zeros((m, n), dtype=bool)
    mask[:, free] = gains[:, free] > 0
    base_gain = np.where(mask, gains, 0.0).sum(axis=1)

    if paid.size == 0:
        return base_gain, mask
    v = values[paid]
    g = np.maximum(gains[:, paid], 0.0)  # a non-positive item is never worth taking
    if np.all(v == np.round(v)):
        capacity = int(np.floor(budget * (1.0 + _BUDGET_RTOL) + _BUDGET_RTOL))
        work = float(m) * paid.size * (capacity + 1)
        if work > max_work:
            raise ValueError(
                f"exact worst case too large for dynamic programming ({work:.3g} table entries > "
                f"max_work={max_work:.3g}); use the relaxation bound instead."
            )
        chosen = _knapsack_dp(g, v.astype(np.int64), capacity)
    else:
        if paid.size > 22:
            raise ValueError(
                f"exact worst case with non-integer feature values enumerates subsets; "
                f"{paid.size} candidate features is too many (limit 22). Use integer values or "
                "the relaxation bound."
            )
        subsets = np.array(list(product((False, True), repeat=paid.size)), dtype=bool)
        subsets = subsets[subsets @ v <= budget * (1.0 + _BUDGET_RTOL) + _BUDGET_RTOL]
        if float(m) * subsets.shape[0] > max_work:
            raise ValueError(
                f"exact worst case needs {m * subsets.shape[0]:.3g} subset evaluations > "
                f"max_work={max_work:.3g}; use the relaxation bound instead."
            )
        best = np.argmax(g @ subsets.T.astype(np.float64), axis=1)
        chosen = subsets[best]
    chosen &= g > 0
    mask[:, paid] = chosen
    return base_gain + np.where(chosen, g, 0.0).sum(axis=1), mask


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
