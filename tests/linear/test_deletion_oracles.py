"""Default fits of DeletionRobustLP, FDROPClassifier and DeletionRobustPerceptron against
independent solves (robustclf._oracles.deletion), their certificates, and their stopping rules
(issue 14)."""

import os
import tracemalloc
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from robustclf._oracles.deletion import (
    breast_cancer_split,
    digits_split,
    eq4_lp,
    fdrop_qp,
    ovr_oracle,
    ovr_predict,
)
from robustclf.feature_values import mutual_info_values
from robustclf.linear import DeletionRobustLP, DeletionRobustPerceptron, FDROPClassifier
from robustclf.linear import _deletion_lp_solvers as lp_solvers

pytest.importorskip("clarabel")


@pytest.fixture(scope="module")
def cancer():
    return breast_cancer_split(n_train=200)


@pytest.fixture(scope="module")
def digits():
    return digits_split(n_train=100, n_test=300)


def _rel(a, b):
    return np.abs(a - b) / np.maximum(np.abs(b), 1e-3)


@pytest.fixture(scope="module")
def lp_cases(cancer, digits):
    """Default fits and oracle solves of Eq. (4) on both data sets (computed once)."""
    out = {}
    for name, (Xtr, ytr, Xte, _), budget in (("cancer", cancer, 2), ("digits", digits, 8)):
        est = DeletionRobustLP(budget=budget, random_state=0).fit(Xtr, ytr)
        oracle = ovr_oracle(eq4_lp, Xtr, ytr, values=np.ones(Xtr.shape[1]), budget=budget)
        out[name] = (est, oracle, Xte)
    return out


@pytest.fixture(scope="module")
def cancer_cube_optimum(cancer):
    """Eq. (4) on breast cancer with |b| <= C too: the Perceptron's batch problem."""
    Xtr, ytr, _, _ = cancer
    return ovr_oracle(eq4_lp, Xtr, ytr, values=np.ones(30), budget=2, bias_bound=10.0)[3]


@pytest.mark.parametrize("name", ["cancer", "digits"])
def test_lp_default_fit_reaches_the_highs_optimum(lp_cases, name):
    est, (classes, W, b, objective), Xte = lp_cases[name]
    assert est.coef_.shape[0] == (1 if name == "cancer" else 10)  # one-vs-rest for 10 classes
    np.testing.assert_array_equal(est.classes_, classes)
    assert np.all(_rel(est.objective_, objective) <= 1e-6)
    assert np.all(est.gap_ <= est.tol) and np.all(est.n_iter_ >= 1)
    # the certified bound is below the optimum (to HiGHS's accuracy)
    assert np.all(est.lower_bound_ <= objective + 1e-7)


def test_lp_predictions_match_the_oracle_where_the_optimum_is_unique(lp_cases):
    """Breast cancer: identical test predictions. Digits: Eq. (4)'s optimum is not unique (a
    polyhedral objective with a box; weights of features that never decide a worst case are
    free), so two optimal solutions may predict differently; both are optimal (objective
    checked above) and they agree on most rows."""
    est, (classes, W, b, _), Xte = lp_cases["cancer"]
    np.testing.assert_array_equal(est.predict(Xte), ovr_predict(classes, W, b, Xte))
    est, (classes, W, b, _), Xte = lp_cases["digits"]
    assert np.mean(est.predict(Xte) == ovr_predict(classes, W, b, Xte)) >= 0.9


@pytest.mark.parametrize("name", ["cancer", "digits"])
def test_fdrop_default_fit_matches_cvxpy(cancer, digits, name):
    Xtr, ytr, Xte, _ = cancer if name == "cancer" else digits
    est = FDROPClassifier(budget=1).fit(Xtr, ytr)
    classes, W, b, objective = ovr_oracle(fdrop_qp, Xtr, ytr, budget=1)
    assert np.all(_rel(est.objective_, objective) <= 1e-6)
    assert np.all(est.lower_bound_ <= objective * (1 + 1e-7))
    np.testing.assert_array_equal(est.predict(Xte), ovr_predict(classes, W, b, Xte))


