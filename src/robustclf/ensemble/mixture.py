"""MIXTURE, the "simple mixture of experts" baseline of O'Sullivan et al. (2000, §5)."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils.multiclass import check_classification_targets

from .._validation import check_generator, check_int, check_n_jobs, check_option
from ._sampling import RowSampler
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

    With ``sample_weight`` the resamples are drawn in proportion to the weights and hold as
    many rows as the weighted training set (``round(sum(sample_weight))``, at least one), so
    that a row of weight k behaves like k copies of it: the resamples of the repeated rows
    have the same distribution. With integer weights and a fixed ``random_state`` they are the
    very same resamples as those of the rows repeated in place (``np.repeat(X, w, axis=0)``).
    The weights' scale matters (weights summing to 1 give one-row resamples), as it does for
    k copies. The experts are fitted on their resample without weights.

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
    nan_policy : {"absent", "raise"}, default="absent"
        Meaning of NaN in ``predict`` / ``predict_proba``: an absent feature, handled by
        sleeping experts as in :class:`FeatureBoostClassifier` (``"absent"``), or an error
        (``"raise"``). In ``fit``, NaN is passed to a base learner that accepts it and
        replaced by the column's mean over its present entries otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    estimators_ : list of classifier
        Fitted on encoded labels ``0 .. n_classes - 1``.
    feature_subsets_ : list of ndarray of int
        All columns, for every expert.
    used_features_ : list of ndarray of int
        The columns each expert's prediction depends on (split features of a tree, nonzero
        coefficients, ...; see :class:`FeatureBoostClassifier`).
    column_means_ : ndarray of shape (n_features,)
        (Weighted) training means, given for absent features when every expert sleeps.
    estimator_weights_ : ndarray of shape (n_estimators,)
        All ones.
    samples_ : list of ndarray of int
        The training rows of each expert.

    Notes
    -----
    Test rows with NaN are handled as in :class:`FeatureBoostClassifier`: an expert sleeps on a
    row in which a feature it uses is missing, and the experts with the fewest missing used
    features vote, on the training means of what they miss, when all of them sleep. Bagged
    experts see every column, so this helps where they use few of them (trees on redundant
    features); for experts that use every column (k-nearest neighbours) it is a vote of all
    experts on mean-filled rows.

    References
    ----------
    .. [1] J. O'Sullivan, J. Langford, R. Caruana and A. Blum. FeatureBoost: a meta-learning
       algorithm that improves model robustness. ICML 2000, §5.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from robustclf import MixtureOfExpertsClassifier
    >>> from robustclf.datasets import make_threshold
    >>> X, y, groups, t = make_threshold(100, random_state=0, return_threshold=True)
    >>> X_test, y_test, _ = make_threshold(300, threshold=t, random_state=1)
    >>> clf = MixtureOfExpertsClassifier(DecisionTreeClassifier(), n_estimators=5,
    ...                                  random_state=0).fit(X, y)
    >>> X_test[:, groups[-1]] = np.nan  # the "value" encoding is absent
    >>> round(clf.score(X_test, y_test), 2)
    1.0
    """

    def __init__(self, estimator=None, n_estimators=20, *, voting="hard", n_jobs=None,
                 random_state=None, nan_policy="absent"):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.voting = voting
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.nan_policy = nan_policy

    def fit(self, X, y, sample_weight=None):
        """Fit ``n_estimators`` experts on bootstrap resamples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights, not all zero: a row of weight k behaves like k copies.

        Returns
        -------
        self : MixtureOfExpertsClassifier
        """
        n_estimators = check_int(self.n_estimators, "n_estimators")
        check_option(self.voting, "voting", ("hard", "soft"))
        check_n_jobs(self.n_jobs)
        base = default_estimator(self.estimator)
        X, y, weight = self._fit_input(X, y, sample_weight, base)
        check_classification_targets(y)
        rng = check_generator(self.random_state)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        sampler = RowSampler(X.shape[0], weight)
        size = max(1, round(sampler.total))
        # per class, the sampler of its rows, for a class missing from a resample
        class_samplers = [RowSampler(X.shape[0], _class_weight(weight, y_enc == c))
                          for c in range(self.classes_.size)]
        seeds = rng.integers(0, _MAX_SEED, size=n_estimators)
        samples = []
        for _ in range(n_estimators):
            rows = sampler(rng, size)
            absent = np.setdiff1d(np.arange(self.classes_.size), y_enc[rows])
            extra = [class_samplers[c](rng, None) for c in absent
                     if class_samplers[c].total > 0]
            samples.append(np.concatenate([rows, np.asarray(extra, dtype=rows.dtype)]))
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(seeded_clone(base, int(s)), X[rows], y_enc[rows])
            for s, rows in zip(seeds, samples, strict=True))
        self.samples_ = samples
        self.feature_subsets_ = [np.arange(X.shape[1])] * n_estimators
        self.estimator_weights_ = np.ones(n_estimators)
        self._finish_fit()
        return self


def _class_weight(weight: np.ndarray | None, in_class: np.ndarray) -> np.ndarray:
    """The row weights restricted to one class (zero elsewhere)."""
    return in_class.astype(np.float64) if weight is None else np.where(in_class, weight, 0.0)
