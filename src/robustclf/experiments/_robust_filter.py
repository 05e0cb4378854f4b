"""The practitioner's baseline of the RoLR experiments: a robust-covariance filter, then a model.

Someone who suspects corrupted training covariates and does not know RoLR would estimate the
covariates' location and scatter robustly, drop the rows that are far from the bulk in
Mahalanobis distance and fit an ordinary model on the rest. :class:`MCDFilterClassifier` does
exactly that with scikit-learn's Minimum Covariance Determinant (:class:`~sklearn.covariance.
MinCovDet`); the experiments of :mod:`robustclf.experiments.feng` put it beside RoLR on the same
rows, with the same outlier budget ``n1`` and the same downstream model settings.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.stats import chi2
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.covariance import MinCovDet
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from .._compat import validate_data
from .._validation import check_nonnegative

__all__ = ["MCDFilterClassifier", "filter_mask"]


def filter_mask(distances, n_features: int, n_outliers=None, quantile=0.975):
    """The rows kept by :class:`MCDFilterClassifier`'s rule, and the distance cut-off.

    Parameters
    ----------
    distances : ndarray of shape (n_samples,)
        Squared robust distances ``d_i^2``.
    n_features : int
        ``p``, the chi-square's degrees of freedom.
    n_outliers : int >= 0 or None, default=None
        Remove the ``n_outliers`` largest distances (ties: the later row first); ``None``: the
        chi-square rule.
    quantile : float in (0, 1), default=0.975
        Keep ``d_i^2 <= chi2.ppf(quantile, n_features)`` (when ``n_outliers`` is None).

    Returns
    -------
    keep : ndarray of bool of shape (n_samples,)
    threshold : float
        The largest kept distance (``n_outliers`` rule) or the chi-square quantile.
    """
    n_samples = distances.shape[0]
    if n_outliers is not None:
        n1 = check_nonnegative(n_outliers, "n_outliers", integer=True)
        if n1 >= n_samples:
            raise ValueError(f"n_outliers must be less than the number of samples "
                             f"({n_samples}), got {n1}.")
        order = np.argsort(distances, kind="stable")
        keep = np.zeros(n_samples, dtype=bool)
        keep[order[:n_samples - n1]] = True
        return keep, float(distances[order[n_samples - n1 - 1]])
    if (isinstance(quantile, bool) or not isinstance(quantile, numbers.Real)
            or not 0.0 < quantile < 1.0):
        raise ValueError(f"quantile must be a real number in (0, 1), got {quantile!r}.")
    threshold = float(chi2.ppf(quantile, n_features))
    keep = distances <= threshold
    if not keep.any():
        raise ValueError(f"the chi-square rule removed every row (all squared robust distances "
                         f"> {threshold:.3g}); give n_outliers instead.")
    return keep, threshold


class MCDFilterClassifier(ClassifierMixin, BaseEstimator):
    """Drop the rows a robust covariance finds outlying, then fit ``estimator`` on the rest.

    A Minimum Covariance Determinant estimate (``MinCovDet``, FastMCD with scikit-learn's
    reweighting step) of the training covariates' location ``mu`` and scatter ``Sigma`` gives
    every training row its squared robust distance ``d_i^2 = (x_i - mu)^T Sigma^+ (x_i - mu)``.
    The labels are not used. Rows are then removed by one of two rules:

    * ``n_outliers`` given (the rule the experiments use beside RoLR, which receives the same
      ``n1``): the ``n_outliers`` rows of largest ``d_i^2`` are removed (ties broken by row
      order, the later row removed first), so exactly ``n_outliers`` rows go, whatever the
      distances are;
    * ``n_outliers=None`` (no knowledge of the number of outliers): rows with
      ``d_i^2 > chi2.ppf(quantile, p)`` are removed, the usual cut-off for Gaussian inliers
      (with ``quantile=0.975``, 2.5 % of Gaussian inliers are expected to go).

    A clone of ``estimator`` is fitted on the kept rows; prediction uses it on every row (no
    filter at prediction time).

    Parameters
    ----------
    estimator : classifier, default=None
        The model fitted on the kept rows; ``None`` means ``LogisticRegression()``.
    n_outliers : int >= 0, default=None
        Number of rows to remove (must be less than the number of training rows). ``None``
        selects the chi-square rule.
    quantile : float in (0, 1), default=0.975
        The chi-square rule's quantile (ignored when ``n_outliers`` is given).
    support_fraction : float in (0, 1] or None, default=None
        Passed to ``MinCovDet``: the fraction of rows the raw MCD estimate is computed from;
        ``None`` is scikit-learn's default ``(N + p + 1) / (2 N)``, the maximal breakdown point.
    random_state : int or None, default=None
        Seed of FastMCD's random starts.

    Attributes
    ----------
    covariance_estimator_ : sklearn.covariance.MinCovDet
        The fitted robust covariance (its ``location_`` and ``covariance_`` define the
        distances).
    distances_ : ndarray of shape (n_samples,)
        Squared robust distances ``d_i^2`` of the training rows.
    threshold_ : float
        The largest kept ``d_i^2`` under the ``n_outliers`` rule, the chi-square quantile under
        the other.
    inlier_mask_ : ndarray of bool of shape (n_samples,)
        True for the rows ``estimator_`` was fitted on.
    estimator_ : classifier
        The fitted clone of ``estimator``.
    classes_ : ndarray
        ``estimator_.classes_``.
    n_features_in_ : int

    Examples
    --------
    >>> from robustclf.datasets import make_contaminated_logistic
    >>> from robustclf.experiments._robust_filter import MCDFilterClassifier
    >>> X, y, beta, out = make_contaminated_logistic(300, 5, outlier_ratio=0.3, random_state=0)
    >>> clf = MCDFilterClassifier(n_outliers=int(out.sum()), random_state=0).fit(X, y)
    >>> bool((~clf.inlier_mask_ == out).all())
    True
    """

    def __init__(self, estimator=None, *, n_outliers=None, quantile=0.975, support_fraction=None,
                 random_state=None):
        self.estimator = estimator
        self.n_outliers = n_outliers
        self.quantile = quantile
        self.support_fraction = support_fraction
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the robust covariance on ``X``, drop the outlying rows, fit ``estimator``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training covariates (dense, finite).
        y : array-like of shape (n_samples,)
            Labels.

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        n_samples, n_features = X.shape
        mcd = MinCovDet(support_fraction=self.support_fraction,
                        random_state=self.random_state).fit(X)
        distances = mcd.mahalanobis(X)
        keep, threshold = filter_mask(distances, n_features, self.n_outliers, self.quantile)
        estimator = LogisticRegression() if self.estimator is None else self.estimator
        self.estimator_ = clone(estimator).fit(X[keep], y[keep])
        self.covariance_estimator_ = mcd
        self.distances_ = distances
        self.threshold_ = threshold
        self.inlier_mask_ = keep
        self.classes_ = self.estimator_.classes_
        return self

    @property
    def coef_(self):
        """``estimator_.coef_`` (for linear estimators)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.coef_

    @property
    def intercept_(self):
        """``estimator_.intercept_`` (for linear estimators)."""
        check_is_fitted(self, "estimator_")
        return self.estimator_.intercept_

    def _checked(self, X):
        check_is_fitted(self, "estimator_")
        return validate_data(self, X, reset=False, dtype=np.float64)

    def decision_function(self, X):
        """``estimator_.decision_function`` on ``X`` (no row is filtered at prediction)."""
        return self.estimator_.decision_function(self._checked(X))

    def predict(self, X):
        """``estimator_.predict`` on ``X`` (no row is filtered at prediction)."""
        return self.estimator_.predict(self._checked(X))

    def predict_proba(self, X):
        """``estimator_.predict_proba`` on ``X`` (no row is filtered at prediction)."""
        return self.estimator_.predict_proba(self._checked(X))
