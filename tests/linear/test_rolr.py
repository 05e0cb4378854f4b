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

from robustclf._oracles.rolr import fit_offset_scipy, sparse_text_like
from robustclf.datasets import make_contaminated_logistic
from robustclf.linear._rolr_solvers import (
    _Design,
    _project_sort,
    column_medians,
    project_capped_simplex,
    solve_dual,
    solve_socp,
    trimmed_sum,
)
from robustclf.linear.rolr import RobustLogisticRegression, fit_offset


def _unit(coef):
    coef = np.ravel(coef)
    return coef / np.linalg.norm(coef)


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
    dual = solve_dual(X, y, n, intercept_scaling=intercept, max_iter=50_000)
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
    assert np.linalg.norm(clf.coef_) * clf.x_scale_ == pytest.approx(1.0)
    assert np.linalg.norm(_unit(clf.coef_) - beta) < 0.2
    # logistic slope of a unit beta*, attenuated by noise, on rows scaled by x_scale_
    assert 0.5 < clf.scale_[0] / clf.x_scale_ < 1.5
    assert clf.inlier_mask_.sum() == 2000


def test_paper_threshold_and_robustness_to_large_outliers():
    X, y, beta, out = make_contaminated_logistic(1000, 20, outlier_ratio=0.5, random_state=9)
    clf = RobustLogisticRegression(n_outliers=500, threshold="paper", fit_intercept=False)
    clf.fit(X, y)
    assert clf.threshold_ == pytest.approx(4 * math.sqrt(math.log(20) + math.log(1000)))
    assert not clf.inlier_mask_[out].any()
    lr = LogisticRegression().fit(X, y).coef_.ravel()
    err_rolr = np.linalg.norm(_unit(clf.coef_) - beta)
    assert err_rolr < 0.3 < np.linalg.norm(lr / np.linalg.norm(lr) - beta)


def test_collapse_warns_and_predicts_the_majority_class():
    X, y, _, _ = make_contaminated_logistic(300, 5, outlier_ratio=0.5, random_state=10)
    y = np.where(y > 0, "b", "a")
    y[:40] = "b"                     # "b" (classes_[1]) is the majority class
    with pytest.warns(UserWarning, match="collapsed to beta = 0"):
        clf = RobustLogisticRegression(n_outliers=150, fit_intercept=False,
                                       threshold=None).fit(X, y)
    assert np.all(clf.coef_ == 0)
    # certified: the dual bound is tiny against the largest possible trimmed sum
    assert clf.dual_objective_[0] <= clf.tol * 300 * 10
    majority = "b" if np.sum(y == "b") > np.sum(y == "a") else "a"
    assert majority == "b" == clf.classes_[1]
    np.testing.assert_array_equal(clf.predict(X), np.full(450, majority))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], np.mean(y == "b"), atol=1e-3)


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
    ({"threshold": "median"}, "threshold"),
    ({"threshold": -1.0}, "threshold"),
    ({"solver": "lp"}, "solver"),
    ({"tol": 0.0}, "tol"),
    ({"max_iter": 0}, "max_iter"),
    ({"fit_intercept": "yes"}, "fit_intercept"),
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


# --- issue 14: step size, certificates, equivariance, defaults --------------------------------

def _explicit_design(X, y, center=None, scale=1.0, c=None):
    Z = (X.toarray() if sp.issparse(X) else X) - (0.0 if center is None else center)
    Z = Z / scale
    if c is not None:
        Z = np.column_stack([Z, np.full(Z.shape[0], c)])
    return Z * y[:, None]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shape", [(300, 40), (60, 250)])      # A^T A and A A^T sides
def test_lipschitz_is_the_spectral_norm_of_a_not_of_x_diag_y_x(sparse, shape):
    rng = np.random.default_rng(20)
    X = np.abs(rng.standard_normal(shape)) * (rng.random(shape) < 0.3)   # non-negative
    y = np.where(rng.random(shape[0]) < 0.5, 1.0, -1.0)
    center, scale = np.median(X, axis=0) + 0.1, 2.5
    Xin = sp.csr_matrix(X) if sparse else X
    design = _Design(Xin, y, 0.7, center, scale)
    A = _explicit_design(X, y, center, scale, 0.7)
    exact = np.linalg.norm(A, 2) ** 2
    # lipschitz() is Lanczos's lambda_max times (1 + 1e-6), a safety margin for the step size:
    # within 1e-6 above the exact value, plus Lanczos's own accuracy
    assert design.lipschitz() == pytest.approx(exact, rel=2e-6)
    assert design.lipschitz() >= exact * (1 - 1e-9)
    # the old bug: lambda_max(X^T diag(y) X) is far smaller for non-negative features
    wrong = np.max(np.abs(np.linalg.eigvalsh(A.T @ (y[:, None] * A))))
    assert wrong < 0.5 * exact


