"""Baselines a practitioner would reach for that scikit-learn does not ship as one estimator.

:class:`RobustCovarianceFilterLogistic` is the baseline for training outliers (the threat of
RoLR, Feng et al. 2014): drop the training rows that a robust covariance estimate
(:class:`sklearn.covariance.MinCovDet`) finds most outlying, then fit an ordinary
:class:`~sklearn.linear_model.LogisticRegression` on the rest.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.covariance import MinCovDet
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import Interval
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

__all__ = ["RobustCovarianceFilterLogistic"]


class RobustCovarianceFilterLogistic(ClassifierMixin, BaseEstimator):
    """Logistic regression on the training rows a robust covariance estimate does not reject.

    1. The rows are centred and, when there are more than ``n_components`` features, projected
       on their first ``n_components`` principal components (so that the robust covariance is
       well posed when features are many or collinear, as pixels are).
    2. :class:`~sklearn.covariance.MinCovDet` estimates a robust location and covariance of
       those coordinates, pooled over the classes (an outlier need not look unusual within the
       class it is labelled with), and gives each row its robust Mahalanobis distance.
    3. The ``round(outlier_fraction * n_samples)`` rows with the largest distances are dropped
       (ties broken by row order) and a :class:`~sklearn.linear_model.LogisticRegression` is
       fitted on the others. Predictions are those of that model, on all features.

    Parameters
    ----------
    outlier_fraction : float in [0, 1), default=0.1
        Fraction of the training rows dropped as outliers (halves rounded up).
    C : float > 0, default=1.0
        Inverse L2 regularisation strength of the logistic regression.
    n_components : int >= 1, default=20
        The robust covariance is estimated on at most this many principal components of the
        training rows (all features when there are no more than ``n_components``).
    random_state : None or int, default=None
        Seed of the :class:`~sklearn.covariance.MinCovDet` subsampling (and of the randomised
        PCA when it is used).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    inlier_mask_ : ndarray of bool of shape (n_samples,)
        The training rows the logistic regression was fitted on.
    distances_ : ndarray of shape (n_samples,)
        Robust squared Mahalanobis distance of each training row.
    classifier_ : LogisticRegression
        The model fitted on the kept rows.
    coef_, intercept_ : ndarray
        Those of ``classifier_`` (so the model can be certified as any linear classifier).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined only when ``X`` has feature names that are all strings.

    Notes
    -----
    NaN is refused, as by :class:`~sklearn.covariance.MinCovDet`: put a
    :class:`~sklearn.impute.SimpleImputer` in front (the registry's ``robust_filter_logistic``
    does).

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.experiments._baselines import RobustCovarianceFilterLogistic
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(size=(95, 3)), rng.uniform(8, 10, size=(5, 3))])
    >>> y = np.r_[(X[:95, 0] > 0).astype(int), np.ones(5, dtype=int)]
    >>> model = RobustCovarianceFilterLogistic(outlier_fraction=0.05, random_state=0).fit(X, y)
    >>> int((~model.inlier_mask_[95:]).sum())
    5
    """

    _parameter_constraints: dict = {
        "outlier_fraction": [Interval(numbers.Real, 0, 1, closed="left")],
        "C": [Interval(numbers.Real, 0, None, closed="neither")],
        "n_components": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, outlier_fraction=0.1, C=1.0, n_components=20, random_state=None):
        self.outlier_fraction = outlier_fraction
        self.C = C
        self.n_components = n_components
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Drop the most outlying rows, then fit the logistic regression on the others.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, finite.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the logistic regression's loss (the filter ignores them).

        Returns
        -------
        self : RobustCovarianceFilterLogistic
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        sample_weight = _check_sample_weight(sample_weight, X)
        n_samples = X.shape[0]
        self.distances_ = self._robust_distances(X)
        n_drop = int(np.floor(self.outlier_fraction * n_samples + 0.5))
        order = np.argsort(self.distances_, kind="stable")
        keep = np.ones(n_samples, dtype=bool)
        keep[order[n_samples - n_drop:]] = False
        if np.unique(y[keep]).size < np.unique(y).size:
            raise ValueError(
                f"outlier_fraction={self.outlier_fraction} dropped every training row of a "
                "class; lower it.")
        self.inlier_mask_ = keep
        self.classifier_ = LogisticRegression(C=self.C, max_iter=2_000).fit(
            X[keep], y[keep], sample_weight=sample_weight[keep])
        self.classes_ = self.classifier_.classes_
        return self

    def _robust_distances(self, X):
        Z = X - X.mean(axis=0)
        if X.shape[1] > self.n_components:
            k = min(self.n_components, X.shape[0] - 1)
            Z = PCA(n_components=k, random_state=self.random_state).fit_transform(Z)
        Z = Z[:, Z.std(axis=0) > 1e-12 * max(1.0, np.abs(Z).max())]
        if Z.shape[1] == 0:   # constant rows: nothing is outlying
            return np.zeros(X.shape[0])
        mcd = MinCovDet(random_state=self.random_state).fit(Z)
        return mcd.mahalanobis(Z)

    @property
    def coef_(self):
        check_is_fitted(self, "classifier_")
        return self.classifier_.coef_

    @property
    def intercept_(self):
        check_is_fitted(self, "classifier_")
        return self.classifier_.intercept_

    def decision_function(self, X):
        """The logistic regression's decision function (validated as at fit time)."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.decision_function(validate_data(self, X, reset=False))

    def predict(self, X):
        """The logistic regression's predicted class."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.predict(validate_data(self, X, reset=False))

    def predict_proba(self, X):
        """The logistic regression's class probabilities."""
        check_is_fitted(self, "classifier_")
        return self.classifier_.predict_proba(validate_data(self, X, reset=False))
