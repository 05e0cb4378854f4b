"""Feature values v_j: the a-priori importance the deleting adversary pays for (Dekel & Shamir).

``"uniform"`` sets every v_j = 1, so the budget N counts deleted features. ``"mutual_info"`` is the
paper's heuristic (§4)::

    v_j = (1 / Z) max_c I([x_j > c]; y),     Z such that sum_j v_j = n,

the largest mutual information between a threshold predicate on feature j and the label, over all
thresholds c, on the training set.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ._validation import check_feature_values, check_labels, check_matrix

__all__ = ["mutual_info_values", "resolve_feature_values"]

# Columns processed at once by mutual_info_values: bounds memory at about
# n_samples * _COLUMN_BLOCK * n_classes floats.
_COLUMN_BLOCK = 64
# Thresholds evaluated at once for a sparse X (memory about 10 * _ENTRY_BLOCK * n_classes floats).
_ENTRY_BLOCK = 4096


def mutual_info_values(X, y, sample_weight=None) -> np.ndarray:
    """Dekel & Shamir's mutual-information feature values, normalised to sum to n_features.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training rows (finite). A sparse matrix is never densified (see Notes).
    y : array-like of shape (n_samples,)
        Training labels (two or more classes).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative row weights: the joint distribution of ``[x_j > c]`` and ``y`` is the
        weighted empirical one, so an integer weight k gives the values of k copies of the row
        and a zero weight those of the data without the row. None: every row weight one.

    Returns
    -------
    values : ndarray of shape (n_features,)
        ``v_j = max_c I([x_j > c]; y) / Z`` with ``sum(values) == n_features``. A constant
        feature gets 0 (no threshold separates anything). If no feature carries any information
        the values fall back to uniform, with a warning.

    Notes
    -----
    Every threshold between consecutive distinct values of a column is tried, all at once: each
    column is sorted, class counts below each position come from a cumulative sum, and the
    mutual information of the resulting 2 x K contingency tables is evaluated in one vectorised
    expression (natural logarithms; the base cancels in the normalisation). Cost O(m n log m).

    For a sparse ``X`` the same thresholds are tried column-wise on the stored entries only: the
    zeros of a column form one group (its class counts are the column's complement), so every
    column is a sorted list of its non-zeros plus one zero entry, all columns in one sort of
    ``nnz + n_features`` entries (``_sparse_scores``); memory O((nnz + n) K), never O(m n).
    Same values as the dense computation.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.feature_values import mutual_info_values
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=200)
    >>> X = np.column_stack([y + 0.1 * rng.normal(size=200), rng.normal(size=200), np.ones(200)])
    >>> values = mutual_info_values(X, y)
    >>> np.round(values, 2), round(float(values.sum()), 2)
    (array([2.96, 0.04, 0.  ]), 3.0)
    """
    X = check_matrix(X, accept_sparse=True)
    y = check_labels(y, X.shape[0])
    m, n = X.shape
    _, y_idx = np.unique(y, return_inverse=True)
    onehot = np.eye(int(y_idx.max()) + 1)[y_idx]  # (m, K)
    if sample_weight is not None:  # weighted class counts; the total mass replaces m
        weight = np.asarray(sample_weight, dtype=np.float64)
        if weight.shape != (m,) or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError(f"sample_weight must be {m} finite non-negative numbers, one per "
                             f"row of X; got shape {weight.shape}.")
        onehot = onehot * weight[:, None]
    class_total = onehot.sum(axis=0)  # (K,)
    scores = _sparse_scores(sp.csc_matrix(X), onehot, class_total) if sp.issparse(X) \
        else _dense_scores(X, onehot, class_total)
    total = scores.sum()
    if total <= 0:
        warnings.warn("no feature is informative about y; using uniform feature values.",
                      UserWarning, stacklevel=2)
        return np.ones(n)
    return scores * (n / total)


def _dense_scores(X, onehot, class_total):
    """``max_c I([x_j > c]; y)`` of every column of a dense ``X``, by blocks of columns."""
    n = X.shape[1]
    m = float(class_total.sum())  # the number of rows, or their total weight
    scores = np.zeros(n)
    for start in range(0, n, _COLUMN_BLOCK):  # blocks of columns, to bound memory
        block = X[:, start:start + _COLUMN_BLOCK]
        order = np.argsort(block, axis=0, kind="stable")
        sorted_x = np.take_along_axis(block, order, axis=0)
        below = np.cumsum(onehot[order], axis=0)[:-1]  # (m-1, b, K): counts with x <= c
        above = class_total - below
        valid = sorted_x[1:] > sorted_x[:-1]  # a threshold between two distinct values
        info = _binary_split_information(below, above, m)
        info = np.where(valid, info, 0.0)
        scores[start:start + _COLUMN_BLOCK] = info.max(axis=0) if X.shape[0] > 1 else 0.0
    return scores


def _sparse_scores(X, onehot, class_total):
    """``max_c I([x_j > c]; y)`` of every column of a CSC ``X`` from its stored entries.

    Each column contributes its stored entries (one-hot class counts) and one entry of value 0
    carrying the class counts of its zeros; entries are sorted by (column, value), counts
    accumulated within each column, and a threshold is valid after an entry whose next entry in
    the same column has a larger value (ties stay on one side, as in the dense case).
    """
    X = sp.csc_matrix(X, copy=True)
    X.sum_duplicates()
    n = X.shape[1]
    m = float(class_total.sum())
    col = np.repeat(np.arange(n), np.diff(X.indptr))
    nz_counts = np.zeros((n, onehot.shape[1]))
    np.add.at(nz_counts, col, onehot[X.indices])
    zero_counts = class_total - nz_counts  # the zeros of every column (maybe none)
    value = np.concatenate([X.data, np.zeros(n)])
    owner = np.concatenate([col, np.arange(n)])
    counts = np.concatenate([onehot[X.indices], zero_counts])
    order = np.lexsort((value, owner))
    value, owner, counts = value[order], owner[order], counts[order]
    cum = np.cumsum(counts, axis=0)  # integer counts: exact in float64
    start = np.searchsorted(owner, np.arange(n))
    before = np.where(start[:, None] > 0, cum[np.maximum(start - 1, 0)], 0.0)
    below = cum - before[owner]  # counts with x <= this entry's value, within its column
    del cum, counts, before
    above = class_total - below
    valid = np.zeros(owner.size, dtype=bool)
    valid[:-1] = (owner[1:] == owner[:-1]) & (value[1:] > value[:-1])
    scores = np.zeros(n)
    if X.shape[0] > 1:
        where = np.flatnonzero(valid)
        for chunk in range(0, where.size, _ENTRY_BLOCK):  # bounds the temporaries
            at = where[chunk:chunk + _ENTRY_BLOCK]
            np.maximum.at(scores, owner[at], _binary_split_information(below[at], above[at], m))
    return scores


def _binary_split_information(below: np.ndarray, above: np.ndarray, m: float) -> np.ndarray:
    """Mutual information of the 2 x K tables (counts, or weights, below / above a threshold and
    their total ``m``) with the label."""
    joint = np.stack([below, above]) / m  # (2, t, b, K)
    p_side = joint.sum(axis=-1, keepdims=True)
    p_class = joint.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = joint * np.log(joint / (p_side * p_class))
    return np.nansum(terms, axis=(0, -1))


def resolve_feature_values(feature_values, X=None, y=None, sample_weight=None) -> np.ndarray:
    """Turn a ``feature_values`` parameter into an array, computing data-driven values if asked.

    Parameters
    ----------
    feature_values : {"uniform", "mutual_info"} or array-like of shape (n_features,)
    X, y : array-like, default=None
        Training data, needed for ``"mutual_info"`` (and to know n_features for "uniform").
    sample_weight : array-like of shape (n_samples,), default=None
        Row weights of the training data, used by ``"mutual_info"`` (the weighted mutual
        information, :func:`mutual_info_values`).

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.feature_values import resolve_feature_values
    >>> X = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    >>> y = np.array([0, 1, 0, 1])
    >>> resolve_feature_values("uniform", X)
    array([1., 1.])
    >>> resolve_feature_values("mutual_info", X, y)
    array([2., 0.])
    >>> resolve_feature_values([2, 0.5])
    array([2. , 0.5])
    """
    if isinstance(feature_values, str) and feature_values == "mutual_info":
        if X is None or y is None:
            raise ValueError("feature_values='mutual_info' needs the training data X and y.")
        return mutual_info_values(X, y, sample_weight)
    if X is None:
        if isinstance(feature_values, str):
            raise ValueError("feature_values='uniform' needs X to know the number of features.")
        return check_feature_values(feature_values, np.asarray(feature_values).shape[0])
    return check_feature_values(feature_values, np.shape(X)[1])
