"""Robustness curves: how the test error (or any score) of classifiers changes with a corruption.

:func:`robustness_curve` is a thin layer over :func:`~robustclf.evaluation.fitted_robustness_curve`:
each estimator is cloned, seeded and fitted once per repeat (or cross-validation fold), and the
fitted model is scored at every level by the same loop that scores models the user fitted
(:func:`._fitted.score_levels`). All seeds are drawn from ``random_state`` before the (estimator,
repeat) tasks are dispatched to joblib, so results do not depend on ``n_jobs``, and the corruption
at a given (repeat, level) uses the same seed for every estimator: corruptions that do not look at
the model produce the *same* corrupted test data for all of them (a paired comparison).
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from joblib import delayed
from sklearn.base import clone
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing

from .._blockwise import is_dask_collection
from .._validation import check_bool, check_generator
from ._checks import (
    MAX_SEED,
    check_data,
    check_data_and_labels,
    check_estimators,
    check_levels,
    check_metric,
    check_progress,
    resolve_corruptions,
)
from ._fitted import (
    CURVE_COLUMNS,
    SCORED_CURVE_COLUMNS,
    check_n_repeats,
    curve_frame,
    fitted_robustness_curve,
    run_tasks,
    score_levels,
)

if TYPE_CHECKING:
    from ..corruption import Corruption

__all__ = ["CURVE_COLUMNS", "SCORED_CURVE_COLUMNS", "robustness_curve", "summarize_curve"]


def robustness_curve(
    estimators,
    X_train=None,
    y_train=None,
    X_test=None,
    y_test=None,
    *,
    corruption: Corruption | Callable[[Any], Corruption],
    levels,
    n_repeats: int = 1,
    cv=None,
    scoring=None,
    refit: bool = True,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Test error (or score) of each estimator at each corruption level, as a tidy DataFrame.

    For every repeat (or fold), every estimator is cloned, seeded and fitted **once** on clean
    training data; the fitted model is then scored on the test data corrupted at each level in
    turn, by the same code as :func:`fitted_robustness_curve`. With ``refit=False`` the
    estimators are taken as already fitted and this *is* :func:`fitted_robustness_curve` on
    ``(X_test, y_test)``.

    Parameters
    ----------
    estimators : dict of str to estimator, or list of estimator or (str, estimator)
        Classifiers to compare: unfitted ones (cloned, never modified), or fitted ones with
        ``refit=False``. A list of bare estimators is named after their classes (a Pipeline
        after its final step's class), numbered (``"LogisticRegression-1"``,
        ``"LogisticRegression-2"``) when a name occurs more than once. Names must be unique.
    X_train : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        Clean training data; required unless ``refit=False``. Passed to ``fit`` as given
        (a DataFrame stays a DataFrame, NaN and sparse matrices are passed through): whether
        they are acceptable is for the estimators and the corruption to decide. A dask
        collection (with ``y_train`` in memory or dask) is passed to ``fit`` as it is too:
        an estimator that trains blockwise reads it chunk by chunk, a scikit-learn one reads it
        whole. It needs a test set (``cv`` would index it row by row).
    y_train : array-like of shape (n_samples,)
        Training labels; required unless ``refit=False``.
    X_test : {array-like, sparse matrix, DataFrame} of shape (n_test, n_features), default=None
        Clean test data, corrupted at each level and passed to the models in the container it
        came in. Give either ``X_test``/``y_test`` or ``cv``. A dask array or DataFrame is
        corrupted and scored chunk by chunk and never gathered (see
        :func:`fitted_robustness_curve`).
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
        folds for an int). Folds are taken with ``sklearn.utils._safe_indexing``, so
        DataFrames and sparse matrices keep their type.
    scoring : None, "error", str or callable, default=None
        What is recorded at each level: ``None`` or ``"error"`` the error rate
        ``1 - accuracy`` (column ``error``); a scikit-learn scorer name (``"roc_auc"``,
        ``"balanced_accuracy"``, ``"neg_log_loss"``, ...) or callable
        ``scorer(estimator, X, y)`` its value (columns ``scoring`` and ``score``). See
        :func:`fitted_robustness_curve`.
    refit : bool, default=True
        Whether to fit the estimators. ``False``: they are already fitted and are scored as
        they are on ``X_test``/``y_test`` (``X_train``, ``y_train`` and ``cv`` must then be
        left out, ``random_state`` seeds only the corruptions, and ``fit_seconds`` is NaN).
        To mix fitted and unfitted models in one call, wrap the fitted ones in
        :class:`sklearn.frozen.FrozenEstimator` (whose ``fit`` does nothing).
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
        One row per (estimator, repeat, level). With the default ``scoring`` the columns are
        ``CURVE_COLUMNS``:

        - ``estimator`` : str, the estimator's name;
        - ``corruption`` : str, the corruption's class name;
        - ``level_name`` : str, the corruption parameter swept (``""`` if unknown);
        - ``level`` : the corruption level;
        - ``repeat`` : int, the repeat (or fold) index;
        - ``error`` : float, misclassification rate ``1 - accuracy`` on the corrupted test set;
        - ``fit_seconds`` : float, wall-clock time of ``fit`` (the same for all levels of a
          repeat, since the model is fitted once);
        - ``predict_seconds`` : float, wall-clock time of scoring at that level (prediction and
          metric; the corruption itself is not timed).

        With another ``scoring`` the columns are ``SCORED_CURVE_COLUMNS``: ``error`` is
        replaced by ``scoring`` (str, the scorer's name) and ``score`` (float, its value,
        greater is better).

    See Also
    --------
    fitted_robustness_curve : The same curve for models that are already fitted.
    summarize_curve : Mean, standard deviation and standard error per (estimator, level).
    RobustnessCurveDisplay : Plot the curves.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import RandomDeletion
    >>> from robustclf.evaluation import robustness_curve, summarize_curve
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> frame = robustness_curve(
    ...     [LogisticRegression()], X[:100], y[:100], X[100:], y[100:],
    ...     corruption=RandomDeletion(fraction=0.0, fill=0.0), levels=[0.0, 0.2, 0.4],
    ...     n_repeats=3, random_state=0)
    >>> summarize_curve(frame)[["estimator", "level", "count"]]
                estimator  level  count
    0  LogisticRegression    0.0      3
    1  LogisticRegression    0.2      3
    2  LogisticRegression    0.4      3
    """
    refit = check_bool(refit, "refit")
    if not refit:
        _check_no_training_data(X_train, y_train, cv, X_test, y_test)
        return fitted_robustness_curve(
            estimators, X_test, y_test, corruption=corruption, levels=levels,
            n_repeats=n_repeats, scoring=scoring, random_state=random_state, n_jobs=n_jobs,
            progress=progress)

    named = check_estimators(estimators)
    levels = check_levels(levels)
    corruptions = resolve_corruptions(corruption, levels)
    n_repeats = check_n_repeats(n_repeats)
    metric = check_metric(scoring)
    show_progress = check_progress(progress)
    if X_train is None or y_train is None:
        raise ValueError(
            "X_train and y_train are required to fit the estimators; to score fitted "
            "estimators pass refit=False with X_test and y_test.")
    if is_dask_collection(X_train):  # passed to fit as given: the estimator decides
        X_train = check_data(X_train, name="X_train")
    else:
        X_train, y_train = check_data_and_labels(X_train, y_train, X_name="X_train",
                                                 y_name="y_train")
    X_eval, y_eval, rounds = _make_rounds(X_train, y_train, X_test, y_test, cv, n_repeats)

    # Every seed is drawn here, before dispatch: results cannot depend on n_jobs or task order.
    rng = check_generator(random_state)
    estimator_seeds = rng.integers(0, MAX_SEED, size=len(rounds))
    corruption_seeds = rng.integers(0, MAX_SEED, size=(len(rounds), len(levels)))

    tasks = [
        delayed(_fit_and_score)(
            name, _seeded_clone(estimator, int(estimator_seeds[r])), repeat=r,
            X_train=X_train, y_train=y_train, X_eval=X_eval, y_eval=y_eval,
            fit_index=fit_index, eval_index=eval_index,
            corruptions=corruptions, seeds=corruption_seeds[r].tolist(), metric=metric,
        )
        for r, (fit_index, eval_index) in enumerate(rounds)
        for name, estimator in named
    ]
    results = run_tasks(tasks, n_jobs=n_jobs, show_progress=show_progress,
                        desc="robustness curve", unit="fit")
    return curve_frame(results, named, len(rounds), levels, corruptions, metric)


