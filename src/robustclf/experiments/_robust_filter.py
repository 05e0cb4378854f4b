"""The practitioner's baseline against training outliers: a robust-covariance filter, then a model.

Someone who suspects corrupted training covariates and does not know RoLR would estimate the
covariates' location and scatter robustly, drop the rows that are far from the bulk in
Mahalanobis distance and fit an ordinary model on the rest. :class:`MCDFilterClassifier` does
exactly that with scikit-learn's Minimum Covariance Determinant (:class:`~sklearn.covariance.
MinCovDet`); the experiments of :mod:`robustclf.experiments.feng` put it beside RoLR on the same
rows, with the same outlier budget ``n1`` and the same downstream model settings, and the
registry's ``robust_filter_logistic`` (the demo and the benchmark) uses it with an outlier
fraction and a principal-component projection for data with many features.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy import linalg
from scipy.stats import chi2
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.covariance import MinCovDet
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._validation import check_fraction, check_nonnegative, validate_data

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
    * ``outlier_fraction`` given instead: ``floor(outlier_fraction * n_samples + 1/2)`` rows,
      by the same rule;
    * both ``None`` (no knowledge of the number of outliers): rows with
      ``d_i^2 > chi2.ppf(quantile, p)`` are removed, the usual cut-off for Gaussian inliers
      (with ``quantile=0.975``, 2.5 % of Gaussian inliers are expected to go).

    A clone of ``estimator`` is fitted on the kept rows; prediction uses it on every row (no
    filter at prediction time).

    Parameters
    ----------
    estimator : classifier, default=None
        The model fitted on the kept rows; ``None`` means ``LogisticRegression()``.
    n_outliers : int >= 0, default=None
        Number of rows to remove (must be less than the number of training rows).
    outlier_fraction : float in [0, 1), default=None
        The fraction of the training rows to remove instead (give at most one of the two;
        neither selects the chi-square rule).
    quantile : float in (0, 1), default=0.975
        The chi-square rule's quantile (ignored when ``n_outliers`` is given).
    support_fraction : float in (0, 1] or None, default=None
        Passed to ``MinCovDet``: the fraction of rows the raw MCD estimate is computed from;
        ``None`` is scikit-learn's default ``(N + p + 1) / (2 N)``, the maximal breakdown point.
    n_components : int >= 1 or None, default=None
        With more features than this, the distances are computed on the first ``n_components``
        principal components of the centred rows (coordinates with no spread dropped), so that
        the robust covariance stays well posed when features are many or collinear, as pixels
        are; the chi-square rule then has that many degrees of freedom. ``None``: all features.
    random_state : int or None, default=None
        Seed of FastMCD's random starts (and of the randomised PCA).

    Attributes
    ----------
    covariance_estimator_ : sklearn.covariance.MinCovDet or None
        The fitted robust covariance (its ``location_`` and ``covariance_`` define the
        distances, in principal-component coordinates under ``n_components``); ``None`` when
        every coordinate is constant (then no row is outlying).
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

    def __init__(self, estimator=None, *, n_outliers=None, outlier_fraction=None, quantile=0.975,
                 support_fraction=None, n_components=None, random_state=None):
        self.estimator = estimator
        self.n_outliers = n_outliers
        self.outlier_fraction = outlier_fraction
        self.quantile = quantile
        self.support_fraction = support_fraction
        self.n_components = n_components
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit the robust covariance on ``X``, drop the outlying rows, fit ``estimator``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training covariates (dense, finite).
        y : array-like of shape (n_samples,)
            Labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to ``estimator``'s fit for the kept rows (the filter itself ignores them).

        Returns
        -------
        self
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        n_samples = X.shape[0]
        if self.n_outliers is not None and self.outlier_fraction is not None:
            raise ValueError("give at most one of n_outliers and outlier_fraction.")
        n_outliers = self.n_outliers
        if self.outlier_fraction is not None:
            fraction = check_fraction(self.outlier_fraction, "outlier_fraction")
            if fraction >= 1.0:
                raise ValueError(f"outlier_fraction must be below 1, got {fraction}.")
            n_outliers = int(np.floor(fraction * n_samples + 0.5))
        Z = self._coordinates(X)
        if Z.shape[1] == 0:   # every coordinate constant: nothing is outlying
            mcd, distances = None, np.zeros(n_samples)
        else:
            mcd = MinCovDet(support_fraction=self.support_fraction,
                            random_state=self.random_state).fit(Z)
            distances = mcd.mahalanobis(Z)
        keep, threshold = filter_mask(distances, max(Z.shape[1], 1), n_outliers, self.quantile)
        if np.unique(y[keep]).size < np.unique(y).size:
            raise ValueError("the filter removed every training row of a class; remove fewer "
                             "rows (n_outliers, outlier_fraction or quantile).")
        estimator = LogisticRegression() if self.estimator is None else self.estimator
        fit_params = {}
        if sample_weight is not None:
            fit_params["sample_weight"] = _check_sample_weight(sample_weight, X)[keep]
        self.estimator_ = clone(estimator).fit(X[keep], y[keep], **fit_params)
        self.covariance_estimator_ = mcd
        self.distances_ = distances
        self.threshold_ = threshold
        self.inlier_mask_ = keep
        self.classes_ = self.estimator_.classes_
        return self

    def _coordinates(self, X):
        """The rows the distances are computed on: all features, or principal components."""
        if self.n_components is None:
            return X
        k = check_nonnegative(self.n_components, "n_components", integer=True)
        if k < 1:
            raise ValueError(f"n_components must be at least 1, got {k}.")
        if X.shape[1] <= k:
            return X
        Z = _principal_components(X - X.mean(axis=0), min(k, X.shape[0] - 1),
                                  self.random_state)
        return Z[:, Z.std(axis=0) > 1e-12 * max(1.0, np.abs(Z).max())]

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


def _principal_components(Z, k, random_state):
    """The first ``k`` principal component scores of the centred rows ``Z``.

    scikit-learn's PCA, whose full SVD is LAPACK's divide-and-conquer ``gesdd``. When that
    does not converge (it happened on THRESHOLD with 20 % training outliers, 240 x 215 rows
    of an inner fold of the benchmark), the slower QR-iteration driver ``gesvd`` gives the
    same scores, up to the sign of each component.
    """
    try:
        return PCA(n_components=k, random_state=random_state).fit_transform(Z)
    except np.linalg.LinAlgError:
        U, S, _ = linalg.svd(Z, full_matrices=False, lapack_driver="gesvd")
        return U[:, :k] * S[:k]
