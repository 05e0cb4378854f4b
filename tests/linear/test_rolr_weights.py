"""RoLR with row weights (sample_weight, class_weight) and with absent (NaN) features, issue 16.

A row of integer weight k must act as k copies of the row and weight 0 as a removed row, in
every step of the fit: the capped simplex of Eq. (2)'s dual (caps = the weights), the weighted
medians of the centre, the "auto" threshold and the scale, the offset fit. The dual solver runs
the copies' own iteration, so weighted and repeated fits agree to rounding, not only to the
solver's tolerance. NaN at fit time is a zero in the centred space of Eq. (2) (the entry is put
at the median of the observed entries); at prediction time the absent term is dropped.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from robustclf._oracles.rolr import oracle_fit, oracle_predict
from robustclf.datasets import make_contaminated_logistic
from robustclf.linear._rolr_offset import fit_offset
from robustclf.linear._rolr_solvers import (
    _project_sort,
    column_medians,
    project_capped_simplex,
    solve_dual,
    solve_socp,
    trimmed_sum,
    weighted_medians,
)
from robustclf.linear.rolr import RobustLogisticRegression

needs_conic = pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(m) for m in ("cvxpy", "clarabel")),
    reason="cvxpy and clarabel are needed for the conic solver and oracle")

FITTED = ("coef_", "intercept_", "scale_", "objective_", "dual_objective_", "x_scale_",
          "threshold_", "n_outliers_")


@pytest.fixture(scope="module")
def digits():
    """sklearn's digits, pixels / 16, 600 training rows (10 classes) and 300 test rows."""
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    X, y = X[order] / 16.0, y[order]
    return X[:600], y[:600], X[600:900]


def _contaminated(seed=0, n=200, p=5):
    """Logistic data whose outliers are partly far away (the "auto" threshold removes some)."""
    X, y, _, _ = make_contaminated_logistic(n, p, outlier_ratio=0.15, outlier_scale=4.0,
                                            random_state=seed)
    return X, y


def _repeat(X, y, w):
    rows = np.repeat(np.arange(y.size), w)
    return X[rows], y[rows]


def _assert_same_model(a, b, X_test, rtol=1e-9, atol=1e-10):
    for name in FITTED:
        va, vb = getattr(a, name), getattr(b, name)
        if va is None or vb is None:
            assert va is vb, name
        else:
            np.testing.assert_allclose(va, vb, rtol=rtol, atol=atol, err_msg=name)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.predict(X_test), b.predict(X_test))
    np.testing.assert_allclose(a.decision_function(X_test), b.decision_function(X_test),
                               rtol=rtol, atol=atol)
    np.testing.assert_allclose(a.predict_proba(X_test), b.predict_proba(X_test),
                               rtol=rtol, atol=atol)


# -- the solver's weighted pieces against their copies ---------------------------------------

@settings(max_examples=25, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.data())
def test_weighted_medians_are_the_medians_of_the_repeated_rows(N, p, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    V = rng.integers(-3, 4, size=(N, p)).astype(float)
    w = rng.integers(0, 4, size=N)
    if not w.any():
        w[0] = 1
    expected = np.median(np.repeat(V, w, axis=0), axis=0)
    np.testing.assert_allclose(weighted_medians(V, w), expected)
    np.testing.assert_allclose(weighted_medians(V, 2.5 * w), expected)       # scale-free
    np.testing.assert_allclose(column_medians(V, w.astype(float)), expected)
    np.testing.assert_allclose(column_medians(sp.csr_matrix(V), w.astype(float)), expected)


def test_column_medians_skip_absent_entries_dense_and_sparse():
    X = np.array([[1.0, np.nan, 0.0], [np.nan, np.nan, 5.0], [3.0, np.nan, 0.0],
                  [10.0, np.nan, 2.0]])
    w = np.array([1.0, 2.0, 1.0, 1.0])
    # column 0: 1, 3, 10 (NaN row has no mass) -> 3; column 1: never observed -> 0;
    # column 2: 0, 5, 5, 0, 2 -> 2
    np.testing.assert_allclose(column_medians(X, w), [3.0, 0.0, 2.0])
    np.testing.assert_allclose(column_medians(sp.csr_matrix(X), w), [3.0, 0.0, 2.0])
    np.testing.assert_allclose(column_medians(X), [3.0, 0.0, 1.0])      # unweighted, NaN


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 15), st.data())
def test_weighted_trimmed_sum_is_that_of_the_repeated_entries(N, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    z = rng.normal(size=N).round(1)                  # ties included
    w = rng.integers(1, 4, size=N)
    n = data.draw(st.integers(1, int(w.sum())))
    assert trimmed_sum(z, n, w.astype(float)) == pytest.approx(
        trimmed_sum(np.repeat(z, w), n), abs=1e-12)
    # a fractional weight n: the linear interpolation between the neighbouring integers
    if n > 1:
        lo, hi = trimmed_sum(z, n - 1, w.astype(float)), trimmed_sum(z, n, w.astype(float))
        assert trimmed_sum(z, n - 0.25, w.astype(float)) == pytest.approx(
            0.25 * lo + 0.75 * hi, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 15), st.data())
