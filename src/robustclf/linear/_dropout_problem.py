"""The data of a marginalised-corruption fit and the linear algebra every solver shares.

:class:`Variance` holds the corruption variance ``Var[x̃_nd] = entrywise[n, d] + constant`` as
two linear maps; :class:`_Problem` holds ``X``, the ±1 targets, the variance and the per-sample
loss, and computes objectives, gradients and Hessian-vector products of

    F_k(w, b) = ||w||^2 + sum_n loss(m_nk, u_nk; y_nk),   m_nk = w^T x_n + b,   u_nk = w^T V_n w

for all one-vs-all columns at once; :func:`_pcg` is conjugate gradients on one independent
system per column. The solvers themselves are in :mod:`._dropout_solvers`.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor
from threadpoolctl import threadpool_limits

__all__ = ["Variance", "newton_precision", "objective"]

_MAX_GRAM_FEATURES = 4096
_FLOAT32_MIN_SIZE = 2_000_000
_HESSIAN_ROWS = 10_000


def _dot(A, B):
    """``A @ B`` as a float64 ndarray, computed in ``A``'s precision (dense or sparse ``A``)."""
    return np.asarray(A @ B.astype(A.dtype, copy=False), dtype=np.float64)


def _tdot(A, Z):
    """``A^T @ Z`` as a float64 ndarray, computed in ``A``'s precision."""
    return np.asarray(A.T @ Z.astype(A.dtype, copy=False), dtype=np.float64)


class Variance:
    """The linear maps of the corruption variance: ``Var[x̃_nd] = entrywise[n, d] + constant``.

    Parameters
    ----------
    entrywise : ndarray, sparse matrix of shape (n_samples, n_features), or None (zero)
    constant : float
    shape : tuple (n_samples, n_features)
    """

    def __init__(self, entrywise, constant: float, shape: tuple[int, int]):
        self.entrywise, self.constant, self.shape = entrywise, float(constant), shape

    def forward(self, W2: np.ndarray) -> np.ndarray:
        """``u[n, k] = sum_d Var[n, d] * W2[d, k]``, e.g. ``w^T V_n w`` for ``W2 = w**2``."""
        if self.entrywise is None:
            return np.repeat(self.constant * W2.sum(axis=0)[None], self.shape[0], axis=0)
        out = _dot(self.entrywise, W2)
        return out + self.constant * W2.sum(axis=0) if self.constant else out

    def adjoint(self, Z: np.ndarray) -> np.ndarray:
        """``out[d, k] = sum_n Var[n, d] * Z[n, k]``."""
        if self.entrywise is None:
            return np.repeat(self.constant * Z.sum(axis=0)[None], self.shape[1], axis=0)
        out = _tdot(self.entrywise, Z)
        return out + self.constant * Z.sum(axis=0) if self.constant else out

    def is_zero(self) -> bool:
        return self.entrywise is None and self.constant == 0.0


