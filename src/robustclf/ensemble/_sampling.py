"""Vectorised IMPORTANCE, MARGINALIZE and DEEMPHASIZE of FeatureBoost (O'Sullivan et al. 2000).

These private functions work on *units*: a unit is one feature, or a whole group of features
(an encoding of THRESHOLD, say) that is resampled, weighted and removed as a block. Resampling a
unit of a row means copying the unit's columns from one *donor* row of the training set, drawn
uniformly at random (Tables 2-3, lines "x_2 <- a random example; x_1[f] <- x_2[f]").

Every function builds all perturbed rows of a batch as one array and calls ``predict`` once per
batch; batches are cut so that an array holds at most ``_MAX_ELEMENTS`` floats. There is no Python
loop over sampled examples.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.utils.validation import _check_sample_weight

from .._validation import check_groups

__all__ = ["RowSampler", "checked_weights", "weighted_nanmean", "make_units", "importance",
           "marginal_error", "deemphasize", "draw_ranks"]

#: Largest perturbed batch (number of float64 entries, 32 MB) handed to one ``predict`` call.
_MAX_ELEMENTS = 1 << 22

Predict = Callable[[np.ndarray], np.ndarray]


def checked_weights(sample_weight, X) -> np.ndarray | None:
    """Checked ``sample_weight`` (None stays None): one non-negative float per row, not all
    zero (scikit-learn's checks and messages)."""
    if sample_weight is None:
        return None
    return _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)




