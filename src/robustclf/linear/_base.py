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
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._blockwise import (
    BlockwiseScoreMixin,
    RowBlocks,
    blockwise_method,
    is_dask_collection,
)
from .._compat import LinearClassifierMixin
from .._convergence import warn_not_converged
from .._validation import check_magnitude, check_option, validate_data

__all__ = [
    "NAN_POLICIES",
    "ChunkReader",
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


@dataclass(frozen=True)
class ChunkReader:
    """How a row chunk of a dask fit is read: the in-memory validation, chunk by chunk.

    A dask collection is never validated as a whole (that would be a pass over data that may
    not fit in memory); each chunk is checked where it is read, with the same rules and
    messages as :meth:`LinearClassifierBase.fit` applies to an in-memory ``X``.

    Attributes
    ----------
    classes : ndarray
        ``classes_`` of the whole fit (every chunk's labels are among them).
    class_multipliers : ndarray of shape (n_classes,) or None
        ``class_weight`` of each class (None: all one).
    allow_nan : bool
        ``nan_policy == "absent"``: NaN entries are absent and read as zero.
    keep_absent : bool
        Leave NaN in place (``_fit_reads_absent``).
    """

    classes: np.ndarray
    class_multipliers: np.ndarray | None
    allow_nan: bool
    keep_absent: bool = False

    def read(self, Xb, yb, wb):
        """``(X, Y, sample_weight)`` of one chunk: float64 ``X`` (CSR if sparse) with absent
        entries zero, the ±1 targets of :func:`ovr_targets` and the row weights (or None)."""
        X = sp.csr_matrix(Xb, dtype=np.float64) if sp.issparse(Xb) else np.asarray(
            Xb, dtype=np.float64)
        values = X.data if sp.issparse(X) else X
        if not np.isfinite(values).all():
            if np.isinf(values).any():
                raise ValueError("Input X contains infinity or a value too large for float64.")
            if not self.allow_nan:
                raise ValueError("Input X contains NaN; with nan_policy='raise' NaN is an "
                                 "error (nan_policy='absent' reads it as an absent feature).")
        check_magnitude(X, lower=False)  # a chunk: the lower bound is the whole matrix's
        if not self.keep_absent:
            X = absent_as_zero(X)
        y = np.asarray(yb).ravel()
        codes = np.searchsorted(self.classes, y).clip(0, self.classes.size - 1)
        if not np.array_equal(self.classes[codes], y):
            raise ValueError("y changed while it was read: a label is not among classes_.")
        if self.classes.size == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[:, None]
        else:
            Y = np.where(codes[:, None] == np.arange(self.classes.size), 1.0, -1.0)
        weights = None
        if wb is not None:
            weights = np.asarray(wb, dtype=np.float64).ravel()
            if not np.isfinite(weights).all() or (weights < 0).any():
                raise ValueError("sample_weight must be finite and non-negative.")
        if self.class_multipliers is not None:
            multipliers = self.class_multipliers[codes]
            weights = multipliers if weights is None else weights * multipliers
        return X, Y, weights


class LinearClassifierBase(BlockwiseScoreMixin, LinearClassifierMixin, BaseEstimator):
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
        if is_dask_collection(X) or is_dask_collection(y):
            return self._fit_blockwise(X, y, sample_weight)
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

    @blockwise_method("scores")
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

    @blockwise_method("labels")
    def predict(self, X) -> np.ndarray:
        """Class of largest score (the sign of ``decision_function`` for two classes).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            Rows to classify; NaN entries are absent features (``nan_policy="absent"``). A
            dask array or DataFrame gives a lazy dask array, computed chunk by chunk.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        return super().predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = bool(self._accept_sparse)
        tags.input_tags.allow_nan = getattr(self, "nan_policy", "raise") == "absent"
        return tags

    # -- internals ---------------------------------------------------------------------------
    def _fit_blockwise(self, X, y, sample_weight):
        """Fit on a dask collection: the solver reads the row chunks where they are.

        Labels are collected in one pass over ``y`` (``classes_`` and, for
        ``class_weight="balanced"``, the class counts); ``X`` is validated chunk by chunk by a
        :class:`ChunkReader` as the solver reads it. The subclass's
        ``_fit_ovr_blockwise(data, reader)`` returns ``(coef, intercept)``.
        """
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but y is None.")
        solve = getattr(self, "_fit_ovr_blockwise", None)
        if solve is None:
            advice = ("train on the chunks with partial_fit (e.g. dask_ml.wrappers.Incremental)"
                      if hasattr(self, "partial_fit") else "compute X into memory first")
            raise TypeError(
                f"{type(self).__name__} cannot train on a dask collection: its solver is not a "
                f"sum over rows that could be evaluated chunk by chunk; {advice}. Prediction on "
                "dask arrays works for every fitted model.")
        data = RowBlocks.from_inputs(X, y, sample_weight)
        import dask

        labels, counts = dask.compute(*_unique_counts(data.y))
        check_classification_targets(labels)
        classes, _ = ovr_targets(labels, type(self).__name__)
        self._reset_features(data)
        reader = ChunkReader(classes, self._class_multipliers(classes, counts),
                             allow_nan=self._finiteness() == "allow-nan",
                             keep_absent=self._fit_reads_absent)
        coef, intercept = solve(data, reader)
        self.classes_ = classes
        self.coef_ = np.asarray(coef, dtype=np.float64).reshape(-1, data.shape[1])
        self.intercept_ = np.asarray(intercept, dtype=np.float64).reshape(-1)
        return self

    def _reset_features(self, data) -> None:
        """``n_features_in_`` and ``feature_names_in_`` from a dask input, as ``validate_data``
        sets them for an in-memory one."""
        self.n_features_in_ = data.shape[1]
        if data.feature_names is not None:
            self.feature_names_in_ = data.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def _class_multipliers(self, classes, counts):
        """``class_weight`` as one multiplier per class (None when there is none); ``counts``
        (the class frequencies, needed by ``"balanced"``) may be None for a dict."""
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None:
            return None
        if class_weight == "balanced":
            return counts.sum() / (classes.size * counts.astype(float))
        from sklearn.utils.class_weight import compute_class_weight

        return compute_class_weight(class_weight, classes=classes, y=classes)

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


def _unique_counts(y):
    """Lazy sorted labels of a dask vector and their counts."""
    import dask.array as da

    return da.unique(y, return_counts=True)
