"""Solvers of RoLR's trimmed-correlation problem (Feng et al. 2014, Eq. 2): arrays in, arrays out.

With ``a_i = y_i x_i`` (rows of ``A``) and ``n`` the number of authentic rows, RoLR solves

    max_{||beta||_2 <= 1}  P(beta) = sum of the n smallest a_i^T beta                    (Eq. 2)

The inner "sum of the n smallest" is ``min_t t^T A beta`` over the capped simplex
``C = {t : 0 <= t_i <= 1, sum_i t_i = n}``; by the minimax theorem (both sets convex, compact)

    max_beta P(beta) = min_{t in C} D(t),   D(t) = ||A^T t||_2,   beta* = A^T t* / ||A^T t*||.

For every feasible ``t`` and unit ``beta``, ``P(beta) <= P* = D* <= D(t)``: the duality gap
``D(t) - max(P(beta(t)), P(0) = 0)`` certifies the accuracy of both; moreover
``P(beta) <= <A^T t*, beta> = D* cos(beta, beta*)``, so a relative gap ``g`` also certifies
``1 - cos(beta, beta*) <= g``. When ``D* = 0`` the maximiser is ``beta = 0`` (the trimmed
correlation is non-positive in every direction): the *collapse*, declared only when a feasible
``t`` certifies ``D* <= tol * B`` (``B``: the sum of the ``n`` largest row norms, a bound on
``|P|``), never because the iteration limit was reached.

Solvers
-------
``solve_dual``
    Accelerated projected gradient (FISTA with adaptive gradient restart) on
    ``min_{t in C} ||A^T t||^2 / 2`` (same minimiser as ``D``), with an exact projection onto ``C``
    and the duality-gap stopping rule. The step is ``1 / L`` with ``L = ||A||_2^2`` estimated by
    Lanczos on ``A^T A`` (or ``A A^T``) through products with ``A`` -- never
    ``X^T diag(y) X``, whose top eigenvalue can be far smaller for non-negative features -- and
    raised by backtracking if a step violates the descent condition. Two passes over ``X`` per
    iteration; ``A`` is never formed (``A^T t = X^T (y * t)``), so dense or sparse ``X`` is used
    as given.
``solve_socp``
    Eq. (3) with ``nu`` free (the dual of the inner minimum over ``C``) as a second-order cone
    program, through cvxpy + Clarabel (optional extra ``conic``): the reference. With
    ``nu_nonnegative=True`` it solves Eq. (3) *as printed* (``nu >= 0``, i.e. ``sum t <= n``),
    whose maximiser is ``beta = 0`` whenever the trimmed sum is positive somewhere.

Row weights
-----------
A row of weight ``w_i`` counts as ``w_i`` copies of the row (scikit-learn's ``sample_weight``).
The trimmed sum then sums the smallest correlations up to a total *weight* ``n``, a fraction of a
row's copies allowed: ``P(beta) = min_t t^T A beta`` over the capped simplex with caps ``w``,
``{0 <= t_i <= w_i, sum_i t_i = n}``, and the dual is ``min ||A^T t||`` over the same set. The
dual solver writes ``t = w * s`` with ``s`` in ``[0, 1]^N`` and runs the iteration that the
copies would run (every copy of a row carries the same dual value): the gradient step in the
metric ``sum_i w_i s_i^2``, with ``L = ||W^{1/2} A||_2^2``, and the projection in that metric,
``s_i = clip(v_i - tau, 0, 1)`` with ``sum_i w_i s_i = n``. Integer weights thus give the
iterates of the repeated rows (up to the Lanczos estimate of ``L`` and rounding); without
weights every formula reduces to the unweighted one, computed as before.

The rows may be centred and scaled, ``(x_i - center) / scale``, and a constant column
``intercept_scaling`` may be appended to them (inside the unit ball, like liblinear's); all three
are handled implicitly, without copying ``X``. ``RobustLogisticRegression`` no longer uses the
constant column (since 25 Nov 2026 it solves for the direction only and fits the offset
separately, see its Notes): a constant column inside Eq. (2) weighs the class imbalance, not the
decision threshold. The option is kept as a general form of the problem for direct use.

Dask: the same fit on row chunks
--------------------------------
:func:`fista` is the dual iteration of :func:`solve_dual` written once, against a row-level
backend: :class:`_MemoryRows` holds the dual iterates as arrays; ``_BlockRows`` keeps them in
the row chunks of a dask collection (:class:`RowChunks`: a state per chunk -- dual iterates,
gradient, row norms, kept-row mask, projections -- persisted where the chunk is processed) and
computes every row-level step with the same functions (:class:`_Design`'s products,
:func:`capped_sums`, :func:`centred_row_norms`, :func:`fill_absent`, the offset fit's
:func:`~._rolr_offset.offset_terms`). Only ``d``-sized vectors, scalars and small per-chunk
summaries reach the client. The steps of Algorithm 1 that are not sums over rows are found
exactly, never approximated:

* order statistics (column medians, the median row norm, the trimmed sum of Eq. 2, the sum of
  the ``n`` largest row norms, the trimmed set) by :class:`_StepSearch`, and the shift ``tau`` of
  the capped-simplex projection by :class:`_ClipSearch`. A pass evaluates the weighted count
  (or ``h(tau)``) exactly at a few candidate points, summed over chunks; each chunk also sends
  its values in the current bracket if they are few (at most ``_RAW_BUDGET / n_chunks``; with a
  starting guess, the ones nearest it), else a sketch whose pooled points are the next
  candidates. The answer is exact once the sent values cover the bracket: one pass when the
  chunks are small or the starting guess (the previous iteration's value) is good, a few
  otherwise (each narrows the bracket about ``_SKETCH`` times per chunk);
* the Lipschitz constant by :func:`largest_eigenvalue` on the Gram matrix ``A^T W A`` summed
  over chunks (one pass, up to ``MAX_GRAM_FEATURES`` features; one pass per Lanczos product
  beyond).

The blockwise fit takes the in-memory iterations, up to the rounding of sums taken in another
order (measured: coefficients within 1e-13 relative at the default ``tol``). Passes over ``X``:
two per dual iteration (gradient ``A u``, then ``A^T t``; one more for a backtracking step),
plus a fixed number for the preprocessing (see ``RobustLogisticRegression._fit_ovr_blockwise``);
the order-statistic refinements and the offset fit read the states only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

__all__ = ["RoLRSolution", "trimmed_sum", "project_capped_simplex", "solve_dual", "solve_socp",
           "SOLVERS", "column_medians", "centred_row_norms", "weighted_medians", "fill_absent",
           "has_absent", "capped_sums", "fista", "largest_eigenvalue", "RowChunks", "BlockSpec",
           "MAX_GRAM_FEATURES"]


class RoLRSolution(NamedTuple):
    """What every RoLR solver returns.

    Attributes
    ----------
    coef : ndarray of shape (n_features + fit_intercept,)
        ``beta``, unit norm, or zero when the problem collapsed (last entry: the coefficient of
        the constant column, when there is one).
    objective : float
        ``P(coef)``, the trimmed sum at ``coef`` (Eq. 2).
    dual_objective : float
        An upper bound on the optimum: ``D(t)`` at the best ``t`` (dual solver), or the conic
        solver's optimal value (SOCP).
    n_iter : int
    converged : bool
    collapsed : bool
        True when a dual point certifies that the optimum is zero to ``tol`` times the bound
        on ``|P|``, so ``coef = 0``; never set by the iteration limit.
    """

    coef: np.ndarray
    objective: float
    dual_objective: float
    n_iter: int
    converged: bool
    collapsed: bool


def trimmed_sum(z: np.ndarray, n: float, weights: np.ndarray | None = None) -> float:
    """Sum of the ``n`` smallest entries of ``z`` (``[z]_(1) + ... + [z]_(n)`` in Eq. 2), O(N).

    With ``weights`` entry ``i`` counts ``weights[i]`` times and ``n`` is a total weight (real):
    ``min_t t^T z`` over ``{0 <= t_i <= w_i, sum t_i = n}``, i.e. whole entries in increasing
    order and a fraction of the entry where the weight ``n`` is reached (O(N log N)).
    """
    z = np.asarray(z, dtype=np.float64)
    if weights is not None:
        return float(trimmed_weights(z, n, weights) @ z)
    if n >= z.size:
        return float(z.sum())
    return float(np.partition(z, n - 1)[:n].sum())


def trimmed_weights(z: np.ndarray, n: float, weights: np.ndarray) -> np.ndarray:
    """The weights ``t`` of the weighted trimmed sum: ``t_i`` in ``[0, w_i]``, ``sum t = n``.

    The smallest entries of ``z`` get their whole weight (ties in row order), the entry where
    the cumulative weight passes ``n`` the remainder, the others 0.
    """
    order = np.argsort(z, kind="stable")
    w = np.asarray(weights, dtype=np.float64)[order]
    before = np.cumsum(w) - w                      # weight of the smaller entries
    t = np.empty_like(w)
    t[order] = np.clip(n - before, 0.0, w)
    return t


def _capped_sum(v: np.ndarray, tau: float, weights: np.ndarray | None = None):
    """``h(tau) = sum_i w_i clip(v_i - tau, 0, 1)`` and its slope ``sum w_i`` over (0, 1).

    Without ``weights`` every ``w_i`` is 1 (the slope is the number of entries inside).
    """
    w = v - tau
    inside = (w > 0.0) & (w < 1.0)
    if weights is None:
        return float(np.count_nonzero(w >= 1.0) + w[inside].sum()), int(np.count_nonzero(inside))
    h = weights[w >= 1.0].sum() + weights[inside] @ w[inside]
    return float(h), float(weights[inside].sum())


def capped_sums(v: np.ndarray, points: np.ndarray,
                weights: np.ndarray | None = None) -> np.ndarray:
    """``h(tau) = sum_i w_i clip(v_i - tau, 0, 1)`` at every ``tau`` in ``points``, exactly.

    One sort of ``v`` and prefix sums of ``w`` and ``w v``: O((N + P) log N) for ``P`` points.
    Without ``weights`` every ``w_i`` is 1. The sums of the row chunks of a dask fit add up to
    ``h`` of all rows.
    """
    points = np.asarray(points, dtype=np.float64)
    if weights is None:
        vs = np.sort(v)
        cw = np.arange(vs.size + 1, dtype=np.float64)
        cwv = np.concatenate([[0.0], np.cumsum(vs)])
    else:
        order = np.argsort(v, kind="stable")
        vs, ws = v[order], weights[order]
        cw = np.concatenate([[0.0], np.cumsum(ws)])              # prefix sums of w and w v
        cwv = np.concatenate([[0.0], np.cumsum(ws * vs)])
    N = vs.size
    lo1 = np.searchsorted(vs, points + 1.0, side="left")         # from lo1 on: v_i - tau >= 1
    lo0 = np.searchsorted(vs, points, side="right")              # from lo0 on: v_i - tau > 0
    return (cw[N] - cw[lo1]) + (cwv[lo1] - cwv[lo0]) - (cw[lo1] - cw[lo0]) * points


def _piecewise_root(points: np.ndarray, h: np.ndarray, n: float) -> float:
    """The ``tau`` with ``h(tau) = n`` of a continuous non-increasing piecewise linear ``h``,
    given at the increasing ``points`` that include all of its breakpoints in between."""
    k = np.searchsorted(-h, -n, side="left")        # first point with h <= n
    if k == 0:
        return float(points[0])
    if k == h.size:                                 # h > n at every point (by rounding)
        return float(points[-1])
    h0, h1, b0, b1 = h[k - 1], h[k], points[k - 1], points[k]
    return float(b0 + (h0 - n) * (b1 - b0) / (h0 - h1)) if h0 > h1 else float(b1)


def _project_sort(v: np.ndarray, n: float, weights: np.ndarray | None = None) -> float:
    """The shift ``tau`` of the projection, exactly, by sorting the 2N breakpoints: O(N log N).

    ``h(tau)`` is continuous, non-increasing and linear between consecutive breakpoints
    ``{v_i - 1} U {v_i}``; evaluate it at all of them (:func:`capped_sums`) and interpolate.
    """
    breaks = np.unique(np.concatenate([v - 1.0, v]))
    return _piecewise_root(breaks, capped_sums(v, breaks, weights), n)


def project_capped_simplex(v: np.ndarray, n: float, tau0: float | None = None,
                           max_newton: int = 50,
                           weights: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Euclidean projection of ``v`` onto ``{t : 0 <= t_i <= 1, sum t_i = n}``, exactly.

    With positive ``weights`` it is the projection in the metric ``sum_i w_i (t_i - v_i)^2``
    onto ``{0 <= t_i <= 1, sum_i w_i t_i = n}`` (the dual step of weighted rows, see the module
    notes): the same ``t_i = clip(v_i - tau, 0, 1)``, with ``h(tau)`` weighting each entry.

    The projection is ``t_i = clip(v_i - tau, 0, 1)`` with ``tau`` the root of the piecewise
    linear, non-increasing ``h(tau) = sum_i clip(v_i - tau, 0, 1) = n``. A safeguarded Newton
    iteration on ``h`` (bisection when a step leaves the bracket) lands on the exact root once it
    reaches the right linear piece: O(N) per step and a few steps in expectation, especially when
    warm-started at the previous ``tau0``. It falls back to the exact sort-based O(N log N) rule.

    Parameters
    ----------
    v : ndarray of shape (N,)
    n : float, 0 <= n <= N (``sum(weights)`` with weights)
    tau0 : float, default=None
        Starting guess (e.g. the previous projection's shift).
    max_newton : int, default=50
    weights : ndarray of shape (N,) or None, default=None
        Positive weights of the entries (None: all 1).

    Returns
    -------
    t : ndarray of shape (N,)
    tau : float
    """
    N = v.size if weights is None else float(weights.sum())
    if n >= N:
        return np.ones(v.size), -np.inf
    if n <= 0:
        return np.zeros(v.size), np.inf
    lo, hi = float(v.min()) - 1.0, float(v.max())        # h(lo) = N >= n >= 0 = h(hi)
    tau = 0.5 * (lo + hi) if tau0 is None or not lo < tau0 < hi else float(tau0)
    tol = 1e-12 * max(n, 1.0)
    for _ in range(max_newton):
        h, slope = _capped_sum(v, tau, weights)
        if abs(h - n) <= tol:
            break
        if h > n:
            lo = tau
        else:
            hi = tau
        step = tau + (h - n) / slope if slope > 0 else None
        tau = step if step is not None and lo < step < hi else 0.5 * (lo + hi)
    else:
        tau = _project_sort(v, n, weights)
    return np.clip(v - tau, 0.0, 1.0), tau


