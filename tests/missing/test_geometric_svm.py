"""GeometricMarginSVC (Chechik et al. 2007, §3, Eq. 5-7)."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
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
    # the fit polishes libsvm's solution to the exact optimum: the reference is solved tightly
    ref = SVC(kernel=kernel, degree=2, gamma=0.5, coef0=1.0, tol=1e-9).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-5)
    assert model.converged_ and model.n_iter_ == 1


def test_scalings_match_explicit_restricted_norms(missing_data):
    X, y = missing_data
    model = GeometricMarginSVC(max_iter=2, C=0.5).fit(X, y)
    previous, it = model.iterates_[0][-2:]
    M = ~np.isnan(X)
    for source, expected in [(it, None), (previous, it.fit_scalings)]:
        w = model.X_fit_[source.support].T @ source.coef
        explicit = np.sqrt((M * w**2).sum(axis=1)) / np.linalg.norm(w)
        if expected is not None:  # the scalings of the solve are those of the previous w
            np.testing.assert_allclose(expected, explicit, rtol=1e-8)
    # the decision function divides by the scalings the iterate was solved with (Eq. 7):
    # those of the previous iterate's w, restricted to each row's valid features
    w = model.X_fit_[it.support].T @ it.coef
    raw = np.where(M, X, 0.0) @ w + it.intercept
    np.testing.assert_allclose(model.decision_function(X), raw / it.fit_scalings, rtol=1e-8)


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


def _eq6_problem(n=60, seed=2):
    X, y = make_structurally_missing(n, n_blocks=2, block_size=2, noise_std=0.5,
                                     random_state=seed)
    X0 = np.nan_to_num(X)
    s = np.random.default_rng(seed).uniform(0.4, 1.0, n)
    return X0, y.astype(float), s


def _eq6_objective(X0, y, s, C, w, b):
    return 0.5 * w @ w + C * np.maximum(0, 1 - y / s * (X0 @ w + b)).sum()


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_scaled_bias_solves_eq6_exactly_for_fixed_scalings(C):
    """The SVR reformulation of Eq. (6) matches Eq. (6) solved as a primal QP (Clarabel)."""
    cp = pytest.importorskip("cvxpy")
    X0, y, s = _eq6_problem()
    sup, coef, b = _svm_step(X0 @ X0.T, y, s, C, "scaled", 1e-10)
    w_svr = X0[sup].T @ coef
    w, bb, xi = cp.Variable(X0.shape[1]), cp.Variable(), cp.Variable(y.size)
    cons = [cp.multiply(y / s, X0 @ w + bb) >= 1 - xi, xi >= 0]
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(xi)), cons)
    prob.solve(solver=cp.CLARABEL)
    assert _eq6_objective(X0, y, s, C, w_svr, b) == pytest.approx(prob.value, rel=1e-6)
    np.testing.assert_allclose(w_svr, w.value, atol=1e-4 * np.linalg.norm(w.value))
    assert b == pytest.approx(float(bb.value), abs=1e-3 * (1 + abs(float(bb.value))))


def test_scaled_bias_matches_the_former_mirrored_formulation():
    """Reference: the former solver (constant feature B/s_i carrying b, mirrored instances)."""
    X0, y, s = _eq6_problem(80, seed=4)
    K, C, n = X0 @ X0.T, 1.0, y.size
    B2 = 10 * np.mean(np.diag(K))  # the former default; its bias penalty b^2 / 2B^2 is tiny
    Ks = (K + B2) / np.outer(s, s)
    svc = SVC(kernel="precomputed", C=C / 2, tol=1e-10).fit(
        np.block([[Ks, -Ks], [-Ks, Ks]]), np.concatenate([y, -y]))
    a = np.zeros(2 * n)
    a[svc.support_] = svc.dual_coef_[0]
    c_ref = (a[:n] - a[n:]) / s
    w_ref, b_ref = X0.T @ c_ref, B2 * c_ref.sum()
    sup, coef, b = _svm_step(K, y, s, C, "scaled", 1e-10)
    w = X0[sup].T @ coef
    ref = _eq6_objective(X0, y, s, C, w_ref, b_ref)
    assert _eq6_objective(X0, y, s, C, w, b) <= ref * (1 + 1e-9)
    assert _eq6_objective(X0, y, s, C, w, b) == pytest.approx(ref, rel=1e-5)
    np.testing.assert_allclose(w, w_ref, atol=1e-4 * np.linalg.norm(w_ref))
    assert b == pytest.approx(b_ref, abs=1e-4)


def test_scaled_bias_raises_a_too_small_svr_epsilon(monkeypatch):
    """A small epsilon lets wrong-sign SVR coefficients appear; the solver must raise it."""
    from robustclf.missing import _signed_qp as gs

    X0, y, s = _eq6_problem(80, seed=4)
    K = X0 @ X0.T
    sup, coef, b = _svm_step(K, y, s, 1.0, "scaled", 1e-10)
    monkeypatch.setattr(gs, "_EPS_START", 1e-3)
    monkeypatch.setattr(gs, "_EPS_GROWTH", 10.0)
    monkeypatch.setattr(gs, "_EPS_TRIES", 8)
    sup2, coef2, b2 = _svm_step(K, y, s, 1.0, "scaled", 1e-10)
    assert np.all(y[sup2] * coef2 > 0)
    np.testing.assert_allclose(X0[sup2].T @ coef2, X0[sup].T @ coef, atol=1e-6)
    assert b2 == pytest.approx(b, abs=1e-6)
    # with one try and that epsilon the answer is not Eq. (6): the retry is what makes it exact
    monkeypatch.setattr(gs, "_EPS_TRIES", 1)
    with pytest.warns(ConvergenceWarning, match="wrong-sign"):
        _svm_step(K, y, s, 1.0, "scaled", 1e-10)


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
def test_clarabel_qp_step_matches_libsvm(bias):
    pytest.importorskip("cvxpy")
    X0, y, s = _eq6_problem(70, seed=5)
    K = X0 @ X0.T
    out = {}
    for solver in ("libsvm", "clarabel"):
        sup, coef, b = _svm_step(K, y, s, 1.0, bias, 1e-10, solver)
        out[solver] = X0[sup].T @ coef, b
    np.testing.assert_allclose(out["clarabel"][0], out["libsvm"][0], atol=1e-5)
    assert out["clarabel"][1] == pytest.approx(out["libsvm"][1], abs=1e-5)


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_clarabel_solver_reduces_to_svc_without_missing_values(kernel):
    """The QP's bias is unpenalised: with s = 1 it is SVC's intercept."""
    pytest.importorskip("cvxpy")
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 3)) + 0.5
    y = (X[:, 0] - X[:, 2] + 0.4 * rng.standard_normal(60) > 0.3).astype(int)
    model = GeometricMarginSVC(kernel=kernel, gamma=0.5, solver="clarabel", max_iter=2)
    model.fit(X, y)
    ref = SVC(kernel=kernel, degree=2, gamma=0.5, coef0=1.0, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-5)
    assert model.iterates_[0][0].intercept == pytest.approx(ref.intercept_[0], abs=1e-5)


def test_clarabel_and_libsvm_estimators_agree_on_missing_data():
    pytest.importorskip("cvxpy")
    X, y = make_structurally_missing(90, n_blocks=3, block_size=2, noise_std=0.3,
                                     random_state=6)
    a = GeometricMarginSVC(max_iter=2).fit(X, y)
    b = GeometricMarginSVC(max_iter=2, solver="clarabel").fit(X, y)
    np.testing.assert_allclose(b.objective_history_, a.objective_history_, rtol=1e-3)
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=1e-2)


def test_objective_history_and_early_stopping(missing_data):
    X, y = missing_data
    model = GeometricMarginSVC(max_iter=4, early_stopping=True, random_state=0).fit(X, y)
    errors = model.validation_errors_
    assert 1 <= errors.shape[0] <= 5
    assert model.best_iteration_ == int(np.argmin(errors))
    # refitted on all rows with max_iter=best_iteration_ (fewer iterates at a fixed point)
    assert 1 <= model.n_iter_ <= model.best_iteration_ + 1
    assert model.objective_history_.shape == (model.n_iter_,)
    assert model.X_fit_.shape == X.shape
    # the first update improves on the zero-filled SVM's objective (as in the paper)
    plain = GeometricMarginSVC(max_iter=4).fit(X, y)
    assert plain.objective_history_[1] <= plain.objective_history_[0]


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
    def linear(A, MA, B, MB):
        return A @ B.T

    # the first iterate is one SVC on (nearly) the same kernel: the same libsvm path
    a = GeometricMarginSVC(max_iter=0).fit(X, y).decision_function(X)
    b = GeometricMarginSVC(max_iter=0, kernel=linear).fit(X, y).decision_function(X)
    np.testing.assert_allclose(b, a, atol=1e-8)
    # later iterates are warm-started from a partition of the rows that rounding in the
    # kernel can change: the two agree to libsvm's tolerance (1e-3 on the KKT conditions)
    a = GeometricMarginSVC(max_iter=2).fit(X, y)
    b = GeometricMarginSVC(max_iter=2, kernel=linear).fit(X, y)
    np.testing.assert_allclose(b.objective_history_, a.objective_history_, rtol=1e-3)
    np.testing.assert_allclose(b.decision_function(X), a.decision_function(X), atol=2e-2)


@pytest.mark.parametrize("params, name", [
    ({"C": 0.0}, "C"), ({"kernel": "rbf"}, "kernel"), ({"degree": 0}, "degree"),
    ({"gamma": -1.0}, "gamma"), ({"max_iter": -1}, "max_iter"), ({"bias": "x"}, "bias"),
    ({"validation_fraction": 1.0}, "validation_fraction"), ({"tol": -1.0}, "tol"),
    ({"early_stopping": "yes"}, "early_stopping"), ({"solver": "cvx"}, "solver"),
])
def test_bad_parameters_name_the_parameter(missing_data, params, name):
    X, y = missing_data
    with pytest.raises(ValueError, match=name):
        GeometricMarginSVC(**params).fit(X, y)


def test_clarabel_inaccuracy_is_reported_once_as_a_convergence_warning(monkeypatch):
    """cvxpy's own "Solution may be inaccurate" UserWarning is not passed on: the status is
    reported once, as a ConvergenceWarning."""
    cp = pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    real = cp.Problem.solve

    def inaccurate(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        self._status = "optimal_inaccurate"
        warnings.warn("Solution may be inaccurate. Try another solver.", UserWarning,
                      stacklevel=2)
        return out

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    X, y = make_structurally_missing(60, n_blocks=2, block_size=2, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GeometricMarginSVC(solver="clarabel", max_iter=0).fit(X, y)
    assert [w.category for w in caught] == [ConvergenceWarning]
