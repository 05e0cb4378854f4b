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

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    has_fit_parameter,
)

from .._blockwise import BlockwiseScoreMixin, blockwise_method
from .._convergence import warn_not_converged
from .._validation import (
    check_bool,
    check_generator,
    check_labels,
    check_max_iter,
    check_option,
    check_positive,
    validate_data,
)
from ..noise import NoiseModel, make_noise
from . import _dropout_solvers as solvers
from ._base import (
    NAN_POLICIES,
    LinearClassifierBase,
    absent_as_zero,
    warn_if_not_converged,
)
from ._dropout_losses import QuadraticLoss

__all__ = ["MCFClassifier", "ExplicitCorruptionClassifier", "explicit_corruption"]

_MCF_LOSSES = ("quadratic", "logistic")
#: MCFClassifier's dropout level when ``q`` is None (see its *Default q* note)
_DEFAULT_Q = 0.2


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
        Corruption level of the named noise model (see :func:`robustclf.noise.make_noise`).
        None: q = 0.2 for ``"dropout"``, the noise model's own default otherwise.
        *Changed in 0.1:* None meant q = 0.5 for dropout, which cost 1.1 to 3.8 points of clean
        error against q = 0 (digits 0.100 against 0.062) and was not more robust at 25 %
        deletion; see Notes, *Default q*.
    fit_intercept : bool, default=True
        Fit an uncorrupted, unregularised bias.
    tol : float > 0, default=1e-6
        Optimality tolerance on the *relative gradient norm* ``max_k ||g_k(theta)||_inf /
        ||g_k(0)||_inf``, the gradient of each binary problem's objective at the returned point
        over its gradient at the start ``theta = 0`` (the projected gradient where the weights
        are bounded, Laplace noise). ``loss="logistic"``: L-BFGS-B stops when it is reached (its
        ``pgtol``; the objective-change test is switched off). ``loss="quadratic"``: the
        closed-form solve is checked against it (a conjugate-gradient solve of sparse X could
        stop short). Before issue 14 ``tol`` was L-BFGS-B's relative objective decrease
        (``ftol``), with the same default 1e-6; at that default the digits objective was 1e-5
        from its optimum. Since the gradient is scaled by its value at zero, the same ``tol``
        means the same thing for any ``C``, number of samples and feature scale.
    max_iter : int >= 1, default=1000
        Maximum L-BFGS iterations (logistic loss). Reaching it, or an abnormal termination of
        L-BFGS-B (a failed line search), raises a ``ConvergenceWarning`` with the relative
        gradient norm reached.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, scikit-learn's meaning: the loss ``L_n`` of every row of class
        ``k`` is multiplied by ``class_weight[k]`` (in every one-vs-all problem, like the
        row's own ``sample_weight``); ``"balanced"`` uses ``n_samples / (n_classes * n_k)``;
        None weights every class one. Multiplied with ``fit``'s ``sample_weight``.
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means. ``"absent"``: the feature is absent from that row and
        contributes nothing, ``w_j x_j = 0``, at fit and at prediction time (it is read as 0,
        the value dropout writes); behind a ``StandardScaler`` in a pipeline that is the
        training mean. ``"raise"``: NaN is rejected with scikit-learn's usual error.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    noise_ : NoiseModel
    n_iter_ : ndarray of shape (1,) or (n_classes,)
        L-BFGS iterations (shared by all classes, which are solved jointly); 1 for the
        closed-form quadratic solve.
    objective_ : ndarray of shape (1,) or (n_classes,)
        Final objective of each binary problem.
    gradient_norm_ : ndarray of shape (1,) or (n_classes,)
        Relative (projected) gradient norm of each binary problem at the returned point, the
        measure compared with ``tol``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)

    Notes
    -----
    ``fit(X, y, sample_weight)`` multiplies each row's ``L_n`` by its weight (a per-row ``C``):
    an integer weight k gives the fit of k copies of the row, weight 0 that of the data
    without it. The quadratic solve then factorises ``X̄^T diag(s) X̄`` plus the weighted
    variance; the logistic objective and gradient weight each row's term.

    *Default q* (0.2 under dropout; 0.5 before 0.1). Chosen with the Dropout-SVM's rule (see
    :class:`~robustclf.DropoutSVC`, *Defaults*) on the default quadratic loss: digits /
    16, breast cancer Wisconsin / 10, spambase over each feature's maximum and votes, five
    stratified 50/50 splits, 0 / 25 / 50 % of the test entries deleted at random (NaN, three
    draws), q in {0, .05, .1, .2, .3, .5}, C in {1, 10, 100}; among the settings within 2
    points of the best clean error on every data set, the smallest worst-case regret of the
    error averaged over the levels: q = 0.2 (1.3 points, breast cancer), the same at every C,
    so C stays 1. Mean errors at 0 / 25 / 50 % (old q = 0.5 in brackets): digits 0.073 /
    0.184 / 0.355 (0.100 / 0.188 / 0.330), breast 0.046 / 0.109 / 0.326 (0.057 / 0.146 /
    0.336), spambase 0.125 / 0.187 / 0.281 (0.142 / 0.205 / 0.298), votes 0.061 / 0.094 /
    0.172 (0.080 / 0.094 / 0.151). The quadratic loss itself stays behind the hinge: on
    breast cancer and spambase this default is worse than ``LinearSVC()`` at every deletion
    level (e.g. spambase at 50 %: 0.281 against 0.229), on digits it is worse clean (0.073
    against 0.039) and better deleted; ``loss="logistic"`` is the better model (digits
    0.061 / 0.131 / 0.293 at q = 0.2, C = 10) at 20-40 times the fit time. Measurements:
    ``benchmarks/bench_defaults_quality.py``.

    References
    ----------
    L. van der Maaten, M. Chen, S. Tyree and K. Q. Weinberger. Learning with marginalized
    corrupted features. ICML 2013.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustclf import MCFClassifier
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = MCFClassifier(q=0.3).fit(X, y)
    >>> clf.coef_.shape
    (1, 5)
    >>> round(clf.score(X, y), 2)
    0.9
    """

    def __init__(self, *, loss: str = "quadratic", C: float = 1.0, noise="dropout",
                 q: float | None = None, fit_intercept: bool = True, tol: float = 1e-6,
                 max_iter: int = 1000,
                 class_weight=None, nan_policy="absent"):
        self.loss = loss
        self.C = C
        self.noise = noise
        self.q = q
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.nan_policy = nan_policy

    def _check_params(self) -> None:
        check_option(self.loss, "loss", _MCF_LOSSES)
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        check_bool(self.fit_intercept, "fit_intercept")

    def _noise(self):
        return make_noise(self.noise, _DEFAULT_Q if self.q is None and
                          isinstance(self.noise, str) and self.noise == "dropout" else self.q)

    def _fit_ovr(self, X, Y, sample_weight=None):
        noise = self._noise()
        noise._check_input_values(X)
        self.noise_ = noise
        if self.loss == "quadratic":
            var = solvers.Variance(*noise._variance_terms(X), X.shape)
            res = solvers.least_squares(X, Y, var, QuadraticLoss(float(self.C)),
                                        fit_intercept=bool(self.fit_intercept),
                                        sample_weight=sample_weight)
            self.n_iter_, self.objective_ = res.n_iter, np.array([h[-1] for h in res.objective])
            coef = np.asarray(res.coef).reshape(Y.shape[1], X.shape[1])
            intercept = np.asarray(res.intercept, dtype=float).reshape(Y.shape[1])
            self.gradient_norm_ = _quadratic_gradient_norm(X, Y, var, float(self.C), coef,
                                                           intercept, bool(self.fit_intercept),
                                                           sample_weight)
            warn_if_not_converged(
                self, self.gradient_norm_ <= self.tol, 1, measure=self.gradient_norm_,
                measure_name="relative gradient norm", tol=self.tol,
                reason="the linear solve of the normal equations was inexact")
            return coef, intercept
        if noise.keeps_sparsity and not sp.issparse(X):
            X = sp.csr_matrix(X)       # the dropout cumulants only touch non-zero entries
        # K_n(-y_nk w_k) for all columns at once, prepared once (see noise._SignedCumulant)
        cumulant = noise._signed_cumulant(X, Y > 0)
        sw = None if sample_weight is None else sample_weight[:, None]   # row weights
        C = float(self.C)
        return self._fit_logistic(
            lambda W, b: _logistic_terms(cumulant, Y, sw, C, W, b), noise, *X.shape, Y.shape[1])

    def _fit_ovr_blockwise(self, data, reader):
        """Fit on the row chunks of a dask collection: the same objectives, their data terms
        summed chunk by chunk (:meth:`robustclf._blockwise.RowBlocks.reduce`).

        MCF-quadratic is solved by the blockwise Newton solver of the dropout models (one
        exact Newton step: the objective is quadratic), MCF-logistic by the same L-BFGS-B as
        in memory, each function evaluation one pass over the data.
        """
        from . import _dropout_blockwise as blockwise

        noise = self._noise()
        self.noise_ = noise
        n_columns = 1 if reader.classes.size == 2 else reader.classes.size
        if self.loss == "quadratic":
            chunk = blockwise._Chunk(reader, noise, bool(self.fit_intercept))
            solve = (blockwise.newton if data.shape[1] <= blockwise.MAX_HESSIAN_FEATURES
                     else blockwise.lbfgs)
            res = solve(data, chunk, QuadraticLoss(float(self.C)), n_columns,
                        tol=float(self.tol), max_iter=int(self.max_iter))
            # the starting point is the least-squares solve itself: one linear solve, as in memory
            self.n_iter_ = np.maximum(res.n_iter, 1)
            self.objective_ = np.array([h[-1] for h in res.objective])
            self.gradient_norm_ = res.measure
            warn_if_not_converged(self, res.converged, self.max_iter, measure=res.measure,
                                  measure_name="relative gradient norm", tol=self.tol)
            return res.coef, res.intercept
        C = float(self.C)

        def terms(W, b):
            return data.reduce(_logistic_chunk_terms, reader, noise, C, W, b)
        return self._fit_logistic(terms, noise, *data.shape, n_columns)

    def _fit_logistic(self, terms, noise: NoiseModel, n: int, d: int, K: int):
        """L-BFGS-B on MCF-logistic; ``terms(W, b)`` gives the data term's value per column and
        its gradients in ``W`` and ``b`` (:func:`_logistic_terms`, in memory or summed over
        chunks)."""
        fit_b = bool(self.fit_intercept)
        last = {}

        def fun(x):
            W, b = x[: d * K].reshape(d, K), (x[d * K:] if fit_b else np.zeros(K))
            losses, grad_W, grad_b = terms(W, b)
            f = (W * W).sum(axis=0) + losses
            last["f"] = f
            return f.sum(), np.concatenate([(2.0 * W + grad_W).ravel(), grad_b[: K * fit_b]])

        radius = noise._mgf_radius() * (1.0 - 1e-9)
        lower = np.r_[np.full(d * K, -radius), np.full(K * fit_b, -np.inf)]
        upper = -lower
        bounds = Bounds(lower, upper) if np.isfinite(radius) else None
        x0 = np.zeros(d * K + K * fit_b)
        scale = _per_class_inf_norm(fun(x0)[1], d, K, fit_b)   # ||g_k(0)||_inf
        scale = np.where(scale > 0.0, scale, 1.0)
        # pgtol is absolute: the smallest class scale makes every class meet its relative tol;
        # ftol=0 switches off the objective-change test (it stopped 1e-5 from the optimum)
        res = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=bounds,
                       options={"maxiter": int(self.max_iter), "ftol": 0.0,
                                "gtol": float(self.tol) * float(scale.min()), "maxls": 50})
        _, grad = fun(res.x)
        step = np.clip(res.x - grad, lower, upper) - res.x           # projected gradient
        self.gradient_norm_ = _per_class_inf_norm(step, d, K, fit_b) / scale
        self.n_iter_ = np.full(K, res.nit)
        self.objective_ = last["f"]
        if res.status == 1:
            reason = f"max_iter={self.max_iter} L-BFGS iterations were reached"
        else:
            reason = f"L-BFGS-B stopped (status {res.status}: {_text(res.message)})"
        warn_if_not_converged(self, self.gradient_norm_ <= self.tol, self.max_iter,
                              measure=self.gradient_norm_,
                              measure_name="relative projected gradient norm", tol=self.tol,
                              reason=reason)
        return res.x[: d * K].reshape(d, K).T, (res.x[d * K:] if fit_b else np.zeros(K))


def _logistic_terms(cumulant, Y, sw, C: float, W, b):
    """MCF-logistic's data term ``C sum_n s_n log(1 + exp(K_n(-y_n w) - y_n b))`` per column,
    and its gradients in ``W`` and ``b`` (``sw`` the row weights as a column, or None)."""
    z = cumulant.value(W) - Y * b
    losses = np.logaddexp(0.0, z)
    A = C * expit(z)                   # d loss / d z, times the row weights
    if sw is not None:
        losses, A = sw * losses, sw * A
    return C * losses.sum(axis=0), cumulant.grad(W, A), -(A * Y).sum(axis=0)


def _logistic_chunk_terms(Xb, yb, wb, reader, noise, C, W, b):
    """:func:`_logistic_terms` of one row chunk of a dask fit."""
    X, Y, weights = reader.read(Xb, yb, wb)
    noise._check_input_values(X)
    if noise.keeps_sparsity and not sp.issparse(X):
        X = sp.csr_matrix(X)
    sw = None if weights is None else weights[:, None]
    return _logistic_terms(noise._signed_cumulant(X, Y > 0), Y, sw, C, W, b)


def _text(message) -> str:
    return message.decode() if isinstance(message, bytes) else str(message)


def _per_class_inf_norm(v: np.ndarray, d: int, K: int, fit_b: bool) -> np.ndarray:
    """``max |v|`` over each class's block of the stacked ``(W.ravel(), b)`` vector."""
    norms = np.abs(v[: d * K].reshape(d, K)).max(axis=0, initial=0.0)
    return np.maximum(norms, np.abs(v[d * K:])) if fit_b else norms


