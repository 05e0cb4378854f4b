"""FeatureBoostClassifier: Table 1's loop, the sklearn contract and sleeping experts.

The vote with missing values is tested against a reference in test_ensemble_nan.py.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from robustclf.corruption import MarginalResampling
from robustclf.datasets import make_threshold
from robustclf.ensemble import FeatureBoostClassifier


@pytest.fixture(scope="module")
def threshold():
    X, y, groups, t = make_threshold(100, random_state=0, return_threshold=True)
    X_test, y_test, _ = make_threshold(300, threshold=t, random_state=1)
    return X, y, groups, X_test, y_test


@pytest.fixture(scope="module")
def fitted(threshold):
    X, y, *_ = threshold
    return FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=8,
                                  importance_samples=200, marginal_samples=200,
                                  random_state=0).fit(X, y)


class ColumnRecorder(ClassifierMixin, BaseEstimator):
    """Majority-class learner recording how many columns it is given."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_fit_columns_ = X.shape[1]
        self.majority_ = np.bincount(y).argmax()
        return self

    def predict(self, X):
        assert X.shape[1] == self.n_fit_columns_
        return np.full(X.shape[0], self.majority_)


def test_attributes_and_removal_bounds(fitted, threshold):
    X = threshold[0]
    T, n = 8, X.shape[1]
    assert len(fitted.estimators_) == len(fitted.feature_subsets_) == T
    assert fitted.feature_subsets_[0].size == n  # round 1 sees every feature
    k_min, k_max = math.ceil(0.15 * n), math.floor(0.9 * n)
    for k, cols in zip(fitted.n_removed_[1:], fitted.feature_subsets_[1:], strict=True):
        assert k_min <= k <= k_max
        assert cols.size == n - k
    np.testing.assert_allclose(fitted.feature_distributions_.sum(axis=1), 1.0)
    np.testing.assert_allclose(fitted.feature_distribution_.sum(), 1.0)
    assert fitted.importances_.shape == (T, n)
    assert ((fitted.importances_ >= 0) & (fitted.importances_ <= 1)).all()
    assert (fitted.estimator_weights_ >= 0).all()


def test_unused_features_get_zero_importance_and_removed_features_are_not_seen(fitted):
    for cols, imp in zip(fitted.feature_subsets_, fitted.importances_, strict=True):
        outside = np.setdiff1d(np.arange(imp.size), cols)
        assert (imp[outside] == 0).all()


def test_important_features_become_likely_to_be_removed(fitted):
    """Line 9: w grows with the importance, so p shifts towards the first model's features."""
    imp = fitted.importances_[0]
    p1, p2 = fitted.feature_distributions_[0], fitted.feature_distributions_[1]
    top = np.argmax(imp)
    assert imp[top] > 0 and p2[top] > p1[top]


def test_vote_weights_follow_table_1():
    errors = np.array([0.0, 0.1, 0.3, 0.5, 0.7])
    beta = np.maximum(errors / (1 - errors), 0.01)
    expected = np.maximum(np.log(1 / beta), 0)
    np.testing.assert_allclose(FeatureBoostClassifier._vote_weights(errors), expected)
    assert FeatureBoostClassifier._vote_weights(np.array([1.0]))[0] == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=10))
def test_vote_weights_are_nonnegative_and_decrease_with_error(errors):
    errors = np.sort(np.asarray(errors))
    w = FeatureBoostClassifier._vote_weights(errors)
    assert (w >= 0).all() and (w <= math.log(100) + 1e-12).all()
    assert (np.diff(w) <= 1e-12).all()


def test_submodels_get_only_their_columns_and_estimator_is_not_mutated(threshold):
    X, y, *_ = threshold
    base = ColumnRecorder()
    clf = FeatureBoostClassifier(base, n_estimators=4, importance_samples=50,
                                 marginal_samples=50, random_state=0).fit(X, y)
    assert not hasattr(base, "classes_")
    for model, cols in zip(clf.estimators_, clf.feature_subsets_, strict=True):
        assert model.n_fit_columns_ == cols.size
    clf.predict(X)


def test_inputs_are_not_modified_and_fit_is_deterministic(threshold):
    X, y, *_ = threshold
    X0, y0 = X.copy(), y.copy()
    a = FeatureBoostClassifier(n_estimators=4, random_state=3).fit(X, y)
    b = FeatureBoostClassifier(n_estimators=4, random_state=3).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    for ca, cb in zip(a.feature_subsets_, b.feature_subsets_, strict=True):
        np.testing.assert_array_equal(ca, cb)
    np.testing.assert_array_equal(a.feature_distribution_, b.feature_distribution_)


