"""Per-sample marginalised losses of Chen et al. (2014) as functions of the margin's moments.

For a corrupted example, ``omega = w^T x̃ + b`` has mean ``m = w^T x + b`` and variance
``u = w^T V w`` (``V`` the diagonal corruption variance; the bias is not corrupted). Each loss here
is a function ``loss(m, u; y)``, already multiplied by the paper's ``c`` (the estimators' ``C``),
with its first and second partial derivatives, evaluated elementwise on ``(n_samples, n_columns)``
arrays (``Y`` holds the ±1 labels of each one-vs-all column). The solvers in
:mod:`._dropout_solvers` only see this interface.

* :class:`HingeBound` -- the variational upper bound U of the expected hinge loss (Eqs. 7-14).
  Eliminating q(lambda) in closed form gives ``c (E[zeta] + sqrt(E[zeta^2]))`` with
  ``zeta = l - y omega`` and ``E[zeta^2] = (l - y m)^2 + u`` (Eq. 10). It exceeds
  ``2 c E[max(0, zeta)]`` (since ``sqrt(E zeta^2) >= E|zeta|``) and equals it without noise.
* :class:`LogisticBound` -- the Polya-Gamma bound of the expected logistic loss (Eqs. 16-22):
  ``c (log 2 - y m / 2 + log cosh(s / 2))`` with ``s = sqrt(E[omega^2]) = sqrt(m^2 + u)``; its
  IRLS weight is ``gamma_n = (c / (2 s)) tanh(s / 2)``, the Polya-Gamma mean (Eq. 22 as printed
  is garbled; see NOTES). Exact without noise.
* :class:`HingeGaussian` -- ``2 c E[max(0, l - y omega)]`` for Gaussian omega ~ N(m, u):
  ``2 c (mu Phi(mu / sigma) + sigma phi(mu / sigma))``, ``mu = l - y m`` ("fast dropout",
  Wang & Manning 2013). Convex in w; beyond the paper.
* :class:`LogisticGaussian` -- ``c E[log(1 + exp(-y omega))]`` for Gaussian omega, by
  Gauss-Hermite quadrature (symmetric nodes, positive weights, so still convex in w); the
  derivatives in ``u`` come from Stein's identity ``d/du E[g(m + sqrt(u) z)] = E[g''] / 2``.

The hinge losses are not differentiable where ``E[zeta^2] = 0`` (no noise and the example exactly
on the margin); they use ``sqrt(u + delta^2)`` with ``delta = 1e-8 l``, which moves the objective
by at most ``n c delta`` and keeps the IRLS weights ``gamma_n`` finite.

*Row weights.* Every loss is linear in ``c``, so a weighted data term ``sum_n s_n loss_n`` is the
same loss with a per-row ``c``: ``C`` may be a float or an ``(n_samples, 1)`` array ``c s_n``,
which broadcasts over the columns (:func:`with_row_weights`). A row of weight k then contributes
exactly what k copies of it contribute, and a row of weight 0 nothing.
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.special import expit, ndtr

__all__ = ["HingeBound", "LogisticBound", "HingeGaussian", "LogisticGaussian", "QuadraticLoss",
           "LOSSES", "with_row_weights"]

_SMOOTHING = 1e-8
_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


class _BoundLoss:
    """``lin * m + h(S)`` with ``S = (m - t)^2 + u`` and ``h`` concave: IRLS applies.

    Subclasses define ``_parts(Y) -> (lin, t, const)`` and ``_h(S, order)`` returning
    ``h, h', h''`` (as many as ``order + 1``).
    """

    supports_irls = True

    def value(self, m, u, Y):
        lin, t, const = self._parts(Y)
        return const + lin * m + self._h((m - t) ** 2 + u, 0)[0]

    def derivatives(self, m, u, Y, order=2):
        return self.value_and_derivatives(m, u, Y, order)[1]

    def value_and_derivatives(self, m, u, Y, order=2):
        """:meth:`value` and :meth:`derivatives` from one evaluation of ``h``."""
        lin, t, const = self._parts(Y)
        r = m - t
        h = self._h(r * r + u, order)
        value = const + lin * m + h[0]
        lm, lu = lin + 2.0 * h[1] * r, h[1]
        if order == 1:
            return value, (lm, lu)
        return value, (lm, lu, 2.0 * h[1] + 4.0 * h[2] * r * r, 2.0 * h[2] * r, h[2])

    def surrogate_at_zero(self, Y):
        """The IRLS surrogate at ``w = 0, b = 0``: its weight ``a`` and ``a t - lin``.

        Every sample has the same ``S`` there, so ``a`` is one float for a scalar ``C`` and an
        ``(n_samples, 1)`` column proportional to the row weights for a per-row ``C``. Its
        minimiser (a ridge-like least squares fit shared by all columns) starts every solver.
        """
        a, rhs = self.majoriser(np.zeros_like(Y), np.zeros_like(Y), Y)
        return (float(a.flat[0]) if np.ndim(self.C) == 0 else a[:, :1]), rhs

    def majoriser(self, m, u, Y):
        """IRLS weights ``a = 2 h'(S)`` and right-hand side ``a t - lin`` of the M-step."""
        lin, t, _ = self._parts(Y)
        a = 2.0 * self._h((m - t) ** 2 + u, 1)[1]
        return a, a * t - lin


