"""The active-set polish of libsvm's SVM dual solutions (robustclf.missing._kkt_polish)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from robustclf.missing._geometric_solver import _reading, kkt_residual
from robustclf.missing._kkt_polish import polish


def _libsvm_start(X, y, C, tol):
    """libsvm's solution of the plain SVM dual (scalings 1) in polish's variables."""
    K = X @ X.T
    svc = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
    dense = np.zeros(y.size)
    dense[svc.support_] = svc.dual_coef_[0]
    b = float(svc.intercept_[0])
    s = np.ones(y.size)
    d, m, u = _reading(s, C, "scaled")
    residual = kkt_residual(K @ dense, dense, b, y, s, C, "scaled")
    return K, dense, b, d, m, u, residual


def _polish(K, y, d, m, u, dense, b, residual):
    out = polish(lambda rows: K[:, rows], y, d, m, u, np.clip(y * dense / d, 0.0, u), b,
                 K @ dense, residual)
    if out is not None:   # K @ coef is updated incrementally: it must still be K @ coef
        a, b_new, K_coef, new_residual = out
        np.testing.assert_allclose(K_coef, K @ (y * a * d), atol=1e-9)
        return a, b_new, new_residual
    return None


def _objective(K, coef, y):
    return 0.5 * coef @ K @ coef - y @ coef


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_polish_reaches_the_kkt_point_libsvm_stopped_near(C):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 8))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.standard_normal(300) > 0, 1.0, -1.0)
    K, dense, b, d, m, u, residual = _libsvm_start(X, y, C, 1e-3)
    assert residual > 1e-5   # libsvm stopped at its tolerance
    a, b_new, new_residual = _polish(K, y, d, m, u, dense, b, residual)
    assert new_residual < 1e-10
    coef = y * a
    assert np.all((a >= 0.0) & (a <= u)) and abs(coef.sum()) < 1e-10
    assert kkt_residual(K @ coef, coef, b_new, y, np.ones(y.size), C, "scaled") < 1e-10
    # the optimum: below libsvm's objective and at a tightly solved libsvm's (its floor)
    _, tight, *_ = _libsvm_start(X, y, C, 1e-9)
    assert _objective(K, coef, y) <= _objective(K, dense, y)
    assert _objective(K, coef, y) == pytest.approx(_objective(K, tight, y), rel=1e-7)


def test_polish_handles_more_free_rows_than_the_kernel_rank():
    """Duplicated rows on a two-feature problem: the free rows' system is singular and, with
    libsvm's partition, inconsistent; the null-space steps resolve it."""
    rng = np.random.default_rng(1)
    X = np.repeat(rng.integers(-2, 3, size=(40, 2)).astype(float), 4, axis=0)
    y = np.where(X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(X.shape[0]) > 0, 1.0, -1.0)
    K, dense, b, d, m, u, residual = _libsvm_start(X, y, 1.0, 1e-3)
    out = _polish(K, y, d, m, u, dense, b, residual)
    assert out is not None and out[2] < 1e-10


@settings(max_examples=40, deadline=None)
@given(n=st.integers(6, 40), n_features=st.integers(1, 4), C=st.sampled_from([0.1, 1.0, 10.0]),
       seed=st.integers(0, 2**16), duplicates=st.booleans())
def test_polish_never_returns_a_worse_or_infeasible_point(n, n_features, C, seed, duplicates):
    rng = np.random.default_rng(seed)
    X = rng.integers(-2, 3, size=(n, n_features)).astype(float) if duplicates else \
        rng.standard_normal((n, n_features))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    K, dense, b, d, m, u, residual = _libsvm_start(X, y, C, 1e-2)
    out = _polish(K, y, d, m, u, dense, b, residual)
    if out is None:
        return
    a, b_new, new_residual = out
    coef = y * a
    assert new_residual < residual
    assert np.all((a >= 0.0) & (a <= u)) and abs(coef.sum()) < 1e-8 * max(C, 1.0)
    assert kkt_residual(K @ coef, coef, b_new, y, np.ones(n), C, "scaled") == pytest.approx(
        new_residual, abs=1e-9)