def test_fdrop_sgd_certificate_is_valid_and_it_warns(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.warns(ConvergenceWarning, match="certified relative optimality gap"):
        est = FDROPClassifier(budget=1, solver="sgd", random_state=0).fit(Xtr, ytr)
    _, _, _, objective = ovr_oracle(fdrop_qp, Xtr, ytr, budget=1)
    assert np.all(est.lower_bound_ <= objective * (1 + 1e-9))
    assert np.all(objective <= est.objective_ * (1 + 1e-7))
    assert np.all(est.gap_ > 1e-3)  # the default sgd tol, not reached: hence the warning


def test_lp_subgradient_certificate_is_valid_and_it_warns(cancer, lp_cases):
    Xtr, ytr, _, _ = cancer
    with pytest.warns(ConvergenceWarning, match="certified relative optimality gap"):
        est = DeletionRobustLP(budget=2, solver="subgradient", random_state=0).fit(Xtr, ytr)
    objective = lp_cases["cancer"][1][3]
    assert np.all(est.lower_bound_ <= objective + 1e-9)
    assert np.all(objective <= est.objective_ + 1e-9)
    assert est.n_iter_[0] == 50


def test_perceptron_duality_gap_brackets_the_optimum_over_its_cube(cancer,
                                                                 cancer_cube_optimum):
    Xtr, ytr, _, _ = cancer
    est = DeletionRobustPerceptron(budget=2, random_state=0, n_epochs=3).fit(Xtr, ytr)
    objective = cancer_cube_optimum
    assert np.all(est.lower_bound_ <= objective + 1e-9)
    assert np.all(objective <= est.objective_ + 1e-9)
    np.testing.assert_allclose(est.duality_gap_, est.objective_ - est.lower_bound_)


def test_perceptron_objective_is_the_lp_objective(cancer):
    Xtr, ytr, _, _ = cancer
    est = DeletionRobustPerceptron(budget=2, random_state=0).fit(Xtr, ytr)
    s = np.where(ytr == est.classes_[1], 1.0, -1.0)
    xi, _ = lp_solvers.robust_hinge(Xtr, s, est.coef_[0], est.intercept_[0], np.ones(30), 2.0,
                                    1.0)
    assert est.objective_[0] == pytest.approx(xi.mean(), rel=1e-12)


# --- HiGHS status and time limits -------------------------------------------------------


def _fake_linprog(status, x_available=True):
    def fake(c, **kwargs):
        x = np.zeros(c.size) if x_available else None
        return SimpleNamespace(status=status, x=x, fun=0.0, nit=3, message="fake")
    return fake


def test_lp_time_limit_is_passed_to_highs_and_its_status_warns(cancer, monkeypatch):
    Xtr, ytr, _, _ = cancer
    seen = {}

    def fake(c, **kwargs):
        seen.update(kwargs["options"])
        return _fake_linprog(1)(c, **kwargs)

    monkeypatch.setattr(lp_solvers, "linprog", fake)
    with pytest.warns(ConvergenceWarning, match="iteration or time limit"):
        est = DeletionRobustLP(budget=2, solver="lp", time_limit=5.0).fit(Xtr, ytr)
    assert seen["time_limit"] == 5.0
    assert np.isinf(est.gap_[0]) and np.isnan(est.lower_bound_[0])


def test_lp_time_limit_before_any_point_returns_zero_with_a_warning(cancer, monkeypatch):
    Xtr, ytr, _, _ = cancer
    monkeypatch.setattr(lp_solvers, "linprog", _fake_linprog(1, x_available=False))
    with pytest.warns(ConvergenceWarning, match="before finding a point"):
        est = DeletionRobustLP(budget=2, solver="lp", time_limit=1.0).fit(Xtr, ytr)
    assert np.all(est.coef_ == 0) and np.all(est.intercept_ == 0)


def test_lp_real_time_limit_warns():
    # the interior point needs ~4 s on this LP (32,500 rows); presolve (~0.05 s) must not use
    # the whole limit up, or HiGHS hands the interior point no limit at all (documented)
    X, y = load_digits(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="time"):
        DeletionRobustLP(budget=2, solver="lp", time_limit=0.5).fit(X[:500] / 16, y[:500] == 3)


@pytest.mark.parametrize(("status", "x", "match"), [
    (2, True, "infeasible"), (3, True, "unbounded"), (4, False, "without a solution")])
def test_lp_bad_status_raises(cancer, monkeypatch, status, x, match):
    Xtr, ytr, _, _ = cancer
    monkeypatch.setattr(lp_solvers, "linprog", _fake_linprog(status, x))
    with pytest.raises(RuntimeError, match=match):
        DeletionRobustLP(budget=2, solver="lp").fit(Xtr, ytr)


def test_lp_numerical_status_warns(cancer, monkeypatch):
    Xtr, ytr, _, _ = cancer
    monkeypatch.setattr(lp_solvers, "linprog", _fake_linprog(4))
    with pytest.warns(ConvergenceWarning, match="numerical difficulties"):
        DeletionRobustLP(budget=2, solver="lp").fit(Xtr, ytr)


def test_cutting_plane_max_iter_warns_with_the_gap(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 rounds.*certified relative"):
        est = DeletionRobustLP(budget=2, max_iter=1, random_state=0).fit(Xtr, ytr)
    assert est.gap_[0] > est.tol and est.n_iter_[0] == 1


def test_time_limit_must_be_positive(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.raises(ValueError, match="time_limit"):
        DeletionRobustLP(time_limit=0).fit(Xtr, ytr)


# --- sparse input is never densified ----------------------------------------------------


def _sparse_problem(m=1500, n=800, density=0.01):
    rng = np.random.default_rng(0)
    X = sp.random(m, n, density=density, format="csr", random_state=0)
    y = (X @ rng.normal(size=n) + 0.05 * rng.normal(size=m) > 0).astype(int)
    return X, y


def test_sparse_mutual_info_values_equal_the_dense_ones():
    rng = np.random.default_rng(3)
    X = np.round(rng.random((300, 25)) * (rng.random((300, 25)) < 0.3), 1)
    X[:, 2] = 0.0
    X[::4, 5] = -1.0
    for k in (2, 5):
        y = rng.integers(0, k, 300)
        np.testing.assert_allclose(mutual_info_values(sp.csr_matrix(X), y),
                                   mutual_info_values(X, y), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("solver", ["cutting_plane", "subgradient"])
def test_sparse_fit_with_mutual_info_allocates_no_dense_matrix(solver):
    X, y = _sparse_problem(m=1000, n=600)
    dense_bytes = X.shape[0] * X.shape[1] * 8
    tracemalloc.start()
    try:
        with pytest.warns(ConvergenceWarning):  # only a few rounds / epochs, to stay fast
            DeletionRobustLP(budget=2, feature_values="mutual_info", solver=solver,
                             max_iter=2, random_state=0).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 3, (peak, dense_bytes)


def test_fdrop_cutting_planes_keep_sparse_input_sparse():
    X, y = _sparse_problem(m=2000, n=1000, density=0.004)
    dense_bytes = X.shape[0] * X.shape[1] * 8
    tracemalloc.start()
    try:
        FDROPClassifier(budget=1).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < dense_bytes / 3, (peak, dense_bytes)
    X, y = _sparse_problem(m=300, n=200, density=0.05)
    sparse_fit = FDROPClassifier(budget=2).fit(X, y)
    dense_fit = FDROPClassifier(budget=2).fit(X.toarray(), y)
    assert sparse_fit.objective_[0] == pytest.approx(dense_fit.objective_[0], rel=1e-7)
    np.testing.assert_allclose(sparse_fit.coef_, dense_fit.coef_, atol=1e-5)


def test_sparse_and_dense_input_reach_the_same_optimum():
    X, y = _sparse_problem(m=200, n=60)
    a = DeletionRobustLP(budget=1, feature_values="mutual_info", random_state=0).fit(X, y)
    b = DeletionRobustLP(budget=1, feature_values="mutual_info",
                         random_state=0).fit(X.toarray(), y)
    np.testing.assert_allclose(a.feature_values_, b.feature_values_, rtol=1e-12)
    assert a.objective_[0] == pytest.approx(b.objective_[0], rel=1e-9, abs=1e-12)


# --- larger, slower cases ---------------------------------------------------------------


@pytest.mark.slow
def test_lp_and_fdrop_on_digits_300_rows():
    Xtr, ytr, Xte, _ = digits_split(n_train=300)
    est = DeletionRobustLP(budget=8, random_state=0).fit(Xtr, ytr)
    _, _, _, objective = ovr_oracle(eq4_lp, Xtr, ytr, values=np.ones(64), budget=8)
    assert np.all(_rel(est.objective_, objective) <= 1e-6)
    fd = FDROPClassifier(budget=1).fit(Xtr, ytr)
    classes, W, b, objective = ovr_oracle(fdrop_qp, Xtr, ytr, budget=1)
    assert np.all(_rel(fd.objective_, objective) <= 1e-6)
    np.testing.assert_array_equal(fd.predict(Xte), ovr_predict(classes, W, b, Xte))


@pytest.mark.slow
def test_lp_on_spambase_with_mutual_info_values():
    from robustclf.datasets import load_spambase

    data_dir = os.environ.get("ROBUSTCLF_DATA")
    try:
        X, y = load_spambase(data_dir=data_dir, return_X_y=True)
    except (OSError, ValueError, TypeError):
        pytest.skip("spambase not available")
    p = np.random.default_rng(0).permutation(y.size)
    X, y = np.asarray(X, dtype=float)[p][:400], np.asarray(y)[p][:400]
    X = (X - X.min(axis=0)) / np.where(np.ptp(X, axis=0) > 0, np.ptp(X, axis=0), 1.0)
    values = mutual_info_values(X, y)
    est = DeletionRobustLP(budget=5, feature_values=values, random_state=0).fit(X, y)
    _, _, _, objective = ovr_oracle(eq4_lp, X, y, values=values, budget=5)
    assert np.all(_rel(est.objective_, objective) <= 1e-6)


@pytest.fixture(scope="module")
def amazon_presence():
    """d > 2,000: Amazon book reviews, the 2,500 most frequent terms (presence, CSR): 400
    training rows and labels, and the 500 test rows."""
    from robustclf._oracles.mcf import amazon_split

    try:
        Xtr, ytr, Xte, _ = amazon_split(os.environ.get("ROBUSTCLF_DATA"), n_features=2500)
    except (FileNotFoundError, OSError):
        pytest.skip("Amazon reviews not available (set ROBUSTCLF_DATA)")
    return ((Xtr[:400] > 0).astype(float).tocsr(), ytr[:400],
            (Xte > 0).astype(float).tocsr())


@pytest.mark.slow
@pytest.mark.data
def test_lp_default_fit_on_2500_sparse_features_reaches_the_highs_optimum(amazon_presence):
    """d > 2,000: Amazon book reviews, the 2,500 most frequent terms (presence), 400 rows.
    ``auto`` picks the first-order solver there; on these (separable) rows it reaches the
    optimum 0 and certifies it, so it does not warn."""
    X, y, _ = amazon_presence
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = DeletionRobustLP(budget=2, random_state=0).fit(X, y)
    assert est.solver_ == "subgradient" and sp.issparse(X)
    _, _, _, objective = ovr_oracle(eq4_lp, X, y, values=np.ones(2500), budget=2)
    assert np.all(_rel(est.objective_, objective) <= 1e-6)
    assert np.all(est.lower_bound_ <= objective + 1e-9)


@pytest.mark.data
def test_fdrop_default_fit_on_2500_sparse_features_reaches_the_cvxpy_optimum(
        amazon_presence):
    """d > 2,000: Amazon book reviews, the 2,500 most frequent terms (presence), 400 rows; the
    default cutting planes keep X sparse and end at the oracle's optimum (its (GR) with v_ij on
    the stored entries), within their certified gap, without a warning."""
    X, y, Xt = amazon_presence
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = FDROPClassifier().fit(X, y)
    classes, W, b, objective = ovr_oracle(fdrop_qp, X, y, budget=1.0)
    assert est.solver_ == "cutting_plane"
    assert np.all(_rel(est.objective_, objective) <= 1e-6)
    assert np.all(est.lower_bound_ <= objective * (1 + 1e-7))
    np.testing.assert_allclose(est.coef_, W, atol=1e-3 * np.abs(W).max())
    assert np.mean(est.predict(Xt) == ovr_predict(classes, W, b, Xt)) >= 0.99


@pytest.mark.parametrize("uniform", [True, False])
def test_perceptron_objective_screening_matches_the_plain_loss(uniform):
    from robustclf.linear.deletion_perceptron import _mean_loss, deletion_hinge_loss

    rng = np.random.default_rng(5)
    X = rng.random((500, 40))
    s = np.where(rng.random(500) < 0.5, 1.0, -1.0)
    w, b = rng.normal(size=40), 0.3
    values = np.ones(40) if uniform else rng.random(40) * 2
    plain = deletion_hinge_loss(w, b, X, s, values, 3.0, 0.7).mean()
    assert plain > 0
    assert _mean_loss(w, b, X, s, values, 3.0, 0.7, block=64) == pytest.approx(plain, rel=1e-12)


@pytest.mark.parametrize("solver", ["cutting_plane", "lp", "subgradient"])
def test_features_unseen_in_training_get_weight_zero(digits, solver):
    """Digits' blank border pixels are in no constraint of Eq. (4); HiGHS used to put them at
    -C, which then decided test rows where such a pixel is not blank."""
    Xtr, ytr, _, _ = digits
    keep = np.isin(ytr, [3, 8])
    unseen = ~Xtr[keep].any(axis=0)
    assert unseen.any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # (subgradient)
        est = DeletionRobustLP(budget=4, solver=solver, random_state=0).fit(Xtr[keep], ytr[keep])
    assert np.all(est.coef_[:, unseen] == 0.0) and np.any(est.coef_[:, ~unseen] != 0.0)
