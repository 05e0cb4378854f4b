"""Solvers of RoLR's trimmed-correlation problem (Feng et al. 2014, Eq. 2): arrays in, arrays out.

With ``a_i = y_i x_i`` (rows of ``A``) and ``n`` the number of authentic rows, RoLR solves

    max_{||beta||_2 <= 1}  P(beta) = sum of the n smallest a_i^T beta                    (Eq. 2)

The inner "sum of the n smallest" is ``min_t t^T A beta`` over the capped simplex
``C = {t : 0 <= t_i <= 1, sum_i t_i = n}``; by the minimax theorem (both sets convex, compact)

    max_beta P(beta) = min_{t in C} D(t),   D(t) = ||A^T t||_2,   beta* = A^T t* / ||A^T t*||.

For every feasible ``t`` and unit ``beta``, ``P(beta) <= P* = D* <= D(t)``: the duality gap
``D(t) - max(P(beta(t)), P(0) = 0)`` certifies the accuracy of both. When ``D* = 0`` the maximiser
is ``beta = 0`` (the trimmed correlation is non-positive in every direction): the *collapse*.

Solvers
-------
``solve_dual``
    Accelerated projected gradient (FISTA with adaptive gradient restart) on
    ``min_{t in C} ||A^T t||^2 / 2`` (same minimiser as ``D``), with an exact projection onto ``C``
    and the duality-gap stopping rule. Two passes over ``X`` per iteration; ``A`` is never
    formed (``A^T t = X^T (y * t)``), so dense or sparse ``X`` is used as given.
``solve_socp``
    Eq. (3) with ``nu`` free (the dual of the inner minimum over ``C``) as a second-order cone
    program, through cvxpy + Clarabel (optional extra ``conic``): the reference. With
    ``nu_nonnegative=True`` it solves Eq. (3) *as printed* (``nu >= 0``, i.e. ``sum t <= n``),
    whose maximiser is ``beta = 0`` whenever the trimmed sum is positive somewhere.

An optional intercept is a constant column ``intercept_scaling`` appended to ``X`` (inside the
unit ball, like liblinear's); it is handled implicitly, without copying ``X``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

__all__ = ["RoLRSolution", "trimmed_sum", "project_capped_simplex", "solve_dual", "solve_socp",
           "SOLVERS"]


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
        True when the optimum is (within tolerance) zero, so ``coef = 0``.
    """

    coef: np.ndarray
    objective: float
    dual_objective: float
    n_iter: int
    converged: bool
    collapsed: bool


def trimmed_sum(z: np.ndarray, n: int) -> float:
    """Sum of the ``n`` smallest entries of ``z`` (``[z]_(1) + ... + [z]_(n)`` in Eq. 2), O(N)."""
    z = np.asarray(z, dtype=np.float64)
    if n >= z.size:
        return float(z.sum())
    return float(np.partition(z, n - 1)[:n].sum())


def _capped_sum(v: np.ndarray, tau: float) -> tuple[float, int]:
    """``h(tau) = sum_i clip(v_i - tau, 0, 1)`` and the number of entries strictly inside (0, 1)."""
    w = v - tau
    inside = (w > 0.0) & (w < 1.0)
    return float(np.count_nonzero(w >= 1.0) + w[inside].sum()), int(np.count_nonzero(inside))


def _project_sort(v: np.ndarray, n: float) -> float:
    """The shift ``tau`` of the projection, exactly, by sorting the 2N breakpoints: O(N log N).

    ``h(tau)`` is continuous, non-increasing and linear between consecutive breakpoints
    ``{v_i - 1} U {v_i}``; evaluate it at all of them with prefix sums and interpolate.
    """
    vs = np.sort(v)
    cums = np.concatenate([[0.0], np.cumsum(vs)])
    N = vs.size
    breaks = np.unique(np.concatenate([vs - 1.0, vs]))
    ge1 = N - np.searchsorted(vs, breaks + 1.0, side="left")      # v_i - tau >= 1
    gt0 = N - np.searchsorted(vs, breaks, side="right")            # v_i - tau > 0
    mid = gt0 - ge1
    mid_sum = (cums[N - ge1] - cums[N - gt0])
    h = ge1 + mid_sum - mid * breaks
    k = np.searchsorted(-h, -n, side="left")        # first breakpoint with h <= n
    if k == 0:
        return float(breaks[0])
    h0, h1, b0, b1 = h[k - 1], h[k], breaks[k - 1], breaks[k]
    return float(b0 + (h0 - n) * (b1 - b0) / (h0 - h1)) if h0 > h1 else float(b1)


