"""RobustLogisticRegression (RoLR, Feng et al. 2014) and its solvers."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf.datasets import make_contaminated_logistic
from robustclf.linear._rolr_solvers import (
    _project_sort,
    project_capped_simplex,
    solve_dual,
    solve_socp,
    trimmed_sum,
)
from robustclf.linear.rolr import RobustLogisticRegression


def _cosine(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _matched_outliers(n, p, ratio, seed, scale=1.0):
    """Outliers labelled against beta* with norms like the inliers' (they pass any threshold)."""
    X, y, beta, out = make_contaminated_logistic(n, p, outlier_ratio=ratio, random_state=seed)
    X[out] *= scale * math.sqrt(p) / np.linalg.norm(X[out], axis=1, keepdims=True)
    return X, y, beta, out


# --- the capped-simplex projection ---------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.data())
def test_projection_is_feasible_and_matches_sort_rule(N, data):
    v = np.array(data.draw(st.lists(st.floats(-5, 5), min_size=N, max_size=N)))
    n = data.draw(st.integers(1, N - 1))
    t, tau = project_capped_simplex(v, n)
    assert t.sum() == pytest.approx(n, abs=1e-9)
    assert np.all(t >= 0) and np.all(t <= 1)
    ref = np.clip(v - _project_sort(v, n), 0, 1)
    np.testing.assert_allclose(t, ref, atol=1e-9)


def test_projection_is_the_closest_feasible_point():
    rng = np.random.default_rng(0)
    v = rng.normal(size=50) * 2
    t, _ = project_capped_simplex(v, 17)
    for _ in range(200):      # any feasible point along a feasible direction is farther
        d = rng.normal(size=50)
        d -= d.mean()
        s = np.clip(t + 1e-2 * d, 0, 1)
        s += (17 - s.sum()) / 50
        if np.all((s >= 0) & (s <= 1)):
            assert np.sum((v - s) ** 2) >= np.sum((v - t) ** 2) - 1e-12


def test_projection_warm_start_and_edges():
    v = np.random.default_rng(1).normal(size=1000)
    t1, tau = project_capped_simplex(v, 300)
    t2, _ = project_capped_simplex(v + 1e-3, 300, tau0=tau)
    np.testing.assert_allclose(t1, t2, atol=1e-9)
    np.testing.assert_array_equal(project_capped_simplex(v, 1000)[0], np.ones(1000))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40), st.data())
def test_trimmed_sum_is_sum_of_smallest(z, data):
    n = data.draw(st.integers(1, len(z)))
    assert trimmed_sum(np.array(z), n) == pytest.approx(sum(sorted(z)[:n]), abs=1e-6)


# --- the dual solver -----------------------------------------------------------------------

@pytest.mark.parametrize("intercept", [None, 1.0])
def test_dual_gap_certifies_objective(intercept):
    X, y, _, _ = make_contaminated_logistic(400, 8, random_state=3)
    res = solve_dual(X, y, 360, intercept_scaling=intercept, tol=1e-8)
    assert res.converged and not res.collapsed
    assert np.linalg.norm(res.coef) == pytest.approx(1.0)
    margins = y * (X @ res.coef[:8] + (res.coef[-1] * intercept if intercept else 0.0))
    assert res.objective == pytest.approx(trimmed_sum(margins, 360))
    assert res.objective <= res.dual_objective
    assert res.dual_objective - res.objective <= 1e-8 * res.dual_objective


def test_dual_sparse_equals_dense():
    X, y, _, _ = make_contaminated_logistic(300, 10, outlier_ratio=0.1, outlier_scale=1.0,
                                            random_state=4)
    X[np.abs(X) < 0.7] = 0.0
    dense = solve_dual(X, y, 300, intercept_scaling=1.0)
    sparse = solve_dual(sp.csr_matrix(X), y, 300, intercept_scaling=1.0)
    assert _cosine(dense.coef, sparse.coef) > 1 - 1e-9


def test_dual_collapses_when_outliers_dominate():
    X, y, _, _ = make_contaminated_logistic(300, 5, outlier_ratio=0.5, random_state=5)
    res = solve_dual(X, y, 300)
    assert res.collapsed and np.all(res.coef == 0)


# --- the SOCP reference (optional extra) -------------------------------------------------

@pytest.mark.parametrize("ratio, scale, intercept", [
    (0.0, 10.0, None), (0.0, 10.0, 1.0), (0.3, 1.0, None), (0.1, 10.0, 1.0)])
def test_dual_agrees_with_socp(ratio, scale, intercept):
    pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    X, y, _, _ = _matched_outliers(300, 6, ratio, 6, scale) if ratio else \
        make_contaminated_logistic(300, 6, random_state=6)
    n = 270 if ratio == 0 else 300
    dual = solve_dual(X, y, n, intercept_scaling=intercept)
    ref = solve_socp(X, y, n, intercept_scaling=intercept)
    assert dual.collapsed == ref.collapsed
    if not ref.collapsed:
        assert _cosine(dual.coef, ref.coef) >= 0.9999
        assert ref.dual_objective == pytest.approx(dual.dual_objective, rel=1e-5)


def test_eq3_with_nonnegative_nu_collapses():
    """Eq. (3) as printed (nu >= 0, i.e. sum t <= n) returns beta = 0; nu free gives Eq. (2)."""
    pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    X, y, beta, _ = make_contaminated_logistic(300, 5, random_state=7)
    printed = solve_socp(X, y, 270, nu_nonnegative=True)
    fixed = solve_socp(X, y, 270)
    assert printed.collapsed and printed.dual_objective == pytest.approx(0.0, abs=1e-6)
    assert fixed.objective > 50 and _cosine(fixed.coef, beta) > 0.9


