"""The separable case, Eq. (4): SOCP bisection (needs the optional cvxpy + Clarabel)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSeparableSVC, GeometricMarginSVC, geometric_margin

pytest.importorskip("cvxpy")
pytest.importorskip("clarabel")


def test_socp_margin_is_at_least_the_iterative_margin():
    X, y = make_structurally_missing(60, n_blocks=3, block_size=2, margin=0.5, noise_std=0.0,
                                     random_state=0)
    socp = GeometricMarginSeparableSVC(tol=1e-4).fit(X, y)
    assert socp.margin_ > 0
    assert np.mean(socp.predict(X) == y) == 1.0
    it = GeometricMarginSVC(C=1e3, max_iter=5).fit(X, y)
    for its in it.iterates_[0]:
        w = it.X_fit_[its.support].T @ its.coef
        assert socp.margin_ >= geometric_margin(w, its.intercept, X, y) - 1e-3


def test_socp_rejects_non_separable_data():
    X = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(ValueError, match="separable"):
        GeometricMarginSeparableSVC().fit(X, y)


# -- scikit-learn conventions and missing-value policy (issue 16) --------------------------------
def _separable(n=40, seed=0):
    return make_structurally_missing(n, n_blocks=3, block_size=2, margin=0.5, noise_std=0.0,
                                     random_state=seed)


def _quiet(model, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all: neither cvxpy's nor ours
        return model.fit(X, y, **fit_params)


def test_socp_unfitted_predict_raises_not_fitted_error():
    X, _ = _separable()
    for method in ("predict", "decision_function"):
        with pytest.raises(NotFittedError):
            getattr(GeometricMarginSeparableSVC(), method)(X)


@pytest.mark.parametrize("X, match", [
    (np.empty((4, 0)), "0 feature"),
    (np.ones((4, 2)) + 1j, "X has complex values"),
])
def test_socp_rejects_bad_inputs_clearly(X, match):
    with pytest.raises(ValueError, match=match):
        GeometricMarginSeparableSVC().fit(X, [0, 1, 0, 1])


def test_socp_rejects_a_non_bool_fit_intercept():
    X, y = _separable()
    with pytest.raises(ValueError, match="fit_intercept must be True or False, got 'no'"):
        GeometricMarginSeparableSVC(fit_intercept="no").fit(X, y)


def test_socp_is_binary_only_and_says_so():
    X, y = _separable()
    assert GeometricMarginSeparableSVC().__sklearn_tags__().classifier_tags.multi_class is False
    y3 = np.where(np.arange(y.size) % 3 == 0, 2, y)
    with pytest.raises(ValueError, match="Only binary classification is supported.*got 3 "
                                         "classes"):
        GeometricMarginSeparableSVC().fit(X, y3)


def test_socp_records_and_checks_feature_names():
    pd = pytest.importorskip("pandas")
    X, y = _separable()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    model = _quiet(GeometricMarginSeparableSVC(), frame, y)
    np.testing.assert_array_equal(model.feature_names_in_, frame.columns)
    plain = _quiet(GeometricMarginSeparableSVC(), X, y)
    np.testing.assert_array_equal(model.predict(frame), plain.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[frame.columns[::-1]])


def test_socp_does_not_pass_on_cvxpy_inaccuracy_warnings(monkeypatch):
    """cvxpy warns "Solution may be inaccurate" for every optimal_inaccurate status; the fit
    reads the status itself, so an accurate final result gives no warning at all."""
    import cvxpy as cp

    real_solve = cp.Problem.solve

    def noisy_solve(self, *args, **kwargs):
        warnings.warn("Solution may be inaccurate. Try another solver.", UserWarning,
                      stacklevel=2)
        return real_solve(self, *args, **kwargs)

    monkeypatch.setattr(cp.Problem, "solve", noisy_solve)
    model = _quiet(GeometricMarginSeparableSVC(), *_separable())
    assert model.bracket_width_ <= model.tol


def test_socp_nan_policy_raise_rejects_nan_at_fit_and_predict():
    X, y = _separable()
    assert GeometricMarginSeparableSVC().__sklearn_tags__().input_tags.allow_nan
    strict = GeometricMarginSeparableSVC(nan_policy="raise")
    assert not strict.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        strict.fit(X, y)
    complete = ~np.isnan(X).any(axis=1)
    strict.fit(X[complete], y[complete])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        strict.predict(X)
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        GeometricMarginSeparableSVC(nan_policy="zero").fit(X, y)


def test_socp_row_without_weighted_features_scores_intercept_over_norm():
    """All-NaN rows (and rows whose present features all have weight 0) have no subspace:
    they are scored as the zero vector with every feature present, b / ||w||."""
    X, y = _separable()
    model = _quiet(GeometricMarginSeparableSVC(), X, y)
    model.coef_ = model.coef_.copy()
    model.coef_[0] = 0.0
    rows = np.full((2, X.shape[1]), np.nan)
    rows[1, 0] = 5.0  # present, but carries no weight
    expected = model.intercept_ / np.linalg.norm(model.coef_)
    np.testing.assert_allclose(model.decision_function(rows), [expected, expected], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(rows), model.classes_[int(expected > 0)])


def test_socp_integer_weights_equal_repeated_rows_and_zero_weights_removed_rows():
    X, y = _separable(30)
    weights = np.random.default_rng(0).integers(0, 4, size=y.size)
    weighted = _quiet(GeometricMarginSeparableSVC(), X, y, sample_weight=weights)
    repeated = _quiet(GeometricMarginSeparableSVC(), np.repeat(X, weights, axis=0),
                      np.repeat(y, weights))
    kept = weights > 0
    removed = _quiet(GeometricMarginSeparableSVC(), X[kept], y[kept])
    for other in (repeated, removed):
        np.testing.assert_array_equal(weighted.coef_, other.coef_)
        assert weighted.intercept_ == other.intercept_
    # positive weights do not change a hard-margin solution
    unit = _quiet(GeometricMarginSeparableSVC(), X[kept], y[kept],
                  sample_weight=np.full(kept.sum(), 0.3))
    np.testing.assert_array_equal(unit.coef_, removed.coef_)
