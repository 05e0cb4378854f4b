"""Robustness curves: how the test error of classifiers grows with the strength of a corruption.

Each estimator is fitted once per repeat (or cross-validation fold); the fitted model is then
scored on the test set corrupted at every level. All seeds are drawn from ``random_state`` before
the (estimator, repeat) tasks are dispatched to joblib, so results do not depend on ``n_jobs``, and
the corruption at a given (repeat, level) uses the same seed for every estimator: corruptions that
do not look at the model produce the *same* corrupted test matrix for all of them (a paired
comparison).
"""

from __future__ import annotations

import numbers
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics import accuracy_score
from sklearn.model_selection import check_cv
from tqdm import tqdm

from .._validation import check_generator, check_labels, check_matrix, check_nonnegative

if TYPE_CHECKING:
    from ..corruption import Corruption

__all__ = ["CURVE_COLUMNS", "robustness_curve", "summarize_curve"]

#: Columns of the frame returned by :func:`robustness_curve`, in order.
CURVE_COLUMNS = (
    "estimator", "corruption", "level_name", "level", "repeat",
    "error", "fit_seconds", "predict_seconds",
)

_MAX_SEED = np.iinfo(np.int32).max


def robustness_curve(
    estimators,
    X_train,
    y_train,
    X_test=None,
    y_test=None,
    *,
    corruption: Corruption | Callable[[Any], Corruption],
    levels,
    n_repeats: int = 1,
    cv=None,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Test error of each estimator at each corruption level, as a tidy DataFrame.

    For every repeat (or fold), every estimator is cloned, seeded and fitted **once** on clean
    training data; the fitted model then predicts the test set corrupted at each level in turn.

    Parameters
    ----------
    estimators : dict of str to estimator, or list of estimators or of (name, estimator) pairs
        Unfitted classifiers to compare; they are cloned, never modified. A list of bare
        estimators is named after their classes, numbered (``"LogisticRegression-1"``,
        ``"LogisticRegression-2"``) when a class occurs more than once. Names must be unique.
    X_train : {array-like, sparse matrix} of shape (n_samples, n_features)
        Clean training data. NaN (absent entries) and sparse matrices are passed through;
        whether they are acceptable is for the estimators and the corruption to decide.
    y_train : array-like of shape (n_samples,)
        Training labels.
    X_test : {array-like, sparse matrix} of shape (n_test, n_features), default=None
        Clean test data, corrupted at each level. Give either ``X_test``/``y_test`` or ``cv``.
    y_test : array-like of shape (n_test,), default=None
        Test labels.
    corruption : Corruption or callable
        A :class:`~robustclf.corruption.Corruption`, swept with ``corruption.with_level(level)``,
        or a callable mapping a level to a corruption (for sweeps that ``with_level`` cannot
        express). Corruptions receive the true labels and the fitted model under attack.
    levels : array-like of shape (n_levels,)
        Corruption levels to evaluate, distinct. Include the level that means "no corruption"
        (for example ``0``) to get the clean error on the same curve.
    n_repeats : int, default=1
        Number of repetitions with a fixed test set; repeats differ in the estimators' seeds
        and in the corruptions' random draws. Must be 1 with ``cv`` (use a repeated splitter,
        such as :class:`~sklearn.model_selection.RepeatedStratifiedKFold`, instead).
    cv : int, cross-validation generator or iterable, default=None
        Cross-validate on ``(X_train, y_train)`` instead of using a test set: every fold fits on
        its training part and is scored on its held-out part, and the ``repeat`` column holds
        the fold index. Resolved with :func:`sklearn.model_selection.check_cv` (stratified
        folds for an int).
    random_state : None, int or numpy Generator, default=None
        Seeds the estimators (every parameter named ``random_state``, nested ones included, is
        set per repeat; estimators without one are left untouched) and the corruptions (one
        seed per repeat and level, shared by all estimators).
    n_jobs : int, default=None
        Number of joblib workers over the (estimator, repeat) tasks; ``None`` means 1 unless in a
        :func:`joblib.parallel_config` context. Results do not depend on it.
    progress : bool, default=None
        Show a tqdm progress bar over the tasks; by default only when stderr is a terminal.

    Returns
    -------
    frame : pandas.DataFrame
        One row per (estimator, repeat, level), with columns (see ``CURVE_COLUMNS``):

        - ``estimator`` : str, the estimator's name;
        - ``corruption`` : str, the corruption's class name;
        - ``level_name`` : str, the corruption parameter swept (``""`` if unknown);
        - ``level`` : the corruption level;
        - ``repeat`` : int, the repeat (or fold) index;
        - ``error`` : float, misclassification rate ``1 - accuracy`` on the corrupted test set;
        - ``fit_seconds`` : float, wall-clock time of ``fit`` (the same for all levels of a
          repeat, since the model is fitted once);
        - ``predict_seconds`` : float, wall-clock time of ``predict`` at that level (the
          corruption itself is not timed).

    See Also
    --------
    summarize_curve : Mean, standard deviation and standard error per (estimator, level).
    RobustnessCurveDisplay : Plot the curves.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import RandomDeletion  # doctest: +SKIP
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> frame = robustness_curve(  # doctest: +SKIP
    ...     [LogisticRegression()], X[:100], y[:100], X[100:], y[100:],
    ...     corruption=RandomDeletion(fraction=0.0), levels=[0.0, 0.2, 0.4],
    ...     n_repeats=3, random_state=0)
    >>> summarize_curve(frame)  # doctest: +SKIP
    """
    named = _check_estimators(estimators)
    levels = _check_levels(levels)
    corruptions = _resolve_corruptions(corruption, levels)
    n_repeats = check_nonnegative(n_repeats, "n_repeats", integer=True)
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be at least 1, got {n_repeats}.")
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise ValueError(f"progress must be None, True or False, got {progress!r}.")
    show_progress = sys.stderr.isatty() if progress is None else bool(progress)

    X_train = check_matrix(X_train, name="X_train", allow_nan=True, accept_sparse=True)
    y_train = check_labels(y_train, X_train.shape[0], name="y_train")
    X_eval, y_eval, rounds = _make_rounds(X_train, y_train, X_test, y_test, cv, n_repeats)

    # Every seed is drawn here, before dispatch: results cannot depend on n_jobs or task order.
    rng = check_generator(random_state)
    estimator_seeds = rng.integers(0, _MAX_SEED, size=len(rounds))
    corruption_seeds = rng.integers(0, _MAX_SEED, size=(len(rounds), len(levels)))

    tasks = [
        delayed(_fit_and_evaluate)(
            name, _seeded_clone(estimator, int(estimator_seeds[r])), repeat=r,
            X_train=X_train, y_train=y_train, X_eval=X_eval, y_eval=y_eval,
            fit_index=fit_index, eval_index=eval_index,
            corruptions=corruptions, seeds=corruption_seeds[r].tolist(),
        )
        for r, (fit_index, eval_index) in enumerate(rounds)
        for name, estimator in named
    ]
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    results = tqdm(results, total=len(tasks), disable=not show_progress,
                   desc="robustness curve", unit="fit")
    by_task = {(name, r): rows for (name, r, rows) in results}

    records = [
        (name, repeat, level, *by_task[name, repeat][k])
        for name, _ in named
        for repeat in range(len(rounds))
        for k, level in enumerate(levels)
    ]
    frame = pd.DataFrame.from_records(
        records, columns=["estimator", "repeat", "level", "error", "fit_seconds",
                          "predict_seconds"],
    )
    frame["corruption"] = type(corruptions[0]).__name__
    frame["level_name"] = str(getattr(corruptions[0], "level_name", "") or "")
    return frame[list(CURVE_COLUMNS)]


def summarize_curve(frame: pd.DataFrame, *, value: str = "error") -> pd.DataFrame:
    """Mean, standard deviation, standard error and count of ``value`` per (estimator, level).

    Parameters
    ----------
    frame : pandas.DataFrame
        A tidy frame with at least the columns ``estimator``, ``level`` and ``value``, such as
        returned by :func:`robustness_curve`. When present, ``corruption`` and ``level_name`` are
        grouping keys too, so that frames of several corruptions can be concatenated.
    value : str, default="error"
        The column to summarise (for example ``"fit_seconds"``).

    Returns
    -------
    summary : pandas.DataFrame
        One row per group, in order of first appearance, with the grouping columns and
        ``mean``, ``std`` (sample standard deviation, ``ddof=1``; NaN for a single row),
        ``sem`` (``std / sqrt(count)``) and ``count`` (non-missing values).
    """
    keys = _group_keys(frame, value)
    stats = (frame.groupby(keys, sort=False, dropna=False)[value]
             .agg(["mean", "std", "count"]).reset_index())
    stats["sem"] = stats["std"] / np.sqrt(stats["count"])
    return stats[[*keys, "mean", "std", "sem", "count"]]


# -- internals --------------------------------------------------------------------------------

def _group_keys(frame, value: str) -> list[str]:
    """The grouping columns of a curve frame, after checking the required columns exist."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    missing = [c for c in ("estimator", "level", value) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing the column(s) {missing}; it has {list(frame.columns)}.")
    optional = [c for c in ("corruption", "level_name") if c in frame.columns]
    return [*optional, "estimator", "level"]


