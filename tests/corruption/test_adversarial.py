"""The greedy adversaries: budgets, agreement with certification, query bounds, bad input.

Tests of the algorithms on bare scikit-learn models pass the papers' ``fill=0.0`` (a raw zero);
the default ``fill=np.nan`` is tested on a model with an imputer (``imputed_problem``) and in
``tests/test_certify_absent.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from robustclf._oracles.worst_case import brute_force_worst_margins
from robustclf._worst_case import csr_greedy_knapsack_deletion, greedy_knapsack_deletion
from robustclf.certify import certified_error
from robustclf.corruption import (
    BlackBoxGreedyDeletion,
    GreedyDeletion,
    OptimalDeletion,
    model_margins,
)


@pytest.fixture(scope="module")
def binary_problem():
    X, y = make_classification(n_samples=120, n_features=8, n_informative=4, random_state=0)
    model = LogisticRegression().fit(X[:60], y[:60])
    return model, X[60:], y[60:]


@pytest.fixture(scope="module")
def imputed_problem():
    """A scikit-learn model that takes the default NaN deletion through a mean imputer."""
    X, y = make_classification(n_samples=120, n_features=8, n_informative=4, random_state=0)
    X = X + 2.0  # training means far from zero: NaN (imputed mean) and raw zero differ
    model = make_pipeline(SimpleImputer(), LogisticRegression()).fit(X[:60], y[:60])
    return model, X[60:], y[60:]


@pytest.fixture(scope="module")
def multiclass_problem():
    X, y = make_classification(n_samples=150, n_features=8, n_informative=5, n_classes=3,
                               random_state=1)
    model = LogisticRegression().fit(X[:75], y[:75])
    return model, X[75:], y[75:]


@settings(max_examples=25, deadline=None)
@given(budget=st.integers(0, 8), which=st.sampled_from(["binary", "multi"]))
def test_greedy_error_equals_certified_error_for_uniform_values(
    binary_problem, multiclass_problem, budget, which
):
    model, X, y = binary_problem if which == "binary" else multiclass_problem
    X_before = X.copy()
    attack = GreedyDeletion(budget=budget, fill=0.0)
    mask = attack.deletion_mask(X, y, model)
    assert np.all(mask.sum(axis=1) <= budget)  # the budget is respected exactly
    attacked = attack.corrupt(X, y, model)
    np.testing.assert_array_equal(X, X_before)  # input untouched
    np.testing.assert_array_equal(attacked[mask], 0.0)
    np.testing.assert_array_equal(attacked[~mask], X[~mask])
    error = np.mean(model.predict(attacked) != y)
    assert error == pytest.approx(certified_error(model, X, y, budget, fill=0.0).error)


def test_greedy_respects_weighted_budgets(binary_problem):
    model, X, y = binary_problem
    values = np.linspace(0.2, 2.0, X.shape[1])
    attack = GreedyDeletion(budget=2.5, feature_values=values, fill=0.0)
    mask = attack.deletion_mask(X, y, model)
    assert np.all(mask @ values <= 2.5 + 1e-12)
    assert mask.any()


def test_greedy_goes_on_past_a_feature_that_does_not_fit():
    # one row with margin contributions a = (3, 4, 1) and bias -4.5 (clean margin 3.5), values
    # (1, 2, 1), budget 2. By harm per value the order is 0, 1, 2; feature 1 does not fit after
    # feature 0, feature 2 does. Deleting {0, 2} flips the row (margin -0.5); stopping at
    # feature 1, as the attack did before, deleted {0} only and left it correct (margin 0.5).
    model = _FixedLinear(np.ones(3), -4.5)
    X, y = np.array([[3.0, 4.0, 1.0]]), np.array([1])
    values = np.array([1.0, 2.0, 1.0])
    attack = GreedyDeletion(budget=2.0, feature_values=values, fill=0.0)
    assert attack.deletion_mask(X, y, model).tolist() == [[True, False, True]]
    assert model.predict(attack.corrupt(X, y, model)).tolist() == [0]


class _FixedLinear:
    """A hand-made binary linear model."""

    def __init__(self, coef, intercept):
        self.coef_ = np.atleast_2d(coef)
        self.intercept_ = np.atleast_1d(intercept)
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = self.coef_.shape[1]

    def decision_function(self, X):
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)


def _sequential_greedy_margin(model, x, t, budget, values):
    """The paper's greedy for one row of a binary linear model, as a plain loop."""
    sign = 1.0 if t == 1 else -1.0
    a = sign * model.coef_[0] * x
    order = sorted((j for j in range(x.size) if a[j] > 0),
                   key=lambda j: (-(a[j] / values[j]) if values[j] > 0 else -np.inf, j))
    used, deleted = 0.0, np.zeros(x.size, dtype=bool)
    for j in order:
        if used + values[j] <= budget * (1 + 1e-12) + 1e-12:
            used += values[j]
            deleted[j] = True
    return deleted


