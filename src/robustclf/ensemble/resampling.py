"""Boosting by resampling: give sample weights to learners that do not accept them."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._blockwise import BlockwiseScoreMixin, blockwise_method
from .._validation import check_generator, check_option, validate_data
from ._sampling import checked_weights, weighted_nanmean
from ._voting import NAN_POLICIES, check_base_range

__all__ = ["WeightResamplingClassifier"]


def _estimator_has(attr):
    return lambda self: hasattr(self.estimator, attr)


def residual_counts(expected: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Multiplicities of a resample of ``size`` rows with expected multiplicities ``expected``.

    Residual resampling (Liu & Chen 1998): row ``i`` is taken ``floor(expected[i])`` times, and
    the remaining rows are drawn with replacement in proportion to the fractional parts. It is
    unbiased, and a row whose expected multiplicity is an integer is taken exactly that often.
    """
    counts = np.floor(expected).astype(np.intp)
    rest = size - int(counts.sum())
    if rest > 0:
        fraction = expected - counts
        counts += rng.multinomial(rest, fraction / fraction.sum())
    return counts


class WeightResamplingClassifier(BlockwiseScoreMixin, ClassifierMixin, BaseEstimator):
    """Fit a classifier on a resample drawn in proportion to the sample weights.

    AdaBoost needs ``fit(X, y, sample_weight)``. For learners without it (k-nearest neighbours)
    boosting by resampling (Freund & Schapire) fits the learner on a resample in which row ``i``
    appears ``size * sample_weight[i] / sum(sample_weight)`` times in expectation. Wrap the
    learner with this class and give it to :class:`sklearn.ensemble.AdaBoostClassifier`.

    The resample is drawn by residual resampling: each row is taken the integer part of its
    expected multiplicity, the remaining rows are drawn at random in proportion to the
    fractional parts. Unit weights (or none) with the default size therefore give the training
    set itself, and with ``max_samples=1.0`` a row of integer weight k is taken exactly k times:
    the learner is fitted on the rows repeated by their weight, which is scikit-learn's
    semantics of ``sample_weight`` (weight k = k copies), deterministically.

    Parameters
    ----------
    estimator : classifier
        Cloned, never modified.
    max_samples : None, int or float, default=None
        Rows of the resample, as in :class:`sklearn.ensemble.BaggingClassifier`. None: as many
        as ``X`` has, whatever the weights (the weights act only as a distribution over rows,
        as boosting by resampling needs: AdaBoost normalises them to sum 1). int: that many.
        float: ``max_samples * sum(sample_weight)`` rows (``max_samples * n_samples`` without
        weights), rounded, at least one: with ``1.0`` a weight is a number of copies.
    random_state : None, int or numpy Generator, default=None
        Seeds the resampling (AdaBoost sets it per round).
    nan_policy : {"absent", "raise"}, default="absent"
        Meaning of NaN in ``X``. ``"absent"``: if the learner accepts NaN (its tags'
        ``allow_nan``, e.g. decision trees, histogram gradient boosting) NaN is passed to it,
        at fit and at prediction time; otherwise an absent entry is given the training mean of
        its column over the present entries (weighted by ``sample_weight``), at fit and at
        prediction time: the imputation a single model without a missing-value mechanism of
        its own can take. ``"raise"``: NaN is an error.

    Attributes
    ----------
    estimator_ : classifier
        The learner fitted on the resample.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.
    counts_ : ndarray of int, shape (n_samples,)
        How often each training row is in the resample.
    column_means_ : ndarray of shape (n_features,)
        (Weighted) training means, given for absent entries when the learner rejects NaN.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import AdaBoostClassifier
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from robustclf import WeightResamplingClassifier
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> knn = WeightResamplingClassifier(KNeighborsClassifier(), random_state=0)
    >>> ada = AdaBoostClassifier(knn, n_estimators=5, random_state=0).fit(X, y)
    >>> round(ada.score(X, y), 2)
    1.0
    """

    def __init__(self, estimator, *, max_samples=None, random_state=None, nan_policy="absent"):
        self.estimator = estimator
        self.max_samples = max_samples
        self.random_state = random_state
        self.nan_policy = nan_policy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.nan_policy == "absent"
        return tags

    def _native_nan(self) -> bool:
        """NaN goes to the learner itself (it accepts NaN and NaN means absent)."""
        policy = check_option(self.nan_policy, "nan_policy", NAN_POLICIES)
        return policy == "absent" and get_tags(self.estimator).input_tags.allow_nan

    def _resample_size(self, n_rows: int, weight: np.ndarray | None) -> int:
        value = self.max_samples
        if value is None:
            return n_rows
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            if value < 1:
                raise ValueError(f"max_samples must be >= 1 as an int, got {value}.")
            return int(value)
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and value > 0:
            total = n_rows if weight is None else weight.sum()
            return max(1, round(float(value) * total))
        raise ValueError(f"max_samples must be None, an int >= 1 or a positive float, got "
                         f"{value!r}.")

    def fit(self, X, y, sample_weight=None):
        """Fit on a weighted resample.

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
        policy = check_option(self.nan_policy, "nan_policy", NAN_POLICIES)
        finite = "allow-nan" if policy == "absent" else True
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=finite)
        check_base_range(self, X, self.estimator, fit=True)
        check_classification_targets(y)
        weight = checked_weights(sample_weight, X)
        self.column_means_ = weighted_nanmean(X, weight)
        X = self._absent_as_mean(X)
        size = self._resample_size(X.shape[0], weight)
        share = np.ones(X.shape[0]) if weight is None else weight
        expected = size * share / share.sum()
        self.counts_ = residual_counts(expected, size, check_generator(self.random_state))
        self.classes_ = np.unique(y)
        rows = np.repeat(np.arange(X.shape[0]), self.counts_)
        self.estimator_ = clone(self.estimator).fit(X[rows], y[rows])
        return self

    def _check_predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        finite = "allow-nan" if self.nan_policy == "absent" else True
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=finite)
        check_base_range(self, X, self.estimator, fit=False)
        return self._absent_as_mean(X)

    def _absent_as_mean(self, X: np.ndarray) -> np.ndarray:
        """``X`` with NaN replaced by the column means, unless the learner takes NaN itself."""
        missing = np.isnan(X)
        if self._native_nan() or not missing.any():
            return X
        return np.where(missing, self.column_means_[None, :], X)

    @blockwise_method("labels")
    def predict(self, X) -> np.ndarray:
        """Predictions of the fitted learner (NaN handled as ``nan_policy`` says).

        A dask array or DataFrame gives a lazy dask array, computed chunk by chunk.
        """
        X = self._check_predict_input(X)
        return self.estimator_.predict(X)

    @available_if(_estimator_has("predict_proba"))
    @blockwise_method("columns")
    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, one column per class of ``classes_``.

        A dask array or DataFrame gives a lazy dask array, computed chunk by chunk.
        """
        X = self._check_predict_input(X)
        proba = np.zeros((X.shape[0], self.classes_.size))
        cols = np.searchsorted(self.classes_, self.estimator_.classes_)
        proba[:, cols] = self.estimator_.predict_proba(X)
        return proba