def weighted_medians(V: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted median of each column of ``V`` (a 1-D ``V`` is one column; returns a scalar).

    The median of the distribution putting mass ``w_i`` on ``V[i]``: the mean of the smallest
    value whose cumulative weight reaches half the total and the smallest value whose cumulative
    weight exceeds it. For integer weights this is ``np.median`` of the repeated values (the two
    middle order statistics of an even count are averaged), and it does not change when every
    weight is multiplied by the same positive number. Entries of weight 0 play no part.

    ``weights`` has shape ``(N,)`` (one weight per row) or the shape of ``V`` (one per entry,
    e.g. 0 where an entry is absent); a column of total weight 0 has median 0.
    """
    V = np.asarray(V, dtype=np.float64)
    column = V.ndim == 1
    V = V[:, None] if column else V
    weights = np.asarray(weights, dtype=np.float64)
    if column:
        weights = weights.reshape(V.shape)
    order = np.argsort(V, axis=0, kind="stable")
    if weights.ndim == 1:
        ranked_weights = weights[order]
    else:
        ranked_weights = np.take_along_axis(weights, order, axis=0)
    cum = np.cumsum(ranked_weights, axis=0)
    half = 0.5 * cum[-1]
    lower = np.argmax(cum >= half, axis=0)
    upper = np.argmax(cum > half, axis=0)
    ranked = np.take_along_axis(V, order, axis=0)
    cols = np.arange(V.shape[1])
    med = np.where(half > 0, 0.5 * (ranked[lower, cols] + ranked[upper, cols]), 0.0)
    return float(med[0]) if column else med


def has_absent(X) -> bool:
    """Whether dense or sparse ``X`` holds NaN (absent entries)."""
    return bool(np.isnan(X.data if sp.issparse(X) else X).any())


def fill_absent(X, values: np.ndarray):
    """``X`` with each NaN entry of column ``j`` set to ``values[j]``; ``X`` itself untouched.

    Sparse ``X`` stays sparse (stored NaN entries take the value; those set to 0 are removed).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        absent = np.isnan(X.data)
        X.data[absent] = values[X.indices[absent]]
        X.eliminate_zeros()
        return X
    return np.where(np.isnan(X), values, X)


def column_medians(X, sample_weight: np.ndarray | None = None, chunk: int = 256) -> np.ndarray:
    """Coordinate-wise median of the rows of dense or sparse ``X`` (implicit zeros counted).

    With ``sample_weight`` the medians are :func:`weighted_medians` (a row of weight k counts as
    k rows). NaN entries are absent: each column's median is that of its observed entries (0 for
    a column without any). For sparse ``X`` no column is densified unless its stored entries
    hold about half of the rows or more (``N / 2 - 1`` entries; with weights or NaN, half of
    the column's observed weight): with more than half of the weight on implicit zeros both
    middle order statistics are 0. Densified columns are processed ``chunk`` at a time.
    """
    if sample_weight is None and not has_absent(X):
        if not sp.issparse(X):
            return np.median(np.asarray(X), axis=0)
        Xc = sp.csc_matrix(X)
        N = Xc.shape[0]
        med = np.zeros(Xc.shape[1])
        counts = np.diff(Xc.indptr)
        for j in np.flatnonzero(counts >= N / 2.0 - 1.0):
            start, stop = Xc.indptr[j], Xc.indptr[j + 1]
            column = np.zeros(N)
            column[Xc.indices[start:stop]] = Xc.data[start:stop]
            med[j] = np.median(column)
        return med
    w = np.ones(X.shape[0]) if sample_weight is None else sample_weight
    if not sp.issparse(X):
        X = np.asarray(X)
        return weighted_medians(X, w[:, None] * ~np.isnan(X))
    Xc = sp.csc_matrix(X)
    absent = np.isnan(Xc.data)
    entry_weight = w[Xc.indices]
    per_column = sp.csc_matrix((np.where(absent, entry_weight, 0.0), Xc.indices, Xc.indptr),
                               shape=Xc.shape)
    observed = float(w.sum()) - np.asarray(per_column.sum(axis=0)).ravel()
    per_column.data = np.where(absent, 0.0, entry_weight)
    stored = np.asarray(per_column.sum(axis=0)).ravel()
    med = np.zeros(Xc.shape[1])
    dense = np.flatnonzero(stored >= 0.5 * observed * (1.0 - 1e-12))
    for lo in range(0, dense.size, chunk):
        cols = dense[lo:lo + chunk]
        block = Xc[:, cols].toarray()
        med[cols] = weighted_medians(block, w[:, None] * ~np.isnan(block))
    return med


def centred_row_norms(X, center: np.ndarray | None = None, chunk: int = 4096) -> np.ndarray:
    """``||x_i - center||_2`` for every row of dense or sparse ``X``, without copying ``X``."""
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        if center is not None:
            sq = sq - 2.0 * np.asarray(X @ center).ravel() + float(center @ center)
        return np.sqrt(np.maximum(sq, 0.0))
    X = np.asarray(X)
    out = np.empty(X.shape[0])
    for lo in range(0, X.shape[0], chunk):
        block = X[lo:lo + chunk] if center is None else X[lo:lo + chunk] - center
        out[lo:lo + chunk] = np.sqrt(np.einsum("ij,ij->i", block, block))
    return out


class _Design:
    """The linear maps of ``A = diag(y) [(X - 1 m^T) / S, c 1]`` without forming it.

    ``m`` is an optional centre, ``S > 0`` a scale and ``c`` the value of an optional constant
    column; neither ``X`` nor ``A`` is ever copied, so dense and sparse ``X`` share the code.
    With row ``weights`` the dual variable is ``s`` with ``t = w * s`` (module notes):
    :meth:`rmatvec` is then ``A^T (w * s)`` and :meth:`lipschitz` that of ``W^{1/2} A``.
    """

    def __init__(self, X, y: np.ndarray, intercept_scaling: float | None,
                 center: np.ndarray | None = None, scale: float = 1.0,
                 weights: np.ndarray | None = None):
        self.X, self.y = X, np.asarray(y, dtype=np.float64)
        self.c, self.m, self.s = intercept_scaling, center, float(scale)
        self.w = weights
        self.n_rows, self.p = X.shape
        self.dim = self.p + (self.c is not None)

    def rmatvec(self, t: np.ndarray) -> np.ndarray:
        """``A^T t`` (``A^T (w * t)`` with weights)."""
        return self._rmatvec(t if self.w is None else self.w * t)

    def _rmatvec(self, t: np.ndarray) -> np.ndarray:
        yt = self.y * t
        out = np.asarray(self.X.T @ yt).ravel()
        if self.m is not None:
            out = out - self.m * yt.sum()
        if self.s != 1.0:
            out = out / self.s
        return np.append(out, self.c * yt.sum()) if self.c is not None else out

    def matvec(self, u: np.ndarray) -> np.ndarray:
        """``A u``."""
        w = u[:self.p]
        z = np.asarray(self.X @ w).ravel()
        if self.m is not None:
            z = z - float(self.m @ w)
        if self.s != 1.0:
            z = z / self.s
        if self.c is not None:
            z = z + self.c * u[-1]
        return self.y * z

    def row_norms(self) -> np.ndarray:
        """``||a_i||_2``, the norms of the rows of ``A`` (constant column included)."""
        norms = centred_row_norms(self.X, self.m) / self.s
        return np.sqrt(norms ** 2 + self.c ** 2) if self.c is not None else norms

    def gram_operator(self):
        """``A^T A`` (or ``A A^T`` when it is smaller) as a function, and its size.

        Both are products of ``A`` and ``A^T``; ``A^T A`` does not depend on the labels
        (``y_i^2 = 1``). Never ``X^T diag(y) X``. With weights: ``A^T W A`` or
        ``W^{1/2} A A^T W^{1/2}``.
        """
        if self.dim <= self.n_rows:
            return (lambda u: self.rmatvec(self.matvec(u))), self.dim
        if self.w is None:
            return (lambda t: self.matvec(self.rmatvec(t))), self.n_rows
        root = np.sqrt(self.w)
        return (lambda t: root * self.matvec(self._rmatvec(root * t))), self.n_rows

    def lipschitz(self) -> float:
        """``lambda_max(A^T A) = ||A||_2^2``, the Lipschitz constant of the dual gradient.

        Lanczos iteration (ARPACK's ``eigsh``, a Krylov-accelerated power iteration) on the
        smaller of ``A^T A`` and ``A A^T``, applied through products with ``A`` and ``A^T``
        only, for dense and sparse ``X`` alike; for a size of at most 2 the Gram matrix is
        formed column by column. A Ritz value never exceeds ``lambda_max``: the solver's
        backtracking safeguard (:func:`solve_dual`) raises the constant if the estimate is low.
        """
        return largest_eigenvalue(*self.gram_operator())


def largest_eigenvalue(apply, k: int) -> float:
    """``lambda_max`` of the PSD operator ``apply`` of size ``k``, from below, times ``1 + 1e-6``.

    Lanczos iteration (ARPACK's ``eigsh``) from a fixed start; for ``k <= 2`` the matrix is
    formed column by column. Shared by the in-memory design (products with ``A``) and the
    blockwise fit (the Gram matrix ``A^T W A`` summed over row chunks).
    """
    if k <= 2:
        gram = np.column_stack([apply(e) for e in np.eye(k)])
        return float(np.linalg.eigvalsh(0.5 * (gram + gram.T))[-1])
    op = LinearOperator((k, k), matvec=apply, dtype=np.float64)
    v0 = 1.0 + 0.1 * np.random.default_rng(0).standard_normal(k)
    try:
        lam = eigsh(op, k=1, which="LA", v0=v0, tol=1e-6, maxiter=50 * k,
                    return_eigenvectors=False)
    except ArpackNoConvergence as exc:         # pragma: no cover - ARPACK rarely fails
        lam = exc.eigenvalues
        if lam.size == 0:
            lam = np.array([_power_iteration(apply, v0)])
    return float(np.max(lam)) * (1.0 + 1e-6)


def _power_iteration(apply, u: np.ndarray, n_iter: int = 200) -> float:
    """Largest eigenvalue of a PSD operator by plain power iteration (ARPACK's fallback)."""
    lam = 0.0
    for _ in range(n_iter):
        w = apply(u)
        lam = float(np.linalg.norm(w))
        if lam == 0.0:
            return 0.0
        u = w / lam
    return lam


def solve_dual(X, y, n: float, *, intercept_scaling: float | None = None,
               center: np.ndarray | None = None, scale: float = 1.0, tol: float = 1e-6,
               max_iter: int = 10_000, sample_weight: np.ndarray | None = None) -> RoLRSolution:
    """RoLR (Eq. 2) through its dual ``min_{t in C} ||A^T t||_2`` by accelerated projection.

    FISTA on ``f(t) = ||A^T t||^2 / 2`` (gradient ``A A^T t``) with the gradient-based adaptive
    restart of O'Donoghue & Candes (2015). The step is ``1 / L``: ``L`` starts at the Lanczos
    estimate of ``||A||_2^2`` (:meth:`_Design.lipschitz`) and is raised by backtracking whenever
    a step violates the descent condition ``||A^T (t+ - s)||^2 <= L ||t+ - s||^2`` (free to
    check: ``A^T t+`` is computed anyway), so a low estimate cannot make the iteration diverge.

    At every extrapolated point ``s`` the direction ``beta(s) = A^T s / ||A^T s||`` is a primal
    candidate whose trimmed sum comes free from the gradient (``A beta(s) = grad f(s) /
    ||A^T s||``). With ``D_best`` the smallest ``||A^T t||`` over the feasible iterates and
    ``P_best`` the largest trimmed sum over the candidates, ``P_best <= P* = D* <= D_best``.
    The solver stops when either certificate holds:

    * optimum: ``D_best - max(P_best, 0) <= tol * D_best`` (relative duality gap). Since
      ``P(beta) <= <A^T t*, beta> = D* cos(beta, beta*)`` for unit ``beta``, the gap also bounds
      the direction's error: ``1 - cos(beta_best, beta*) <= tol``;
    * collapse: ``D_best <= tol * B`` with ``B`` the sum of the ``n`` largest row norms of
      ``A``, a bound on ``|P(beta)|`` over the unit ball: the optimal trimmed sum is at most
      ``tol`` times its largest possible magnitude, so ``beta = 0`` is optimal to that
      accuracy and ``coef = 0``.

    Otherwise the solver stops at ``max_iter`` with ``converged=False`` and returns the best
    candidate direction (never ``beta = 0``: a collapse must be certified).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (N, p)
    y : ndarray of shape (N,), entries in {-1, +1}
    n : int, 1 <= n <= N
        Number of rows in the trimmed sum (the authentic rows).
    intercept_scaling : float or None, default=None
        Value of an appended constant column (``None``: no intercept).
    center : ndarray of shape (p,) or None, default=None
        Subtracted from every row of ``X`` (implicitly: ``X`` is not copied).
    scale : float > 0, default=1.0
        The centred rows are divided by ``scale`` (implicitly).
    tol : float, default=1e-6
    max_iter : int, default=10000
    sample_weight : ndarray of shape (N,) or None, default=None
        Positive row weights: row ``i`` counts as ``w_i`` rows and ``n`` is a total weight,
        ``0 < n <= sum(w)`` (module notes). The iterates are those of the repeated rows.

    Returns
    -------
    RoLRSolution
    """
    design = _Design(X, y, intercept_scaling, center, scale, sample_weight)
    return fista(_MemoryRows(design, n), tol, max_iter)


class _MemoryRows:
    """The row-level side of :func:`fista` in memory: the dual iterates as arrays.

    :func:`fista` runs the same iteration on a dask fit with the row-level vectors kept in
    the row chunks (``_BlockRows``); both implement this interface:

    ``dim``, ``bound()`` (the sum of the ``n`` largest row norms of ``A``), ``lipschitz()``,
    ``start()`` (``t = s = n / N`` on every row; returns ``A^T t``), ``gradient(u_s, lip)``
    (``grad = A u_s`` at the current ``s``; returns its trimmed sum), ``project(lip)``
    (``t+ = P_C(s - grad / lip)``; returns ``A^T t+``, ``||t+ - s||_w^2`` and the restart
    test ``<s - t+, t+ - t>_w``) and ``advance(momentum)`` (``t = t+``,
    ``s = t+ + momentum (t+ - t)``).
    """

    def __init__(self, design: _Design, n: float):
        self.design, self.n, self.w = design, n, design.w
        self.dim = design.dim
        self.tau = None

    def bound(self) -> float:
        return -trimmed_sum(-self.design.row_norms(), self.n, self.w)

    def lipschitz(self) -> float:
        return self.design.lipschitz()

    def start(self) -> np.ndarray:
        N = self.design.n_rows if self.w is None else float(self.w.sum())
        self.t = self.s = np.full(self.design.n_rows, self.n / N)
        return self.design.rmatvec(self.t)

    def gradient(self, u_s: np.ndarray, lip: float) -> float:
        self.grad = self.design.matvec(u_s)
        return trimmed_sum(self.grad, self.n, self.w)

    def project(self, lip: float):
        s, w = self.s, self.w
        self.t_new, self.tau = project_capped_simplex(s - self.grad / lip, self.n, self.tau,
                                                      weights=w)
        u_new = self.design.rmatvec(self.t_new)
        return (u_new, _dot(w, self.t_new - s, self.t_new - s),
                _dot(w, s - self.t_new, self.t_new - self.t))

    def advance(self, momentum: float) -> None:
        self.s = self.t_new + momentum * (self.t_new - self.t)
        self.t = self.t_new


def fista(rows, tol: float, max_iter: int) -> RoLRSolution:
    """The accelerated projected gradient of :func:`solve_dual` on a row-level backend.

    ``rows`` holds the dual iterates and computes everything that touches rows
    (:class:`_MemoryRows` in memory; the blockwise backend keeps them in the row chunks of a
    dask array); this function holds the iteration itself: the step size and its
    backtracking, the momentum and its restart, the best primal and dual values and the two
    stopping certificates, all on ``dim``-sized vectors and scalars.
    """
    bound = rows.bound()
    lip = max(rows.lipschitz(), np.finfo(float).tiny)
    u_t = rows.start()
    u_s, theta = u_t, 1.0
    d_best, p_best, beta_best = float(np.linalg.norm(u_t)), -np.inf, None
    state, k = "max_iter", 0
    while k < max_iter:
        k += 1
        total = rows.gradient(u_s, lip)
        d_s = float(np.linalg.norm(u_s))
        if d_s > 0:
            p_s = total / d_s
            if p_s > p_best:
                p_best, beta_best = p_s, u_s / d_s
        if d_best <= tol * bound:
            state = "collapsed"
            break
        if d_best - max(p_best, 0.0) <= tol * d_best:
            state = "optimal"
            break
        # projected step with step 1 / L; the descent lemma holds for f = ||A^T t||^2 / 2
        # exactly when ||A^T (t+ - s)||^2 <= L ||t+ - s||^2 (in the metric of the weights);
        # if not, L is raised to twice the observed curvature and the step is redone
        while True:
            u_new, step_sq, restart = rows.project(lip)
            curv_sq = float(np.dot(u_new - u_s, u_new - u_s))
            if curv_sq <= lip * step_sq * (1.0 + 1e-9) or step_sq == 0.0:
                break
            lip = 2.0 * curv_sq / step_sq
        d_best = min(d_best, float(np.linalg.norm(u_new)))
        if restart > 0:                                 # gradient restart
            theta_new, momentum = 1.0, 0.0
        else:
            theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
            momentum = (theta - 1.0) / theta_new
        rows.advance(momentum)
        u_s = u_new + momentum * (u_new - u_t)
        u_t, theta = u_new, theta_new
    if state == "collapsed" or beta_best is None:
        return RoLRSolution(np.zeros(rows.dim), 0.0, d_best, k, state == "collapsed",
                            state == "collapsed")
    return RoLRSolution(beta_best, p_best, d_best, k, state == "optimal", False)


def _dot(weights, a: np.ndarray, b: np.ndarray) -> float:
    """``sum_i w_i a_i b_i`` (the plain dot product without weights)."""
    return float(np.dot(a, b) if weights is None else np.dot(weights * a, b))


def solve_socp(X, y, n: float, *, intercept_scaling: float | None = None,
               center: np.ndarray | None = None, scale: float = 1.0, tol: float = 1e-8,
               max_iter: int = 200, nu_nonnegative: bool = False,
               sample_weight: np.ndarray | None = None) -> RoLRSolution:
    """RoLR's Eq. (3) as a second-order cone program (cvxpy + Clarabel), the reference.

    ``max -n nu - sum xi  s.t.  A beta + nu + xi >= 0, xi >= 0, ||beta||_2 <= 1``, with ``nu``
    free: the dual of the inner minimum over ``{0 <= t <= 1, sum t = n}``, so the optimum is
    Eq. (2). ``nu_nonnegative=True`` adds the printed ``nu >= 0`` (``sum t <= n``), whose value is
    ``max(0, ...)``-clipped and whose maximiser collapses to ``beta = 0`` (see the module notes).
    ``center`` and ``scale`` transform the rows to ``(x - center) / scale`` as in
    :func:`solve_dual` (here explicitly: the conic solver needs the matrix). With
    ``sample_weight`` the slack of row ``i`` costs ``w_i`` (the dual of the caps ``t_i <= w_i``).

    Raises
    ------
    ImportError
        If cvxpy or clarabel is not installed (``pip install robustclf[conic]``).
    """
    try:
        import cvxpy as cp
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("solver='socp' needs cvxpy and clarabel: "
                          "pip install 'robustclf[conic]'.") from exc
    y = np.asarray(y, dtype=np.float64)
    if center is not None:
        X = (X.toarray() if sp.issparse(X) else X) - center
    if scale != 1.0:
        X = X / scale
    Xa = sp.diags(y) @ sp.csr_matrix(X) if sp.issparse(X) else X * y[:, None]
    N, p = Xa.shape
    beta = cp.Variable(p)
    nu = cp.Variable(nonneg=nu_nonnegative)
    xi = cp.Variable(N, nonneg=True)
    margin = Xa @ beta
    if intercept_scaling is not None:
        b = cp.Variable()
        margin = margin + intercept_scaling * y * b
        ball = cp.norm(cp.hstack([beta, b]), 2) <= 1
    else:
        ball = cp.norm(beta, 2) <= 1
    slack = cp.sum(xi) if sample_weight is None else sample_weight @ xi
    problem = cp.Problem(cp.Maximize(-n * nu - slack), [margin + nu + xi >= 0, ball])
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol,
                  max_iter=max_iter)
    if beta.value is None:
        raise RuntimeError(f"the conic solver failed: status {problem.status}.")
    coef = np.asarray(beta.value, dtype=np.float64)
    if intercept_scaling is not None:
        coef = np.append(coef, float(b.value))
    value = float(problem.value)
    norm = float(np.linalg.norm(coef))
    collapsed = norm <= 1e-6
    if collapsed:
        coef = np.zeros_like(coef)
    objective = trimmed_sum(_Design(X, y, intercept_scaling).matvec(coef), n, sample_weight)
    return RoLRSolution(coef, objective, value, int(problem.solver_stats.num_iters or 0),
                        problem.status == cp.OPTIMAL, collapsed)


