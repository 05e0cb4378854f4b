"""Random (non-adversarial) test-time corruptions.

Four corruptions that pick the damaged features of each row at random, independently of the model:

* :class:`RandomDeletion` — delete features uniformly at random (Globerson & Roweis 2006, the
  protocol Dekel & Shamir 2008 follow in §4);
* :class:`GroupDeletion` — delete whole predefined feature groups (O'Sullivan et al. 2000, §5);
* :class:`MarginalResampling` — replace features (or whole groups) by their value in a random row of
  a reference sample, leaving the marginal distribution unchanged (O'Sullivan et al. 2000, §3, §5);
* :class:`FeatureNoise` — add noise to, or replace with noise, random features (Dekel & Shamir 2008,
  §2.4).

Shared conventions
------------------
**How many.** Each corruption takes exactly one of ``k`` (a count per row) and ``fraction``. In a
row with ``m`` candidate units (features or groups) it corrupts ``min(k, m)`` units, or
``floor(fraction * m + 1/2)`` units: the nearest integer, halves rounded *up*. The product is taken
with a relative tolerance of 1e-12 so that decimal fractions behave as written (``fraction=0.7`` of
45 features is 31.5, which rounds to 32, although ``0.7 * 45`` is ``31.499999999999996`` in floating
point). The count is therefore exact and deterministic given the row.

**Which.** The units to corrupt are a uniformly random subset of that size, drawn independently per
row: each candidate gets an i.i.d. uniform key and the ``count`` smallest keys win (one ``argsort``
over all rows at once; there is no Python loop over rows).

**What a deletion writes.** ``fill=np.nan`` (the default since issue 16): the deleted entry is
absent, and each model handles it per its method (``docs/missing_values.md``; a scikit-learn
model that rejects NaN needs an imputer in its pipeline). ``fill=0.0``: the papers' protocol, a raw
zero (the default before issue 16, with the same outputs for the same seed).

**Missing entries.** NaN marks an already absent entry and is never overwritten. Per-feature
corruptions choose among the row's present (non-NaN) features, so the count of changed entries is
exact; group corruptions choose among all groups and leave NaN entries of a chosen group as NaN.

**Containers** (see :mod:`robustclf.corruption._base`). Every corruption returns the container it
was given, with, for a DataFrame, the same values as for ``X.to_numpy()`` with the same seed.

* *DataFrames.* :class:`RandomDeletion`, :class:`GroupDeletion` and :class:`MarginalResampling`
  accept every column kind: a missing value of any column (NaN, None, ``pd.NA``, NaT) is an
  absent entry; a present entry of a non-numeric column (categorical, string, object...) counts
  as non-zero for ``among="nonzero"``; deleted entries of such columns become missing values
  (which needs ``fill=np.nan``), and resampled ones take the donor row's value (categories
  kept). :class:`FeatureNoise` computes with the values and refuses non-numeric columns.
  ``groups`` may list column names instead of positions.
* *Sparse matrices.* :class:`RandomDeletion` and :class:`GroupDeletion` return a sparse matrix of
  the same format, in O(nnz) time and memory (plus the NaN entries they write): ``fill=0.0``
  removes the deleted stored entries, ``fill=np.nan`` stores NaN in every deleted entry.
  :class:`MarginalResampling` and :class:`FeatureNoise` would write into implicit zeros and
  refuse sparse input.
* *Dask arrays and DataFrames.* Corrupted chunk by chunk, lazily, one independent random stream
  per chunk (:mod:`robustclf.corruption._dask`): the same distribution as in memory, not the
  same draws. :class:`MarginalResampling` needs an in-memory ``reference`` there.
"""

from __future__ import annotations

import copy
from typing import ClassVar

import numpy as np

from .._blockwise import is_dask_collection
from .._validation import (
    check_count_or_fraction,
    check_group_names,
    check_groups,
    check_matrix,
    check_nonnegative,
    check_option,
)
from ._base import Corruption, DeletionCorruption
from ._sparse import cells_of_units, choose_stored, sample_implicit_zeros, stored_rows

__all__ = ["RandomDeletion", "GroupDeletion", "MarginalResampling", "FeatureNoise"]

# Relative tolerance of the half-up rounding of ``fraction * m`` (see the module docstring).
_ROUND_RTOL = 1e-12