@st.composite
def small_real_valued_attacks(draw):
    n = draw(st.integers(2, 8))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    k = draw(st.sampled_from([2, 3]))
    X = np.round(rng.normal(size=(12, n)), 2)
    y = rng.integers(0, k, size=12)
    y[:k] = np.arange(k)
    model = LogisticRegression(C=10.0).fit(X, y)
    values = np.round(rng.uniform(0.0, 2.0, size=n), 2)
    budget = float(draw(st.floats(0.0, float(values.sum()))))
    return model, X, y, values, budget


@settings(max_examples=40, deadline=None)
@given(small_real_valued_attacks())
def test_optimal_attack_reaches_the_brute_force_worst_case(problem):
    model, X, y, values, budget = problem
    attack = OptimalDeletion(budget=budget, feature_values=values, fill=0.0)
    mask = attack.deletion_mask(X, y, model)
    assert np.all(mask @ values <= budget * (1 + 1e-12) + 1e-12)
    attacked = attack.corrupt(X, y, model)
    truth = brute_force_worst_margins(model, X, y, budget, values)
    np.testing.assert_allclose(model_margins(model, attacked, y), truth, atol=1e-8)
    # its error is the exact certified error, at least the greedy attack's
    greedy = GreedyDeletion(budget=budget, feature_values=values, fill=0.0).corrupt(X, y, model)
    optimal_error = np.mean(model.predict(attacked) != y)
    assert optimal_error >= np.mean(model.predict(greedy) != y)
    cert = certified_error(model, X, y, budget, values, fill=0.0)
    assert cert.is_exact
    assert cert.lower <= cert.error <= cert.upper
    # ties (margin exactly 0) count as errors in the certificate, and predict() may go either way
    assert optimal_error == pytest.approx(cert.error, abs=np.mean(np.abs(truth) < 1e-9) + 1e-12)


@settings(max_examples=40, deadline=None)
@given(small_real_valued_attacks())
def test_greedy_is_the_sequential_scan_with_skips(problem):
    model, X, y, values, budget = problem
    if len(model.classes_) != 2:
        return
    attack = GreedyDeletion(budget=budget, feature_values=values, fill=0.0)
    mask = attack.deletion_mask(X, y, model)
    for i in range(X.shape[0]):
        np.testing.assert_array_equal(
            mask[i], _sequential_greedy_margin(model, X[i], y[i], budget, values))


def test_optimal_equals_greedy_for_uniform_values(binary_problem):
    model, X, y = binary_problem
    for budget in (1, 3):
        greedy = GreedyDeletion(budget=budget, fill=0.0).corrupt(X, y, model)
        optimal = OptimalDeletion(budget=budget, fill=0.0).corrupt(X, y, model)
        np.testing.assert_allclose(model_margins(model, optimal, y),
                                   model_margins(model, greedy, y), atol=1e-10)


def test_optimal_default_fill_nan_and_time_limit(imputed_problem):
    model, X, y = imputed_problem
    values = np.linspace(0.2, 2.0, X.shape[1])
    attack = OptimalDeletion(budget=2.5, feature_values=values)  # fill=np.nan by default
    attacked = attack.corrupt(X, y, model)
    mask = attack.deletion_mask(X, y, model)
    assert np.array_equal(np.isnan(attacked), mask)
    # the attack is the worst case of the model as it really scores the NaN (imputed means)
    truth = certified_error(model, X, y, 2.5, values)
    assert np.mean(model_margins(model, attacked, y) <= 0) == pytest.approx(truth.error)
    assert OptimalDeletion(budget=2).with_level(3).budget == 3
    with pytest.raises(ValueError, match="time_limit"):
        OptimalDeletion(budget=1, time_limit=-1).corrupt(X, y, model)
    with pytest.raises(ValueError, match="NaN"):
        OptimalDeletion(budget=1).corrupt(np.where(X > 1, np.nan, X), y, model)


def test_greedy_default_fill_nan(binary_problem, imputed_problem):
    model, X, y = imputed_problem
    attack = GreedyDeletion(budget=3)
    attacked = attack.corrupt(X, y, model)
    assert np.array_equal(np.isnan(attacked), attack.deletion_mask(X, y, model))
    # deleting as NaN is scored through the imputer: not the raw-zero attack
    raw = GreedyDeletion(budget=3, fill=0.0).deletion_mask(X, y, model)
    assert not np.array_equal(raw, np.isnan(attacked))
    bare, X, y = binary_problem
    with pytest.raises(ValueError, match="LogisticRegression cannot take the absent"):
        GreedyDeletion(budget=3).corrupt(X, y, bare)


@pytest.mark.parametrize("fill", [0.0, np.nan])
def test_black_box_matches_linear_greedy_on_binary_linear_models(binary_problem, imputed_problem,
                                                                 fill):
    # deleting the largest positive contribution first is what both adversaries do, for the
    # same meaning of deletion (raw zeros into a bare model, NaN into an imputing pipeline)
    model, X, y = binary_problem if fill == 0.0 else imputed_problem
    for budget in (1, 2, 4):
        bb = BlackBoxGreedyDeletion(budget=budget, stop_when_misclassified=False, fill=fill)
        linear = GreedyDeletion(budget=budget, fill=fill)
        np.testing.assert_array_equal(bb.deletion_mask(X, y, model),
                                      linear.deletion_mask(X, y, model))