SOLVERS = {"dual": solve_dual, "socp": solve_socp}
"""The solver behind each value of ``RobustLogisticRegression(solver=...)``."""


# ---------------------------------------------------------------------------------------------
# Blockwise: the same fit on the row chunks of a dask collection
# ---------------------------------------------------------------------------------------------
#
# Every row-level quantity of RoLR (the dual iterates t and s, the gradient A u, the row norms,
# the projections and the inlier mask) lives in a *state* per row chunk, kept by dask where the
# chunk is processed (persisted between passes). The client holds only d-sized vectors and
# scalars. What is not a sum over rows -- column medians, the median row norm, the sum of the n
# largest row norms, the trimmed sum of Eq. (2), the shift tau of the capped-simplex projection
# and the trimmed set -- is an order statistic or the root of a monotone piecewise-linear sum
# over rows; each is found *exactly* by :class:`_StepSearch` / :class:`_ClipSearch`: every pass
# evaluates the sum exactly at a few candidate points (summed over chunks), and the chunks send
# their values inside the current bracket when they are few (else a sketch of them, whose pooled
# points are the next candidates). From a good starting bracket (the previous FISTA iterate's
# value) this takes one pass, fused with the pass that computes the values.

#: Raw values sent to the client per selection and pass, over all chunks.
_RAW_BUDGET = 1 << 16
#: Points of a chunk's sketch of its values inside a bracket.
_SKETCH = 32
#: Candidate points evaluated per selection and pass.
_CANDIDATES = 256
#: Widest data whose Gram matrix ``A^T W A`` the blockwise fit assembles (one pass) to estimate
#: the step size; wider data use Lanczos with one pass per product.
MAX_GRAM_FEATURES = 1024
#: Candidate offsets (in units of the last change) around a hinted value.
_HINT_GRID = np.array([-64.0, -16.0, -4.0, -1.0, -0.25, 0.0, 0.25, 1.0, 4.0, 16.0, 64.0])