class _Problem:
    """The data shared by all binary problems of one fit, and the maps every solver needs."""

    def __init__(self, X, Y, var: Variance, loss, fit_intercept: bool):
        self.X, self.Y, self.var, self.loss = X, Y, var, loss
        self.fit_intercept = fit_intercept
        self.d = X.shape[1]
        self._X2 = self._fast = self.rows = None
        self.scale = 1.0

    @property
    def fast(self) -> _Problem:
        """The problem the Hessian products of Newton-CG use: for large data, ``rows`` (a fixed
        pseudo-random subset of ``_HESSIAN_ROWS`` samples, seed 0) with their curvature scaled by
        ``n / len(rows)`` -- a sub-sampled Newton method (Byrd et al. 2011) -- and float32 copies
        of a dense X and variance (half the memory traffic). CG needs no more precision (its
        relative residual target is floored at 1e-5); objectives and gradients, hence the
        optimum, use all the data in float64. With row weights (a per-row ``C`` of the loss)
        ``n`` counts the rows of positive weight, the only ones with curvature, and the subset
        is drawn among them: a row of weight 0 is then exactly a removed row."""
        if self._fast is None:
            C = getattr(self.loss, "C", None)
            live = np.flatnonzero(np.ravel(C) > 0) if np.ndim(C) else None
            n = self.X.shape[0] if live is None else live.size
            rows = None
            if n > 2 * _HESSIAN_ROWS:
                rows = np.sort(np.random.default_rng(0).choice(n, _HESSIAN_ROWS, replace=False))
                rows = rows if live is None else live[rows]
            low = not sp.issparse(self.X) and self.X.size >= _FLOAT32_MIN_SIZE
            if rows is None and not low:
                self._fast, self.rows, self.scale = self, None, 1.0
                return self
            dtype = np.float32 if low else np.float64
            X = self.X if rows is None else self.X[rows]
            E = self.var.entrywise
            E = None if E is None else (E if rows is None else E[rows]).astype(
                dtype, copy=False)
            fast = copy.copy(self)
            fast.X = X.astype(dtype, copy=False)
            fast.var = Variance(E, self.var.constant, fast.X.shape)
            fast._X2 = None
            if rows is not None and live is not None:    # per-row C: the subset's rows
                fast.loss = copy.copy(self.loss)
                fast.loss.C = self.loss.C[rows]
            fast._fast, fast.rows, fast.scale = fast, None, 1.0
            self._fast, self.rows, self.scale = fast, rows, n / fast.X.shape[0]
        return self._fast

    @property
    def uses_gram(self) -> bool:
        """Whether (d + 1)-square matrices are affordable: dense X of moderate width."""
        return not sp.issparse(self.X) and self.d < _MAX_GRAM_FEATURES

    @property
    def gram(self):
        """``X̄^T X̄``, computed once (dense X only)."""
        if getattr(self, "_gram", None) is None:
            X = self.X
            G = X.T @ X
            if self.fit_intercept:
                s = X.sum(axis=0)
                G = np.block([[G, s[:, None]], [s[None, :], np.array([[X.shape[0]]])]])
            self._gram = G
        return self._gram

    @property
    def X2(self):
        """Entrywise square of X (for diagonal preconditioners), computed once."""
        if self._X2 is None:
            self._X2 = self.X.multiply(self.X).tocsr() if sp.issparse(self.X) else self.X**2
        return self._X2

    def lin(self, theta):  # X̄ theta, with X̄ = [X, 1] when fitting an intercept
        m = _dot(self.X, theta[: self.d])
        return m + theta[self.d] if self.fit_intercept else m

    def lin_t(self, Z):  # X̄^T Z
        top = _tdot(self.X, Z)
        return np.vstack([top, Z.sum(axis=0)]) if self.fit_intercept else top

    def lin2_t(self, Z):  # diag(X̄^T diag(z) X̄), column by column
        top = _tdot(self.X2, Z)
        return np.vstack([top, Z.sum(axis=0)]) if self.fit_intercept else top

    def pad(self, a):  # extend a (d, k) block with a zero bias row
        return np.vstack([a, np.zeros((1, a.shape[1]))]) if self.fit_intercept else a

    def evaluate(self, theta, Y):
        """Objective of each column, with the margins m and variances u it used."""
        w = theta[: self.d]
        m = self.lin(theta)
        u = self.var.forward(w * w)
        return (w * w).sum(axis=0) + self.loss.value(m, u, Y).sum(axis=0), m, u

    def gradient_scale(self) -> np.ndarray:
        """``||grad F_k(0)||_inf`` of each column: the scale of the relative gradient norm.

        At ``w = 0, b = 0`` every margin is 0 and every variance 0, so the gradient is
        ``X̄^T l_m(0, 0; y)``: one pass over the data, computed once. Floored at a tiny positive
        value (a problem whose gradient vanishes at 0 is solved by 0).
        """
        if getattr(self, "_gradient_scale", None) is None:
            zeros = np.zeros_like(self.Y)
            lm, _ = self.loss.derivatives(zeros, zeros, self.Y, order=1)
            g = self.lin_t(lm)
            self._gradient_scale = np.maximum(np.abs(g).max(axis=0), np.finfo(float).tiny)
        return self._gradient_scale

    def gradient(self, theta, lm, lu, Vlu=None):
        """Gradient of each column's objective, from the loss's first derivatives."""
        w = theta[: self.d]
        Vlu = self.var.adjoint(lu) if Vlu is None else Vlu
        return self.lin_t(lm) + self.pad(2.0 * w * (1.0 + Vlu))

    def hessian_vector(self, w, curvature, V, cols, exact=False):
        """Hessian of columns ``cols`` times ``V``; ``curvature = (l_mm, l_mu, l_uu, V^T l_u)``,
        the first three for all rows or already restricted to the Hessian's rows.

        With ``dm = X̄ v`` and ``du = 2 sum_d Var[n, d] w_d v_d``:
        ``H v = 2 P v + X̄^T (l_mm dm + l_mu du) + 2 v * V^T l_u
        + 2 w * V^T (l_mu dm + l_uu du)`` -- four passes over the data for all columns.
        ``exact=False`` reads the Hessian's sub-sample and precision (:attr:`fast`);
        ``exact=True`` all rows of ``X`` (``curvature`` then on all rows).
        """
        every = len(cols) == curvature[0].shape[1]
        lmm, lmu, luu, Vlu = (c if every else c[:, cols] for c in curvature)
        w, Vw = w[:, cols], V[: self.d]
        source, scale = (self, 1.0) if exact else (self.fast, self.scale)
        if not exact and self.rows is not None and lmm.shape[0] != source.X.shape[0]:
            lmm, lmu, luu = lmm[self.rows], lmu[self.rows], luu[self.rows]
        dm = source.lin(V)
        du = 2.0 * source.var.forward(w * Vw)
        out = scale * source.lin_t(lmm * dm + lmu * du) + self.pad(2.0 * Vw * (1.0 + Vlu))
        if not self.var.is_zero():
            out[: self.d] += 2.0 * scale * w * source.var.adjoint(lmu * dm + luu * du)
        return out


