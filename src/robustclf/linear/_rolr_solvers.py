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
backend: :class:`_MemoryRows` holds the dual iterates as arrays; the blockwise backend of
:mod:`._rolr_blockwise` keeps them in the row chunks of a dask collection and computes every
row-level step with the functions of this module (:class:`_Design`'s products,
:func:`~robustclf._blockwise._select.capped_sums`, :func:`centred_row_norms`,
:func:`fill_absent`), so that the blockwise fit takes the in-memory iterations.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

from .._blockwise._select import capped_sums, piecewise_root

__all__ = ["RoLRSolution", "trimmed_sum", "project_capped_simplex", "solve_dual", "solve_socp",
           "SOLVERS", "column_medians", "centred_row_norms", "weighted_medians", "fill_absent",
           "has_absent", "fista", "largest_eigenvalue"]


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


def _project_sort(v: np.ndarray, n: float, weights: np.ndarray | None = None) -> float:
    """The shift ``tau`` of the projection, exactly, by sorting the 2N breakpoints: O(N log N).

    ``h(tau)`` is continuous, non-increasing and linear between consecutive breakpoints
    ``{v_i - 1} U {v_i}``; evaluate it at all of them (:func:`capped_sums`) and interpolate.
    """
    breaks = np.unique(np.concatenate([v - 1.0, v]))
    return piecewise_root(breaks, capped_sums(v, breaks, weights), n)


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
    the row chunks (:class:`._rolr_blockwise._BlockRows`); both implement this interface:

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