def _add_summaries(*parts):
    """Entry-by-entry sum of arrays, or of (nested) tuples of arrays; ``None`` stays ``None``."""
    first = parts[0]
    if first is None:
        return None
    if isinstance(first, tuple):
        return tuple(_add_summaries(*items) for items in zip(*parts, strict=True))
    total = np.array(first, dtype=np.float64, copy=True)
    for p in parts[1:]:
        total = total + p
    return total


class _Box:
    """Hides a value from dask's graph parsing (a literal task argument, never traversed)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _call_chunk(func, Xb, yb, wb, state, args):
    """A chunk task: ``func(X_b, y_b, w_b, state_b, *args)``; the state arrives boxed (local
    schedulers) or as the previous pass's output (dask.distributed)."""
    if isinstance(state, _Box):
        state = state.value
    elif state is not None:
        state = state[0]
    return func(Xb, yb, wb, state, *args.value)


def _call_state(func, state, args):
    """A task on a chunk's state alone (boxed, or the output of a distributed pass)."""
    state = state.value if isinstance(state, _Box) else state[0]
    return func(state, *args.value)


def _sum_outputs(*outputs):
    """First level of the tree sum: the summed parts of chunk outputs."""
    return _add_summaries(*[out[1] for out in outputs])


def _finish_pass(total, *outputs):
    """The pass's result: the sum and the collected part of every chunk."""
    return total, [out[2] for out in outputs]


