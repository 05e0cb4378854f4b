"""The offset of RoLR's decision function: a two-parameter logistic fit on the projections.

RoLR (Feng et al. 2014, Eq. 2) estimates a direction only. With ``fit_intercept=True`` the
estimator calibrates it afterwards: a slope ``a >= 0`` and an offset ``b`` of a logistic model of
the labels on the projections ``t_i = <beta_hat, z_i>`` of the rows kept by the preprocessing
(:func:`fit_offset`), a tiny strictly convex problem solved by Newton's method. Row weights
multiply each row's loss (a row of weight k counts as k rows, in the ridge and the stopping
rule too).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import expit

__all__ = ["OffsetFit", "fit_offset", "fit_offset_terms", "offset_terms"]

_OFFSET_RIDGE = 1e-6        # ridge on (a, b) per kept row: keeps the offset fit finite
_OFFSET_TOL = 1e-10         # stop when ||gradient||_inf <= _OFFSET_TOL * (number of rows)
_OFFSET_MAX_ITER = 100
_LOSS_RESOLUTION = 100 * np.finfo(float).eps   # relative rounding of the summed loss


class OffsetFit(NamedTuple):
    """Result of :func:`fit_offset`: ``slope`` a >= 0, ``offset`` b, the stopping measure."""

    slope: float
    offset: float
    gradient: float
    n_iter: int
    converged: bool


def offset_terms(theta: np.ndarray, t: np.ndarray, y: np.ndarray,
                 weights: np.ndarray | None = None):
    """Logistic loss of ``a t + b`` summed over rows, its gradient and Hessian in ``(a, b)``.

    The data term of :func:`fit_offset` (no ridge): a sum over rows, so the sums of the row
    chunks of a dask fit add up to it. With ``weights`` the loss of row ``i`` is multiplied by
    ``weights[i]``.

    Returns
    -------
    loss : float
    grad : ndarray of shape (2,)
    hess : ndarray of shape (2, 2)
    """
    margins = y * (theta[0] * t + theta[1])
    losses = np.logaddexp(0.0, -margins)
    loss = float(losses.sum() if weights is None else weights @ losses)
    r = -y * expit(-margins)                         # d loss_i / d (a t_i + b)
    w = expit(margins) * expit(-margins)             # d^2 loss_i / d (a t_i + b)^2
    if weights is not None:
        r, w = weights * r, weights * w
    grad = np.array([r @ t, r.sum()])
    hess = np.array([[w @ (t * t), w @ t], [w @ t, w.sum()]])
    return loss, grad, hess


def _penalised(terms, ridge: float):
    """``theta -> terms(theta)`` plus the ridge ``(ridge / 2) ||theta||^2``."""

    def loss(theta):
        value, grad, hess = terms(theta)
        return (value + 0.5 * ridge * float(theta @ theta), grad + ridge * theta,
                hess + ridge * np.eye(2))

    return loss


def _newton(theta, loss_fn, free, total):
    """Damped Newton (Armijo backtracking) on the coordinates ``free`` of ``theta``.

    ``loss_fn(theta)`` gives the penalised loss, its gradient and Hessian. Stops when
    ``||gradient_free||_inf <= _OFFSET_TOL * total`` (first-order optimality; ``total``: the
    number of rows, or their total weight), never because the loss stopped moving. Returns
    ``(theta, gradient measure per unit of total, n_iter, ok)``.
    """
    size = max(total, 1)
    target = _OFFSET_TOL * size
    loss, grad, hess = loss_fn(theta)
    for k in range(_OFFSET_MAX_ITER + 1):
        measure = float(np.max(np.abs(grad[free])))
        if measure <= target:
            return theta, measure / size, k, True
        if k == _OFFSET_MAX_ITER:
            break
        step = np.zeros(2)
        step[free] = -np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        slope, alpha = float(grad @ step), 1.0
        # a predicted decrease below the loss's rounding cannot be judged by the loss: the
        # full Newton step is then taken if it reduces the gradient
        unresolved = -slope <= _LOSS_RESOLUTION * max(abs(loss), 1.0)
        while alpha > 1e-20:
            trial = theta + alpha * step
            trial_loss, trial_grad, trial_hess = loss_fn(trial)
            if trial_loss <= loss + 1e-4 * alpha * slope:
                break
            if unresolved and float(np.max(np.abs(trial_grad[free]))) < measure:
                break
            alpha *= 0.5
        else:
            return theta, measure / size, k, False   # line search failed
        theta, loss, grad, hess = trial, trial_loss, trial_grad, trial_hess
    return theta, measure / size, _OFFSET_MAX_ITER, False


def fit_offset_terms(terms, total: float) -> OffsetFit:
    """:func:`fit_offset` given its data term: ``terms(theta)`` is :func:`offset_terms` of
    the rows (in memory, or summed over the row chunks of a dask fit, one pass per call) and
    ``total`` their number or total weight."""
    loss_fn = _penalised(terms, _OFFSET_RIDGE * total)
    theta, measure, n_iter, ok = _newton(np.zeros(2), loss_fn, np.array([True, True]), total)
    if theta[0] < 0.0:
        theta, measure, extra, ok = _newton(np.zeros(2), loss_fn, np.array([False, True]),
                                            total)
        n_iter += extra
    return OffsetFit(float(theta[0]), float(theta[1]), measure, n_iter, ok)


def fit_offset(t: np.ndarray, y: np.ndarray,
               sample_weight: np.ndarray | None = None) -> OffsetFit:
    """Slope ``a >= 0`` and offset ``b`` of a logistic model of ``y`` on the projections ``t``.

    Minimises the penalised negative log-likelihood (strictly convex)::

        F(a, b) = sum_i log(1 + exp(-y_i (a t_i + b))) + (r / 2) (a^2 + b^2),   r = 1e-6 N,

    over ``a >= 0`` by Newton's method with backtracking. ``r`` is negligible unless the
    projections separate the classes (or one class is absent), where it keeps ``(a, b)`` finite
    instead of letting the maximum-likelihood estimate diverge. ``F`` is strictly convex, so if
    its unconstrained minimiser has ``a < 0`` the constrained one lies on ``a = 0`` and is found by
    a second Newton solve over ``b`` alone. Both solves stop on the gradient,
    ``||grad||_inf <= 1e-10 N`` (``gradient`` in the result is that norm divided by ``N``).

    With ``sample_weight`` each row's loss is multiplied by its weight and ``N`` is the total
    weight (in ``r`` and in the stopping rule), so that a row of weight k acts as k rows.

    Parameters
    ----------
    t : ndarray of shape (N,)
    y : ndarray of shape (N,), entries in {-1, +1}
    sample_weight : ndarray of shape (N,) or None, default=None
        Non-negative row weights (None: all 1).

    Returns
    -------
    OffsetFit
    """
    t, y = np.asarray(t, dtype=np.float64), np.asarray(y, dtype=np.float64)
    w = sample_weight
    total = t.size if w is None else float(w.sum())
    return fit_offset_terms(lambda theta: offset_terms(theta, t, y, w), total)
