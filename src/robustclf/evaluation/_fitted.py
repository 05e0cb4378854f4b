"""The core of every robustness curve: score *fitted* models on corrupted data, level by level.

:func:`fitted_robustness_curve` is the public entry point for models the user already has (an
estimator or pipeline fitted elsewhere, loaded from disk): it never calls ``fit`` or ``clone``.
:func:`robustness_curve` fits clones once per repeat or fold and then calls the same
:func:`score_levels` loop, so both frames are computed by one piece of code.

The data is passed through as the user gave it: a pandas DataFrame reaches ``corruption.corrupt``
and ``estimator.predict`` as a DataFrame, a sparse matrix as a sparse matrix. A dask array or
DataFrame is corrupted and scored chunk by chunk, never gathered (:mod:`._dask`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd
from joblib import Parallel, delayed
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted
from tqdm import tqdm

from .._validation import check_generator, check_nonnegative
from ._checks import (
    MAX_SEED,
    Metric,
    check_data_and_labels,
    check_estimators,
    check_levels,
    check_metric,
    check_progress,
    corruption_labels,
    resolve_corruptions,
)

if TYPE_CHECKING:
    from ..corruption import Corruption

__all__ = ["CURVE_COLUMNS", "fitted_robustness_curve"]

#: Columns of the frame returned by :func:`robustness_curve` and :func:`fitted_robustness_curve`
#: with the default ``scoring`` (the error rate), in order.
CURVE_COLUMNS = (
    "estimator", "corruption", "level_name", "level", "repeat",
    "error", "fit_seconds", "predict_seconds",
)

#: The columns with another ``scoring``: ``error`` is replaced by ``scoring`` and ``score``.
SCORED_CURVE_COLUMNS = (
    "estimator", "corruption", "level_name", "level", "repeat",
    "scoring", "score", "fit_seconds", "predict_seconds",
)


def fitted_robustness_curve(
    estimators,
    X,
    y,
    *,
    corruption: Corruption | Callable[[Any], Corruption],
    levels,
    n_repeats: int = 1,
    scoring=None,
    random_state=None,
    n_jobs: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Score already fitted estimators on ``X`` corrupted at each level, as a tidy DataFrame.

    The estimators are used as they are: neither ``fit`` nor ``clone`` is called, so a model
    trained elsewhere (a pipeline, a model loaded with joblib) is evaluated exactly as it will be
    used. ``X`` is passed through unchanged: a pandas DataFrame reaches ``corruption.corrupt``
    and ``estimator.predict`` as a DataFrame (column names and dtypes intact), a sparse matrix
    stays sparse.

    Parameters
    ----------
    estimators : estimator, dict of str to estimator, or list of estimator
        Fitted classifiers (or pipelines) to evaluate; never modified. A list may mix bare
        estimators, named after their class (a Pipeline after its final step's class, numbered
        when a name repeats), and ``(name, estimator)`` pairs. Names must be unique.
    X : {array-like, sparse matrix, dask array, dask DataFrame} of shape (n_samples, n_features)
        Clean evaluation data, corrupted at each level. Only its shape is checked here; the
        corruption and the models decide which values and containers they accept. A dask
        collection is never gathered: at each level it is corrupted lazily, chunk by chunk
        (one random stream per chunk, see :mod:`robustclf.corruption`), and each model's own
        in-memory ``predict`` runs on each corrupted chunk, in the same pass. The error rate
        and ``"accuracy"`` are then sums of per-chunk counts; any other scorer (``"roc_auc"``,
        ``"neg_log_loss"``, a callable...) is computed from the model's per-row outputs
        (predictions, probabilities or decision values: 1-D, or one column per class),
        computed chunk by chunk and gathered in memory with the labels.
    y : array-like of shape (n_samples,)
        True labels of ``X`` (in memory, or a dask array or Series with a dask ``X``).
    corruption : Corruption or callable
        A :class:`~robustclf.corruption.Corruption`, swept with ``corruption.with_level(level)``,
        or a callable mapping a level to a corruption. Corruptions receive the true labels and the
        fitted model under attack (adversarial corruptions attack each model separately).
    levels : array-like of shape (n_levels,)
        Corruption levels to evaluate, distinct. Include the level meaning "no corruption" (for
        example ``0``) to get the clean score on the same curve.
    n_repeats : int, default=1
        Number of independent corruption draws per level; the models are the same in every
        repeat, only the random corruptions differ (deterministic corruptions give identical
        repeats).
    scoring : None, "error", str or callable, default=None
        What is recorded at each level. ``None`` (or ``"error"``) records the misclassification
        rate ``1 - accuracy`` in an ``error`` column (the frame has exactly the columns
        ``CURVE_COLUMNS``). Any scikit-learn scorer name (``"balanced_accuracy"``,
        ``"roc_auc"``, ``"neg_log_loss"``, ``"f1"``, ... see
        :func:`sklearn.metrics.get_scorer_names`) or callable ``scorer(estimator, X, y)``
        (e.g. from :func:`sklearn.metrics.make_scorer`) records the scorer's value, greater is
        better, in a ``score`` column, with its name in a ``scoring`` column.
    random_state : None, int or numpy Generator, default=None
        Seeds the corruptions: one seed per (repeat, level), shared by all estimators, so that
        corruptions that do not look at the model give every estimator the *same* corrupted
        data (a paired comparison).
    n_jobs : int, default=None
        Number of joblib workers over the (estimator, repeat) tasks; ``None`` means 1 unless in a
        :func:`joblib.parallel_config` context. Results do not depend on it.
    progress : bool, default=None
        Show a tqdm progress bar over the tasks; by default only when stderr is a terminal.

    Returns
    -------
    frame : pandas.DataFrame
        One row per (estimator, repeat, level), with the columns of :func:`robustness_curve`:
        ``estimator``, ``corruption``, ``level_name``, ``level``, ``repeat``, then ``error``
        (default scoring) or ``scoring`` and ``score`` (another scoring), then ``fit_seconds``
        (NaN: nothing is fitted) and ``predict_seconds`` (wall-clock time of the scorer call,
        that is prediction plus metric, at that level; the corruption is not timed, except for
        a dask ``X``, whose lazy corruption runs in the same pass as the prediction).

    Raises
    ------
    ValueError
        If an estimator is not fitted, or for malformed inputs.

    See Also
    --------
    robustness_curve : Fit the estimators (once per repeat or fold), then call this.
    RobustnessCurveDisplay.from_estimator : Plot the curve of one fitted estimator.
    make_corruption_scorer : The score at one level, as a scorer for model selection.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import RandomDeletion
    >>> from robustclf.evaluation import fitted_robustness_curve
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> model = LogisticRegression().fit(X[:100], y[:100])
    >>> frame = fitted_robustness_curve(
    ...     model, X[100:], y[100:], corruption=RandomDeletion(fraction=0.0, fill=0.0),
    ...     levels=[0.0, 0.5], n_repeats=2, random_state=0)
    >>> frame[["estimator", "level", "repeat"]].head(2)
                estimator  level  repeat
    0  LogisticRegression    0.0       0
    1  LogisticRegression    0.5       0
    >>> bool(frame["error"].between(0, 1).all()), bool(frame["fit_seconds"].isna().all())
    (True, True)
    """
    named = check_estimators(estimators)
    check_fitted(named)
    levels = check_levels(levels)
    corruptions = resolve_corruptions(corruption, levels)
    n_repeats = check_n_repeats(n_repeats)
    metric = check_metric(scoring)
    show_progress = check_progress(progress)
    X, y = check_data_and_labels(X, y)

    rng = check_generator(random_state)
    seeds = rng.integers(0, MAX_SEED, size=(n_repeats, len(levels)))
    tasks = [
        delayed(_score_task)(name, model, repeat, X, y, corruptions, seeds[repeat].tolist(),
                             metric)
        for repeat in range(n_repeats)
        for name, model in named
    ]
    results = run_tasks(tasks, n_jobs=n_jobs, show_progress=show_progress,
                        desc="robustness curve", unit="evaluation")
    return curve_frame(results, named, n_repeats, levels, corruptions, metric)


