"""Input checks shared by the whole library.

Every public function validates through these helpers so that a bad argument always produces a
``ValueError`` that names the offending parameter, with the same wording everywhere.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ._compat import validate_data as _sklearn_validate_data

__all__ = [
    "MAX_MAGNITUDE",
    "MIN_MAGNITUDE",
    "FLOAT32_MAX",
    "FLOAT32_TINY",
    "validate_data",
    "check_magnitude",
    "check_float32_range",
    "check_not_complex",
    "check_n_rows",
    "check_n_jobs",
    "check_deletion_mask",
    "check_generator",
    "check_fraction",
    "check_nonnegative",
    "check_fill",
    "check_matrix",
    "check_labels",
    "check_feature_values",
    "check_budget",
    "check_groups",
    "check_group_names",
    "check_count_or_fraction",
    "check_option",
    "check_int",
    "check_real",
    "check_positive",
    "check_max_iter",
    "check_bool",
]


#: Largest absolute value an estimator is fitted on. Squares and products of two entries, and
#: their sums over rows and features, must stay within float64 (about 1.8e308): beyond 1e150
#: they overflow to inf and the solvers fail with messages about NaN or numerical trouble.
MAX_MAGNITUDE = 1e150
#: Smallest largest-absolute-value of a fitted ``X`` that is not all zeros: below it, squares
#: underflow to zero (or to subnormal numbers) and every solver sees a matrix of zeros.
MIN_MAGNITUDE = 1e-150


def check_magnitude(X, name: str = "X", *, lower: bool = True, action: str = "fit on") -> None:
    """Refuse values whose squares and products overflow (or underflow) float64.

    Estimators are not rescaled internally: most of the library's methods are not
    scale-equivariant (``C``, ``margin``, ``weight_bound``, thresholds and kernels are in the
    units of ``X``), so a silent rescaling would change the model. Values that float64 cannot
    square are refused with a message that names ``X``, the offending magnitude and the remedy.
    The same upper bound applies at prediction (``action="predict on"``): a model fitted on
    values below it is not asked to score values beyond it, whose products with the fitted
    parameters (or with each other, in a kernel) overflow to inf or NaN scores.

    Parameters
    ----------
    X : ndarray or sparse matrix
        Validated float64 data (NaN entries, absent features, are ignored).
    name : str, default="X"
        Name of the input in the message.
    lower : bool, default=True
        Also refuse a matrix whose largest absolute value is positive but below
        :data:`MIN_MAGNITUDE`. False checks the upper bound only (a chunk of a larger matrix,
        or rows to predict on: tiny values give accurate scores).
    action : str, default="fit on"
        What is done with ``X``, in the message (``"X has values too large to fit on"``).

    Raises
    ------
    ValueError
        When ``max |x| > MAX_MAGNITUDE``, or (``lower``) ``0 < max |x| < MIN_MAGNITUDE``.
    """
    largest = _largest_magnitude(X)
    if largest > MAX_MAGNITUDE:
        raise ValueError(
            f"{name} has values too large to {action}: the largest magnitude is "
            f"{largest:.3g}, above {MAX_MAGNITUDE:g}, so squares and products of its entries "
            "overflow float64. Scale the features first (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    if lower and 0.0 < largest < MIN_MAGNITUDE:
        raise ValueError(
            f"{name} has values too small to {action}: the largest magnitude is {largest:.3g}, "
            f"below {MIN_MAGNITUDE:g}, so squares and products of its entries underflow to "
            "zero. Scale the features first (e.g. sklearn.preprocessing.StandardScaler)."
        )


#: Largest finite float32 value: what a scikit-learn decision tree can read (it casts X to
#: float32; larger values become inf and are refused deep inside the tree).
FLOAT32_MAX = float(np.finfo(np.float32).max)
#: Smallest normal float32 value: a matrix whose largest magnitude is below it is read by a
#: tree as zeros (or subnormal numbers) and gives no split.
FLOAT32_TINY = float(np.finfo(np.float32).tiny)


def check_float32_range(X, name: str = "X", *, reader: str, lower: bool = True,
                        action: str = "fit on") -> None:
    """Refuse values that a model reading ``X`` as float32 cannot represent.

    scikit-learn's decision trees (and the forests and boostings made of them) cast ``X`` to
    float32: a value beyond about 3.4e38, which :func:`check_magnitude` accepts, becomes inf
    there and is refused with a message about infinity the user's data does not contain.

    Parameters
    ----------
    X : ndarray
        Validated float64 data (NaN entries, absent features, are ignored).
    name : str, default="X"
        Name of the input in the message.
    reader : str
        What reads ``X`` as float32, in the message (e.g. ``"the decision trees of
        FeatureBoostClassifier"``).
    lower : bool, default=True
        Also refuse a matrix whose largest absolute value is positive but below the smallest
        normal float32 (the tree would see zeros). False at prediction.
    action : str, default="fit on"
        What is done with ``X``, in the message.

    Raises
    ------
    ValueError
        When ``max |x|`` exceeds float32's largest value, or (``lower``) is positive and below
        its smallest normal value.
    """
    largest = _largest_magnitude(X)
    if largest > FLOAT32_MAX:
        raise ValueError(
            f"{name} has values too large to {action} with {reader} ({name} is read as "
            f"float32): the largest magnitude is {largest:.3g}, above float32's largest value "
            f"{FLOAT32_MAX:.3g}. Scale the features first (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )
    if lower and 0.0 < largest < FLOAT32_TINY:
        raise ValueError(
            f"{name} has values too small to {action} with {reader} ({name} is read as "
            f"float32): the largest magnitude is {largest:.3g}, below float32's smallest normal "
            f"value {FLOAT32_TINY:.3g}. Scale the features first (e.g. "
            "sklearn.preprocessing.StandardScaler)."
        )


def _largest_magnitude(X) -> float:
    """``max |x|`` over the entries of ``X`` (stored entries of a sparse matrix), NaN ignored;
    0 for an empty matrix. No ``|X|`` temporary: the extremes give it."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.size == 0:
        return 0.0
    return max(float(np.nanmax(values, initial=0.0)), -float(np.nanmin(values, initial=0.0)))


def check_not_complex(X, name: str = "X") -> None:
    """Refuse complex numbers in ``X`` before any cast to float could drop their imaginary part.

    Looks at the dtype only (each column's for a DataFrame), and at the entries of an object
    array; a list is read with ``np.asarray``. Nothing is converted or copied otherwise. The
    message keeps scikit-learn's words ("Complex data not supported", which its common checks
    look for) without its dump of the array.

    Parameters
    ----------
    X : array-like, DataFrame, sparse matrix or dask array
    name : str, default="X"
        Name of the input in the message.

    Raises
    ------
    ValueError
        When ``X`` holds complex numbers.
    """
    if hasattr(X, "dtypes") and not hasattr(X, "dtype"):  # a DataFrame: one dtype per column
        dtypes = list(X.dtypes)
    elif hasattr(X, "dtype"):
        dtypes = [X.dtype]
    else:
        try:
            dtypes = [np.asarray(X).dtype]
        except (TypeError, ValueError):
            return  # not an array: the caller's own check says what is wrong
    kinds = {getattr(d, "kind", None) for d in dtypes}
    found = next((d for d in dtypes if getattr(d, "kind", None) == "c"), None)
    if found is None and "O" in kinds and isinstance(X, np.ndarray):
        if any(isinstance(v, (complex, np.complexfloating)) for v in X.flat):
            found = "object (holding complex numbers)"
    if found is not None:
        raise ValueError(
            f"{name} has complex values (dtype {found}); expected real numbers (float or "
            f"integer). Complex data not supported: pass np.real({name}) or np.abs({name}) if "
            "one of them is meant."
        )


def check_n_rows(n_rows: int, name: str = "X", *, minimum: int = 1, why: str = "") -> None:
    """Refuse an input with fewer than ``minimum`` rows.

    Parameters
    ----------
    n_rows : int
        The number of rows of the input.
    name : str, default="X"
        Name of the input in the message.
    minimum : int, default=1
    why : str, default=""
        Why rows are needed, in the message (``"the error rate of no rows is undefined"``).

    Raises
    ------
    ValueError
        When ``n_rows < minimum``.
    """
    if n_rows < minimum:
        rows = "row is" if minimum == 1 else "rows are"
        reason = f" ({why})" if why else ""
        raise ValueError(
            f"{name} has {n_rows} rows, but at least {minimum} {rows} required{reason}.")


def validate_data(estimator, X="no_validation", y="no_validation", *, reset: bool = True,
                  magnitude: bool | None = None, **check_params):
    """scikit-learn's ``validate_data``, then :func:`check_magnitude` on ``X``.

    Every estimator of the library validates its input through this function, in ``fit``
    (``reset=True``) and at prediction (``predict``, ``decision_function``,
    ``predict_proba``, ``transform``: ``reset=False``), so that the data checks are the same
    everywhere: scikit-learn's (2-D numeric, finite unless NaN is allowed, number of features
    and feature names against the fit) and the library's magnitude check. A dask input is
    predicted chunk by chunk by the same in-memory method, so every chunk is checked.

    Parameters
    ----------
    estimator, X, y, reset, **check_params
        As in :func:`sklearn.utils.validation.validate_data`.
    magnitude : bool or None, default=None
        Apply :func:`check_magnitude` to ``X``. None: in ``fit`` (``reset``) both bounds;
        at prediction (not ``reset``) the upper bound only, with a message saying the values
        are too large to predict on (NaN entries, absent features, are ignored). True: both
        bounds whatever ``reset`` (each ``partial_fit`` batch). False: no check (an estimator
        that reads only where NaN is, never the values).

    Returns
    -------
    The output of :func:`sklearn.utils.validation.validate_data`.
    """
    no_X = isinstance(X, str) and X == "no_validation"
    if not no_X:
        check_not_complex(X)  # before scikit-learn's message, which dumps the array
    out = _sklearn_validate_data(estimator, X, y, reset=reset, **check_params)
    no_y = y is None or (isinstance(y, str) and y == "no_validation")
    if no_X or magnitude is False:
        return out
    checked = out if no_y else out[0]
    if reset or magnitude:
        check_magnitude(checked)
    else:
        check_magnitude(checked, lower=False, action="predict on")
    return out


def check_n_jobs(value, name: str = "n_jobs") -> int | None:
    """joblib's ``n_jobs``: None, or a non-zero integer (-1: all cores, -2: all but one...)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} must be None or a non-zero integer, got {value!r}.")
    if value == 0:
        raise ValueError(
            f"{name} must be None or a non-zero integer (-1 uses every core), got 0.")
    return int(value)


def check_deletion_mask(mask, shape: tuple[int, int], owner: str) -> np.ndarray:
    """Check the deletion mask a corruption computed: a boolean array of ``X``'s shape.

    ``owner`` (the corruption's class name) is named in the message: the mask comes from its
    ``_deletion_mask``, not from the user. A 1-D mask, or an integer 0/1 mask, would index
    whole rows of ``X`` instead of entries.
    """
    mask = np.asarray(mask)
    if mask.shape != tuple(shape) or mask.dtype != np.bool_:
        raise ValueError(
            f"{owner}._deletion_mask must return a boolean array of X's shape {tuple(shape)}, "
            f"got an array of dtype {mask.dtype} and shape {mask.shape}."
        )
    return mask


def check_generator(random_state) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`, once.

    Accepts ``None`` (fresh entropy), an int, a ``Generator`` (returned as is) or a legacy
    ``RandomState`` (a Generator is seeded from it, so the legacy stream stays reproducible).
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}.")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise ValueError(
        f"random_state must be None, an int, a numpy Generator or RandomState, "
        f"got {random_state!r}."
    )


def check_fraction(value, name: str) -> float:
    """Check that ``value`` is a real number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating)):
        raise ValueError(f"{name} must be a real number in [0, 1], got {value!r}.")
    value = float(value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value}.")
    return value