def newton_precision(X):
    """``X`` as the Newton solver reads it: float32 for dense X of at least
    ``_FLOAT32_MIN_SIZE`` entries, unchanged otherwise.

    Every pass over such data (objective, gradient and Hessian products) is then a float32
    BLAS product -- half the memory traffic, which is what these thin products (n x d times
    d x n_classes) are limited by -- with the loss, the steps and the iterate in float64. On
    MNIST (60,000 x 784, 10 classes, q = 0.5, C = 0.1) the float32 optimum's float64 objective
    differs from the float64 optimum's by 2e-10 relative, with the same Newton steps.
    """
    if sp.issparse(X) or X.size < _FLOAT32_MIN_SIZE or X.dtype == np.float32:
        return X
    return X.astype(np.float32)


def objective(X, Y, var: Variance, loss, coef, intercept=None) -> np.ndarray:
    """The objective ``F_k`` of each column at ``(coef[k], intercept[k])`` (for tests)."""
    fit_intercept = intercept is not None
    problem = _Problem(X, Y, var, loss, fit_intercept)
    theta = coef.T if not fit_intercept else np.vstack([coef.T, np.atleast_1d(intercept)])
    return problem.evaluate(np.asarray(theta, dtype=np.float64), Y)[0]


def _pcg(matvec, b, precond, rtol, max_iter, x0):
    """Preconditioned conjugate gradients on independent SPD systems, one per column.

    ``matvec(V, cols)`` multiplies the matrices of columns ``cols`` by ``V``, ``precond(R, cols)``
    applies their preconditioners; ``rtol`` is the relative residual target of each column.
    A column stops early on non-positive curvature.
    """
    x = x0.copy()
    all_cols = np.arange(b.shape[1])
    r = b - matvec(x, all_cols) if np.any(x0) else b.copy()
    z = precond(r, all_cols)
    p, rz = z.copy(), (r * z).sum(axis=0)
    target = rtol * np.linalg.norm(b, axis=0)
    active = np.linalg.norm(r, axis=0) > target
    for _ in range(max_iter):
        cols = np.flatnonzero(active)
        if cols.size == 0:
            break
        Ap = matvec(p[:, cols], cols)
        curv = (p[:, cols] * Ap).sum(axis=0)
        ok = curv > 0
        alpha = np.where(ok, rz[cols] / np.where(ok, curv, 1.0), 0.0)
        x[:, cols] += alpha * p[:, cols]
        r[:, cols] -= alpha * Ap
        z_c = precond(r[:, cols], cols)
        rz_new = (r[:, cols] * z_c).sum(axis=0)
        p[:, cols] = z_c + (rz_new / np.where(rz[cols] > 0, rz[cols], 1.0)) * p[:, cols]
        rz[cols] = rz_new
        active[cols] = ok & (np.linalg.norm(r[:, cols], axis=0) > target[cols])
    return x


def _jacobi(diag):
    return lambda R, cols: R / diag[:, cols]


def _cholesky(A):
    """Cholesky factor of an SPD matrix, single-threaded: OpenBLAS's threaded ``potrf`` on a
    busy 2-core machine took 1.6 s for a 785-square matrix, against 0.014 s on one thread."""
    with threadpool_limits(limits=1, user_api="blas"):
        return cho_factor(A, check_finite=False)
