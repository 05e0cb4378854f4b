"""Certified worst case of linear models against brute-force enumeration of deletions.

These tests are about the algorithm (bounds, exact solves, ties) under the papers' raw-zero
deletion, on bare scikit-learn and hand-made models, so they pass ``fill=0.0``; deletion as
absence (``fill=np.nan``, the default) is tested in ``tests/test_certify_absent.py``.
"""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from robustclf.certify import certified_error, worst_case_margin


class FixedLinear:
    """A hand-made linear model (so that weights can be zero, tied, ...)."""

    def __init__(self, coef, intercept, classes):
        self.coef_ = np.atleast_2d(coef)
        self.intercept_ = np.atleast_1d(intercept)
        self.classes_ = np.asarray(classes)
        self.n_features_in_ = self.coef_.shape[1]

    def decision_function(self, X):
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores


def brute_force_margins(model, X, y, budget, values):
    """Worst margin of every row over every feasible deletion, by enumeration."""
    n = X.shape[1]
    worst = np.full(X.shape[0], np.inf)
    classes = model.classes_
    t = np.searchsorted(classes, y)
    for subset in product((False, True), repeat=n):
        subset = np.array(subset)
        if values[subset].sum() > budget * (1 + 1e-12) + 1e-12:
            continue
        Xd = np.where(subset, 0.0, X)
        scores = model.decision_function(Xd)
        if scores.ndim == 1:
            margin = np.where(t == 1, scores, -scores)
        else:
            true = scores[np.arange(len(y)), t]
            other = scores.copy()
            other[np.arange(len(y)), t] = -np.inf
            margin = true - other.max(axis=1)
        worst = np.minimum(worst, margin)
    return worst


@st.composite
def linear_problems(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 6))
    k = draw(st.sampled_from([1, 3]))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    coef = np.round(rng.normal(size=(k, n)), 1)
    coef[rng.random((k, n)) < 0.2] = 0.0  # zero weights
    X = np.round(rng.normal(size=(m, n)), 1)
    X[rng.random((m, n)) < 0.2] = 0.0  # zero-valued features
    classes = np.array([0, 1]) if k == 1 else np.arange(k)
    y = rng.choice(classes, size=m)
    if draw(st.booleans()):
        values = rng.integers(0, 3, size=n).astype(float)
        budget = float(rng.integers(0, int(values.sum()) + 1))
    else:
        values = np.round(rng.uniform(0, 2, size=n), 2)
        budget = float(rng.uniform(0, values.sum()))
    model = FixedLinear(coef, np.round(rng.normal(size=k), 1), classes)
    return model, X, y, budget, values


@settings(max_examples=150, deadline=None)
@given(linear_problems())
def test_margins_bracket_and_exact_matches_enumeration(problem):
    model, X, y, budget, values = problem
    wc = worst_case_margin(model, X, y, budget, values, exact=True, fill=0.0)
    truth = brute_force_margins(model, X, y, budget, values)
    np.testing.assert_allclose(wc.exact, truth, atol=1e-9)
    assert np.all(wc.relaxed <= wc.lower + 1e-12) and np.all(wc.lower <= truth + 1e-9)
    assert np.all(wc.greedy >= wc.upper - 1e-12) and np.all(wc.upper >= truth - 1e-9)
    assert np.all(wc.greedy_mask @ values <= budget + 1e-9)
    assert np.all(wc.exact_mask @ values <= budget + 1e-9)
    # the optimal deletion really attains the exact margin
    attacked = brute_force_margins(model, np.where(wc.exact_mask, 0.0, X), y, 0.0, values)
    np.testing.assert_allclose(attacked, wc.exact, atol=1e-9)
    result = certified_error(model, X, y, budget, values, exact=True, fill=0.0)
    assert result.is_exact and result.n_undecided == 0
    assert result.error == pytest.approx(np.mean(truth <= wc.tolerance))
    assert result.lower <= result.error <= result.upper
    assert result.bracket == (result.error, result.error)


@settings(max_examples=150, deadline=None)
@given(linear_problems())
def test_default_certified_error_is_exact_between_greedy_and_relaxation(problem):
    model, X, y, budget, values = problem
    truth = brute_force_margins(model, X, y, budget, values)
    # exact="auto": only undecided rows
    result = certified_error(model, X, y, budget, values, fill=0.0)
    wc = worst_case_margin(model, X, y, budget, values, exact=False, fill=0.0)
    assert result.is_exact
    assert result.error == pytest.approx(np.mean(truth <= wc.tolerance))
    # the greedy attack's error <= exact <= the relaxation's certified bound
    assert result.lower == pytest.approx(np.mean(wc.greedy <= wc.tolerance))
    assert result.upper == pytest.approx(np.mean(wc.relaxed <= wc.tolerance))
    assert result.lower <= result.error <= result.upper
    # without the exact solver the bracket is [greedy, relaxed] and is exact only when they meet
    bounds = certified_error(model, X, y, budget, values, exact=False, fill=0.0)
    assert bounds.bracket == (bounds.lower, bounds.upper)
    assert bounds.is_exact == (bounds.n_undecided == 0)
    assert bounds.error == (bounds.lower if bounds.is_exact else bounds.upper)


