"""Baselines for learning with corrupted features: MCF (van der Maaten et al. 2013) and explicit
corruption (Burges & Schölkopf 1997; Chen et al. 2014, Eq. 2).

* :class:`MCFClassifier` -- marginalised corrupted features with the quadratic loss (closed
  form) or the logistic loss (its Jensen upper bound through the noise's moment generating
  function), the MCF-Quadratic and MCF-Logistic of Chen et al.'s experiments.
* :func:`explicit_corruption` and :class:`ExplicitCorruptionClassifier` -- ``M`` corrupted
  copies of the training set drawn from the same noise object the marginalised fits use, with
  any scikit-learn classifier trained on them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import (
    check_bool,
    check_generator,
    check_labels,
    check_max_iter,
    check_option,
    check_positive,
)
from ..noise import NoiseModel, make_noise
from . import _dropout_solvers as solvers
from ._base import (
    LinearClassifierBase,
    warn_if_not_converged,
)
from ._dropout_losses import QuadraticLoss

__all__ = ["MCFClassifier", "ExplicitCorruptionClassifier", "explicit_corruption"]

_MCF_LOSSES = ("quadratic", "logistic")


class MCFClassifier(LinearClassifierBase):
    """Linear classifier with marginalised corrupted features (van der Maaten et al. 2013).

    For each one-vs-all problem, minimises ``||w||^2 + C sum_n L_n(w, b)`` with

    * ``loss="quadratic"``: ``L_n = E[(y_n - w^T x̃_n - b)^2] = (y_n - m_n)^2 + w^T V_n w``, in
      closed form (one Gram product and one Cholesky factorisation shared by all classes for
      dense X; conjugate gradients for sparse X). It is Chen et al.'s IRLS with the weights
      ``gamma_n`` held fixed.
    * ``loss="logistic"``: the upper bound of the expected logistic loss used by van der Maaten
      et al., from Jensen's inequality ``E[log(1 + e^Z)] <= log(1 + E[e^Z])``:
      ``L_n = log(1 + exp(-y_n b) E[exp(-y_n w^T x̃_n)])``, whose expectation is the noise
      model's moment generating function (:meth:`~robustclf.noise.NoiseModel.log_mgf`);
      convex, minimised by L-BFGS on all classes at once. Each evaluation is one pass over the
      non-zeros of X for all classes (sparse matrix-matrix products); under dropout the
      cumulant's logarithms are taken once per distinct (feature, value) pair, not per entry
      (8-bit images have at most 255 values per pixel). (Not the Gaussian approximation, which is
      ``DropoutLogisticRegression(objective="gaussian")``.)

    Parameters
    ----------
    loss : {"quadratic", "logistic"}, default="quadratic"
        Marginalised loss.
    C : float > 0, default=1.0
        Weight of the data term. With ``q=0``: ``loss="quadratic"`` solves
        ``RidgeClassifier(alpha=1 / C)``; ``loss="logistic"`` solves
        ``LogisticRegression(C=C / 2)``.
    noise : {"dropout", "gaussian", "laplace", "poisson"} or NoiseModel, default="dropout"
        Corrupting distribution (:mod:`robustclf.noise`).
    q : float or None, default=None
        Corruption level of the named noise model (see :func:`robustclf.noise.make_noise`);
        None keeps the model's default (0.5 for dropout).
    fit_intercept : bool, default=True
        Fit an uncorrupted, unregularised bias.
    tol : float > 0, default=1e-6
        Relative decrease of the objective at which L-BFGS stops (logistic loss).
    max_iter : int >= 1, default=1000
        Maximum L-BFGS iterations (logistic loss).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    noise_ : NoiseModel
    n_iter_ : ndarray of shape (1,) or (n_classes,)
    objective_ : ndarray of shape (1,) or (n_classes,)
        Final objective of each binary problem.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    References
    ----------
    L. van der Maaten, M. Chen, S. Tyree and K. Q. Weinberger. Learning with marginalized
    corrupted features. ICML 2013.
    """

    def __init__(self, *, loss: str = "quadratic", C: float = 1.0, noise="dropout",
                 q: float | None = None, fit_intercept: bool = True, tol: float = 1e-6,
                 max_iter: int = 1000):
        self.loss = loss
        self.C = C
        self.noise = noise
        self.q = q
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter

    def _check_params(self) -> None:
        check_option(self.loss, "loss", _MCF_LOSSES)
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        check_bool(self.fit_intercept, "fit_intercept")

    def _fit_ovr(self, X, Y):
        noise = make_noise(self.noise, self.q)
        noise._check_input_values(X)
        self.noise_ = noise
        if self.loss == "quadratic":
            var = solvers.Variance(*noise._variance_terms(X), X.shape)
            res = solvers.least_squares(X, Y, var, QuadraticLoss(float(self.C)),
                                        fit_intercept=bool(self.fit_intercept))
            self.n_iter_, self.objective_ = res.n_iter, np.array([h[-1] for h in res.objective])
            return res.coef, res.intercept
        return self._fit_logistic(X, Y, noise)

    def _fit_logistic(self, X, Y, noise: NoiseModel):
        if noise.keeps_sparsity and not sp.issparse(X):
            X = sp.csr_matrix(X)       # the dropout cumulants only touch non-zero entries
        n, d = X.shape
        K, C, fit_b = Y.shape[1], float(self.C), bool(self.fit_intercept)
        # K_n(-y_nk w_k) for all columns at once, prepared once (see noise._SignedCumulant)
        cumulant = noise._signed_cumulant(X, Y > 0)
        last = {}

        def fun(x):
            W, b = x[: d * K].reshape(d, K), (x[d * K:] if fit_b else np.zeros(K))
            z = cumulant.value(W) - Y * b
            f = (W * W).sum(axis=0) + C * np.logaddexp(0.0, z).sum(axis=0)
            A = C * expit(z)
            grad = 2.0 * W + cumulant.grad(W, A)
            last["f"] = f
            return f.sum(), np.concatenate([grad.ravel(), -(A * Y).sum(axis=0)[: K * fit_b]])

        radius = noise._mgf_radius() * (1.0 - 1e-9)
        bounds = [(-radius, radius)] * (d * K) + [(None, None)] * (K * fit_b) \
            if np.isfinite(radius) else None
        res = minimize(fun, np.zeros(d * K + K * fit_b), jac=True, method="L-BFGS-B",
                       bounds=bounds, options={"maxiter": int(self.max_iter),
                                               "ftol": float(self.tol), "gtol": 1e-10})
        fun(res.x)
        self.n_iter_ = np.full(K, res.nit)
        self.objective_ = last["f"]
        warn_if_not_converged(self, np.full(K, res.nit < self.max_iter), self.max_iter)
        return res.x[: d * K].reshape(d, K).T, (res.x[d * K:] if fit_b else np.zeros(K))


def explicit_corruption(X, y=None, *, noise="dropout", q: float | None = None,
                        n_copies: int = 16, random_state=None
                        ) -> np.ndarray | sp.csr_matrix | tuple:
    """Stack ``n_copies`` corrupted copies of a training set (Chen et al. 2014, Eq. 2).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data; not modified. Sparse X stays sparse for noise models that keep sparsity.
    y : array-like of shape (n_samples,), default=None
        Labels, repeated once per copy.
    noise : str or NoiseModel, default="dropout"
        Corrupting distribution, resolved with ``q`` by :func:`robustclf.noise.make_noise`.
    q : float or None, default=None
        Corruption level of the named noise model.
    n_copies : int >= 1, default=16
        The paper's M.
    random_state : None, int or numpy Generator, default=None
        Seed of the corruption.

    Returns
    -------
    X_corrupted : ndarray or csr_matrix of shape (n_copies * n_samples, n_features)
        Copy ``m`` occupies rows ``m * n_samples`` to ``(m + 1) * n_samples - 1``.
    y_corrupted : ndarray of shape (n_copies * n_samples,)
        Only when ``y`` is given.
    """
    n_copies = check_max_iter(n_copies, "n_copies")
    model = make_noise(noise, q)
    rng = check_generator(random_state)
    copies = [model.sample(X, random_state=rng) for _ in range(n_copies)]
    X_out = sp.vstack(copies, format="csr") if sp.issparse(copies[0]) else np.vstack(copies)
    if y is None:
        return X_out
    y = check_labels(y, copies[0].shape[0])
    return X_out, np.tile(y, n_copies)


def _estimator_has(attr):
    def check(self):
        est = getattr(self, "estimator_", None) or self._base_estimator()
        return hasattr(est, attr)
    return check


class ExplicitCorruptionClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Any classifier trained on ``n_copies`` corrupted copies of the data (explicit corruption).

    The finite-sample counterpart of the marginalised fits (Chen et al. 2014, Eq. 2; "virtual"
    examples of Burges & Schölkopf 1997): as ``n_copies`` grows, ``LinearSVC(loss="hinge")`` on
    the copies approaches :class:`~robustclf.linear.DropoutSVC`'s expected hinge loss. The copies
    come from the same :mod:`robustclf.noise` object; prediction uses clean inputs.

    Parameters
    ----------
    estimator : classifier, default=None
        Cloned and fitted on the copies; None means
        ``LinearSVC(loss="hinge", max_iter=20000, random_state=0)``.
    noise : str or NoiseModel, default="dropout"
    q : float or None, default=None
        Corruption level of the named noise model (0.5 for dropout when None).
    n_copies : int >= 1, default=16
        The paper's M.
    random_state : None, int or numpy Generator, default=None
        Seed of the corruption (the estimator's own randomness is its own parameter).

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone.
    noise_ : NoiseModel
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    """

    def __init__(self, estimator=None, *, noise="dropout", q: float | None = None,
                 n_copies: int = 16, random_state=None):
        self.estimator = estimator
        self.noise = noise
        self.q = q
        self.n_copies = n_copies
        self.random_state = random_state

    def _base_estimator(self):
        if self.estimator is not None:
            return self.estimator
        from sklearn.svm import LinearSVC

        return LinearSVC(loss="hinge", max_iter=20_000, random_state=0)

    def fit(self, X, y) -> ExplicitCorruptionClassifier:
        """Draw the copies and fit a clone of ``estimator`` on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.noise_ = make_noise(self.noise, self.q)
        X_c, y_c = explicit_corruption(X, y, noise=self.noise_, n_copies=self.n_copies,
                                       random_state=self.random_state)
        self.estimator_ = clone(self._base_estimator()).fit(X_c, y_c)
        self.classes_ = self.estimator_.classes_
        return self

    def _validated(self, X):
        check_is_fitted(self)
        return validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)

    def predict(self, X) -> np.ndarray:
        """Predicted labels of clean inputs."""
        X = self._validated(X)
        return self.estimator_.predict(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X) -> np.ndarray:
        """The fitted estimator's decision function."""
        X = self._validated(X)
        return self.estimator_.decision_function(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X) -> np.ndarray:
        """The fitted estimator's class probabilities."""
        X = self._validated(X)
        return self.estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
