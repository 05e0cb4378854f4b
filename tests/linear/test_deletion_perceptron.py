"""Tests of DeletionRobustPerceptron (Dekel & Shamir 2008, §3)."""

import itertools
import math
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf.linear.deletion_perceptron import DeletionRobustPerceptron, deletion_hinge_loss


class MyDeletionPerceptron:
    """Plain-Python transcription of §3.1–3.2 (no numpy), one binary problem, rows in order."""

    def __init__(self, budget, values, margin, bound, n_epochs=1, fit_intercept=True):
        self.budget, self.values, self.margin, self.bound = budget, list(values), margin, bound
        self.n_epochs, self.fit_intercept = n_epochs, fit_intercept

    def _kept_fractions(self, a):
        """Adversary of Eq. (12): delete largest a_j per unit value (fractional knapsack)."""
        n = len(a)
        delete = [0.0] * n
        items = [j for j in range(n) if a[j] > 0]
        free = [j for j in items if self.values[j] == 0]
        paid = sorted((j for j in items if self.values[j] > 0),
                      key=lambda j: -a[j] / self.values[j])
        for j in free:
            delete[j] = 1.0
        left = self.budget
        for j in paid:
            take = min(1.0, left / self.values[j])
            delete[j] = take
            left -= take * self.values[j]
            if take < 1.0:
                break
        return [1.0 - d for d in delete]

    def fit(self, X, y):
        m, n = len(X), len(X[0])
        P = sum(self.values) - self.budget
        T = self.n_epochs * m
        tau = math.sqrt(n + (1 if self.fit_intercept else 0)) * self.bound / math.sqrt(2 * T)
        w, b = [0.0] * n, 0.0
        w_sum, b_sum = [0.0] * n, 0.0
        for _ in range(self.n_epochs):
            for x, yi in zip(X, y, strict=True):
                w_sum = [s + wj for s, wj in zip(w_sum, w, strict=True)]  # average of w_{i-1}
                b_sum += b
                a = [yi * w[j] * x[j] - self.margin * self.values[j] / P for j in range(n)]
                kept = self._kept_fractions(a)
                loss = max(0.0, -(yi * b + sum(k * aj for k, aj in zip(kept, a, strict=True))))
                if loss > 0:
                    w = [max(min(w[j] + yi * tau * x[j] * kept[j], self.bound), -self.bound)
                         for j in range(n)]
                    if self.fit_intercept:
                        b = max(min(b + yi * tau, self.bound), -self.bound)
        return [s / T for s in w_sum], b_sum / T


