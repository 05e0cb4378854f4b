"""Blockwise primitives over the row chunks of dask collections: the library's one dask module.

Every method the library runs on data larger than memory is a sum over rows (an objective, a
gradient, a Hessian block) or a map over rows (a prediction, a corruption, a worst-case margin).
This module gives those two shapes once, for every caller:

* :func:`is_dask_collection` -- whether an input is a dask array, DataFrame or Series (without
  importing dask when the caller never did);
* :func:`as_row_blocks` -- a dask array or DataFrame as a 2-D dask array whose chunks split the
  rows only (every chunk holds all columns), with its feature names;
* :class:`RowBlocks` -- ``X`` with its labels and row weights cut into the same row chunks, and
  :meth:`RowBlocks.reduce`, which evaluates a function on every chunk and sums the results by a
  tree reduction (one pass over the data per call, whatever the scheduler: threads, processes or
  a ``dask.distributed`` cluster);
* :func:`map_rows` -- a lazy dask array of a function applied chunk by chunk (what dask-ml's
  ``ParallelPostFit`` does for ``predict``), and :func:`blockwise_method`, the decorator that
  gives an estimator's ``predict``/``decision_function``/``predict_proba``/``transform`` that
  behaviour on dask input.

The solvers never see dask: they receive a :class:`RowBlocks` and call :meth:`RowBlocks.reduce`
with a function of numpy (or scipy.sparse) chunks, the same per-row algebra as in memory.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["RowBlocks", "as_row_blocks", "blockwise_method", "is_dask_collection", "map_rows"]

#: How many partial sums each node of the reduction tree adds.
SPLIT_EVERY = 8


def is_dask_collection(obj) -> bool:
    """Whether ``obj`` is a dask collection (array, DataFrame, Series).

    dask is imported only if the caller has imported it already: an object cannot be a dask
    collection otherwise, so plain numpy work never pays dask's import.
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(obj)


def _is_frame(obj) -> bool:
    import dask.dataframe as dd

    return isinstance(obj, dd.DataFrame | dd.Series)


def as_row_blocks(X, name: str = "X"):
    """``X`` as a 2-D dask array chunked along rows only, and its feature names.

    Parameters
    ----------
    X : dask array of shape (n_samples, n_features) or dask DataFrame
        A DataFrame's partitions become the row chunks (their lengths are computed, one pass
        over the index); columns of an array split into several chunks are joined.
    name : str
        The argument's name, for error messages.

    Returns
    -------
    array : dask array
    feature_names : ndarray of str or None
        The DataFrame's column names when they are all strings (scikit-learn's rule).
    """
    import dask.array as da

    feature_names = None
    if _is_frame(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D (a dask DataFrame), got a dask Series.")
        columns = list(X.columns)
        if columns and all(isinstance(c, str) for c in columns):
            feature_names = np.asarray(columns, dtype=object)
        X = X.to_dask_array(lengths=True)
    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask array or DataFrame, got {type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features); got a dask array of "
                         f"shape {X.shape}. Reshape it, e.g. X.reshape(-1, 1) for one feature.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise ValueError(f"{name} must hold numbers; the dask array's dtype is {X.dtype}.")
    if np.iscomplexobj(np.empty(0, dtype=X.dtype)):
        raise ValueError(f"{name} holds complex numbers; a classifier needs real features.")
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    return X, feature_names


def _as_row_vector(v, chunks, name: str):
    """A 1-D input cut into the row ``chunks`` of ``X`` (a dask or in-memory vector)."""
    import dask.array as da

    if v is None:
        return None
    if _is_frame(v):
        v = v.to_dask_array(lengths=True)
    if not isinstance(v, da.Array):
        v = np.asarray(v)
        if v.ndim == 2 and v.shape[1] == 1:
            v = v.ravel()
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D with one entry per row of X; got shape "
                             f"{v.shape}.")
        if v.size != sum(chunks):
            raise ValueError(f"{name} has {v.size} entries but X has {sum(chunks)} rows.")
        v = da.from_array(v, chunks=(chunks,))
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D with one entry per row of X; got shape "
                         f"{v.shape}.")
    if any(np.isnan(c) for c in v.chunks[0]):
        v = v.compute_chunk_sizes()
    if v.shape[0] != sum(chunks):
        raise ValueError(f"{name} has {v.shape[0]} entries but X has {sum(chunks)} rows.")
    return v.rechunk((chunks,)) if v.chunks[0] != chunks else v


