"""Corruptions of dask collections: lazy, chunk by chunk, with one random stream per chunk.

Every corruption of this package is *row-local* given its parameters, the labels and the fitted
model: row i of the output depends on row i of ``X`` (and ``y[i]``) only. So a dask array or
DataFrame is corrupted by applying the in-memory :meth:`Corruption.corrupt` to each row chunk
(each partition), where the chunk lives, as dask-ml's ``ParallelPostFit`` applies ``predict``:
the result is a lazy dask collection with ``X``'s row chunks, and nothing is computed until the
caller asks. Containers, validation, ``fill`` and the sparse algorithms are the in-memory ones,
applied per chunk: a dask array whose chunks are scipy sparse matrices gives sparse chunks of
the same format, a dask DataFrame gives a dask DataFrame with ``X``'s index and columns.

**Randomness.** ``random_state`` is turned into a :class:`numpy.random.SeedSequence` when the
graph is built (an int seeds it; a Generator gives it fresh entropy drawn from itself; ``None``
takes fresh OS entropy), and chunk ``b`` draws from ``SeedSequence(entropy, spawn_key=(b,))``
-- the ``b``-th child of ``SeedSequence.spawn``: independent streams, one per chunk. The same
seed and the same row chunks give the same result, on every scheduler and however often the
result is computed; recomputing a lazy result never redraws. The result is *not* bit-identical
to the in-memory corruption of ``X.compute()`` with the same seed (that draws all rows from one
stream); it has the same distribution, row by row.

**Model and labels.** The fitted model and a corruption's own arrays (``reference``) enter the
graph once (as ``dask.delayed`` objects), not once per chunk. Labels ``y`` (numpy, dask array or
dask Series) are cut into ``X``'s row chunks; for a dask DataFrame, a dask ``y`` with one chunk
per partition is paired with the partitions as it is (each pair's lengths are checked when it
is computed), anything else is cut by the partitions' lengths (one pass over the index).

**Checked at once.** Before the graph is built the corruption is run on one synthetic row of
``X``'s dtypes (the model's first class as label), so that a bad parameter, a missing model or
labels, or a container the corruption refuses raise when ``corrupt`` is called, not when the
result is computed.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._blockwise import RowBlocks, is_dask_collection

__all__ = ["corrupt_dask", "chunk_entropy"]


def _is_frame(X) -> bool:
    import dask.dataframe as dd

    return isinstance(X, dd.DataFrame)


def chunk_entropy(random_state) -> int | list[int]:
    """The entropy of the per-chunk seed sequences for ``random_state``.

    An int is its own entropy (``SeedSequence(seed)``); a Generator (or legacy RandomState)
    gives four 63-bit integers drawn from it, so that two calls with the same Generator differ
    as two in-memory calls do; ``None`` gives fresh OS entropy.
    """
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}.")
        return int(random_state)
    if random_state is None:
        return int(np.random.SeedSequence().entropy)
    from .._validation import check_generator

    rng = check_generator(random_state)
    return [int(v) for v in rng.integers(0, 2**63, size=4)]


def _chunk_generator(entropy, index: int) -> np.random.Generator:
    """The Generator of chunk ``index``: the ``index``-th child of ``SeedSequence(entropy)``."""
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(index,)))


def corrupt_dask(corruption, X, y=None, model=None, random_state=None, *, method="corrupt"):
    """``corruption.<method>(X, y, model, random_state)`` on a dask collection, lazily.

    Parameters
    ----------
    corruption : Corruption
    X : dask array of shape (n_samples, n_features) or dask DataFrame
    y : array-like, dask array or dask Series of shape (n_samples,), default=None
    model : fitted estimator, default=None
    random_state : None, int, numpy Generator or RandomState, default=None
    method : {"corrupt", "deletion_mask"}
        The in-memory method applied to each chunk.

    Returns
    -------
    dask array or dask DataFrame
        ``"corrupt"``: a float64 dask array with ``X``'s row chunks (chunks of ``X``'s sparse
        format when ``X``'s chunks are sparse), or a dask DataFrame with ``X``'s divisions,
        index and columns; its numeric columns are float64 (or keep their float dtype), since
        the dtype of a whole column cannot depend on what one partition received, and its
        other columns keep their dtype. ``"deletion_mask"``: a boolean dask array (sparse
        boolean chunks for sparse chunks) with ``X``'s row chunks (unknown chunk lengths for
        a DataFrame).
    """
    corruption._check_dask(X)
    if y is None and corruption.requires_labels:
        raise ValueError(f"{type(corruption).__name__}.corrupt needs the true labels y.")
    if model is None and corruption.requires_model:
        raise ValueError(
            f"{type(corruption).__name__}.corrupt needs the fitted model under attack.")
    entropy = chunk_entropy(random_state)
    if _is_frame(X):
        return _corrupt_frame(corruption, X, y, model, entropy, method)
    return _corrupt_array(corruption, X, y, model, entropy, method)


def _dry_run(corruption, method, sample, y, model):
    """Run the corruption on one synthetic row (``sample``): checks, and the output's meta."""
    classes = getattr(model, "classes_", None) if model is not None else None
    if y is None:
        label = None
    elif classes is not None and len(classes):
        label = np.asarray(classes)[:1]
    else:
        label = np.zeros(1, dtype=getattr(y, "dtype", np.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(corruption, method)(sample, y=label, model=model, random_state=0)


def _corrupt_array(corruption, X, y, model, entropy, method):
    import dask.array as da
    from dask import delayed

    blocks = RowBlocks.from_inputs(X, y)
    X, y = blocks.X, blocks.y
    meta = X._meta
    if sp.issparse(meta):
        sample = sp.csr_matrix((1, X.shape[1]), dtype=meta.dtype).asformat(meta.format)
    else:
        sample = np.zeros((1, X.shape[1]), dtype=X.dtype)
    out_meta = _dry_run(corruption, method, sample, y, model)[:0]
    arrays = [X] if y is None else [X, y[:, None]]
    return da.map_blocks(
        _corrupt_block, *arrays, corruption=delayed(corruption, pure=True), method=method,
        model=delayed(model, pure=True), entropy=entropy, has_labels=y is not None,
        meta=out_meta, dtype=out_meta.dtype, chunks=(X.chunks[0], (X.shape[1],)),
    )


def _corrupt_block(X, *labels, corruption, method, model, entropy, has_labels, block_id=None):
    y = labels[0][:, 0] if has_labels else None
    return getattr(corruption, method)(X, y=y, model=model,
                                       random_state=_chunk_generator(entropy, block_id[0]))


def _corrupt_frame(corruption, X, y, model, entropy, method):
    from dask import delayed

    sample = X._meta_nonempty.iloc[:1]
    out_meta = _dry_run(corruption, method, sample, y, model)
    labels = _partition_labels(X, y)
    if method == "corrupt":
        meta, dtypes = _frame_meta(X._meta)
    else:
        meta, dtypes = out_meta[:0], None
    return X.map_partitions(
        _corrupt_partition, *([] if labels is None else [labels]),
        corruption=delayed(corruption, pure=True), model=delayed(model, pure=True),
        method=method, entropy=entropy, dtypes=dtypes, meta=meta, align_dataframes=False,
    )


def _corrupt_partition(part, *labels, corruption, model, method, entropy, dtypes,
                       partition_info=None):
    index = partition_info["number"] if partition_info is not None else 0
    y = labels[0].to_numpy() if labels else None
    if y is not None and len(y) != len(part):
        raise ValueError(
            f"y's chunk {index} has {len(y)} labels but X's partition {index} has {len(part)} "
            "rows; give y with X's partitions (e.g. the label column of the same dask "
            "DataFrame) or as an in-memory array.")
    out = getattr(corruption, method)(part, y=y, model=model,
                                      random_state=_chunk_generator(entropy, index))
    return out if dtypes is None else out.astype(dtypes)


def _frame_meta(meta):
    """The empty corrupted DataFrame and its dtypes: numeric columns that are not numpy floats
    become float64 (a corruption may write NaN or non-integers into them); the others keep
    their dtype."""
    from pandas.api.types import is_numeric_dtype

    dtypes = {
        c: (np.float64 if is_numeric_dtype(d) and not (isinstance(d, np.dtype) and d.kind == "f")
            else d)
        for c, d in meta.dtypes.items()
    }
    return meta.astype(dtypes), dtypes


def _partition_labels(X, y):
    """``y`` as a dask Series with one partition per partition of the dask DataFrame ``X``
    (``None`` without labels)."""
    import dask.array as da
    import dask.dataframe as dd

    n_parts = X.npartitions
    if y is None:
        return None
    if isinstance(y, dd.DataFrame):
        if len(y.columns) != 1:
            raise ValueError(f"y must be 1-D, got a dask DataFrame of {len(y.columns)} columns.")
        y = y[y.columns[0]]
    if isinstance(y, dd.Series):
        if y.npartitions == n_parts:
            return y
        y = y.to_dask_array()
    if isinstance(y, da.Array):
        if y.ndim != 1:
            raise ValueError(f"y must be 1-D, got a dask array of shape {y.shape}.")
        if y.numblocks[0] == n_parts:
            return dd.from_dask_array(y)
    lengths = tuple(int(v) for v in X.map_partitions(len).compute())
    if not is_dask_collection(y):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        if y.ndim != 1 or y.shape[0] != sum(lengths):
            raise ValueError(f"y must be 1-D with one label per row of X ({sum(lengths)} rows), "
                             f"got shape {y.shape}.")
        return dd.from_dask_array(da.from_array(y, chunks=(lengths,)))
    if any(np.isnan(c) for c in y.chunks[0]):
        y = y.compute_chunk_sizes()
    if y.shape[0] != sum(lengths):
        raise ValueError(f"y has {y.shape[0]} labels but X has {sum(lengths)} rows.")
    return dd.from_dask_array(y.rechunk((lengths,)))