# -- the one scoring loop ---------------------------------------------------------------------

def score_levels(model, X, y, corruptions: list, seeds: list, metric: Metric) -> list:
    """Score a fitted ``model`` on ``X`` corrupted by each corruption in turn.

    Returns one ``(value, seconds)`` per corruption: the metric's value and the time the scorer
    took (prediction plus metric; the corruption is not timed).
    """
    rows = []
    for corruption, seed in zip(corruptions, seeds, strict=True):
        X_corrupted = corruption.corrupt(X, y=y, model=model, random_state=seed)
        start = time.perf_counter()
        value = metric(model, X_corrupted, y)
        rows.append((value, time.perf_counter() - start))
    return rows


def _score_task(name, model, repeat, X, y, corruptions, seeds, metric):
    """One (estimator, repeat) task of :func:`fitted_robustness_curve`: nothing is fitted."""
    rows = score_levels(model, X, y, corruptions, seeds, metric)
    return name, repeat, [(value, math.nan, seconds) for value, seconds in rows]


# -- shared plumbing --------------------------------------------------------------------------

def check_fitted(named) -> None:
    """Raise a ValueError naming the first estimator that is not fitted."""
    for name, model in named:
        try:
            check_is_fitted(model)
        except (NotFittedError, TypeError) as exc:
            raise ValueError(
                f"estimators[{name!r}] is not fitted ({exc}); fit it first, or use "
                "robustness_curve, which fits the estimators itself."
            ) from None


def check_n_repeats(n_repeats) -> int:
    n_repeats = check_nonnegative(n_repeats, "n_repeats", integer=True)
    if n_repeats < 1:
        raise ValueError(f"n_repeats must be at least 1, got {n_repeats}.")
    return n_repeats


def run_tasks(tasks: list, *, n_jobs, show_progress: bool, desc: str, unit: str) -> dict:
    """Run joblib tasks returning ``(name, repeat, rows)``; map (name, repeat) to rows."""
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    results = tqdm(results, total=len(tasks), disable=not show_progress, desc=desc, unit=unit)
    return {(name, repeat): rows for (name, repeat, rows) in results}


def curve_frame(by_task: dict, named: list, n_repeats: int, levels: list, corruptions: list,
                metric: Metric) -> pd.DataFrame:
    """Assemble the tidy frame from ``(value, fit_seconds, predict_seconds)`` rows per task.

    Rows are ordered by estimator, then repeat, then level.
    """
    value_column = "error" if metric.is_error else "score"
    records = [
        (name, repeat, level, *by_task[name, repeat][k])
        for name, _ in named
        for repeat in range(n_repeats)
        for k, level in enumerate(levels)
    ]
    frame = pd.DataFrame.from_records(
        records, columns=["estimator", "repeat", "level", value_column, "fit_seconds",
                          "predict_seconds"],
    )
    frame["corruption"], frame["level_name"] = corruption_labels(corruptions)
    if metric.is_error:
        return frame[list(CURVE_COLUMNS)]
    frame["scoring"] = metric.name
    return frame[list(SCORED_CURVE_COLUMNS)]
