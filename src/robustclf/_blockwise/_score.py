"""Accuracy over the row chunks of dask collections, and labels cut like the rows of ``X``.

* :func:`align_rows` -- a 1-D input (labels, row weights) as a dask array with one chunk per
  row chunk (partition) of a dask ``X``;
* :func:`count_correct` -- the (weighted) number of correct predictions and of rows, one pass;
* :class:`BlockwiseScoreMixin` -- ``score`` on dask input for the library's classifiers, the
  accuracy of :class:`sklearn.base.ClassifierMixin` computed where the chunks are.
"""

from __future__ import annotations

import numpy as np

from ._rows import RowBlocks, _is_frame, as_row_blocks, is_dask_collection

__all__ = ["BlockwiseScoreMixin", "align_rows", "count_correct"]


def _as_vector(v, name: str):
    import dask.dataframe as dd

    if isinstance(v, dd.DataFrame | dd.Series):
        if v.ndim == 2 and len(v.columns) != 1:
            raise ValueError(f"{name} must be 1-D, got a dask DataFrame of "
                             f"{len(v.columns)} columns.")
        v = v.to_dask_array()
        return v.ravel() if v.ndim == 2 else v
    if not is_dask_collection(v):
        v = np.asarray(v)
        if v.ndim == 2 and v.shape[1] == 1:
            v = v.ravel()
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {v.shape}.")
    elif v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got a dask array of shape {v.shape}.")
    return v


def align_rows(X, v, *, X_name: str = "X", name: str = "y"):
    """``v`` (dask or in memory, one entry per row of the dask ``X``) in ``X``'s row chunks.

    Parameters
    ----------
    X : dask array chunked along rows only, or dask DataFrame
    v : array-like, dask array, dask Series or one-column dask DataFrame

    Returns
    -------
    dask array of shape (n_samples,)
        One chunk per row chunk (partition) of ``X``. A DataFrame's partition lengths are
        computed here (one pass over its index) unless ``v`` already has one chunk per
        partition.
    """
    import dask.array as da

    v = _as_vector(v, name)
    if not _is_frame(X):
        chunks = X.chunks[0]
        v = da.from_array(v, chunks=(chunks,)) if not isinstance(v, da.Array) else v
        if any(np.isnan(c) for c in v.chunks[0]):
            v = v.compute_chunk_sizes()
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"{name} has {v.shape[0]} entries but {X_name} has {X.shape[0]} "
                             "rows.")
        return v.rechunk((chunks,)) if v.chunks[0] != chunks else v
    if isinstance(v, da.Array) and v.numblocks[0] == X.npartitions:
        return v
    lengths = tuple(int(n) for n in X.map_partitions(len).compute())
    if isinstance(v, da.Array) and any(np.isnan(c) for c in v.chunks[0]):
        v = v.compute_chunk_sizes()
    if v.shape[0] != sum(lengths):
        raise ValueError(f"{name} has {v.shape[0]} entries but {X_name} has {sum(lengths)} "
                         "rows.")
    return v.rechunk((lengths,)) if isinstance(v, da.Array) else da.from_array(
        v, chunks=(lengths,))


def _correct_in_chunk(X, y, w, model):
    """``[correct, rows]`` of one chunk (weighted sums when ``w`` is given)."""
    if len(y) != X.shape[0]:
        raise ValueError(f"a chunk of y has {len(y)} labels but its chunk of X has "
                         f"{X.shape[0]} rows.")
    hit = np.asarray(model.predict(X)) == np.asarray(y)
    if w is None:
        return np.array([np.count_nonzero(hit), hit.size], dtype=np.int64)
    w = np.asarray(w, dtype=float)
    return np.array([w[hit].sum(), w.sum()])


def count_correct(model, X, y, sample_weight=None):
    """Correct predictions of ``model`` on the dask ``X`` and the number of rows (or their
    weights' sums with ``sample_weight``), in one pass; ``y`` and the weights as
    :func:`align_rows` returns them."""
    from dask import delayed

    # a DataFrame's partitions reach the model as pandas DataFrames (named columns kept)
    correct, total = RowBlocks(X, y, sample_weight).reduce(_correct_in_chunk,
                                                            delayed(model, pure=True))
    return correct, total


class BlockwiseScoreMixin:
    """``score`` (mean accuracy) that computes chunk by chunk on dask input.

    Put before :class:`~sklearn.base.ClassifierMixin` in the bases. In memory it is
    scikit-learn's ``score``; on a dask array or DataFrame, each chunk's correct predictions
    (by the estimator's in-memory ``predict``) are counted where the chunk is and summed, so
    predictions of unknown length (a DataFrame's partitions) never need to be gathered.
    """

    def score(self, X, y, sample_weight=None):
        """Mean accuracy of ``self.predict(X)`` against ``y`` (weighted by ``sample_weight``).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask DataFrame} of shape (n_samples, n_features)
            Test rows.
        y : {array-like, dask array, dask Series} of shape (n_samples,)
            True labels.
        sample_weight : {array-like, dask array, dask Series} of shape (n_samples,), default=None
            Row weights.

        Returns
        -------
        float
        """
        if not is_dask_collection(X):
            return super().score(X, y, sample_weight=sample_weight)
        if not _is_frame(X):
            X, _ = as_row_blocks(X)
        y = align_rows(X, y)
        if sample_weight is not None:
            sample_weight = align_rows(X, sample_weight, name="sample_weight")
        correct, total = count_correct(self, X, y, sample_weight)
        if total == 0:
            raise ValueError("score needs at least one row (of positive weight) in X.")
        return float(correct / total)
