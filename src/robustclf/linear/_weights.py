"""Row weights inside a linear solver: drop the rows that weigh nothing.

scikit-learn's meaning of ``sample_weight`` is "a row of weight k acts as k copies of it", so a
row of weight 0 acts as no row at all. :func:`positive_weight_rows` removes such rows before a
solver sees the data: the solver then runs on exactly the problem of the data without them
(same number of rows, same unseen features, same random draws), and never pays for rows that
cannot matter.
"""

from __future__ import annotations

import numpy as np

__all__ = ["positive_weight_rows"]


def positive_weight_rows(X, Y, sample_weight):
    """The rows of positive weight of ``X`` and ``Y``, and their weights.

    Parameters
    ----------
    X : ndarray or CSR matrix of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_columns)
        The ±1 targets of :func:`~robustclf.linear._base.ovr_targets`.
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative row weights (None: all one).

    Returns
    -------
    X, Y : the rows with a positive weight (the inputs themselves when none is dropped)
    sample_weight : ndarray of shape (n_kept,) or None
        Their weights, or None when every kept weight is one (the unweighted path).
    """
    if sample_weight is None:
        return X, Y, None
    keep = sample_weight > 0
    if not keep.all():
        X, Y, sample_weight = X[keep], Y[keep], sample_weight[keep]
    return X, Y, (None if np.all(sample_weight == 1.0) else sample_weight)