def test_backtracking_repairs_a_low_lipschitz_estimate(monkeypatch):
    X, y, _, _ = make_contaminated_logistic(400, 8, random_state=21)
    ref = solve_dual(X, y, 360, intercept_scaling=1.0, tol=1e-9)
    monkeypatch.setattr(_Design, "lipschitz", lambda self: 1e-3)
    low = solve_dual(X, y, 360, intercept_scaling=1.0, tol=1e-9)
    assert low.converged and not low.collapsed
    assert _cosine(low.coef, ref.coef) > 1 - 1e-8
    assert low.objective == pytest.approx(ref.objective, rel=1e-8)


def test_gap_bounds_the_cosine_to_the_optimum():
    """1 - cos(beta, beta*) <= relative gap: a loose tol still certifies the direction."""
    X, y, _, _ = make_contaminated_logistic(500, 12, outlier_ratio=0.1, outlier_scale=1.0,
                                            random_state=22)
    tight = solve_dual(X, y, 500, tol=1e-11)
    for tol in (1e-2, 1e-4):
        loose = solve_dual(X, y, 500, tol=tol)
        gap = (loose.dual_objective - loose.objective) / loose.dual_objective
        assert gap <= tol
        assert 1 - _cosine(loose.coef, tight.coef) <= gap + 1e-10


def _nonnegative_logistic(n, n_outliers, p, seed):
    """Issue 14's design: |N(0, 1)| features, logistic labels, outliers labelled against beta*."""
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(p)
    beta /= np.linalg.norm(beta)
    X = np.abs(rng.standard_normal((n + n_outliers, p)))
    score = 3.0 * (X - math.sqrt(2 / math.pi)) @ beta
    y = np.where(rng.random(n + n_outliers) < 1 / (1 + np.exp(-score)), 1, -1)
    y[n:] = -np.sign(score[n:]).astype(int)
    return X, y


def test_high_dimensional_nonnegative_features_reach_the_optimum():
    """p = 2,100 > 2,000 (where the old code used X^T diag(y) X): no warning, certified."""
    X, y = _nonnegative_logistic(540, 60, 2100, seed=23)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = RobustLogisticRegression(n_outliers=60, fit_intercept=False).fit(X, y)
    assert clf.n_iter_[0] < clf.max_iter
    gap = (clf.dual_objective_ - clf.objective_) / clf.dual_objective_
    assert 0 <= gap[0] <= clf.tol
    A = _explicit_design(X, y, None, clf.x_scale_)
    # the reported objective is the trimmed sum of the returned unit direction
    unit = _unit(clf.coef_)
    assert trimmed_sum(A @ unit, 540) == pytest.approx(clf.objective_[0], rel=1e-9)


def test_collapse_needs_a_certificate_not_max_iter():
    """Stopped by max_iter on a problem whose optimum is not 0: a direction, not a constant."""
    X, y, _, _ = make_contaminated_logistic(300, 5, random_state=24)
    with pytest.warns(ConvergenceWarning, match="relative duality gap"):
        clf = RobustLogisticRegression(outlier_fraction=0.1, max_iter=3).fit(X, y)
    assert np.linalg.norm(clf.coef_) > 0
    res = solve_dual(X, y, 270, max_iter=1)
    assert not res.converged and not res.collapsed and np.linalg.norm(res.coef) > 0


