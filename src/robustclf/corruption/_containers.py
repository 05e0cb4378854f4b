"""The containers a corruption accepts, and how each one is read and written back.

A corruption computes on a float64 matrix (``_corrupt`` / ``_deletion_mask``). This module turns
the user's container into that matrix and the result back into the user's container, in one place
for every corruption:

* **ndarray / array-like** -- a validated float64 copy; the result is returned as it is (float64
  ndarray), exactly as before DataFrames and sparse matrices were accepted.
* **pandas DataFrame** (:class:`FrameData`) -- numeric columns are read as float64 (missing values
  as NaN). A non-numeric column (categorical, string, object, datetime...) is read as the
  *position* of each row's entry (1-based, so never zero) or NaN where the entry is missing, so that
  a corruption may delete it (write NaN) or move it between rows (copy a donor's position) without
  knowing its type. Writing back gives a DataFrame with the same index and columns; see
  :meth:`FrameData.restore` for the dtypes.
* **scipy sparse** (:class:`SparseData`) -- a canonical CSR float64 copy (duplicates summed,
  indices sorted); the result keeps the input's format (CSR, CSC, COO...) and class (sparse matrix
  or sparse array), dtype float64.
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

from .._validation import check_matrix, check_not_complex

__all__ = ["DenseData", "FrameData", "SparseData", "as_data", "is_dataframe"]


def is_dataframe(X) -> bool:
    """Whether ``X`` is a pandas DataFrame or a subclass (pandas is not imported for this: a
    DataFrame exists only if pandas is loaded)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(X, pd.DataFrame)


def as_data(X, *, name: str = "X", n_features: int | None = None):
    """Wrap ``X`` in the adaptor of its container type (validated copies, input untouched)."""
    if sp.issparse(X):
        return SparseData(X, name=name, n_features=n_features)
    if is_dataframe(X):
        return FrameData(X, name=name, n_features=n_features)
    return DenseData(X, name=name, n_features=n_features)


class DenseData:
    """An ndarray (or anything ``np.asarray`` reads): a float64 copy, returned as it is."""

    kind = "array"
    columns = None
    non_numeric: tuple = ()

    def __init__(self, X, *, name="X", n_features=None):
        self.values = check_matrix(X, name=name, allow_nan=True, n_features=n_features)

    @property
    def shape(self):
        return self.values.shape

    def restore(self, values: np.ndarray) -> np.ndarray:
        return values

    def model_view(self, model):
        return model


class FrameData:
    """A DataFrame, read as float64 (non-numeric columns as 1-based row positions).

    Attributes
    ----------
    frame : DataFrame
        The caller's DataFrame (read, never written).
    values : ndarray of shape (n_samples, n_features), float64
        The encoded copy the corruption works on.
    columns : Index
    non_numeric : tuple of int
        Positions of the non-numeric columns.
    """

    kind = "DataFrame"

    def __init__(self, X, *, name="X", n_features=None):
        from pandas.api.types import is_numeric_dtype

        check_not_complex(X, name)  # a complex column would lose its imaginary part below
        self.frame = X
        self.name = name
        self.columns = X.columns
        self.dtypes = list(X.dtypes)
        self.non_numeric = tuple(j for j, d in enumerate(self.dtypes) if not is_numeric_dtype(d))
        self._is_non_numeric = set(self.non_numeric)
        self._other = None  # a second DataFrame whose entries positions may point to
        if n_features is not None and X.shape[1] != n_features:
            check_matrix(np.zeros((0, X.shape[1])), name=name, n_features=n_features)
        encoded = np.empty(X.shape, dtype=np.float64)
        positions = np.arange(1, X.shape[0] + 1, dtype=np.float64)
        for j in range(X.shape[1]):
            column = X.iloc[:, j]
            if j in self._is_non_numeric:
                encoded[:, j] = np.where(column.isna().to_numpy(), np.nan, positions)
            else:
                encoded[:, j] = column.to_numpy(dtype=np.float64, na_value=np.nan)
        self.values = check_matrix(encoded, name=name, allow_nan=True)

    @property
    def shape(self):
        return self.values.shape

    def column_names(self, positions) -> list:
        return [self.columns[j] for j in positions]

    def encode_other(self, other, *, name: str) -> np.ndarray:
        """Encode another DataFrame with the same columns (e.g. a reference sample).

        Its non-numeric entries get positions after this frame's rows, so that :meth:`restore`
        can take values from either.
        """
        if not is_dataframe(other):
            if self.non_numeric:
                raise ValueError(
                    f"{name} must be a DataFrame with X's columns when X has non-numeric "
                    f"columns ({self.column_names(self.non_numeric)})."
                )
            return check_matrix(other, name=name, allow_nan=True)
        if list(other.columns) != list(self.columns):
            raise ValueError(f"{name} must have the same columns as X, in the same order.")
        self._other = other
        data = FrameData(other, name=name)
        shifted = data.values.copy()
        shifted[:, list(self.non_numeric)] += self.frame.shape[0]
        return shifted

    def restore(self, values: np.ndarray, *, index=None):
        """A DataFrame with X's columns (and index, unless ``index`` is given) from ``values``.

        Numeric columns: numpy dtypes are kept when the values fit them exactly, otherwise the
        column becomes float64 (e.g. an int column that received NaN); pandas' nullable dtypes
        (``Int64``, ``boolean``, ``Float64``) are kept, with ``pd.NA`` for missing entries, or
        become ``Float64`` when the values are not integers. Non-numeric columns keep their
        dtype (and categories): each entry is the entry at the encoded position, ``NaN``
        (``pd.NA`` for string dtypes, ``NaT`` for datetimes) where the position is NaN.
        """
        import pandas as pd

        out = {}
        for j, dtype in enumerate(self.dtypes):
            column = values[:, j]
            if j in self._is_non_numeric:
                out[j] = self._restore_non_numeric(j, column)
            else:
                out[j] = _restore_numeric(column, dtype)
        frame = pd.DataFrame(out, index=pd.RangeIndex(values.shape[0]))
        frame.columns = self.columns
        frame.index = self.frame.index if index is None else index
        return frame

    def _restore_non_numeric(self, j, positions):
        import pandas as pd

        source = self.frame.iloc[:, j]
        if self._other is not None:
            source = pd.concat([source, self._other.iloc[:, j]], ignore_index=True)
            if source.dtype != self.dtypes[j]:
                source = source.astype(self.dtypes[j])
        missing = np.isnan(positions)
        take = np.where(missing, 1, positions).astype(np.intp) - 1
        taken = source.iloc[take].reset_index(drop=True)
        return taken.mask(missing) if missing.any() else taken

    def model_view(self, model):
        """``model`` reading the encoded matrix as a DataFrame of X's columns and dtypes.

        A model fitted without feature names (on an array) reads the float64 matrix instead, as
        it would have before, unless X has non-numeric columns (whose encoding means nothing to
        a model).
        """
        if model is None:
            return None
        if not self.non_numeric and getattr(model, "feature_names_in_", None) is None:
            return model
        import pandas as pd

        def decode(X):
            return self.restore(X, index=pd.RangeIndex(X.shape[0]))

        return _DecodingModel(model, decode)


