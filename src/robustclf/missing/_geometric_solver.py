"""The iterative solver of Chechik et al. (2007), §3: SVM for fixed scalings, then new scalings.

Private arrays-in, arrays-out functions; :class:`~robustclf.missing.GeometricMarginSVC` validates
its inputs and calls :func:`fit_binary` once per one-vs-rest problem.

Bias placement (see ``docs/reproduction/chechik.md``):

* ``"scaled"`` — Eq. (6) as written: ``(1/s_i) y_i (w.x_i + b) >= 1 - xi_i``. For fixed ``s`` the
  dual is Eq. (7) with the equality constraint ``sum_i alpha_i y_i / s_i = 0`` instead of
  ``sum_i alpha_i y_i = 0``. scikit-learn's SVC always adds its own free intercept *after* the
  scaling, so we (1) carry ``b`` by a constant feature of value ``B`` in the unscaled space
  (kernel ``K_ij + B^2``; after scaling it is ``B / s_i``), with ``B^2`` ten times the mean
  kernel diagonal so that the penalty ``b^2 / (2 B^2)`` is small (larger ``B`` makes libsvm
  much slower for no measurable change of the objective), and (2) remove SVC's own intercept
  by symmetry: every instance is also given mirrored, ``(-x_i, -y_i)``, with half the
  penalty, so that an optimum with SVC intercept 0 exists and the problem equals Eq. (6)
  (up to the small bias penalty). This doubles the SVM size.
* ``"unscaled"`` — the printed dual of Eq. (7) solved by an SVM on ``K_ij / (s_i s_j)``: the
  intercept is added after the scaling, ``y_i (w.x_i / s_i + b) >= 1 - xi_i``.

With all ``s_i = 1`` (the first iterate, or data without missing values) the two coincide with
the ordinary SVM, and a plain SVC on ``K`` is solved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.svm import SVC

from .kernels import restricted_sq_norms

__all__ = ["BinaryIterate", "fit_binary", "decision_binary", "scalings"]

_BIAS_SCALE = 1e1  # B^2 = _BIAS_SCALE * mean diagonal of the (unscaled) kernel


@dataclass
class BinaryIterate:
    """One iterate ``(w, b)`` of the algorithm: ``w = sum_j coef_j phi(x_{support_j})``."""

    support: np.ndarray
    coef: np.ndarray
    intercept: float
    scaled_bias: bool
    objective: float
    fit_scalings: np.ndarray


def scalings(sq_norms: np.ndarray, full_sq_norm: float) -> np.ndarray:
    """``s = ||w^(i)|| / ||w||`` (Eq. 5); 1 where it is undefined (``w = 0`` or ``w^(i) = 0``)."""
    if full_sq_norm <= 0.0:
        return np.ones_like(sq_norms)
    s = np.sqrt(sq_norms / full_sq_norm)
    return np.where(s > 1e-12, s, 1.0)


def decision_binary(K_sv: np.ndarray, s: np.ndarray, it: BinaryIterate) -> np.ndarray:
    """Eq. (7)'s prediction ``(w.x / s_new) (+ b)`` given ``K_sv = K(x, x_support)``."""
    score = K_sv @ it.coef
    if it.scaled_bias:
        return (score + it.intercept) / s
    return score / s + it.intercept


def _svm_step(K: np.ndarray, y: np.ndarray, s: np.ndarray, C: float, bias: str, tol: float,
              ) -> tuple[np.ndarray, np.ndarray, float]:
    """Solve the SVM of Eq. (6)/(7) for fixed ``s``; return support, ``c = alpha y / s``, ``b``."""
    n = y.shape[0]
    if np.all(s == 1.0):
        svc = SVC(kernel="precomputed", C=C, tol=tol).fit(K, y)
        sup = svc.support_
        return sup, svc.dual_coef_[0].copy(), float(svc.intercept_[0])
    inv_s = 1.0 / s
    if bias == "unscaled":
        Ks = np.multiply(K, inv_s[:, None])
        Ks *= inv_s
        svc = SVC(kernel="precomputed", C=C, tol=tol).fit(Ks, y)
        sup = svc.support_
        return sup, svc.dual_coef_[0] * inv_s[sup], float(svc.intercept_[0])
    B2 = _BIAS_SCALE * max(float(np.mean(np.diag(K))), 1e-12)
    Ks = np.add(K, B2)
    Ks *= inv_s[:, None]
    Ks *= inv_s
    Km = np.block([[Ks, -Ks], [-Ks, Ks]])
    svc = SVC(kernel="precomputed", C=C / 2.0, tol=tol).fit(Km, np.concatenate([y, -y]))
    a = np.zeros(2 * n)
    a[svc.support_] = svc.dual_coef_[0]
    a = a[:n] - a[n:]  # the mirrored instance contributes -phi(x_i)
    sup = np.flatnonzero(a)
    coef = a[sup] * inv_s[sup]
    return sup, coef, float(B2 * coef.sum())


def fit_binary(K: np.ndarray, y: np.ndarray, X0: np.ndarray, M: np.ndarray,
               patterns: np.ndarray, inverse: np.ndarray, *, C: float, max_iter: int,
               bias: str, tol: float, kernel_params: dict) -> tuple[list[BinaryIterate], bool]:
    """Alternate an SVM solve for fixed ``s`` and ``s_i = ||w^(i)|| / ||w||`` (§3).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Missing-aware kernel of the training rows (computed once).
    y : ndarray of shape (n,), in {-1, +1}
    X0, M : zero-filled training data and validity mask, shape (n, d)
    patterns, inverse : distinct masks and the pattern index of every row
    C, max_iter, bias, tol : see :class:`~robustclf.missing.GeometricMarginSVC`
    kernel_params : kernel, degree, gamma, coef0

    Returns
    -------
    iterates : list of BinaryIterate
        Iterate 0 is the ordinary SVM (``s = 1``); iterate ``t`` uses the scalings of ``t - 1``.
    converged : bool
        Whether a fixed point (max change of ``s`` below ``tol``) was reached.
    """
    s = np.ones(y.shape[0])
    iterates = []
    for _ in range(max_iter + 1):
        sup, coef, b = _svm_step(K, y, s, C, bias, 1e-3)
        sq, full = restricted_sq_norms(X0[sup], M[sup], coef, patterns, **kernel_params)
        s_new = scalings(sq, full)[inverse]
        it = BinaryIterate(sup, coef, b, bias == "scaled", 0.0, s)
        dense = np.zeros(y.shape[0])
        dense[sup] = coef
        f = decision_binary(K, s_new, BinaryIterate(np.arange(y.shape[0]), dense, b,
                                                    it.scaled_bias, 0.0, s))
        it.objective = 0.5 * full + C * float(np.maximum(0.0, 1.0 - y * f).sum())
        iterates.append(it)
        if np.max(np.abs(s_new - s)) < tol:
            return iterates, True
        s = s_new
    return iterates, False
