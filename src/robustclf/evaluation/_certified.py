"""Certified worst-case error against a deletion budget, as a curve in the robustness-curve format.

For each fitted linear model and each budget N, :func:`fitted_certified_curve` records the error an
omniscient adversary deleting features of total value <= N can force
(:func:`robustclf.certify.certified_error`), with the greedy-attack and relaxation bounds that
bracket it. :func:`certified_curve` fits the estimators once per repeat and then calls the same
loop (:func:`certify_levels`). The frame has the columns of
:func:`robustclf.evaluation.robustness_curve` plus ``error_lower``/``error_upper`` and
``is_exact``, so the same summaries, tables and plots apply.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from .._blockwise import is_dask_collection
from .._validation import check_bool, check_fill, check_generator, check_int
from ..certify import certified_error
from ._checks import MAX_SEED, check_data, check_data_and_labels, check_estimators, check_levels
from ._curve import _seeded_clone
from ._fitted import check_fitted

__all__ = ["CERTIFIED_COLUMNS", "certified_curve", "fitted_certified_curve"]

#: Columns of the frames returned by :func:`certified_curve` and :func:`fitted_certified_curve`.
CERTIFIED_COLUMNS = (
    "estimator", "corruption", "level_name", "level", "repeat", "error", "error_lower",
    "error_upper", "is_exact", "fit_seconds", "predict_seconds",
)


def fitted_certified_curve(
    estimators,
    X,
    y,
    *,
    budgets,
    feature_values="uniform",
    exact: bool | str = "auto",
    time_limit: float | None = None,
    fill: float = np.nan,
) -> pd.DataFrame:
    """Certified worst-case error of already fitted linear models at each deletion budget.

    Neither ``fit`` nor ``clone`` is called: the models are certified as they are. The
    certification is deterministic, so there is one row per (estimator, budget), with
    ``repeat`` 0.

    Parameters
    ----------
    estimators : estimator, dict of str to estimator, or list of estimator
        Fitted linear classifiers: anything with ``coef_``, ``intercept_`` and ``classes_``,
        optionally behind affine scalers in a Pipeline (see
        :func:`robustclf.certify.certified_error`). Named as in :func:`robustness_curve`.
    X : {array-like, DataFrame, dask array, dask DataFrame} of shape (n_samples, n_features)
        Clean evaluation data (finite numeric values; a DataFrame is read as its values). A
        dask collection is certified chunk by chunk, one pass per budget, and never gathered
        (:func:`robustclf.certify.certified_error`; ``time_limit`` then applies per chunk).
    y : array-like of shape (n_samples,)
        True labels (in memory, or a dask array or Series with a dask ``X``).
    budgets : array-like of shape (n_budgets,)
        Deletion budgets N (in units of feature value), distinct.
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (see :mod:`robustclf.feature_values`).
    exact : {"auto", True, False}, default="auto"
        Passed to :func:`robustclf.certify.certified_error`: "auto" solves the rows the greedy
        and relaxed bounds leave undecided exactly (HiGHS's MILP for real-valued feature
        values), within ``time_limit``.
    time_limit : float or None, default=None
        Seconds of exact solving per certification, passed to
        :func:`robustclf.certify.certified_error` (None: 30 s under "auto", no limit under True).
    fill : float, default=np.nan
        What a deletion writes, as the deletion corruptions' ``fill``, passed to
        :func:`robustclf.certify.certified_error`: ``np.nan`` (default) certifies against
        absent entries, handled as each model handles NaN (an imputer's value; no
        contribution for the library's linear models; a model that cannot take NaN raises a
        ValueError); ``0.0`` against raw zeros, the papers' protocol.

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``CERTIFIED_COLUMNS``: ``estimator``, ``corruption`` (``"certified"``),
        ``level_name`` (``"budget"``), ``level`` (the budget), ``repeat`` (0), ``error`` (the
        certified error: exact when ``is_exact``, else the certified upper bound),
        ``error_lower`` (what the greedy attack forces), ``error_upper`` (the relaxation's
        bound), ``is_exact``, ``fit_seconds`` (NaN: nothing is fitted) and
        ``predict_seconds`` (the time the certification took).

    See Also
    --------
    certified_curve : Fit the estimators (once per repeat), then call this.
    RobustnessCurveDisplay.from_certified_estimator : Plot it for one fitted model.
    make_certified_scorer : The certified accuracy at one budget, as a scorer.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.impute import SimpleImputer
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> from robustclf.evaluation import fitted_certified_curve
    >>> X, y = make_classification(n_samples=200, n_features=8, random_state=0)
    >>> model = make_pipeline(SimpleImputer(), LinearSVC()).fit(X[:100], y[:100])
    >>> frame = fitted_certified_curve(model, X[100:], y[100:], budgets=[0, 1, 2])
    >>> frame[["level", "error", "is_exact"]].shape
    (3, 3)
    >>> bool(frame["error"].is_monotonic_increasing), bool(frame["is_exact"].all())
    (True, True)
    """
    named = check_estimators(estimators)
    check_fitted(named)
    budgets = check_levels(budgets, name="budgets")
    X, y = check_data_and_labels(X, y)
    options = _check_options(exact, time_limit, fill)
    rows = [
        _row(name, 0, budget, result, math.nan)
        for name, model in named
        for budget, result in zip(budgets, certify_levels(model, X, y, budgets, feature_values,
                                                          **options), strict=True)
    ]
    return _frame(rows)


def certified_curve(
    estimators,
    X_train=None,
    y_train=None,
    X_test=None,
    y_test=None,
    *,
    budgets,
    feature_values="uniform",
    n_repeats: int = 1,
    exact: bool | str = "auto",
    time_limit: float | None = None,
    refit: bool = True,
    random_state=None,
    fill: float = np.nan,
) -> pd.DataFrame:
    """Certified worst-case test error of linear estimators at each deletion budget.

    Each estimator is cloned, seeded and fitted once per repeat on ``(X_train, y_train)``; the
    fitted model is then certified on ``(X_test, y_test)`` by the loop of
    :func:`fitted_certified_curve`. With ``refit=False`` the estimators are taken as already
    fitted and this *is* :func:`fitted_certified_curve` on ``(X_test, y_test)``.

    Parameters
    ----------
    estimators : dict of str to estimator, or list of estimator
        Linear classifiers (``coef_``/``intercept_`` after fitting, optionally behind affine
        scalers in a Pipeline): unfitted ones are cloned, never modified; fitted ones with
        ``refit=False``.
    X_train : {array-like, dask array, dask DataFrame} of shape (n_samples, n_features), optional
        Training data; required unless ``refit=False``. Passed to ``fit`` as given (a dask
        collection too: the estimator decides how to read it).
    y_train : array-like of shape (n_samples,), default=None
        Training labels; required unless ``refit=False``.
    X_test : {array-like, dask array, dask DataFrame} of shape (n_test, n_features)
        Clean test data (finite values). Required. A dask collection is certified chunk by
        chunk (see :func:`fitted_certified_curve`).
    y_test : array-like of shape (n_test,)
        Test labels. Required.
    budgets : array-like of shape (n_budgets,)
        Deletion budgets N (in units of feature value), distinct.
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (see :mod:`robustclf.feature_values`).
    n_repeats : int, default=1
        Fits per estimator, with seeds drawn from ``random_state`` (only estimators with a
        ``random_state`` parameter change between repeats). Must be 1 with ``refit=False``
        (certifying a fitted model is deterministic).
    exact : {"auto", True, False}, default="auto"
        See :func:`fitted_certified_curve`.
    time_limit : float or None, default=None
        See :func:`fitted_certified_curve`.
    refit : bool, default=True
        Whether to fit the estimators. ``False``: they are already fitted; ``X_train`` and
        ``y_train`` must be left out and ``fit_seconds`` is NaN.
    random_state : None, int or numpy Generator, default=None
        Seeds the estimators' ``random_state`` parameters, one seed per repeat.
    fill : float, default=np.nan
        What a deletion writes (``np.nan``: absent entries, handled as each model handles NaN;
        ``0.0``: raw zeros). See :func:`fitted_certified_curve`.

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``CERTIFIED_COLUMNS`` (see :func:`fitted_certified_curve`), with
        ``fit_seconds`` the wall-clock time of ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.evaluation import certified_curve
    >>> X, y = make_classification(n_samples=200, n_features=8, random_state=0)
    >>> frame = certified_curve({"lr": LogisticRegression()}, X[:100], y[:100], X[100:],
    ...                         y[100:], budgets=[0, 2], n_repeats=2, random_state=0,
    ...                         fill=0.0)
    >>> frame[["estimator", "level", "repeat"]]
      estimator  level  repeat
    0        lr      0       0
    1        lr      2       0
    2        lr      0       1
    3        lr      2       1
    """
    refit = check_bool(refit, "refit")
    if not refit:
        if X_train is not None or y_train is not None:
            raise ValueError(
                "with refit=False the estimators are already fitted: leave X_train and y_train "
                "out and pass the evaluation data as X_test and y_test.")
        if n_repeats != 1:
            raise ValueError(
                f"n_repeats must be 1 with refit=False (certifying a fitted model is "
                f"deterministic), got {n_repeats!r}.")
        _check_test_data(X_test, y_test)
        return fitted_certified_curve(estimators, X_test, y_test, budgets=budgets,
                                      feature_values=feature_values, exact=exact,
                                      time_limit=time_limit, fill=fill)

    named = check_estimators(estimators)
    budgets = check_levels(budgets, name="budgets")
    n_repeats = check_int(n_repeats, "n_repeats")
    options = _check_options(exact, time_limit, fill)
    if X_train is None or y_train is None:
        raise ValueError(
            "X_train and y_train are required to fit the estimators; to certify fitted "
            "estimators pass refit=False with X_test and y_test.")
    _check_test_data(X_test, y_test)
    if is_dask_collection(X_train):  # passed to fit as given: the estimator decides
        X_train = check_data(X_train, name="X_train")
    else:
        X_train, y_train = check_data_and_labels(X_train, y_train, X_name="X_train",
                                                 y_name="y_train")
    X_test, y_test = check_data_and_labels(X_test, y_test, X_name="X_test", y_name="y_test",
                                           n_features=int(X_train.shape[1]))
    seeds = check_generator(random_state).integers(0, MAX_SEED, size=n_repeats)
    rows = []
    for name, estimator in named:
        for repeat, seed in enumerate(seeds):
            model = _seeded_clone(estimator, int(seed))
            start = time.perf_counter()
            model.fit(X_train, y_train)
            fit_seconds = time.perf_counter() - start
            results = certify_levels(model, X_test, y_test, budgets, feature_values, **options)
            rows += [_row(name, repeat, budget, result, fit_seconds)
                     for budget, result in zip(budgets, results, strict=True)]
    return _frame(rows)


# -- the one certification loop ---------------------------------------------------------------

def certify_levels(model, X, y, budgets, feature_values, *, exact, time_limit,
                   fill=np.nan) -> list:
    """Certify a fitted ``model`` at each budget: one ``(CertifiedError, seconds)`` per budget."""
    results = []
    for budget in budgets:
        start = time.perf_counter()
        result = certified_error(model, X, y, budget, feature_values, exact=exact,
                                 time_limit=time_limit, fill=fill)
        results.append((result, time.perf_counter() - start))
    return results


def _row(name, repeat, budget, certified, fit_seconds) -> dict:
    result, seconds = certified
    return {
        "estimator": name, "corruption": "certified", "level_name": "budget", "level": budget,
        "repeat": repeat, "error": result.error, "error_lower": result.lower,
        "error_upper": result.upper, "is_exact": result.is_exact, "fit_seconds": fit_seconds,
        "predict_seconds": seconds,
    }


def _frame(rows: list) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(CERTIFIED_COLUMNS))
    frame["error"] = frame["error"].astype(np.float64)
    frame["fit_seconds"] = frame["fit_seconds"].astype(np.float64)
    return frame


def _check_options(exact, time_limit, fill) -> dict:
    """Check ``exact`` and ``fill`` early (before any fit); ``time_limit`` is checked by
    certified_error."""
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}.")
    return {"exact": exact, "time_limit": time_limit, "fill": check_fill(fill)}


def _check_test_data(X_test, y_test) -> None:
    if X_test is None or y_test is None:
        raise ValueError("X_test and y_test (the data to certify on) are required.")