def check_nonnegative(value, name: str, *, integer: bool = False) -> float | int:
    """Check that ``value`` is a finite non-negative number (an int if ``integer``)."""
    kinds = (numbers.Integral, np.integer) if integer else (numbers.Real, np.number)
    if isinstance(value, bool) or not isinstance(value, kinds):
        kind = "a non-negative integer" if integer else "a non-negative real number"
        raise ValueError(f"{name} must be {kind}, got {value!r}.")
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be non-negative and finite, got {value}.")
    return int(value) if integer else float(value)


def check_fill(fill) -> float:
    """The value written into deleted entries: ``0.0`` (the papers) or ``np.nan`` (absent)."""
    if isinstance(fill, bool) or not isinstance(fill, (numbers.Real, np.floating)):
        raise ValueError(f"fill must be a float such as 0.0 or np.nan, got {fill!r}.")
    if np.isinf(fill):
        raise ValueError(f"fill must be finite or nan, got {fill}.")
    return float(fill)


def check_matrix(
    X, *, name: str = "X", allow_nan: bool = False, accept_sparse: bool = False,
    n_features: int | None = None, min_rows: int = 0, why_rows: str = "",
) -> np.ndarray | sp.csr_matrix:
    """Validate a 2-D numeric matrix and return a float64 copy that callers may modify.

    Never returns a view of the input: corruptions write into the returned array. Complex
    values are refused (:func:`check_not_complex`) rather than cast, which would drop their
    imaginary part; fewer than ``min_rows`` rows are refused with ``why_rows`` as the reason
    (:func:`check_n_rows`).
    """
    check_not_complex(X, name)
    if sp.issparse(X):
        if not accept_sparse:
            raise ValueError(f"{name} is a sparse matrix; this function needs a dense array.")
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        data = X.data
    else:
        try:
            X = np.array(X, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a numeric 2-D array: {exc}") from None
        if X.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D array of shape (n_samples, n_features), "
                f"got an array with {X.ndim} dimension(s)."
            )
        data = X
    if np.isinf(data).any():
        raise ValueError(f"{name} contains infinite values.")
    if not allow_nan and np.isnan(data).any():
        raise ValueError(
            f"{name} contains NaN; this function does not accept missing values "
            "(impute them first, e.g. with sklearn.impute.SimpleImputer)."
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but {n_features} were expected "
            "(the number of features the model was fitted on)."
        )
    check_n_rows(X.shape[0], name, minimum=min_rows, why=why_rows)
    return X


