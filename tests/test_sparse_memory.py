"""Sparse input stays sparse in memory (issue 17.3).

Every test runs one path on a CSR matrix whose dense copy would take 640-800 MB and asserts
that the peak of the memory traced by ``tracemalloc`` (numpy and scipy allocate through it)
stays under 50 MB: a path that densified the matrix, or built any (n_samples, n_features)
array, fails. The runs are cut short (one epoch, one cutting-plane round) to stay fast; the
memory of a path does not grow with its iterations.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline

from robustclf.certify import certified_error, worst_case_margin
from robustclf.corruption import GreedyDeletion, RandomDeletion
from robustclf.feature_values import mutual_info_values, resolve_feature_values
from robustclf.linear import DeletionRobustLP, DeletionRobustPerceptron, FDROPClassifier
from robustclf.linear._deletion_lp_solvers import choose_solver
from robustclf.linear.fdrop import fdrop_hinge_loss

LIMIT = 50e6  # bytes of traced peak memory allowed to any path below


def _problem(m, n, nnz_per_row, noise, seed, used=None):
    """A CSR matrix with about ``nnz_per_row`` entries in [0, 1) per row and labels of a noisy
    linear rule; with ``used``, only that many of the n columns (spread at random) hold
    entries, so that the problem is as hard as a narrow one while X is as wide as asked."""
    rng = np.random.default_rng(seed)
    k = n if used is None else used
    X = sp.random(m, k, density=nnz_per_row / k, format="csr", random_state=rng,
                  data_rvs=rng.random)
    score = X @ rng.standard_normal(k)
    y = (score + noise * score.std() * rng.standard_normal(m) > np.median(score)).astype(int)
    if used is not None:
        cols = rng.choice(n, used, replace=False)
        X = X.tocoo()
        X = sp.csr_matrix((X.data, (X.row, cols[X.col])), shape=(m, n))
    assert X.shape[0] * X.shape[1] * 8 > 12 * LIMIT  # densifying it could not pass
    return X, y


@pytest.fixture(scope="module")
def tall():
    """20,000 x 5,000, 10 entries a row (density 0.2 %): dense, 800 MB."""
    return _problem(20_000, 5_000, 10, 0.1, seed=0)


@pytest.fixture(scope="module")
def narrow_in_wide():
    """5,000 x 20,000 with 200 columns in use, noisy labels: an LP that is not separable (so
    the cutting planes solve one), X 800 MB if dense."""
    return _problem(5_000, 20_000, 10, 0.5, seed=1, used=200)


@pytest.fixture(scope="module")
def wide():
    """3,000 x 30,000, 10 entries a row: dense, 720 MB."""
    return _problem(3_000, 30_000, 10, 0.1, seed=2)


def _peak(func, *args, **kwargs):
    """``func(*args, **kwargs)`` and the peak traced memory (bytes) during the call."""
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # short runs, on purpose
            out = func(*args, **kwargs)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _fit(est, X, y):
    return est.fit(X, y)


def _stream(est, X, y, size=4_096):
    for start in range(0, X.shape[0], size):
        est.partial_fit(X[start:start + size], y[start:start + size], classes=[0, 1])
    return est


# --- feature values ---------------------------------------------------------------------


def test_mutual_info_values_of_a_sparse_matrix(tall):
    X, y = tall
    values, peak = _peak(resolve_feature_values, "mutual_info", X, y)
    assert peak < LIMIT
    assert values.shape == (X.shape[1],) and values.sum() == pytest.approx(X.shape[1])
    np.testing.assert_array_equal(values, mutual_info_values(X, y))


# --- DeletionRobustLP -------------------------------------------------------------------


def test_lp_default_solver_with_mutual_info(tall):
    """The done-when case of issue 17 at twice its size: the default solver on a large sparse
    matrix is the first-order one, and it runs on the stored entries."""
    X, y = tall
    est, peak = _peak(_fit, DeletionRobustLP(feature_values="mutual_info", max_iter=1,
                                             random_state=0), X, y)
    assert peak < LIMIT
    assert est.solver_ == "subgradient" and est.objective_[0] < 1.0  # w = 0 has F = 1


def test_auto_solver_is_chosen_by_size_alike_for_dense_and_sparse():
    rng = np.random.default_rng(0)
    small = np.where(rng.random((300, 256)) < 0.5, rng.random((300, 256)), 0.0)
    assert choose_solver(small) == choose_solver(sp.csr_matrix(small)) == "cutting_plane"
    wider = np.hstack([small, small[:, :1]])  # 257 features: 300 x 257 = 77,100 LP cells
    assert choose_solver(wider) == choose_solver(sp.csr_matrix(wider)) == "lp"
    wide = np.hstack([wider] * 3)[:259]  # 259 x 771 = 199,689 cells; one more row: 200,460
    assert choose_solver(wide) == choose_solver(sp.csr_matrix(wide)) == "lp"
    taller = np.vstack([wide, wide[:1]])
    assert choose_solver(taller) == choose_solver(sp.csr_matrix(taller)) == "subgradient"
    rows = 2_000_000 // 100 + 1  # 100 entries a row: just over 2e6 non-zeros
    many = sp.csr_matrix((np.ones(rows * 100), np.tile(np.arange(100), rows),
                          np.arange(0, rows * 100 + 1, 100)), shape=(rows, 100))
    assert choose_solver(many) == "subgradient" and choose_solver(many[:-1]) == "cutting_plane"


def test_lp_partial_fit_stream(tall):
    X, y = tall
    est, peak = _peak(_stream, DeletionRobustLP(), X, y)
    assert peak < LIMIT and est.score(X[:2_000], y[:2_000]) > 0.6


def test_lp_cutting_planes(narrow_in_wide):
    X, y = narrow_in_wide
    est, peak = _peak(_fit, DeletionRobustLP(feature_values="mutual_info",
                                             solver="cutting_plane", max_iter=1,
                                             random_state=0), X, y)
    assert peak < LIMIT
    assert est.n_iter_[0] == 1 and est.gap_[0] > 0  # one cut LP solved, not the shortcut


# --- FDROP ------------------------------------------------------------------------------


def test_fdrop_sgd(tall):
    X, y = tall
    est, peak = _peak(_fit, FDROPClassifier(solver="sgd", max_iter=1, random_state=0), X, y)
    assert peak < LIMIT and est.n_iter_[0] == 1


def test_fdrop_cutting_planes(narrow_in_wide):
    pytest.importorskip("clarabel")
    X, y = narrow_in_wide
    est, peak = _peak(_fit, FDROPClassifier(solver="cutting_plane", max_iter=1), X, y)
    assert peak < LIMIT and est.n_iter_[0] == 1


def test_fdrop_hinge_loss(tall):
    X, y = tall
    s = np.where(y == 1, 1.0, -1.0)
    w = np.random.default_rng(0).normal(size=X.shape[1])
    loss, peak = _peak(fdrop_hinge_loss, w, 0.2, X, s, 2.0)
    assert peak < LIMIT
    np.testing.assert_allclose(loss[:500], fdrop_hinge_loss(w, 0.2, X[:500].toarray(), s[:500],
                                                            2.0), rtol=1e-12, atol=1e-12)


# --- DeletionRobustPerceptron -----------------------------------------------------------


def test_perceptron_fit(wide):
    X, y = wide
    est, peak = _peak(_fit, DeletionRobustPerceptron(random_state=0), X, y)
    assert peak < LIMIT
    assert est.n_updates_[0] > 0 and est.lower_bound_[0] <= est.objective_[0]


def test_perceptron_partial_fit_and_robust_loss(wide):
    X, y = wide
    est, peak = _peak(_stream, DeletionRobustPerceptron(), X, y, size=1_000)
    assert peak < LIMIT
    loss, peak = _peak(est.robust_loss, X, y)
    assert peak < LIMIT and loss.shape == (1, X.shape[0]) and np.all(loss >= 0)


# --- corruptions and certification (owned elsewhere; checked here) -------------------


@pytest.fixture(scope="module")
def lp_model(tall):
    X, y = tall
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return DeletionRobustLP(solver="subgradient", max_iter=1, random_state=0).fit(X, y)


def test_greedy_deletion(tall, lp_model):
    X, y = tall
    out, peak = _peak(GreedyDeletion(budget=2, fill=0.0).corrupt, X, y, model=lp_model)
    assert peak < LIMIT and sp.issparse(out) and out.nnz < X.nnz


def test_random_deletion_with_zero_fill(tall):
    """(With the default ``fill=np.nan`` every deleted implicit zero becomes a stored NaN:
    30 % of all entries, so that output is 1.8 GB by construction.)"""
    X, _ = tall
    out, peak = _peak(RandomDeletion(fraction=0.3, fill=0.0).corrupt, X, random_state=0)
    assert peak < LIMIT and sp.issparse(out) and out.nnz < X.nnz


@pytest.fixture(scope="module")
def imputed_model(tall, lp_model):
    """A mean imputer before the LP: deleting a feature (NaN) writes the imputer's mean, so
    deleting an implicit zero moves the score (D != 0)."""
    X, _ = tall
    return make_pipeline(SimpleImputer().fit(X), lp_model)


@pytest.mark.parametrize("func", [certified_error, worst_case_margin])
def test_certification(tall, lp_model, func):
    X, y = tall
    _, peak = _peak(func, lp_model, X, y, budget=1, fill=0.0)
    assert peak < LIMIT


def test_certification_with_exact_solves(tall, lp_model):
    """Mutual-information values: the exact solver settles the rows the bounds leave open."""
    X, y = tall
    values = mutual_info_values(X, y)
    out, peak = _peak(certified_error, lp_model, X, y, budget=1, feature_values=values,
                      fill=0.0)
    assert peak < LIMIT
    bounds = certified_error(lp_model, X, y, budget=1, feature_values=values, exact=False,
                             fill=0.0)
    assert out.is_exact and bounds.n_undecided > 0


@pytest.mark.parametrize("func", [certified_error, worst_case_margin])
def test_certification_of_implicit_zeros(tall, imputed_model, func):
    X, y = tall
    out, peak = _peak(func, imputed_model, X, y, budget=3)
    assert peak < LIMIT
    if func is worst_case_margin:  # the attacks delete implicit zeros too
        assert (out.attack_mask.multiply(X != 0) != out.attack_mask).nnz > 0
