"""Noise models: moments against samples, cumulants against enumeration and finite differences."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robustclf.noise import (
    NOISE_MODELS,
    DropoutNoise,
    GaussianNoise,
    LaplaceNoise,
    NoiseModel,
    PoissonNoise,
    make_noise,
)

MODELS = [DropoutNoise(0.3), GaussianNoise(0.7), LaplaceNoise(0.4), PoissonNoise()]


def _data(seed=0, n=6, d=4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(n, d)).astype(float) * rng.uniform(0.5, 1.5, size=(n, d))
    X[0, :2] = 0.0
    return X


def _draws(model, X, n_draws):
    """``n_draws`` independent corrupted copies of X in one call (entries are independent)."""
    return model.sample(np.tile(X, (n_draws, 1)), random_state=0).reshape(n_draws, *X.shape)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_moments_match_samples(model):
    X = _data()
    draws = _draws(model, X, 4000)
    np.testing.assert_allclose(model.mean(X), X)
    np.testing.assert_allclose(draws.mean(axis=0), X, atol=0.1)
    np.testing.assert_allclose(draws.var(axis=0), model.variance(X), rtol=0.12, atol=0.02)


def test_documented_variances():
    X = _data()
    np.testing.assert_allclose(DropoutNoise(0.3).variance(X), 0.3 / 0.7 * X**2)
    np.testing.assert_allclose(GaussianNoise(0.7).variance(X), np.full(X.shape, 0.49))
    np.testing.assert_allclose(LaplaceNoise(0.4).variance(X), np.full(X.shape, 0.32))
    np.testing.assert_allclose(PoissonNoise().variance(X), X)
    entrywise, constant = GaussianNoise(0.7).variance_terms(X)
    assert entrywise is None and constant == pytest.approx(0.49)


@pytest.mark.parametrize("model", [DropoutNoise(0.3), PoissonNoise()], ids=str)
def test_sparse_input_stays_sparse_and_matches_dense(model):
    X = _data()
    Xs = sp.csr_matrix(X)
    var = model.variance(Xs)
    assert sp.issparse(var) and var.nnz <= Xs.nnz
    np.testing.assert_allclose(var.toarray(), model.variance(X))
    sample = model.sample(Xs, random_state=0)
    assert sp.issparse(sample)
    assert set(zip(*sample.nonzero(), strict=True)) <= set(zip(*Xs.nonzero(), strict=True))


@pytest.mark.parametrize("model", [GaussianNoise(0.5), LaplaceNoise(0.5)], ids=str)
def test_additive_noise_refuses_to_densify_sparse(model):
    Xs = sp.csr_matrix(_data())
    with pytest.raises(ValueError, match="X is sparse"):
        model.sample(Xs)
    with pytest.raises(ValueError, match="X is sparse"):
        model.variance(Xs)
    entrywise, constant = model.variance_terms(Xs)   # the sparse-friendly form works
    assert entrywise is None and constant > 0


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_sample_is_reproducible_and_leaves_input_alone(model):
    X = _data()
    before = X.copy()
    a = model.sample(X, random_state=3)
    b = model.sample(X, random_state=np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(X, before)
    Xs = sp.csr_matrix(X)
    if model.keeps_sparsity:
        model.sample(Xs, random_state=0)
        np.testing.assert_array_equal(Xs.toarray(), before)


def test_dropout_sample_values():
    X = _data()
    out = DropoutNoise(0.25).sample(X, random_state=0)
    kept = out != 0
    np.testing.assert_allclose(out[kept], X[kept] / 0.75)
    np.testing.assert_array_equal(DropoutNoise(0.0).sample(X, random_state=0), X)


def _dropout_mgf_by_enumeration(x, t, q):
    """log E[exp(t^T x̃)] summing over all 2^d keep/drop patterns."""
    d = x.size
    total = 0.0
    for pattern in range(2**d):
        keep = np.array([(pattern >> j) & 1 for j in range(d)], dtype=bool)
        prob = np.prod(np.where(keep, 1 - q, q))
        total += prob * np.exp(np.sum(t[keep] * x[keep] / (1 - q)))
    return np.log(total)


def test_dropout_log_mgf_matches_enumeration():
    X = _data(n=3, d=4)
    T = np.random.default_rng(1).normal(size=(4, 2))
    K = DropoutNoise(0.4).log_mgf(X, T)
    for n in range(3):
        for k in range(2):
            assert K[n, k] == pytest.approx(_dropout_mgf_by_enumeration(X[n], T[:, k], 0.4))


@pytest.mark.parametrize("model", MODELS, ids=lambda m: type(m).__name__)
def test_log_mgf_closed_forms_and_gradient(model):
    X = _data(n=5, d=3)
    rng = np.random.default_rng(2)
    T = 0.5 * rng.normal(size=(3, 2))
    A = rng.uniform(size=(5, 2))
    K = model.log_mgf(X, T)
    if not isinstance(model, DropoutNoise):       # Monte Carlo check of the closed forms
        draws = _draws(model, X, 20000)
        mc = np.log(np.mean(np.exp(draws @ T), axis=0))
        np.testing.assert_allclose(K, mc, rtol=0.05, atol=0.05)
    grad = model.log_mgf_grad(X, T, A)
    eps = 1e-6
    for j in range(3):
        for k in range(2):
            E = np.zeros_like(T)
            E[j, k] = eps
            fd = (np.sum(A * model.log_mgf(X, T + E)) - np.sum(A * model.log_mgf(X, T - E)))
            assert grad[j, k] == pytest.approx(fd / (2 * eps), rel=1e-5, abs=1e-7)
    Xs = sp.csr_matrix(X)
    np.testing.assert_allclose(model.log_mgf(Xs, T), K)
    np.testing.assert_allclose(model.log_mgf_grad(Xs, T, A), grad)


def test_laplace_mgf_is_infinite_outside_its_radius():
    K = LaplaceNoise(0.5).log_mgf(np.ones((2, 1)), np.array([[2.5]]))
    assert np.all(np.isinf(K))


def test_make_noise_resolves_names_and_levels():
    assert set(NOISE_MODELS) == {"dropout", "gaussian", "laplace", "poisson"}
    assert make_noise("dropout").q == 0.5
    assert make_noise("dropout", 0.2).q == 0.2
    assert make_noise("gaussian", 0.3).sigma == 0.3
    assert make_noise("laplace", 0.3).scale == 0.3
    assert isinstance(make_noise("poisson"), PoissonNoise)
    inst = DropoutNoise(0.1)
    resolved = make_noise(inst)
    assert resolved is not inst and resolved.q == 0.1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"noise": "blankout"}, "noise"),
        ({"noise": 3}, "noise"),
        ({"noise": "dropout", "q": 1.0}, "q"),
        ({"noise": "dropout", "q": -0.1}, "q"),
        ({"noise": "dropout", "q": "half"}, "q"),
        ({"noise": "gaussian", "q": -1.0}, "sigma"),
        ({"noise": "laplace", "q": np.inf}, "scale"),
        ({"noise": "poisson", "q": 0.5}, "q"),
        ({"noise": DropoutNoise(0.2), "q": 0.5}, "q"),
    ],
)
def test_make_noise_rejects_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_noise(**kwargs)


def test_bad_data_is_rejected():
    with pytest.raises(ValueError, match="X must be non-negative"):
        PoissonNoise().sample(-np.ones((2, 2)))
    with pytest.raises(ValueError, match="X"):
        DropoutNoise().sample(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="T must have shape"):
        DropoutNoise().log_mgf(np.ones((2, 3)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="q"):
        DropoutNoise(q=1.5).variance(np.ones((2, 2)))


def test_noise_models_are_clonable_estimator_like():
    from sklearn.base import clone

    for model in MODELS:
        assert isinstance(model, NoiseModel)
        assert clone(model).get_params() == model.get_params()


@settings(max_examples=30, deadline=None)
@given(
    X=arrays(np.float64, (4, 3), elements=st.floats(-5, 5, allow_nan=False)),
    q=st.floats(0.0, 0.95),
    seed=st.integers(0, 2**16),
)
def test_dropout_properties(X, q, seed):
    model = DropoutNoise(q)
    before = X.copy()
    out = model.sample(X, random_state=seed)
    np.testing.assert_array_equal(X, before)
    # every entry is either deleted or scaled by 1 / (1 - q); zeros stay zero
    scaled = np.isclose(out, X / (1 - q), rtol=1e-12, atol=0)
    assert np.all(scaled | (out == 0))
    var = model.variance(X)
    assert np.all(var >= 0) and np.all(var[X == 0] == 0)