def check_labels(y, n_samples: int, *, name: str = "y") -> np.ndarray:
    """Validate a 1-D label vector with one entry per row."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but X has {n_samples} rows."
        )
    return y


def check_feature_values(feature_values, n_features: int) -> np.ndarray:
    """Resolve ``feature_values`` (Dekel & Shamir's v_j) to a non-negative float array.

    ``"uniform"`` gives v_j = 1. An array must have one finite, non-negative entry per feature.
    Data-dependent heuristics (``"mutual_info"``) need training data and are resolved by
    :func:`robustclf.feature_values.resolve_feature_values`.
    """
    if isinstance(feature_values, str):
        if feature_values == "uniform":
            return np.ones(n_features)
        raise ValueError(
            f"feature_values must be 'uniform' or an array here, got {feature_values!r} "
            "('mutual_info' needs training data: use robustclf.feature_values.mutual_info_values)."
        )
    values = np.asarray(feature_values, dtype=np.float64)
    if values.ndim != 1 or values.shape[0] != n_features:
        raise ValueError(
            f"feature_values must have one entry per feature ({n_features}), "
            f"got shape {values.shape}."
        )
    if not np.all(np.isfinite(values)) or np.any(values < 0):
        raise ValueError("feature_values must be finite and non-negative.")
    return values


def check_budget(budget, feature_values: np.ndarray) -> float:
    """Check a value budget N: 0 <= N <= V([n]) = sum of the feature values."""
    budget = check_nonnegative(budget, "budget")
    total = float(np.sum(feature_values))
    if budget > total * (1 + 1e-12) + 1e-12:
        raise ValueError(
            f"budget must be at most the total feature value V([n]) = {total:g}, got {budget:g}."
        )
    return budget


def check_groups(groups, n_features: int) -> list[np.ndarray]:
    """Validate feature groups: a sequence of non-empty, disjoint lists of column indices."""
    if isinstance(groups, np.ndarray) and groups.ndim == 1 and groups.dtype.kind in "iu":
        # a label per feature: group g is the set of columns labelled g
        if groups.shape[0] != n_features:
            raise ValueError(
                f"groups given as one label per feature must have {n_features} entries, "
                f"got {groups.shape[0]}."
            )
        return [np.flatnonzero(groups == g) for g in np.unique(groups)]
    if not isinstance(groups, Sequence) or isinstance(groups, str) or len(groups) == 0:
        raise ValueError("groups must be a non-empty sequence of lists of column indices.")
    out = []
    seen = np.zeros(n_features, dtype=bool)
    for g, cols in enumerate(groups):
        cols = np.asarray(cols)
        if cols.ndim != 1 or cols.size == 0 or cols.dtype.kind not in "iu":
            raise ValueError(f"groups[{g}] must be a non-empty list of integer column indices.")
        if cols.min() < 0 or cols.max() >= n_features:
            raise ValueError(f"groups[{g}] has a column index outside [0, {n_features}).")
        if seen[cols].any() or np.unique(cols).size != cols.size:
            raise ValueError(f"groups must be disjoint; groups[{g}] repeats a column.")
        seen[cols] = True
        out.append(cols.astype(np.intp))
    return out


def check_group_names(groups, columns):
    """Resolve feature groups given by column names into column positions.

    A group (a list) whose entries are all integers is taken as column positions and left as it
    is, whatever ``columns`` are (an integer is always a position); any other group is a list of
    column names, looked up in ``columns`` (a DataFrame's columns, or None for an array).
    ``groups`` itself is returned (the same object) when it holds no names, so callers can tell.
    Everything else about the groups is checked by :func:`check_groups`.
    """
    if groups is None or isinstance(groups, (np.ndarray, str)) or not isinstance(groups, Sequence):
        return groups
    resolved, named = [], False
    for g, cols in enumerate(groups):
        if isinstance(cols, str) or not isinstance(cols, (Sequence, np.ndarray)):
            raise ValueError(
                f"groups[{g}] must be a list of column indices or column names, got {cols!r}."
            )
        if all(isinstance(c, (numbers.Integral, np.integer)) for c in cols) or (
                columns is None and not any(isinstance(c, str) for c in cols)):
            resolved.append(cols)  # positions (or invalid entries, for check_groups to report)
            continue
        named = True
        if columns is None:
            raise ValueError(
                f"groups[{g}] names columns ({list(cols)!r}); column names need X as a pandas "
                "DataFrame (give column positions for an array)."
            )
        positions = columns.get_indexer(list(cols))
        if (positions < 0).any():
            unknown = [c for c, p in zip(cols, positions, strict=True) if p < 0]
            raise ValueError(
                f"groups[{g}] names unknown column(s) {unknown!r}; X's columns are "
                f"{list(columns)!r}."
            )
        resolved.append(positions.astype(np.intp))
    return resolved if named else groups


def check_count_or_fraction(k, fraction, *, k_name: str = "k") -> tuple[int | None, float | None]:
    """Exactly one of a count ``k`` and a ``fraction`` must be given."""
    if (k is None) == (fraction is None):
        raise ValueError(f"give exactly one of {k_name} and fraction, got {k_name}={k!r}, "
                         f"fraction={fraction!r}.")
    if k is not None:
        return check_nonnegative(k, k_name, integer=True), None
    return None, check_fraction(fraction, "fraction")


def check_option(value, name: str, options) -> str:
    """Check that ``value`` is one of the allowed option strings."""
    options = tuple(options)
    if not isinstance(value, str) or value not in options:
        allowed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}.")
    return value


def check_int(value, name: str, *, minimum: int = 1) -> int:
    """Check that ``value`` is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def check_real(value, name: str, *, minimum: float | None = None) -> float:
    """Check that ``value`` is a finite real number (>= ``minimum`` if given)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a real number, got {value!r}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}.")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum:g}, got {value:g}.")
    return value


def check_positive(value, name: str) -> float:
    """A finite real number > 0 (e.g. ``C``, ``tol``, ``margin``)."""
    if check_nonnegative(value, name) == 0:
        raise ValueError(f"{name} must be positive, got {value}.")
    return float(value)


def check_max_iter(value, name: str = "max_iter") -> int:
    """An integer >= 1."""
    return check_int(value, name, minimum=1)


def check_bool(value, name: str) -> bool:
    """True or False (numpy booleans accepted)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}.")
    return bool(value)