class CountingModel:
    """Wraps a classifier and counts the rows it is asked about."""

    def __init__(self, model):
        self.model, self.classes_ = model, model.classes_
        self.n_features_in_ = model.n_features_in_
        self.rows = 0

    def predict_proba(self, X):
        self.rows += X.shape[0]
        return self.model.predict_proba(X)


def test_black_box_respects_the_query_bound():
    X, y = make_classification(n_samples=200, n_features=10, random_state=2)
    forest = RandomForestClassifier(n_estimators=10, random_state=0).fit(X[:100], y[:100])
    counting = CountingModel(forest)
    attack = BlackBoxGreedyDeletion(budget=5, max_queries=15, stop_when_misclassified=False)
    mask = attack.deletion_mask(X[100:], y[100:], counting, random_state=0)
    assert counting.rows <= 15 * 100
    assert np.all(mask.sum(axis=1) <= 5)
    # the attack hurts the forest
    attacked = attack.corrupt(X[100:], y[100:], forest, random_state=0)
    clean_error = np.mean(forest.predict(X[100:]) != y[100:])
    assert np.mean(forest.predict(attacked) != y[100:]) > clean_error


def test_black_box_is_deterministic_given_a_seed():
    X, y = make_classification(n_samples=80, n_features=6, random_state=3)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    attack = BlackBoxGreedyDeletion(budget=3, max_queries=8)
    a = attack.corrupt(X, y, forest, random_state=7)
    b = attack.corrupt(X, y, forest, random_state=7)
    np.testing.assert_array_equal(a, b)


def test_model_margins_sign_convention(multiclass_problem):
    model, X, y = multiclass_problem
    margins = model_margins(model, X, y)
    np.testing.assert_array_equal(margins > 0, model.predict(X) == y)


def test_adversaries_reject_bad_input(binary_problem):
    model, X, y = binary_problem
    with pytest.raises(ValueError, match="labels y"):
        GreedyDeletion(budget=1, fill=0.0).corrupt(X, model=model)
    with pytest.raises(ValueError, match="model"):
        GreedyDeletion(budget=1, fill=0.0).corrupt(X, y)
    with pytest.raises(ValueError, match="budget"):
        GreedyDeletion(budget=-1, fill=0.0).corrupt(X, y, model)
    with pytest.raises(ValueError, match="budget"):
        BlackBoxGreedyDeletion(budget=100, fill=0.0).corrupt(X, y, model)
    with pytest.raises(ValueError, match="expected"):
        GreedyDeletion(budget=1, fill=0.0).corrupt(X[:, :5], y, model)
    with pytest.raises(ValueError, match="response"):
        BlackBoxGreedyDeletion(budget=1, response="predict", fill=0.0).corrupt(X, y, model)
    with pytest.raises(ValueError, match="max_queries"):
        BlackBoxGreedyDeletion(budget=1, max_queries=-2, fill=0.0).corrupt(X, y, model)
    with pytest.raises(ValueError, match="fill"):
        GreedyDeletion(budget=1, fill="zero").corrupt(X, y, model)
    with pytest.raises(ValueError, match="infinite"):
        GreedyDeletion(budget=1, fill=0.0).corrupt(np.where(X > 1, np.inf, X), y, model)


def test_with_level_sets_the_budget():
    attack = GreedyDeletion(budget=1, feature_values="uniform").with_level(4)
    assert attack.budget == 4 and attack.level_name == "budget"


def test_corruption_registry():
    from robustclf.corruption import CORRUPTIONS, RandomDeletion, make_corruption

    corruption = make_corruption("random_deletion", fraction=0.2, among="nonzero")
    assert isinstance(corruption, RandomDeletion) and corruption.among == "nonzero"
    assert set(CORRUPTIONS) >= {"random_deletion", "group_deletion", "greedy", "optimal"}
    assert make_corruption("optimal", budget=2).budget == 2
    with pytest.raises(ValueError, match="unknown corruption 'smudge'"):
        make_corruption("smudge")
    with pytest.raises(ValueError, match="no parameter"):
        make_corruption("greedy", fraction=0.2)


@settings(max_examples=25, deadline=None)
@given(
    gains=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 7)),
                     elements=st.sampled_from([0.0, -1.0, 0.5, 1.0, 2.0, 3.0])),
    values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=7, max_size=7),
    budget=st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0]),
)
def test_sparse_greedy_knapsack_equals_the_dense_greedy(gains, values, budget):
    """Same deletion (ties included: the gains and values repeat) on the stored entries."""
    values = np.array(values[: gains.shape[1]])
    harm, mask = greedy_knapsack_deletion(gains, values, budget)
    csr = sp.csr_matrix(gains)
    sparse_harm, taken = csr_greedy_knapsack_deletion(csr, values, budget)
    rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    assert np.array_equal(mask[rows, csr.indices], taken)
    assert mask.sum() == taken.sum()  # nothing outside the stored entries
    np.testing.assert_allclose(sparse_harm, harm, rtol=1e-12, atol=1e-12)