def test_inlier_mask_is_the_trimmed_set():
    X, y, beta, out = make_contaminated_logistic(400, 6, outlier_ratio=0.1, outlier_scale=1.0,
                                                 random_state=25)
    X[5] *= 50                                   # a far authentic row: removed by threshold
    clf = RobustLogisticRegression(n_outliers=40).fit(X, y)
    kept = np.linalg.norm(X - np.median(X, axis=0), axis=1) < clf.threshold_
    assert not kept[5] and not clf.inlier_mask_[5]
    n_trim = min(440 - 40, kept.sum())
    assert clf.inlier_mask_.sum() == n_trim
    # the correlations of Eq. (2): the direction on the centred rows, without the offset
    center = np.median(X[kept], axis=0)
    margins = np.where(y > 0, 1, -1) * ((X - center) @ clf.coef_.ravel())
    # every row in the mask has a correlation no larger than every kept row outside it
    inside, outside = clf.inlier_mask_, kept & ~clf.inlier_mask_
    assert margins[inside].max() <= margins[outside].min() + 1e-12
    assert not (clf.inlier_mask_ & ~kept).any()


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_scaling_x_scales_only_the_coefficients(sparse, fit_intercept):
    X, y, _, _ = make_contaminated_logistic(300, 6, outlier_ratio=0.1, random_state=26)
    X[:, 0] += 3.0                               # an offset the intercept must absorb
    X[np.abs(X) < 0.4] = 0.0
    models = []
    for s in (1.0, 1e3, 1e-3):
        Xs = sp.csr_matrix(X * s) if sparse else X * s
        models.append((s, RobustLogisticRegression(fit_intercept=fit_intercept).fit(Xs, y), Xs))
    _, base, Xb = models[0]
    for s, clf, Xs in models[1:]:
        np.testing.assert_allclose(clf.coef_ * s, base.coef_, rtol=1e-5, atol=1e-9)
        np.testing.assert_allclose(clf.intercept_, base.intercept_, rtol=1e-5, atol=1e-9)
        np.testing.assert_allclose(clf.scale_, base.scale_, rtol=1e-5)
        np.testing.assert_allclose(clf.objective_, base.objective_, rtol=1e-9)
        np.testing.assert_array_equal(clf.inlier_mask_, base.inlier_mask_)
        np.testing.assert_array_equal(clf.predict(Xs), base.predict(Xb))
        np.testing.assert_allclose(clf.predict_proba(Xs), base.predict_proba(Xb), atol=1e-6)


def test_dense_and_sparse_give_the_same_model_with_intercept():
    rng = np.random.default_rng(27)
    X, y, _, _ = make_contaminated_logistic(400, 8, outlier_ratio=0.1, random_state=27)
    X[rng.random(X.shape) < 0.3] = 0.0
    X[:, :3] = np.abs(X[:, :3]) + 1.0            # dense columns: non-zero medians
    X[:5] *= 20                                   # rows the threshold removes
    dense = RobustLogisticRegression(n_outliers=60).fit(X, y)
    sparse = RobustLogisticRegression(n_outliers=60).fit(sp.csr_matrix(X), y)
    assert np.any(np.median(X, axis=0) != 0)
    assert sparse.threshold_ == pytest.approx(dense.threshold_, rel=1e-12)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(sparse.inlier_mask_, dense.inlier_mask_)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 9), st.integers(1, 6), st.floats(0.0, 1.0), st.data())
def test_sparse_column_medians_match_numpy(N, p, density, data):
    seed = data.draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(N, p)).astype(float) * (rng.random((N, p)) < density)
    np.testing.assert_array_equal(column_medians(sp.csr_matrix(X)), np.median(X, axis=0))


def test_auto_threshold_is_three_median_norms():
    X, y, _, _ = make_contaminated_logistic(200, 5, random_state=28)
    clf = RobustLogisticRegression().fit(X, y)
    norms = np.linalg.norm(X - np.median(X, axis=0), axis=1)
    assert clf.threshold_ == pytest.approx(3 * np.median(norms))
    # more than half of the rows empty: the median norm is 0, the mean is used
    Xs = sp.csr_matrix(np.vstack([X[:80], np.zeros((120, 5))]))
    with pytest.warns(UserWarning, match="more than the n_outliers"):
        clf = RobustLogisticRegression(fit_intercept=False).fit(Xs, y)
    assert clf.threshold_ == pytest.approx(3 * np.linalg.norm(X[:80], axis=1).sum() / 200)
    assert clf.inlier_mask_[80:].all()


@pytest.mark.parametrize("n_outliers", [200, None])
def test_default_threshold_does_not_collapse_on_the_papers_simulation(n_outliers):
    """§6: n = 1,000, p = 20, outliers uniform in [-10, 10]^p against beta*, lambda = 0.2."""
    X, y, beta, out = make_contaminated_logistic(1000, 20, outlier_ratio=0.2, random_state=29)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # "more rows than n_outliers"
        warnings.simplefilter("error", ConvergenceWarning)
        clf = RobustLogisticRegression(n_outliers=n_outliers, fit_intercept=False).fit(X, y)
        bare = RobustLogisticRegression(n_outliers=200, threshold=None,
                                        fit_intercept=False).fit(X, y)
    assert np.linalg.norm(clf.coef_) > 0
    assert not clf.inlier_mask_[out].any()                  # every outlier removed
    assert clf.inlier_mask_[~out].sum() >= 1000 - 200       # no authentic row removed
    assert np.linalg.norm(_unit(clf.coef_) - beta) < 0.3
    assert np.all(bare.coef_ == 0)                          # without preprocessing: collapse


