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

**The linear kernel without** ``K``. Beyond ``LINEAR_BLOCK`` training rows the linear kernel is
never formed (:func:`fit_binary` with ``K=None``): (*) is solved in ``w``-space by
:func:`_linear_step`, a decomposition whose margins come from ``X0 @ w`` and whose reduced solves
are libsvm solves on blocks of rows, with libsvm's stopping rule on all rows; the restricted
norms are ``||w^(p)||^2 = sum_{f in p} w_f^2`` of the explicit ``w`` (Eq. 5), and every
iterate keeps that ``w`` for prediction. Memory is ``O(n d + LINEAR_BLOCK^2)`` instead of
``O(n^2)``; the iterates are those of the whole-kernel solves up to ``svm_tol``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from .._convergence import warn_not_converged
from ._kkt_polish import polish
from ._signed_qp import _BAND, _MAX_BAND, _svr_solve, libsvm_max_iter, solve_cold, solve_warm
from .kernels import restricted_sq_norms
from .socp import solve_quietly

__all__ = ["BinaryIterate", "fit_binary", "decision_binary", "scalings", "pattern_scalings",
           "kkt_residual", "kkt_floor"]

#: Training rows up to which the linear kernel is formed (8 * 2048^2 bytes = 32 MiB) and the
#: solves are those of any kernel; beyond, :func:`_linear_step` works in ``w``-space with
#: reduced solves of at most ``max(LINEAR_BLOCK, 3 (n_features + 1))`` rows, capped at twice
#: ``LINEAR_BLOCK`` (one block of at most 128 MiB alive at a time).
LINEAR_BLOCK = 2048
_LINEAR_MAX_ROUNDS = 1000  # reduced solves of one _linear_step; beyond, the KKT check reports
_SUB_TOL = 0.5  # reduced solves to this fraction of svm_tol, so that the outer rule can hold


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
    With the linear kernel ``w`` holds the explicit weights ``X0[support].T @ coef`` (prediction
    and the restricted norms use them, in ``O(n_features)`` per row), else None. ``rounds`` is
    the number of reduced solves of the solve (1 for a solve on the whole kernel).
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
    w: np.ndarray | None = None
    rounds: int = 1


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
    if it.w is not None:  # linear kernel: ||w^(p)||^2 = sum of w_f^2 over the valid features
        w2 = it.w * it.w
        sq, full = patterns.astype(np.float64) @ w2, float(w2.sum())
    else:
        sq, full = restricted_sq_norms(X0[it.support], M[it.support], it.coef, patterns,
                                       **kernel_params)
    raw = scalings(sq, full)
    return raw, np.maximum(raw, min_scaling)


def decision_binary(score: np.ndarray, s: np.ndarray, it: BinaryIterate) -> np.ndarray:
    """Eq. (7)'s prediction ``(w.x / s_x) (+ b)`` given ``score = w.x``.

    ``score`` is ``X0 @ it.w`` (linear kernel) or ``K(x, x_support) @ it.coef``. ``s`` holds
    the rows' scalings under the ``w`` that gave ``it`` its training scalings (the previous
    iterate's, 1 for iterate 0): every row is scaled as a training row of the same pattern was
    in ``it``'s solve.
    """
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


