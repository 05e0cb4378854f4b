"""Missing values at prediction time and sample weights of the missing-data estimators (issue 16).

``nan_policy`` chooses between the native handling of absent features and scikit-learn's NaN
error; ``sample_weight`` follows scikit-learn's semantics (a row of integer weight ``k`` is ``k``
copies of the row, weight zero removes it), checked against repeated rows.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import train_test_split

from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSVC
from robustclf.missing._geometric_solver import kkt_residual


def _data(n=80, seed=0):
    return make_structurally_missing(n, n_blocks=3, block_size=2, random_state=seed)


# -- GeometricMarginSVC: nan_policy --------------------------------------------------------------
def test_geometric_nan_policy_sets_the_tag_and_raises_on_nan():
    X, y = _data()
    assert GeometricMarginSVC().__sklearn_tags__().input_tags.allow_nan
    strict = GeometricMarginSVC(nan_policy="raise")
    assert not strict.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        strict.fit(X, y)
    strict.fit(np.nan_to_num(X), y)
    for method in ("predict", "decision_function"):
        with pytest.raises(ValueError, match="Input X contains NaN"):
            getattr(strict, method)(X)
    with pytest.raises(ValueError, match="nan_policy must be one of 'absent', 'raise'"):
        GeometricMarginSVC(nan_policy="zero").fit(X, y)


def test_geometric_raise_policy_fits_complete_data_like_the_default():
    X, y = _data()
    X = np.nan_to_num(X)
    absent = GeometricMarginSVC().fit(X, y)
    strict = GeometricMarginSVC(nan_policy="raise").fit(X, y)
    np.testing.assert_array_equal(absent.decision_function(X), strict.decision_function(X))


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
def test_geometric_all_nan_row_scores_the_intercept(bias):
    """No valid feature: the scaling is 1 and (linear kernel) K(x_j, x) = 0, so the decision
    value is the intercept alone, finite, under both bias readings."""
    X, y = _data()
    model = GeometricMarginSVC(bias=bias).fit(X, y)
    rows = np.full((3, X.shape[1]), np.nan)
    intercept = model.iterates_[0][model.best_iteration_].intercept
    np.testing.assert_allclose(model.decision_function(rows), intercept, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(model.predict(rows), model.classes_[int(intercept > 0)])


def test_geometric_all_nan_row_poly_kernel_is_finite():
    X, y = _data()
    model = GeometricMarginSVC(kernel="poly").fit(X, y)
    assert np.all(np.isfinite(model.decision_function(np.full((2, X.shape[1]), np.nan))))


# -- GeometricMarginSVC: sample_weight -----------------------------------------------------------
def _weighted_and_repeated(X, y, weights, **params):
    params = dict(svm_tol=1e-9, max_iter=3) | params
    weighted = GeometricMarginSVC(**params).fit(X, y, sample_weight=weights)
    repeated = GeometricMarginSVC(**params).fit(np.repeat(X, weights, axis=0),
                                                np.repeat(y, weights))
    return weighted, repeated


@pytest.mark.parametrize("params", [{}, {"bias": "unscaled"}, {"kernel": "poly"},
                                    {"kernel": "poly", "gamma": "scale", "bias": "unscaled"}])
def test_geometric_integer_weights_equal_repeated_rows(params):
    """Every iterate (SVM solve, then scaling update) of the weighted fit is that of the fit
    on repeated rows, including the Eq. (6) objective; zero weights remove rows."""
    X, y = _data()
    weights = np.random.default_rng(1).integers(0, 4, size=y.size)
    weighted, repeated = _weighted_and_repeated(X, y, weights, **params)
    assert weighted.n_iter_ == repeated.n_iter_
    assert weighted.gamma_ == pytest.approx(repeated.gamma_, rel=1e-12)
    np.testing.assert_allclose(weighted.objective_history_, repeated.objective_history_,
                               rtol=1e-6)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               rtol=0, atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), high=st.integers(2, 5))
def test_geometric_weights_equal_repeats_on_random_data(seed, high):
    X, y = _data(40, seed)
    weights = np.random.default_rng(seed).integers(0, high, size=y.size)
    weights[np.flatnonzero(y == y[0])[0]] = 1  # both classes keep a row
    weights[np.flatnonzero(y != y[0])[0]] = 1
    weighted, repeated = _weighted_and_repeated(X, y, weights, max_iter=2)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               rtol=0, atol=1e-5)


def test_geometric_zero_weights_are_removed_rows_exactly():
    X, y = _data()
    weights = np.ones(y.size)
    weights[::4] = 0.0
    weighted = GeometricMarginSVC(max_iter=3).fit(X, y, sample_weight=weights)
    removed = GeometricMarginSVC(max_iter=3).fit(X[weights > 0], y[weights > 0])
    np.testing.assert_array_equal(weighted.decision_function(X), removed.decision_function(X))


def test_geometric_unit_weights_change_nothing():
    X, y = _data()
    plain = GeometricMarginSVC(max_iter=3).fit(X, y)
    unit = GeometricMarginSVC(max_iter=3).fit(X, y, sample_weight=np.ones(y.size))
    np.testing.assert_array_equal(plain.decision_function(X), unit.decision_function(X))


def test_geometric_weights_scale_like_c():
    """Weights all equal to c are the same objective as C multiplied by c."""
    X, y = _data()
    weighted = GeometricMarginSVC(C=1.0, svm_tol=1e-9).fit(X, y, sample_weight=np.full(y.size,
                                                                                      3.0))
    scaled_c = GeometricMarginSVC(C=3.0, svm_tol=1e-9).fit(X, y)
    np.testing.assert_allclose(weighted.decision_function(X), scaled_c.decision_function(X),
                               rtol=0, atol=1e-6)


def test_geometric_weighted_kkt_residual_uses_the_weighted_bounds():
    """A coefficient at C is at its bound for weight 1 (a margin below 1 is allowed there) but
    interior for weight 2, where the margin must be exactly 1."""
    y = np.array([1.0, -1.0])
    s = np.ones(2)
    coef = np.array([1.0, -1.0])  # y_i coef_i = 1 = C
    K_coef = np.array([0.5, -0.5])  # margins 0.5
    assert kkt_residual(K_coef, coef, 0.0, y, s, 1.0, "scaled") == 0.0
    assert kkt_residual(K_coef, coef, 0.0, y, s, 1.0, "scaled",
                        np.full(2, 2.0)) == pytest.approx(0.5)


@pytest.mark.parametrize("weights, match", [
    (-np.ones(80), "Negative values in data passed to `sample_weight`"),
    (np.ones(3), "sample_weight.shape == \\(3,\\), expected \\(80,\\)"),
])
def test_geometric_bad_weights_are_rejected(weights, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        GeometricMarginSVC().fit(X, y, sample_weight=weights)


def test_geometric_weights_leaving_one_class_are_rejected():
    X, y = _data()
    with pytest.raises(ValueError, match="only one class among the rows of positive weight"):
        GeometricMarginSVC().fit(X, y, sample_weight=(y == y[0]).astype(float))


def test_geometric_early_stopping_weighs_the_validation_error():
    X, y = _data(120)
    weights = np.where(np.arange(y.size) % 2 == 0, 1.0, 5.0)
    model = GeometricMarginSVC(early_stopping=True, max_iter=3, random_state=0)
    model.fit(X, y, sample_weight=weights)
    # the estimator's split, drawn the same way (stratified, seed from random_state), and the
    # selection fit: the same estimator without early stopping on the other rows
    seed = int(np.random.default_rng(0).integers(2**31 - 1))
    fit, val = train_test_split(np.arange(y.size), test_size=0.2, random_state=seed,
                                stratify=np.unique(y, return_inverse=True)[1])
    selection = GeometricMarginSVC(max_iter=3).fit(X[fit], y[fit], sample_weight=weights[fit])
    expected = [np.average(selection._predict_at(X[val], t) != y[val], weights=weights[val])
                for t in range(selection.n_iter_)]
    np.testing.assert_allclose(model.validation_errors_, expected, rtol=1e-12)
    assert model.best_iteration_ == int(np.argmin(model.validation_errors_))
    # the model is then refitted on all rows with their weights
    refit = GeometricMarginSVC(max_iter=model.best_iteration_).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.decision_function(X), refit.decision_function(X))


def test_geometric_clarabel_weighted_qp_matches_weighted_libsvm():
    """The per-row bounds C w_i / s_i of the Clarabel QP are those of the libsvm solves."""
    pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    X, y = _data(60)
    weights = np.random.default_rng(3).uniform(0.2, 3.0, size=y.size)
    qp = GeometricMarginSVC(solver="clarabel", max_iter=1).fit(X, y, sample_weight=weights)
    svm = GeometricMarginSVC(svm_tol=1e-9, max_iter=1).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(qp.objective_history_, svm.objective_history_, rtol=1e-6)
    np.testing.assert_allclose(qp.decision_function(X), svm.decision_function(X), rtol=0,
                               atol=1e-5)