def _check_estimators(estimators) -> list[tuple[str, Any]]:
    """Resolve ``estimators`` to a list of (unique name, estimator) pairs."""
    if isinstance(estimators, Mapping):
        pairs = list(estimators.items())
    elif hasattr(estimators, "fit"):
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
    class_counts = Counter(type(est).__name__ for name, est in pairs if name is None)
    numbering: Counter = Counter()
    named = []
    for name, est in pairs:
        if name is None:
            name = type(est).__name__
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


def _is_pair(item) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)


def _check_levels(levels) -> list:
    """``levels`` as a non-empty list of distinct Python scalars."""
    array = np.asarray(levels)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(
            f"levels must be a non-empty 1-D sequence of corruption levels, got shape "
            f"{array.shape}."
        )
    values = array.tolist()
    repeated = sorted({v for v in values if values.count(v) > 1}, key=values.index)
    if repeated:
        raise ValueError(f"levels must be distinct; repeated: {repeated}.")
    return values


def _resolve_corruptions(corruption, levels: list) -> list:
    """One corruption object per level, built before dispatch so that errors surface early."""
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


def _make_rounds(X_train, y_train, X_test, y_test, cv, n_repeats):
    """The evaluation data and one (fit_index, eval_index) pair per repeat or fold.

    An index of ``None`` means all rows (of ``X_train`` for fitting, of the evaluation data for
    scoring). With ``cv`` the evaluation data is the training data itself.
    """
    if (X_test is None) != (y_test is None):
        raise ValueError("X_test and y_test must be given together (or neither, with cv).")
    if cv is not None and X_test is not None:
        raise ValueError("give either cv or X_test/y_test, not both.")
    if cv is None and X_test is None:
        raise ValueError("give a test set (X_test and y_test) or a cross-validation cv.")
    if X_test is not None:
        X_test = check_matrix(X_test, name="X_test", allow_nan=True, accept_sparse=True,
                              n_features=X_train.shape[1])
        y_test = check_labels(y_test, X_test.shape[0], name="y_test")
        return X_test, y_test, [(None, None)] * n_repeats
    if n_repeats != 1:
        raise ValueError(
            f"n_repeats must be 1 with cv, got {n_repeats}; to repeat cross-validation pass a "
            "repeated splitter such as RepeatedStratifiedKFold as cv."
        )
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool) and cv < 2:
        raise ValueError(f"cv must be at least 2 folds, got {cv}.")
    splitter = check_cv(cv, y_train, classifier=True)
    rounds = list(splitter.split(X_train, y_train))
    if not rounds:
        raise ValueError(f"cv produced no train/test split: {cv!r}.")
    return X_train, y_train, rounds