def test_groups_are_removed_as_whole_units(threshold):
    X, y, groups, *_ = threshold
    clf = FeatureBoostClassifier(n_estimators=6, groups=groups, importance_samples=100,
                                 marginal_samples=100, random_state=0).fit(X, y)
    assert clf.feature_distribution_.shape == (len(groups),)
    for cols in clf.feature_subsets_:
        for g in groups:
            kept = np.isin(g, cols)
            assert kept.all() or not kept.any()
        assert cols.size >= min(len(g) for g in groups)


@pytest.mark.parametrize("param, value, match", [
    ("n_estimators", 0, "n_estimators must be >= 1"),
    ("importance_samples", 1.5, "importance_samples must be an integer"),
    ("marginal_samples", -1, "marginal_samples must be >= 1"),
    ("min_removed", 1.5, "min_removed must be in"),
    ("min_kept", "a", "min_kept must be a real number"),
    ("voting", "mean", "voting must be one of"),
    ("groups", [[0, 0]], "groups"),
])
def test_bad_parameters_raise_naming_the_parameter(threshold, param, value, match):
    X, y, *_ = threshold
    with pytest.raises(ValueError, match=match):
        FeatureBoostClassifier(**{"n_estimators": 2, param: value}).fit(X, y)


def test_removal_bounds_must_be_compatible(threshold):
    X, y, *_ = threshold
    with pytest.raises(ValueError, match="min_removed \\+ min_kept"):
        FeatureBoostClassifier(min_removed=0.6, min_kept=0.5).fit(X, y)


def test_predict_proba_only_with_soft_voting_and_a_probabilistic_learner(threshold):
    X, y, *_ = threshold
    assert not hasattr(FeatureBoostClassifier(), "predict_proba")
    soft = FeatureBoostClassifier(n_estimators=3, voting="soft", importance_samples=50,
                                  marginal_samples=50, random_state=0).fit(X, y)
    proba = soft.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(soft.classes_[proba.argmax(axis=1)], soft.predict(X))
    assert not hasattr(FeatureBoostClassifier(ColumnRecorder(), voting="soft"), "predict_proba")


def test_experts_not_trained_on_a_missing_column_stay_awake(fitted, threshold):
    X_test = threshold[3][:20].copy()
    hidden = fitted.feature_subsets_[0][0]  # round 1 sees every column, later rounds may not
    X_test[:, hidden] = np.nan
    missing = np.isnan(X_test)
    filled = np.where(missing, fitted.column_means_, X_test)
    for e, cols in enumerate(fitted.feature_subsets_):
        dependence = fitted._dependence(e, filled, missing)
        if hidden not in cols:
            assert (dependence == 0).all()
        else:
            assert hidden in fitted.used_features_[e] or (dependence == 0).all()


def test_rows_with_no_awake_expert_are_mean_filled(fitted, threshold):
    X_test = threshold[3][:5].copy()
    X_test[:, :] = np.nan
    pred = fitted.predict(X_test)
    assert pred.shape == (5,) and np.isin(pred, fitted.classes_).all()


def test_string_labels_multiclass_and_meta_estimators():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 6))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    clf = FeatureBoostClassifier(KNeighborsClassifier(2), n_estimators=3,
                                 importance_samples=50, marginal_samples=50, random_state=0)
    pipe = make_pipeline(StandardScaler(), clf)
    assert set(pipe.fit(X, y).predict(X)) <= {"a", "b", "c"}
    assert cross_val_score(clone(clf), X, y, cv=3).mean() > 0.4
    grid = GridSearchCV(clone(clf), {"n_estimators": [1, 2]}, cv=2).fit(X, y)
    assert grid.best_params_["n_estimators"] in (1, 2)


def test_featureboost_beats_a_single_tree_under_feature_corruption(threshold):
    """The paper's main THRESHOLD claim, on one draw (Figure 2, left)."""
    X, y, groups, X_test, y_test = threshold
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    fb = FeatureBoostClassifier(DecisionTreeClassifier(), random_state=0).fit(X, y)
    Xc = MarginalResampling(fraction=0.4, reference=X).corrupt(X_test, random_state=0)
    assert np.mean(fb.predict(Xc) != y_test) < np.mean(tree.predict(Xc) != y_test) - 0.05
