"""MIXTURE, the "simple mixture of experts" baseline of O'Sullivan et al. (2000, §5)."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from .._validation import check_generator, check_int, check_option
from ._voting import VotingEnsembleMixin, default_estimator, seeded_clone

__all__ = ["MixtureOfExpertsClassifier"]

_MAX_SEED = np.iinfo(np.int32).max


def _fit_one(model, X, y):
    return model.fit(X, y)


class MixtureOfExpertsClassifier(VotingEnsembleMixin):
    """T base learners on bootstrap resamples, combined by an unweighted vote.

    The paper names MIXTURE "a simple mixture of experts" without defining it. This reading
    trains every expert on all features of a bootstrap resample of the training set (so the
    experts differ only through the data, unlike FeatureBoost's experts which are pushed onto
    different features) and lets them vote with equal weight: bagging. Each resample holds every
    class at least once (a random row of each missing class is appended), so that every expert
    knows all classes.

    Parameters
    ----------
    estimator : classifier, default=None
        The base learner, cloned for every expert; ``DecisionTreeClassifier()`` when None.
    n_estimators : int, default=20
        Number of experts (the paper uses 20).
    voting : {"hard", "soft"}, default="hard"
        Vote of predicted classes, or average of probabilities (enables ``predict_proba``).
    n_jobs : int, default=None
        joblib workers for fitting the experts; results do not depend on it.
    random_state : None, int or numpy Generator, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    estimators_ : list of classifiers
        Fitted on encoded labels ``0 .. n_classes - 1``.
    feature_subsets_ : list of ndarray of int
        All columns, for every expert.
    estimator_weights_ : ndarray of shape (n_estimators,)
        All ones.
    samples_ : list of ndarray of int
        The training rows of each expert.

    Notes
    -----
    Test rows with NaN are handled as in :class:`FeatureBoostClassifier` (every expert uses all
    features, so such a row is predicted on mean-filled values).

    References
    ----------
    .. [1] J. O'Sullivan, J. Langford, R. Caruana and A. Blum. FeatureBoost: a meta-learning
       algorithm that improves model robustness. ICML 2000, §5.
    """

    def __init__(self, estimator=None, n_estimators=20, *, voting="hard", n_jobs=None,
                 random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.voting = voting
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y):
        """Fit ``n_estimators`` experts on bootstrap resamples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : MixtureOfExpertsClassifier
        """
        n_estimators = check_int(self.n_estimators, "n_estimators")
        check_option(self.voting, "voting", ("hard", "soft"))
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        rng = check_generator(self.random_state)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        base = default_estimator(self.estimator)
        n_rows = X.shape[0]
        seeds = rng.integers(0, _MAX_SEED, size=n_estimators)
        samples = []
        for _ in range(n_estimators):
            rows = rng.integers(0, n_rows, size=n_rows)
            absent = np.setdiff1d(np.arange(self.classes_.size), y_enc[rows])
            extra = [rng.choice(np.flatnonzero(y_enc == c)) for c in absent]
            samples.append(np.concatenate([rows, np.asarray(extra, dtype=rows.dtype)]))
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(seeded_clone(base, int(s)), X[rows], y_enc[rows])
            for s, rows in zip(seeds, samples, strict=True))
        self.samples_ = samples
        self.feature_subsets_ = [np.arange(X.shape[1])] * n_estimators
        self.estimator_weights_ = np.ones(n_estimators)
        self._finish_fit(X)
        return self