# --- the estimator -------------------------------------------------------------------------

def test_recovers_direction_on_clean_data():
    X, y, beta, _ = make_contaminated_logistic(2000, 10, task="regression", random_state=8)
    clf = RobustLogisticRegression(n_outliers=0, fit_intercept=False).fit(X, y)
    assert np.linalg.norm(clf.coef_) == pytest.approx(1.0)
    assert np.linalg.norm(clf.coef_.ravel() - beta) < 0.2
    assert 0.5 < clf.scale_[0] < 1.5     # logistic slope of a unit beta*, attenuated by noise
    assert clf.inlier_mask_.sum() == 2000


def test_paper_threshold_and_robustness_to_large_outliers():
    X, y, beta, out = make_contaminated_logistic(1000, 20, outlier_ratio=0.5, random_state=9)
    clf = RobustLogisticRegression(n_outliers=500, threshold="paper", fit_intercept=False)
    clf.fit(X, y)
    assert clf.threshold_ == pytest.approx(4 * math.sqrt(math.log(20) + math.log(1000)))
    assert not clf.inlier_mask_[out].any()
    lr = LogisticRegression().fit(X, y).coef_.ravel()
    err_rolr = np.linalg.norm(clf.coef_.ravel() - beta)
    assert err_rolr < 0.3 < np.linalg.norm(lr / np.linalg.norm(lr) - beta)


def test_collapse_warns_and_predicts_constant():
    X, y, _, _ = make_contaminated_logistic(300, 5, outlier_ratio=0.5, random_state=10)
    with pytest.warns(UserWarning, match="collapsed to beta = 0"):
        clf = RobustLogisticRegression(n_outliers=150, fit_intercept=False).fit(X, y)
    assert np.all(clf.coef_ == 0)
    assert np.unique(clf.predict(X)).size == 1
    np.testing.assert_allclose(clf.predict_proba(X), 0.5)


def test_convergence_warning_at_max_iter():
    X, y, _, _ = make_contaminated_logistic(200, 5, random_state=11)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        clf = RobustLogisticRegression(outlier_fraction=0.2, max_iter=2).fit(X, y)
    assert clf.n_iter_[0] == 2


def test_threshold_removing_authentic_rows_warns_and_all_rows_raises():
    X, y, _, _ = make_contaminated_logistic(200, 5, random_state=12)
    with pytest.warns(UserWarning, match="more than the n_outliers"):
        RobustLogisticRegression(n_outliers=5, threshold=2.0).fit(X, y)
    with pytest.raises(ValueError, match="removes every row"):
        RobustLogisticRegression(threshold=1e-3).fit(X, y)


@pytest.mark.parametrize("params, match", [
    ({"n_outliers": 3, "outlier_fraction": 0.1}, "at most one of n_outliers"),
    ({"n_outliers": -1}, "n_outliers"),
    ({"n_outliers": 100}, "n_outliers must be less than"),
    ({"outlier_fraction": 1.0}, "outlier_fraction must be < 1"),
    ({"outlier_fraction": 1.5}, "outlier_fraction"),
    ({"threshold": "auto"}, "threshold"),
    ({"threshold": -1.0}, "threshold"),
    ({"solver": "lp"}, "solver"),
    ({"tol": 0.0}, "tol"),
    ({"max_iter": 0}, "max_iter"),
    ({"fit_intercept": "yes"}, "fit_intercept"),
    ({"intercept_scaling": 0.0}, "intercept_scaling"),
])
def test_bad_parameters_raise_value_error_naming_them(params, match):
    X, y, _, _ = make_contaminated_logistic(100, 3, random_state=13)
    with pytest.raises(ValueError, match=match):
        RobustLogisticRegression(**params).fit(X, y)


def test_input_not_modified_and_sparse_matches_dense():
    X, y, _, _ = make_contaminated_logistic(300, 6, random_state=14)
    X[np.abs(X) < 0.5] = 0
    X0, y0 = X.copy(), y.copy()
    dense = RobustLogisticRegression(fit_intercept=False).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    sparse = RobustLogisticRegression(fit_intercept=False).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-5)


def test_multiclass_one_vs_rest_and_string_labels():
    rng = np.random.default_rng(15)
    centers = np.array([[3, 0], [-3, 0], [0, 3]])
    labels = rng.integers(0, 3, 300)
    X = centers[labels] + rng.normal(size=(300, 2))
    y = np.array(["a", "b", "c"])[labels]
    clf = RobustLogisticRegression(outlier_fraction=0.05).fit(X, y)
    assert clf.coef_.shape == (3, 2) and clf.inlier_mask_.shape == (3, 300)
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_works_in_pipeline_grid_search_and_cross_validation():
    X, y, _, _ = make_contaminated_logistic(300, 5, random_state=16)
    pipe = make_pipeline(StandardScaler(), RobustLogisticRegression())
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.8
    grid = GridSearchCV(RobustLogisticRegression(),
                        {"outlier_fraction": [0.0, 0.1]}, cv=3).fit(X, y)
    assert grid.best_score_ > 0.8


def test_socp_solver_option_matches_dual():
    pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    X, y, _, _ = make_contaminated_logistic(200, 4, random_state=17)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dual = RobustLogisticRegression().fit(X, y)
        socp = RobustLogisticRegression(solver="socp").fit(X, y)
    assert _cosine(np.append(dual.coef_, dual.intercept_),
                   np.append(socp.coef_, socp.intercept_)) > 0.9999
