"""A user's own table (CSV or parquet) and a user's own saved model.

:func:`load_table` reads a file into a DataFrame of features and a Series of labels;
:func:`load_model` reads a fitted estimator saved with :func:`joblib.dump` and
:func:`check_model_columns` checks that it can take the table's columns. Every failure raises a
``ValueError`` (or ``FileNotFoundError``) with one sentence saying which input is wrong and what
was expected, so that the command line can print it without a traceback.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd

from ._paths import GZIP_ERRORS, gzip_error

__all__ = ["load_table", "load_model", "check_model_columns", "non_numeric_columns"]

_READERS = {".csv": "csv", ".tsv": "tsv", ".txt": "csv", ".parquet": "parquet",
            ".pq": "parquet"}


def load_table(path, target: str) -> tuple[pd.DataFrame, pd.Series]:
    """Read a CSV, TSV or parquet file and split off the label column.

    Parameters
    ----------
    path : str or path-like
        The file. ``.csv``/``.txt`` (comma-separated, header row), ``.tsv`` or
        ``.parquet``/``.pq`` (needs ``pyarrow``); a ``.gz`` suffix after ``.csv``/``.tsv`` is
        read compressed. Empty cells are read as NaN: absent features.
    target : str
        Name of the label column.

    Returns
    -------
    X : pandas.DataFrame
        The other columns, with the dtypes pandas infers, except that integer and boolean
        columns are read as float64 (text keeps a string dtype). The features are values that
        corruptions and imputers make absent by writing NaN, which an integer column cannot
        hold: an all-integer table would otherwise fail in a scikit-learn imputer ("fill_value
        ... cannot be cast") or be silently upcast halfway through an evaluation.
    y : pandas.Series
        The labels. Rows whose label is empty are dropped (a model cannot be scored on them).

    Raises
    ------
    FileNotFoundError
        The file does not exist.
    ValueError
        Unknown file type, unreadable file, no ``target`` column, no feature column, or no
        labelled row.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_table
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "patients.csv"
    ...     _ = path.write_text("age,pressure,sick\\n50,120,1\\n61,,0\\n,135,1\\n47,128,\\n")
    ...     X, y = load_table(path, target="sick")
    >>> X.shape, int(X.isna().sum().sum())
    ((3, 2), 2)
    >>> y.tolist()
    [1.0, 0.0, 1.0]
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data file {str(path)!r} does not exist.")
    suffixes = [s.lower() for s in path.suffixes]
    kind = _READERS.get(suffixes[-2] if suffixes[-1:] == [".gz"] and len(suffixes) > 1
                        else (suffixes[-1] if suffixes else ""))
    if kind is None:
        raise ValueError(f"data file {str(path)!r}: unknown file type; expected .csv, .tsv, "
                         ".txt, .parquet or .pq.")
    frame = _read(path, kind)
    if target not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:20])) + (", ..." if frame.shape[1] > 20 else "")
        raise ValueError(f"data file {str(path)!r} has no column {target!r} (the --target); "
                         f"its columns are: {shown}.")
    if frame.shape[1] < 2:
        raise ValueError(f"data file {str(path)!r} has no feature column besides {target!r}.")
    labelled = frame[target].notna()
    if not labelled.any():
        raise ValueError(f"data file {str(path)!r}: the target column {target!r} is empty.")
    frame = frame.loc[labelled]
    return _float_features(frame.drop(columns=[target])), frame[target]


def _float_features(X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with its integer and boolean columns (nullable ones included) as float64; a
    missing entry of a nullable column (``pd.NA``) becomes NaN, the library's absent value."""
    exact = {c: "float64" for c in X.columns if pd.api.types.is_integer_dtype(X[c])
             or pd.api.types.is_bool_dtype(X[c])}
    return X.astype(exact) if exact else X


def _read(path: Path, kind: str) -> pd.DataFrame:
    if kind == "parquet":
        try:
            return pd.read_parquet(path)
        except ImportError:
            raise ValueError("reading parquet files needs pyarrow: "
                             "pip install 'robustclf[parquet]'.") from None
        except Exception as exc:  # noqa: BLE001 - any reader failure is a bad file
            raise ValueError(f"data file {str(path)!r} is not a readable parquet file "
                             f"({type(exc).__name__}: {exc}).") from None
    sep = "\t" if kind == "tsv" else ","
    if path.suffix.lower() == ".gz":
        return _read_gzip_csv(path, sep, kind)
    try:
        return pd.read_csv(path, sep=sep)
    except FileNotFoundError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            OSError) as exc:  # OSError: no permission, a folder...
        raise ValueError(f"data file {str(path)!r} is not a readable {kind.upper()} file "
                         f"({type(exc).__name__}: {exc}).") from None


