"""DeletionRobustLP as a scikit-learn estimator."""

import numpy as np
import pytest
import scipy.sparse as sp
from joblib import parallel_backend
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from robustclf.certify import certified_error
from robustclf.datasets import make_label_copies
from robustclf.linear._deletion_lp_solvers import solve_cutting_plane
from robustclf.linear.deletion_lp import DeletionRobustLP


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    centers = rng.random((3, 8))
    y = np.repeat([0, 1, 2], 40)
    X = np.clip(centers[y] + 0.15 * rng.standard_normal((120, 8)), 0, 1)
    return X, y


def test_binary_fit_matches_solver_and_string_labels(blobs):
    X, y = blobs
    keep = y < 2
    Xb, yb = X[keep], np.where(y[keep] == 1, "spam", "ham")
    model = DeletionRobustLP(budget=1).fit(Xb, yb)
    assert model.coef_.shape == (1, 8) and model.intercept_.shape == (1,)
    assert list(model.classes_) == ["ham", "spam"]
    res = solve_cutting_plane(Xb, np.where(yb == "spam", 1.0, -1.0), np.ones(8), 1.0, 1.0, 10.0)
    np.testing.assert_allclose(model.objective_, [res.objective], rtol=1e-9)
    assert model.score(Xb, yb) > 0.9
    assert set(model.predict(Xb)) <= {"ham", "spam"}


def test_multiclass_one_vs_rest(blobs):
    X, y = blobs
    model = DeletionRobustLP(budget=1).fit(X, y)
    assert model.coef_.shape == (3, 8)
    assert model.decision_function(X).shape == (120, 3)
    assert model.score(X, y) > 0.9
    assert np.all(np.abs(model.coef_) <= 10.0 + 1e-9)


def test_solvers_agree(blobs):
    X, y = blobs
    keep = y < 2
    lp = DeletionRobustLP(budget=2, solver="lp").fit(X[keep], y[keep])
    cut = DeletionRobustLP(budget=2).fit(X[keep], y[keep])
    with pytest.warns(ConvergenceWarning, match="certified relative optimality gap"):
        sgd = DeletionRobustLP(budget=2, solver="subgradient", max_iter=500,
                               random_state=0).fit(X[keep], y[keep])
    # the subgradient's certified bound is valid: below the exact optimum
    assert sgd.lower_bound_[0] <= lp.objective_[0] + 1e-9
    assert cut.gap_[0] <= 1e-8 and lp.gap_[0] <= 1e-6
    assert cut.objective_[0] == pytest.approx(lp.objective_[0], rel=1e-6, abs=1e-9)
    assert sgd.objective_[0] >= cut.objective_[0] - 1e-9
    assert sgd.objective_[0] <= cut.objective_[0] * 1.02 + 1e-3


def test_only_the_ratio_of_weight_bound_to_margin_matters(blobs):
    X, y = blobs
    a = DeletionRobustLP(budget=2, margin=1.0, weight_bound=5.0).fit(X, y)
    b = DeletionRobustLP(budget=2, margin=3.0, weight_bound=15.0).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-6, atol=1e-9)


def test_sparse_input_gives_the_same_model(blobs):
    X, y = blobs
    dense = DeletionRobustLP(budget=1).fit(X, y)
    sparse = DeletionRobustLP(budget=1).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(dense.objective_, sparse.objective_, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(dense.predict(X), sparse.predict(sp.csr_matrix(X)))


def test_feature_values_options(blobs):
    X, y = blobs
    mi = DeletionRobustLP(budget=2, feature_values="mutual_info").fit(X, y)
    assert mi.feature_values_.sum() == pytest.approx(8)
    values = np.arange(1.0, 9.0)
    arr = DeletionRobustLP(budget=3, feature_values=values).fit(X, y)
    np.testing.assert_array_equal(arr.feature_values_, values)


def test_chunked_bagging_parallel_is_deterministic(blobs):
    X, y = blobs
    with parallel_backend("threading"):  # the loky start-up would dominate this small test
        a = DeletionRobustLP(budget=1, chunk_size=40, n_jobs=2, random_state=3).fit(X, y)
    b = DeletionRobustLP(budget=1, chunk_size=40, n_jobs=1, random_state=3).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_)
    assert a.score(X, y) > 0.8


