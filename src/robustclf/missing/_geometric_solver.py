"""The iterative solver of Chechik et al. (2007), §3: SVM for fixed scalings, then new scalings.

Private arrays-in, arrays-out functions; :class:`~robustclf.missing.GeometricMarginSVC` validates
its inputs and calls :func:`fit_binary` once per one-vs-rest problem.

For fixed scalings ``s`` both bias readings are one convex QP in ``gamma_i = alpha_i y_i / s_i``
(the coefficients of ``w = sum_i gamma_i phi(x_i)`` in the *unscaled* feature space)::

    min_gamma  1/2 gamma' K gamma - sum_i s_i y_i gamma_i
    s.t.       0 <= y_i gamma_i <= C_i / s_i,   sum_i a_i gamma_i = 0,                  (*)

which is the dual Eq. (7) after the substitution ``alpha_i = s_i y_i gamma_i``. ``C_i = C w_i``
is the cost of row ``i``'s slack (``w_i`` its sample weight, 1 by default): the primal charges
``C sum_i w_i xi_i``, so an integer weight ``k`` gives the box of ``k`` copies of the row (whose
coefficients add up), as in scikit-learn's SVC. The equality
constraint is the stationarity in the bias ``b`` (whose multiplier ``b`` is):

* ``"scaled"`` — Eq. (6) as written, ``(1/s_i) y_i (w.x_i + b) >= 1 - xi_i``: ``a_i = 1``, i.e.
  ``sum_i alpha_i y_i / s_i = 0``. Equivalently ``y_i (w.x_i + b) >= s_i - zeta_i`` with cost
  ``(C / s_i) zeta_i``: an SVM on the *unscaled* kernel with per-instance margins ``s_i`` and
  penalties ``C / s_i``. libsvm's C-SVC has no per-instance margin, but its epsilon-SVR does:
  with targets ``z_i = y_i (s_i + eps)``, ``sample_weight = 1 / s_i`` and a large ``eps`` the
  SVR dual ``min 1/2 g'Kg - z'g + eps |g|_1, sum g = 0, |g_i| <= C / s_i`` equals (*) on
  ``y_i g_i >= 0`` and charges ``(2 eps + s_i) |g_i|`` for the wrong sign. Its optimum solves
  (*) exactly as soon as it has no wrong-sign coefficient (the SVR's feasible set contains that
  of (*) and the objectives agree there); otherwise ``eps`` is raised and the SVR solved again.
  The SVR intercept is ``b``. One solve on ``n`` points with an unpenalised bias.
* ``"unscaled"`` — the printed dual Eq. (7), ``y_i (w.x_i / s_i + b) >= 1 - xi_i``:
  ``a_i = s_i``, i.e. ``sum_i alpha_i y_i = 0``: a C-SVC on ``K_ij / (s_i s_j)``.

With all ``s_i = 1`` (the first iterate, or data without missing values) the two coincide with
the ordinary SVM, and a plain C-SVC on ``K`` is solved. The update sets
``s_i = max(||w^(i)|| / ||w||, min_scaling)`` (:func:`pattern_scalings`); an iterate scores any
row with the scalings it was solved with, those of the previous iterate's ``w`` (1 for iterate
0), so iterate 0 is the zero-fill SVM also at prediction. Every later solve is warm-started from
the previous iterate (:mod:`robustclf.missing._signed_qp`: same optimality conditions, usually
far less time), unless a scaling more than halved or doubled. ``solver="clarabel"`` solves (*)
directly as a QP with cvxpy and Clarabel (optional extra ``conic``; slow, a reference).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .._convergence import warn_not_converged
from ._signed_qp import _BAND, _MAX_BAND, libsvm_max_iter, solve_cold, solve_warm
from .kernels import restricted_sq_norms
from .socp import solve_quietly

__all__ = ["BinaryIterate", "fit_binary", "decision_binary", "scalings", "pattern_scalings",
           "kkt_residual", "kkt_floor"]


@dataclass
class BinaryIterate:
    """One iterate ``(w, b)`` of the algorithm: ``w = sum_j coef_j phi(x_{support_j})``.

    ``kkt_residual`` is the optimality measure of the SVM solve for the fixed scalings
    ``fit_scalings`` (:func:`kkt_residual`), ``scaling_change`` the fixed-point residual
    ``max_i |s_i(w) - fit_scalings_i|`` (0 at a fixed point of the §3 iteration), and
    ``libsvm_capped`` whether libsvm stopped at its iteration cap in this solve,
    ``kkt_floor`` the KKT residual that libsvm's single-precision kernel cache can leave
    (:func:`kkt_floor`), and ``n_floored`` the number of training rows whose scaling in
    ``fit_scalings`` was raised to the floor ``min_scaling`` (:func:`fit_binary`).
    """

    support: np.ndarray
    coef: np.ndarray
    intercept: float
    scaled_bias: bool
    objective: float
    fit_scalings: np.ndarray
    kkt_residual: float = float("nan")
    scaling_change: float = float("nan")
    libsvm_capped: bool = False
    kkt_floor: float = 0.0
    n_floored: int = 0


def scalings(sq_norms: np.ndarray, full_sq_norm: float) -> np.ndarray:
    """``s = ||w^(i)|| / ||w||`` (Eq. 5); 1 where it is undefined (``w = 0`` or ``w^(i) = 0``)."""
    if full_sq_norm <= 0.0:
        return np.ones_like(sq_norms)
    s = np.sqrt(sq_norms / full_sq_norm)
    return np.where(s > 1e-12, s, 1.0)


def pattern_scalings(it: BinaryIterate | None, X0: np.ndarray, M: np.ndarray,
                     patterns: np.ndarray, kernel_params: dict,
                     min_scaling: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Scalings of every missingness pattern under the ``w`` of iterate ``it``.

    Returns ``(raw, s)``: the Eq. (5) ratios ``||w^(p)|| / ||w||`` (:func:`scalings`) and the
    scalings actually used, ``max(raw, min_scaling)``. ``it=None`` stands for the start of the
    iteration, where every scaling is 1. ``X0, M`` are the zero-filled rows ``it`` refers to.
    """
    if it is None:
        ones = np.ones(patterns.shape[0])
        return ones, ones
    sq, full = restricted_sq_norms(X0[it.support], M[it.support], it.coef, patterns,
                                   **kernel_params)
    raw = scalings(sq, full)
    return raw, np.maximum(raw, min_scaling)