def project_capped_simplex(v: np.ndarray, n: float, tau0: float | None = None,
                           max_newton: int = 50) -> tuple[np.ndarray, float]:
    """Euclidean projection of ``v`` onto ``{t : 0 <= t_i <= 1, sum t_i = n}``, exactly.

    The projection is ``t_i = clip(v_i - tau, 0, 1)`` with ``tau`` the root of the piecewise
    linear, non-increasing ``h(tau) = sum_i clip(v_i - tau, 0, 1) = n``. A safeguarded Newton
    iteration on ``h`` (bisection when a step leaves the bracket) lands on the exact root once it
    reaches the right linear piece: O(N) per step and a few steps in expectation, especially when
    warm-started at the previous ``tau0``. It falls back to the exact sort-based O(N log N) rule.

    Parameters
    ----------
    v : ndarray of shape (N,)
    n : float, 0 <= n <= N
    tau0 : float, default=None
        Starting guess (e.g. the previous projection's shift).
    max_newton : int, default=50

    Returns
    -------
    t : ndarray of shape (N,)
    tau : float
    """
    N = v.size
    if n >= N:
        return np.ones(N), -np.inf
    if n <= 0:
        return np.zeros(N), np.inf
    lo, hi = float(v.min()) - 1.0, float(v.max())        # h(lo) = N >= n >= 0 = h(hi)
    tau = 0.5 * (lo + hi) if tau0 is None or not lo < tau0 < hi else float(tau0)
    tol = 1e-12 * max(n, 1.0)
    for _ in range(max_newton):
        h, slope = _capped_sum(v, tau)
        if abs(h - n) <= tol:
            break
        if h > n:
            lo = tau
        else:
            hi = tau
        step = tau + (h - n) / slope if slope > 0 else None
        tau = step if step is not None and lo < step < hi else 0.5 * (lo + hi)
    else:
        tau = _project_sort(v, n)
    return np.clip(v - tau, 0.0, 1.0), tau


class _Design:
    """The linear maps of ``A = diag(y) [X - 1 m^T, c 1]`` without forming it (nor copying X)."""

    def __init__(self, X, y: np.ndarray, intercept_scaling: float | None,
                 center: np.ndarray | None = None):
        self.X, self.y = X, np.asarray(y, dtype=np.float64)
        self.c, self.m = intercept_scaling, center
        self.n_rows, self.p = X.shape
        self.dim = self.p + (self.c is not None)

    def rmatvec(self, t: np.ndarray) -> np.ndarray:
        """``A^T t``."""
        yt = self.y * t
        out = np.asarray(self.X.T @ yt).ravel()
        if self.m is not None:
            out = out - self.m * yt.sum()
        return np.append(out, self.c * yt.sum()) if self.c is not None else out

    def matvec(self, u: np.ndarray) -> np.ndarray:
        """``A u``."""
        w = u[:self.p]
        z = np.asarray(self.X @ w).ravel()
        shift = (-float(self.m @ w) if self.m is not None else 0.0) + (
            self.c * u[-1] if self.c is not None else 0.0)
        return self.y * (z + shift) if shift else self.y * z

    def row_norms(self) -> np.ndarray:
        X = self.X
        if sp.issparse(X):
            sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        else:
            sq = np.einsum("ij,ij->i", X, X)
        if self.m is not None:
            sq = sq - 2.0 * np.asarray(X @ self.m).ravel() + float(self.m @ self.m)
        return np.sqrt(np.maximum(sq, 0.0) + (self.c ** 2 if self.c is not None else 0.0))

    def lipschitz(self) -> float:
        """``||A||_2^2 = lambda_max(A^T A)``; ``A^T A`` does not depend on the labels."""
        if self.dim <= 2000:
            X, N = self.X, self.n_rows
            gram = X.T @ X
            gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
            colsum = np.asarray(X.sum(axis=0)).ravel()
            if self.m is not None:
                gram = (gram - np.outer(colsum, self.m) - np.outer(self.m, colsum)
                        + N * np.outer(self.m, self.m))
                colsum = colsum - N * self.m
            if self.c is not None:
                col = self.c * colsum
                gram = np.block([[gram, col[:, None]],
                                 [col[None, :], np.array([[self.c ** 2 * N]])]])
            return float(np.linalg.eigvalsh(gram)[-1]) * (1.0 + 1e-10)
        u = np.random.default_rng(0).standard_normal(self.dim)
        lam = 0.0
        for _ in range(100):
            w = self.rmatvec(self.y * self.matvec(u))          # A^T A u
            lam_new = float(np.linalg.norm(w))
            u = w / lam_new
            if abs(lam_new - lam) <= 1e-6 * lam_new:
                break
            lam = lam_new
        return lam_new * 1.05