def test_sparse_text_like_data_fit_a_non_constant_model():
    X, y = sparse_text_like(6_000, 1_500, seed=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = RobustLogisticRegression().fit(X[:5_000], y[:5_000])
    assert np.linalg.norm(clf.coef_) > 0
    assert np.unique(clf.predict(X[5_000:])).size == 2
    majority = max(np.mean(y[5_000:] == 1), np.mean(y[5_000:] == -1))
    assert clf.score(X[5_000:], y[5_000:]) > majority + 0.05


# --- the intercept: Eq. (2) for the direction, a logistic fit for slope and offset ---------

def _offset_reference(t, y):
    """``fit_offset``'s problem by scipy's L-BFGS-B at tight tolerance (independent)."""
    a, b, gradient = fit_offset_scipy(t, y)
    assert gradient <= 1e-8 * t.size
    return np.array([a, b])


@pytest.mark.parametrize("case", ["overlap", "separable", "reversed", "one_class"])
def test_offset_fit_matches_scipy(case):
    rng = np.random.default_rng(40)
    t = rng.normal(size=500)
    y = np.where(t + 0.3 + 0.8 * rng.normal(size=500) > 0, 1.0, -1.0)
    if case == "separable":
        y = np.where(t > 0.2, 1.0, -1.0)
    elif case == "reversed":                      # constrained: slope 0, offset = log-odds
        y = -y
    elif case == "one_class":
        y = np.ones(500)
    fit = fit_offset(t, y)
    assert fit.converged and fit.gradient <= 1e-10 and fit.n_iter < 100
    ref = _offset_reference(t, y)
    np.testing.assert_allclose([fit.slope, fit.offset], ref, rtol=1e-5, atol=1e-6)
    assert fit.slope >= 0
    if case == "reversed":
        assert fit.slope == 0.0
        positive = np.mean(y > 0)
        assert fit.offset == pytest.approx(math.log(positive / (1 - positive)), rel=1e-3)
    if case in ("separable", "one_class"):
        assert np.isfinite(fit.offset) and np.isfinite(fit.slope)


def test_intercept_is_the_threshold_not_the_class_imbalance():
    """Spambase-like: 25 % positives; the old constant column predicted the majority class."""
    rng = np.random.default_rng(41)
    beta = _unit(rng.normal(size=10))
    X = rng.normal(size=(4000, 10)) + 2.0                  # an offset the intercept absorbs
    score = 3.0 * (X - 2.0) @ beta - 2.0                   # threshold away from the median
    y = np.where(rng.random(4000) < 1 / (1 + np.exp(-score)), 1, -1)
    assert 0.15 < np.mean(y > 0) < 0.35
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = RobustLogisticRegression().fit(X[:3000], y[:3000])
    bayes = np.mean(np.where(score[3000:] > 0, 1, -1) != y[3000:])
    error = np.mean(clf.predict(X[3000:]) != y[3000:])
    majority = np.mean(y[3000:] > 0)
    assert error < bayes + 0.02 < majority
    # decision_function is the fitted log-odds a <beta_hat, z> + b
    assert _cosine(clf.coef_.ravel(), beta) > 0.95
    assert clf.scale_[0] == 1.0
    np.testing.assert_allclose(np.linalg.norm(clf.coef_), 3.0, rtol=0.15)       # raw units
    center = np.median(X[:3000], axis=0)
    np.testing.assert_allclose(clf.intercept_[0] + clf.coef_.ravel() @ center,
                               -2.0 + 3.0 * beta @ (center - 2.0), atol=0.3)


def test_intercept_offset_is_the_logistic_fit_on_the_projections():
    X, y, _, _ = make_contaminated_logistic(400, 6, outlier_ratio=0.1, random_state=42)
    X += 1.5
    clf = RobustLogisticRegression(n_outliers=40).fit(X, y)
    kept = np.linalg.norm(X - np.median(X, axis=0), axis=1) < clf.threshold_
    center = np.median(X[kept], axis=0)
    ref = solve_dual(X[kept], y[kept], min(400, kept.sum()), center=center,
                     scale=clf.x_scale_, tol=1e-10)
    t = ((X[kept] - center) / clf.x_scale_) @ ref.coef
    a, b = _offset_reference(t, y[kept].astype(float))
    np.testing.assert_allclose(clf.coef_.ravel(), a * ref.coef / clf.x_scale_, rtol=1e-4)
    np.testing.assert_allclose(clf.intercept_[0], b - a * ref.coef / clf.x_scale_ @ center,
                               rtol=1e-4)
    assert clf.objective_[0] == pytest.approx(ref.objective, rel=1e-6)


def test_collapse_with_intercept_predicts_the_majority_class():
    X, y, _, _ = make_contaminated_logistic(300, 5, outlier_ratio=0.5, random_state=10)
    y[:40] = 1                                     # +1 is the majority class
    with pytest.warns(UserWarning, match="collapsed to beta = 0"):
        clf = RobustLogisticRegression(n_outliers=150, threshold=None).fit(X, y)
    assert np.all(clf.coef_ == 0)
    np.testing.assert_array_equal(clf.predict(X), np.ones(450))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], np.mean(y > 0), atol=1e-3)