def _restore_numeric(column: np.ndarray, dtype):
    """A numeric column back in ``dtype`` when its values allow it (see FrameData.restore)."""
    import pandas as pd

    if isinstance(dtype, np.dtype):
        if dtype.kind == "f":
            return column.astype(dtype)
        if not np.isnan(column).any():
            cast = column.astype(dtype)
            if np.array_equal(cast.astype(np.float64), column):
                return cast
        return column
    try:  # a pandas extension dtype (Int64, boolean, Float64...)
        return pd.array(column, dtype=dtype)
    except (TypeError, ValueError):
        return pd.array(column, dtype="Float64")


class _DecodingModel:
    """A model whose prediction methods first turn the float64 matrix back into the user's
    container (``decode``), so that the model sees what it was fitted on.

    Every other attribute is the model's own (``classes_``, ``coef_``, ``steps``...).
    """

    _methods = ("predict", "predict_proba", "decision_function", "predict_log_proba")

    def __init__(self, model, decode):
        self._model = model
        self._decode = decode

    def __getattr__(self, attr):
        value = getattr(self._model, attr)
        if attr not in self._methods:
            return value
        return lambda X: value(self._decode(X))


class SparseData:
    """A scipy sparse matrix or array: a canonical CSR float64 copy; the format is restored."""

    kind = "sparse"
    columns = None
    non_numeric: tuple = ()

    def __init__(self, X, *, name="X", n_features=None):
        self.format = X.format
        self.is_array = isinstance(X, sp.sparray)
        values = check_matrix(X, name=name, allow_nan=True, accept_sparse=True,
                              n_features=n_features)
        values.sum_duplicates()  # canonical: sorted indices, no duplicates
        self.values = values

    @property
    def shape(self):
        return self.values.shape

    def model_view(self, model):
        """``model`` reading dense row blocks as sparse rows of X's format."""
        if model is None:
            return None
        return _DecodingModel(model, lambda X: self.restore(sp.csr_matrix(X)))

    def restore(self, values):
        if sp.issparse(values):
            out = sp.csr_array(values) if self.is_array else sp.csr_matrix(values)
            return out.asformat(self.format)
        return values

    def apply_deletion(self, deleted, extra_rows, extra_cols, fill: float):
        """The corrupted copy: stored entries flagged in ``deleted`` and the implicit zeros at
        ``(extra_rows, extra_cols)`` get ``fill``; with ``fill=0`` deleted entries are removed
        from storage instead (and implicit zeros stay implicit)."""
        X = self.values
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        if fill == 0:
            keep = ~deleted
            out = sp.csr_matrix((X.data[keep], (rows[keep], X.indices[keep])), shape=X.shape)
        else:
            data = np.where(deleted, fill, X.data)
            out = sp.csr_matrix(
                (np.concatenate([data, np.full(extra_rows.size, fill)]),
                 (np.concatenate([rows, extra_rows]), np.concatenate([X.indices, extra_cols]))),
                shape=X.shape,
            )
        out.sum_duplicates()
        return out

    def deletion_matrix(self, deleted, extra_rows, extra_cols):
        """Boolean sparse matrix of the entries :meth:`apply_deletion` changes (X's format)."""
        X = self.values
        rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
        r = np.concatenate([rows[deleted], extra_rows])
        c = np.concatenate([X.indices[deleted], extra_cols])
        mask = sp.csr_matrix((np.ones(r.size, dtype=bool), (r, c)), shape=X.shape)
        return self.restore(mask)
