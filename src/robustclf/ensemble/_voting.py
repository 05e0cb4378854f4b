"""The weighted vote shared by FeatureBoost and the mixture-of-experts baseline.

A fitted ensemble holds ``estimators_`` (sub-models trained on encoded labels 0..C-1),
``feature_subsets_`` (the columns each sub-model was trained on and is given at prediction) and
``estimator_weights_``. Prediction is a weighted vote (FeatureBoost, Table 1: weights
``log(1 / beta_t)``), hard or soft.

Missing values: a test row with NaN is predicted by *sleeping experts* (O'Sullivan et al. 2000,
§6, after Freund et al. 1997): only the sub-models whose features are all present in that row
vote. A row in which no sub-model with positive weight is awake is predicted by all sub-models
on the row with its NaN replaced by the training mean of the column.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["VotingEnsembleMixin", "default_estimator", "seeded_clone"]


def default_estimator(estimator) -> BaseEstimator:
    """The base learner, a decision tree when ``estimator`` is None (not yet cloned)."""
    return DecisionTreeClassifier() if estimator is None else estimator


def seeded_clone(estimator, seed: int) -> BaseEstimator:
    """A clone of ``estimator`` with every (nested) ``random_state`` parameter set to ``seed``."""
    model = clone(estimator)
    keys = [k for k in model.get_params(deep=True)
            if k == "random_state" or k.endswith("__random_state")]
    if keys:
        model.set_params(**{k: seed for k in keys})
    return model


def _estimator_has_proba(self) -> bool:
    """``predict_proba`` exists for soft voting over a base learner that has it."""
    return self.voting == "soft" and hasattr(default_estimator(self.estimator), "predict_proba")


class VotingEnsembleMixin(ClassifierMixin, BaseEstimator):
    """Prediction of a weighted vote of sub-models on feature subsets (private base class)."""

    def _check_predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        return validate_data(self, X, reset=False, dtype=np.float64,
                             ensure_all_finite="allow-nan")

    def _member_scores(self, model, Xs: np.ndarray) -> np.ndarray:
        """One sub-model's (n_rows, n_classes) score: a one-hot vote or its probabilities."""
        n_classes = self.classes_.size
        if self.voting == "soft":
            scores = np.zeros((Xs.shape[0], n_classes))
            scores[:, np.asarray(model.classes_, dtype=np.intp)] = model.predict_proba(Xs)
            return scores
        pred = np.asarray(model.predict(Xs), dtype=np.intp)
        return np.eye(n_classes)[pred]

    def _vote(self, X: np.ndarray) -> np.ndarray:
        """Normalised weighted vote, shape (n_rows, n_classes), rows summing to 1."""
        n_rows = X.shape[0]
        weights = np.asarray(self.estimator_weights_, dtype=np.float64)
        missing = np.isnan(X)
        votes = np.zeros((n_rows, self.classes_.size))
        total = np.zeros(n_rows)
        for model, cols, w in zip(self.estimators_, self.feature_subsets_, weights, strict=True):
            if w <= 0:
                continue
            awake = ~missing[:, cols].any(axis=1)
            if awake.any():
                votes[awake] += w * self._member_scores(model, X[np.ix_(awake, cols)])
                total[awake] += w
        asleep = total == 0
        if asleep.any():  # nobody awake: every sub-model votes on mean-filled rows
            filled = np.where(missing[asleep], self._column_means[None, :], X[asleep])
            for model, cols, w in zip(self.estimators_, self.feature_subsets_, weights,
                                      strict=True):
                if w > 0:
                    votes[asleep] += w * self._member_scores(model, filled[:, cols])
                    total[asleep] += w
        return votes / total[:, None]

    def predict(self, X) -> np.ndarray:
        """Class of the largest weighted vote (sleeping experts for rows with NaN).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        X = self._check_predict_input(X)
        return self.classes_[np.argmax(self._vote(X), axis=1)]

    @available_if(_estimator_has_proba)
    def predict_proba(self, X) -> np.ndarray:
        """Weighted average of the sub-models' class probabilities (``voting="soft"`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            NaN marks an absent feature.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        X = self._check_predict_input(X)
        return self._vote(X)

    def _finish_fit(self, X: np.ndarray) -> None:
        """Fallback column means and a guard against an all-zero weight vector."""
        self._column_means = X.mean(axis=0)
        weights = np.asarray(self.estimator_weights_, dtype=np.float64)
        if not (weights > 0).any():
            self.estimator_weights_ = np.ones_like(weights)
