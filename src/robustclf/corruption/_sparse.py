"""Random choices over the entries of a CSR matrix, in O(nnz) time and memory.

The sparse counterparts of :func:`robustclf.corruption._random._choose_per_row`, used by the
deletion corruptions on sparse input. Nothing here forms an (n_samples, n_features) array.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["stored_rows", "choose_stored", "sample_implicit_zeros", "cells_of_units"]


def stored_rows(X: sp.csr_matrix) -> np.ndarray:
    """Row index of every stored entry of ``X``, in storage order."""
    return np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))


def choose_stored(X: sp.csr_matrix, eligible: np.ndarray, keys: np.ndarray,
                  counts: np.ndarray) -> np.ndarray:
    """In every row, the ``counts[i]`` eligible stored entries with the smallest ``keys``.

    ``eligible`` and ``keys`` have one entry per stored entry (storage order); ``counts[i]`` is at
    most the number of eligible entries of row i. With i.i.d. uniform keys the choice is a uniform
    random subset of the row's eligible entries, and with one key per entry drawn in storage
    order it is the dense choice of ``_choose_per_row`` when every entry is stored.
    """
    rows = stored_rows(X)
    # by key, then stably by row (two sorts are much faster than np.lexsort on millions)
    order = np.argsort(np.where(eligible, keys, np.inf))
    order = order[np.argsort(rows[order], kind="stable")]
    rank = np.arange(X.nnz) - X.indptr[rows[order]]  # rank of the entry within its row
    chosen = np.zeros(X.nnz, dtype=bool)
    chosen[order] = rank < counts[rows[order]]
    return chosen


def _distinct_draws(sizes: np.ndarray, counts: np.ndarray, rng: np.random.Generator):
    """Per row i, ``counts[i]`` distinct integers drawn uniformly from ``range(sizes[i])``.

    Uniform draws with replacement, duplicates dropped and redrawn until each row has its count:
    the distinct values of an i.i.d. uniform sequence form a uniform random subset. Rows that need
    more than half their range draw the complement instead (their output is that large anyway).
    Returns ``(rows, values)``.
    """
    flip = counts > sizes // 2
    want = np.where(flip, sizes - counts, counts)
    width = int(sizes.max(initial=0)) + 1
    have = np.zeros(0, dtype=np.int64)  # row * width + value, sorted, distinct
    missing = want.copy()
    while missing.any():
        r = np.repeat(np.arange(sizes.size), missing)
        v = rng.integers(0, sizes[r])
        have = _sorted_distinct(np.concatenate([have, r * width + v]))
        missing = want - np.bincount(have // width, minlength=sizes.size)
    rows, values = np.divmod(have, width)
    if not flip.any():
        return rows, values
    keep = ~flip[rows]
    flipped = np.flatnonzero(flip)
    all_rows = np.repeat(flipped, sizes[flipped])
    all_values = np.arange(all_rows.size) - np.repeat(np.cumsum(sizes[flipped]) - sizes[flipped],
                                                       sizes[flipped])
    rest = ~np.isin(all_rows * width + all_values, have[~keep])
    return (np.concatenate([rows[keep], all_rows[rest]]),
            np.concatenate([values[keep], all_values[rest]]))


def _sorted_distinct(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` by one sort (numpy's hash-based unique is slower on millions)."""
    a = np.sort(a)
    return a[np.r_[True, a[1:] != a[:-1]]] if a.size else a


def sample_implicit_zeros(X: sp.csr_matrix, counts: np.ndarray, rng: np.random.Generator):
    """In every row i, ``counts[i]`` implicit (not stored) entries chosen uniformly at random.

    Returns ``(rows, cols)``. The r-th implicit column of a row is found from the row's sorted
    stored columns ``s_0 < s_1 < ...``: it is ``r + #{t : s_t - t <= r}``.
    """
    n = X.shape[1]
    n_implicit = n - np.diff(X.indptr)
    rows, ranks = _distinct_draws(n_implicit, counts, rng)
    stored = stored_rows(X)
    gaps = stored * (n + 1) + (X.indices - (np.arange(X.nnz) - X.indptr[stored]))
    skipped = np.searchsorted(gaps, rows * (n + 1) + ranks, side="right") - X.indptr[rows]
    return rows, ranks + skipped


def cells_of_units(chosen: np.ndarray, units: list[np.ndarray]):
    """Every (row, column) of the units chosen per row (``chosen``: (n_rows, n_units) bool)."""
    r, u = np.nonzero(chosen)
    sizes = np.array([cols.size for cols in units], dtype=np.intp)
    flat = np.concatenate(units) if units else np.zeros(0, dtype=np.intp)
    starts = np.cumsum(sizes) - sizes
    n = sizes[u]
    within = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    return np.repeat(r, n), flat[np.repeat(starts[u], n) + within]