def test_input_is_not_modified(blobs):
    X, y = blobs
    X0, y0 = X.copy(), y.copy()
    DeletionRobustLP(budget=1, feature_values="mutual_info").fit(X, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("params, match", [
    (dict(budget=-1), "budget"),
    (dict(budget=8), "budget must be less than"),
    (dict(margin=0), "margin must be positive"),
    (dict(weight_bound=-2), "weight_bound"),
    (dict(solver="simplex"), "solver must be one of"),
    (dict(chunk_size=1), "chunk_size"),
    (dict(feature_values="entropy"), "feature_values"),
    (dict(feature_values=np.ones(3)), "feature_values"),
    (dict(fit_intercept="yes"), "fit_intercept"),
    (dict(max_iter=0), "max_iter"),
])
def test_bad_parameters_name_themselves(blobs, params, match):
    X, y = blobs
    with pytest.raises(ValueError, match=match):
        DeletionRobustLP(**params).fit(X, y)


def test_pipeline_gridsearch_and_cross_val(blobs):
    X, y = blobs
    pipe = make_pipeline(MinMaxScaler(), DeletionRobustLP(budget=1))
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.8
    grid = GridSearchCV(DeletionRobustLP(), {"budget": [0, 2]}, cv=2).fit(X, y)
    assert grid.best_params_["budget"] in (0, 2)


def test_label_copies_lp_survives_deleting_the_copies():
    """The §4 sanity check, in miniature: the LP does not lean on the two perfect features."""
    X_all, y_all = make_label_copies(2400, random_state=0)
    X, y, Xt, yt = X_all[:400], y_all[:400], X_all[400:], y_all[400:]
    values = np.r_[np.ones(20), 10.0, 10.0]
    model = DeletionRobustLP(budget=20, feature_values=values).fit(X, y)
    Xt[:, -2:] = 0.0
    assert np.mean(model.predict(Xt) != yt) < 0.3
    # the certified worst case under this budget is the same computation the LP trained against
    cert = certified_error(model, Xt, yt, budget=20, feature_values=values)
    assert cert.upper >= np.mean(model.predict(Xt) != yt) - 1e-12


def test_iteration_limit_warns(blobs):
    X, y = blobs
    with pytest.warns(ConvergenceWarning, match="DeletionRobustLP did not converge"):
        DeletionRobustLP(budget=1, max_iter=1).fit(X, y)




def test_auto_solves_small_wide_problems_exactly():
    """Few rows, many features (60 x 400 non-negative pixels-like values): "auto" is the full
    LP, which reaches the optimum the subgradient method's 50 epochs end far above."""
    import warnings

    from robustclf._oracles.deletion import eq4_lp

    rng = np.random.default_rng(0)
    X = np.where(rng.random((60, 400)) < 0.2, rng.random((60, 400)), 0.0)
    y = (X[:, :200].sum(axis=1) > X[:, 200:].sum(axis=1)).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = DeletionRobustLP(budget=20).fit(X, y)
    assert est.solver_ == "lp"
    optimum = eq4_lp(X, np.where(y == 1, 1.0, -1.0), np.ones(400), 20.0)[2]
    assert est.objective_[0] == pytest.approx(optimum, rel=1e-6, abs=1e-9)
    with pytest.warns(ConvergenceWarning):
        first_order = DeletionRobustLP(budget=20, solver="subgradient", random_state=0).fit(X, y)
    assert first_order.objective_[0] > 1.1 * optimum  # (0.85 exact, 1.10 first order)