def test_weighted_projection_is_the_projection_of_the_copies(N, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    v = rng.normal(size=N) * 2
    w = rng.integers(1, 4, size=N)
    n = data.draw(st.floats(0.1, float(w.sum()) - 0.1))
    s, tau = project_capped_simplex(v, n, weights=w.astype(float))
    assert np.all((s >= 0) & (s <= 1)) and w @ s == pytest.approx(n, abs=1e-9)
    copies, _ = project_capped_simplex(np.repeat(v, w), n)       # every copy gets s_i
    np.testing.assert_allclose(copies, np.repeat(s, w), atol=1e-9)
    # the exact sort rule (the Newton iteration's fallback) finds the same shift
    assert _project_sort(v, n, w.astype(float)) == pytest.approx(tau, abs=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_dual_solver_with_weights_runs_the_copies_iteration(sparse):
    X, y = _contaminated(1)
    w = np.random.default_rng(1).integers(1, 4, size=y.size)
    Xr, yr = _repeat(X, y, w)
    if sparse:
        X, Xr = sp.csr_matrix(X), sp.csr_matrix(Xr)
    n = int(0.9 * w.sum())
    center = np.zeros(X.shape[1]) + 0.1
    a = solve_dual(X, y.astype(float), n, center=center, scale=2.0,
                   sample_weight=w.astype(float))
    b = solve_dual(Xr, yr.astype(float), n, center=center, scale=2.0)
    assert a.converged and b.converged and a.n_iter == b.n_iter
    np.testing.assert_allclose(a.coef, b.coef, atol=1e-10)
    assert a.objective == pytest.approx(b.objective, rel=1e-10)
    assert a.dual_objective == pytest.approx(b.dual_objective, rel=1e-10)


@needs_conic
def test_socp_solver_with_weights_agrees_with_the_dual():
    X, y = _contaminated(2, n=120, p=4)
    w = np.random.default_rng(2).uniform(0.2, 3.0, size=y.size)     # real weights
    n = 0.85 * w.sum()
    a = solve_dual(X, y.astype(float), n, sample_weight=w, tol=1e-9, max_iter=100_000)
    b = solve_socp(X, y.astype(float), n, sample_weight=w)
    assert float(a.coef @ b.coef) > 1 - 1e-6
    assert b.objective == pytest.approx(a.objective, rel=1e-6)


@needs_conic
def test_estimator_socp_solver_with_weights_agrees_with_the_dual():
    X, y = _contaminated(16, n=120, p=4)
    w = np.random.default_rng(16).integers(0, 4, size=y.size)
    dual = RobustLogisticRegression().fit(X, y, sample_weight=w)
    socp = RobustLogisticRegression(solver="socp").fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(dual.predict(X), socp.predict(X))
    np.testing.assert_allclose(dual.decision_function(X), socp.decision_function(X), atol=1e-2)


def test_weighted_offset_fit_is_the_fit_on_repeated_rows():
    rng = np.random.default_rng(3)
    t = rng.normal(size=80)
    y = np.where(rng.random(80) < 1 / (1 + np.exp(-2 * t)), 1.0, -1.0)
    w = rng.integers(0, 4, size=80)
    a = fit_offset(t, y, w.astype(float))
    b = fit_offset(np.repeat(t, w), np.repeat(y, w))
    assert a.converged and b.converged
    assert a.slope == pytest.approx(b.slope, rel=1e-9)
    assert a.offset == pytest.approx(b.offset, rel=1e-9, abs=1e-12)


# -- the estimator: weights == copies, zero weight == removal, class weights ------------------

@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", [
    {}, {"fit_intercept": False}, {"threshold": "paper"}, {"n_outliers": 20},
    {"threshold": None, "outlier_fraction": 0.2}])