class _Smoothed:
    """Hinge-type losses: ``sqrt(. + delta^2)`` smooths the kink, ``delta = smoothing * margin``.

    ``smoothing`` may be an array with one entry per column (broadcast along the samples), so
    that Newton's continuation can move each one-vs-all problem along its own path of decreasing
    smoothing (:meth:`levels`, :meth:`at`).
    """

    def __init__(self, C: float, margin: float = 1.0, smoothing=_SMOOTHING):
        self.C, self.margin, self.smoothing = C, margin, smoothing
        self._delta2 = (np.asarray(smoothing, dtype=float) * margin) ** 2

    def levels(self) -> np.ndarray:
        """Smoothing levels ``0.1, 0.01, ...`` down to and ending with this loss's own.

        The path starts at ``0.1``: on MNIST and digits it costs 40 % fewer Hessian products
        than starting at ``1`` (whose smoothed problem is far from the final one) and, unlike
        a start at ``0.01`` or below, keeps the number of steps low where optima sit on the
        kink.
        """
        final = float(np.min(self.smoothing))
        n = max(int(np.ceil(-np.log10(final) - 1e-9)), 1)
        return np.append(10.0 ** -np.arange(1, n), final)

    def at(self, smoothing) -> _Smoothed:
        """The same loss with another smoothing (a scalar, or one entry per column)."""
        return type(self)(self.C, self.margin, np.asarray(smoothing, dtype=float))

    def continuation(self) -> list:
        """Losses of decreasing smoothing ending with this one."""
        return [self.at(s) for s in self.levels()[:-1]] + [self]


class HingeBound(_Smoothed, _BoundLoss):
    """``c (l - y m) + c sqrt((m - l y)^2 + u)``: the bound U of the expected hinge loss."""

    def _parts(self, Y):
        return -self.C * Y, self.margin * Y, self.C * self.margin

    def _h(self, S, order):
        s = np.sqrt(S + self._delta2)
        out = [self.C * s]
        if order >= 1:
            out.append(0.5 * self.C / s)
        if order >= 2:
            out.append(-0.25 * self.C / (s * s * s))
        return out


class LogisticBound(_BoundLoss):
    """``c (log 2 - y m / 2 + log cosh(sqrt(m^2 + u) / 2))``: the Polya-Gamma bound."""

    def __init__(self, C: float):
        self.C = C

    def _parts(self, Y):
        return -0.5 * self.C * Y, 0.0, 0.0

    def _h(self, S, order):
        s = np.sqrt(S)
        # log 2 + log cosh(s / 2) = s / 2 + log(1 + exp(-s)), stable for large s
        out = [self.C * (0.5 * s + np.log1p(np.exp(-s)))]
        if order >= 1:
            small = s < 1e-2
            with np.errstate(invalid="ignore", divide="ignore"):
                th = np.tanh(0.5 * s)
                h1 = np.where(small, 0.125 - S / 96.0 + S * S / 960.0, th / (4.0 * s))
            out.append(self.C * h1)
            if order >= 2:
                with np.errstate(invalid="ignore", divide="ignore"):
                    h2 = (s * (1.0 - th * th) - 2.0 * th) / (16.0 * S * s)
                out.append(self.C * np.where(small, -1.0 / 96.0 + S / 480.0, h2))
        return out


class HingeGaussian(_Smoothed):
    """``2 c E[max(0, l - y omega)]`` with omega ~ N(m, u), in closed form."""

    supports_irls = False

    def surrogate_at_zero(self, Y):
        return HingeBound(self.C, self.margin, self.smoothing).surrogate_at_zero(Y)

    def _moments(self, m, u, Y):
        mu = self.margin - Y * m
        sigma = np.sqrt(u + self._delta2)
        t = mu / sigma
        return mu, sigma, t, ndtr(t), _INV_SQRT_2PI * np.exp(-0.5 * t * t)

    def value(self, m, u, Y):
        mu, sigma, _, Phi, phi = self._moments(m, u, Y)
        return 2.0 * self.C * (mu * Phi + sigma * phi)

    def derivatives(self, m, u, Y, order=2):
        return self.value_and_derivatives(m, u, Y, order)[1]

    def value_and_derivatives(self, m, u, Y, order=2):
        """:meth:`value` and :meth:`derivatives` from one evaluation of the moments."""
        mu, sigma, t, Phi, phi = self._moments(m, u, Y)
        value = 2.0 * self.C * (mu * Phi + sigma * phi)
        lm, lu = -2.0 * self.C * Y * Phi, self.C * phi / sigma
        if order == 1:
            return value, (lm, lu)
        return value, (lm, lu, 2.0 * self.C * phi / sigma, self.C * Y * t * phi / sigma**2,
                       0.5 * self.C * phi * (t * t - 1.0) / sigma**3)


