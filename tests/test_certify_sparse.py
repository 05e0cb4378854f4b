"""The certificate on sparse X equals the certificate on the same rows dense (issue 17.3).

A sparse ``X`` is certified on its stored entries; an implicit zero enters the adversary's
knapsack only when deleting it moves the score (``D != 0``: an absent entry behind an imputer
or a centring scaler, a finite non-zero ``fill``), and then with the gain ``-y D_j`` the dense
path gives it. Every number -- certified error and bracket, every row's margins and bounds,
the attacks, whether the result is exact -- must be the dense call's, for the raw-zero
deletion and for deletions that do touch implicit zeros, binary and multi-class models,
uniform and mutual-information values, with and without the exact solver. The memory side
(no (n_samples, n_features) array) is in ``tests/test_sparse_memory.py``.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.svm import LinearSVC

import robustclf._worst_case as worst_case
from robustclf._worst_case import (
    csr_deletion_bounds,
    csr_exact_knapsack_deletion,
    exact_knapsack_deletion,
    greedy_knapsack_deletion,
    knapsack_deletion,
)
from robustclf.certify import certified_error, worst_case_margin
from robustclf.feature_values import mutual_info_values
from robustclf.linear import DeletionRobustLP

FIELDS = ("relaxed", "greedy", "lower", "upper", "tolerance")


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return func(*args, **kwargs)


def _sparse_binary(m=160, n=120, seed=0):
    """Rows with about 12 entries in (0, 1] and labels of a noisy linear rule."""
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=0.1, format="csr", random_state=rng,
                  data_rvs=lambda k: 1.0 - rng.random(k))
    score = X @ rng.standard_normal(n)
    y = (score + 0.3 * score.std() * rng.standard_normal(m) > np.median(score)).astype(int)
    return X, y


@pytest.fixture(scope="module")
def cases():
    """name -> (model, X (CSR), y, fill): the deletion of raw zeros and absence behind a
    scaler that keeps zeros at zero (``D = 0``: only stored entries matter), and absence
    behind an imputer or a centring scaler (``D != 0``: implicit zeros have gains)."""
    Xs, ys = _sparse_binary()
    digits, labels = load_digits(return_X_y=True)
    digits, labels = digits[:200], labels[:200]
    Xd = sp.csr_matrix(digits)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return {
            "lp": (DeletionRobustLP(budget=1).fit(Xs, ys), Xs, ys, np.nan),
            "logistic_binary": (LogisticRegression().fit(Xs, ys), Xs, ys, 0.0),
            "logistic_digits": (LogisticRegression(max_iter=300).fit(digits, labels), Xd,
                                labels, 0.0),
            "scaled_svc": (make_pipeline(StandardScaler(with_mean=False), LinearSVC())
                           .fit(Xs, ys), Xs, ys, 0.0),
            "maxabs_lp": (make_pipeline(MaxAbsScaler(), DeletionRobustLP(budget=1))
                          .fit(Xs, ys), Xs, ys, np.nan),
            "imputed_digits": (make_pipeline(SimpleImputer(), StandardScaler(),
                                             LogisticRegression(max_iter=300))
                               .fit(digits, labels), Xd, labels, np.nan),
            "centred_lp": (make_pipeline(StandardScaler(), DeletionRobustLP(budget=1))
                           .fit(Xs.toarray(), ys), Xs, ys, np.nan),
        }


def _values(kind, X, y):
    return "uniform" if kind == "uniform" else mutual_info_values(X, y)


def assert_same_margins(sparse, dense):
    for field in FIELDS:
        np.testing.assert_allclose(getattr(sparse, field), getattr(dense, field), rtol=1e-12,
                                   atol=1e-12, err_msg=field)
    assert (sparse.exact is None) == (dense.exact is None)
    assert sparse.relaxation_is_exact == dense.relaxation_is_exact
    assert sp.issparse(sparse.greedy_mask) and sp.issparse(sparse.attack_mask)
    np.testing.assert_array_equal(sparse.greedy_mask.toarray(), dense.greedy_mask)
    np.testing.assert_array_equal(sparse.attack_mask.toarray(), dense.attack_mask)
    if dense.exact is not None:
        np.testing.assert_array_equal(sparse.exact_mask.toarray(), dense.exact_mask)


@pytest.mark.parametrize("values", ["uniform", "mutual_info"])
@pytest.mark.parametrize("name", ["lp", "logistic_binary", "logistic_digits", "scaled_svc",
                                  "maxabs_lp", "imputed_digits", "centred_lp"])
def test_sparse_equals_dense(cases, name, values):
    model, X, y, fill = cases[name]
    dense = X.toarray()
    v = _values(values, X, y)
    # "auto" differs from True only by its 30 s wall-clock budget, which a loaded machine can
    # exhaust on one input and not the other; an explicit limit no run reaches keeps the
    # comparison about the inputs, not the load.
    for budget in (0, 1, 3):
        for exact in (False, True, "auto"):
            limit = 1e6 if exact == "auto" else None
            sparse_cert = _quiet(certified_error, model, X, y, budget, v, exact=exact, fill=fill,
                                 time_limit=limit)
            dense_cert = _quiet(certified_error, model, dense, y, budget, v, exact=exact,
                                fill=fill, time_limit=limit)
            assert sparse_cert == dense_cert
        sparse_wc = _quiet(worst_case_margin, model, X, y, budget, v, exact=True, fill=fill)
        dense_wc = _quiet(worst_case_margin, model, dense, y, budget, v, exact=True, fill=fill)
        assert_same_margins(sparse_wc, dense_wc)
        bounds = worst_case_margin(model, X, y, budget, v, exact=False, fill=fill)
        assert_same_margins(bounds, worst_case_margin(model, dense, y, budget, v, exact=False,
                                                      fill=fill))


def test_the_cases_attack_implicit_zeros_where_deletion_moves_them(cases):
    """The D != 0 cases are real ones: their worst attacks delete implicit zeros."""
    for name in ("imputed_digits", "centred_lp"):
        model, X, y, fill = cases[name]
        wc = worst_case_margin(model, X, y, 3, exact=False, fill=fill)
        implicit = wc.greedy_mask.multiply(X != 0) != wc.greedy_mask
        assert implicit.nnz > 0, name
    for name in ("scaled_svc", "maxabs_lp"):  # scalers that keep zeros at zero: D = 0
        model, X, y, fill = cases[name]
        wc = worst_case_margin(model, X, y, 3, exact=False, fill=fill)
        assert wc.greedy_mask.nnz > 0
        assert (wc.greedy_mask.multiply(X != 0) != wc.greedy_mask).nnz == 0


def test_every_sparse_format_gives_the_result_of_its_kind(cases):
    model, X, y, _ = cases["logistic_binary"]
    expected = worst_case_margin(model, X.toarray(), y, 2, fill=0.0)
    for Xs in (X.tocsc(), X.tocoo(), sp.csr_array(X), sp.coo_array(X)):
        before = Xs.copy()
        wc = worst_case_margin(model, Xs, y, 2, fill=0.0)
        assert_same_margins(wc, expected)
        array = isinstance(Xs, sp.sparray)
        assert isinstance(wc.attack_mask, sp.csr_array if array else sp.csr_matrix)
        assert (Xs != before).nnz == 0  # the input is not modified
    assert certified_error(model, X.tocsc(), y, 2, fill=0.0) == certified_error(
        model, X.toarray(), y, 2, fill=0.0)


def test_duplicates_explicit_zeros_and_unsorted_indices_read_as_the_dense_matrix(cases):
    model, X, y, _ = cases["logistic_binary"]
    coo = X.tocoo()
    half = coo.data / 2  # every entry stored as two halves, plus explicit zeros
    rows = np.r_[coo.row, coo.row, np.arange(X.shape[0])]
    cols = np.r_[coo.col, coo.col, np.zeros(X.shape[0], dtype=int)]
    data = np.r_[half, half, np.zeros(X.shape[0])]
    messy = sp.coo_matrix((data, (rows, cols)), shape=X.shape)
    dense = messy.toarray()
    shuffled = sp.csr_matrix(X)
    shuffled.has_sorted_indices = False
    for row in range(X.shape[0]):  # reverse each row's indices (a non-canonical CSR)
        lo, hi = shuffled.indptr[row], shuffled.indptr[row + 1]
        shuffled.indices[lo:hi] = shuffled.indices[lo:hi][::-1].copy()
        shuffled.data[lo:hi] = shuffled.data[lo:hi][::-1].copy()
    for Xs, Xd in ((messy, dense), (shuffled, X.toarray())):
        for fill in (0.0, 1.5):
            assert_same_margins(worst_case_margin(model, Xs, y, 2, fill=fill),
                                worst_case_margin(model, Xd, y, 2, fill=fill))


def test_sparse_errors_name_the_input(cases):
    model, X, y, _ = cases["logistic_binary"]
    bad = X.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        certified_error(model, bad, y, 1, fill=0.0)
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match="X contains infinite values"):
        certified_error(model, bad, y, 1, fill=0.0)
    with pytest.raises(ValueError, match="X has 119 features, but 120 were expected"):
        certified_error(model, X[:, :-1], y, 1, fill=0.0)
    with pytest.raises(ValueError, match="cannot take the absent"):
        certified_error(model, X, y, 1)  # a bare scikit-learn model and fill=nan


def test_empty_rows_and_no_rows():
    X, y = _sparse_binary(m=60, n=30, seed=3)
    model = LogisticRegression().fit(X, y)
    X = X.tolil()
    X[:5] = 0.0  # rows without stored entries
    X = X.tocsr()
    for fill in (0.0, 2.0):
        assert_same_margins(worst_case_margin(model, X, y, 2, fill=fill),
                            worst_case_margin(model, X.toarray(), y, 2, fill=fill))
    empty = worst_case_margin(model, X[:0], y[:0], 2, fill=0.0)
    assert empty.relaxed.shape == (0,) and empty.attack_mask.shape == (0, 30)
    with pytest.raises(ValueError, match="X has 0 rows"):  # no error rate of no rows (issue 19)
        certified_error(model, X[:0], y[:0], 2, fill=0.0)


# -- the solvers themselves, on gains with implicit entries ------------------------------------


@st.composite
def implicit_problems(draw):
    """Sparse gains with shared implicit gains per group, as dense gains; integer-valued
    gains and values so that ratios tie, tiny and zero values so that the greedy's scan runs
    past long prefixes."""
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    m, n = draw(st.integers(1, 30)), draw(st.integers(1, 25))
    groups = draw(st.integers(1, 3))
    density = draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    integer = draw(st.booleans())

    def draw_gains(shape):
        g = rng.integers(-3, 4, size=shape) if integer else rng.normal(size=shape)
        return g.astype(float)

    stored = sp.random(m, n, density=density, format="csr", random_state=rng,
                       data_rvs=lambda k: draw_gains(k))
    implicit = draw_gains((groups, n))
    implicit[rng.random((groups, n)) < draw(st.sampled_from([0.0, 0.5, 1.0]))] = 0.0
    group = rng.integers(0, groups, size=m)
    kind = draw(st.sampled_from(["unit", "integer", "real", "tiny"]))
    values = {"unit": np.ones(n), "integer": rng.integers(0, 4, size=n).astype(float),
              "real": rng.uniform(0, 2, size=n),
              "tiny": np.where(rng.random(n) < 0.3, 1e-3, rng.uniform(0.5, 2, size=n))}[kind]
    budget = float(draw(st.sampled_from([0.0, 1.0, 2.5, 4.0])))
    dense = implicit[group].copy()
    rows = np.repeat(np.arange(m), np.diff(stored.indptr))
    dense[rows, stored.indices] = stored.data
    return stored, implicit, group, values, budget, dense


@settings(max_examples=200, deadline=None)
@given(implicit_problems(), st.sampled_from([(4, 0), (2**18, 0), (2**18, 16)]))
def test_csr_deletion_bounds_equal_the_dense_solvers(problem, sizes):
    """Same relaxed value and same greedy deletion as the dense functions, also when the rows
    are cut into blocks of a few entries and the first prefixes are as short as can be (rows
    scanned again with longer ones)."""
    stored, implicit, group, values, budget, dense = problem
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(worst_case, "_CSR_BLOCK_ENTRIES", sizes[0])
        patch.setattr(worst_case, "_PREFIX_SLACK", sizes[1])
        out = csr_deletion_bounds(stored, implicit, group, values, budget)
    relaxed = knapsack_deletion(dense, values, budget).relaxed_gain
    greedy, mask = greedy_knapsack_deletion(dense, values, budget)
    np.testing.assert_allclose(out.relaxed_gain, relaxed, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.greedy_gain, greedy, rtol=1e-12, atol=1e-12)
    found = np.zeros_like(mask)
    found[out.rows, out.cols] = True
    np.testing.assert_array_equal(found, mask)
    assert out.rows.size == mask.sum()  # no entry twice


@settings(max_examples=100, deadline=None)
@given(implicit_problems(), st.sampled_from([1, 2**18]))
def test_csr_exact_equals_the_dense_exact_solver(problem, block):
    stored, implicit, group, values, budget, dense = problem
    rows = np.flatnonzero(np.arange(dense.shape[0]) % 2 == 0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(worst_case, "_CSR_BLOCK_ENTRIES", block)
        sol = csr_exact_knapsack_deletion(stored, implicit, group, rows, values, budget)
    ref = exact_knapsack_deletion(dense[rows], values, budget)
    assert sol.method == ref.method and sol.status == ref.status == "optimal"
    np.testing.assert_allclose(sol.gain, ref.gain, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sol.bound, ref.bound, rtol=1e-9, atol=1e-9)
    mask = sol.mask.toarray()
    assert np.all(mask @ values <= budget * (1 + 1e-12) + 1e-12)
    np.testing.assert_allclose(np.where(mask, dense[rows], 0.0).sum(axis=1), sol.gain,
                               rtol=1e-12, atol=1e-12)


def test_the_exact_method_is_chosen_as_the_dense_solver_chooses():
    """Dynamic programming only when the dense table over all n columns fits max_work, even
    though each block sees fewer columns."""
    rng = np.random.default_rng(0)
    stored = sp.random(40, 500, density=0.02, format="csr", random_state=rng)
    implicit, group, values = np.zeros((1, 500)), np.zeros(40, dtype=int), np.ones(500)
    rows = np.arange(40)
    assert csr_exact_knapsack_deletion(stored, implicit, group, rows, values, 2.0,
                                       max_work=40 * 500 * 3).method == "dp"
    assert csr_exact_knapsack_deletion(stored, implicit, group, rows, values, 2.0,
                                       max_work=40 * 500 * 3 - 1).method == "milp"


# -- dask arrays of sparse chunks --------------------------------------------------------------


def test_sparse_chunks_on_a_cluster(dask_client, cases):
    da = pytest.importorskip("dask.array")
    model, X, y, _ = cases["logistic_binary"]
    for fill in (0.0, 1.5):  # stored entries only; implicit zeros too
        chunked = da.from_array(X, chunks=(70, X.shape[1]), asarray=False)
        assert certified_error(model, chunked, y, 2, fill=fill) == certified_error(
            model, X, y, 2, fill=fill)
        lazy = _quiet(worst_case_margin, model, chunked, y, 2, fill=fill)
        wc = _quiet(worst_case_margin, model, X, y, 2, fill=fill)
        for field in FIELDS:
            np.testing.assert_array_equal(getattr(lazy, field), getattr(wc, field))
        assert isinstance(lazy.attack_mask, da.Array)
        assert isinstance(lazy.attack_mask._meta, sp.csr_matrix)
        blocks = [lazy.attack_mask.blocks[i].compute()
                  for i in range(lazy.attack_mask.numblocks[0])]
        assert all(isinstance(b, sp.csr_matrix) for b in blocks)
        assert (sp.vstack(blocks) != wc.attack_mask).nnz == 0