def weighted_nanmean(X: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Column means over the present (non-NaN) entries, each row counted with its weight.

    A column with no present entry of positive weight gets 0.
    """
    present = ~np.isnan(X)
    w = np.ones(X.shape[0]) if weight is None else weight
    mass = present.T.astype(np.float64) @ w
    return np.where(present, X, 0.0).T @ w / np.where(mass > 0, mass, 1.0)


class RowSampler:
    """Draws training rows with replacement, with probability proportional to their weight.

    Without weights a row index is ``rng.integers(0, n_rows)``. With integer weights an integer
    ``j`` is drawn uniformly from ``[0, sum(w))`` and mapped to the row whose block of the
    cumulative weights holds it: row ``i`` owns ``w_i`` consecutive integers, exactly as ``w_i``
    adjacent copies of it would in ``np.repeat(X, w, axis=0)``. The same generator therefore
    draws the same training rows from weights ``k`` as from the rows repeated ``k`` times, and
    unit weights give the unweighted draws. Other weights draw a uniform real in
    ``[0, sum(w))`` (the same distribution; no such identity exists for them).

    Parameters
    ----------
    n_rows : int
    sample_weight : ndarray of shape (n_rows,) or None
        Non-negative, with a positive sum (as returned by ``_check_sample_weight``).
    """

    def __init__(self, n_rows: int, sample_weight: np.ndarray | None = None):
        self.n_rows = n_rows
        self.sample_weight = sample_weight
        if sample_weight is None:
            self.total = float(n_rows)
            return
        self._cumulative = np.cumsum(sample_weight)
        self.total = float(self._cumulative[-1])
        self._integer = bool(np.all(sample_weight == np.round(sample_weight)))
        positive = np.flatnonzero(sample_weight > 0)
        self._last = int(positive[-1]) if positive.size else 0

    def __call__(self, rng: np.random.Generator, size) -> np.ndarray:
        """Row indices of the given shape."""
        if self.sample_weight is None:
            return rng.integers(0, self.n_rows, size=size)
        if self._integer:
            draws = rng.integers(0, round(self.total), size=size)
        else:
            draws = rng.random(size) * self.total
        rows = np.searchsorted(self._cumulative, draws, side="right")
        return np.minimum(rows, self._last)  # a real draw rounded up to the total


def make_units(groups, n_features: int) -> list[np.ndarray]:
    """Columns of every unit: each group of ``groups``, then each column in no group alone.

    ``groups=None`` makes every feature a unit of its own (the paper's setting).
    """
    if groups is None:
        return [np.array([j], dtype=np.intp) for j in range(n_features)]
    units = check_groups(groups, n_features)
    covered = np.zeros(n_features, dtype=bool)
    for cols in units:
        covered[cols] = True
    return units + [np.array([j], dtype=np.intp) for j in np.flatnonzero(~covered)]


def unit_of_columns(units: list[np.ndarray], n_features: int) -> np.ndarray:
    """Index of the unit holding each column."""
    unit_of = np.empty(n_features, dtype=np.intp)
    for u, cols in enumerate(units):
        unit_of[cols] = u
    return unit_of


def draw_ranks(p: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """Ranks of the units in ``n_draws`` independent orderings drawn without replacement from p.

    The first ``K`` units of an ordering (those of rank < K) are a draw of ``K`` units without
    replacement, successively proportional to ``p`` (exponential keys ``E / p``, smallest first).
    Units with ``p = 0`` come after all others, in random order.

    Returns
    -------
    ranks : ndarray of int, shape (n_draws, n_units)
    """
    n_units = p.shape[0]
    noise = rng.exponential(size=(n_draws, n_units))
    positive = p > 0
    # log keys: log(E) - log(p) orders like E / p without overflow for tiny p
    with np.errstate(divide="ignore"):  # E = 0 gives key -inf: drawn first, as E / p = 0
        keys = np.where(positive, np.log(noise) - np.log(np.where(positive, p, 1.0)), -np.inf)
    if not positive.all():
        big = keys.max(axis=1, keepdims=True) + 1.0
        keys = np.where(positive, keys, big + noise)
    order = np.argsort(keys, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(n_units)[None, :], axis=1)
    return ranks


def _batches(n_items: int, rows_per_item: int, n_columns: int):
    """Slices of ``range(n_items)`` whose stacked rows stay under ``_MAX_ELEMENTS`` floats."""
    size = max(1, _MAX_ELEMENTS // max(1, rows_per_item * n_columns))
    for start in range(0, n_items, size):
        yield slice(start, min(n_items, start + size))


def importance(X: np.ndarray, predict: Predict, columns: np.ndarray, unit_of: np.ndarray,
               n_units: int, n_samples: int, rng: np.random.Generator,
               sampler: RowSampler | None = None) -> np.ndarray:
    """IMPORTANCE (Table 2): how often resampling one unit changes the hypothesis' prediction.

    For every unit, ``n_samples`` (row, donor) pairs are drawn uniformly from ``X``; the unit's
    columns of the row are replaced by the donor's and the prediction is compared with the
    prediction on the unchanged row. ``c_u`` is the fraction of changed predictions, in [0, 1].

    Units with no column among ``columns`` (the columns the hypothesis sees) cannot change its
    prediction: their importance is exactly 0 and they are not sampled.

    Parameters
    ----------
    X : ndarray, shape (n_rows, n_features)
        The training set.
    predict : callable
        Maps rows restricted to ``columns`` to predictions.
    columns : ndarray of int
        The columns the hypothesis was trained on.
    unit_of : ndarray of int, shape (n_features,)
    n_units : int
    n_samples : int
        The paper's 500 (the ``T`` of Table 2).
    rng : numpy.random.Generator
    sampler : RowSampler, default=None
        Draws the rows and the donors (in proportion to the sample weights); uniform when None.

    Returns
    -------
    c : ndarray, shape (n_units,)
    """
    c = np.zeros(n_units)
    col_units = unit_of[columns]
    seen = np.unique(col_units)
    positions = [np.flatnonzero(col_units == u) for u in seen]
    sample = RowSampler(X.shape[0]) if sampler is None else sampler
    rows = sample(rng, (seen.size, n_samples))
    donors = sample(rng, (seen.size, n_samples))
    Xc = X[:, columns]
    before = predict(Xc)
    for batch in _batches(seen.size, n_samples, columns.size):
        r = rows[batch].ravel()
        d = donors[batch].ravel()
        # the (row, column) entries to replace: each block of n_samples rows gets its unit's
        # columns (a loop over the units of the batch, not over sampled examples)
        row_ids = np.concatenate([
            np.repeat(np.arange(b * n_samples, (b + 1) * n_samples), pos.size)
            for b, pos in enumerate(positions[batch])])
        col_ids = np.concatenate([np.tile(pos, n_samples) for pos in positions[batch]])
        new_values = Xc[d[row_ids], col_ids]
        # a row whose donor agrees on the unit is unchanged and cannot change its prediction:
        # only rows with a changed value are built and predicted
        differs = np.bincount(row_ids, weights=new_values != Xc[r[row_ids], col_ids],
                              minlength=r.size) > 0
        changed = np.zeros(r.size, dtype=bool)
        if differs.any():
            keep = np.flatnonzero(differs)
            new_index = np.cumsum(differs) - 1
            entry = differs[row_ids]
            perturbed = Xc[r[keep]]
            perturbed[new_index[row_ids[entry]], col_ids[entry]] = new_values[entry]
            changed[keep] = predict(perturbed) != before[r[keep]]
        c[seen[batch]] = changed.reshape(-1, n_samples).mean(axis=1)
    return c


def marginal_error(X: np.ndarray, y: np.ndarray, predict: Predict, columns: np.ndarray,
                   unit_of: np.ndarray, ranks: np.ndarray, donors: np.ndarray, rows: np.ndarray,
                   ks) -> np.ndarray:
    """MARGINALIZE (Table 3) for several K at once, with nested perturbations.

    Sampled row ``i`` (``rows[i]``) has a random ordering of the units (``ranks[i]``, drawn from
    p by :func:`draw_ranks`) and one donor row per unit (``donors[i]``). For a given ``K`` the
    units of rank < K take the donor's values: a draw of ``K`` units without replacement from p,
    each from its own random example, exactly as Table 3 for that K. The perturbations for
    successive K are nested (common random numbers), which makes the error a smooth function of
    K and lets :func:`deemphasize` test many K with one ``predict`` per batch.

    The marginalised error is the error rate *against the labels* ``y`` (the text: "marginalized
    performance", equal to the training error at K = 0, as line 2 of Table 4 initialises it),
    counted once per sampled example after all K units are replaced.

    Returns
    -------
    errors : ndarray, shape (len(ks),)
    """
    ks = np.asarray(ks, dtype=np.intp)
    Xc = X[:, columns]
    col_units = unit_of[columns]
    base = Xc[rows]
    donor_values = Xc[donors[:, col_units], np.arange(columns.size)[None, :]]
    col_ranks = ranks[:, col_units]
    target = y[rows]
    errors = np.empty(ks.size)
    n = rows.size
    for batch in _batches(ks.size, n, columns.size):
        k = ks[batch]
        mask = col_ranks[None, :, :] < k[:, None, None]
        perturbed = np.where(mask, donor_values[None], base[None]).reshape(-1, columns.size)
        wrong = predict(perturbed) != np.tile(target, k.size)
        errors[batch] = wrong.reshape(k.size, n).mean(axis=1)
    return errors


def deemphasize(X: np.ndarray, y: np.ndarray, predict: Predict, columns: np.ndarray,
                unit_of: np.ndarray, p: np.ndarray, *, previous_error: float,
                full_error: float, t: int, n_estimators: int, n_samples: int,
                k_min: int, k_max: int, rng: np.random.Generator,
                sampler: RowSampler | None = None) -> tuple[np.ndarray, int]:
    """DEEMPHASIZE (Table 4): the units to remove before training hypothesis ``t``.

    ``K`` grows from ``k_min`` until the marginalised error of the previous hypothesis reaches
    ``((T - t) * previous_error + t * full_error) / T`` (the text's threshold; the division by T
    is missing in the table), or until ``K = k_max``. Then ``K`` units are drawn without
    replacement from ``p`` and removed. Instead of one MARGINALIZE call per K, one ordering per
    sampled example is drawn from p and the perturbed rows are grown incrementally over K
    (:func:`marginal_error`), in batches of 1, 2, 4, ... values of K evaluated with one
    ``predict`` each; the scan stops at the first batch holding a K that meets the threshold.
    Sampled examples and donors are drawn by ``sampler`` (uniformly when None).

    Returns
    -------
    removed : ndarray of int
        The removed units.
    k : int
        Their number.
    """
    n_units = p.shape[0]
    threshold = ((n_estimators - t) * previous_error + t * full_error) / n_estimators
    k = k_max
    if k_min < k_max:
        sample = RowSampler(X.shape[0]) if sampler is None else sampler
        rows = sample(rng, n_samples)
        donors = sample(rng, (n_samples, n_units))
        ranks = draw_ranks(p, n_samples, rng)
        candidates = np.arange(k_min, k_max)
        largest = max(1, _MAX_ELEMENTS // max(1, n_samples * columns.size))
        start, step = 0, 1
        while start < candidates.size:  # batches of 1, 2, 4, ... K values (usually one)
            ks = candidates[start:start + step]
            errors = marginal_error(X, y, predict, columns, unit_of, ranks, donors, rows, ks)
            hit = np.flatnonzero(errors >= threshold)
            if hit.size:
                k = int(ks[hit[0]])
                break
            start, step = start + step, min(2 * step, largest)
    removal = draw_ranks(p, 1, rng)[0]
    return np.flatnonzero(removal < k), k