def _round_half_up(x) -> np.ndarray:
    """Nearest integer of non-negative ``x``, halves (up to a relative 1e-12) rounded up."""
    x = np.asarray(x, dtype=np.float64)
    return np.floor(x + 0.5 + _ROUND_RTOL * np.maximum(1.0, x)).astype(np.intp)


def _counts(n_candidates: np.ndarray, k, fraction) -> np.ndarray:
    """Units to corrupt in rows with ``n_candidates`` candidates: ``min(k, m)`` or the rounded
    fraction of ``m`` (see the module docstring)."""
    if k is not None:
        return np.minimum(n_candidates, k)
    return np.minimum(n_candidates, _round_half_up(fraction * n_candidates))


def _choose_per_row(eligible: np.ndarray, k, fraction, rng: np.random.Generator) -> np.ndarray:
    """Choose, in every row, a uniformly random subset of the eligible units.

    Parameters
    ----------
    eligible : ndarray of bool, shape (n_samples, n_units)
        Candidate units of each row.
    k : int or None
        Units per row (at most the row's number of candidates). Exactly one of ``k`` and
        ``fraction`` is given (as returned by ``check_count_or_fraction``).
    fraction : float or None
        Fraction of the row's candidates, rounded half up (see the module docstring).
    rng : numpy.random.Generator

    Returns
    -------
    chosen : ndarray of bool, shape (n_samples, n_units)
        ``chosen.sum(axis=1)`` is exactly the count per row, and ``chosen`` implies ``eligible``.
    """
    n_rows, n_units = eligible.shape
    counts = _counts(eligible.sum(axis=1), k, fraction)
    keys = rng.random((n_rows, n_units))
    keys[~eligible] = np.inf  # ineligible units sort last and are never among the first `count`
    order = np.argsort(keys, axis=1)
    chosen = np.zeros((n_rows, n_units), dtype=bool)
    np.put_along_axis(chosen, order, np.arange(n_units) < counts[:, None], axis=1)
    return chosen


def _no_cells():
    return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)


def _with_group_positions(corruption, data):
    """``corruption`` with its ``groups`` given by column positions (names resolved on ``X``)."""
    groups = check_group_names(corruption.groups, data.columns)
    if groups is corruption.groups:
        return corruption
    bound = copy.copy(corruption)
    bound.groups = groups
    return bound


def _unit_of_column(units: list[np.ndarray], n_features: int) -> np.ndarray:
    """Index of the unit holding each column, or ``len(units)`` for columns in no unit."""
    unit_of = np.full(n_features, len(units), dtype=np.intp)
    for u, cols in enumerate(units):
        unit_of[cols] = u
    return unit_of


def _expand_to_columns(per_unit: np.ndarray, unit_of: np.ndarray, pad) -> np.ndarray:
    """Broadcast a per-(row, unit) array to (row, column); columns in no unit get ``pad``."""
    padded = np.concatenate(
        [per_unit, np.full((per_unit.shape[0], 1), pad, dtype=per_unit.dtype)], axis=1
    )
    return padded[:, unit_of]


