"""NaN in the ensembles: sleeping experts on the features a prediction depends on, nan_policy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

from robustclf.datasets import make_threshold
from robustclf.ensemble import (
    FeatureBoostClassifier,
    MixtureOfExpertsClassifier,
    WeightResamplingClassifier,
)
from robustclf.ensemble._voting import used_columns


@pytest.fixture(scope="module")
def threshold():
    X, y, groups, t = make_threshold(150, random_state=0, return_threshold=True)
    X_test, y_test, _ = make_threshold(200, threshold=t, random_state=1)
    return X, y, X_test, y_test


@pytest.fixture(scope="module")
def fitted(threshold):
    X, y, *_ = threshold
    return FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=8,
                                  importance_samples=200, marginal_samples=200,
                                  random_state=0).fit(X, y)


def _tree_dependence(tree, row, missing):
    """Reference: walk the tree for one row, counting splits on a missing feature."""
    t = tree.tree_
    node, count = 0, 0
    while t.children_left[node] >= 0:
        f = t.feature[node]
        count += int(missing[f])
        node = t.children_left[node] if row[f] <= t.threshold[node] else t.children_right[node]
    return count


def _reference_vote(clf, X):
    """Weighted hard vote of the experts of least dependence, on mean-filled rows; a tie goes
    to the positive class (Table 1: ``sum a_t h_t >= 1/2 sum a_t``, up to rounding)."""
    missing = np.isnan(X)
    filled = np.where(missing, clf.column_means_, X)
    w = clf.estimator_weights_
    votes = np.zeros((X.shape[0], clf.classes_.size))
    for i in range(X.shape[0]):
        dep = np.array([_tree_dependence(m, filled[i, c], missing[i, c]) if w[e] > 0 else 10**9
                        for e, (m, c) in enumerate(zip(clf.estimators_, clf.feature_subsets_,
                                                       strict=True))])
        for e in np.flatnonzero(dep == dep.min()):
            m, c = clf.estimators_[e], clf.feature_subsets_[e]
            votes[i, m.predict(filled[i:i + 1, c])[0]] += w[e]
    assert clf.classes_.size == 2
    positive = votes[:, 1] >= votes[:, 0] - 1e-9 * votes.sum(axis=1)
    return clf.classes_[positive.astype(np.intp)]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.0, 0.6))
def test_prediction_is_the_vote_of_the_least_dependent_experts(fitted, threshold, seed, rate):
    X_test = threshold[2][:30].copy()
    rng = np.random.default_rng(seed)
    X_test[rng.random(X_test.shape) < rate] = np.nan
    X_test[0] = np.nan  # every expert sleeps: the least affected vote on training means
    np.testing.assert_array_equal(fitted.predict(X_test), _reference_vote(fitted, X_test))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_an_awake_expert_predicts_the_same_whatever_the_missing_values(fitted, threshold,
                                                                      seed):
    X, _, X_test, _ = threshold
    rng = np.random.default_rng(seed)
    X_nan = X_test[:40].copy()
    X_nan[rng.random(X_nan.shape) < 0.3] = np.nan
    missing = np.isnan(X_nan)
    filled = np.where(missing, fitted.column_means_, X_nan)
    for e, (model, cols) in enumerate(zip(fitted.estimators_, fitted.feature_subsets_,
                                          strict=True)):
        awake = fitted._dependence(e, filled, missing) == 0
        if not awake.any():
            continue
        base = model.predict(filled[awake][:, cols])
        for _ in range(5):  # the missing entries from random training rows
            donor = X[rng.integers(0, X.shape[0], size=X_nan.shape[0])]
            other = np.where(missing, donor, X_nan)[awake][:, cols]
            np.testing.assert_array_equal(model.predict(other), base)


def test_a_tree_sleeps_only_where_its_path_meets_a_missing_feature():
    rng = np.random.default_rng(0)
    X = rng.random((400, 3))
    y = np.where(X[:, 0] > 0.5, X[:, 2] > 0.2, X[:, 1] > 0.8).astype(int)
    clf = MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=1,
                                     random_state=0).fit(X, y)
    tree = clf.estimators_[0].tree_
    assert tree.feature[0] == 0 and set(clf.used_features_[0]) == {0, 1, 2}
    rows = np.array([[0.2, 0.9, np.nan],    # left branch: x2 is not on the path, awake
                     [0.8, np.nan, 0.1]])   # right branch: x1 is not on the path, awake
    np.testing.assert_array_equal(clf.predict(rows), [1, 0])
    missing = np.isnan(rows)
    filled = np.where(missing, clf.column_means_, rows)
    np.testing.assert_array_equal(clf._dependence(0, filled, missing), [0, 0])
    rows = np.array([[0.2, np.nan, 0.9]])  # x1 on the path: asleep, the lone expert votes
    assert clf._dependence(0, np.where(np.isnan(rows), clf.column_means_, rows),
                           np.isnan(rows))[0] == 1


def test_used_columns_of_linear_forest_knn_and_importance_models():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] + X[:, 3] > 0).astype(int)
    lasso = LogisticRegression(l1_ratio=1.0, C=0.05, solver="liblinear").fit(X, y)
    np.testing.assert_array_equal(used_columns(lasso, 5), np.flatnonzero(lasso.coef_[0]))
    forest = RandomForestClassifier(3, max_depth=2, random_state=0).fit(X, y)
    splits = np.concatenate([t.tree_.feature for t in forest.estimators_])
    np.testing.assert_array_equal(used_columns(forest, 5), np.unique(splits[splits >= 0]))
    np.testing.assert_array_equal(used_columns(KNeighborsClassifier().fit(X, y), 5),
                                  np.arange(5))

    class Importances:
        feature_importances_ = np.array([0.0, 0.7, 0.0, 0.3, 0.0])

    np.testing.assert_array_equal(used_columns(Importances(), 5), [1, 3])


def test_a_linear_expert_ignores_missing_features_with_zero_coefficient():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 6))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    clf = MixtureOfExpertsClassifier(LogisticRegression(l1_ratio=1.0, C=0.05,
                                                        solver="liblinear"),
                                     n_estimators=3, random_state=0).fit(X, y)
    unused = np.setdiff1d(np.arange(6), np.concatenate(clf.used_features_))
    assert unused.size
    X_nan = X.copy()
    X_nan[:, unused] = np.nan
    np.testing.assert_array_equal(clf.predict(X_nan), clf.predict(X))


@pytest.mark.parametrize("make", [
    lambda policy: FeatureBoostClassifier(n_estimators=2, importance_samples=20,
                                          marginal_samples=20, random_state=0,
                                          nan_policy=policy),
    lambda policy: MixtureOfExpertsClassifier(n_estimators=2, random_state=0,
                                              nan_policy=policy),
    lambda policy: WeightResamplingClassifier(KNeighborsClassifier(3), nan_policy=policy),
])
def test_nan_policy_raise_absent_and_tags(threshold, make):
    X, y, X_test, _ = threshold
    X_nan = X_test[:10].copy()
    X_nan[:, 0] = np.nan
    absent = make("absent").fit(X, y)
    assert absent.__sklearn_tags__().input_tags.allow_nan
    assert absent.predict(X_nan).shape == (10,)
    strict = make("raise")
    assert not strict.__sklearn_tags__().input_tags.allow_nan
    strict.fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        strict.predict(X_nan)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        make("raise").fit(np.where(np.arange(X.shape[1]) == 0, np.nan, X), y)
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        make("zero").fit(X, y)


def test_training_nan_goes_to_trees_and_is_mean_filled_for_knn(threshold):
    X, y, X_test, _ = threshold
    X_nan = X.copy()
    X_nan[::7, 3] = np.nan
    mean = np.nanmean(X_nan[:, 3])
    knn = MixtureOfExpertsClassifier(KNeighborsClassifier(3), n_estimators=2,
                                     random_state=0)
    filled = np.where(np.isnan(X_nan), mean, X_nan)
    np.testing.assert_array_equal(knn.fit(X_nan, y).predict(X_test),
                                  knn.fit(filled, y).predict(X_test))
    assert knn.fit(X_nan, y).column_means_[3] == pytest.approx(mean)
    fb = FeatureBoostClassifier(n_estimators=3, importance_samples=50, marginal_samples=50,
                                random_state=0).fit(X_nan, y)
    assert fb.predict(X_test).shape == (X_test.shape[0],)


def test_weight_resampling_mean_fills_or_passes_nan_to_the_learner(threshold):
    X, y, X_test, _ = threshold
    X_nan = X_test[:20].copy()
    X_nan[:, :4] = np.nan
    knn = WeightResamplingClassifier(KNeighborsClassifier(3)).fit(X, y)
    filled = np.where(np.isnan(X_nan), X.mean(axis=0), X_nan)
    np.testing.assert_array_equal(knn.predict(X_nan), knn.estimator_.predict(filled))
    hgb = WeightResamplingClassifier(HistGradientBoostingClassifier(max_iter=5)).fit(X, y)
    np.testing.assert_array_equal(hgb.predict(X_nan), hgb.estimator_.predict(X_nan))


def _votes_with_two_nan_per_row(seed, X, y):
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    rng = np.random.default_rng(seed)
    X_nan = Xte.copy()
    cols = np.argsort(rng.random(Xte.shape), axis=1)[:, :2]
    X_nan[np.arange(X_nan.shape[0])[:, None], cols] = np.nan
    return Xtr, ytr, X_nan, yte


def test_featureboost_with_nan_is_no_worse_than_mean_filling_on_votes():
    """The issue's criterion: votes, 2 NaN per test row, paired against a SimpleImputer.

    '?' votes are coded 0.5 (a third value, as the votes experiment does), so training data
    has no NaN and the two arms differ only in how test NaN is handled. Measured over 50
    splits: FeatureBoost 0.073, imputer pipeline 0.081, paired difference -0.0075 +- 0.0058
    (95 % CI), per-split sd 0.021. The margin 0.013 is two standard errors of a 10-split mean;
    the previous rule (+0.048) and sleeping on a tree's split features (+0.031) fail it.
    """
    try:
        from robustclf.datasets import load_votes
        X, y = load_votes(return_X_y=True)
    except (FileNotFoundError, OSError, ValueError):
        pytest.skip("house_votes_84 is not available")
    X = np.where(np.isnan(X), 0.5, X)
    diffs = []
    for seed in range(10):
        Xtr, ytr, X_nan, yte = _votes_with_two_nan_per_row(seed, X, y)
        fb = FeatureBoostClassifier(DecisionTreeClassifier(), random_state=seed)
        pipe = make_pipeline(SimpleImputer(), fb).fit(Xtr, ytr)
        fb = FeatureBoostClassifier(DecisionTreeClassifier(), random_state=seed).fit(Xtr, ytr)
        diffs.append(np.mean(fb.predict(X_nan) != yte) - np.mean(pipe.predict(X_nan) != yte))
    assert np.mean(diffs) <= 0.013