def _data(seed=0, m=60, n=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n)) / n
    w = rng.normal(size=n)
    y = np.where(X @ w + 0.05 * rng.normal(size=m) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("values_kind", ["uniform", "general", "zero_one"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("n_epochs", [1, 3])
def test_matches_pure_python_transcription(values_kind, fit_intercept, n_epochs):
    X, y = _data(seed=n_epochs)
    n = X.shape[1]
    values = {"uniform": np.ones(n), "general": np.linspace(0.3, 2.0, n),
              "zero_one": np.array([1, 0, 1, 1, 0, 1, 1.0])}[values_kind]
    budget = 2.5 if values_kind == "general" else 2.0
    ref_w, ref_b = MyDeletionPerceptron(budget, values, 0.5, 0.8, n_epochs,
                                        fit_intercept).fit(X.tolist(), y.tolist())
    est = DeletionRobustPerceptron(budget=budget, feature_values=values, margin=0.5,
                                   weight_bound=0.8, n_epochs=n_epochs, shuffle=False,
                                   fit_intercept=fit_intercept).fit(X, y)
    assert est.n_updates_[0] > 0
    np.testing.assert_allclose(est.coef_[0], ref_w, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(est.intercept_[0], ref_b, rtol=1e-10, atol=1e-13)


def test_step_cube_and_average():
    X, y = _data()
    est = DeletionRobustPerceptron(budget=1, weight_bound=0.3, n_epochs=2,
                                   random_state=0).fit(X, y)
    m, n = X.shape
    assert est.tau_ == pytest.approx(math.sqrt(n + 1) * 0.3 / math.sqrt(2 * 2 * m))
    assert est.t_ == 2 * m and est.n_iter_ == 2
    assert np.all(np.abs(est.coef_) <= 0.3) and np.all(np.abs(est.intercept_) <= 0.3)


def test_shuffle_is_seeded_and_changes_order():
    X, y = _data()
    a = DeletionRobustPerceptron(random_state=1).fit(X, y).coef_
    b = DeletionRobustPerceptron(random_state=1).fit(X, y).coef_
    c = DeletionRobustPerceptron(random_state=2).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_partial_fit_chunking_invariant_and_matches_fit():
    X, y = _data(m=50)
    whole = DeletionRobustPerceptron(budget=1).partial_fit(X, y, classes=[-1, 1])
    chunked = DeletionRobustPerceptron(budget=1)
    for start in range(0, 50, 7):
        chunked.partial_fit(X[start:start + 7], y[start:start + 7], classes=[-1, 1])
    np.testing.assert_allclose(chunked.coef_, whole.coef_, rtol=1e-12)
    np.testing.assert_allclose(chunked.intercept_, whole.intercept_, rtol=1e-12)
    # with a known horizon, one partial_fit call is exactly fit without shuffling
    pf = DeletionRobustPerceptron(budget=1, horizon=50).partial_fit(X, y, classes=[-1, 1])
    fit = DeletionRobustPerceptron(budget=1, shuffle=False).fit(X, y)
    np.testing.assert_allclose(pf.coef_, fit.coef_, rtol=1e-12)


def test_multiclass_is_one_vs_rest():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 5)) / 5
    y = np.repeat(["a", "b", "c"], 30)
    X[y == "b", 0] += 0.5
    X[y == "c", 1] += 0.5
    est = DeletionRobustPerceptron(budget=1, shuffle=False).fit(X, y)
    assert est.coef_.shape == (3, 5)
    for k, label in enumerate(est.classes_):
        binary = DeletionRobustPerceptron(budget=1, shuffle=False).fit(X, y == label)
        np.testing.assert_allclose(est.coef_[k], binary.coef_[0], rtol=1e-12)
    assert est.score(X, y) > 0.6
    assert set(est.predict(X)) <= set(est.classes_)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), budget=st.integers(0, 4), margin=st.floats(0.0, 2.0))
def test_loss_is_eq12_by_enumeration(seed, budget, margin):
    """For 0/1 values and an integer budget the loss is exactly Eq. (12) (Lemma 1(b))."""
    rng = np.random.default_rng(seed)
    n = 6
    values = rng.integers(0, 2, size=n).astype(float)
    if values.sum() <= budget:
        values[:] = 1.0
    X = rng.normal(size=(5, n))
    s = rng.choice([-1.0, 1.0], size=5)
    w, b = rng.normal(size=n), float(rng.normal())
    P = values.sum() - budget
    brute = np.zeros(5)
    for kept in itertools.product([0, 1], repeat=n):
        kept = np.array(kept, dtype=bool)
        if values[~kept].sum() > budget:
            continue
        inner = margin * values[kept].sum() / P - s * (b + X[:, kept] @ w[kept])
        brute = np.maximum(brute, inner)
    got = deletion_hinge_loss(w, b, X, s, values, budget, margin)
    np.testing.assert_allclose(got, brute, atol=1e-12)


def test_robust_loss_method_and_zero_budget_separable():
    X, y = _data()
    est = DeletionRobustPerceptron(budget=0.0, margin=1e-9).fit(X, y)
    loss = est.robust_loss(X, y)
    assert loss.shape == (1, X.shape[0]) and np.all(loss >= 0)


