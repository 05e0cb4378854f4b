"""GeometricMarginSVC without quadratic memory (issue 17, point 4).

The linear kernel beyond ``LINEAR_BLOCK`` rows is solved in ``w``-space (``_linear_step``: a
decomposition whose reduced solves are libsvm solves on blocks of rows, margins from ``X0 @ w``),
never forming the ``n x n`` kernel; the polynomial kernel of degree >= 4 computes the support
vectors' Gram matrix once and masks it per pattern; prediction is blockwise on dask arrays.
Here ``LINEAR_BLOCK`` is lowered so that the w-space path runs on the small data of the existing
tests, and compared with the path on the whole kernel.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSVC, geometric_svm, masked_kernel, missingness_patterns
from robustclf.missing import _geometric_solver as gs
from robustclf.missing.kernels import restricted_sq_norms


def _missing(n=240, seed=0, noise_std=0.3):
    return make_structurally_missing(n, n_blocks=3, block_size=3, noise_std=noise_std,
                                     random_state=seed)


def _pair(monkeypatch, X, y, block=32, sample_weight=None, **params):
    """The same fit on the whole kernel and in w-space (working sets of ``block`` copies)."""
    dual = GeometricMarginSVC(**params).fit(X, y, sample_weight=sample_weight)
    monkeypatch.setattr(gs, "LINEAR_BLOCK", block)
    shapes = []
    real = geometric_svm.masked_kernel

    def recording(A, MA, B, MB, **kwargs):
        shapes.append((A.shape[0], B.shape[0]))
        return real(A, MA, B, MB, **kwargs)

    monkeypatch.setattr(geometric_svm, "masked_kernel", recording)
    primal = GeometricMarginSVC(**params).fit(X, y, sample_weight=sample_weight)
    assert shapes == []  # neither at fit nor below: no kernel at all for the linear kernel
    primal.decision_function(X)
    assert shapes == []
    monkeypatch.undo()
    return dual, primal


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_w_space_path_equals_the_kernel_path_to_the_solver_tolerance(monkeypatch, bias, C):
    """Every iterate: KKT residual below svm_tol, Eq. (6) objective within 1e-3 (the accuracy
    of svm_tol=1e-3, measured up to 3e-4), identical training predictions."""
    X, y = _missing()
    dual, primal = _pair(monkeypatch, X, y, C=C, bias=bias, max_iter=4)
    its = primal.iterates_[0]
    assert max(it.rounds for it in its) > 1  # the decomposition was used, not one solve
    assert primal.kkt_residual_ <= primal.svm_tol
    k = min(dual.n_iter_, primal.n_iter_)
    np.testing.assert_allclose(primal.objective_history_[:k], dual.objective_history_[:k],
                               rtol=1e-3)
    np.testing.assert_array_equal(primal.predict(X), dual.predict(X))
    np.testing.assert_allclose(primal.decision_function(X), dual.decision_function(X),
                               atol=2e-2)
    for it in its:  # w is the expansion of the dual coefficients it reports
        np.testing.assert_allclose(it.w, primal.X_fit_[it.support].T @ it.coef, atol=1e-12)


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
def test_w_space_path_converges_to_the_same_model_as_svm_tol_shrinks(monkeypatch, bias):
    X, y = _missing(seed=1)
    dual, primal = _pair(monkeypatch, X, y, C=1.0, bias=bias, max_iter=3, svm_tol=1e-7, tol=0)
    assert primal.n_iter_ == dual.n_iter_ == 4
    for a, b in zip(dual.iterates_[0], primal.iterates_[0], strict=True):
        np.testing.assert_allclose(b.fit_scalings, a.fit_scalings, atol=1e-5)
        np.testing.assert_allclose(b.w, a.w, atol=1e-5 * np.linalg.norm(a.w))
        assert b.intercept == pytest.approx(a.intercept, abs=1e-4)
    np.testing.assert_allclose(primal.decision_function(X), dual.decision_function(X),
                               atol=1e-4)


def test_w_space_step_solves_eq6_exactly_for_fixed_scalings():
    """One reduced-solve decomposition against the primal QP of Eq. (6) (cvxpy + Clarabel)."""
    pytest.importorskip("cvxpy")
    pytest.importorskip("clarabel")
    from robustclf._oracles.missing import eq6_objective, eq6_primal

    X, y = _missing(200, seed=2, noise_std=0.5)
    X0, y = np.nan_to_num(X), np.where(y > 0, 1.0, -1.0)
    s = np.random.default_rng(2).uniform(0.4, 1.0, y.size)
    for bias in ("scaled", "unscaled"):
        sup, coef, b, rounds, capped = gs._linear_step(X0, y, s, 1.0, bias, 1e-8, block=24)
        assert rounds > 1 and not capped
        w = X0[sup].T @ coef
        w_o, b_o, f_o = eq6_primal(X0, y, s, 1.0, bias)
        assert eq6_objective(X0, y, s, 1.0, bias, w, b) == pytest.approx(f_o, rel=1e-7)
        np.testing.assert_allclose(w, w_o, atol=1e-5 * np.linalg.norm(w_o))
        assert b == pytest.approx(b_o, abs=1e-5)


def test_w_space_path_with_weights_equals_repeated_rows(monkeypatch):
    X, y = _missing(120, seed=3)
    weights = np.random.default_rng(3).integers(0, 4, size=y.size)
    monkeypatch.setattr(gs, "LINEAR_BLOCK", 24)
    weighted = GeometricMarginSVC(max_iter=2, svm_tol=1e-8).fit(X, y, sample_weight=weights)
    repeated = GeometricMarginSVC(max_iter=2, svm_tol=1e-8).fit(np.repeat(X, weights, axis=0),
                                                                np.repeat(y, weights))
    np.testing.assert_allclose(weighted.objective_history_, repeated.objective_history_,
                               rtol=1e-6)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X),
                               atol=1e-5)


def test_w_space_multiclass_and_early_stopping(monkeypatch):
    X, y = _missing(300, seed=4)
    y3 = np.where(y > 0, 2, np.arange(y.size) % 2)
    monkeypatch.setattr(gs, "LINEAR_BLOCK", 64)
    model = GeometricMarginSVC(max_iter=2, early_stopping=True, random_state=0).fit(X, y3)
    refit = GeometricMarginSVC(max_iter=model.best_iteration_).fit(X, y3)
    np.testing.assert_array_equal(model.decision_function(X), refit.decision_function(X))
    assert model.decision_function(X).shape == (300, 3)
    assert all(it.w is not None for its in model.iterates_ for it in its)


def test_w_space_round_cap_surfaces_as_a_convergence_warning(monkeypatch):
    """Stopped before libsvm's rule holds on all rows: the KKT check reports it."""
    X, y = _missing()
    monkeypatch.setattr(gs, "LINEAR_BLOCK", 16)
    monkeypatch.setattr(gs, "_LINEAR_MAX_ROUNDS", 1)
    with pytest.warns(ConvergenceWarning, match="ended above their KKT tolerance"):
        model = GeometricMarginSVC(max_iter=1).fit(X, y)
    assert model.kkt_residual_ > model.svm_tol


