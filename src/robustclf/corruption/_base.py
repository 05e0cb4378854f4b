"""The contract every corruption follows, and the one place where containers are handled.

A corruption is configured with its level at construction and exposes one method,
``corrupt(X, y=None, model=None, random_state=None)``, returning a new container of the type it
was given. Subclasses compute on a float64 matrix only: :meth:`Corruption.corrupt` reads the
user's container into that matrix and writes the result back (:mod:`._containers`):

* an **ndarray** (or any array-like) gives a float64 ndarray -- the same values, for the same
  seed, as before DataFrames and sparse matrices were accepted;
* a **DataFrame** gives a DataFrame with the same index, columns and, as far as the values allow,
  dtypes. Deletion corruptions delete entries of every column kind (numeric, categorical, string,
  object...); corruptions that compute with the values (``column_kinds = "numeric"``) refuse
  non-numeric columns, naming them;
* a **sparse matrix** gives a sparse matrix of the same format for deletion corruptions (never
  densified as a whole); the others refuse it (``accepts_sparse = False``);
* a **dask array or DataFrame** gives a lazy dask collection with the same row chunks: the
  in-memory corruption is applied to each chunk where it lives, with one independent random
  stream per chunk spawned from ``random_state`` (:mod:`._dask`). Nothing is computed until the
  caller asks (``.compute()``, ``.persist()``, ``to_zarr``...).

Deletion-type corruptions only choose *which* entries to delete (``_deletion_mask``, and
``_sparse_deletion`` for sparse input); the base class writes the fill value, so that
``fill=np.nan`` (absent features, the default: every estimator of the library reads NaN as an
absent feature) and ``fill=0.0`` (the papers' raw zeros) behave identically everywhere.

Corruptions subclass :class:`sklearn.base.BaseEstimator` only to inherit ``get_params``,
``set_params``, ``clone`` and a readable ``repr``; they are not estimators.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone

from .._blockwise import is_dask_collection
from .._validation import check_deletion_mask, check_fill, check_generator, check_labels
from ._containers import as_data

__all__ = ["Corruption", "DeletionCorruption"]

# Largest number of matrix entries densified at once when a deletion corruption without a sparse
# algorithm of its own runs on a sparse matrix, one block of rows at a time (32 MB of float64).
_BLOCK_ENTRIES = 4_000_000


class Corruption(BaseEstimator):
    """Base class of test-time corruptions.

    Subclasses implement ``_corrupt(X, y, model, rng)``, which receives a validated float64
    *copy* of ``X`` (so it may write into it), labels and model when the corruption needs them,
    and a :class:`numpy.random.Generator`. For a DataFrame, ``X`` is its float64 encoding (see
    ``robustclf.corruption._containers``) and ``model`` sees DataFrames again when queried.

    Attributes
    ----------
    requires_labels : bool
        ``corrupt`` refuses to run without ``y`` (adversarial corruptions attack the true class).
    requires_model : bool
        ``corrupt`` refuses to run without a fitted ``model``.
    level_params : tuple of str
        Names of the parameters that measure the corruption's strength, in order of preference;
        :meth:`with_level` sets the first one that is not ``None`` (or the first one if all are).
    column_kinds : {"numeric", "any"}
        Which DataFrame columns the corruption accepts: ``"numeric"`` for corruptions that compute
        with the values, ``"any"`` for those that only delete or move entries.
    accepts_sparse : bool
        Whether sparse matrices are accepted (and returned sparse).

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import Corruption, RandomDeletion
    >>> isinstance(RandomDeletion(fraction=0.2), Corruption)
    True
    >>> class Negate(Corruption):
    ...     def _corrupt(self, X, y, model, rng):
    ...         return -X
    >>> Negate().corrupt([[1.0, -2.0], [3.0, np.nan]])
    array([[-1.,  2.],
           [-3., nan]])
    """

    requires_labels: ClassVar[bool] = False
    requires_model: ClassVar[bool] = False
    level_params: ClassVar[tuple[str, ...]] = ()
    column_kinds: ClassVar[str] = "numeric"
    accepts_sparse: ClassVar[bool] = False

    def corrupt(self, X, y=None, model=None, random_state=None):
        """Return a corrupted copy of ``X``, of ``X``'s type; ``X`` itself is never modified.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask DataFrame} of shape (n_samples, n_features)
            Rows to corrupt (a pandas DataFrame included). NaN (an already absent entry; any
            missing value of a DataFrame column) is allowed and left as it is.
        y : array-like of shape (n_samples,), default=None
            True labels; required by adversarial corruptions. A dask array or Series with a
            dask ``X``.
        model : estimator, default=None
            The fitted model under attack; required by adversarial corruptions.
        random_state : None, int or numpy Generator, default=None
            Seed of the corruption's randomness.

        Returns
        -------
        X_corrupted : {ndarray, DataFrame, sparse matrix, dask array, dask DataFrame}
            An ndarray (float64) for array-like input; a DataFrame with ``X``'s index, columns
            and dtypes where the values allow (an integer column that receives NaN becomes
            float64; nullable pandas dtypes keep ``pd.NA``); a float64 sparse matrix of ``X``'s
            format and class for sparse input. For a dask array, a lazy float64 dask array with
            ``X``'s row chunks (sparse chunks stay sparse); for a dask DataFrame, a lazy dask
            DataFrame with ``X``'s divisions, whose numeric columns are float64 (or keep their
            float dtype) and whose other columns keep their dtype. The dask
            result has the distribution of the in-memory one but, drawing one random stream per
            chunk, not the same values for the same seed.
        """
        if is_dask_collection(X):
            from ._dask import corrupt_dask

            return corrupt_dask(self, X, y, model, random_state)
        data, y = self._validate_call(X, y, model)
        return data.restore(self._corrupt_data(data, y, model, check_generator(random_state)))

    def with_level(self, level) -> Corruption:
        """A copy of this corruption with its strength parameter set to ``level``."""
        if not self.level_params:
            raise ValueError(f"{type(self).__name__} has no level parameter to sweep.")
        name = next((p for p in self.level_params if getattr(self, p) is not None),
                    self.level_params[0])
        return clone(self).set_params(**{name: level})

    @property
    def level_name(self) -> str:
        """The name of the parameter :meth:`with_level` sets."""
        return next((p for p in self.level_params if getattr(self, p) is not None),
                    self.level_params[0] if self.level_params else "")

    # -- internals ---------------------------------------------------------------------------
    def _check_dask(self, X) -> None:
        """Refuse a dask ``X`` the corruption cannot treat chunk by chunk (default: none)."""

    def _validate_call(self, X, y, model):
        """The container adaptor of ``X`` (a validated copy) and the checked labels."""
        name = type(self).__name__
        if sp.issparse(X) and not self.accepts_sparse:
            raise ValueError(
                f"X is a sparse matrix; {name} needs a dense array or a DataFrame (it would "
                "write into implicit zeros and densify the matrix). Use a deletion corruption, "
                "or convert X with X.toarray() if it fits in memory."
            )
        n_features = getattr(model, "n_features_in_", None) if model is not None else None
        data = as_data(X, n_features=n_features)
        if data.non_numeric and self.column_kinds == "numeric":
            raise ValueError(
                f"{name} computes with the values of X and needs numeric columns; X has "
                f"non-numeric column(s) {data.column_names(data.non_numeric)}. Encode them "
                "(e.g. OneHotEncoder) or drop them; deletion corruptions accept them."
            )
        _check_feature_names(data, model)
        if self.requires_labels and y is None:
            raise ValueError(f"{name}.corrupt needs the true labels y.")
        if self.requires_model and model is None:
            raise ValueError(f"{name}.corrupt needs the fitted model under attack.")
        if y is not None:
            y = check_labels(y, data.shape[0])
        return data, y

    def _bind(self, data) -> Corruption:
        """This corruption with its parameters resolved against ``data`` (e.g. column names
        turned into positions); the default has nothing to resolve."""
        return self

    def _corrupt_data(self, data, y, model, rng):
        return self._bind(data)._corrupt(data.values, y, data.model_view(model), rng)

    def _corrupt(self, X, y, model, rng):  # pragma: no cover - abstract
        raise NotImplementedError


def _check_feature_names(data, model) -> None:
    """A DataFrame's columns must be the ones the model was fitted on, in the same order."""
    names = getattr(model, "feature_names_in_", None) if model is not None else None
    if data.columns is None or names is None:
        return
    if list(map(str, data.columns)) != list(map(str, names)):
        raise ValueError(
            "X's columns are not the ones the model was fitted on (feature_names_in_), in the "
            f"same order: X has {list(data.columns)[:10]}, the model {list(names)[:10]}."
        )