def test_integer_weights_equal_repeated_rows(sparse, params):
    X, y = _contaminated(4)
    w = np.random.default_rng(4).integers(0, 4, size=y.size)
    Xr, yr = _repeat(X, y, w)
    X_test = X[:50]
    if sparse:
        X, Xr = sp.csr_matrix(X), sp.csr_matrix(Xr)
    weighted = RobustLogisticRegression(**params).fit(X, y, sample_weight=w)
    repeated = RobustLogisticRegression(**params).fit(Xr, yr)
    _assert_same_model(weighted, repeated, X_test)
    # a row is an inlier when any of its copies is; rows of weight 0 are never inliers
    copies = np.repeat(np.arange(y.size), w)
    inside = np.zeros(y.size, dtype=bool)
    inside[copies[repeated.inlier_mask_]] = True
    np.testing.assert_array_equal(weighted.inlier_mask_, inside)
    assert not weighted.inlier_mask_[w == 0].any()


def test_the_auto_threshold_removes_the_same_rows_weighted_and_repeated():
    X, y, _, _ = make_contaminated_logistic(200, 5, outlier_ratio=0.15, outlier_scale=10.0,
                                            random_state=5)
    w = np.random.default_rng(5).integers(1, 4, size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # removes less weight than n1: no warning
        est = RobustLogisticRegression(outlier_fraction=0.2).fit(X, y, sample_weight=w)
    norms = np.linalg.norm(X - np.median(np.repeat(X, w, axis=0), axis=0), axis=1)
    assert est.threshold_ == pytest.approx(
        3 * np.median(np.repeat(norms, w)), rel=1e-12)
    removed = norms >= est.threshold_
    assert removed.any() and not est.inlier_mask_[removed].any()


def test_mostly_empty_rows_use_the_weighted_mean_norm_like_the_copies():
    """More than half of the weight on empty rows: the median norm is 0 and the "auto"
    threshold and the scale fall back on the (weighted) mean norm."""
    rng = np.random.default_rng(17)
    X = sp.random(120, 30, density=0.15, random_state=17, format="csr")
    X = sp.csr_matrix(X.multiply((rng.random(120) < 0.5)[:, None]))         # empty rows
    y = rng.integers(0, 2, size=120)
    w = np.where(X.getnnz(axis=1) == 0, 3, rng.integers(1, 3, size=120))
    weighted = RobustLogisticRegression().fit(X, y, sample_weight=w)
    repeated = RobustLogisticRegression().fit(*_repeat(X, y, w))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    assert weighted.threshold_ == pytest.approx(3 * np.average(norms, weights=w), rel=1e-12)
    _assert_same_model(weighted, repeated, X[:40])


def test_zero_weight_is_removal():
    X, y = _contaminated(6)
    w = (np.random.default_rng(6).random(y.size) < 0.7).astype(float)
    a = RobustLogisticRegression().fit(X, y, sample_weight=w)
    b = RobustLogisticRegression().fit(X[w > 0], y[w > 0])
    _assert_same_model(a, b, X[:50])
    np.testing.assert_array_equal(a.inlier_mask_[w > 0], b.inlier_mask_)


def test_weights_on_ten_classes_equal_repeated_rows(digits):
    X, y, X_test = digits
    w = np.random.default_rng(7).integers(0, 3, size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # no collapse, no ConvergenceWarning
        weighted = RobustLogisticRegression().fit(X, y, sample_weight=w)
        repeated = RobustLogisticRegression().fit(*_repeat(X, y, w))
    assert weighted.coef_.shape == (10, 64) and weighted.inlier_mask_.shape == (10, y.size)
    assert not weighted.inlier_mask_[:, w == 0].any()
    _assert_same_model(weighted, repeated, X_test, rtol=1e-8, atol=1e-9)


def test_class_weight_balanced_equals_its_sample_weight(digits):
    X, y, X_test = digits
    a = RobustLogisticRegression(class_weight="balanced").fit(X, y)
    b = RobustLogisticRegression().fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    _assert_same_model(a, b, X_test, rtol=0, atol=0)
    # real weights: n1 is that fraction of the total weight, not rounded up
    assert a.n_outliers_ == pytest.approx(0.1 * y.size)


def test_class_weight_dict_times_sample_weight():
    X, y = _contaminated(8)
    sw = np.random.default_rng(8).integers(1, 3, size=y.size).astype(float)
    labels = np.unique(y)
    a = RobustLogisticRegression(class_weight={labels[0]: 2, labels[1]: 1}).fit(
        X, y, sample_weight=sw)
    b = RobustLogisticRegression().fit(X, y, sample_weight=sw * np.where(y == labels[0], 2, 1))
    _assert_same_model(a, b, X[:50], rtol=0, atol=0)


def test_real_weights_are_scale_free_with_outlier_fraction():
    X, y = _contaminated(9)
    w = np.random.default_rng(9).uniform(0.1, 2.0, size=y.size)
    a = RobustLogisticRegression().fit(X, y, sample_weight=w)
    b = RobustLogisticRegression().fit(X, y, sample_weight=w / w.sum())    # weights sum to 1
    assert a.n_outliers_ == pytest.approx(0.1 * w.sum())
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


def test_n_outliers_is_an_amount_of_weight():
    X, y = _contaminated(10, n=40)
    w = np.full(y.size, 0.5)
    with pytest.raises(ValueError, match=r"n_outliers must be less than the total sample "
                                         r"weight \(23\), got 30: .*a row of weight k"):
        RobustLogisticRegression(n_outliers=30).fit(X, y, sample_weight=w)
    est = RobustLogisticRegression(n_outliers=5, threshold=None).fit(X, y, sample_weight=w)
    # 5 units of weight are trimmed: 10 rows of weight 1/2
    assert est.n_outliers_ == 5
    assert np.count_nonzero(~est.inlier_mask_) == 10


@needs_conic
@pytest.mark.parametrize("params", [{}, {"fit_intercept": False}])
def test_weighted_fit_matches_the_independent_oracle(params):
    """The oracle re-derives the weighted steps from the copies view (caps, weighted slacks,
    weighted medians, weighted logistic loss) without the estimator's code."""
    X, y = _contaminated(11, n=240, p=6)
    w = np.random.default_rng(11).integers(0, 4, size=y.size).astype(float)
    w[:20] = np.random.default_rng(12).uniform(0.1, 2.5, size=20)        # some real weights
    est = RobustLogisticRegression(**params).fit(X, y, sample_weight=w)
    oracle = oracle_fit(X, y, sample_weight=w, **params)
    assert np.all(oracle["upper"] - oracle["objective"] <= 1e-7 * oracle["upper"])
    rel = (oracle["objective"] - est.objective_) / np.abs(oracle["objective"])
    assert np.all(rel <= 1e-6 * (1 + 1e-6)), rel
    assert np.all(est.objective_ <= oracle["upper"] * (1 + 1e-9))
    assert est.n_outliers_ == pytest.approx(0.1 * w.sum())
    np.testing.assert_array_equal(est.predict(X), oracle_predict(oracle, X))
    if est.fit_intercept:
        np.testing.assert_allclose(est.decision_function(X),
                                   (X @ oracle["coef"].T + oracle["intercept"]).ravel(),
                                   atol=2e-3 * (1 + np.max(oracle["slope"])))


# -- absent features (NaN) ---------------------------------------------------------------------

def _with_nan(X, rate, seed):
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < rate] = np.nan
    return X


def test_nan_at_predict_is_a_zero_in_the_input_space(digits):
    X, y, X_test = digits
    est = RobustLogisticRegression().fit(X, y)
    X_nan = _with_nan(X_test, 0.3, 0)
    np.testing.assert_allclose(est.decision_function(X_nan),
                               est.decision_function(np.nan_to_num(X_nan)), atol=1e-12)
    np.testing.assert_array_equal(est.predict(sp.csr_matrix(X_nan)),
                                  est.predict(np.nan_to_num(X_nan)))


def test_nan_at_predict_through_a_scaler_is_the_training_mean():
    X, y = _contaminated(12)
    pipe = make_pipeline(StandardScaler(), RobustLogisticRegression()).fit(X, y)
    X_nan = _with_nan(X[:60], 0.3, 1)
    filled = np.where(np.isnan(X_nan), X.mean(axis=0), X_nan)
    np.testing.assert_allclose(pipe.decision_function(X_nan), pipe.decision_function(filled),
                               atol=1e-10)


def test_nan_policy_raise_rejects_nan_at_fit_and_predict():
    X, y = _contaminated(13, n=60)
    X_nan = _with_nan(X, 0.2, 2)
    est = RobustLogisticRegression(nan_policy="raise")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.fit(X_nan, y)
    est.fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.predict(X_nan)
    assert not est.__sklearn_tags__().input_tags.allow_nan
    assert RobustLogisticRegression().__sklearn_tags__().input_tags.allow_nan


@pytest.mark.parametrize("sparse", [False, True])
def test_nan_at_fit_is_the_median_of_the_observed_entries(sparse):
    """Absent = zero in the centred rows: the same fit as with NaN filled by the column's
    median over its observed entries (that fill does not move the median); without an
    intercept there is no centre and NaN is 0."""
    X, y = _contaminated(14)
    X_nan = _with_nan(X, 0.25, 3)
    filled = np.where(np.isnan(X_nan), np.nanmedian(X_nan, axis=0), X_nan)
    data = sp.csr_matrix(X_nan) if sparse else X_nan
    a = RobustLogisticRegression(threshold=None).fit(data, y)
    b = RobustLogisticRegression(threshold=None).fit(filled, y)
    _assert_same_model(a, b, X[:50])
    a = RobustLogisticRegression(fit_intercept=False).fit(data, y)
    b = RobustLogisticRegression(fit_intercept=False).fit(np.nan_to_num(X_nan), y)
    _assert_same_model(a, b, X[:50])


def test_nan_at_fit_with_weights_matches_the_oracle_and_the_copies():
    X, y = _contaminated(15, n=150, p=4)
    X_nan = _with_nan(X, 0.2, 4)
    w = np.random.default_rng(15).integers(0, 4, size=y.size)
    est = RobustLogisticRegression().fit(X_nan, y, sample_weight=w)
    _assert_same_model(est, RobustLogisticRegression().fit(*_repeat(X_nan, y, w)), X[:40])
    if all(__import__("importlib").util.find_spec(m) for m in ("cvxpy", "clarabel")):
        oracle = oracle_fit(X_nan, y, sample_weight=w.astype(float))
        rel = (oracle["objective"] - est.objective_) / np.abs(oracle["objective"])
        assert np.all(rel <= 1e-6 * (1 + 1e-6)), rel
        np.testing.assert_array_equal(est.predict(X), oracle_predict(oracle, X))


def test_centred_zero_at_fit_beats_the_raw_zero_on_digits_with_absent_pixels():
    """The measurement behind the choice (class Notes): digits, 30 % of the pixels absent at
    random in training and test rows; prediction drops the absent terms in both cases."""
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    X, y = X[order] / 16.0, y[order]
    X_nan = _with_nan(X, 0.3, 0)
    train, test = slice(0, 1200), slice(1200, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # the raw zero gives a flat problem
        centred = RobustLogisticRegression().fit(X_nan[train], y[train])
        raw = RobustLogisticRegression().fit(np.nan_to_num(X_nan[train]), y[train])
    err_centred = np.mean(centred.predict(X_nan[test]) != y[test])
    err_raw = np.mean(raw.predict(X_nan[test]) != y[test])
    assert err_centred < 0.3 and err_raw > err_centred + 0.15, (err_centred, err_raw)
    assert math.isfinite(centred.x_scale_)