class RowChunks:
    """The row chunks of a dask fit, each with a state kept where the chunk is processed.

    A *pass* calls ``func(X_b, y_b, w_b, state_b, *args)`` on every chunk ``b``; it returns the
    chunk's new state (a dict of row-level arrays, kept when ``update=True``), a part to be
    summed over chunks (arrays or tuples of arrays, added by a tree reduction) and a part
    collected per chunk (small). Only the sums and the collected parts reach the client.
    ``data=False`` passes read the states only (no chunk of ``X`` is touched), ``data="labels"``
    the labels and weights only.

    On a ``dask.distributed`` cluster the states stay on the workers (persisted futures); the
    local schedulers (threads, processes, synchronous) keep them in this process. Each pass
    is one graph of ``n_chunks`` tasks plus the tree sum, computed by the active scheduler.

    Attributes
    ----------
    n_passes, n_data_passes : int
        Passes run so far, and how many of them read ``X``.
    """

    def __init__(self, data):
        arrays = {"X": data.X, "y": data.y, "w": data.sample_weight}
        self.keys, self.graphs, self.delayed = {}, {}, {}
        for name, array in arrays.items():
            if array is None:
                self.keys[name] = [None] * data.X.numblocks[0]
                self.graphs[name], self.delayed[name] = {}, self.keys[name]
                continue
            self.delayed[name] = list(array.to_delayed().ravel())
            self.keys[name] = [d.key for d in self.delayed[name]]
            self.graphs[name] = dict(self.delayed[name][0].__dask_graph__())
        self.sizes = tuple(int(c) for c in data.X.chunks[0])
        self.states = [None] * len(self.sizes)
        self.n_passes = self.n_data_passes = 0

    @property
    def n_chunks(self) -> int:
        return len(self.sizes)

    def run(self, func, *args, data: bool | str = True, update: bool = False):
        """One pass: returns the summed part and the list of collected parts."""
        from dask.base import get_scheduler

        if self._distributed():
            result = self._run_distributed(func, args, data, update)
        else:
            import dask.threaded

            result = self._run_local(get_scheduler() or dask.threaded.get, func, args, data,
                                     update)
        self.n_passes += 1
        self.n_data_passes += data is True
        return result

    def map_states(self, func, per_chunk):
        """``func(state_b, *per_chunk[b], size_b)`` for every chunk, as persisted delayed
        values (kept on the workers of a cluster): per-chunk results built from the states."""
        import dask
        from dask import delayed

        task = delayed(_call_state, pure=False)
        return dask.persist(*[
            task(func, state if self._distributed() else _Box(state), _Box((*args, size)))
            for state, args, size in zip(self.states, per_chunk, self.sizes, strict=True)],
            optimize_graph=False)

    @staticmethod
    def _distributed() -> bool:
        from dask.base import get_scheduler

        client = getattr(get_scheduler(), "__self__", None)
        return client is not None and type(client).__module__.startswith("distributed")

    def _inputs(self, data):
        names = {True: ("X", "y", "w"), "labels": ("y", "w"), False: ()}[data]
        return [[self.keys[n][b] if n in names else None for n in ("X", "y", "w")]
                for b in range(self.n_chunks)], names

    def _run_local(self, get, func, args, data, update):
        from uuid import uuid4

        token = uuid4().hex
        inputs, names = self._inputs(data)
        dsk = {}
        for name in names:
            dsk.update(self.graphs[name])
        shared = _Box(args)
        outs = []
        for b, (x, y, w) in enumerate(inputs):
            key = (f"rolr-chunk-{token}", b)
            dsk[key] = (_call_chunk, func, x, y, w, _Box(self.states[b]), shared)
            outs.append(key)
        level, parts, first = 0, outs, True
        while len(parts) > 1 or first:
            keys = []
            for i in range(0, len(parts), 8):
                key = (f"rolr-sum-{token}-{level}", i)
                dsk[key] = (_sum_outputs if first else _add_summaries, *parts[i:i + 8])
                keys.append(key)
            parts, first, level = keys, False, level + 1
        final = f"rolr-pass-{token}"
        dsk[final] = (_finish_pass, parts[0], *outs)
        results = get(dsk, [*outs, final] if update else [final])
        if update:
            self.states = [out[0] for out in results[:-1]]
        return results[-1]

    def _run_distributed(self, func, args, data, update):
        import dask
        from dask import delayed

        names = {True: ("X", "y", "w"), "labels": ("y", "w"), False: ()}[data]
        shared = delayed(_Box(args), pure=False)
        task = delayed(_call_chunk, pure=False)
        outs = []
        for b, state in enumerate(self.states):
            x, y, w = (self.delayed[n][b] if n in names else None for n in ("X", "y", "w"))
            outs.append(task(func, x, y, w, state, shared))
        parts = outs
        add, first = delayed(_sum_outputs, pure=False), True
        while len(parts) > 1 or first:
            parts = [add(*parts[i:i + 8]) for i in range(0, len(parts), 8)]
            add, first = delayed(_add_summaries, pure=False), False
        final = delayed(_finish_pass, pure=False)(parts[0], *outs)
        if not update:
            return dask.compute(final, optimize_graph=False)[0]
        *states, final = dask.persist(*outs, final, optimize_graph=False)
        self.states = states
        return final.compute(optimize_graph=False)


# -- exact order statistics and projection shifts over chunks ---------------------------------

@dataclass(frozen=True)
class _Query:
    """What a chunk evaluates for one selection pass.

    The sum at the candidate points ``cands`` (exact); and the chunk's values inside the
    window ``(lo, hi)`` when there are at most ``cap`` of them -- otherwise the ``cap`` values
    nearest ``center`` (when given; they cover a narrower window, which the chunk reports) and
    a sketch of the values in ``(lo, hi)``.
    """

    lo: float
    hi: float
    cands: np.ndarray
    cap: int
    center: float | None = None


def _sorted_values(z: np.ndarray, w: np.ndarray | None):
    """``z`` sorted with the prefix sums of its weights and of ``w z`` (weights 1 if None)."""
    if w is None:
        zs, ws = np.sort(z), None
    else:
        order = np.argsort(z, kind="stable")
        zs, ws = z[order], w[order]
    cw = (np.arange(zs.size + 1, dtype=np.float64) if ws is None
          else np.concatenate([[0.0], np.cumsum(ws)]))
    cs = np.concatenate([[0.0], np.cumsum(zs if ws is None else ws * zs)])
    return zs, ws, cw, cs


