"""Row blocks of dask collections and sums over them: the tree reduction.

* :func:`is_dask_collection` -- whether an input is a dask array, DataFrame or Series (without
  importing dask when the caller never did);
* :func:`as_row_blocks` -- a dask array or DataFrame as a 2-D dask array whose chunks split the
  rows only (every chunk holds all columns), with its feature names;
* :class:`RowBlocks` -- ``X`` with its labels and row weights cut into the same row chunks, and
  :meth:`RowBlocks.reduce`, which evaluates a function on every chunk and sums the results by a
  tree reduction (one pass over the data per call, whatever the scheduler: threads, processes or
  a ``dask.distributed`` cluster);
* :func:`tree_sum` and :func:`add_parts` -- that tree and the entry-by-entry sum at its nodes,
  shared with the stateful chunks of :mod:`._state`.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["SPLIT_EVERY", "RowBlocks", "add_parts", "as_row_blocks", "is_dask_collection",
           "tree_sum"]

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
        # lengths come from the array graph itself (compute_chunk_sizes below): a frame whose
        # small partitions dask fuses reports per-file lengths (dask #12411)
        X = X.to_dask_array()
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
        v = v.to_dask_array().compute_chunk_sizes()
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
    X : dask array of shape (n_samples, n_features), chunked along rows only, or dask DataFrame
        A DataFrame's partitions are the row blocks, handed to the functions of :meth:`reduce`
        and :meth:`collect` as pandas DataFrames (so that a model fitted on named or
        non-numeric columns sees them); ``shape`` and ``offsets`` then need the partition
        lengths and are not available. :meth:`from_inputs` turns a DataFrame into an array.
    y : dask array of shape (n_samples,) or None
        One chunk per row block.
    sample_weight : dask array of shape (n_samples,) or None
        One chunk per row block.
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
        return self.X.npartitions if _is_frame(self.X) else self.X.numblocks[0]

    @functools.cached_property
    def blocks(self) -> list:
        """The delayed chunks of every row block: ``(X_b, y_b, w_b)`` (``None`` when absent)."""
        xs = list(self.X.to_delayed() if _is_frame(self.X) else self.X.to_delayed().ravel())
        ys = self.y.to_delayed().ravel() if self.y is not None else [None] * len(xs)
        ws = (self.sample_weight.to_delayed().ravel() if self.sample_weight is not None
              else [None] * len(xs))
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
                     for (x, y, w), start in zip(self.blocks, self.offsets, strict=True)]
        else:
            parts = [task(x, y, w, *shared) for x, y, w in self.blocks]
        add = delayed(add_parts, pure=True)
        (total,) = dask.compute(tree_sum(parts, lambda level, i, group: add(*group),
                                         split_every))
        return total

    def collect(self, func, *args) -> list:
        """``[func(X_b, y_b, w_b, *args) for every block b]``, computed (small results only)."""
        import dask
        from dask import delayed

        shared = [delayed(a, pure=True) if isinstance(a, np.ndarray) else a for a in args]
        task = delayed(func, pure=True)
        return list(dask.compute(*[task(x, y, w, *shared) for x, y, w in self.blocks]))


def add_parts(*parts):
    """Entry-by-entry sum of arrays, or of (nested) tuples of arrays; ``None`` stays ``None``.

    The parts are added left to right, in their dtype; the first is copied, never modified.
    """
    first = parts[0]
    if first is None:
        return None
    if isinstance(first, tuple):
        return tuple(add_parts(*items) for items in zip(*parts, strict=True))
    total = first.copy() if isinstance(first, np.ndarray) else first
    for p in parts[1:]:
        total = total + p
    return total


def tree_sum(parts: list, combine, split_every: int = SPLIT_EVERY):
    """The root of a reduction tree over ``parts`` (delayed values, or keys of a dask graph).

    ``combine(level, index, group)`` returns the node that adds ``group``, at most
    ``split_every`` consecutive nodes of ``level`` (0: the parts themselves); the levels are
    built until one node is left. There is always at least one level, so that a lone part
    goes through ``combine`` too (e.g. to extract the summed part of a chunk's output).
    """
    level = 0
    while True:
        parts = [combine(level, i, parts[i:i + split_every])
                 for i in range(0, len(parts), split_every)]
        if len(parts) == 1:
            return parts[0]
        level += 1
