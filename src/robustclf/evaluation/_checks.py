"""Input checks shared by the curve, certified-curve, display and scorer code of evaluation/.

The data checks look at the *shape* of ``X`` only: the user's container (ndarray, pandas
DataFrame, sparse matrix) is passed through unchanged to the corruption and to the model, which
decide what they accept. Only lists and other sequences without a ``shape`` become ndarrays.
A dask ``X`` and its labels are cut into the same row chunks (:mod:`._dask`), never gathered.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.metrics import check_scoring, get_scorer

from .._blockwise import is_dask_collection
from .._validation import check_labels, check_not_complex

__all__: list[str] = []

#: Largest seed drawn for estimators and corruptions.
MAX_SEED = np.iinfo(np.int32).max


# -- estimators -------------------------------------------------------------------------------

def check_estimators(estimators) -> list[tuple[str, Any]]:
    """Resolve ``estimators`` to a list of (unique name, estimator) pairs.

    Accepts a dict of name -> estimator, a single estimator, or a list of estimators and of
    (name, estimator) pairs. Unnamed estimators are named by :func:`estimator_name`, numbered
    (``"LogisticRegression-1"``) when a name occurs more than once.
    """
    if isinstance(estimators, Mapping):
        pairs = list(estimators.items())
    elif hasattr(estimators, "fit") or hasattr(estimators, "predict"):
        pairs = [(None, estimators)]
    elif isinstance(estimators, (list, tuple)):
        pairs = [item if _is_pair(item) else (None, item) for item in estimators]
    else:
        raise ValueError(
            "estimators must be a dict of name -> estimator or a list of estimators, "
            f"got {type(estimators).__name__}."
        )
    if not pairs:
        raise ValueError("estimators must contain at least one estimator, got none.")
    class_counts = Counter(estimator_name(est) for name, est in pairs if name is None)
    numbering: Counter = Counter()
    named = []
    for name, est in pairs:
        if name is None:
            name = estimator_name(est)
            if class_counts[name] > 1:
                numbering[name] += 1
                name = f"{name}-{numbering[name]}"
        if not isinstance(name, str) or not name:
            raise ValueError(f"estimators must be named by non-empty strings, got {name!r}.")
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise ValueError(
                f"estimators[{name!r}] must be an estimator with fit and predict, got {est!r}."
            )
        named.append((name, est))
    duplicates = sorted(n for n, c in Counter(n for n, _ in named).items() if c > 1)
    if duplicates:
        raise ValueError(f"estimators must have unique names; repeated: {duplicates}.")
    return named


def estimator_name(estimator) -> str:
    """The default name of an estimator: its class, or the final step's class for a Pipeline."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps and isinstance(steps[-1], tuple):
        final = steps[-1][1]
        if final is not None and final != "passthrough":
            return estimator_name(final)
    return type(estimator).__name__


def _is_pair(item) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)


# -- levels and corruptions -------------------------------------------------------------------

def check_levels(levels, name: str = "levels") -> list:
    """``levels`` as a non-empty list of distinct Python scalars."""
    array = np.asarray(levels)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D sequence of corruption levels, got shape "
            f"{array.shape}."
        )
    values = array.tolist()
    repeated = sorted({v for v in values if values.count(v) > 1}, key=values.index)
    if repeated:
        raise ValueError(f"{name} must be distinct; repeated: {repeated}.")
    return values


def resolve_corruptions(corruption, levels: list) -> list:
    """One corruption object per level, built before any work so that errors surface early.

    ``corruption`` is swept with its ``with_level`` method, or called with each level when it is
    a plain callable.
    """
    if hasattr(corruption, "with_level") and hasattr(corruption, "corrupt"):
        make = corruption.with_level
    elif callable(corruption):
        make = corruption
    else:
        raise ValueError(
            "corruption must be a Corruption (swept with with_level) or a callable "
            f"level -> Corruption, got {corruption!r}."
        )
    corruptions = [make(level) for level in levels]
    for level, c in zip(levels, corruptions, strict=True):
        if not hasattr(c, "corrupt"):
            raise ValueError(
                f"corruption({level!r}) must return an object with a corrupt method, got {c!r}."
            )
    return corruptions


def corruption_labels(corruptions: list) -> tuple[str, str]:
    """The ``corruption`` and ``level_name`` columns of a curve frame."""
    first = corruptions[0]
    return type(first).__name__, str(getattr(first, "level_name", "") or "")


# -- data -------------------------------------------------------------------------------------

