"""Tests of FDROPClassifier (Globerson & Roweis 2006) and its exactness."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from robustclf.linear.fdrop import (
    FDROPClassifier,
    _solve_cutting_plane,
    _solve_gr_qp,
    fdrop_hinge_loss,
)

pytest.importorskip("clarabel")


def _data(seed=0, m=30, n=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    s = np.where(X @ rng.normal(size=n) + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, s


def _objective(w, b, X, s, K, C):
    return 0.5 * w @ w + C * fdrop_hinge_loss(w, b, X, s, K).sum()


@pytest.mark.parametrize("K", [0.0, 1.0, 2.0, 1.5])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_cutting_plane_matches_globerson_roweis_qp(K, fit_intercept):
    X, s = _data(seed=int(2 * K))
    w1, b1, obj1, rounds, ok, lower, _ = _solve_cutting_plane(X, s, K, 0.7, fit_intercept, 1e-9,
                                                               100)
    w2, b2, obj2, _, _, lower2, _ = _solve_gr_qp(X, s, K, 0.7, fit_intercept)
    assert lower <= obj2 * (1 + 1e-7) and lower2 <= obj1 * (1 + 1e-7)  # certified bounds
    assert ok
    assert obj1 == pytest.approx(obj2, rel=1e-6)
    np.testing.assert_allclose(w1, w2, atol=1e-4)  # unique: strongly convex in w
    if not fit_intercept:
        assert b1 == 0.0 and b2 == 0.0


def test_matches_generic_solver_on_enumerated_problem():
    """Eq. (3)-style QP with one constraint per deletable subset, solved by SLSQP."""
    X, s = _data(seed=4, m=12, n=4)
    K, C = 1, 0.5
    m, n = X.shape
    subsets = [np.ones(n)] + [1.0 - np.eye(n)[j] for j in range(n)]  # kept features, |D| <= 1
    cons = []
    for i in range(m):
        for kept in subsets:
            cons.append({"type": "ineq", "fun": lambda v, i=i, kept=kept:
                         s[i] * (v[n] + (kept * X[i]) @ v[:n]) - 1.0 + v[n + 1 + i]})
    cons.append({"type": "ineq", "fun": lambda v: v[n + 1:]})
    res = minimize(lambda v: 0.5 * v[:n] @ v[:n] + C * v[n + 1:].sum(), np.zeros(n + 1 + m),
                   jac=lambda v: np.r_[v[:n], 0.0, np.full(m, C)], constraints=cons,
                   method="SLSQP", options={"ftol": 1e-12, "maxiter": 500})
    assert res.success
    est = FDROPClassifier(budget=K, C=C, tol=1e-9).fit(X, s)
    assert est.objective_[0] == pytest.approx(res.fun, rel=1e-5)
    w = res.x[:n]
    assert _objective(w, res.x[n], X, s, K, C) == pytest.approx(res.fun, rel=1e-5)


def test_budget_zero_is_the_linear_svm():
    X, s = _data(seed=7, m=40)
    est = FDROPClassifier(budget=0, C=0.3, tol=1e-10).fit(X, s)
    svc = SVC(kernel="linear", C=0.3, tol=1e-10).fit(X, s)
    np.testing.assert_allclose(est.coef_, svc.coef_, atol=1e-4)
    np.testing.assert_allclose(est.intercept_, svc.intercept_, atol=1e-4)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), K=st.integers(0, 4))
def test_robust_hinge_by_enumeration(seed, K):
    rng = np.random.default_rng(seed)
    X, s = rng.normal(size=(6, 5)), rng.choice([-1.0, 1.0], size=6)
    w, b = rng.normal(size=5), float(rng.normal())
    brute = np.zeros(6)
    for deleted in itertools.product([0, 1], repeat=5):
        deleted = np.array(deleted, dtype=bool)
        if deleted.sum() <= K:
            brute = np.maximum(brute, 1.0 - s * (b + X[:, ~deleted] @ w[~deleted]))
    np.testing.assert_allclose(fdrop_hinge_loss(w, b, X, s, K), brute, atol=1e-12)


def test_objective_attribute_and_optimality_against_perturbations():
    X, s = _data(seed=11)
    est = FDROPClassifier(budget=1, C=1.0, tol=1e-9).fit(X, s)
    w, b = est.coef_[0], est.intercept_[0]
    best = _objective(w, b, X, s, 1, 1.0)
    assert est.objective_[0] == pytest.approx(best, rel=1e-10)
    rng = np.random.default_rng(0)
    for _ in range(200):
        dw, db = 1e-3 * rng.normal(size=w.shape), 1e-3 * rng.normal()
        assert _objective(w + dw, b + db, X, s, 1, 1.0) >= best - 1e-7


def test_multiclass_pipeline_and_inputs_untouched():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4))
    y = np.repeat([0, 1, 2], 20)
    X[y == 1, 0::2] += 3  # redundant evidence: one deleted feature leaves the other
    X[y == 2, 1::2] += 3
    X0 = X.copy()
    est = FDROPClassifier(budget=1).fit(X, y)
    assert est.coef_.shape == (3, 4) and est.n_iter_.shape == (3,)
    assert est.score(X, y) > 0.7
    assert cross_val_score(make_pipeline(StandardScaler(), FDROPClassifier(budget=1)),
                           X, y, cv=3).mean() > 0.6
    np.testing.assert_array_equal(X, X0)


def test_robustness_shifts_weight_off_a_perfect_feature():
    """With a label copy, the SVM leans on it; FDROP (K=1) must also use the other features."""
    X, s = _data(seed=5, m=60)
    Xc = np.c_[X, 3 * s]
    plain = FDROPClassifier(budget=0, C=10).fit(Xc, s)
    robust = FDROPClassifier(budget=1, C=10).fit(Xc, s)
    share = lambda c: np.abs(c[0, -1]) / np.abs(c[0]).sum()  # noqa: E731
    assert share(robust.coef_) < share(plain.coef_)
    assert robust.score(np.c_[X, np.zeros(60)], s) > plain.score(np.c_[X, np.zeros(60)], s)


def test_convergence_warning():
    X, s = _data(seed=3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        FDROPClassifier(budget=2, max_iter=1).fit(X, s)


@pytest.mark.parametrize(("params", "match"), [
    ({"C": 0.0}, "C must be positive"),
    ({"budget": 6}, "budget must be at most the total feature value"),
    ({"budget": -1}, "budget must be non-negative"),
    ({"max_iter": 0}, "max_iter must be >= 1"),
    ({"tol": -1.0}, "tol must be >= 0"),
    ({"fit_intercept": 1}, "fit_intercept must be a bool"),
    ({"solver": "lp"}, "solver must be one of 'auto', 'cutting_plane', 'qp'"),
])
def test_bad_parameters(params, match):
    X, s = _data()
    with pytest.raises(ValueError, match=match):
        FDROPClassifier(**params).fit(X, s)


def test_both_solvers_agree_multiclass():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(45, 4))
    y = np.repeat(["a", "b", "c"], 15)
    X[y == "b", :2] += 2
    a = FDROPClassifier(budget=1, C=0.5, solver="cutting_plane", tol=1e-9).fit(X, y)
    b = FDROPClassifier(budget=1, C=0.5, solver="qp").fit(X, y)
    assert a.solver_ == "cutting_plane" and b.solver_ == "qp"
    assert FDROPClassifier().fit(X[::6], y[::6]).solver_ == "cutting_plane"  # auto, even n > m
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-6)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-4)


@pytest.mark.parametrize("promote_after", [1, 2, 10**6])
def test_promoted_examples_keep_the_cutting_planes_exact(promote_after):
    """Examples switched to their own (GR) constraints, over their non-zero features only."""
    rng = np.random.default_rng(3)
    X = np.where(rng.random((15, 25)) < 0.4, rng.normal(size=(15, 25)), 0.0)  # sparse, n > m
    s = np.where(np.arange(15) % 3 == 0, 1.0, -1.0)
    w1, b1, obj1, _, ok, _, _ = _solve_cutting_plane(X, s, 3.0, 0.8, True, 1e-9, 100,
                                               promote_after=promote_after)
    w2, b2, obj2, *_ = _solve_gr_qp(X, s, 3.0, 0.8, True)
    assert ok
    assert obj1 == pytest.approx(obj2, rel=1e-6)
    np.testing.assert_allclose(w1, w2, atol=1e-4)


@pytest.mark.parametrize("support_step", [1, 2, 25])
@pytest.mark.parametrize("K", [1.0, 2.5])
def test_supports_of_any_size_end_at_the_globerson_roweis_optimum(support_step, K):
    """(GR) blocks over supports that start smaller than the adversary's deletion (step 1 < K)
    must grow until the optimum of the whole (GR) is certified, on dense outlier-like rows."""
    rng = np.random.default_rng(7)
    X = np.where(rng.random((24, 25)) < 0.3, rng.normal(size=(24, 25)), 0.0)
    X[:4] = 3.0 * rng.uniform(-1, 1, size=(4, 25))  # dense rows of large values
    s = np.where(rng.random(24) < 0.5, 1.0, -1.0)
    w1, b1, obj1, rounds, ok, lower, _ = _solve_cutting_plane(X, s, K, 0.8, True, 1e-9, 200,
                                                               support_step=support_step)
    w2, b2, obj2, *_ = _solve_gr_qp(X, s, K, 0.8, True)
    assert ok and lower <= obj2 * (1 + 1e-7)
    assert obj1 == pytest.approx(obj2, rel=1e-6)
    np.testing.assert_allclose(w1, w2, atol=1e-4)


def test_a_support_block_is_a_relaxation_and_whole_rows_are_exact():
    """The master's bound with a support block never exceeds FDROP's optimum; a support that
    holds every non-zero feature of every row makes the master (GR) itself (one round)."""
    from robustclf.linear.fdrop import _exact_blocks, _master, _restricted

    X, s = _data(seed=5, m=20, n=6)
    K, C = 2.0, 0.6
    sx = s[:, None] * X
    m, n = X.shape
    optimum = _solve_gr_qp(X, s, K, C, True)[2]
    cut_rows, cut_coef = np.arange(m), sx.copy()
    rows = np.arange(m)
    for pairs in (np.arange(m) * n, np.arange(m * n)):  # one feature per row; every feature
        block = _exact_blocks(sx, s, rows, _restricted(sx, pairs), K, n + 1 + m)
        w, b, xi, bound, reason = _master(sx, s, cut_rows, cut_coef, C, True, (block,))
        assert reason is None and bound <= optimum * (1 + 1e-7)
    assert bound == pytest.approx(optimum, rel=1e-6)


def test_a_budget_that_leaves_w_zero_optimal_warns():
    """w = 0 within the certified gap: the warning names the one-vs-rest problems; a budget the
    data support stays silent; a binary problem says its model is constant."""
    import warnings

    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X[:300] / 16, y[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        FDROPClassifier(budget=1).fit(X, y)
    with pytest.warns(UserWarning, match=r"classes at positions \[.*\] of classes_ .* arbitrary"):
        clf = FDROPClassifier(budget=6).fit(X, y)
    radius = np.sqrt(2 * (clf.objective_ - clf.lower_bound_))
    assert (np.linalg.norm(clf.coef_, axis=1) <= radius).sum() >= 2
    with pytest.warns(UserWarning, match="the model is constant"):
        FDROPClassifier(budget=8).fit(X, y == 3)