def _real_valued_problem(seed=7, m=200, n=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    y = (X[:, :10].sum(axis=1) + rng.normal(size=m) > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    values = rng.uniform(0.2, 2.0, size=n)
    return model, X, y, values


def test_time_limit_reports_the_bracket_and_warns(monkeypatch):
    import robustclf._worst_case

    monkeypatch.setattr(robustclf._worst_case, "_ENUM_MAX_VARS", -1)  # every open row to HiGHS
    model, X, y, values = _real_valued_problem()
    full = certified_error(model, X, y, 1.5, values, fill=0.0)
    assert full.is_exact and full.lower < full.error < full.upper  # the solver had work to do
    with pytest.warns(ConvergenceWarning, match=r"exact worst case was not reached.*time_limit"):
        cut = certified_error(model, X, y, 1.5, values, time_limit=0.0, fill=0.0)
    assert not cut.is_exact and cut.n_undecided > 0
    assert cut.bracket[0] <= full.error <= cut.bracket[1] == cut.error
    with pytest.warns(ConvergenceWarning, match="not reached"):
        wc = worst_case_margin(model, X, y, 1.5, values, exact=True, time_limit=0.0, fill=0.0)
    assert wc.exact is None
    np.testing.assert_array_equal(wc.margin, wc.lower)


def test_exact_margins_of_every_row_agree_with_the_signs_only_solve():
    model, X, y, values = _real_valued_problem(seed=8)
    wc = worst_case_margin(model, X, y, 1.5, values, exact=True, fill=0.0)
    result = certified_error(model, X, y, 1.5, values, exact=True, fill=0.0)
    assert wc.exact is not None
    assert result.error == pytest.approx(np.mean(wc.exact <= wc.tolerance))
    # the exact solver improved on the greedy attack for some rows
    assert np.any(wc.exact < wc.greedy - 1e-9)


@settings(max_examples=100, deadline=None)
@given(linear_problems())
def test_relaxation_is_exact_for_uniform_values(problem):
    model, X, y, _, _ = problem
    n = X.shape[1]
    budget = float(n // 2)
    wc = worst_case_margin(model, X, y, budget, "uniform", exact=False, fill=0.0)
    assert wc.relaxation_is_exact
    truth = brute_force_margins(model, X, y, budget, np.ones(n))
    np.testing.assert_allclose(wc.margin, truth, atol=1e-9)
    np.testing.assert_allclose(wc.greedy, truth, atol=1e-9)


def test_greedy_mask_really_attains_its_margin():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 8))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    wc = worst_case_margin(model, X, y, 3, "uniform", fill=0.0)
    attacked = np.where(wc.greedy_mask, 0.0, X)
    margin = np.where(y == 1, 1, -1) * model.decision_function(attacked)
    np.testing.assert_allclose(margin, wc.greedy)


@pytest.mark.parametrize("scaler", [StandardScaler(), MinMaxScaler()])
def test_affine_pipelines_are_certified_in_raw_coordinates(scaler):
    rng = np.random.default_rng(1)
    X = rng.normal(2.0, 3.0, size=(30, 5))
    y = (X[:, 0] > 2).astype(int)
    pipe = make_pipeline(scaler, LogisticRegression()).fit(X, y)
    wc = worst_case_margin(pipe, X[:8], y[:8], 2, "uniform", fill=0.0)
    truth = brute_force_margins(_PipelineScores(pipe), X[:8], y[:8], 2, np.ones(5))
    np.testing.assert_allclose(wc.margin, truth, atol=1e-9)


class _PipelineScores:
    def __init__(self, pipe):
        self.pipe, self.classes_ = pipe, pipe.classes_

    def decision_function(self, X):
        return self.pipe.decision_function(X)


def test_certified_error_on_budget_zero_is_the_clean_error():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 4))
    y = (X @ [1, -1, 0.5, 0] + 0.3 * rng.normal(size=100) > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    clean = np.mean(model.predict(X) != y)
    assert certified_error(model, X, y, 0, fill=0.0).error == pytest.approx(clean)


def test_bad_input_is_rejected_with_the_parameter_named():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 4))
    y = (X[:, 0] > 0).astype(int)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="budget"):
        certified_error(model, X, y, -1, fill=0.0)
    with pytest.raises(ValueError, match="budget"):
        certified_error(model, X, y, 5, fill=0.0)  # more than V([n]) = 4
    with pytest.raises(ValueError, match="feature_values"):
        certified_error(model, X, y, 1, np.ones(3), fill=0.0)
    with pytest.raises(ValueError, match="feature_values"):
        certified_error(model, X, y, 1, -np.ones(4), fill=0.0)
    with pytest.raises(ValueError, match="4 were expected"):
        certified_error(model, X[:, :3], y, 1, fill=0.0)
    with pytest.raises(ValueError, match="NaN"):
        certified_error(model, np.where(X > 1, np.nan, X), y, 1, fill=0.0)
    with pytest.raises(ValueError, match="labels"):
        certified_error(model, X, y + 5, 1, fill=0.0)
    with pytest.raises(ValueError, match="y has"):
        certified_error(model, X, y[:-1], 1, fill=0.0)
    with pytest.raises(ValueError, match="linear classifier"):
        certified_error(DecisionTreeClassifier().fit(X, y), X, y, 1, fill=0.0)
    with pytest.raises(ValueError, match="exact"):
        certified_error(model, X, y, 1, exact="maybe", fill=0.0)
    with pytest.raises(ValueError, match="time_limit"):
        certified_error(model, X, y, 1, time_limit=-1.0, fill=0.0)
    with pytest.raises(ValueError, match="time_limit"):
        worst_case_margin(model, X, y, 1, time_limit="long", fill=0.0)