def test_w_space_libsvm_cap_stops_the_decomposition_and_warns(monkeypatch):
    from robustclf.missing import _signed_qp as sq

    X, y = _missing()
    monkeypatch.setattr(gs, "LINEAR_BLOCK", 32)
    monkeypatch.setattr(sq, "libsvm_max_iter", lambda n: 3)
    with pytest.warns(ConvergenceWarning, match="libsvm stopped at its iteration cap"):
        model = GeometricMarginSVC(max_iter=1).fit(X, y)
    assert all(it.libsvm_capped and it.rounds == 1 for it in model.iterates_[0])


def test_linear_fit_memory_does_not_grow_with_n_squared():
    """6,000 rows: the kernel alone would take 288 MB; the w-space fit stays far below."""
    rng = np.random.default_rng(5)
    n, d = 6000, 40
    X = rng.standard_normal((n, d))
    y = (X[:, :5].sum(axis=1) + rng.standard_normal(n) > 0).astype(int)
    X[rng.random((n, d)) < 0.2] = np.nan
    tracemalloc.start()
    try:
        GeometricMarginSVC(max_iter=1, C=0.1).fit(X, y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # data copies (X0, masks: ~4 MB) plus two kernel blocks of LINEAR_BLOCK rows (2 x 33 MB)
    assert peak < 2.5 * 8 * gs.LINEAR_BLOCK**2 + 20 * n * d
    assert peak < 0.4 * 8 * n * n


# -- the polynomial kernel of degree >= 4: one Gram matrix, masked per pattern ------------------
@pytest.mark.parametrize("degree", [4, 5])
@pytest.mark.parametrize("p_missing", [0.15, 0.8])  # both branches: absent or valid fewer
def test_poly_norms_mask_one_gram_matrix(degree, p_missing):
    rng = np.random.default_rng(degree)
    X = rng.standard_normal((60, 12))
    X[rng.random(X.shape) < p_missing] = np.nan
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    X0[:, 3] = 0.0  # a feature no support vector carries
    coef = rng.standard_normal(60)
    patterns, _ = missingness_patterns(M)
    params = dict(kernel="poly", degree=degree, gamma=0.3, coef0=1.2)
    sq, full = restricted_sq_norms(X0, M, coef, patterns, **params)
    ref = [coef @ masked_kernel(X0 * m, M & m, X0 * m, M & m, **params) @ coef for m in patterns]
    np.testing.assert_allclose(sq, ref, rtol=1e-10)
    assert full == pytest.approx(coef @ masked_kernel(X0, M, X0, M, **params) @ coef,
                                 rel=1e-12)


def test_poly_degree_four_fit_predicts_with_the_support_vectors_only(monkeypatch):
    X, y = _missing(150, seed=6)
    model = GeometricMarginSVC(kernel="poly", degree=4, max_iter=2).fit(X, y)
    shapes = []
    real = geometric_svm.masked_kernel
    monkeypatch.setattr(geometric_svm, "masked_kernel",
                        lambda A, MA, B, MB, **k: shapes.append(B.shape[0]) or real(A, MA, B, MB,
                                                                                    **k))
    scores = model.decision_function(X)
    n_sv = np.unique(model.iterates_[0][-1].support).size
    assert shapes == [n_sv] and n_sv < X.shape[0]
    # the same scores as the kernel against every training row
    it, previous = model.iterates_[0][-1], model.iterates_[0][-2]
    K = real(np.nan_to_num(X), ~np.isnan(X), model.X_fit_, model.mask_fit_,
             **model._kernel_params())
    patterns, inverse = missingness_patterns(~np.isnan(X))
    _, s = gs.pattern_scalings(previous, model.X_fit_, model.mask_fit_, patterns,
                               model._kernel_params(), model.min_scaling)
    expected = gs.decision_binary(K[:, it.support] @ it.coef, s[inverse], it)
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)


