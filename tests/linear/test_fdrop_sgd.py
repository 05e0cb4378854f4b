"""Tests of FDROPClassifier's first-order solver (``solver="sgd"``)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from robustclf.linear._fdrop_sgd import (
    _best_intercept,
    _csr_parts,
    _padded_rows,
    _robust_slack_padded,
)
from robustclf.linear.fdrop import FDROPClassifier, fdrop_hinge_loss


def _data(seed=0, m=200, n=20):
    """Labels carried redundantly by 70 % of the features (K = 3 deletions leave a signal)."""
    rng = np.random.default_rng(seed)
    s = rng.choice([-1.0, 1.0], size=m)
    X = rng.normal(size=(m, n)) + 0.8 * s[:, None] * (rng.random(n) < 0.7)
    return X, s


def _objective(est, X, s, K, C):
    w, b = est.coef_[0], est.intercept_[0]
    return 0.5 * w @ w + C * fdrop_hinge_loss(w, b, X, s, K).sum()


@pytest.mark.parametrize("budget", [0.0, 1.0, 2.5, 7.0, 40.0])
def test_padded_slack_is_the_shared_knapsack(budget):
    """The argpartition split equals ``knapsack_deletion`` (fractional K, K >= non-zeros)."""
    rng = np.random.default_rng(1)
    X = np.where(rng.random((30, 12)) < 0.5, rng.normal(size=(30, 12)), 0.0)
    X[0] = 0.0  # an empty row
    s = rng.choice([-1.0, 1.0], size=30)
    W = rng.normal(size=(2, 12))
    cols, vals = _padded_rows(_csr_parts(X), np.arange(30))
    slack = _robust_slack_padded(W, np.vstack([s, -s]), cols, vals, min(budget, 12.0))
    for k, sign in enumerate([s, -s]):
        expected = fdrop_hinge_loss(W[k], 0.0, X, sign, min(budget, 12.0))
        np.testing.assert_allclose(np.maximum(slack[k], 0.0), expected, atol=1e-12)


@pytest.mark.parametrize("budget", [1.0, 1.5, 3.0])
def test_deleted_fractions_with_ties(budget):
    """The subgradient's deletion is a knapsack vertex mix: fractions in [0, 1], summing to
    min(K, #positive gains), with the same harm; ties (equal gains) included."""
    X = np.array([[5.0, 3.0, 3.0, 3.0, -1.0, 0.0], [2.0, 2.0, 0.0, 0.0, 0.0, 0.0],
                  [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])
    W = np.ones((1, 6))
    S = np.ones((1, 3))
    cols, vals = _padded_rows(_csr_parts(X), np.arange(3))
    slack, keep = _robust_slack_padded(W, S, cols, vals, budget, kept=True)
    delta = 1.0 - keep[0]
    gains = vals * W[0, cols]
    assert np.all((delta >= 0) & (delta <= 1))
    np.testing.assert_allclose(delta.sum(axis=1), np.minimum(budget, (gains > 0).sum(axis=1)))
    np.testing.assert_allclose(slack[0], 1.0 - X.sum(axis=1) + (delta * gains).sum(axis=1))


def test_best_intercept_is_the_minimiser():
    rng = np.random.default_rng(2)
    slack, S = rng.normal(size=(3, 25)), rng.choice([-1.0, 1.0], size=(3, 25))
    b = _best_intercept(slack, S)
    grid = np.linspace(-4, 4, 8001)
    values = np.maximum(slack[:, None, :] - S[:, None, :] * grid[None, :, None], 0.0).sum(axis=2)
    at_b = np.maximum(slack - S * b[:, None], 0.0).sum(axis=1)
    assert np.all(at_b <= values.min(axis=1) + 1e-12)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("C", "params"), [(0.1, {}), (1.0, {"tol": 1e-4, "max_iter": 100})])
def test_objective_close_to_the_exact_optimum(C, params):
    """Measured gaps to the cutting-plane optimum (seeds 0, 1, 2): 0.7, 1.0, 0.9 % at C = 0.1
    (defaults, 9-12 epochs); 1.1, 1.0, 1.1 % at C = 1 with tol = 1e-4 (94-100 epochs; the
    defaults stop at 30 epochs, 5.4-6.2 % above). With the deletion left out of training (the
    budget-0 optimum) the robust objective is 58 % (C = 0.1) and 150 % (C = 1) above the
    optimum, so the 3 % bound fails without the top-K term."""
    pytest.importorskip("clarabel")
    X, s = _data()
    exact = FDROPClassifier(budget=3, C=C, tol=1e-9).fit(X, s).objective_[0]
    est = FDROPClassifier(budget=3, C=C, solver="sgd", random_state=0, **params)
    est.fit(X, s)
    assert est.solver_ == "sgd"
    assert est.objective_[0] == pytest.approx(_objective(est, X, s, 3, C), rel=1e-10)
    assert exact <= est.objective_[0] * (1 + 1e-7)
    assert est.objective_[0] <= exact * 1.03


def test_dense_and_sparse_give_the_same_model():
    X, s = _data(seed=3, m=150)
    X[np.abs(X) < 0.8] = 0.0
    A = sp.coo_matrix(X)
    perm = np.random.default_rng(0).permutation(A.nnz)  # unsorted, with explicit zeros
    A = sp.csr_matrix((np.r_[A.data[perm], 0.0], (np.r_[A.row[perm], 5], np.r_[A.col[perm], 0])),
                      shape=X.shape)
    A.has_canonical_format = False
    copy = A.copy()
    kw = dict(budget=2, C=0.5, solver="sgd", random_state=4, max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = FDROPClassifier(**kw).fit(X, s)
        sparse = FDROPClassifier(**kw).fit(A, s)
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)
    assert (A != copy).nnz == 0 and np.array_equal(A.indices, copy.indices)  # input untouched


def test_deterministic_per_seed():
    X, s = _data(seed=5, m=400)  # several mini-batches (one batch of all rows ignores the seed)
    fit = lambda seed: FDROPClassifier(budget=2, solver="sgd", random_state=seed,  # noqa: E731
                                       max_iter=4, tol=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a, b, c = fit(0).fit(X, s), fit(0).fit(X, s), fit(1).fit(X, s)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.allclose(a.coef_, c.coef_)
    assert a.n_iter_.tolist() == [4]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # loose gap
def test_one_pass_equals_per_class_fits():
    """Every problem has its own step and stopping epoch; the row order depends on the seed only."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(240, 8))
    y = np.repeat([0, 1, 2], 80)
    X[y == 1, :4] += 1.5
    X[y == 2, 4:] += 1.5
    X0 = X.copy()
    kw = dict(budget=1.5, C=0.3, solver="sgd", random_state=7)
    joint = FDROPClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(X, X0)
    assert joint.coef_.shape == (3, 8) and joint.n_iter_.shape == (3,)
    assert joint.score(X, y) > 0.75  # chance 1/3; the exact optimum (cutting planes) scores 0.79
    for k in range(3):
        alone = FDROPClassifier(**kw).fit(X, y == k)
        np.testing.assert_allclose(alone.coef_[0], joint.coef_[k], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(alone.intercept_[0], joint.intercept_[k], rtol=1e-12)
        assert alone.n_iter_[0] == joint.n_iter_[k]
        assert alone.objective_[0] == pytest.approx(joint.objective_[k], rel=1e-12)


def test_no_intercept_and_convergence_warning():
    X, s = _data(seed=8, m=100)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        est = FDROPClassifier(budget=1, solver="sgd", fit_intercept=False, max_iter=2, tol=0.0,
                              random_state=0).fit(X, s)
    assert est.intercept_[0] == 0.0 and est.n_iter_[0] == 2


@pytest.mark.parametrize(("params", "match"), [
    ({"random_state": -1}, "random_state must be non-negative"),
    ({"random_state": "a"}, "random_state must be None, an int"),
    ({"max_iter": 0}, "max_iter must be >= 1"),
    ({"tol": -1.0}, "tol must be >= 0"),
    ({"budget": 21}, "budget must be at most the total feature value"),
    ({"C": -1.0}, "C must be >= 0"),
])
def test_bad_parameters(params, match):
    X, s = _data(m=20)
    with pytest.raises(ValueError, match=match):
        FDROPClassifier(solver="sgd", **params).fit(X, s)
