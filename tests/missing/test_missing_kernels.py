"""Missing-aware kernels and restricted norms (Chechik et al. 2007, §3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf.missing import masked_kernel, missingness_patterns, restricted_sq_norms


def _data(seed, n=12, d=4, p_missing=0.3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < p_missing] = np.nan
    M = ~np.isnan(X)
    return np.where(M, X, 0.0), M


def _poly2_features(X0, gamma, coef0):
    """Explicit feature map of (gamma <x, y> + coef0)^2: monomials x_a x_b, sqrt(2 c g) x_a, c."""
    n, d = X0.shape
    quad = np.einsum("na,nb->nab", X0, X0).reshape(n, d * d) * gamma
    return np.hstack([quad, np.sqrt(2 * coef0 * gamma) * X0, np.full((n, 1), coef0)])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_masked_linear_kernel_is_inner_product_over_shared_features(seed):
    X0, M = _data(seed)
    K = masked_kernel(X0, M, X0, M)
    i, j = 0, 1
    shared = M[i] & M[j]
    assert np.isclose(K[i, j], np.sum(X0[i, shared] * X0[j, shared]))
    assert np.linalg.eigvalsh(K).min() > -1e-9


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 3))
def test_masked_poly_kernel_is_psd(seed, degree):
    X0, M = _data(seed)
    K = masked_kernel(X0, M, X0, M, kernel="poly", degree=degree, gamma=0.5, coef0=1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-8 * max(1.0, np.abs(K).max())


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_restricted_norms_match_explicit_linear_computation(seed):
    X0, M = _data(seed)
    coef = np.random.default_rng(seed + 1).standard_normal(X0.shape[0])
    patterns, inverse = missingness_patterns(M)
    w = X0.T @ coef
    explicit = np.array([np.sum(w[m] ** 2) for m in M])
    sq, full = restricted_sq_norms(X0, M, coef, patterns)
    np.testing.assert_allclose(sq[inverse], explicit, atol=1e-10)
    assert np.isclose(full, w @ w)
    # the generic (per-pattern Gram) path agrees with the closed form
    generic = restricted_sq_norms(X0, M, coef, patterns, kernel=lambda A, MA, B, MB: A @ B.T)
    np.testing.assert_allclose(generic[0], sq, atol=1e-9)


def test_restricted_norms_poly_match_explicit_feature_map():
    X0, M = _data(3, n=10, d=3)
    coef = np.random.default_rng(0).standard_normal(10)
    gamma, coef0 = 0.7, 1.3
    patterns, inverse = missingness_patterns(M)
    sq, full = restricted_sq_norms(X0, M, coef, patterns, kernel="poly", degree=2, gamma=gamma,
                                   coef0=coef0)
    Phi = _poly2_features(X0, gamma, coef0)
    w = Phi.T @ coef
    assert np.isclose(full, w @ w)
    d = X0.shape[1]
    for p, m in enumerate(patterns):
        # coordinates of w that involve only valid features of the pattern
        keep = np.concatenate([np.outer(m, m).ravel(), m, [True]])
        assert np.isclose(sq[p], np.sum(w[keep] ** 2))
    assert len(inverse) == 10 and d == 3


def test_missingness_patterns_group_rows():
    M = np.array([[1, 0], [1, 1], [1, 0]], dtype=bool)
    patterns, inverse = missingness_patterns(M)
    assert patterns.shape == (2, 2)
    assert inverse[0] == inverse[2] != inverse[1]
    np.testing.assert_array_equal(patterns[inverse], M)


@settings(max_examples=50, deadline=None)
@given(n=st.integers(0, 40), d=st.integers(1, 20), n_patterns=st.integers(1, 6),
       seed=st.integers(0, 10_000))
def test_missingness_patterns_equal_numpy_unique_rows(n, d, n_patterns, seed):
    """The packed-bits grouping gives np.unique(axis=0)'s patterns, order and inverse."""
    rng = np.random.default_rng(seed)
    M = (rng.random((n_patterns, d)) < 0.6)[rng.integers(0, n_patterns, n)]
    patterns, inverse = missingness_patterns(M)
    ref, ref_inverse = np.unique(M, axis=0, return_inverse=True)
    np.testing.assert_array_equal(patterns, ref)
    np.testing.assert_array_equal(inverse, np.asarray(ref_inverse).ravel())


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_poly_closed_form_norms_match_one_gram_matrix_per_pattern(degree):
    X0, M = _data(5, n=40, d=6, p_missing=0.4)
    coef = np.random.default_rng(6).standard_normal(40)
    patterns, _ = missingness_patterns(M)
    params = dict(kernel="poly", degree=degree, gamma=0.4, coef0=1.5)
    sq, full = restricted_sq_norms(X0, M, coef, patterns, **params)
    ref = [coef @ masked_kernel(X0 * m, M & m, X0 * m, M & m, **params) @ coef for m in patterns]
    np.testing.assert_allclose(sq, ref, rtol=1e-10)
    np.testing.assert_allclose(full, coef @ masked_kernel(X0, M, X0, M, **params) @ coef,
                               rtol=1e-10)