def decision_binary(K_sv: np.ndarray, s: np.ndarray, it: BinaryIterate) -> np.ndarray:
    """Eq. (7)'s prediction ``(w.x / s_x) (+ b)`` given ``K_sv = K(x, x_support)``.

    ``s`` holds the rows' scalings under the ``w`` that gave ``it`` its training scalings
    (the previous iterate's, 1 for iterate 0): every row is scaled as a training row of the
    same pattern was in ``it``'s solve.
    """
    score = K_sv @ it.coef
    if it.scaled_bias:
        return (score + it.intercept) / s
    return score / s + it.intercept


def _costs(C: float, sample_weight: np.ndarray | None):
    """The slack costs ``C_i = C w_i`` (a scalar ``C`` without weights)."""
    return C if sample_weight is None else C * sample_weight


def _qp_step(K: np.ndarray, y: np.ndarray, s: np.ndarray, C: float, bias: str,
             sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """(*) solved as a QP by cvxpy + Clarabel; ``b`` is the multiplier of the equality."""
    import cvxpy as cp

    g = cp.Variable(y.shape[0])
    a = np.ones_like(s) if bias == "scaled" else s
    yg = cp.multiply(y, g)
    eq = a @ g == 0
    prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(g, cp.psd_wrap(K)) - (s * y) @ g),
                      [yg >= 0, yg <= _costs(C, sample_weight) / s, eq])
    solve_quietly(prob, cp.CLARABEL)  # the status is reported below, once
    if prob.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"Clarabel failed on the Eq. (6)/(7) QP: {prob.status}.")
    if prob.status == "optimal_inaccurate":
        warn_not_converged("GeometricMarginSVC's Clarabel QP solve",
                           reason="Clarabel returned 'optimal_inaccurate' for the Eq. (6)/(7) "
                                  "QP", advice="Scale the data, or use solver='libsvm'.",
                           stacklevel=4)
    gamma = np.asarray(g.value)
    # Clarabel's optimum is interior-point: coefficients below 1e-9 C are zeros
    sup = np.flatnonzero(np.abs(gamma) > 1e-9 * C)
    return sup, gamma[sup], float(eq.dual_value)