class RandomDeletion(DeletionCorruption):
    """Delete features chosen uniformly at random, independently in every row.

    In each row, exactly ``k`` features (or ``round(fraction * m)`` of the row's ``m`` candidate
    features) are chosen uniformly at random and set to ``fill``. With ``among="nonzero"`` only the
    row's non-zero entries are candidates: this is the random-deletion protocol of Globerson &
    Roweis (2006) that Dekel & Shamir (2008, §4) follow, which "uniformly deletes N non-zero
    features from each test instance". With ``among="all"`` every present feature is a candidate
    (O'Sullivan et al. 2000, §5: "a random n percent of the features").

    Parameters
    ----------
    k : int, default=None
        Number of features to delete per row. A row with fewer than ``k`` candidates loses all of
        them. Give exactly one of ``k`` and ``fraction``.
    fraction : float in [0, 1], default=None
        Fraction of each row's candidate features to delete, rounded to the nearest integer with
        halves rounded up (``floor(fraction * m + 1/2)``; see ``robustclf.corruption._random``).
    among : {"all", "nonzero"}, default="all"
        Candidates: all present (non-NaN) features, or only the present non-zero ones.
    fill : float, default=np.nan
        Value written into deleted entries. ``np.nan`` (default): the entry is absent, and
        every estimator of the library handles it per its method (see
        ``docs/missing_values.md``); a scikit-learn model that rejects NaN needs an imputer
        in its pipeline. ``0.0``: the papers' own protocol (deletion writes zeros in the raw
        features).

    Notes
    -----
    Entries that are already NaN are never candidates and stay NaN, so the number of deleted
    entries of every row is exactly ``min(k, m)`` (or the rounded fraction of ``m``). Deleting a
    zero with ``fill=0.0`` changes no value but still counts as a deletion under ``among="all"``.

    **Sparse X** (CSR, CSC, COO... ; returned in the same format, never densified).
    ``among="nonzero"``: the candidates are the row's stored non-zero entries; the deleted ones
    are removed from storage (``fill=0.0``) or set to NaN (``fill=np.nan``). ``among="all"``:
    the candidates are all present features, implicit zeros included, exactly as for the dense
    array: how many of a row's deletions fall on stored entries is hypergeometric, those are
    chosen uniformly among the stored entries, and the deletions that fall on implicit zeros are
    no-ops with ``fill=0.0`` (the zero stays implicit) and store a NaN with ``fill=np.nan``
    (the matrix then grows by one stored entry per such deletion). The random draws are one
    uniform key per stored entry, in storage order, before anything else: on a matrix whose
    every entry is stored the result equals the dense array's for the same seed; otherwise it
    has the same distribution but not the same draws. Time and memory O(nnz) (plus the NaN
    entries written). That growth is the meaning of the default, not an accident: with
    ``among="all"`` and ``fill=np.nan`` a fraction ``f`` deleted stores ``f * n_samples *
    n_features`` NaN entries (on 20,000 x 5,000 at 0.2 % density, ``fraction=0.3`` writes 30 M
    of them, 1.8 GB). For text-like data pass ``among="nonzero"`` (delete words that occur)
    or ``fill=0.0`` (a linear model reads an absent entry as zero anyway; 15 MB there).

    References
    ----------
    .. [1] A. Globerson and S. Roweis. Nightmare at test time: robust learning by feature deletion.
       ICML 2006.
    .. [2] O. Dekel and O. Shamir. Learning to classify with missing and corrupted features.
       ICML 2008, §4.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import RandomDeletion
    >>> X = np.array([[1.0, 0.0, 2.0, 3.0]])
    >>> Xc = RandomDeletion(k=2, among="nonzero").corrupt(X, random_state=0)
    >>> int((Xc != X).sum())
    2
    """

    level_params: ClassVar[tuple[str, ...]] = ("fraction", "k")

    def __init__(self, *, k=None, fraction=None, among="all", fill=np.nan):
        self.k = k
        self.fraction = fraction
        self.among = among
        self.fill = fill

    def _deletion_mask(self, X, y, model, rng):
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        among = check_option(self.among, "among", ("all", "nonzero"))
        eligible = ~np.isnan(X)
        if among == "nonzero":
            eligible &= X != 0
        return _choose_per_row(eligible, k, fraction, rng)

    def _sparse_deletion(self, X, y, model, rng, fill):
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        among = check_option(self.among, "among", ("all", "nonzero"))
        m, n = X.shape
        rows = stored_rows(X)
        keys = rng.random(X.nnz)  # first, as the dense path's keys (see the class Notes)
        present = ~np.isnan(X.data)
        eligible = present & (X.data != 0) if among == "nonzero" else present
        n_eligible = np.bincount(rows, weights=eligible, minlength=m).astype(np.intp)
        if among == "nonzero":
            counts = _counts(n_eligible, k, fraction)
            return choose_stored(X, eligible, keys, counts), *_no_cells()
        n_implicit = n - np.diff(X.indptr)
        counts = _counts(n_eligible + n_implicit, k, fraction)
        # how many of a uniform subset of the row's present entries fall on stored ones
        on_stored = rng.hypergeometric(n_eligible, n_implicit, counts) if m else counts
        deleted = choose_stored(X, eligible, keys, on_stored)
        if fill == 0:  # deleting an implicit zero changes nothing
            return deleted, *_no_cells()
        return deleted, *sample_implicit_zeros(X, counts - on_stored, rng)


