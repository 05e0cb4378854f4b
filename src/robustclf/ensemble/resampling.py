"""Boosting by resampling: give sample weights to learners that do not accept them."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_generator

__all__ = ["WeightResamplingClassifier"]


def _estimator_has(attr):
    return lambda self: hasattr(self.estimator, attr)


class WeightResamplingClassifier(ClassifierMixin, BaseEstimator):
    """Fit a classifier on a resample drawn in proportion to the sample weights.

    AdaBoost needs ``fit(X, y, sample_weight)``. For learners without it (k-nearest neighbours)
    boosting by resampling (Freund & Schapire) draws ``n_samples`` rows with replacement,
    row ``i`` with probability ``sample_weight[i] / sum(sample_weight)``, and fits the learner on
    them. Wrap the learner with this class and give it to
    :class:`sklearn.ensemble.AdaBoostClassifier`.

    Parameters
    ----------
    estimator : classifier
        Cloned, never modified.
    random_state : None, int or numpy Generator, default=None
        Seeds the resampling (AdaBoost sets it per round).

    Attributes
    ----------
    estimator_ : classifier
        The learner fitted on the resample.
    classes_ : ndarray of shape (n_classes,)
    """

    def __init__(self, estimator, *, random_state=None):
        self.estimator = estimator
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit on a weighted resample (on ``X`` itself when ``sample_weight`` is None).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative, not all zero.

        Returns
        -------
        self : WeightResamplingClassifier
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        rows = np.arange(X.shape[0])
        if sample_weight is not None:
            weight = np.asarray(sample_weight, dtype=np.float64)
            if weight.shape != (X.shape[0],) or np.any(weight < 0):
                raise ValueError("sample_weight must have one non-negative entry per row.")
            if weight.sum() <= 0:
                raise ValueError("sample_weight must not be all zero.")
            rng = check_generator(self.random_state)
            rows = rng.choice(X.shape[0], size=X.shape[0], p=weight / weight.sum())
        self.estimator_ = clone(self.estimator).fit(X[rows], y[rows])
        return self

    def predict(self, X) -> np.ndarray:
        """Predictions of the fitted learner."""
        check_is_fitted(self)
        return self.estimator_.predict(validate_data(self, X, reset=False, dtype=np.float64))

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, one column per class of ``classes_``."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        proba = np.zeros((X.shape[0], self.classes_.size))
        cols = np.searchsorted(self.classes_, self.estimator_.classes_)
        proba[:, cols] = self.estimator_.predict_proba(X)
        return proba
