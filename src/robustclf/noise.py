"""Corrupting distributions p(x̃ | x): their moments, their cumulants and samples from them.

One module serves both ways of training on corrupted data (Chen et al. 2014, Eqs. 2-3):

* the *marginalised* fits (:mod:`robustclf.linear.dropout`, :mod:`robustclf.linear.mcf`) need the
  mean ``E[x̃ | x]`` and the per-entry variance ``Var[x̃ | x]`` (the diagonal of ``V_p[x̃_n]`` in
  Eq. 10), and the MCF logistic baseline needs the cumulant generating function
  ``log E[exp(t^T x̃)]``;
* the *explicit* corruption baseline (:class:`robustclf.linear.mcf.ExplicitCorruptionClassifier`)
  draws ``M`` corrupted copies with :meth:`NoiseModel.sample`.

Every model here is unbiased (``E[x̃ | x] = x``) and corrupts each entry independently, as in
Chen et al. (the "independent corrupting model") and van der Maaten et al. (2013, Table 1):

============  ===========================================  ===========================  =========
name          x̃ given x                                    Var[x̃ | x]                   sparse X
============  ===========================================  ===========================  =========
``dropout``   0 with probability q, x / (1 - q) otherwise  q / (1 - q) x^2              kept
``gaussian``  x + N(0, sigma^2)                            sigma^2                      densified
``laplace``   x + Laplace(0, scale)                        2 scale^2                    densified
``poisson``   Poisson(x), x >= 0                           x                            kept
============  ===========================================  ===========================  =========

The variance is returned in two parts, ``Var[x̃_nd] = entrywise[n, d] + constant``, so that
additive noise (a constant variance) never builds a dense matrix from a sparse ``X``.

Noise models subclass :class:`sklearn.base.BaseEstimator` only for ``get_params``, ``clone`` and
``repr``; like the corruptions, they are not estimators. Parameters are checked when used.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone

from ._validation import check_fraction, check_generator, check_matrix, check_nonnegative

__all__ = [
    "NoiseModel",
    "DropoutNoise",
    "GaussianNoise",
    "LaplaceNoise",
    "PoissonNoise",
    "NOISE_MODELS",
    "make_noise",
]


class NoiseModel(BaseEstimator):
    """Base class of unbiased, entrywise-independent corrupting distributions p(x̃ | x).

    Subclasses implement ``_check_params``, ``_variance_terms``, ``_sample`` and, for the MCF
    logistic baseline, ``_log_mgf`` and ``_log_mgf_grad`` (and optionally a faster
    ``_signed_cumulant``, which the MCF fit evaluates at every iteration). Public methods
    validate ``X`` (never modifying it) and the parameters, then call these.

    Attributes
    ----------
    level_param : str or None
        Name of the parameter that sets the corruption level; the ``q`` argument of the estimators
        is passed to it when ``noise`` is given by name. None if the model has no level.
    keeps_sparsity : bool
        True if corrupted copies of a sparse ``X`` stay sparse (only non-zero entries are noisy).
    nonnegative_input : bool
        True if the model is only defined for ``X >= 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.noise import NoiseModel, make_noise
    >>> noise = make_noise("dropout", q=0.5)
    >>> isinstance(noise, NoiseModel), noise.level_param, noise.keeps_sparsity
    (True, 'q', True)
    >>> X = np.array([[1.0, 2.0], [0.0, 4.0]])
    >>> noise.mean(X)
    array([[1., 2.],
           [0., 4.]])
    >>> noise.variance(X)
    array([[ 1.,  4.],
           [ 0., 16.]])
    """

    level_param: ClassVar[str | None] = None
    keeps_sparsity: ClassVar[bool] = True
    nonnegative_input: ClassVar[bool] = False

    def mean(self, X) -> np.ndarray | sp.csr_matrix:
        """Mean ``E[x̃ | x]`` of the corrupted features: ``X`` itself (every model is unbiased).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        mean : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
            A float64 copy of ``X``.
        """
        return self._check_X(X)

    def variance(self, X) -> np.ndarray | sp.csr_matrix:
        """Per-entry variance ``Var[x̃_nd | x_nd]``, the diagonal of ``V_p[x̃_n]`` (Eq. 10).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Sparse input is accepted only by models that keep sparsity; for additive noise the
            variance is dense (use :meth:`variance_terms`).

        Returns
        -------
        variance : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
            The variance of every entry.
        """
        entrywise, constant = self.variance_terms(X)
        if constant and sp.issparse(X):
            raise ValueError(
                f"X is sparse but {type(self).__name__} has the same variance at every entry, "
                "so its variance matrix would be dense; use variance_terms(X) instead."
            )
        if entrywise is None:
            return np.full(np.shape(X), constant)
        return entrywise + constant if constant else entrywise

    def variance_terms(self, X) -> tuple[np.ndarray | sp.csr_matrix | None, float]:
        """The variance as ``(entrywise, constant)``: ``Var[x̃_nd] = entrywise[n, d] + constant``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        entrywise : ndarray, scipy.sparse.csr_matrix or None
            The entry-dependent part, of ``X``'s sparsity; None when it is zero everywhere.
        constant : float
            The part common to every entry.
        """
        X = self._check_X(X)
        return self._variance_terms(X)

    def sample(self, X, random_state=None) -> np.ndarray | sp.csr_matrix:
        """One corrupted copy x̃ ~ p(x̃ | x) of every row of ``X`` (explicit corruption, Eq. 2).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Not modified. Sparse input is accepted by models that keep sparsity.
        random_state : None, int or numpy Generator, default=None
            Seed of the corruption.

        Returns
        -------
        X_corrupted : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
            The corrupted copy, in float64.
        """
        X = self._check_X(X)
        if sp.issparse(X) and not self.keeps_sparsity:
            raise ValueError(
                f"X is sparse but {type(self).__name__} corrupts zero entries too, so the "
                "corrupted copy would be dense; pass X.toarray() if that is intended."
            )
        return self._sample(X, check_generator(random_state))

    def log_mgf(self, X, T) -> np.ndarray:
        """Cumulant generating function ``log E[exp(x̃_n^T t_k) | x_n]`` for every row and column.

        Used by the MCF logistic baseline, whose Jensen upper bound of the expected logistic loss
        is ``log(1 + E[exp(-y w^T x̃)])`` (van der Maaten et al. 2013).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        T : ndarray of shape (n_features, n_columns)

        Returns
        -------
        K : ndarray of shape (n_samples, n_columns)
            The cumulant generating function, ``inf`` where the expectation diverges.
        """
        X = self._check_X(X)
        return self._log_mgf(X, self._check_T(T, X))

    def log_mgf_grad(self, X, T, A) -> np.ndarray:
        """``sum_n A[n, k] * d log E[exp(x̃_n^T t_k)] / d t_k``, the gradient of ``sum(A * K)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        T : ndarray of shape (n_features, n_columns)
        A : ndarray of shape (n_samples, n_columns)

        Returns
        -------
        grad : ndarray of shape (n_features, n_columns)
        """
        X = self._check_X(X)
        T = self._check_T(T, X)
        A = np.asarray(A, dtype=np.float64)
        if A.shape != (X.shape[0], T.shape[1]):
            raise ValueError(f"A must have shape {(X.shape[0], T.shape[1])}, got {A.shape}.")
        return self._log_mgf_grad(X, T, A)

    # -- internals ---------------------------------------------------------------------------
    def _check_X(self, X):
        self._check_params()
        X = check_matrix(X, accept_sparse=True)
        self._check_input_values(X)
        return X

    def _check_input_values(self, X) -> None:
        """Raise if ``X`` is outside the model's domain (``X`` is already a float matrix)."""
        if self.nonnegative_input and (X.data if sp.issparse(X) else X).min(initial=0) < 0:
            raise ValueError(f"X must be non-negative for {type(self).__name__}.")

    @staticmethod
    def _check_T(T, X) -> np.ndarray:
        T = np.asarray(T, dtype=np.float64)
        if T.ndim != 2 or T.shape[0] != X.shape[1]:
            raise ValueError(f"T must have shape (n_features={X.shape[1]}, n_columns), "
                             f"got {T.shape}.")
        return T

    def _check_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _mgf_radius(self) -> float:
        """``log_mgf`` is finite for ``|t_d|`` below this (infinite for most models)."""
        return np.inf

    def _variance_terms(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def _sample(self, X, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_mgf(self, X, T):  # pragma: no cover - abstract
        raise NotImplementedError

    def _log_mgf_grad(self, X, T, A):  # pragma: no cover - abstract
        raise NotImplementedError

    def _signed_cumulant(self, X, negate) -> _SignedCumulant:
        """The cumulants ``K_n(s_nk t_k)`` with fixed signs ``s_nk = -1 where negate``, prepared
        once for repeated evaluation (the MCF logistic fit evaluates them at every iteration).

        Parameters
        ----------
        X : ndarray or sparse matrix of shape (n_samples, n_features), already validated
        negate : ndarray of bool of shape (n_samples, n_columns)
        """
        return _SignedCumulant(self, X, negate)


class _SignedCumulant:
    """``value(T)[n, k] = K_n(s_nk t_k)`` and ``grad(T, A) = d sum(A * value(T)) / dT``.

    The generic version evaluates both signs with ``_log_mgf`` (matrix products for the additive
    and Poisson models); :class:`DropoutNoise` overrides it with a cheaper encoding.
    """

    def __init__(self, noise, X, negate):
        self.noise, self.X, self.negate = noise, X, np.asarray(negate, dtype=bool)

    def value(self, T):
        K = T.shape[1]
        cum = self.noise._log_mgf(self.X, np.hstack([T, -T]))
        return np.where(self.negate, cum[:, K:], cum[:, :K])

    def grad(self, T, A):
        K, neg = T.shape[1], self.negate
        G = self.noise._log_mgf_grad(self.X, np.hstack([T, -T]),
                                     np.hstack([np.where(neg, 0.0, A), np.where(neg, A, 0.0)]))
        return G[:, :K] - G[:, K:]


class _DropoutCumulant(_SignedCumulant):
    """Dropout cumulants through the distinct (column, value) pairs of ``X``.

    ``K_n(t) = sum_{d: x_nd != 0} phi(t_d v_nd)`` with ``v = x / (1 - q)`` and
    ``phi(z) = log(q + (1 - q) e^z)``: the only transcendental work is ``phi`` on the distinct
    pairs ``(d, v)`` (at most 784 x 255 for 8-bit images, against ``nnz(X)`` entries), and the
    sums over entries are products with the sparse 0/1 matrix ``S`` (rows x pairs) -- one
    pass over the non-zeros for all columns. Entries with sign -1 (``negate``) are summed by a
    second product restricted to their rows, column by column (in one-vs-all fits these are the
    few rows of each class).
    """

    def __init__(self, noise, X, negate):
        super().__init__(noise, X, negate)
        q = float(noise.q)
        rows, cols, vals = _nonzeros(X)
        values, code = np.unique(vals, return_inverse=True)
        key = cols.astype(np.int64) * values.size + code.ravel()
        pairs, pair = np.unique(key, return_inverse=True)
        n, d, P = X.shape[0], X.shape[1], pairs.size
        self.col = pairs // values.size
        self.val = values[pairs % values.size] / (1.0 - q)
        self.S = sp.csr_matrix((np.ones(rows.size), (rows, pair.ravel())), shape=(n, P))
        self.D = sp.csr_matrix((np.ones(P), (self.col, np.arange(P))), shape=(d, P))
        self.offset = np.log1p(-q) - np.log(q) if q > 0 else np.inf
        self.log_q = np.log(q) if q > 0 else -np.inf
        self.neg_rows = [np.flatnonzero(c) for c in self.negate.T]
        self.S_neg = [self.S[r] for r in self.neg_rows]
        self._last = None

    def _tables(self, T):
        """``phi`` and ``phi'`` at ``+Z`` and ``-Z``, ``Z = v t_col`` for every pair (the last
        ``T`` is remembered, so that a value and a gradient at one point share the work)."""
        if self._last is not None and self._last[0] is T:
            return self._last[1]
        Z = self.val[:, None] * T[self.col]
        out = []
        for sign in (1.0, -1.0):
            if not np.isfinite(self.offset):          # q = 0: phi(z) = z, phi' = 1
                out += [sign * Z, np.ones_like(Z)]
                continue
            s = sign * Z + self.offset                # phi(z) = log q + softplus(z + offset)
            e = np.exp(-np.abs(s))
            out += [self.log_q + np.maximum(s, 0.0) + np.log1p(e),
                    np.where(s >= 0, 1.0, e) / (1.0 + e)]
        self._last = (T, out)
        return out

    def value(self, T):
        phi_plus, _, phi_minus, _ = self._tables(T)
        out = np.asarray(self.S @ phi_plus)
        for k, (r, S_r) in enumerate(zip(self.neg_rows, self.S_neg, strict=True)):
            if r.size:
                out[r, k] = S_r @ phi_minus[:, k]
        return out

    def grad(self, T, A):
        _, dphi_plus, _, dphi_minus = self._tables(T)
        B_plus = np.asarray(self.S.T @ np.where(self.negate, 0.0, A))
        B_minus = np.zeros_like(B_plus)
        for k, (r, S_r) in enumerate(zip(self.neg_rows, self.S_neg, strict=True)):
            if r.size:
                B_minus[:, k] = S_r.T @ A[r, k]
        G = self.val[:, None] * (dphi_plus * B_plus - dphi_minus * B_minus)
        return np.asarray(self.D @ G)


def _nonzeros(X):
    """Rows, columns and values of the non-zero entries of a dense or sparse matrix."""
    if sp.issparse(X):
        coo = X.tocoo()
        keep = coo.data != 0
        return coo.row[keep], coo.col[keep], coo.data[keep]
    rows, cols = np.nonzero(X)
    return rows, cols, X[rows, cols]


class DropoutNoise(NoiseModel):
    """Unbiased dropout (blankout): x̃ = 0 with probability ``q``, x / (1 - q) otherwise.

    The noise model of Chen et al.'s experiments; ``Var[x̃ | x] = q / (1 - q) x^2``, which is zero
    wherever ``x`` is, so a sparse ``X`` stays sparse.

    Parameters
    ----------
    q : float in [0, 1), default=0.5
        Probability that an entry is deleted.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.noise import DropoutNoise
    >>> noise = DropoutNoise(q=0.5)
    >>> X_tilde = noise.sample(np.ones((1000, 3)), random_state=0)
    >>> np.unique(X_tilde)
    array([0., 2.])
    >>> np.round(X_tilde.mean(axis=0), 1)
    array([1., 1., 1.])
    >>> noise.variance(np.array([[1.0, 2.0]]))
    array([[1., 4.]])
    """

    level_param = "q"

    def __init__(self, q: float = 0.5):
        self.q = q

    def _check_params(self) -> None:
        if check_fraction(self.q, "q") >= 1.0:
            raise ValueError(f"q must be < 1 for dropout noise (q = 1 deletes everything), "
                             f"got {self.q}.")

    def _variance_terms(self, X):
        if self.q == 0:
            return None, 0.0
        kappa = self.q / (1.0 - self.q)
        return (X.multiply(X) * kappa).tocsr() if sp.issparse(X) else kappa * (X * X), 0.0

    def _sample(self, X, rng):
        data = X.data if sp.issparse(X) else X
        data *= 1.0 / (1.0 - self.q)
        data[rng.random(data.shape) < self.q] = 0.0
        if sp.issparse(X):
            X.eliminate_zeros()
        return X

    def _log_mgf(self, X, T):
        return self._signed_cumulant(X, np.zeros((X.shape[0], T.shape[1]), bool)).value(T)

    def _log_mgf_grad(self, X, T, A):
        return self._signed_cumulant(X, np.zeros(A.shape, bool)).grad(T, A)

    def _signed_cumulant(self, X, negate):
        return _DropoutCumulant(self, X, negate)


class _AdditiveNoise(NoiseModel):
    """x̃ = x + e with i.i.d. zero-mean e: constant variance, every entry (also zeros) corrupted."""

    keeps_sparsity = False

    def _variance_terms(self, X):
        return None, self._noise_variance()

    def _sample(self, X, rng):
        return X + self._draw(rng, X.shape)

    def _log_mgf(self, X, T):
        return np.asarray(X @ T) + self._noise_cumulant(T).sum(axis=0)

    def _log_mgf_grad(self, X, T, A):
        return np.asarray(X.T @ A) + self._noise_cumulant_grad(T) * A.sum(axis=0)


class GaussianNoise(_AdditiveNoise):
    """Additive Gaussian noise: x̃ = x + N(0, sigma^2); ``Var[x̃ | x] = sigma^2``.

    Parameters
    ----------
    sigma : float >= 0, default=1.0
        Standard deviation of the noise.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.noise import GaussianNoise
    >>> noise = GaussianNoise(sigma=0.5)
    >>> X_tilde = noise.sample(np.zeros((1000, 2)), random_state=0)
    >>> np.round(X_tilde.std(axis=0), 1)
    array([0.5, 0.5])
    >>> noise.variance(np.array([[1.0, 2.0]]))
    array([[0.25, 0.25]])
    """

    level_param = "sigma"

    def __init__(self, sigma: float = 1.0):
        self.sigma = sigma

    def _check_params(self) -> None:
        check_nonnegative(self.sigma, "sigma")

    def _noise_variance(self) -> float:
        return float(self.sigma) ** 2

    def _draw(self, rng, shape):
        return rng.normal(0.0, self.sigma, size=shape)

    def _noise_cumulant(self, T):
        return 0.5 * self._noise_variance() * T**2

    def _noise_cumulant_grad(self, T):
        return self._noise_variance() * T


class LaplaceNoise(_AdditiveNoise):
    """Additive Laplace noise: x̃ = x + Laplace(0, scale); ``Var[x̃ | x] = 2 scale^2``.

    Its moment generating function is finite only for ``|t_d| < 1 / scale``; ``log_mgf`` returns
    ``inf`` outside.

    Parameters
    ----------
    scale : float >= 0, default=1.0
        Scale (diversity) of the Laplace distribution.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.noise import LaplaceNoise
    >>> noise = LaplaceNoise(scale=0.5)
    >>> X_tilde = noise.sample(np.zeros((1000, 2)), random_state=0)
    >>> np.round(X_tilde.var(axis=0), 1)
    array([0.5, 0.5])
    >>> noise.variance(np.array([[1.0, 2.0]]))
    array([[0.5, 0.5]])
    """

    level_param = "scale"

    def __init__(self, scale: float = 1.0):
        self.scale = scale

    def _check_params(self) -> None:
        check_nonnegative(self.scale, "scale")

    def _noise_variance(self) -> float:
        return 2.0 * float(self.scale) ** 2

    def _mgf_radius(self) -> float:
        return 1.0 / self.scale if self.scale > 0 else np.inf

    def _draw(self, rng, shape):
        return rng.laplace(0.0, self.scale, size=shape)

    def _noise_cumulant(self, T):
        arg = 1.0 - (self.scale * T) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(arg > 0, -np.log(np.where(arg > 0, arg, 1.0)), np.inf)

    def _noise_cumulant_grad(self, T):
        arg = 1.0 - (self.scale * T) ** 2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(arg > 0, 2.0 * self.scale**2 * T / arg, np.inf)


class PoissonNoise(NoiseModel):
    """Poisson noise for counts: x̃ ~ Poisson(x), x >= 0; ``Var[x̃ | x] = x``.

    The model has no level parameter (van der Maaten et al. 2013, Table 1). Zero entries stay
    zero, so a sparse ``X`` stays sparse.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.noise import PoissonNoise
    >>> noise = PoissonNoise()
    >>> X_tilde = noise.sample(np.array([[0.0, 3.0]] * 1000), random_state=0)
    >>> float(X_tilde[:, 0].max()), round(float(X_tilde[:, 1].mean()), 1)
    (0.0, 3.0)
    >>> noise.variance(np.array([[0.0, 3.0]]))
    array([[0., 3.]])
    """

    nonnegative_input = True

    def __init__(self):
        pass

    def _check_params(self) -> None:
        pass

    def _variance_terms(self, X):
        return X, 0.0

    def _sample(self, X, rng):
        data = X.data if sp.issparse(X) else X
        data[...] = rng.poisson(data)
        if sp.issparse(X):
            X.eliminate_zeros()
        return X

    def _log_mgf(self, X, T):
        return np.asarray(X @ np.expm1(T))

    def _log_mgf_grad(self, X, T, A):
        return np.asarray(X.T @ A) * np.exp(T)


NOISE_MODELS: dict[str, type[NoiseModel]] = {
    "dropout": DropoutNoise,
    "gaussian": GaussianNoise,
    "laplace": LaplaceNoise,
    "poisson": PoissonNoise,
}
"""Registry of the noise models by name; the estimators' ``noise`` option strings are its keys."""


def make_noise(noise: str | NoiseModel = "dropout", q: float | None = None) -> NoiseModel:
    """Resolve an estimator's ``noise`` and ``q`` arguments to a new, checked noise model.

    Parameters
    ----------
    noise : {"dropout", "gaussian", "laplace", "poisson"} or NoiseModel, default="dropout"
        A name from :data:`NOISE_MODELS`, or an instance (cloned, never modified).
    q : float or None, default=None
        The corruption level, passed to the named model's level parameter (``q`` for dropout,
        ``sigma`` for Gaussian, ``scale`` for Laplace). None keeps the model's default. Must be
        None when ``noise`` is an instance (which carries its own level) or ``"poisson"``.

    Returns
    -------
    noise_model : NoiseModel

    Examples
    --------
    >>> from robustclf.noise import GaussianNoise, make_noise
    >>> make_noise("gaussian", q=0.3)
    GaussianNoise(sigma=0.3)
    >>> make_noise("dropout")
    DropoutNoise()
    >>> make_noise(GaussianNoise(sigma=2.0))
    GaussianNoise(sigma=2.0)
    """
    if isinstance(noise, NoiseModel):
        if q is not None:
            raise ValueError(f"q must be None when noise is a NoiseModel instance (its level is "
                             f"set on the instance), got q={q!r}.")
        model = clone(noise)
    elif isinstance(noise, str) and noise in NOISE_MODELS:
        cls = NOISE_MODELS[noise]
        if q is not None and cls.level_param is None:
            raise ValueError(f"q must be None for noise={noise!r}, which has no level; "
                             f"got q={q!r}.")
        model = cls() if q is None else cls(**{cls.level_param: q})
    else:
        raise ValueError(f"noise must be one of {sorted(NOISE_MODELS)} or a NoiseModel "
                         f"instance, got {noise!r}.")
    model._check_params()
    return model