def summarize_curve(frame: pd.DataFrame, *, value: str | None = None) -> pd.DataFrame:
    """Mean, standard deviation, standard error and count of ``value`` per (estimator, level).

    Parameters
    ----------
    frame : pandas.DataFrame
        A tidy frame with at least the columns ``estimator``, ``level`` and ``value``, such as
        returned by :func:`robustness_curve`. When present, ``corruption``, ``level_name`` and
        ``scoring`` are grouping keys too, so that frames of several corruptions (or scorings)
        can be concatenated.
    value : str, default=None
        The column to summarise (for example ``"fit_seconds"``). ``None`` means ``"error"`` when
        the frame has that column and ``"score"`` otherwise (a frame computed with another
        ``scoring``).

    Returns
    -------
    summary : pandas.DataFrame
        One row per group, in order of first appearance, with the grouping columns and
        ``mean``, ``std`` (sample standard deviation, ``ddof=1``; NaN for a single row),
        ``sem`` (``std / sqrt(count)``) and ``count`` (non-missing values).

    Examples
    --------
    >>> import pandas as pd
    >>> from robustclf.evaluation import summarize_curve
    >>> frame = pd.DataFrame({"estimator": ["a", "a", "b"], "level": [0, 0, 0],
    ...                       "scoring": "roc_auc", "score": [0.8, 0.9, 0.7]})
    >>> summarize_curve(frame)[["estimator", "mean", "count"]]
      estimator  mean  count
    0         a  0.85      2
    1         b  0.70      1
    """
    value = curve_value(frame, value)
    keys = _group_keys(frame, value)
    stats = (frame.groupby(keys, sort=False, dropna=False)[value]
             .agg(["mean", "std", "count"]).reset_index())
    stats["sem"] = stats["std"] / np.sqrt(stats["count"])
    return stats[[*keys, "mean", "std", "sem", "count"]]


