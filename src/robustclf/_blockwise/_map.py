"""Lazy maps over the row chunks of dask collections: what dask-ml's ``ParallelPostFit`` does.

* :func:`map_rows` -- a lazy dask array of a function applied chunk by chunk;
* :func:`blockwise_method` -- the decorator that gives an estimator's ``predict``,
  ``decision_function``, ``predict_proba`` or ``transform`` that behaviour on dask input (the
  in-memory method runs on each chunk).
"""

from __future__ import annotations

import functools

import numpy as np

from ._rows import _is_frame, as_row_blocks, is_dask_collection

__all__ = ["blockwise_method", "map_rows"]


def map_rows(func, X, *, dtype, n_columns: int | None = None, name: str = "X"):
    """The lazy dask array ``func(X_b)`` of every row chunk ``X_b`` of ``X``.

    Parameters
    ----------
    func : callable
        Maps an in-memory chunk (ndarray, or pandas DataFrame for a dask DataFrame, so that
        an estimator checks its feature names) to an array with one row per input row.
    X : dask array or dask DataFrame
    dtype : dtype
        The output's dtype.
    n_columns : int or None
        Columns of the output; ``None`` for a 1-D output.

    Returns
    -------
    dask array of shape (n_samples,) or (n_samples, n_columns)
        Nothing is computed until the caller asks.
    """
    dtype = np.dtype(dtype)
    if _is_frame(X):
        meta = np.empty((0,) if n_columns is None else (0, n_columns), dtype=dtype)
        return X.map_partitions(lambda part: np.asarray(func(part), dtype=dtype), meta=meta)
    X, _ = as_row_blocks(X, name)

    def block(chunk):
        return np.asarray(func(chunk), dtype=dtype)

    if n_columns is None:
        return X.map_blocks(block, drop_axis=1, dtype=dtype, chunks=(X.chunks[0],))
    return X.map_blocks(block, dtype=dtype, chunks=(X.chunks[0], (n_columns,)))


def blockwise_method(output: str):
    """Decorate a prediction method so that a dask input gives a lazy dask output.

    Parameters
    ----------
    output : {"labels", "scores", "columns"}
        What the method returns for an in-memory ``X``: ``"labels"`` (1-D, ``classes_``'s
        dtype), ``"scores"`` (``decision_function``: 1-D for two classes, one column per class
        otherwise), ``"columns"`` (one column per class, e.g. ``predict_proba``; or one per
        output feature of a transformer, read from ``get_feature_names_out``).

    The in-memory method is called on each chunk, so its validation and NaN semantics apply
    unchanged, chunk by chunk (the estimator must be fitted: the check runs before any chunk).
    """

    def decorate(method):
        @functools.wraps(method)
        def wrapper(self, X, *args, **kwargs):
            if not is_dask_collection(X):
                return method(self, X, *args, **kwargs)
            from sklearn.utils.validation import check_is_fitted

            check_is_fitted(self)
            bound = functools.partial(method, self, *args, **kwargs)
            if output == "labels":
                return map_rows(bound, X, dtype=np.asarray(self.classes_).dtype)
            if output == "scores":
                k = len(self.classes_)
                return map_rows(bound, X, dtype=np.float64, n_columns=None if k == 2 else k)
            if hasattr(self, "classes_"):
                k = len(self.classes_)
            else:
                k = len(self.get_feature_names_out())
            return map_rows(bound, X, dtype=np.float64, n_columns=k)

        return wrapper

    return decorate