class GroupDeletion(DeletionCorruption):
    """Delete whole predefined groups of features, chosen at random in every row.

    In each row, ``k`` groups (or ``round(fraction * n_groups)``, halves rounded up) are chosen
    uniformly at random, independently of the other rows, and every column of a chosen group is set
    to ``fill``. This is the "feature set" corruption of O'Sullivan et al. (2000, §5, Figure 2,
    right), which simulates "clusters of features tending to be occluded or corrupted together";
    deleting whole groups also keeps multi-column encodings (one-hot, Gray code) consistent.

    Parameters
    ----------
    groups : sequence of array-like of int or str, or ndarray of int
        Disjoint, non-empty lists of column indices, or one group label per column (an int array
        of shape (n_features,); see ``robustclf._validation.check_groups``). When ``X`` is
        a DataFrame a group may list column names instead (an unknown name is an error; a list
        of integers is always read as positions). Columns in no group are never deleted.
    k : int, default=None
        Number of groups to delete per row (all of them if ``k`` exceeds the number of groups).
        Give exactly one of ``k`` and ``fraction``.
    fraction : float in [0, 1], default=None
        Fraction of the groups to delete per row, rounded half up.
    fill : float, default=np.nan
        Value written into deleted entries. ``np.nan`` (default): the entry is absent, and
        every estimator of the library handles it per its method (see
        ``docs/missing_values.md``); a scikit-learn model that rejects NaN needs an imputer
        in its pipeline. ``0.0``: the papers' own protocol (deletion writes zeros in the raw
        features).

    Notes
    -----
    Groups are chosen among all groups regardless of their values; NaN entries of a chosen group
    stay NaN.

    The choice does not depend on the values, so a DataFrame or a sparse matrix gets the same
    deletion as the dense array for the same seed. Sparse ``X`` stays sparse (same format): with
    ``fill=0.0`` the stored entries of the chosen groups are removed, with ``fill=np.nan`` every
    entry of a chosen group is stored as NaN.

    References
    ----------
    .. [1] J. O'Sullivan, J. Langford, R. Caruana and A. Blum. FeatureBoost: a meta-learning
       algorithm that improves model robustness. ICML 2000, §5.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import GroupDeletion
    >>> X = np.arange(1.0, 7.0).reshape(1, 6)
    >>> GroupDeletion([[0, 1, 2], [3, 4], [5]], k=1).corrupt(X, random_state=1).shape
    (1, 6)
    """

    level_params: ClassVar[tuple[str, ...]] = ("fraction", "k")

    def __init__(self, groups, *, k=None, fraction=None, fill=np.nan):
        self.groups = groups
        self.k = k
        self.fraction = fraction
        self.fill = fill

    def _deletion_mask(self, X, y, model, rng):
        groups = check_groups(self.groups, X.shape[1])
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        chosen = _choose_per_row(np.ones((X.shape[0], len(groups)), dtype=bool), k, fraction, rng)
        mask = _expand_to_columns(chosen, _unit_of_column(groups, X.shape[1]), pad=False)
        return mask & ~np.isnan(X)

    def _sparse_deletion(self, X, y, model, rng, fill):
        groups = check_groups(self.groups, X.shape[1])
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        chosen = _choose_per_row(np.ones((X.shape[0], len(groups)), dtype=bool), k, fraction, rng)
        unit_of = _unit_of_column(groups, X.shape[1])
        padded = np.concatenate([chosen, np.zeros((X.shape[0], 1), dtype=bool)], axis=1)
        deleted = padded[stored_rows(X), unit_of[X.indices]] & ~np.isnan(X.data)
        if fill == 0:
            return deleted, *_no_cells()
        rows, cols = cells_of_units(chosen, groups)
        n = X.shape[1]
        implicit = ~np.isin(rows * n + cols, stored_rows(X) * n + X.indices)
        return deleted, rows[implicit], cols[implicit]

    def _bind(self, data):
        return _with_group_positions(self, data)


