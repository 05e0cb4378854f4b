"""Certified worst-case error against a deletion budget, as a curve in the robustness-curve format.

For each linear estimator (fitted once per repeat) and each budget N, :func:`certified_curve`
records the error an omniscient adversary deleting features of total value <= N can force
(:func:`robustclf.certify.certified_error`), with the greedy-attack and relaxation bounds that
bracket it. The frame has the columns of :func:`robustclf.evaluation.robustness_curve` plus
``error_lower``/``error_upper``, so the same summaries, tables and plots apply.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._validation import check_generator, check_int, check_labels, check_matrix
from ..certify import certified_error
from ._curve import _MAX_SEED, _check_estimators, _check_levels, _seeded_clone

__all__ = ["certified_curve"]


def certified_curve(
    estimators,
    X_train,
    y_train,
    X_test,
    y_test,
    *,
    budgets,
    feature_values="uniform",
    n_repeats: int = 1,
    exact: bool | str = "auto",
    time_limit: float | None = None,
    random_state=None,
) -> pd.DataFrame:
    """Certified worst-case test error of linear estimators at each deletion budget.

    Parameters
    ----------
    estimators : dict of str to estimator, or list of estimators
        Unfitted linear classifiers (``coef_``/``intercept_`` after fitting, optionally behind
        affine scalers in a Pipeline); cloned, never modified.
    X_train, y_train : training data.
    X_test, y_test : clean test data (finite values).
    budgets : sequence of float
        Deletion budgets N (in units of feature value).
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (see :mod:`robustclf.feature_values`).
    n_repeats : int, default=1
        Fits per estimator, with seeds drawn from ``random_state`` (only estimators with a
        ``random_state`` parameter change between repeats).
    exact : {"auto", True, False}, default="auto"
        Passed to :func:`robustclf.certify.certified_error`: "auto" solves the rows the greedy
        and relaxed bounds leave undecided exactly (HiGHS's MILP for real-valued feature
        values), within ``time_limit``.
    time_limit : float or None, default=None
        Seconds of exact solving per certification, passed to
        :func:`robustclf.certify.certified_error` (None: 30 s under "auto", no limit under True).
    random_state : None, int or numpy Generator, default=None

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``estimator, corruption ("certified"), level_name ("budget"), level, repeat,
        error, error_lower, error_upper, is_exact, fit_seconds, predict_seconds`` (the last is the
        time the certification took).
    """
    named = _check_estimators(estimators)
    budgets = _check_levels(budgets)
    n_repeats = check_int(n_repeats, "n_repeats")
    X_test = check_matrix(X_test, name="X_test")
    y_test = check_labels(y_test, X_test.shape[0], name="y_test")
    rng = check_generator(random_state)
    seeds = rng.integers(0, _MAX_SEED, size=n_repeats)
    rows = []
    for name, estimator in named:
        for repeat, seed in enumerate(seeds):
            model = _seeded_clone(estimator, int(seed))
            start = time.perf_counter()
            model.fit(X_train, y_train)
            fit_seconds = time.perf_counter() - start
            for budget in budgets:
                start = time.perf_counter()
                result = certified_error(model, X_test, y_test, budget, feature_values,
                                         exact=exact, time_limit=time_limit)
                rows.append({
                    "estimator": name, "corruption": "certified", "level_name": "budget",
                    "level": budget, "repeat": repeat, "error": result.error,
                    "error_lower": result.lower, "error_upper": result.upper,
                    "is_exact": result.is_exact, "fit_seconds": fit_seconds,
                    "predict_seconds": time.perf_counter() - start,
                })
    frame = pd.DataFrame(rows)
    frame["error"] = frame["error"].astype(np.float64)
    return frame
