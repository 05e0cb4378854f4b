"""sample_weight in the ensembles (a row of weight k = k copies) and feature names."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import AdaBoostClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from robustclf.datasets import make_threshold
from robustclf.ensemble import (
    FeatureBoostClassifier,
    MixtureOfExpertsClassifier,
    WeightResamplingClassifier,
)
from robustclf.ensemble._sampling import RowSampler
from robustclf.ensemble.resampling import residual_counts


@pytest.fixture(scope="module")
def data():
    X, y, _ = make_threshold(60, random_state=0)
    X_test, _, _ = make_threshold(100, random_state=1)
    w = np.random.default_rng(0).integers(0, 4, size=X.shape[0])
    return X, y, w, X_test


def _fb(base, **kw):
    return FeatureBoostClassifier(base, n_estimators=4, importance_samples=60,
                                  marginal_samples=60, random_state=0, **kw)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12).filter(any),
       st.integers(0, 2**31 - 1))
def test_row_sampler_draws_integer_weights_as_repeated_rows(weights, seed):
    w = np.asarray(weights, dtype=float)
    weighted = RowSampler(w.size, w)(np.random.default_rng(seed), 50)
    repeated = RowSampler(int(w.sum()))(np.random.default_rng(seed), 50)
    np.testing.assert_array_equal(weighted, np.repeat(np.arange(w.size), w.astype(int))[repeated])
    ones = RowSampler(w.size, np.ones(w.size))(np.random.default_rng(seed), 50)
    np.testing.assert_array_equal(ones, RowSampler(w.size)(np.random.default_rng(seed), 50))


def test_row_sampler_follows_real_weights():
    w = np.array([0.5, 0.0, 2.25, 1.25])
    rows = RowSampler(4, w)(np.random.default_rng(0), 40_000)
    np.testing.assert_allclose(np.bincount(rows, minlength=4) / 40_000, w / w.sum(), atol=0.01)


@pytest.mark.parametrize("base", [DecisionTreeClassifier(), KNeighborsClassifier(3)],
                         ids=["tree (own sample_weight)", "knn (rows repeated)"])
def test_featureboost_weight_k_is_k_copies_in_place(data, base):
    X, y, w, X_test = data
    weighted = _fb(base).fit(X, y, sample_weight=w)
    repeated = _fb(base).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    for a, b in zip(weighted.feature_subsets_, repeated.feature_subsets_, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(weighted.estimator_weights_, repeated.estimator_weights_)
    np.testing.assert_array_equal(weighted.importances_, repeated.importances_)
    np.testing.assert_array_equal(weighted.predict(X_test), repeated.predict(X_test))
    np.testing.assert_allclose(weighted.column_means_, repeated.column_means_)


def test_featureboost_unit_weights_change_nothing(data):
    X, y, _, X_test = data
    a = _fb(DecisionTreeClassifier()).fit(X, y)
    b = _fb(DecisionTreeClassifier()).fit(X, y, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_array_equal(a.feature_distribution_, b.feature_distribution_)
    np.testing.assert_array_equal(a.predict(X_test), b.predict(X_test))


def test_featureboost_real_weights_need_a_learner_with_sample_weight(data):
    X, y, w, _ = data
    _fb(DecisionTreeClassifier()).fit(X, y, sample_weight=w + 0.5)
    with pytest.raises(ValueError, match="sample_weight must be integers for a base learner "
                                         "without sample_weight \\(KNeighborsClassifier\\)"):
        _fb(KNeighborsClassifier()).fit(X, y, sample_weight=w + 0.5)


@pytest.mark.parametrize("make", [
    lambda: _fb(DecisionTreeClassifier()),
    lambda: MixtureOfExpertsClassifier(n_estimators=3, random_state=0),
    lambda: WeightResamplingClassifier(KNeighborsClassifier(1)),
])
def test_bad_weights_are_rejected(data, make):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="at least one non-zero"):
        make().fit(X, y, sample_weight=np.zeros(X.shape[0]))
    with pytest.raises(ValueError, match="Negative values in data passed to `sample_weight`"):
        make().fit(X, y, sample_weight=-np.ones(X.shape[0]))
    with pytest.raises(ValueError, match="sample_weight.shape"):
        make().fit(X, y, sample_weight=np.ones(3))


def test_mixture_weight_k_is_k_copies_in_place(data):
    X, y, w, X_test = data
    weighted = MixtureOfExpertsClassifier(n_estimators=5, random_state=0).fit(
        X, y, sample_weight=w)
    repeated = MixtureOfExpertsClassifier(n_estimators=5, random_state=0).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w))
    row_of_copy = np.repeat(np.arange(X.shape[0]), w)
    for a, b in zip(weighted.samples_, repeated.samples_, strict=True):
        np.testing.assert_array_equal(a, row_of_copy[b])
    np.testing.assert_array_equal(weighted.predict(X_test), repeated.predict(X_test))


def test_mixture_resamples_have_the_weighted_size(data):
    X, y, _, _ = data
    clf = MixtureOfExpertsClassifier(n_estimators=4, random_state=0)
    clf.fit(X, y, sample_weight=np.full(X.shape[0], 2.5))
    assert all(rows.size >= round(2.5 * X.shape[0]) for rows in clf.samples_)
    clf.fit(X, y)
    assert all(rows.size >= X.shape[0] for rows in clf.samples_)


def test_weight_resampling_with_max_samples_one_fits_on_the_copies(data):
    X, y, w, X_test = data
    clf = WeightResamplingClassifier(KNeighborsClassifier(3), max_samples=1.0,
                                     random_state=0).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(clf.counts_, w)
    copies = KNeighborsClassifier(3).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_array_equal(clf.predict(X_test), copies.predict(X_test))


def test_weight_resampling_default_size_is_n_rows_and_unit_weights_are_the_data(data):
    X, y, w, _ = data
    n = X.shape[0]
    clf = WeightResamplingClassifier(KNeighborsClassifier(1), random_state=0)
    assert clf.fit(X, y, sample_weight=w / w.sum()).counts_.sum() == n  # AdaBoost's scale
    np.testing.assert_array_equal(clf.fit(X, y, sample_weight=np.ones(n)).counts_, 1)
    np.testing.assert_array_equal(clf.fit(X, y).counts_, 1)
    assert clf.set_params(max_samples=7).fit(X, y, sample_weight=w).counts_.sum() == 7
    with pytest.raises(ValueError, match="max_samples must be"):
        clf.set_params(max_samples=0).fit(X, y)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.0, 10.0), min_size=1, max_size=15).filter(lambda v: sum(v) > 0),
       st.integers(1, 40), st.integers(0, 2**31 - 1))
def test_residual_counts_take_the_integer_part_and_the_size(weights, size, seed):
    w = np.asarray(weights)
    expected = size * w / w.sum()
    counts = residual_counts(expected, size, np.random.default_rng(seed))
    assert counts.sum() == size
    assert (counts >= np.floor(expected)).all() and (counts <= np.ceil(expected) + size).all()
    assert (counts[w == 0] == 0).all()


def test_residual_counts_are_unbiased():
    expected = np.array([0.3, 1.5, 2.2])
    counts = np.mean([residual_counts(expected, 4, np.random.default_rng(s))
                      for s in range(4000)], axis=0)
    np.testing.assert_allclose(counts, expected, atol=0.03)


def test_adaboost_still_boosts_knn_by_resampling(data):
    X, y, _, _ = data
    ada = AdaBoostClassifier(WeightResamplingClassifier(KNeighborsClassifier(2)),
                             n_estimators=4, random_state=0).fit(X, y)
    assert np.mean(ada.predict(X) != y) < 0.2


@pytest.mark.parametrize("make", [
    lambda: _fb(DecisionTreeClassifier()),
    lambda: MixtureOfExpertsClassifier(n_estimators=3, random_state=0),
    lambda: WeightResamplingClassifier(KNeighborsClassifier(1)),
])
def test_feature_names_are_recorded_and_checked(data, make):
    X, y, _, X_test = data
    names = [f"f{j}" for j in range(X.shape[1])]
    clf = make().fit(pd.DataFrame(X, columns=names), y)
    np.testing.assert_array_equal(clf.feature_names_in_, names)
    frame = pd.DataFrame(X_test, columns=names)
    np.testing.assert_array_equal(clf.predict(frame), make().fit(X, y).predict(X_test))
    with pytest.raises(ValueError, match="feature names should match"):
        clf.predict(frame[names[::-1]])