def _quadratic_gradient_norm(X, Y, var, C: float, coef: np.ndarray, intercept: np.ndarray,
                             fit_b: bool, sample_weight=None) -> np.ndarray:
    """Relative gradient ``||g_k(theta)||_inf / ||g_k(0)||_inf`` of MCF-quadratic per class.

    The objective ``||w||^2 + C sum_n s_n ((y_n - w.x_n - b)^2 + sum_d Var[x̃_nd] w_d^2)``
    (row weights ``s_n``, all one when ``sample_weight`` is None) has the gradient
    ``2 w + 2 C (X^T (s * (X w + b - y)) + v * w)`` in ``w``, ``v = sum_n s_n Var[x̃_n]``, and
    ``2 C sum_n s_n (w.x_n + b - y_n)`` in ``b``.
    """
    W = coef.T
    resid = np.asarray(X @ W) + intercept - Y
    if sample_weight is None:
        v = var.adjoint(np.ones((X.shape[0], 1)))
        sY = Y
    else:
        s = sample_weight[:, None]
        v, resid, sY = var.adjoint(s), s * resid, s * Y
    g_w = 2.0 * W + 2.0 * C * (np.asarray(X.T @ resid) + v * W)
    g0_w = -2.0 * C * np.asarray(X.T @ sY)
    norm = np.abs(g_w).max(axis=0, initial=0.0)
    norm0 = np.abs(g0_w).max(axis=0, initial=0.0)
    if fit_b:
        norm = np.maximum(norm, np.abs(2.0 * C * resid.sum(axis=0)))
        norm0 = np.maximum(norm0, np.abs(2.0 * C * sY.sum(axis=0)))
    return norm / np.where(norm0 > 0.0, norm0, 1.0)


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


