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
* :func:`warn_if_not_converged` -- one ``ConvergenceWarning`` wording for every solver.

A method issue adds a classifier by subclassing :class:`LinearClassifierBase` and writing
``_check_params`` and ``_fit_ovr``; a method that solves all classes jointly still receives all
columns at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets

from .._compat import LinearClassifierMixin, validate_data
from .._convergence import warn_not_converged

__all__ = [
    "LinearClassifierBase",
    "ovr_targets",
    "warn_if_not_converged",
]


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
    ``_fit_ovr(self, X, Y) -> (coef, intercept)``
        fit all binary problems; ``X`` is the validated float64 array or CSR matrix, ``Y`` the
        ±1 matrix of :func:`ovr_targets`; return ``coef`` of shape (n_columns, n_features) and
        ``intercept`` of shape (n_columns,). Further fitted attributes may be set on ``self``.

    Class attributes
    ----------------
    _accept_sparse : bool or sequence of str
        Passed to scikit-learn's ``validate_data`` (sparse input is converted to CSR).
    _accept_nan : bool
        Whether NaN is allowed in X (for missing-aware methods).
    """

    _accept_sparse: bool | Sequence[str] = ("csr",)
    _accept_nan: bool = False

    def fit(self, X, y) -> LinearClassifierBase:
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; never modified.
        y : array-like of shape (n_samples,)
            Class labels (any two or more distinct values).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._check_params()
        X, y = validate_data(
            self, X, y, accept_sparse=self._accept_sparse, dtype=np.float64,
            ensure_all_finite="allow-nan" if self._accept_nan else True,
        )
        check_classification_targets(y)
        classes, Y = ovr_targets(y, type(self).__name__)
        coef, intercept = self._fit_ovr(X, Y)
        self.classes_ = classes
        self.coef_ = np.asarray(coef, dtype=np.float64).reshape(Y.shape[1], X.shape[1])
        self.intercept_ = np.asarray(intercept, dtype=np.float64).reshape(Y.shape[1])
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.input_tags.allow_nan = self._accept_nan
        return tags

    def _check_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_ovr(self, X, Y):  # pragma: no cover - abstract
        raise NotImplementedError