def test_inputs_not_modified_and_sklearn_tools():
    X, y = _data(m=80)
    X0, y0 = X.copy(), y.copy()
    pipe = make_pipeline(StandardScaler(), DeletionRobustPerceptron(n_epochs=10, random_state=0))
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.7
    grid = GridSearchCV(DeletionRobustPerceptron(random_state=0),
                        {"budget": [0.0, 1.0]}, cv=3).fit(X, y)
    assert grid.best_params_["budget"] in (0.0, 1.0)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(("params", "match"), [
    ({"budget": 7.0}, "budget must be smaller than the total feature value"),
    ({"budget": -1.0}, "budget must be non-negative"),
    ({"weight_bound": 0.0}, "weight_bound must be positive"),
    ({"margin": -1.0}, "margin must be > 0"),
    ({"margin": 0.0}, "margin must be > 0"),
    ({"margin": float("nan")}, "margin must be > 0"),
    ({"shuffle": "no"}, "shuffle must be True or False"),
    ({"n_epochs": 0}, "n_epochs must be >= 1"),
    ({"feature_values": np.ones(3)}, "feature_values must have one entry per feature"),
    ({"fit_intercept": "yes"}, "fit_intercept must be True or False"),
])
def test_bad_parameters(params, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        DeletionRobustPerceptron(**params).fit(X, y)


def test_partial_fit_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="classes must be passed"):
        DeletionRobustPerceptron().partial_fit(X, y)
    with pytest.raises(ValueError, match="mutual_info"):
        DeletionRobustPerceptron(feature_values="mutual_info").partial_fit(X, y, classes=[-1, 1])
    est = DeletionRobustPerceptron().partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match="not in classes"):
        est.partial_fit(X, np.full(X.shape[0], 5))
    with pytest.raises(ValueError, match="horizon must be >= 1"):
        DeletionRobustPerceptron(horizon=0).partial_fit(X, y, classes=[-1, 1])


def test_mutual_info_values_are_resolved():
    X, y = _data()
    X = np.abs(X)
    est = DeletionRobustPerceptron(feature_values="mutual_info", budget=2).fit(X, y)
    assert est.feature_values_.sum() == pytest.approx(X.shape[1])


_DATA = Path(os.environ.get("ROBUSTCLF_DATA", "/work/shared/data"))


@pytest.mark.data
@pytest.mark.slow
def test_mnist_one_epoch_accuracy():
    from robustclf.datasets import load_mnist

    try:
        X, Xt, y, yt = load_mnist(digits=(4, 7), scale=True, return_X_y=True)
    except (FileNotFoundError, OSError) as exc:
        pytest.skip(f"MNIST not available: {exc}")
    est = DeletionRobustPerceptron(budget=10, random_state=0).fit(X, y)
    assert est.score(Xt, yt) > 0.95


def test_label_copies_sanity_check():
    """§4's synthetic check in small: two label copies of value 10 each, budget N = 20.

    Trained against the deleting adversary, the Perceptron keeps classifying when both copies
    are deleted at test time, much better than the same Perceptron trained with budget 0.
    """
    rng = np.random.default_rng(0)
    m, n = 400, 20
    w = rng.normal(size=n)
    X, Xt = rng.normal(size=(m, n)), rng.normal(size=(m, n))
    y, yt = np.where(X @ w > 0, 1, -1), np.where(Xt @ w > 0, 1, -1)
    values = np.r_[np.ones(n), 10.0, 10.0]
    scores = {}
    for budget in (0.0, 20.0):
        est = DeletionRobustPerceptron(budget=budget, feature_values=values, n_epochs=5,
                                       random_state=0).fit(np.c_[X, y, y], y)
        scores[budget] = est.score(np.c_[Xt, np.zeros((m, 2))], yt)
    assert scores[20.0] > 0.8, scores
    assert scores[20.0] > scores[0.0] + 0.05, scores