class LogisticGaussian:
    """``c E[log(1 + exp(-y omega))]`` with omega ~ N(m, u), by Gauss-Hermite quadrature.

    Parameters
    ----------
    C : float
    n_nodes : int, default=32
        Quadrature nodes; exact without noise. The relative error of the expectation is below
        1e-5 for a standard deviation up to 3 and about 0.3% at 10 (the logistic loss bends on
        a scale of 1, which widely spread nodes resolve poorly).
    """

    supports_irls = False

    def __init__(self, C: float, n_nodes: int = 32):
        self.C = C
        z, wts = np.polynomial.hermite_e.hermegauss(n_nodes)
        self._nodes, self._weights = z, wts / wts.sum()

    def surrogate_at_zero(self, Y):
        return LogisticBound(self.C).surrogate_at_zero(Y)

    def _expect(self, m, u, Y, funcs):
        """``E[f(a, p, z)]`` at the nodes, ``a = -y omega``, ``p = expit(a)``, ``z`` the node."""
        sigma = np.sqrt(u)
        out = [np.zeros(np.broadcast(m, Y).shape) for _ in funcs]
        for z, wt in zip(self._nodes, self._weights, strict=True):   # nodes, not rows
            a = -Y * (m + sigma * z)
            p = expit(a)
            for acc, f in zip(out, funcs, strict=True):
                acc += wt * f(a, p, z)
        return out

    def value(self, m, u, Y):
        return self.C * self._expect(m, u, Y, [lambda a, p, z: np.logaddexp(0.0, a)])[0]

    def derivatives(self, m, u, Y, order=2):
        """Exact derivatives of the quadrature rule in ``m`` and ``u`` (so that the gradient is
        that of :meth:`value`); the second derivatives use Stein's identity, which agrees up to
        the quadrature error and has no ``1 / sigma`` singularity."""
        funcs = [lambda a, p, z: p, lambda a, p, z: p * (1.0 - p), lambda a, p, z: p * z]
        if order == 2:
            funcs += [lambda a, p, z: p * (1.0 - p) * (1.0 - 2.0 * p),
                      lambda a, p, z: p * (1.0 - p) * (1.0 - 6.0 * p + 6.0 * p * p)]
        e = self._expect(m, u, Y, funcs)
        sigma = np.sqrt(u)
        tiny = sigma < 1e-4
        with np.errstate(divide="ignore", invalid="ignore"):
            exact = -Y * e[2] / (2.0 * np.where(tiny, 1.0, sigma))   # d/du of sum w g(m + s z)
        lm, lu = -self.C * Y * e[0], self.C * np.where(tiny, 0.5 * e[1], exact)
        if order == 1:
            return lm, lu
        return lm, lu, self.C * e[1], -0.5 * self.C * Y * e[3], 0.25 * self.C * e[4]


class QuadraticLoss(_BoundLoss):
    """``c E[(y - omega)^2] = c ((m - y)^2 + u)``: MCF-quadratic (van der Maaten et al. 2013).

    Its own IRLS surrogate, so the first step (the shared least-squares solve) is exact.
    """

    def __init__(self, C: float):
        self.C = C

    def _parts(self, Y):
        return 0.0, Y, 0.0

    def _h(self, S, order):
        return [self.C * S, self.C * np.ones_like(S), np.zeros_like(S)][: order + 1]


def value_and_derivatives(loss, m, u, Y, order=2):
    """``(loss.value(...), loss.derivatives(..., order=order))``, sharing the work when the
    loss can (its ``value_and_derivatives`` method)."""
    shared = getattr(loss, "value_and_derivatives", None)
    if shared is not None:
        return shared(m, u, Y, order)
    return loss.value(m, u, Y), loss.derivatives(m, u, Y, order=order)


def with_row_weights(loss, sample_weight):
    """``loss`` with its data term weighted per row: ``C`` becomes ``C * sample_weight[:, None]``.

    Parameters
    ----------
    loss : one of this module's losses, with a scalar ``C``
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative row weights; None returns ``loss`` itself (the unweighted path).

    Returns
    -------
    loss : a shallow copy whose ``C`` is an ``(n_samples, 1)`` array (or ``loss``)
    """
    if sample_weight is None:
        return loss
    out = copy.copy(loss)
    out.C = loss.C * np.asarray(sample_weight, dtype=np.float64).reshape(-1, 1)
    return out


LOSSES = {
    ("hinge", "bound"): HingeBound,
    ("hinge", "gaussian"): HingeGaussian,
    ("logistic", "bound"): LogisticBound,
    ("logistic", "gaussian"): LogisticGaussian,
}
"""The loss of each (loss family, objective) pair."""
