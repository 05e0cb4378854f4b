"""Exact ties of the hard vote (issue 15): FeatureBoost follows Table 1's ``>=``.

Table 1 (O'Sullivan et al. 2000) outputs ``h_f = 1`` when
``sum_t log(1/beta_t) h_t >= 1/2 sum_t log(1/beta_t)``, so a tie goes to the positive class
``classes_[1]``; with several classes the tie goes to the last tied class in ``classes_`` order.
The mixture-of-experts baseline keeps ``argmax``'s first tied class. The ensembles here are
crafted: fitted, then given experts that always predict one class and chosen weights.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin

from robustclf.ensemble import FeatureBoostClassifier, MixtureOfExpertsClassifier
from robustclf.ensemble._voting import vote_winner

N_FEATURES = 3


class ConstantExpert(ClassifierMixin, BaseEstimator):
    """Predicts the encoded class ``label`` whatever the row."""

    def __init__(self, label=0):
        self.label = label

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.label)


class ProbaExpert(ConstantExpert):
    """A constant expert that is sure of its class."""

    def predict_proba(self, X):
        return np.eye(len(self.classes_))[np.full(X.shape[0], self.label)]


def crafted(classes, labels, weights, cls=FeatureBoostClassifier, used=None,
            expert=ConstantExpert, **params):
    """An ensemble over ``classes`` whose expert e predicts ``classes[labels[e]]`` with weight
    ``weights[e]`` on every row; ``used[e]`` lists the columns expert e depends on."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4 * len(classes), N_FEATURES))
    y = np.repeat(np.asarray(classes), 4)
    clf = cls(expert(), n_estimators=len(labels), random_state=0, **params)
    if cls is FeatureBoostClassifier:
        clf.set_params(importance_samples=10, marginal_samples=10)
    clf.fit(X, y)
    assert list(clf.classes_) == sorted(classes)
    clf.estimators_ = [expert(int(lab)).fit(X, np.arange(len(classes)))
                       for lab in labels]
    clf.feature_subsets_ = [np.arange(N_FEATURES)] * len(labels)
    clf.used_features_ = ([np.arange(N_FEATURES)] * len(labels) if used is None
                          else [np.asarray(u, dtype=np.intp) for u in used])
    clf.estimator_weights_ = np.asarray(weights, dtype=np.float64)
    return clf


ROWS = np.zeros((2, N_FEATURES))


@pytest.mark.parametrize("classes", [[0, 1], [-1, 1], ["no", "yes"]])
def test_a_binary_tie_goes_to_the_positive_class(classes):
    w = math.log(100)  # trees of training error 0: every expert has weight log(1 / 0.01)
    for labels in ([0, 1], [1, 0], [0, 0, 1, 1], [1, 0, 0, 1]):
        clf = crafted(classes, labels, [w] * len(labels))
        assert list(clf.predict(ROWS)) == [classes[1]] * 2
    assert list(crafted(classes, [0, 0, 1], [w] * 3).predict(ROWS)) == [classes[0]] * 2


def test_a_tie_up_to_rounding_is_a_tie():
    """0.1 + 0.2 is 0.30000000000000004 in floating point: still the weight 0.3."""
    assert 0.1 + 0.2 != 0.3
    for labels in ([1, 1, 0], [0, 0, 1]):
        assert list(crafted([0, 1], labels, [0.1, 0.2, 0.3]).predict(ROWS)) == [1, 1]
    assert list(crafted([0, 1], [0, 0, 1], [0.1, 0.2, 0.3 - 1e-6]).predict(ROWS)) == [0, 0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 4)), min_size=1, max_size=9))
def test_binary_hard_vote_is_table_1(experts):
    """Integer weights sum exactly: h_f = 1 iff sum_t a_t h_t >= 1/2 sum_t a_t (all-zero
    weights fall back to equal weights)."""
    labels = [lab for lab, _ in experts]
    weights = np.array([a for _, a in experts], dtype=float)
    clf = crafted(["neg", "pos"], labels, weights)
    if not (weights > 0).any():
        weights = np.ones_like(weights)
    positive = 2 * np.dot(weights, labels) >= weights.sum()
    clf.estimator_weights_ = weights
    assert list(clf.predict(ROWS)) == ["pos" if positive else "neg"] * 2


def test_a_multiclass_tie_goes_to_the_last_tied_class():
    classes = ["a", "b", "c"]
    cases = {  # expert labels -> expected, all weights 1
        (0, 1): "b", (1, 0): "b", (0, 2): "c", (2, 0): "c", (1, 2): "c",
        (0, 1, 2): "c", (2, 1, 0): "c", (0, 0, 1, 1, 2): "b", (0, 0, 2, 1): "a",
    }
    for labels, expected in cases.items():
        clf = crafted(classes, labels, [1.0] * len(labels))
        assert list(clf.predict(ROWS)) == [expected] * 2, labels


def test_a_tie_among_the_awake_experts_goes_to_the_positive_class():
    """Sleeping experts: the expert that needs column 0 sleeps where it is NaN, and the two
    awake experts tie."""
    clf = crafted([0, 1], [0, 1, 0], [1.0, 1.0, 1.0], used=[[1], [2], [0]])
    rows = np.array([[np.nan, 0.0, 0.0], [0.0, 0.0, 0.0]])
    assert list(clf.predict(rows)) == [1, 0]


def test_soft_voting_predicts_the_argmax_of_predict_proba():
    clf = crafted([0, 1], [0, 1], [1.0, 1.0], voting="soft", expert=ProbaExpert)
    proba = clf.predict_proba(ROWS)
    np.testing.assert_allclose(proba, 0.5)
    assert list(clf.predict(ROWS)) == list(clf.classes_[np.argmax(proba, axis=1)]) == [0, 0]


def test_the_mixture_keeps_the_first_tied_class():
    clf = crafted([0, 1], [1, 0], [1.0, 1.0], cls=MixtureOfExpertsClassifier)
    assert list(clf.predict(ROWS)) == [0, 0]


def test_vote_winner():
    votes = np.array([[0.5, 0.5, 0.0], [0.2, 0.4, 0.4], [0.1, 0.6, 0.3],
                      [1 / 3, 1 / 3, 1 / 3 + 1e-12]])
    np.testing.assert_array_equal(vote_winner(votes, "first"), [0, 1, 1, 2])
    np.testing.assert_array_equal(vote_winner(votes, "last"), [1, 2, 1, 2])
    votes[3] = [1 / 3 + 1e-12, 1 / 3, 1 / 3]
    assert vote_winner(votes, "first")[3] == 0 and vote_winner(votes, "last")[3] == 2