class MarginalResampling(Corruption):
    """Replace random features (or groups) by their values in a random reference row.

    O'Sullivan et al. (2000, §3) corrupt a feature set of an example ``x`` "by picking a second
    example, z, from D and substituting the values of the feature set from z into x", which "leaves
    the marginal distribution of feature set values unchanged"; §5 corrupts "a random n percent of
    the features" (or of the feature sets) of each test case, "chosen independently from case to
    case".

    In every row, ``k`` units (or ``round(fraction * m)``, halves rounded up) are chosen uniformly
    at random; a unit is a feature, or a group when ``groups`` is given. Each chosen unit takes its
    values from a row of ``reference`` drawn uniformly at random, independently for every
    (row, unit); a chosen group takes *all* its columns from the same reference row, which keeps
    multi-column encodings valid.

    Parameters
    ----------
    k : int, default=None
        Number of units to resample per row. Give exactly one of ``k`` and ``fraction``.
    fraction : float in [0, 1], default=None
        Fraction of the units to resample per row, rounded half up.
    groups : sequence of array-like of int or str, or ndarray of int, default=None
        Feature groups resampled as a whole (see ``robustclf._validation.check_groups``);
        columns in no group are never changed. ``None``: every feature is its own unit. Groups
        may list column names when ``X`` is a DataFrame (as in :class:`GroupDeletion`).
    reference : array-like or DataFrame of shape (n_reference, n_features), default=None
        The sample the replacement values come from, e.g. the training set. ``None`` uses the rows
        of ``X`` itself (before corruption), drawing for each row *another* row of ``X``; with a
        single row, that row is its own donor and nothing changes. NaN in the reference is allowed
        and is copied like any other value (the feature is then missing in the corrupted row).
        When ``X`` is a DataFrame with non-numeric columns, ``reference`` must be a DataFrame
        with the same columns, in the same order.

    Notes
    -----
    Without groups, units are chosen among the row's present (non-NaN) features; with groups, among
    all groups. NaN entries of ``X`` are never overwritten.

    A DataFrame may have columns of any kind: a resampled entry takes the donor row's value, so
    categorical columns keep their categories (a reference's categories are cast to ``X``'s;
    values outside them become missing) and integer columns their dtype. Sparse matrices are
    refused: a donor's non-zero would be written into an implicit zero.

    A dask ``X`` is corrupted chunk by chunk and needs an in-memory ``reference`` (the donors
    of ``reference=None`` are rows of the whole of ``X``, which no chunk holds; resampling
    within a chunk would follow the chunk's marginals, not the data's, whenever the rows are
    ordered). Give the training set or a random sample of ``X``'s rows computed once.

    References
    ----------
    .. [1] J. O'Sullivan, J. Langford, R. Caruana and A. Blum. FeatureBoost: a meta-learning
       algorithm that improves model robustness. ICML 2000, §3 and §5.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import MarginalResampling
    >>> reference = np.array([[10.0, 20.0], [30.0, 40.0]])
    >>> X = np.zeros((1, 2))
    >>> Xc = MarginalResampling(k=1, reference=reference).corrupt(X, random_state=0)
    >>> bool(np.isin(Xc[Xc != 0], reference).all())
    True
    """

    level_params: ClassVar[tuple[str, ...]] = ("fraction", "k")
    column_kinds: ClassVar[str] = "any"

    def __init__(self, *, k=None, fraction=None, groups=None, reference=None):
        self.k = k
        self.fraction = fraction
        self.groups = groups
        self.reference = reference

    def _check_dask(self, X) -> None:
        """A dask ``X`` needs an in-memory ``reference``: donors drawn from the rows of ``X``
        itself would be a random gather over the whole collection, not a map over its chunks."""
        if self.reference is None:
            raise ValueError(
                "MarginalResampling on a dask collection needs reference=: an in-memory sample "
                "of rows to draw the donors from (e.g. the training set, or a random sample of "
                "X computed once, such as X[rng.choice(n, 10_000)].compute()). Without it the "
                "donors would be rows of the whole of X, which cannot be read chunk by chunk.")
        if is_dask_collection(self.reference):
            raise ValueError(
                "MarginalResampling's reference is a dask collection; it must be in memory "
                "(every chunk of X draws donors from all of it): compute it, or a random sample "
                "of it, first.")

    def _bind(self, data):
        bound = _with_group_positions(self, data)
        if data.kind == "DataFrame" and self.reference is not None:
            bound = copy.copy(bound)
            bound.reference = data.encode_other(self.reference, name="reference")
        return bound

    def _corrupt(self, X, y, model, rng):
        n_rows, n_features = X.shape
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        if self.reference is None:
            reference = X
        else:
            reference = check_matrix(self.reference, name="reference", allow_nan=True)
            if reference.shape[1] != n_features:
                raise ValueError(
                    f"reference has {reference.shape[1]} features, but X has {n_features}."
                )
            if reference.shape[0] == 0:
                raise ValueError("reference must have at least one row.")
        present = ~np.isnan(X)
        if self.groups is None:  # every present feature is a unit of its own
            eligible = present
        else:
            groups = check_groups(self.groups, n_features)
            eligible = np.ones((n_rows, len(groups)), dtype=bool)
        chosen = _choose_per_row(eligible, k, fraction, rng)

        shape = chosen.shape
        if self.reference is None and n_rows > 1:
            # uniform over the other rows: draw from n - 1 rows and skip the row itself
            donors = rng.integers(0, n_rows - 1, size=shape)
            donors += donors >= np.arange(n_rows)[:, None]
        elif self.reference is None:
            donors = np.zeros(shape, dtype=np.intp)
        else:
            donors = rng.integers(0, reference.shape[0], size=shape)

        if self.groups is None:
            mask, donor_rows = chosen, donors
        else:  # a group's columns share its choice and its donor row
            unit_of = _unit_of_column(groups, n_features)
            mask = _expand_to_columns(chosen, unit_of, pad=False) & present
            donor_rows = _expand_to_columns(donors, unit_of, pad=0)
        return np.where(mask, reference[donor_rows, np.arange(n_features)], X)