def _svm_step(K: np.ndarray, y: np.ndarray, s: np.ndarray, C: float, bias: str, tol: float,
              solver: str = "libsvm", buffer: np.ndarray | None = None,
              start: tuple[np.ndarray, float, np.ndarray, np.ndarray] | None = None,
              sample_weight: np.ndarray | None = None,
              ) -> tuple[np.ndarray, np.ndarray, float]:
    """Solve (*) for fixed ``s``; return support, ``c = alpha y / s`` and ``b``.

    ``sample_weight`` (positive, shape ``(n,)``) scales the bounds: ``C_i = C w_i``.

    ``buffer`` (shape of ``K``) receives the rescaled kernel of the Eq. (7) reading, so that
    the iterations do not allocate a new ``n x n`` matrix each. ``start`` — the previous
    iterate's dense ``c``, ``b``, ``K c`` and scalings — seeds libsvm's solve
    (:func:`._signed_qp.solve_warm`); the result meets the same optimality conditions as
    without it. The band of rows solved by libsvm widens by the largest relative change of the
    scalings, by which the margins can move; beyond ``_MAX_BAND`` (a scaling more than halved or
    doubled) the previous iterate says little about the new problem and the solve is cold.
    """
    if solver == "clarabel":
        return _qp_step(K, y, s, C, bias, sample_weight)
    cap = libsvm_max_iter(K.shape[0])
    if np.all(s == 1.0):
        svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=cap)
        svc.fit(K, y, sample_weight=sample_weight)
        return svc.support_, svc.dual_coef_[0].copy(), float(svc.intercept_[0])
    d, m, u = _reading(s, _costs(C, sample_weight), bias)
    band = np.inf if start is None else _BAND + float(np.max(np.abs(start[3] / s - 1.0)))
    warm = None
    if band <= _MAX_BAND:
        coef0, b0, K_coef0, _ = start
        warm = solve_warm(K, d, y, m, u, tol, coef0 / d, b0, d * K_coef0, band)
    if warm is not None:
        g, b, _ = warm
    elif bias == "scaled":
        g, b = solve_cold(K, y, m, u, tol)
    else:
        G = np.multiply(K, d[:, None], out=buffer)
        G *= d
        svc = SVC(kernel="precomputed", C=C, tol=tol, max_iter=cap)
        svc.fit(G, y, sample_weight=sample_weight)
        g, b = np.zeros_like(s), float(svc.intercept_[0])
        g[svc.support_] = svc.dual_coef_[0]
    coef = g * d
    sup = np.flatnonzero(coef)
    return sup, coef[sup], b