def test_scale_gamma_by_row_blocks_is_the_variance():
    rng = np.random.default_rng(7)
    X0 = rng.standard_normal((30_000, 40)) * rng.uniform(0.5, 2.0, 40) + 0.3
    assert geometric_svm._scale_gamma(X0, None) == pytest.approx(1 / (40 * X0.var()),
                                                                 rel=1e-12)
    w = rng.uniform(0.1, 2.0, 30_000)
    mean = np.average(X0.mean(axis=1), weights=w)
    var = np.average(((X0 - mean) ** 2).mean(axis=1), weights=w)
    assert geometric_svm._scale_gamma(X0, w) == pytest.approx(1 / (40 * var), rel=1e-12)


# -- blockwise prediction on dask arrays -------------------------------------------------------
@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_dask_input_gives_lazy_dask_predictions(kernel):
    da = pytest.importorskip("dask.array")
    import dask

    X, y = _missing(200, seed=8)
    y3 = np.where(y > 0, "b", np.where(np.arange(y.size) % 3 == 0, "a", "c"))
    for labels in (y, y3):
        model = GeometricMarginSVC(kernel=kernel, max_iter=2).fit(X, labels)
        X_new, _ = _missing(130, seed=9)
        Xd = da.from_array(X_new, chunks=(50, -1))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            pred, scores = model.predict(Xd), model.decision_function(Xd)
        assert dask.is_dask_collection(pred) and dask.is_dask_collection(scores)
        assert pred.chunks[0] == (50, 50, 30)
        np.testing.assert_array_equal(pred.compute(), model.predict(X_new))
        np.testing.assert_allclose(scores.compute(), model.decision_function(X_new),
                                   rtol=1e-12, atol=1e-12)