def test_multiclass_offsets_are_per_class_log_odds():
    """Unequal class sizes: each one-vs-rest column has its own (a, b), argmax agrees."""
    rng = np.random.default_rng(43)
    centers = np.array([[3, 0], [-3, 0], [0, 3], [0, -3]])
    labels = rng.choice(4, 800, p=[0.55, 0.25, 0.15, 0.05])
    X = centers[labels] + 1.2 * rng.normal(size=(800, 2)) + 10.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = RobustLogisticRegression(outlier_fraction=0.05).fit(X[:600], labels[:600])
    assert clf.coef_.shape == (4, 2)
    np.testing.assert_array_equal(clf.scale_, np.ones(4))
    assert clf.score(X[600:], labels[600:]) > 0.85       # multinomial LR: 0.93
    proba = clf.predict_proba(X[600:])
    np.testing.assert_array_equal(proba.argmax(axis=1), clf.predict(X[600:]))
    # the mean fitted probability of each one-vs-rest column is close to its class frequency
    ovr = 1 / (1 + np.exp(-clf.decision_function(X[:600])))
    np.testing.assert_allclose(ovr.mean(axis=0), np.bincount(labels[:600]) / 600, atol=0.02)


def test_intercept_scaling_is_deprecated_and_ignored():
    X, y, _, _ = make_contaminated_logistic(200, 4, random_state=44)
    base = RobustLogisticRegression().fit(X, y)
    with pytest.warns(DeprecationWarning, match="intercept_scaling is deprecated.*Remove") as rec:
        old = RobustLogisticRegression(intercept_scaling=5.0).fit(X, y)
    assert rec[0].filename == __file__                      # points at the caller
    np.testing.assert_array_equal(old.coef_, base.coef_)
    np.testing.assert_array_equal(old.intercept_, base.intercept_)
    assert RobustLogisticRegression().get_params()["intercept_scaling"] == "deprecated"


def test_offset_fit_that_stops_early_raises_convergence_warning(monkeypatch):
    import robustclf.linear._rolr_offset as offset
    import robustclf.linear.rolr as rolr

    X, y, _, _ = make_contaminated_logistic(300, 4, random_state=45)
    monkeypatch.setattr(offset, "_OFFSET_MAX_ITER", 1)
    with pytest.warns(ConvergenceWarning, match="offset fit"):
        RobustLogisticRegression().fit(X, y)
    fit = rolr.fit_offset(X[:, 0], y)
    assert not fit.converged and fit.gradient > 1e-10


def test_zero_slope_warns_and_predicts_the_majority_class(monkeypatch):
    """A direction the labels do not follow (slope 0 at the bound): constant, with a warning."""
    import robustclf.linear.rolr as rolr

    X, y, _, _ = make_contaminated_logistic(300, 4, random_state=46)
    y[:60] = -1
    monkeypatch.setattr(rolr, "fit_offset", lambda t, yk: rolr.OffsetFit(0.0, -0.5, 0.0, 1, True))
    with pytest.warns(UserWarning, match="slope 0"):
        clf = RobustLogisticRegression().fit(X, y)
    assert np.all(clf.coef_ == 0)
    np.testing.assert_array_equal(clf.predict(X), np.full(300, -1))