def _reading(s: np.ndarray, cost, bias: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row scaling ``d``, margins ``m`` and bounds ``u`` of (*) in the variables of a reading.

    ``"scaled"``: (*) in ``gamma`` itself, margins ``s_i``, bounds ``C_i / s_i``, kernel ``K``.
    ``"unscaled"``: (*) in ``delta = s gamma``, margins 1, bounds ``C_i``, kernel
    ``K / (s s')``. ``cost`` is ``C`` or the per-row ``C_i``.
    """
    if bias == "scaled":
        return np.ones_like(s), s, cost / s
    return 1.0 / s, np.ones_like(s), cost * np.ones_like(s)


def kkt_residual(K_coef: np.ndarray, coef: np.ndarray, b: float, y: np.ndarray,
                 s: np.ndarray, C: float, bias: str,
                 sample_weight: np.ndarray | None = None) -> float:
    """Largest violation of the KKT conditions of (*) at ``(coef, b)``, in margin units.

    In the variables of either reading (``g = coef / d`` with ``d = 1`` for ``"scaled"``,
    ``d = 1 / s`` for ``"unscaled"``; margins ``m = s`` or ``1``; bounds ``u = C / s`` or
    ``C``) the margin of row ``i`` is ``y_i (d_i (K coef)_i + b)``; it must be ``>= m_i`` where
    ``y_i g_i = 0``, ``<= m_i`` where ``y_i g_i = u_i`` and ``= m_i`` in between. This is the
    quantity libsvm's ``tol`` bounds (up to the choice of ``b`` inside the violating pair's
    interval), so it is at most about ``tol`` after a normal libsvm stop.

    Parameters
    ----------
    K_coef : ndarray of shape (n,)
        ``K @ coef`` with ``coef`` dense.
    coef : ndarray of shape (n,)
        Dense ``c = alpha y / s``.
    b : float
    y, s : ndarray of shape (n,)
    C : float
    bias : {"scaled", "unscaled"}
    sample_weight : ndarray of shape (n,) or None
        Positive row weights: the bounds use ``C_i = C w_i``.
    """
    d, m, u = _reading(s, _costs(C, sample_weight), bias)
    a = y * coef / d
    gap = y * (d * K_coef + b) - m
    at_zero = a <= 1e-6 * u               # libsvm's bounds are exact; an interior-point
    at_bound = a >= u * (1.0 - 1e-6)      # solution (Clarabel) is 1e-8-close to them
    viol = np.where(at_zero, np.maximum(0.0, -gap),
                    np.where(at_bound, np.maximum(0.0, gap), np.abs(gap)))
    return float(viol.max(initial=0.0))


def kkt_floor(K: np.ndarray, coef: np.ndarray, s: np.ndarray, bias: str) -> float:
    """Rounding bound of libsvm's gradient in margin units, ``2^-23 max_i d_i sum_j |K_ij c_j|``.

    libsvm caches kernel values in single precision (``Qfloat``), so its gradients, hence the
    margins it drives to ``tol``, carry a relative error of about ``2^-24`` per term: a
    ``tol`` below this floor is not attainable in exact arithmetic (on house votes, 2e-6 is
    reached at any ``tol <= 1e-6``). For the (positive semi-definite) missing-aware kernels
    ``|K_ij| <= sqrt(K_ii K_jj)`` bounds the sum in O(n) instead of forming ``|K|``.
    """
    d = np.ones_like(s) if bias == "scaled" else 1.0 / s
    root = np.sqrt(np.maximum(np.diagonal(K), 0.0))
    return float(2.0**-23 * np.max(d * root, initial=0.0) * (root @ np.abs(coef)))


def _recording_libsvm_cap(step, *args):
    """``step(*args)`` and whether libsvm hit its iteration cap (its ConvergenceWarning).

    The ConvergenceWarning is withheld (the estimator reports it once, with the KKT residual
    reached); any other warning is emitted again unchanged.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = step(*args)
    capped = False
    for w in caught:
        if issubclass(w.category, ConvergenceWarning) and "terminated early" in str(w.message):
            capped = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out, capped


def fit_binary(K: np.ndarray, y: np.ndarray, X0: np.ndarray, M: np.ndarray,
               patterns: np.ndarray, inverse: np.ndarray, *, C: float, max_iter: int,
               bias: str, tol: float, kernel_params: dict,
               solver: str = "libsvm", warm_start: bool = True, svm_tol: float = 1e-3,
               sample_weight: np.ndarray | None = None, min_scaling: float = 0.0,
               ) -> tuple[list[BinaryIterate], bool]:
    """Alternate an SVM solve for fixed ``s`` and ``s_i = ||w^(i)|| / ||w||`` (§3).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Missing-aware kernel of the training rows (computed once).
    y : ndarray of shape (n,), in {-1, +1}
    X0, M : zero-filled training data and validity mask, shape (n, d)
    patterns, inverse : distinct masks and the pattern index of every row
    C, max_iter, bias, tol, solver : see :class:`~robustclf.missing.GeometricMarginSVC`
    kernel_params : kernel, degree, gamma, coef0
    warm_start : bool, default=True
        Seed every libsvm solve after the first with the previous iterate (same optimality
        conditions, less time; ``False`` only for benchmarks and tests).
    svm_tol : float, default=1e-3
        libsvm's ``tol`` (its KKT tolerance) in every SVM solve.
    sample_weight : ndarray of shape (n,) or None, default=None
        Positive row weights (the caller drops rows of weight zero): the slack of row ``i``
        costs ``C w_i`` in every SVM solve and in the recorded objective. The scaling update
        does not involve them: ``s_i`` depends only on ``w`` and row ``i``'s valid features.
    min_scaling : float in [0, 1), default=0.0
        Floor of the scalings: every update sets ``s_i = max(||w^(i)|| / ||w||, min_scaling)``
        (see :class:`~robustclf.missing.GeometricMarginSVC`); 0 is the paper's update.

    Returns
    -------
    iterates : list of BinaryIterate
        Iterate 0 is the ordinary SVM (``s = 1``); iterate ``t`` uses the scalings of ``t - 1``.
        Each records its KKT residual, its fixed-point residual and whether libsvm hit its
        iteration cap.
    converged : bool
        Whether a fixed point (max change of ``s`` below ``tol``) was reached.
    """
    s = np.ones(y.shape[0])
    n_floored = 0
    iterates = []
    buffer = np.empty_like(K) if bias == "unscaled" and max_iter > 0 else None
    start = None
    for _ in range(max_iter + 1):
        (sup, coef, b), capped = _recording_libsvm_cap(_svm_step, K, y, s, C, bias, svm_tol,
                                                       solver, buffer, start, sample_weight)
        dense = np.zeros(y.shape[0])
        dense[sup] = coef
        K_coef = K @ dense
        it = BinaryIterate(sup, coef, b, bias == "scaled", 0.0, s,
                           kkt_residual(K_coef, dense, b, y, s, C, bias, sample_weight),
                           libsvm_capped=capped, kkt_floor=kkt_floor(K, dense, s, bias),
                           n_floored=n_floored)
        raw, floored = pattern_scalings(it, X0, M, patterns, kernel_params, min_scaling)
        s_new = floored[inverse]
        n_floored = int(np.count_nonzero(raw[inverse] < min_scaling))
        it.scaling_change = float(np.max(np.abs(s_new - s)))
        if warm_start:
            start = (dense, b, K_coef, s)
        f = (K_coef + b) / s_new if it.scaled_bias else K_coef / s_new + b  # Eq. (7)
        hinge = np.maximum(0.0, 1.0 - y * f)
        it.objective = 0.5 * max(float(dense @ K_coef), 0.0) + C * float(
            hinge.sum() if sample_weight is None else sample_weight @ hinge)
        iterates.append(it)
        if it.scaling_change < tol:
            return iterates, True
        s = s_new
    return iterates, False
