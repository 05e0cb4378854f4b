"""Plumbing shared by the library's linear classifiers.

Prediction is written once, in scikit-learn's :class:`~sklearn.linear_model._base.
LinearClassifierMixin`: ``decision_function``, ``predict`` and the one-vs-rest
``_predict_proba_lr`` need only ``coef_``, ``intercept_`` and ``classes_``. What remains common to
every linear method of the library lives here:

* :func:`ovr_targets` -- labels to ``classes_`` and a ±1 target matrix, one column per binary
  problem (one column for two classes, one-vs-rest columns otherwise);
* :class:`LinearClassifierBase` -- the template ``fit``: validate the data, encode the labels,
  call the subclass's ``_fit_ovr(X, Y)`` on the ±1 columns, store ``coef_`` and ``intercept_``
  with scikit-learn's shapes;
* :func:`warn_if_not_converged` -- one ``ConvergenceWarning`` wording for every solver;
* :func:`absent_as_zero` -- the one meaning of NaN for every linear model: the feature is
  absent for that row, so its contribution ``w_j x_j`` is zero (at fit and at prediction time);
* row weights -- ``sample_weight`` times the ``class_weight`` of each row's class, handed to
  ``_fit_ovr`` (``None`` when every weight is one, so unweighted solvers keep their fast path).

A method issue adds a classifier by subclassing :class:`LinearClassifierBase` and writing
``_check_params`` and ``_fit_ovr``; a method that solves all classes jointly still receives all
columns at once. Subclasses declare ``nan_policy`` and ``class_weight`` in their ``__init__``
(scikit-learn reads parameters from the signature); the base class validates and applies them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._compat import LinearClassifierMixin, validate_data
from .._convergence import warn_not_converged
from .._validation import check_option

__all__ = [
    "NAN_POLICIES",
    "LinearClassifierBase",
    "absent_as_zero",
    "ovr_targets",
    "warn_if_not_converged",
]

#: Values of every estimator's ``nan_policy`` parameter.
NAN_POLICIES = ("absent", "raise")


def absent_as_zero(X):
    """``X`` with its NaN entries (absent features) replaced by zero, ``X`` itself untouched.

    For a linear model ``f(x) = w^T x + b`` a zero entry contributes nothing, so this is
    Dekel & Shamir's deletion (2008, Eq. 1: the deleted coordinates are set to zero) and the
    dropout corruption of Chen et al. (2014) applied to exactly the absent entries. Behind a
    ``StandardScaler`` in a pipeline (which passes NaN through) zero in the model's input space
    is the training mean in the raw space.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Validated float data; NaN marks absent entries.

    Returns
    -------
    X : ndarray or sparse matrix
        The same object when it holds no NaN, otherwise a copy with NaN set to zero (stored
        NaN entries of a sparse matrix are removed).
    """
    if sp.issparse(X):
        absent = np.isnan(X.data)
        if not absent.any():
            return X
        X = X.copy()
        X.data[absent] = 0.0
        X.eliminate_zeros()
        return X
    absent = np.isnan(X)
    return np.where(absent, 0.0, X) if absent.any() else X


def ovr_targets(y: np.ndarray, name: str = "This classifier") -> tuple[np.ndarray, np.ndarray]:
    """Classes and the ±1 target matrix of the one-vs-rest binary problems.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Labels of any type with at least two distinct values.
    name : str, default="This classifier"
        Who needs the labels, for the error message.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        Sorted unique labels (``classes_``).
    Y : ndarray of shape (n_samples, n_columns), float64
        ``+1`` where the sample belongs to the column's positive class, ``-1`` otherwise. With
        two classes there is one column, positive for ``classes[1]`` (scikit-learn's
        convention for ``decision_function``); otherwise column ``k`` is class ``classes[k]``
        against the rest.
    """
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"{name} needs samples of at least 2 classes in the data, but the data "
            f"contains only one class: {classes[0] if classes.size else None!r}."
        )
    if classes.size == 2:
        return classes, np.where(codes == 1, 1.0, -1.0)[:, None]
    return classes, np.where(codes[:, None] == np.arange(classes.size), 1.0, -1.0)


def warn_if_not_converged(estimator, converged: np.ndarray, max_iter: int, *,
                          measure=None, measure_name: str | None = None,
                          tol: float | None = None, reason: str | None = None) -> None:
    """Emit scikit-learn's ``ConvergenceWarning`` if any binary problem did not converge.

    Parameters
    ----------
    estimator : estimator
    converged : array-like of bool
        Whether each binary problem met its optimality criterion.
    max_iter : int
        The iteration limit (named in the message when ``reason`` is None).
    measure, measure_name, tol : optional
        The optimality measure of each problem at the returned point, its name and target;
        the largest value among the problems that did not converge is reported.
    reason : str or None
        Why the solver stopped (default: ``max_iter`` was reached).
    """
    converged = np.asarray(converged, dtype=bool).ravel()
    if converged.all():
        return
    if measure is not None:
        measure = np.broadcast_to(np.asarray(measure, dtype=float).ravel(),
                                  converged.shape)[~converged]
    warn_not_converged(
        estimator, reason=reason or f"max_iter={max_iter} iterations were reached",
        measure_name=measure_name, measure=measure, tol=tol,
        n_failed=int(np.count_nonzero(~converged)), n_problems=converged.size,
        advice="Increase max_iter, or scale the data.", stacklevel=4)


class LinearClassifierBase(LinearClassifierMixin, BaseEstimator):
    """Base of the library's linear classifiers: a template ``fit`` and prediction from ``coef_``.

    Subclasses implement

    ``_check_params(self) -> None``
        validate hyper-parameters (raise ``ValueError`` naming the parameter);
    ``_fit_ovr(self, X, Y, sample_weight) -> (coef, intercept)``
        fit all binary problems; ``X`` is the validated float64 array or CSR matrix (absent
        entries already zero), ``Y`` the ±1 matrix of :func:`ovr_targets`, ``sample_weight``
        the non-negative row weights or ``None`` (all ones); return ``coef`` of shape
        (n_columns, n_features) and ``intercept`` of shape (n_columns,). Further fitted
        attributes may be set on ``self``.

    and declare the parameters ``nan_policy`` and ``class_weight`` in ``__init__``.

    Class attributes
    ----------------
    _accept_sparse : bool or sequence of str
        Passed to scikit-learn's ``validate_data`` in ``fit`` (sparse input is converted to
        CSR). Prediction accepts CSR input whatever the value.
    _supports_sample_weight : bool
        Whether ``_fit_ovr`` honours row weights; when False, ``fit`` refuses weights other
        than all ones with a clear error.
    _fit_reads_absent : bool
        When True, ``_fit_ovr`` receives ``X`` with its NaN (absent) entries intact and gives
        absence at fit time its method's meaning (documented by the subclass); prediction
        still drops the absent terms ``w_j x_j``. Default False: absent entries arrive as 0.
    """

    _accept_sparse: bool | Sequence[str] = ("csr",)
    _supports_sample_weight: bool = True
    _fit_reads_absent: bool = False

    def fit(self, X, y, sample_weight=None) -> LinearClassifierBase:
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; never modified. With ``nan_policy="absent"`` NaN marks a feature
            absent from a row and contributes nothing (it is read as zero).
        y : array-like of shape (n_samples,)
            Class labels (any two or more distinct values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights: the loss of each row is multiplied by its weight (and by
            the ``class_weight`` of its class), so that an integer weight k acts as k copies
            of the row. ``None`` gives every row weight one.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._check_params()
        X, y = validate_data(
            self, X, y, accept_sparse=self._accept_sparse, dtype=np.float64,
            ensure_all_finite=self._finiteness(),
        )
        check_classification_targets(y)
        classes, Y = ovr_targets(y, type(self).__name__)
        weights = self._row_weights(X, y, sample_weight)
        coef, intercept = self._fit_ovr(X if self._fit_reads_absent else absent_as_zero(X),
                                        Y, weights)
        self.classes_ = classes
        self.coef_ = np.asarray(coef, dtype=np.float64).reshape(Y.shape[1], X.shape[1])
        self.intercept_ = np.asarray(intercept, dtype=np.float64).reshape(Y.shape[1])
        return self

    def decision_function(self, X) -> np.ndarray:
        """Confidence scores ``X @ coef_.T + intercept_``, absent (NaN) features contributing 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows to score. With ``nan_policy="absent"`` (default) a NaN entry means the feature
            is absent from that row: its term ``w_j x_j`` is dropped. With ``"raise"`` NaN is
            an error.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Signed distance to the hyperplane of ``classes_[1]`` for two classes, one column
            per class otherwise.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse="csr",
                          dtype=(np.float64, np.float32), ensure_all_finite=self._finiteness())
        scores = safe_sparse_dot(absent_as_zero(X), self.coef_.T, dense_output=True)
        scores = scores + self.intercept_
        return scores.ravel() if scores.shape[1] == 1 else scores

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.input_tags.allow_nan = getattr(self, "nan_policy", "raise") == "absent"
        return tags

    # -- internals ---------------------------------------------------------------------------
    def _finiteness(self):
        """``ensure_all_finite`` of scikit-learn's validation under ``nan_policy``."""
        policy = check_option(getattr(self, "nan_policy", "raise"), "nan_policy", NAN_POLICIES)
        return "allow-nan" if policy == "absent" else True

    def _row_weights(self, X, y, sample_weight):
        """``sample_weight`` times the class weight of each row, or ``None`` when all are one."""
        class_weight = getattr(self, "class_weight", None)
        if sample_weight is None and class_weight is None:
            return None
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                       ensure_non_negative=True)
        if class_weight is not None:
            weights = weights * compute_sample_weight(class_weight, y)
        if not weights.any():
            raise ValueError("sample_weight (times class_weight) is zero for every row; at "
                             "least one row must have a positive weight.")
        weighted = np.unique(y[weights > 0])
        if weighted.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs rows of at least 2 classes with a positive "
                "sample_weight (times class_weight), but only the rows of class "
                f"{weighted[0]!r} have one.")
        if np.all(weights == 1.0):
            return None
        if not self._supports_sample_weight:
            raise ValueError(f"{type(self).__name__} does not support sample_weight or "
                             "class_weight yet; give None.")
        return weights

    def _check_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_ovr(self, X, Y, sample_weight):  # pragma: no cover - abstract
        raise NotImplementedError