class DeletionCorruption(Corruption):
    """A corruption that deletes entries: subclasses choose them, the base class fills them.

    Subclasses implement ``_deletion_mask(X, y, model, rng)`` returning a boolean array of
    ``X``'s shape (True = delete; anything else is refused with an error naming the subclass)
    and have a ``fill`` parameter. Sparse input is handled by
    ``_sparse_deletion``; its default runs ``_deletion_mask`` on blocks of rows densified one at
    a time (memory O(nnz + block)), and subclasses with an O(nnz) algorithm override it.

    Deleted entries of a DataFrame's non-numeric columns become missing values, so ``fill`` must
    be NaN when ``X`` has such columns (a category or a string has no ``0.0``).

    For sparse ``X``, ``fill=0.0`` removes the deleted entries from storage (deleting an
    implicit zero changes nothing), and ``fill=np.nan`` stores NaN in every deleted entry,
    implicit zeros included.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import DeletionCorruption
    >>> class DeleteFirstColumn(DeletionCorruption):
    ...     def __init__(self, fill=np.nan):
    ...         self.fill = fill
    ...     def _deletion_mask(self, X, y, model, rng):
    ...         mask = np.zeros(X.shape, dtype=bool)
    ...         mask[:, 0] = True
    ...         return mask
    >>> DeleteFirstColumn().corrupt([[1.0, 2.0], [3.0, 4.0]])
    array([[nan,  2.],
           [nan,  4.]])
    >>> DeleteFirstColumn().deletion_mask([[1.0, 2.0], [3.0, 4.0]])
    array([[ True, False],
           [ True, False]])
    """

    column_kinds: ClassVar[str] = "any"
    accepts_sparse: ClassVar[bool] = True

    def deletion_mask(self, X, y=None, model=None, random_state=None):
        """The entries :meth:`corrupt` would delete with the same seed.

        Returns
        -------
        mask : {ndarray, sparse matrix, dask array} of bool of shape (n_samples, n_features)
            A boolean ndarray for dense input and for DataFrames. For a sparse ``X``, a sparse
            boolean matrix of ``X``'s format holding the entries whose stored value changes:
            the deleted stored entries and, with ``fill=np.nan``, the deleted implicit zeros
            (with ``fill=0.0`` a deleted implicit zero changes nothing and is not listed).
            For a dask ``X``, a lazy boolean dask array with ``X``'s row chunks (sparse boolean
            chunks for sparse chunks; unknown chunk lengths for a DataFrame).
        """
        if is_dask_collection(X):
            from ._dask import corrupt_dask

            return corrupt_dask(self, X, y, model, random_state, method="deletion_mask")
        data, y = self._validate_call(X, y, model)
        rng = check_generator(random_state)
        bound = self._bind(data)
        view = data.model_view(model)
        if data.kind == "sparse":
            fill = check_fill(self.fill)
            return data.deletion_matrix(*bound._sparse_deletion(data.values, y, view, rng, fill))
        return bound._checked_mask(data.values, y, view, rng)

    def _corrupt_data(self, data, y, model, rng):
        fill = check_fill(self.fill)
        if data.non_numeric and not np.isnan(fill):
            raise ValueError(
                f"{type(self).__name__}: fill={fill!r} cannot be written into the non-numeric "
                f"column(s) {data.column_names(data.non_numeric)} of X; use fill=np.nan, which "
                "deletes their entries as missing values."
            )
        bound = self._bind(data)
        view = data.model_view(model)
        if data.kind == "sparse":
            deletion = bound._sparse_deletion(data.values, y, view, rng, fill)
            return data.apply_deletion(*deletion, fill)
        return bound._corrupt(data.values, y, view, rng)

    def _corrupt(self, X, y, model, rng):
        fill = check_fill(self.fill)
        mask = self._checked_mask(X, y, model, rng)
        X[mask] = fill
        return X

    def _checked_mask(self, X, y, model, rng) -> np.ndarray:
        """``_deletion_mask``'s result, checked to be a boolean array of ``X``'s shape."""
        return check_deletion_mask(self._deletion_mask(X, y, model, rng), X.shape,
                                   type(self).__name__)

    def _sparse_deletion(self, X, y, model, rng, fill):
        """The deletion of a CSR matrix: ``(deleted, extra_rows, extra_cols)``.

        ``deleted`` flags the stored entries to delete (one per stored entry, CSR order);
        ``(extra_rows, extra_cols)`` are the implicit zeros to delete, listed only when
        ``fill`` is not 0. This default computes ``_deletion_mask`` block of rows by block of
        rows on densified blocks of at most ``_BLOCK_ENTRIES`` entries.
        """
        m, n = X.shape
        step = max(1, _BLOCK_ENTRIES // max(1, n))
        deleted = np.zeros(X.nnz, dtype=bool)
        extra_rows, extra_cols = [np.zeros(0, dtype=np.intp)], [np.zeros(0, dtype=np.intp)]
        for start in range(0, m, step):  # blocks of rows, not single rows
            stop = min(start + step, m)
            lo, hi = X.indptr[start], X.indptr[stop]
            local_rows = np.repeat(np.arange(stop - start), np.diff(X.indptr[start:stop + 1]))
            block = X[start:stop].toarray()
            mask = self._checked_mask(block, None if y is None else y[start:stop], model, rng)
            deleted[lo:hi] = mask[local_rows, X.indices[lo:hi]]
            if fill != 0:
                mask[local_rows, X.indices[lo:hi]] = False
                r, c = np.nonzero(mask)
                extra_rows.append(r + start)
                extra_cols.append(c)
        return deleted, np.concatenate(extra_rows), np.concatenate(extra_cols)

    def _deletion_mask(self, X, y, model, rng):  # pragma: no cover - abstract
        raise NotImplementedError