def _choose_window(points: np.ndarray, query: _Query):
    """The window a chunk reports, from its sorted ``points`` (values or breakpoints).

    Returns ``(lo, hi, sketch)``: all points in the returned open window are sent; ``lo`` is
    None when the points in ``(query.lo, query.hi)`` are too many and there is no ``center``
    (then only the sketch is sent).
    """
    i0 = np.searchsorted(points, query.lo, side="right")
    i1 = max(i0, np.searchsorted(points, query.hi, side="left"))
    if i1 - i0 <= query.cap:
        return query.lo, query.hi, None
    sketch = points[i0 + np.linspace(0, i1 - i0 - 1, _SKETCH).astype(int)]
    if query.center is None:
        return None, None, sketch
    p = np.searchsorted(points, query.center)
    j0 = int(np.clip(p - query.cap // 2, i0, i1 - query.cap))
    j1 = j0 + query.cap
    lo = points[j0 - 1] if j0 > i0 else query.lo
    hi = points[j1] if j1 < i1 else query.hi
    return float(lo), float(hi), sketch


def _step_summary(sorted_values, query: _Query):
    """One chunk's part of a :class:`_StepSearch` pass.

    Summed: ``G(<c)``, ``G(<=c)`` and ``S(<c) = sum_{z < c} w z`` at each candidate ``c``, and
    the totals ``(sum w, sum w z)``. Collected: ``(values, weights, sketch, lo, hi)``, the
    values (and weights) in the window ``(lo, hi)`` (:func:`_choose_window`).
    """
    zs, ws, cw, cs = sorted_values
    lt = np.searchsorted(zs, query.cands, side="left")
    le = np.searchsorted(zs, query.cands, side="right")
    summed = (np.stack([cw[lt], cw[le], cs[lt]]), np.array([cw[-1], cs[-1]]))
    lo, hi, sketch = _choose_window(zs, query)
    if lo is None:
        return summed, (None, None, sketch, None, None)
    i0 = np.searchsorted(zs, lo, side="right")
    i1 = max(i0, np.searchsorted(zs, hi, side="left"))
    return summed, (zs[i0:i1], None if ws is None else ws[i0:i1], sketch, lo, hi)


def _clip_summary(v: np.ndarray, w: np.ndarray | None, query: _Query):
    """One chunk's part of a :class:`_ClipSearch` pass.

    Summed: ``h(c) = sum_i w_i clip(v_i - c, 0, 1)`` at each candidate (:func:`capped_sums`)
    and, for the rows without a breakpoint (``v_i`` or ``v_i - 1``) inside the chunk's window
    ``(lo, hi)``, the constant ``L0`` and slope ``L1`` of their contribution ``L0 - L1 tau``
    on ``[lo, hi]``, and the total weight. Collected: ``(v, w, sketch, lo, hi)`` of the rows
    with a breakpoint inside the window (at most ``cap`` of them; :func:`_choose_window` on
    the breakpoints).
    """
    ww = np.ones(v.size) if w is None else w
    low = v - 1.0
    breaks = np.concatenate([v, low])
    breaks = np.sort(breaks[(breaks > query.lo) & (breaks < query.hi)])
    lo, hi, sketch = _choose_window(breaks, query)
    h = capped_sums(v, query.cands, w)
    if lo is None:
        return (h, np.array([0.0, 0.0, ww.sum()])), (None, None, sketch, None, None)
    active = ((v > lo) & (v < hi)) | ((low > lo) & (low < hi))
    one = ~active & (low >= hi)
    lin = ~active & (v >= hi) & (low <= lo)
    linear = np.array([ww[one].sum() + ww[lin] @ v[lin], ww[lin].sum(), ww.sum()])
    return (h, linear), (v[active], None if w is None else w[active], sketch, lo, hi)


class _Search:
    """Client side of an exact selection over chunks: a bracket and the next query."""

    def __init__(self, n_chunks: int, hint: float | None = None, width: float | None = None,
                 cap: int | None = None):
        self.cap = max(64, _RAW_BUDGET // max(n_chunks, 1)) if cap is None else cap
        self.done, self.passes = False, 0
        self.a, self.b = -np.inf, np.inf            # the answer lies in (a, b)
        if hint is not None and np.isfinite(hint):
            cands = hint + width * _HINT_GRID if width else np.array([hint])
            self.query = _Query(-np.inf, np.inf, cands, self.cap, float(hint))
        else:
            self.query = _Query(-np.inf, np.inf, np.empty(0), self.cap)

    def _covered(self, collected) -> bool:
        """Whether every chunk sent all its values in a window that holds the bracket."""
        return all(c[3] is not None and c[3] <= self.a and self.b <= c[4] for c in collected)

    @staticmethod
    def _raw(collected):
        """The values every chunk sent, and their weights (ones when unweighted)."""
        values = np.concatenate([c[0] for c in collected])
        weights = np.concatenate([np.ones(c[0].size) if c[1] is None else c[1]
                                  for c in collected])
        return values, weights

    def _next_query(self, collected) -> None:
        """The bracket as the next window; candidates from the pooled values and sketches."""
        pool = [p for c in collected for p in (c[0], c[2]) if p is not None]
        pool = np.sort(np.concatenate([np.empty(0)] + pool))
        pool = pool[(pool > self.a) & (pool < self.b)]
        if pool.size > _CANDIDATES:
            pool = pool[np.linspace(0, pool.size - 1, _CANDIDATES).astype(int)]
        cands = np.unique(pool)
        if cands.size == 0 and np.isfinite(self.a) and np.isfinite(self.b):
            cands = np.linspace(self.a, self.b, 66)[1:-1]
        cap = self.cap if self.passes < 8 else np.iinfo(np.int64).max   # never stalls
        self.query = _Query(self.a, self.b, cands, cap)


class _StepSearch(_Search):
    """The weighted order statistic ``q = min{c : G(c) >= n}`` (``> n`` if ``strict``) of values
    spread over row chunks, ``G(c)`` the weight of the values ``<= c``, exactly, with
    ``G(<q)`` and ``S(<q)`` (the weighted sum of the values below ``q``).

    ``n`` may be given as a ``fraction`` of the total weight (known after the first pass).
    ``trimmed_sum`` is then ``sum of the smallest values up to the weight n`` (Eq. 2).
    """

    def __init__(self, n_chunks, n=None, *, fraction=None, strict=False, hint=None,
                 width=None, cap=None):
        super().__init__(n_chunks, hint, width, cap)
        self.n, self.fraction, self.strict = n, fraction, strict
        self.ga = self.sa = 0.0                    # G(a) and sum of w z over z <= a

    def update(self, summed, collected) -> bool:
        (glt, gle, slt), (total_w, total_s) = summed
        self.passes += 1
        self.total_w, self.total_s = float(total_w), float(total_s)
        if self.n is None:
            self.n = self.fraction * self.total_w
        n, c = self.n, self.query.cands
        if self.total_w <= 0 or n >= self.total_w:        # every value is inside
            return self._finish(np.inf, self.total_w, self.total_s)
        if self.strict:
            hit, below, above = (glt <= n) & (n < gle), gle <= n, glt > n
        else:
            hit, below, above = (glt < n) & (n <= gle), gle < n, glt >= n
        if hit.any():
            j = int(np.argmax(hit))
            return self._finish(float(c[j]), float(glt[j]), float(slt[j]))
        if below.any():
            j = int(np.flatnonzero(below)[-1])
            if c[j] > self.a:
                self.a, self.ga = float(c[j]), float(gle[j])
                self.sa = float(slt[j] + c[j] * (gle[j] - glt[j]))
        if above.any():
            self.b = min(self.b, float(c[int(np.argmax(above))]))
        if self._covered(collected):
            return self._solve(*self._raw(collected))
        self._next_query(collected)
        return False

    def _solve(self, values, weights) -> bool:
        inside = (values > self.a) & (values < self.b)
        values, weights = values[inside], weights[inside]
        order = np.argsort(values, kind="stable")
        values, weights = values[order], weights[order]
        cum = self.ga + np.cumsum(weights)
        reached = cum > self.n if self.strict else cum >= self.n
        j = int(np.argmax(reached)) if reached.any() else values.size - 1
        q = float(values[j])
        below = values < q
        return self._finish(q, self.ga + float(weights[below].sum()),
                            self.sa + float(weights[below] @ values[below]))

    def _finish(self, value, w_below, s_below) -> bool:
        self.value, self.w_below, self.s_below = value, w_below, s_below
        self.done = True
        return True

    @property
    def trimmed_sum(self) -> float:
        """Sum of the smallest values up to the weight ``n`` (all of them if ``n >= sum w``)."""
        if not np.isfinite(self.value):
            return self.total_s
        return self.s_below + (self.n - self.w_below) * self.value


class _ClipSearch(_Search):
    """The shift ``tau`` with ``sum_i w_i clip(v_i - tau, 0, 1) = n`` (the projection onto the
    capped simplex) of values spread over row chunks, exactly: on the linear piece of ``h``
    that holds the root, from the rows with a breakpoint inside the final bracket."""

    def __init__(self, n_chunks, n, total, hint=None, width=None):
        super().__init__(n_chunks, hint, width)
        self.n = n
        if n >= total:
            self._finish(-np.inf)
        elif n <= 0:
            self._finish(np.inf)

    def update(self, summed, collected) -> bool:
        h, (l0, l1, _) = summed
        self.passes += 1
        c, n = self.query.cands, self.n
        if (h == n).any():
            return self._finish(float(c[int(np.argmax(h == n))]))
        above, below = h > n, h < n
        if above.any():
            self.a = max(self.a, float(c[np.flatnonzero(above)[-1]]))
        if below.any():
            self.b = min(self.b, float(c[int(np.argmax(below))]))
        if self._covered(collected):
            v, w = self._raw(collected)
            points = np.concatenate([v, v - 1.0, [self.a, self.b]])
            points = np.unique(points[(points >= self.a) & (points <= self.b)
                                      & np.isfinite(points)])
            values = l0 - l1 * points + capped_sums(v, points, w)
            return self._finish(_piecewise_root(points, values, n))
        self._next_query(collected)
        return False

    def _finish(self, tau) -> bool:
        self.value, self.done = float(tau), True
        return True


def _run_search(chunks: RowChunks, search, func, *args):
    """Passes over the chunk states (``func(..., state, *args, query)``) until ``search`` is
    done; returns it."""
    while not search.done:
        summed, collected = chunks.run(func, *args, search.query, data=False)
        search.update(summed, collected)
    return search


# -- reading a chunk --------------------------------------------------------------------------

@dataclass(frozen=True)
class BlockSpec:
    """How every chunk task reads its chunk of a blockwise RoLR fit.

    Attributes
    ----------
    reader : robustclf.linear._base.ChunkReader
        The in-memory validation, chunk by chunk (absent entries kept as NaN).
    weighted : bool
        Row weights are used (False: there are none, or all are one).
    fit_intercept : bool
        Rows are centred (absent entries put at the centre); without, absent entries are 0.
    center : ndarray of shape (n_features,) or None
        The centre ``m`` of the rows (and the value of their absent entries).
    scale : float
        ``S``: the design's rows are ``(x - m) / S``.
    """

    reader: object
    weighted: bool
    fit_intercept: bool
    center: np.ndarray | None = None
    scale: float = 1.0


def _read_rows(Xb, yb, wb, spec: BlockSpec):
    """The chunk's rows of positive weight: ``X`` (NaN kept with an intercept), the ±1 targets,
    the weights (None when unweighted) and the mask of those rows (None: all)."""
    X, Y, w = spec.reader.read(Xb, yb, wb)
    present = None
    if not spec.weighted:
        w = None
    elif not w.all():
        present = w > 0
        X, Y, w = X[present], Y[present], w[present]
    if not spec.fit_intercept:
        from ._base import absent_as_zero

        X = absent_as_zero(X)
    return X, Y, w, present


def _kept_rows(Xb, yb, wb, state, spec: BlockSpec, fill: bool = True):
    """The chunk's rows kept by the preprocessing threshold, absent entries at ``spec.center``
    (``fill``), their ±1 targets and weights."""
    X, Y, w, _ = _read_rows(Xb, yb, wb, spec)
    keep = state.get("keep") if state else None
    if keep is not None:
        X, Y = X[keep], Y[keep]
        w = None if w is None else w[keep]
    absent = state.get("absent", True) if state else True
    if fill and spec.center is not None and absent and has_absent(X):
        X = fill_absent(X, spec.center)
    return X, Y, w


def _chunk_weights(Xb, yb, wb, state, reader):
    """Row-weight statistics of a chunk: rows, total weight, rows of weight 0 and of a weight
    other than one, non-integer weights, and the total weight of each class."""
    y = np.asarray(yb).ravel()
    _, Y, w = reader.read(np.empty((y.size, 0)), yb, wb)
    w = np.ones(y.size) if w is None else w
    classes = Y > 0 if Y.shape[1] > 1 else np.column_stack([Y[:, 0] < 0, Y[:, 0] > 0])
    counts = np.array([y.size, w.sum(), np.count_nonzero(w == 0), np.count_nonzero(w != 1.0),
                       np.count_nonzero(w != np.round(w))], dtype=np.float64)
    return None, (counts, w @ classes), None


def weight_statistics(chunks: RowChunks, reader) -> dict:
    """One pass over the labels and weights: the numbers ``fit`` needs to resolve ``n1``.

    Raises the in-memory errors for weights that are zero everywhere or on all classes but one.
    """
    summed, _ = chunks.run(_chunk_weights, reader, data="labels")
    counts, per_class = summed
    n_rows, total, zero, not_one, non_integer = counts
    if total <= 0:
        raise ValueError("sample_weight (times class_weight) is zero for every row; at "
                         "least one row must have a positive weight.")
    weighted_classes = np.flatnonzero(per_class > 0)
    if weighted_classes.size < 2:
        raise ValueError(
            "RobustLogisticRegression needs rows of at least 2 classes with a positive "
            "sample_weight (times class_weight), but only the rows of class "
            f"{reader.classes[weighted_classes[0]]!r} have one.")
    weighted = bool(not_one)
    return {"weighted": weighted, "n_rows": int(n_rows - zero) if weighted else int(n_rows),
            "total": float(total), "integral": not non_integer}


# -- preprocessing: centre, row norms, threshold, scale ---------------------------------------

def _column_values(X, w, j: int, cache: dict):
    """The observed values of column ``j`` of a chunk and their weights (None: all one).

    Absent (NaN) entries are left out; a sparse column's implicit zeros are one value 0 with
    their total weight.
    """
    if not sp.issparse(X):
        col = X[:, j]
        ok = ~np.isnan(col)
        if ok.all():
            return col, w
        return col[ok], None if w is None else w[ok]
    if "csc" not in cache:
        cache["csc"] = sp.csc_matrix(X)
        cache["total"] = X.shape[0] if w is None else float(w.sum())
    Xc = cache["csc"]
    start, stop = Xc.indptr[j], Xc.indptr[j + 1]
    data, rows = Xc.data[start:stop], Xc.indices[start:stop]
    row_w = np.ones(rows.size) if w is None else w[rows]
    implicit = cache["total"] - row_w.sum()
    ok = ~np.isnan(data)
    return (np.concatenate([data[ok], [0.0]]),
            np.concatenate([row_w[ok], [max(implicit, 0.0)]]))


def _chunk_columns(Xb, yb, wb, state, spec, use_keep, columns, queries):
    """Per column: one chunk's part of the :class:`_StepSearch` passes of the medians."""
    X, _, w = _kept_rows(Xb, yb, wb, state if use_keep else None, spec, fill=False)
    cache, summed, collected = {}, [], []
    for j, query in zip(columns, queries, strict=True):
        if j not in cache:
            cache[j] = _sorted_values(*_column_values(X, w, j, cache))
        part, window = _step_summary(cache[j], query)
        summed.append(part)
        collected.append(window)
    return state, tuple(summed), collected


def column_medians_blockwise(chunks: RowChunks, spec: BlockSpec, n_features: int,
                             use_keep: bool) -> np.ndarray:
    """:func:`column_medians` of the chunks' rows (the kept rows if ``use_keep``), exactly.

    Each column's lower and upper middle order statistics (weighted, absent entries left out,
    implicit zeros of sparse chunks counted) are :class:`_StepSearch` selections run side by
    side: one pass sends sketches, the next narrows every column to a few hundred values per
    chunk, the third collects them -- three passes over ``X`` for typical data.
    """
    n_problems = 2 * n_features
    cap = max(16, (16 * _RAW_BUDGET) // (chunks.n_chunks * n_problems))
    searches = [_StepSearch(chunks.n_chunks, fraction=0.5, strict=strict, cap=cap)
                for _ in range(n_features) for strict in (False, True)]
    active = list(range(n_problems))
    while active:
        columns = np.array([p // 2 for p in active])
        summed, collected = chunks.run(_chunk_columns, spec, use_keep, columns,
                                       [searches[p].query for p in active])
        for i, p in enumerate(active):
            searches[p].update(summed[i], [c[i] for c in collected])
        active = [p for p in active if not searches[p].done]
    med = np.zeros(n_features)
    for j in range(n_features):
        lower, upper = searches[2 * j], searches[2 * j + 1]
        if lower.total_w > 0:
            med[j] = 0.5 * (lower.value + upper.value)
    return med


def _chunk_norms(Xb, yb, wb, state, spec, key):
    """The centred norms ``||x_i - m||`` of the chunk's rows (kept rows once the threshold is
    known); the first call sets up the chunk's state (rows of positive weight, targets)."""
    if state is None:
        X, Y, w, present = _read_rows(Xb, yb, wb, spec)
        absent = has_absent(X)
        if spec.center is not None and absent:
            X = fill_absent(X, spec.center)
        state = {"present": present, "keep": None, "w": w, "Y": (Y > 0),
                 "absent": absent}
    else:
        X, _, _ = _kept_rows(Xb, yb, wb, state, spec)
        state = dict(state)
    state[key] = centred_row_norms(X, spec.center)
    return state, None, None


def row_norms_blockwise(chunks: RowChunks, spec: BlockSpec, key: str) -> None:
    """One pass over ``X``: the centred row norms into every chunk's state (as ``key``)."""
    chunks.run(_chunk_norms, spec, key, update=True)


def _state_values(state, source):
    """Row values of a chunk's state that a selection works on, and their weights."""
    kind = source[0]
    w = state["w"]
    if kind == "norm":                       # (norm, key, divisor, negate)
        values = state[source[1]] / source[2]
        return (-values if source[3] else values), w
    if kind == "grad":
        return state["grad"], w
    if kind == "v":                          # (v, lip): the point projected onto C
        return state["s"] - state["grad"] / source[1], w
    if kind == "margin":                     # (margin, k, y): y_k <beta_k, z> per kept row
        k = source[1]
        return np.where(state["Y"][:, k], 1.0, -1.0) * state["proj"][k], w
    raise ValueError(kind)                   # pragma: no cover - internal


def _chunk_select(Xb, yb, wb, state, source, clip, query):
    z, w = _state_values(state, source)
    summed, collected = (_clip_summary(z, w, query) if clip
                         else _step_summary(_sorted_values(z, w), query))
    return state, summed, collected


def select_blockwise(chunks: RowChunks, source, n=None, *, fraction=None, strict=False,
                     hint=None, width=None) -> _StepSearch:
    """A :class:`_StepSearch` over state values (passes over the states only)."""
    search = _StepSearch(chunks.n_chunks, n, fraction=fraction, strict=strict, hint=hint,
                         width=width)
    return _run_search(chunks, search, _chunk_select, source, False)


def robust_scale_blockwise(chunks: RowChunks, key: str) -> float:
    """``_robust_scale`` of the row norms ``key`` of the states: their (weighted) median, else
    their mean, else 1 (two selections, a few passes over the states)."""
    source = ("norm", key, 1.0, False)
    lower = select_blockwise(chunks, source, fraction=0.5)
    upper = select_blockwise(chunks, source, fraction=0.5, strict=True)
    candidates = []
    if lower.total_w > 0:
        candidates = [0.5 * (lower.value + upper.value), lower.total_s / lower.total_w]
    for value in candidates:
        if value > 0 and np.isfinite(value):
            return float(value)
    return 1.0


def _chunk_keep(Xb, yb, wb, state, threshold):
    """Rows kept by the threshold (``norm1 < T``): the state's rows become the kept rows."""
    norms = state["norm1"]
    w = state["w"]
    keep = norms < threshold
    removed_w = float(np.count_nonzero(~keep)) if w is None else float(w[~keep].sum())
    kept_w = float(np.count_nonzero(keep)) if w is None else float(w[keep].sum())
    summed = np.array([np.count_nonzero(keep), np.count_nonzero(~keep), kept_w, removed_w],
                      dtype=np.float64)
    state = dict(state)
    if not keep.all():
        state.update(keep=keep, Y=state["Y"][keep], w=None if w is None else w[keep],
                     norm1=norms[keep])
    return state, summed, None


def apply_threshold_blockwise(chunks: RowChunks, threshold: float) -> np.ndarray:
    """One pass over the states: keep the rows with ``norm1 < T``; returns the kept and
    removed numbers of rows and weights."""
    summed, _ = chunks.run(_chunk_keep, threshold, data=False, update=True)
    return summed


def _chunk_totals(Xb, yb, wb, state):
    """Kept rows, their total weight and each column's positive weight."""
    w = state["w"]
    Y = state["Y"]
    if w is None:
        return state, (np.array([Y.shape[0], Y.shape[0]], dtype=np.float64),
                       Y.sum(axis=0).astype(np.float64)), None
    return state, (np.array([Y.shape[0], w.sum()]), w @ Y), None


def kept_totals(chunks: RowChunks):
    """``(rows, weight)`` of the kept rows and the positive weight of every ±1 column."""
    (counts, positive), _ = chunks.run(_chunk_totals, data=False)
    return int(counts[0]), float(counts[1]), positive


# -- the Lipschitz constant -------------------------------------------------------------------

def _chunk_gram(Xb, yb, wb, state, spec):
    """The chunk's ``Z^T W Z`` for ``Z = (X - m) / S`` (kept rows)."""
    X, _, w = _kept_rows(Xb, yb, wb, state, spec)
    m = spec.center
    if sp.issparse(X):
        Xw = X if w is None else X.multiply(w[:, None]).tocsr()
        gram = np.asarray((X.T @ Xw).toarray())
        if m is not None:
            colsum = np.asarray(Xw.sum(axis=0)).ravel()
            total = X.shape[0] if w is None else float(w.sum())
            gram = gram - np.outer(m, colsum) - np.outer(colsum, m) + total * np.outer(m, m)
        return state, gram / (spec.scale * spec.scale), None
    Z = X if m is None else X - m
    Z = Z / spec.scale
    return state, Z.T @ (Z if w is None else Z * w[:, None]), None


def _chunk_gram_apply(Xb, yb, wb, state, spec, u):
    X, _, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, np.ones(X.shape[0]), None, spec.center, spec.scale, w)
    return state, design.rmatvec(design.matvec(u)), None


def lipschitz_blockwise(chunks: RowChunks, spec: BlockSpec, n_features: int) -> float:
    """``||W^{1/2} A||_2^2`` by :func:`largest_eigenvalue`: on the Gram matrix ``A^T W A``
    summed over chunks (one pass) up to ``MAX_GRAM_FEATURES`` features, else on products
    with it (one pass each)."""
    if n_features <= MAX_GRAM_FEATURES:
        gram, _ = chunks.run(_chunk_gram, spec)
        gram = 0.5 * (gram + gram.T)
        return largest_eigenvalue(lambda u: gram @ u, n_features)
    return largest_eigenvalue(lambda u: chunks.run(_chunk_gram_apply, spec, u)[0], n_features)


# -- the dual iteration on row chunks ---------------------------------------------------------

def _chunk_start(Xb, yb, wb, state, spec, k, t0):
    """``t = s = t0`` on the kept rows; the chunk's part of ``A^T t``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    t = np.full(X.shape[0], t0)
    state = dict(state, t=t, s=t, t_new=None, grad=None)
    return state, design.rmatvec(t), None


def _chunk_gradient(Xb, yb, wb, state, spec, k, u_s, momentum, lip, q_query, tau_query):
    """Move to the extrapolated point ``s`` (after an accepted step), ``grad = A u_s``, and the
    chunk's parts of the trimmed sum of ``grad`` and of the projection shift of
    ``s - grad / lip``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    if state["t_new"] is not None:
        t_new = state["t_new"]
        s, t = t_new + momentum * (t_new - state["t"]), t_new
    else:
        s, t = state["s"], state["t"]
    grad = design.matvec(u_s)
    state = dict(state, s=s, t=t, t_new=None, grad=grad)
    q_summed, q_collected = _step_summary(_sorted_values(grad, w), q_query)
    tau_summed, tau_collected = _clip_summary(s - grad / lip, w, tau_query)
    return state, (q_summed, tau_summed), (q_collected, tau_collected)


def _chunk_project(Xb, yb, wb, state, spec, k, lip, tau):
    """``t+ = clip(s - grad / lip - tau, 0, 1)`` and the chunk's parts of ``A^T t+``,
    ``||t+ - s||_w^2`` and ``<s - t+, t+ - t>_w``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    s, t = state["s"], state["t"]
    t_new = np.clip(s - state["grad"] / lip - tau, 0.0, 1.0)
    summed = (design.rmatvec(t_new),
              np.array([_dot(w, t_new - s, t_new - s), _dot(w, s - t_new, t_new - t)]))
    return dict(state, t_new=t_new), summed, None


def _hint_width(history: list) -> float | None:
    """The last change of a sequence of values (None before two of them)."""
    if len(history) < 2 or not np.all(np.isfinite(history[-2:])):
        return None
    change = abs(history[-1] - history[-2])
    return max(change, 1e-12 * max(abs(history[-1]), 1e-300))


class _BlockRows:
    """The row-level side of :func:`fista` on row chunks (see :class:`_MemoryRows`).

    The dual iterates ``t``, ``s``, the candidate ``t+`` and ``grad = A u_s`` stay in the
    chunks' states. Per iteration: one pass over ``X`` for ``grad`` (with the trimmed sum of
    Eq. 2 and the projection shift started from the previous iterate's values, usually found
    in the same pass), one for ``A^T t+``; a selection that the first pass did not settle
    costs further passes over the states only, as does a backtracking step (plus one pass
    over ``X``).
    """

    def __init__(self, chunks: RowChunks, spec: BlockSpec, k: int, n: float, total: float,
                 dim: int, bound: float, lip: float):
        self.chunks, self.spec, self.k, self.n, self.total = chunks, spec, k, n, total
        self.dim, self._bound, self._lip = dim, bound, lip
        self.momentum = None
        self.q_history, self.tau_history = [], []
        self.tau_search = None

    def bound(self) -> float:
        return self._bound

    def lipschitz(self) -> float:
        return self._lip

    def start(self) -> np.ndarray:
        u, _ = self.chunks.run(_chunk_start, self.spec, self.k, self.n / self.total,
                               update=True)
        return u

    def _tau_search(self, lip):
        hint = self.tau_history[-1] if self.tau_history else None
        return _ClipSearch(self.chunks.n_chunks, self.n, self.total, hint,
                           _hint_width(self.tau_history))

    def gradient(self, u_s: np.ndarray, lip: float) -> float:
        nc = self.chunks.n_chunks
        q = _StepSearch(nc, self.n, hint=self.q_history[-1] if self.q_history else None,
                        width=_hint_width(self.q_history))
        tau = self._tau_search(lip)
        summed, collected = self.chunks.run(
            _chunk_gradient, self.spec, self.k, u_s, self.momentum, lip, q.query, tau.query,
            update=True)
        self.momentum = None
        q.update(summed[0], [c[0] for c in collected])
        if not tau.done:
            tau.update(summed[1], [c[1] for c in collected])
        _run_search(self.chunks, q, _chunk_select, ("grad",), False)
        if np.isfinite(q.value):
            self.q_history.append(q.value)
        self.tau_search, self.tau_lip = tau, lip
        return q.trimmed_sum

    def project(self, lip: float):
        tau = self.tau_search
        if self.tau_lip != lip:                    # the step was backtracked
            tau = self._tau_search(lip)
        _run_search(self.chunks, tau, _chunk_select, ("v", lip), True)
        if np.isfinite(tau.value):
            self.tau_history.append(tau.value)
        (u_new, (step_sq, restart)), _ = self.chunks.run(
            _chunk_project, self.spec, self.k, lip, tau.value, update=True)
        return u_new, float(step_sq), float(restart)

    def advance(self, momentum: float) -> None:
        self.momentum = momentum


# -- after the solve: projections, offset, trimmed set, slope ---------------------------------

def _chunk_projections(Xb, yb, wb, state, spec, directions):
    """``t_i = <beta_k, z_i>`` of the kept rows for every direction (rows of ``directions``)."""
    X, _, _ = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, np.ones(X.shape[0]), None, spec.center, spec.scale)
    proj = np.array([design.matvec(beta) for beta in directions])
    state = {key: value for key, value in state.items()
             if key not in ("s", "t", "t_new", "grad", "norm1", "norm2")}
    return dict(state, proj=proj), None, None


def projections_blockwise(chunks, spec, directions) -> None:
    """One pass over ``X``: the projections of the kept rows on every direction, into the
    states (the dual iterates are dropped)."""
    chunks.run(_chunk_projections, spec, np.asarray(directions), update=True)


def _chunk_offset_terms(Xb, yb, wb, state, k, theta):
    from ._rolr_offset import offset_terms

    y = np.where(state["Y"][:, k], 1.0, -1.0)
    loss, grad, hess = offset_terms(theta, state["proj"][k], y, state["w"])
    return state, (np.array([loss]), grad, hess), None


def offset_terms_blockwise(chunks, k):
    """``theta -> offset_terms`` of column ``k`` summed over the states (one pass a call)."""

    def terms(theta):
        (loss, grad, hess), _ = chunks.run(_chunk_offset_terms, k, theta, data=False)
        return float(loss[0]), grad, hess

    return terms


def _chunk_ties(Xb, yb, wb, state, k, q):
    z, w = _state_values(state, ("margin", k))
    tied = z == q
    return state, None, float(np.count_nonzero(tied) if w is None else w[tied].sum())


def _chunk_mask(state, columns, size):
    """The inlier mask of a chunk's rows, shape ``(n_columns, size)``: kept by the threshold
    and inside the trimmed set of each column.

    ``columns``: per column None (every kept row is inside) or ``(q, allowance)``: margins
    below ``q`` are inside, and ties at ``q`` in row order while the tied weight before them
    (in this chunk) is below the chunk's allowance.
    """
    present, keep = state["present"], state["keep"]
    masks = np.zeros((len(columns), size), dtype=bool)
    for k, rule in enumerate(columns):
        if rule is None:
            inside = np.ones(state["Y"].shape[0], dtype=bool)
        else:
            q, allowance = rule
            z, w = _state_values(state, ("margin", k))
            tied = z == q
            tw = np.where(tied, 1.0 if w is None else w, 0.0)
            inside = (z < q) | (tied & (np.cumsum(tw) - tw < allowance))
        if keep is not None:
            kept = np.zeros(keep.size, dtype=bool)
            kept[keep] = inside
            inside = kept
        if present is not None:
            masks[k, present] = inside
        else:
            masks[k] = inside
    return masks


def inlier_mask_blockwise(chunks, searches, n):
    """The inlier mask as a dask array chunked like ``X`` (persisted), of shape
    ``(n_columns, n_samples)``.

    ``searches``: per column the :class:`_StepSearch` of its margins at the weight ``n`` (the
    trimmed set: margins below the order statistic ``q``, ties at ``q`` in row order), or None
    (a collapsed problem: every kept row).
    """
    import dask.array as da

    rules = []
    for k, search in enumerate(searches):
        if search is None or not np.isfinite(search.value):
            rules.append(None)
            continue
        _, ties = chunks.run(_chunk_ties, k, search.value, data=False)
        before = np.concatenate([[0.0], np.cumsum(ties)[:-1]])
        rules.append([(search.value, n - search.w_below - b) for b in before])
    blocks = chunks.map_states(_chunk_mask, [([None if r is None else r[b] for r in rules],)
                                             for b in range(chunks.n_chunks)])
    arrays = [da.from_delayed(block, shape=(len(searches), size), dtype=bool)
              for block, size in zip(blocks, chunks.sizes, strict=True)]
    return da.concatenate(arrays, axis=1)


def _chunk_scale_loss(Xb, yb, wb, state, scores, slope):
    """``sum_k sum_i w_i log(1 + exp(-slope y_ik s_ik))`` with ``s_ik`` the projection (or a
    constant, ``scores[k]``, for a collapsed problem); and the largest ``|margin|``."""
    total, top = 0.0, 0.0
    w = state["w"]
    for k, constant in enumerate(scores):
        y = np.where(state["Y"][:, k], 1.0, -1.0)
        margins = y * (state["proj"][k] if constant is None else constant)
        losses = np.logaddexp(0.0, -slope * margins)
        total += float(losses.sum() if w is None else w @ losses)
        top = max(top, float(np.max(np.abs(margins), initial=0.0)))
    return state, np.array([total]), top
