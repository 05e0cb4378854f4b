"""What every ``partial_fit`` of the library's linear classifiers checks, in one place.

scikit-learn's convention (``SGDClassifier.partial_fit``): ``partial_fit(X, y, classes=None,
sample_weight=None)`` makes one pass over the given rows, continuing from the current state;
``classes`` lists every class of the stream and is required on the first call (a batch may
lack some classes); a later call may omit it or must repeat the same classes. Estimators whose
solver is online or first order (:class:`~robustclf.linear.DeletionRobustPerceptron`,
:class:`~robustclf.linear.DeletionRobustLP`, :class:`~robustclf.linear.FDROPClassifier`) mix
in :class:`PartialFitMixin` and keep only their own update. Because each call is an ordinary
``partial_fit``, dask-ml's ``Incremental`` streams the blocks of a dask array through them.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight

from .._validation import validate_data
from ._base import absent_as_zero

__all__ = ["PartialFitMixin", "signed_targets"]


def signed_targets(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """One-vs-rest ±1 targets of ``y`` for given ``classes``, shape (n_samples, n_problems).

    The convention of :func:`robustclf.linear._base.ovr_targets` (one column, positive for
    ``classes[1]``, with two classes; one column per class otherwise), for classes that are
    given rather than read from ``y``: a batch of a stream may lack some of the stream's classes.
    """
    if classes.shape[0] == 2:
        return np.where(y == classes[1], 1.0, -1.0)[:, None]
    return np.where(y[:, None] == classes[None, :], 1.0, -1.0)


def needs_whole_data(feature_values) -> bool:
    """Whether ``feature_values`` is a name resolved from the training data (``"mutual_info"``)."""
    return isinstance(feature_values, str) and feature_values == "mutual_info"


class PartialFitMixin:
    """The checks of a ``partial_fit`` batch (mixed into a :class:`~._base.LinearClassifierBase`).

    :meth:`_stream_batch` validates ``X`` (a CSR matrix stays sparse; NaN read as absent under
    ``nan_policy="absent"``), the labels against ``classes`` and the batch's row weights. It
    refuses ``feature_values="mutual_info"`` before the values are known: the values are the
    adversary's prices the model is trained against, and values computed from the first batch
    would make the model depend on how the stream is cut (a first batch may even lack a class),
    which ``fit`` on the same rows does not. Compute them once on the data (or a sample of it)
    with :func:`robustclf.feature_values.mutual_info_values` and pass the array, or call
    ``fit`` first (its values, computed on all its rows, are kept by later ``partial_fit``
    calls).
    """

    def _stream_batch(self, X, y, classes, sample_weight):
        """Validate one batch; returns ``(X, y, classes, weights, first)``.

        ``classes`` is the sorted array of the stream's classes (``classes_`` after the first
        call), ``weights`` the rows' ``sample_weight`` times a dict ``class_weight`` (None when
        all are one) and ``first`` whether the estimator had no classes yet (not fitted).
        """
        first = not hasattr(self, "classes_")
        name = type(self).__name__
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, reset=first,
                             ensure_all_finite=self._finiteness(), magnitude=True)
        X = absent_as_zero(X)
        check_classification_targets(y)
        if first:
            if classes is None:
                raise ValueError(f"classes must be passed on the first call to {name}."
                                 "partial_fit (every class of the stream).")
            if needs_whole_data(getattr(self, "feature_values", None)):
                raise ValueError(
                    "feature_values='mutual_info' needs the whole training set, which "
                    "partial_fit does not see: compute the values once with "
                    "robustclf.feature_values.mutual_info_values(X, y) on the data (or a "
                    "sample of it) and pass the array as feature_values, or call fit first.")
            classes = np.unique(classes)
            if classes.shape[0] < 2:
                raise ValueError(f"classes must contain at least two classes, got {classes}.")
        else:
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(f"classes={classes!r} differs from the classes of the first "
                                 f"call (or of fit), {self.classes_}.")
            classes = self.classes_
        unseen = np.setdiff1d(y, classes)
        if unseen.size:
            raise ValueError(f"y contains labels {unseen} not in classes {classes}.")
        return X, y, classes, self._stream_weights(X, y, classes, sample_weight), first

    def _stream_weights(self, X, y, classes, sample_weight):
        """Row weights of a batch (None when all one).

        ``class_weight`` must be None or a dict here: "balanced" needs the class frequencies
        of the whole training set, which a batch of a stream does not have.
        """
        class_weight = getattr(self, "class_weight", None)
        if sample_weight is None and class_weight is None:
            return None
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                       ensure_non_negative=True)
        if class_weight is not None:
            if isinstance(class_weight, str):
                raise ValueError(
                    f"class_weight={class_weight!r} needs the class frequencies of the "
                    "whole training set: use fit, or give partial_fit a dict of class weights.")
            per_class = self._class_multipliers(classes, counts=None)
            weights = weights * per_class[np.searchsorted(classes, y)]
        if not weights.any():
            raise ValueError("sample_weight (times class_weight) is zero for every row of the "
                             "batch; at least one row must have a positive weight.")
        return None if np.all(weights == 1.0) else weights
