"""The baselines: MIXTURE (bootstrap experts, unweighted vote) and AdaBoost by resampling."""

import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from robustclf.datasets import make_threshold
from robustclf.ensemble import MixtureOfExpertsClassifier, WeightResamplingClassifier


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_threshold(100, random_state=0)
    return X, y


def test_mixture_is_an_unweighted_vote_of_bootstrap_experts(data):
    X, y = data
    base = DecisionTreeClassifier()
    clf = MixtureOfExpertsClassifier(base, n_estimators=5, random_state=0).fit(X, y)
    assert not hasattr(base, "tree_")
    assert len(clf.estimators_) == 5 and (clf.estimator_weights_ == 1).all()
    for rows in clf.samples_:
        assert rows.size >= X.shape[0] and set(np.unique(y[rows])) == {0, 1}
    votes = np.stack([m.predict(X) for m in clf.estimators_])
    majority = (votes.mean(axis=0) > 0.5).astype(int)
    decided = votes.mean(axis=0) != 0.5
    np.testing.assert_array_equal(clf.predict(X)[decided], clf.classes_[majority][decided])


def test_mixture_adds_a_row_of_every_class_missing_from_a_resample():
    X = np.arange(20, dtype=float)[:, None]
    y = np.array([0] * 19 + [1])
    clf = MixtureOfExpertsClassifier(n_estimators=10, random_state=0).fit(X, y)
    assert all(1 in y[rows] for rows in clf.samples_)


def test_mixture_soft_voting_and_parameter_errors(data):
    X, y = data
    soft = MixtureOfExpertsClassifier(n_estimators=3, voting="soft", random_state=0).fit(X, y)
    np.testing.assert_allclose(soft.predict_proba(X).sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="n_estimators"):
        MixtureOfExpertsClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="voting"):
        MixtureOfExpertsClassifier(voting="x").fit(X, y)


def test_mixture_results_do_not_depend_on_n_jobs(data):
    X, y = data
    a = MixtureOfExpertsClassifier(n_estimators=4, random_state=1, n_jobs=1).fit(X, y)
    b = MixtureOfExpertsClassifier(n_estimators=4, random_state=1, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_resampling_follows_the_weights():
    X = np.arange(10, dtype=float)[:, None]
    y = np.array([0, 1] * 5)
    w = np.zeros(10)
    w[3] = 1.0
    clf = WeightResamplingClassifier(KNeighborsClassifier(1), random_state=0)
    clf.fit(X, y, sample_weight=w)
    assert (clf.predict(X) == 1).all()  # every resampled row is row 3 (label 1)
    with pytest.raises(ValueError, match="zero"):
        clf.fit(X, y, sample_weight=np.zeros(10))


def test_adaboost_over_knn_by_resampling(data):
    X, y = data
    ada = AdaBoostClassifier(WeightResamplingClassifier(KNeighborsClassifier(2)),
                             n_estimators=5, random_state=0).fit(X, y)
    assert np.mean(ada.predict(X) != y) < 0.2
    assert len(ada.estimators_) >= 1
