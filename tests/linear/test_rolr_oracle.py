"""RoLR's default fit against independent solves of Eq. (2) (robustclf._oracles.rolr), issue 14.

The oracles re-implement the preprocessing with dense numpy, form the design explicitly and solve
Eq. (3) (nu free) with cvxpy + Clarabel, or the dual with a plain-numpy accelerated gradient; each
returns a certified bracket [P(beta), ||A^T t||] on the optimum. With an intercept (the default)
the oracle also re-fits the second stage, the logistic slope and offset on the projections, with
scipy's L-BFGS-B. The default estimator must be within 1e-6 (relative) of the oracle's certified
value of Eq. (2), predict the held-out rows identically, and agree on the slope and the decision
values to the accuracy of the direction.
"""

import math
import warnings

import numpy as np
import pytest

from robustclf._oracles.rolr import (
    amazon_split,
    certified_bracket,
    design_matrix,
    digits_split,
    issue_instance,
    oracle_fit,
    oracle_predict,
    project_capped_simplex_bisect,
    solve_conic,
    solve_numpy,
    sparse_text_like,
)
from robustclf.datasets import load_spambase, make_contaminated_logistic
from robustclf.linear.rolr import RobustLogisticRegression

needs_conic = pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(m) for m in ("cvxpy", "clarabel")),
    reason="cvxpy and clarabel are needed for the conic oracle")


def _fit_default(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # no ConvergenceWarning, no collapse
        return RobustLogisticRegression(**params).fit(X, y)


def _check_against_oracle(est, oracle, X_test):
    assert np.all(oracle["upper"] - oracle["objective"] <= 1e-8 * oracle["upper"])
    np.testing.assert_array_equal(est.classes_, oracle["classes"])
    rel = (oracle["objective"] - est.objective_) / np.abs(oracle["objective"])
    # the default tol=1e-6 certifies P(coef) >= (1 - 1e-6) P*; allow the rounding of the sums
    assert np.all(rel <= 1e-6 * (1 + 1e-6)), rel
    assert np.all(est.objective_ <= oracle["upper"] * (1 + 1e-12))   # nobody beats the bound
    np.testing.assert_array_equal(est.predict(X_test), oracle_predict(oracle, X_test))
    if est.fit_intercept:
        # stage 2: the oracle's L-BFGS-B offset fit converged; slope and offset agree to the
        # accuracy of the direction (1 - cos <= 1e-6 moves the projections by ~1e-3)
        assert np.all(oracle["offset_gradient"] <= 1e-8 * X_test.shape[0] + 1e-6)
        slope = np.linalg.norm(est.coef_, axis=1) * est.x_scale_
        np.testing.assert_allclose(slope, oracle["slope"], rtol=2e-3, atol=1e-6)
        np.testing.assert_allclose(est.decision_function(X_test).reshape(X_test.shape[0], -1),
                                   np.asarray(X_test @ oracle["coef"].T) + oracle["intercept"],
                                   rtol=0, atol=2e-3 * (1 + np.max(np.abs(oracle["slope"]))))


def test_oracle_projection_and_bracket():
    rng = np.random.default_rng(0)
    v = rng.normal(size=200) * 3
    t = project_capped_simplex_bisect(v, 37)
    assert t.sum() == pytest.approx(37, abs=1e-10) and t.min() >= 0 and t.max() <= 1
    A = rng.normal(size=(200, 5))
    lower, upper = certified_bracket(A, 150, rng.normal(size=5), np.full(200, 0.75))
    assert lower <= upper
    with pytest.raises(ValueError, match="capped simplex"):
        certified_bracket(A, 150, rng.normal(size=5), np.full(200, 0.5))


@needs_conic
def test_the_two_oracles_agree():
    X, y, _, _ = make_contaminated_logistic(300, 6, outlier_ratio=0.1, outlier_scale=1.0,
                                            random_state=1)
    A = design_matrix(X, y, center=np.median(X, axis=0), scale=2.0, intercept_scaling=1.0)
    b1, lo1, up1, _ = solve_conic(A, 300)
    b2, lo2, up2, _ = solve_numpy(A, 300)
    assert max(lo1, lo2) <= min(up1, up2) * (1 + 1e-12)
    assert lo1 == pytest.approx(lo2, rel=1e-8)
    assert float(b1 @ b2) > 1 - 1e-7


@needs_conic
def test_default_fit_matches_oracle_on_digits_10_classes():
    X, y, X_test, _ = digits_split()
    est = _fit_default(X, y)
    oracle = oracle_fit(X, y, method="conic")
    assert est.coef_.shape == (10, 64)
    _check_against_oracle(est, oracle, X_test)


def _spambase():
    try:
        X, y = load_spambase(return_X_y=True)
    except FileNotFoundError as exc:
        pytest.skip(f"spambase is not available (set ROBUSTCLF_DATA): {exc}")
    order = np.random.default_rng(0).permutation(y.size)
    X, y = X[order], y[order]
    X = (X - X.min(axis=0)) / np.maximum(X.max(axis=0) - X.min(axis=0), 1e-12)
    return X[:2000], y[:2000], X[2000:3000], y[2000:3000]


@needs_conic
@pytest.mark.data
def test_default_fit_matches_oracle_on_spambase():
    X, y, X_test, _ = _spambase()
    est = _fit_default(X, y)
    _check_against_oracle(est, oracle_fit(X, y, method="conic"), X_test)


def _amazon():
    try:
        return amazon_split()
    except FileNotFoundError as exc:
        pytest.skip(f"Amazon reviews are not available (set ROBUSTCLF_DATA): {exc}")


@needs_conic
@pytest.mark.data
def test_default_fit_matches_oracle_on_amazon_with_2500_features():
    X, y, X_test, _ = _amazon()
    assert X.shape[1] > 2000
    est = _fit_default(X, y)
    _check_against_oracle(est, oracle_fit(X, y, method="conic"), X_test)


@pytest.mark.slow
def test_issue_instance_2100_nonnegative_features_reaches_the_optimum():
    """Issue 14: 3,300 x 2,100 |N(0, 1)| features, 300 outliers, fit_intercept=False."""
    X, y, _ = issue_instance()
    est = _fit_default(X, y, n_outliers=300, fit_intercept=False)
    oracle = oracle_fit(X, y, n_outliers=300, fit_intercept=False, method="numpy")
    cosine = float(est.coef_.ravel() @ oracle["coef"].ravel()
                   / (np.linalg.norm(est.coef_) * np.linalg.norm(oracle["coef"])))
    assert cosine >= 0.9999
    rel = (oracle["objective"][0] - est.objective_[0]) / oracle["objective"][0]
    assert rel <= 1e-6 * (1 + 1e-6)
    assert est.n_iter_[0] < est.max_iter


@pytest.mark.slow
def test_large_sparse_text_like_problem_fits_a_non_constant_model():
    """180,000 x 20,000 sparse Zipf counts (the issue's "text-like" case)."""
    X, y = sparse_text_like(190_000, 20_000, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = RobustLogisticRegression().fit(X[:180_000], y[:180_000])
    assert np.linalg.norm(est.coef_) > 0
    majority = max(np.mean(y[180_000:] == 1), np.mean(y[180_000:] == -1))
    assert est.score(X[180_000:], y[180_000:]) > majority + 0.05
    assert math.isfinite(est.objective_[0]) and est.objective_[0] > 0
