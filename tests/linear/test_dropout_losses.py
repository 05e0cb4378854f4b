"""Per-sample marginalised losses: derivatives, bound property, Gaussian closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from robustclf.linear._dropout_losses import (
    LOSSES,
    HingeBound,
    HingeGaussian,
    LogisticBound,
    LogisticGaussian,
    QuadraticLoss,
)

ALL = [HingeBound(0.7, 1.3), LogisticBound(0.7), HingeGaussian(0.7, 1.3), LogisticGaussian(0.7),
       QuadraticLoss(0.7)]


def _grid():
    rng = np.random.default_rng(0)
    m = rng.normal(scale=2.0, size=(40, 3))
    u = rng.uniform(0.05, 4.0, size=(40, 3))
    u[:3] = [1e-5, 1e-3, 5e-3]                     # small-variance branches
    Y = np.where(rng.random((40, 3)) < 0.5, -1.0, 1.0)
    return m, u, Y


@pytest.mark.parametrize("loss", ALL, ids=lambda l: type(l).__name__)
def test_derivatives_match_finite_differences(loss):
    m, u, Y = _grid()
    lm, lu, lmm, lmu, luu = loss.derivatives(m, u, Y)
    h = 1e-6

    def d(f, dm=0.0, du=0.0):
        return (f(m + dm, u + du) - f(m - dm, u - du)) / (2 * h)

    def val(mm, uu):
        return loss.value(mm, uu, Y)

    np.testing.assert_allclose(lm, d(val, dm=h), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(lu, d(val, du=h), rtol=1e-5, atol=1e-6)
    def first(i):
        return lambda mm, uu: loss.derivatives(mm, uu, Y, order=1)[i]

    np.testing.assert_allclose(lmm, d(first(0), dm=h), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(lmu, d(first(0), du=h), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(luu, d(first(1), du=h), rtol=1e-3, atol=1e-4)


def _expected_hinge(mean, var, margin, y):
    """E[max(0, margin - y omega)] for omega ~ N(mean, var), by quadrature."""
    def f(z):
        return max(0.0, margin - y * (mean + np.sqrt(var) * z)) * stats.norm.pdf(z)

    return integrate.quad(f, -12, 12, limit=200, points=[(y * margin - mean) / np.sqrt(var)])[0]


def _expected_logloss(mean, var, y):
    def f(z):
        return np.logaddexp(0.0, -y * (mean + np.sqrt(var) * z)) * stats.norm.pdf(z)

    return integrate.quad(f, -12, 12, limit=200)[0]


@pytest.mark.parametrize("mean, var, y, rel", [(0.3, 0.5, 1.0, 1e-9), (-1.2, 2.0, 1.0, 1e-7),
                                               (2.0, 0.1, -1.0, 1e-9), (0.0, 9.0, -1.0, 1e-5),
                                               (0.5, 100.0, 1.0, 1e-2)])
def test_gaussian_losses_are_the_gaussian_expectations(mean, var, y, rel):
    C, margin = 0.7, 1.3
    m, u, Y = np.array([[mean]]), np.array([[var]]), np.array([[y]])
    hinge = HingeGaussian(C, margin).value(m, u, Y)[0, 0]
    assert hinge == pytest.approx(2 * C * _expected_hinge(mean, var, margin, y), rel=1e-7)
    logistic = LogisticGaussian(C).value(m, u, Y)[0, 0]
    assert logistic == pytest.approx(C * _expected_logloss(mean, var, y), rel=rel)


@settings(max_examples=60, deadline=None)
@given(mean=st.floats(-5, 5), var=st.floats(0.0, 10.0), y=st.sampled_from([-1.0, 1.0]))
def test_bounds_lie_above_the_gaussian_expected_losses(mean, var, y):
    """sqrt(E zeta^2) >= E|zeta| and Jensen: each bound exceeds the expected loss it bounds,
    here for a Gaussian omega (any distribution with these moments would do)."""
    C, margin = 0.7, 1.3
    m, u, Y = np.array([[mean]]), np.array([[var]]), np.array([[y]])
    assert HingeBound(C, margin).value(m, u, Y)[0, 0] >= \
        HingeGaussian(C, margin).value(m, u, Y)[0, 0] - 1e-9
    assert LogisticBound(C).value(m, u, Y)[0, 0] >= LogisticGaussian(C).value(m, u, Y)[0, 0] - 1e-9


def test_without_noise_the_losses_are_the_plain_losses():
    m = np.linspace(-3, 3, 13)[:, None]
    Y = np.ones_like(m)
    u = np.zeros_like(m)
    C, margin = 0.7, 1.3
    hinge = 2 * C * np.maximum(0.0, margin - m)
    logloss = C * np.logaddexp(0.0, -m)
    np.testing.assert_allclose(HingeBound(C, margin).value(m, u, Y), hinge, atol=1e-7)
    np.testing.assert_allclose(HingeGaussian(C, margin).value(m, u, Y), hinge, atol=1e-7)
    np.testing.assert_allclose(LogisticBound(C).value(m, u, Y), logloss, rtol=1e-12)
    np.testing.assert_allclose(LogisticGaussian(C).value(m, u, Y), logloss, rtol=1e-12)
    np.testing.assert_allclose(QuadraticLoss(C).value(m, u, Y), C * (1 - m) ** 2)


def test_irls_weights_are_the_papers_gammas():
    """Eq. 14: gamma_n = 1 / (c sqrt(E zeta^2)); Eq. 22 (corrected): (c / 2s) tanh(s / 2)."""
    C, margin = 0.7, 1.3
    m, u, Y = _grid()
    a, _ = HingeBound(C, margin).majoriser(m, u, Y)
    Ezeta2 = (margin - Y * m) ** 2 + u
    np.testing.assert_allclose(a, C**2 * (1.0 / (C * np.sqrt(Ezeta2))), rtol=1e-9)
    a, _ = LogisticBound(C).majoriser(m, u, Y)
    s = np.sqrt(m**2 + u)
    np.testing.assert_allclose(a, C / (2 * s) * np.tanh(s / 2), rtol=1e-9)


def test_registry_of_losses():
    assert set(LOSSES) == {(f, o) for f in ("hinge", "logistic") for o in ("bound", "gaussian")}
    assert all(LOSSES[(f, "bound")].supports_irls for f in ("hinge", "logistic"))
    assert not any(LOSSES[(f, "gaussian")].supports_irls for f in ("hinge", "logistic"))