def solve_dual(X, y, n: int, *, intercept_scaling: float | None = None,
               center: np.ndarray | None = None, tol: float = 1e-6,
               max_iter: int = 10_000) -> RoLRSolution:
    """RoLR (Eq. 2) through its dual ``min_{t in C} ||A^T t||_2`` by accelerated projection.

    FISTA on ``f(t) = ||A^T t||^2 / 2`` (gradient ``A A^T t``, Lipschitz ``||A||_2^2``) with the
    gradient-based adaptive restart of O'Donoghue & Candes (2015). At every extrapolated point
    ``s`` the direction ``beta(s) = A^T s / ||A^T s||`` is a primal candidate whose trimmed sum
    comes free from the gradient (``A beta(s) = grad f(s) / ||A^T s||``). Stops when

    * ``D_best - max(P_best, 0) <= tol * D_best`` (relative duality gap), or
    * ``D_best <= tol * S``: the optimum is zero at the scale ``S`` of the data (``S`` = sum of
      the ``n`` largest row norms, a bound on ``|P|``): collapse, ``coef = 0``.

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
    tol : float, default=1e-6
    max_iter : int, default=10000

    Returns
    -------
    RoLRSolution
    """
    design = _Design(X, y, intercept_scaling, center)
    N = design.n_rows
    norms = design.row_norms()
    scale = trimmed_sum(-norms, n) * -1.0
    step = 1.0 / max(design.lipschitz(), np.finfo(float).tiny)
    t = np.full(N, n / N)
    u_t = design.rmatvec(t)
    s, u_s, theta, tau = t, u_t, 1.0, None
    d_best, p_best, beta_best = float(np.linalg.norm(u_t)), 0.0, np.zeros(design.dim)
    converged, k = False, 0
    while k < max_iter:
        k += 1
        grad = design.matvec(u_s)
        d_s = float(np.linalg.norm(u_s))
        if d_s > 0:
            p_s = trimmed_sum(grad, n) / d_s
            if p_s > p_best:
                p_best, beta_best = p_s, u_s / d_s
        if d_best - p_best <= tol * d_best or d_best <= tol * scale:
            converged = True
            break
        t_new, tau = project_capped_simplex(s - step * grad, n, tau)
        u_new = design.rmatvec(t_new)
        d_best = min(d_best, float(np.linalg.norm(u_new)))
        if np.dot(s - t_new, t_new - t) > 0:          # gradient restart
            theta_new, momentum = 1.0, 0.0
        else:
            theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta * theta))
            momentum = (theta - 1.0) / theta_new
        s = t_new + momentum * (t_new - t)
        u_s = u_new + momentum * (u_new - u_t)
        t, u_t, theta = t_new, u_new, theta_new
    collapsed = d_best <= tol * scale or p_best <= 0.0
    coef = np.zeros(design.dim) if collapsed else beta_best
    objective = 0.0 if collapsed else p_best
    return RoLRSolution(coef, objective, d_best, k, converged, collapsed)


def solve_socp(X, y, n: int, *, intercept_scaling: float | None = None,
               center: np.ndarray | None = None, tol: float = 1e-8, max_iter: int = 200,
               nu_nonnegative: bool = False) -> RoLRSolution:
    """RoLR's Eq. (3) as a second-order cone program (cvxpy + Clarabel), the reference.

    ``max -n nu - sum xi  s.t.  A beta + nu + xi >= 0, xi >= 0, ||beta||_2 <= 1``, with ``nu``
    free: the dual of the inner minimum over ``{0 <= t <= 1, sum t = n}``, so the optimum is
    Eq. (2). ``nu_nonnegative=True`` adds the printed ``nu >= 0`` (``sum t <= n``), whose value is
    ``max(0, ...)``-clipped and whose maximiser collapses to ``beta = 0`` (see the module notes).

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
    problem = cp.Problem(cp.Maximize(-n * nu - cp.sum(xi)), [margin + nu + xi >= 0, ball])
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
    objective = trimmed_sum(_Design(X, y, intercept_scaling).matvec(coef), n)
    return RoLRSolution(coef, objective, value, int(problem.solver_stats.num_iters or 0),
                        problem.status == cp.OPTIMAL, collapsed)


SOLVERS = {"dual": solve_dual, "socp": solve_socp}
"""The solver behind each value of ``RobustLogisticRegression(solver=...)``."""