def _fit_reporting(owner, estimator, X, y, sample_weight=None):
    """Fit ``estimator``; re-emit its ``ConvergenceWarning`` (if any) in ``owner``'s name.

    ``sample_weight`` is passed to ``fit`` only when given. Other warnings pass through
    unchanged.
    """
    weights = {} if sample_weight is None else {"sample_weight": sample_weight}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y, **weights)
    for w in caught:
        if issubclass(w.category, ConvergenceWarning):
            n_iter = np.max(getattr(estimator, "n_iter_", np.nan))
            warn_not_converged(
                owner, reason=f"the wrapped {type(estimator).__name__} stopped after "
                f"{n_iter} iterations ({w.message})",
                advice="Increase the wrapped estimator's max_iter.")
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return estimator


def _estimator_has(attr):
    def check(self):
        est = getattr(self, "estimator_", None) or self._base_estimator()
        return hasattr(est, attr)
    return check


class ExplicitCorruptionClassifier(BlockwiseScoreMixin, MetaEstimatorMixin, ClassifierMixin,
                                   BaseEstimator):
    """Any classifier trained on ``n_copies`` corrupted copies of the data (explicit corruption).

    The finite-sample counterpart of the marginalised fits (Chen et al. 2014, Eq. 2; "virtual"
    examples of Burges & Schölkopf 1997): as ``n_copies`` grows, ``LinearSVC(loss="hinge")`` on
    the copies approaches :class:`~robustclf.DropoutSVC`'s expected hinge loss. The copies
    come from the same :mod:`robustclf.noise` object; prediction uses clean inputs.

    It is a meta-estimator, not a linear model: ``class_weight`` belongs to the wrapped
    estimator (e.g. ``LinearSVC(class_weight="balanced")``).

    Parameters
    ----------
    estimator : classifier, default=None
        Cloned and fitted on the copies; None means
        ``LinearSVC(loss="hinge", max_iter=1_000_000, random_state=0)``. liblinear's dual
        coordinate descent on the hinge loss stops when its projected-gradient range is below
        ``tol`` (1e-4); on digits (1,200 rows x 16 copies, 10 classes) it needs up to 1.3e5
        passes, so the former default ``max_iter=20000`` (before issue 14) stopped short on 9
        of 10 classes. A ``ConvergenceWarning`` of the fitted estimator is re-emitted naming
        this class.
    noise : str or NoiseModel, default="dropout"
    q : float or None, default=None
        Corruption level of the named noise model (0.5 for dropout when None).
    n_copies : int >= 1, default=16
        The paper's M.
    random_state : None, int or numpy Generator, default=None
        Seed of the corruption (the estimator's own randomness is its own parameter).
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means. ``"absent"``: the feature is absent from that row; it is
        written as 0 -- the value the dropout corruption writes for a deleted feature, and a
        zero contribution ``w_j x_j`` for a linear ``estimator`` -- before the copies are
        drawn at fit time and before ``estimator_`` sees the rows at prediction time. Behind
        a ``StandardScaler`` in a pipeline that is the training mean. ``"raise"``: NaN is
        rejected with scikit-learn's usual error.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone.
    noise_ : NoiseModel
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_iter_ : int or ndarray
        The fitted estimator's ``n_iter_`` (None when it has none).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf import ExplicitCorruptionClassifier
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = ExplicitCorruptionClassifier(LogisticRegression(), q=0.3, n_copies=8,
    ...                                    random_state=0).fit(X, y)
    >>> clf.classes_
    array([0, 1])
    >>> round(clf.score(X, y), 2)
    0.92
    """

    def __init__(self, estimator=None, *, noise="dropout", q: float | None = None,
                 n_copies: int = 16, random_state=None, nan_policy="absent"):
        self.estimator = estimator
        self.noise = noise
        self.q = q
        self.n_copies = n_copies
        self.random_state = random_state
        self.nan_policy = nan_policy

    def _base_estimator(self):
        if self.estimator is not None:
            return self.estimator
        from sklearn.svm import LinearSVC

        return LinearSVC(loss="hinge", max_iter=1_000_000, random_state=0)

    def fit(self, X, y, sample_weight=None) -> ExplicitCorruptionClassifier:
        """Draw the copies and fit a clone of ``estimator`` on them.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; never modified. NaN marks an absent feature (``nan_policy``).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights, repeated for each of the ``n_copies`` copies (every
            copy of a row carries the row's weight) and passed to the estimator's ``fit``,
            which must accept ``sample_weight``. ``None`` fits without weights. A weight k is
            *not* the same as k copies of the row: those would be corrupted independently,
            k times as many draws; a weight scales one set of ``n_copies`` draws (the two
            agree as ``n_copies`` grows, and exactly without corruption).

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             ensure_all_finite=self._finiteness())
        check_classification_targets(y)
        base = self._base_estimator()
        if sample_weight is not None:
            if not has_fit_parameter(base, "sample_weight"):
                raise ValueError(
                    f"sample_weight was given but the estimator {type(base).__name__} does not "
                    "accept sample_weight in fit; give an estimator that does, or None.")
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                                 ensure_non_negative=True)
            sample_weight = np.tile(sample_weight, check_max_iter(self.n_copies, "n_copies"))
        self.noise_ = make_noise(self.noise, self.q)
        X_c, y_c = explicit_corruption(absent_as_zero(X), y, noise=self.noise_,
                                       n_copies=self.n_copies, random_state=self.random_state)
        self.estimator_ = _fit_reporting(self, clone(base), X_c, y_c, sample_weight)
        self.classes_ = self.estimator_.classes_
        self.n_iter_ = getattr(self.estimator_, "n_iter_", None)
        return self

    def _finiteness(self):
        """``ensure_all_finite`` of scikit-learn's validation under ``nan_policy``."""
        policy = check_option(self.nan_policy, "nan_policy", NAN_POLICIES)
        return "allow-nan" if policy == "absent" else True

    def _validated(self, X):
        """Validated rows for ``estimator_``, absent (NaN) entries written as 0."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False,
                          ensure_all_finite=self._finiteness())
        return absent_as_zero(X)

    @blockwise_method("labels")
    def predict(self, X) -> np.ndarray:
        """Predicted labels of clean inputs (NaN: absent, read as 0 under ``nan_policy``)."""
        X = self._validated(X)
        return self.estimator_.predict(X)

    @available_if(_estimator_has("decision_function"))
    @blockwise_method("scores")
    def decision_function(self, X) -> np.ndarray:
        """The fitted estimator's decision function (NaN read as 0 under ``nan_policy``)."""
        X = self._validated(X)
        return self.estimator_.decision_function(X)

    @available_if(_estimator_has("predict_proba"))
    @blockwise_method("columns")
    def predict_proba(self, X) -> np.ndarray:
        """The fitted estimator's class probabilities (NaN read as 0 under ``nan_policy``)."""
        X = self._validated(X)
        return self.estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = self.nan_policy == "absent"
        return tags
