"""GeometricMarginSVC (Chechik et al. 2007, §3, Eq. 5-7)."""

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSVC
from robustclf.missing._geometric_solver import _svm_step


@pytest.fixture(scope="module")
def missing_data():
    X, y = make_structurally_missing(240, n_blocks=3, block_size=3, noise_std=0.3,
                                     random_state=0)
    return X, y


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_reduces_to_ordinary_svm_without_missing_values(kernel, bias):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.standard_normal(80) > 0).astype(int)
    model = GeometricMarginSVC(kernel=kernel, gamma=0.5, coef0=1.0, bias=bias, max_iter=3)
    model.fit(X, y)
    ref = SVC(kernel=kernel, degree=2, gamma=0.5, coef0=1.0).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-6)
    assert model.converged_ and model.n_iter_ == 1


def test_scalings_match_explicit_restricted_norms(missing_data):
    X, y = missing_data
    model = GeometricMarginSVC(max_iter=2, C=0.5).fit(X, y)
    it = model.iterates_[0][-1]
    w = model.X_fit_[it.support].T @ it.coef
    M = ~np.isnan(X)
    explicit = np.sqrt((M * w**2).sum(axis=1)) / np.linalg.norm(w)
    # the decision function divides by exactly these scalings (Eq. 7, s_new)
    raw = np.where(M, X, 0.0) @ w + it.intercept
    np.testing.assert_allclose(model.decision_function(X), raw / explicit, rtol=1e-8)


def test_unscaled_bias_is_svc_on_scaled_kernel():
    X, y = make_structurally_missing(60, n_blocks=2, block_size=2, random_state=1)
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    K = X0 @ X0.T
    s = np.random.default_rng(0).uniform(0.5, 1.0, 60)
    sup, coef, b = _svm_step(K, y.astype(float), s, 1.0, "unscaled", 1e-6)
    ref = SVC(kernel="precomputed", C=1.0, tol=1e-6).fit(K / np.outer(s, s), y)
    np.testing.assert_allclose(K[:, sup] @ coef / s + b,
                               ref.decision_function(K / np.outer(s, s)), atol=1e-6)


def test_scaled_bias_solves_eq6_for_fixed_scalings():
    cp = pytest.importorskip("cvxpy")
    X, y = make_structurally_missing(60, n_blocks=2, block_size=2, noise_std=0.5,
                                     random_state=2)
    y = y.astype(float)
    X0 = np.nan_to_num(X)
    K = X0 @ X0.T
    s = np.random.default_rng(1).uniform(0.4, 1.0, 60)
    C = 1.0
    sup, coef, b = _svm_step(K, y, s, C, "scaled", 1e-8)
    w_svc = X0[sup].T @ coef
    # Eq. (6) for fixed s, solved as a QP
    w, bb, xi = cp.Variable(X0.shape[1]), cp.Variable(), cp.Variable(60)
    cons = [cp.multiply(y / s, X0 @ w + bb) >= 1 - xi, xi >= 0]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), cons)
    prob.solve(solver=cp.CLARABEL)

    def objective(w_, b_):
        return 0.5 * w_ @ w_ + C * np.maximum(0, 1 - y / s * (X0 @ w_ + b_)).sum()

    assert objective(w_svc, b) <= prob.value * (1 + 2e-3)
    np.testing.assert_allclose(w_svc, w.value, atol=5e-2 * np.linalg.norm(w.value))


def test_objective_history_and_early_stopping(missing_data):
    X, y = missing_data
    model = GeometricMarginSVC(max_iter=4, early_stopping=True, random_state=0).fit(X, y)
    assert model.objective_history_.shape == (model.n_iter_,)
    assert 1 <= model.n_iter_ <= 5
    errors = model.validation_errors_
    assert errors.shape == (model.n_iter_,)
    assert model.best_iteration_ == int(np.argmin(errors))
    # the first update improves on the zero-filled SVM's objective (as in the paper)
    assert model.objective_history_[1] <= model.objective_history_[0]


def test_multiclass_one_vs_rest_and_sklearn_tools():
    X, y = make_structurally_missing(150, n_blocks=2, block_size=2, random_state=3)
    rng = np.random.default_rng(0)
    y3 = np.where(y > 0, "a", np.where(rng.random(150) < 0.5, "b", "c"))
    model = GeometricMarginSVC(max_iter=1).fit(X, y3)
    assert model.decision_function(X).shape == (150, 3)
    assert set(model.predict(X)) <= {"a", "b", "c"}
    assert model.objective_history_.shape[0] == 3
    pipe = make_pipeline(StandardScaler(), GeometricMarginSVC(max_iter=1))
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.5
    grid = GridSearchCV(GeometricMarginSVC(max_iter=1), {"C": [0.1, 1.0]}, cv=2).fit(X, y)
    assert grid.best_params_["C"] in (0.1, 1.0)


def test_input_not_modified_and_nan_accepted(missing_data):
    X, y = missing_data
    X_copy = X.copy()
    GeometricMarginSVC(kernel="poly", max_iter=1).fit(X, y).predict(X)
    np.testing.assert_array_equal(np.isnan(X), np.isnan(X_copy))
    np.testing.assert_array_equal(np.nan_to_num(X), np.nan_to_num(X_copy))


def test_callable_kernel_matches_linear(missing_data):
    X, y = missing_data
    a = GeometricMarginSVC(max_iter=2).fit(X, y).decision_function(X)
    b = GeometricMarginSVC(max_iter=2, kernel=lambda A, MA, B, MB: A @ B.T).fit(X, y)
    np.testing.assert_allclose(b.decision_function(X), a, atol=1e-3)  # libsvm tol


@pytest.mark.parametrize("params, name", [
    ({"C": 0.0}, "C"), ({"kernel": "rbf"}, "kernel"), ({"degree": 0}, "degree"),
    ({"gamma": -1.0}, "gamma"), ({"max_iter": -1}, "max_iter"), ({"bias": "x"}, "bias"),
    ({"validation_fraction": 1.0}, "validation_fraction"), ({"tol": -1.0}, "tol"),
    ({"early_stopping": "yes"}, "early_stopping"),
])
def test_bad_parameters_name_the_parameter(missing_data, params, name):
    X, y = missing_data
    with pytest.raises(ValueError, match=name):
        GeometricMarginSVC(**params).fit(X, y)