class FeatureNoise(Corruption):
    """Corrupt random features with zero-mean noise, added to or replacing their values.

    In every row, ``k`` features (or ``round(fraction * m)`` of the row's ``m`` present features,
    halves rounded up) are chosen uniformly at random, and each receives independent zero-mean
    noise: ``mode="add"`` adds it to the value, ``mode="replace"`` writes it instead of the value.

    Dekel & Shamir (2008, §2.4) study the *replacing* version: "each feature selected by the
    adversary is replaced with noise sampled from some distribution, also supported on [-1, 1] and
    having zero mean" (their Theorem 3 assumes features supported on [-1, 1] too). Their setting is
    ``FeatureNoise(distribution="uniform", scale=1.0, mode="replace")`` applied to a random rather
    than adversarial subset. The default, additive Gaussian noise on a random subset, is the common
    "noisy sensor" model.

    Parameters
    ----------
    k : int, default=None
        Number of features to corrupt per row. Give exactly one of ``k`` and ``fraction``.
    fraction : float in [0, 1], default=None
        Fraction of each row's present features to corrupt, rounded half up.
    scale : float, default=1.0
        Noise scale: the standard deviation of the Gaussian, or the half-width ``a`` of the uniform
        noise on ``[-a, a]``. ``0`` leaves additive noise without effect and replaces by zeros.
    distribution : {"gaussian", "uniform"}, default="gaussian"
        Noise distribution; both have mean zero. Only ``"uniform"`` is bounded, as §2.4 assumes.
    mode : {"add", "replace"}, default="add"
        Add the noise to the chosen features, or replace them with it (Dekel & Shamir §2.4).

    Notes
    -----
    NaN entries are never chosen and stay NaN. To sweep the noise scale rather than the number of
    corrupted features, use ``set_params(scale=...)``: :meth:`with_level` sets ``fraction`` or
    ``k``.

    A DataFrame must have numeric columns only (noise on a category or a string has no meaning;
    the error names the columns); integer columns that receive noise become float64. Sparse
    matrices are refused: noise on the implicit zeros would densify them.

    References
    ----------
    .. [1] O. Dekel and O. Shamir. Learning to classify with missing and corrupted features.
       ICML 2008, §2.4.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import FeatureNoise
    >>> X = np.zeros((3, 5))
    >>> Xc = FeatureNoise(k=2, distribution="uniform", mode="replace").corrupt(X, random_state=0)
    >>> (Xc != 0).sum(axis=1).tolist(), bool(np.abs(Xc).max() <= 1.0)
    ([2, 2, 2], True)
    """

    level_params: ClassVar[tuple[str, ...]] = ("fraction", "k")

    def __init__(self, *, k=None, fraction=None, scale=1.0, distribution="gaussian", mode="add"):
        self.k = k
        self.fraction = fraction
        self.scale = scale
        self.distribution = distribution
        self.mode = mode

    def _corrupt(self, X, y, model, rng):
        k, fraction = check_count_or_fraction(self.k, self.fraction)
        scale = check_nonnegative(self.scale, "scale")
        distribution = check_option(self.distribution, "distribution", ("gaussian", "uniform"))
        mode = check_option(self.mode, "mode", ("add", "replace"))
        chosen = _choose_per_row(~np.isnan(X), k, fraction, rng)
        n_noisy = int(chosen.sum())
        if distribution == "gaussian":
            noise = rng.normal(0.0, scale, size=n_noisy)
        else:
            noise = rng.uniform(-scale, scale, size=n_noisy)
        if mode == "add":
            X[chosen] += noise
        else:
            X[chosen] = noise
        return X