def _feasible_start(start, d: np.ndarray, y: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The previous iterate's ``alpha = y g`` in the new box, rescaled so ``sum y alpha = 0``.

    ``start[0]`` is the previous dense ``coef = g_prev d_prev``; in this reading ``g = coef /
    d``, clipped into ``[0, u]``. If the clipped values no longer sum to zero the larger side
    (positive or negative class) is scaled down by the factor that restores the sum, which
    keeps every value in its box. Any feasible point is a valid start; a good one saves rounds.
    """
    if start is None:
        return np.zeros(y.shape[0])
    a = np.clip(y * start[0] / d, 0.0, u)
    excess = float(y @ a)
    side = y > 0 if excess > 0 else y < 0
    total = float(a[side].sum())
    if total > 0.0:
        a[side] *= max(1.0 - abs(excess) / total, 0.0)
    return a


def _working_set(score: np.ndarray, up: np.ndarray, low: np.ndarray, hi: float, lo: float,
                 size: int) -> np.ndarray:
    """Rows of the next reduced solve: the free rows, then the most violating of each side.

    ``score_i`` is the intercept that puts row ``i`` on its margin; a row of ``up`` (its
    ``alpha`` can grow on the positive side) violates optimality against a row of ``low`` whose
    score is smaller. The free rows (``0 < alpha < u``, in both sets) are kept in every working
    set, as SVMlight keeps part of the previous one (Joachims 1999): a linear SVM has at most
    about ``n_features + 1`` of them, the solution is decided among them, and a working set
    that drops some of them zig-zags. The rest is filled with the rows of ``up`` with the
    largest scores and those of ``low`` with the smallest (libsvm's ``I_up`` / ``I_low``), as
    far as they violate against the other side. A free row enters the reduced solve twice (one
    copy per direction, :func:`_linear_step`), so the rows are chosen for at most ``size``
    copies: at most ``size // 3`` free rows.
    """
    free = np.flatnonzero(up & low)
    if free.size > size // 3:
        worst = np.maximum(score[free] - lo, hi - score[free])
        free = free[np.argpartition(-worst, size // 3 - 1)[:size // 3]]
    half = max((size - 2 * free.size) // 2, 1)
    parts = [free]
    for side, sign, bound in ((up & ~low, -1.0, lo), (low & ~up, 1.0, hi)):
        rows = np.flatnonzero(side & (sign * score < sign * bound))
        if rows.size > half:
            rows = rows[np.argpartition(sign * score[rows], half - 1)[:half]]
        parts.append(rows)
    return np.concatenate(parts)


def _linear_step(X0: np.ndarray, y: np.ndarray, s: np.ndarray, C: float, bias: str,
                 tol: float, start=None, sample_weight: np.ndarray | None = None,
                 block: int | None = None) -> tuple[np.ndarray, np.ndarray, float, int, bool]:
    """Solve (*) for the linear kernel without forming ``K``: a decomposition in ``w``-space.

    For the linear kernel ``G = diag(d) X0 X0' diag(d)``, so the gradient of (*) needs only
    ``w = X0' (d g)``: every row's margin is ``y_i (d_i x_i.w + b)``, one product with ``X0``
    (``O(nnz)``). The solve is the decomposition method of SVMlight (Joachims 1999) with the
    stopping rule of libsvm (Fan, Chen & Lin 2005): while the maximal violation ``max_{I_up}
    score - min_{I_low} score`` (``score_i = m_i y_i - (G g)_i``, the intercept that puts row
    ``i`` on its margin) exceeds ``tol``, take a working set of rows (:func:`_working_set`:
    the free rows, then the most violating ones), solve (*) on them with the others fixed, and
    update ``w``. The reduced solve is libsvm's, on the rows' own ``block x block`` kernel and
    in the step from the current point (one copy of a row per direction it can move, the fixed
    rows folded into the linear term, the step summing to zero: :func:`._signed_qp._svr_solve`,
    as :func:`._signed_qp.solve_warm` does on a whole kernel), to ``tol / 2``. The stopping
    rule is libsvm's own (its ``eps`` is ``tol``), so the result meets the optimality
    conditions of a libsvm solve on the whole kernel; memory is ``O(nnz + block^2)`` instead of
    ``O(n^2)``. A reduced solve that moves nothing although the rule does not hold has met
    libsvm's rounding floor (its single-precision kernel cache, :func:`kkt_floor`): the solve
    stops there, as a libsvm solve on the whole kernel does, and the caller measures the KKT
    residual reached.

    Why not a primal solver such as liblinear (``LinearSVC``): in the variables of Eq. (6) a
    fixed-scalings problem is a linear SVM on the rows ``x_i / s_i`` with unit margins and costs
    ``C w_i``, whose bias is *not* regularised -- ``"unscaled"``: a free intercept;
    ``"scaled"``: the weight of a per-row feature ``1 / s_i``. liblinear penalises its
    intercept (``b^2 / (2 intercept_scaling^2)``), so it solves another problem, close only as
    ``intercept_scaling`` grows, where its coordinate descent slows down.

    ``block`` is the largest number of row copies of a reduced solve; by default
    ``max(LINEAR_BLOCK, 3 (n_features + 1))`` capped at ``2 LINEAR_BLOCK``, room for the free
    rows (at most about ``n_features + 1`` for a linear kernel) twice and as many violators.
    ``start`` is the previous iterate's ``(coef, b, K coef, s)`` (:func:`_feasible_start`).

    Returns
    -------
    support, coef, b
        As :func:`_svm_step`.
    rounds : int
        Reduced solves made.
    capped : bool
        Whether a reduced libsvm solve stopped at its iteration cap (the decomposition then
        stops: its result is not certified; the caller reports the KKT residual reached).
    """
    if block is None:  # room for the free rows, at most about n_features + 1 (see _working_set)
        block = min(max(LINEAR_BLOCK, 3 * (X0.shape[1] + 1)), 2 * LINEAR_BLOCK)
    d, m, u = _reading(s, _costs(C, sample_weight), bias)
    a = _feasible_start(start, d, y, u)
    w = X0.T @ (d * y * a)
    rounds, capped, moved = 0, False, True
    while True:
        score = m * y - d * (X0 @ w)
        up = np.where(y > 0, a < u, a > 0)
        low = np.where(y > 0, a > 0, a < u)
        hi = float(score[up].max(initial=-np.inf))
        lo = float(score[low].min(initial=np.inf))
        if hi - lo <= tol or capped or not moved or rounds >= _LINEAR_MAX_ROUNDS:
            break
        B = _working_set(score, up, low, hi, lo, block)
        XB = X0[B]
        yB, aB, uB, dB = y[B], a[B], u[B], d[B]
        # the step h = g_B - y_B a_B: one copy of a row per direction it can move (as in
        # _signed_qp.solve_warm), so libsvm starts at the current point and the sum stays 0
        up_B, down_B = np.flatnonzero(aB < uB), np.flatnonzero(aB > 0.0)
        rows = np.concatenate([up_B, down_B])
        XR = XB[rows] if bias == "scaled" else XB[rows] * dB[rows, None]
        G = XR @ XR.T
        direction = np.concatenate([yB[up_B], -yB[down_B]])
        room = np.concatenate([uB[up_B] - aB[up_B], aB[down_B]])
        result, capped = _recording_libsvm_cap(_svr_solve, G, direction, score[B][rows],
                                               room, 0.0, _SUB_TOL * tol)
        del G, XR  # one kernel block alive at a time
        rounds += 1
        step = np.zeros(B.size)
        np.add.at(step, rows, result[0])
        a_new = np.clip(aB + yB * step, 0.0, uB)
        at_bound = a_new >= uB * (1.0 - 1e-12)  # libsvm's bounds, up to its weight rounding
        a_new[at_bound] = uB[at_bound]
        a_new[a_new <= 1e-12 * uB] = 0.0
        # a reduced solve that moves nothing although the rows violate: libsvm's rounding
        # floor is reached (its float kernel cache), more rounds would repeat it
        moved = bool(np.any(np.abs(a_new - aB) > 1e-12 * uB))
        w += XB.T @ (dB * yB * (a_new - aB))
        a[B] = a_new
    free = up & low
    if free.any():  # libsvm's choice: the mean over the free rows, else the middle
        b = float(score[free].mean())
    else:
        b = float(np.mean([v for v in (hi, lo) if np.isfinite(v)] or [0.0]))
    coef = d * y * a
    sup = np.flatnonzero(coef)
    return sup, coef[sup], b, max(rounds, 1), capped


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
    ``|K_ij| <= sqrt(K_ii K_jj)`` bounds the sum in O(n) instead of forming ``|K|``; ``K``
    may therefore be given by its diagonal alone (shape ``(n,)``, as the linear-kernel solver
    in ``w``-space does, whose reduced solves are libsvm solves on blocks of ``K``).
    """
    d = np.ones_like(s) if bias == "scaled" else 1.0 / s
    diag = K if K.ndim == 1 else np.diagonal(K)
    root = np.sqrt(np.maximum(diag, 0.0))
    return float(2.0**-23 * np.max(d * root, initial=0.0) * (root @ np.abs(coef)))


def _polished(K, X0, y, s, C, bias, sample_weight, dense, b, K_coef):
    """``(dense, b, K dense)`` after :func:`._kkt_polish.polish`, or unchanged if it fails."""
    d, m, u = _reading(s, _costs(C, sample_weight), bias)
    residual = kkt_residual(K_coef, dense, b, y, s, C, bias, sample_weight)
    if K is None:
        def columns(rows):
            return X0 @ X0[rows].T
    else:
        def columns(rows):
            return K[rows].T  # K is symmetric: its rows are contiguous, its columns are not
    out = polish(columns, y, d, m, u, np.clip(y * dense / d, 0.0, u), b, K_coef, residual)
    if out is None:
        return dense, b, K_coef
    a, b, K_coef, _ = out
    return d * y * a, b, K_coef


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
               polish: bool = True) -> tuple[list[BinaryIterate], bool]:
    """Alternate an SVM solve for fixed ``s`` and ``s_i = ||w^(i)|| / ||w||`` (§3).

    Parameters
    ----------
    K : ndarray of shape (n, n) or None
        Missing-aware kernel of the training rows (computed once). None for the linear
        kernel solved in ``w``-space (:func:`_linear_step`): no ``n x n`` matrix is formed,
        the explicit ``w`` gives the margins, the restricted norms and the objective.
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
    polish : bool, default=True
        Polish every libsvm solve on its support sets in double precision
        (:func:`._kkt_polish.polish`; kept only when it lowers the KKT residual).

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
    linear = isinstance(kernel_params.get("kernel"), str) and kernel_params["kernel"] == "linear"
    if K is None:  # the linear kernel in w-space: only its diagonal, for kkt_floor
        diag = np.einsum("ij,ij->i", X0, X0)
    buffer = np.empty_like(K) if K is not None and bias == "unscaled" and max_iter > 0 else None
    start = None
    for _ in range(max_iter + 1):
        if K is None:
            sup, coef, b, rounds, capped = _linear_step(X0, y, s, C, bias, svm_tol, start,
                                                        sample_weight)
        else:
            (sup, coef, b), capped = _recording_libsvm_cap(_svm_step, K, y, s, C, bias,
                                                           svm_tol, solver, buffer, start,
                                                           sample_weight)
            rounds = 1
        dense = np.zeros(y.shape[0])
        dense[sup] = coef
        K_coef = X0 @ (X0[sup].T @ coef) if K is None else K @ dense
        if polish and solver == "libsvm":
            dense, b, K_coef = _polished(K, X0, y, s, C, bias, sample_weight, dense, b, K_coef)
            sup = np.flatnonzero(dense)
            coef = dense[sup]
        w = X0[sup].T @ coef if linear else None
        it = BinaryIterate(sup, coef, b, bias == "scaled", 0.0, s,
                           kkt_residual(K_coef, dense, b, y, s, C, bias, sample_weight),
                           libsvm_capped=capped,
                           kkt_floor=kkt_floor(diag if K is None else K, dense, s, bias),
                           n_floored=n_floored, w=w, rounds=rounds)
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