def _read_gzip_csv(path: Path, sep: str, kind: str) -> pd.DataFrame:
    """A gzipped CSV/TSV, decompressed to the end of its stream.

    The stream is read past the last row pandas parsed, so that the end-of-stream marker, CRC
    and length of every gzip member are checked whatever the parser reads: a file cut short
    (``EOFError``) or corrupt is an error naming the file, never a shorter table.
    """
    try:
        with gzip.open(path, "rb") as stream:
            frame = pd.read_csv(stream, sep=sep, compression=None)
            stream.read()  # nothing left after a complete parse: only the end-of-stream checks
    except GZIP_ERRORS as exc:
        raise gzip_error(path, exc, kind.upper()) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            OSError) as exc:
        raise ValueError(f"data file {str(path)!r} is not a readable {kind.upper()} file "
                         f"({type(exc).__name__}: {exc}).") from None
    return frame


def non_numeric_columns(X: pd.DataFrame) -> list[str]:
    """Names of the columns of ``X`` that a numeric model cannot take (text, categories, ...)."""
    return [str(c) for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]


def load_model(path):
    """Load a fitted classifier saved with :func:`joblib.dump` (or :mod:`pickle`).

    Only load files you trust: unpickling runs code.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    model : fitted estimator
        An object with ``predict`` that scikit-learn considers fitted.
    """
    import joblib
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {str(path)!r} does not exist.")
    try:
        model = joblib.load(path)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure is a bad file
        raise ValueError(f"model file {str(path)!r} could not be loaded with joblib "
                         f"({type(exc).__name__}: {exc}).") from None
    if not (hasattr(model, "predict") and hasattr(model, "fit")):
        raise ValueError(f"model file {str(path)!r} holds a {type(model).__name__}, not an "
                         "estimator with fit and predict.")
    try:
        check_is_fitted(model)
    except NotFittedError:
        raise ValueError(f"model file {str(path)!r} holds an unfitted "
                         f"{type(model).__name__}; save the model after fitting it.") from None
    return model


def check_model_columns(model, X: pd.DataFrame) -> pd.DataFrame | np.ndarray:
    """``X`` as ``model`` takes it: its columns, in its order; a clear error otherwise.

    A model fitted on a DataFrame knows its column names (``feature_names_in_``): the table
    must hold them all (extra columns are dropped, order follows the model). A model fitted on
    an array only knows the number of columns, which must match. Finally the model predicts
    the first rows, so that columns it cannot take (text in a numeric model, say) are reported
    here and not in the middle of an evaluation.

    Returns
    -------
    X : pandas.DataFrame or ndarray
        The DataFrame restricted and ordered to ``feature_names_in_``, or, for a model fitted
        without column names, the values as a float64 array.
    """
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [c for c in names if c not in X.columns]
        if missing:
            shown = ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else "")
            raise ValueError(f"the model was fitted on columns the data lacks: {shown}.")
        X = X[list(names)]
    else:
        n_expected = getattr(model, "n_features_in_", None)
        if n_expected is not None and X.shape[1] != n_expected:
            raise ValueError(f"the model was fitted on {n_expected} columns, the data has "
                             f"{X.shape[1]} feature columns.")
        non_numeric = non_numeric_columns(X)
        if non_numeric:
            shown = ", ".join(map(str, non_numeric[:10]))
            raise ValueError(f"the model was fitted on a numeric array but the data has "
                             f"non-numeric columns: {shown}.")
        X = X.to_numpy(dtype=np.float64)   # the model knows no names: give it what it saw
    try:
        model.predict(X[:5])
    except Exception as exc:  # noqa: BLE001 - any failure means the model cannot take X
        raise ValueError(f"the model cannot predict on the data's columns "
                         f"({type(exc).__name__}: {exc}).") from None
    return X