@dataclass
class RowBlocks:
    """``X`` with its labels and row weights cut into the same row chunks.

    Attributes
    ----------
    X : dask array of shape (n_samples, n_features), chunked along rows only
    y : dask array of shape (n_samples,) or None
    sample_weight : dask array of shape (n_samples,) or None
    feature_names : ndarray or None
    """

    X: object
    y: object = None
    sample_weight: object = None
    feature_names: object = None

    @classmethod
    def from_inputs(cls, X, y=None, sample_weight=None) -> RowBlocks:
        """Normalise the inputs of ``fit`` (dask or in-memory ``y`` and weights)."""
        X, names = as_row_blocks(X)
        chunks = X.chunks[0]
        return cls(X, _as_row_vector(y, chunks, "y"),
                   _as_row_vector(sample_weight, chunks, "sample_weight"), names)

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(int(s) for s in self.X.shape)

    @property
    def n_blocks(self) -> int:
        return self.X.numblocks[0]

    @functools.cached_property
    def _blocks(self):
        """The delayed chunks of every row block: ``(X_b, y_b, w_b)`` (``None`` when absent)."""
        xs = self.X.to_delayed().ravel()
        ys = self.y.to_delayed().ravel() if self.y is not None else [None] * xs.size
        ws = (self.sample_weight.to_delayed().ravel() if self.sample_weight is not None
              else [None] * xs.size)
        return list(zip(xs, ys, ws, strict=True))

    @property
    def offsets(self) -> np.ndarray:
        """The index of the first row of every block."""
        return np.concatenate([[0], np.cumsum(self.X.chunks[0])[:-1]]).astype(int)

    def reduce(self, func, *args, split_every: int = SPLIT_EVERY, with_offset: bool = False):
        """``sum_b func(X_b, y_b, w_b, *args)`` over the row blocks ``b``, computed.

        ``func`` returns an array or a tuple of arrays (summed entry by entry); ``args`` are
        small in-memory values (a coefficient matrix) shipped once per call. One pass over the
        data: the chunks are read (or taken from memory, when persisted), reduced where they
        are and only the partial sums travel, added ``split_every`` at a time. With
        ``with_offset`` the index of the block's first row comes after ``w_b``.
        """
        import dask
        from dask import delayed

        shared = [delayed(a, pure=True) if isinstance(a, np.ndarray) else a for a in args]
        task = delayed(func, pure=True)
        if with_offset:
            parts = [task(x, y, w, int(start), *shared)
                     for (x, y, w), start in zip(self._blocks, self.offsets, strict=True)]
        else:
            parts = [task(x, y, w, *shared) for x, y, w in self._blocks]
        add = delayed(_add_parts, pure=True)
        while len(parts) > 1:
            parts = [add(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
        (total,) = dask.compute(parts[0])
        return total

    def collect(self, func, *args) -> list:
        """``[func(X_b, y_b, w_b, *args) for every block b]``, computed (small results only)."""
        import dask
        from dask import delayed

        shared = [delayed(a, pure=True) if isinstance(a, np.ndarray) else a for a in args]
        task = delayed(func, pure=True)
        return list(dask.compute(*[task(x, y, w, *shared) for x, y, w in self._blocks]))


def _add_parts(*parts):
    """Entry-by-entry sum of arrays or of tuples of arrays."""
    first = parts[0]
    if isinstance(first, tuple):
        return tuple(_add_parts(*items) for items in zip(*parts, strict=True))
    total = first.copy() if isinstance(first, np.ndarray) else first
    for p in parts[1:]:
        total = total + p
    return total


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