def check_data(X, *, name: str = "X", n_features: int | None = None):
    """Check that ``X`` is 2-D (and has ``n_features`` columns); return it unchanged.

    DataFrames, sparse matrices, arrays and dask collections keep their type; anything without
    a ``shape`` (a list of rows) is turned into an ndarray. Complex values are refused here,
    before a model or a corruption sees them (:func:`robustclf._validation.check_not_complex`).
    """
    check_not_complex(X, name)
    if is_dask_collection(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, of shape (n_samples, n_features), got a "
                             f"{X.ndim}-D dask collection.")
        n_columns = int(X.shape[1])
        if n_features is not None and n_columns != n_features:
            raise ValueError(
                f"{name} has {n_columns} features, but {n_features} were expected "
                "(the number of features of the training data).")
        return X
    if not hasattr(X, "shape"):
        try:
            X = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 2-D array-like: {exc}") from None
    if len(X.shape) != 2:
        raise ValueError(
            f"{name} must be 2-D, of shape (n_samples, n_features), got shape {X.shape}."
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but {n_features} were expected "
            "(the number of features of the training data)."
        )
    return X


def check_data_and_labels(X, y, *, X_name: str = "X", y_name: str = "y",
                          n_features: int | None = None):
    """:func:`check_data` on ``X`` and a 1-D label vector with one entry per row of ``X``.

    A dask ``X`` gives ``X`` in row chunks and ``y`` as a 1-D dask array with the same chunks
    (:func:`._dask.check_dask_data`); ``y`` may be in memory or dask.
    """
    if is_dask_collection(X):
        from ._dask import check_dask_data

        X = check_data(X, name=X_name, n_features=n_features)
        return check_dask_data(X, y, X_name=X_name, y_name=y_name)
    if is_dask_collection(y):
        raise ValueError(f"{y_name} is a dask collection but {X_name} is not; give both as dask "
                         "collections or both in memory.")
    X = check_data(X, name=X_name, n_features=n_features)
    return X, check_labels(y, X.shape[0], name=y_name)


def check_progress(progress) -> bool:
    """Whether to show a progress bar: ``None`` means "when stderr is a terminal"."""
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ValueError(f"progress must be None, True or False, got {progress!r}.")
    return sys.stderr.isatty() if progress is None else bool(progress)


# -- scoring ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Metric:
    """What a curve records at each level: the error rate, or a scikit-learn scorer's value.

    Attributes
    ----------
    name : str
        ``"error"`` for the default, else the scorer's name (recorded in the ``scoring`` column).
    scorer : callable
        ``scorer(estimator, X, y) -> float``, greater is better.
    """

    name: str
    scorer: Any

    @property
    def is_error(self) -> bool:
        return self.name == "error"

    def __call__(self, estimator, X, y) -> float:
        if is_dask_collection(X):
            from ._dask import dask_score

            score = float(dask_score(self.scorer, self.name, estimator, X, y))
        else:
            score = float(self.scorer(estimator, X, y))
        return 1.0 - score if self.is_error else score


def check_metric(scoring) -> Metric:
    """Resolve ``scoring`` (None, ``"error"``, a scorer name or a scorer callable) to a Metric."""
    if scoring is None or (isinstance(scoring, str) and scoring == "error"):
        return Metric("error", get_scorer("accuracy"))
    return Metric(scoring_name(scoring), check_scorer(scoring))


def check_scorer(scoring):
    """A single scikit-learn scorer from a name or a callable ``scorer(estimator, X, y)``."""
    if isinstance(scoring, str):
        try:
            return get_scorer(scoring)
        except ValueError:
            raise ValueError(
                f"scoring must be 'error', a scikit-learn scorer name (see "
                f"sklearn.metrics.get_scorer_names()) or a callable scorer(estimator, X, y), "
                f"got {scoring!r}."
            ) from None
    if callable(scoring) and not isinstance(scoring, type):
        try:  # scikit-learn's own check: refuses a metric function such as f1_score
            return check_scoring(None, scoring)
        except ValueError as exc:
            raise ValueError(f"scoring: {exc}") from None
    raise ValueError(
        "scoring must be 'error', a scikit-learn scorer name or a callable "
        f"scorer(estimator, X, y) (one metric; lists and dicts are not supported), "
        f"got {scoring!r}."
    )


def scoring_name(scoring) -> str:
    """The name recorded for a scorer: the string itself, or its metric function's name."""
    if isinstance(scoring, str):
        return scoring
    function = getattr(scoring, "_score_func", scoring)
    return str(getattr(function, "__name__", None) or type(scoring).__name__)