def curve_value(frame, value: str | None) -> str:
    """The value column of a curve frame: ``value``, or ``error`` / ``score`` when None."""
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if value is not None:
        return value
    return "score" if "error" not in frame.columns and "score" in frame.columns else "error"


# -- internals --------------------------------------------------------------------------------

def _group_keys(frame, value: str) -> list[str]:
    """The grouping columns of a curve frame, after checking the required columns exist."""
    missing = [c for c in ("estimator", "level", value) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing the column(s) {missing}; it has {list(frame.columns)}.")
    optional = [c for c in ("corruption", "level_name", "scoring") if c in frame.columns]
    return [*optional, "estimator", "level"]


def _check_no_training_data(X_train, y_train, cv, X_test, y_test) -> None:
    """With ``refit=False`` nothing is fitted: training data or cv would be silently unused."""
    if X_train is not None or y_train is not None or cv is not None:
        raise ValueError(
            "with refit=False the estimators are already fitted: leave X_train, y_train and cv "
            "out and pass the evaluation data as X_test and y_test.")
    if X_test is None or y_test is None:
        raise ValueError("with refit=False, X_test and y_test (the evaluation data) are required.")


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
        X_test, y_test = check_data_and_labels(X_test, y_test, X_name="X_test",
                                               y_name="y_test", n_features=int(X_train.shape[1]))
        return X_test, y_test, [(None, None)] * n_repeats
    if is_dask_collection(X_train):
        raise ValueError(
            "cv with a dask X_train is not supported (the folds would index the collection "
            "row by row); give a held-out test set as X_test and y_test, e.g. with "
            "dask_ml.model_selection.train_test_split.")
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
        seeds = np.random.default_rng(seed).integers(0, MAX_SEED, size=len(keys))
        estimator.set_params(**{k: int(s) for k, s in zip(keys, seeds, strict=True)})
    return estimator


def _take(data, index):
    """Rows ``index`` of ``data`` in its own container (all rows for None)."""
    return data if index is None else _safe_indexing(data, index)


def _fit_and_score(name, estimator, *, repeat, X_train, y_train, X_eval, y_eval,
                   fit_index, eval_index, corruptions, seeds, metric):
    """Fit once, then score the model at every level with the fitted-model loop.

    Returns ``(name, repeat, rows)`` with one ``(value, fit_seconds, predict_seconds)`` per level.
    """
    X_fit, y_fit = _take(X_train, fit_index), _take(y_train, fit_index)
    X_ev, y_ev = _take(X_eval, eval_index), _take(y_eval, eval_index)
    start = time.perf_counter()
    estimator.fit(X_fit, y_fit)
    fit_seconds = time.perf_counter() - start
    rows = score_levels(estimator, X_ev, y_ev, corruptions, seeds, metric)
    return name, repeat, [(value, fit_seconds, seconds) for value, seconds in rows]