def _seeded_clone(estimator, seed: int):
    """An unfitted clone whose ``random_state`` parameters (nested ones too) derive from seed."""
    estimator = clone(estimator)
    get_params = getattr(estimator, "get_params", None)
    if get_params is None:
        return estimator
    keys = sorted(k for k in get_params(deep=True)
                  if k == "random_state" or k.endswith("__random_state"))
    if keys:
        seeds = np.random.default_rng(seed).integers(0, _MAX_SEED, size=len(keys))
        estimator.set_params(**{k: int(s) for k, s in zip(keys, seeds, strict=True)})
    return estimator


def _take(data, index):
    return data if index is None else data[index]


def _fit_and_evaluate(name, estimator, *, repeat, X_train, y_train, X_eval, y_eval,
                      fit_index, eval_index, corruptions, seeds):
    """Fit once, then score the model on the evaluation data at every corruption level.

    Returns ``(name, repeat, rows)`` with one ``(error, fit_seconds, predict_seconds)`` per level.
    """
    X_fit, y_fit = _take(X_train, fit_index), _take(y_train, fit_index)
    X_ev, y_ev = _take(X_eval, eval_index), _take(y_eval, eval_index)
    start = time.perf_counter()
    estimator.fit(X_fit, y_fit)
    fit_seconds = time.perf_counter() - start
    rows = []
    for corruption, seed in zip(corruptions, seeds, strict=True):
        X_corrupted = corruption.corrupt(X_ev, y=y_ev, model=estimator, random_state=seed)
        start = time.perf_counter()
        y_pred = estimator.predict(X_corrupted)
        predict_seconds = time.perf_counter() - start
        rows.append((1.0 - accuracy_score(y_ev, y_pred), fit_seconds, predict_seconds))
    return name, repeat, rows
