"""The weighted vote shared by FeatureBoost and the mixture-of-experts baseline.

A fitted ensemble holds ``estimators_`` (sub-models trained on encoded labels 0..C-1),
``feature_subsets_`` (the columns each sub-model was trained on and is given at prediction),
``used_features_`` (the columns among them its prediction actually depends on, see
:func:`used_columns`) and ``estimator_weights_``. Prediction is a weighted vote (FeatureBoost,
Table 1: weights ``log(1 / beta_t)``), hard or soft.

Ties of the hard vote: a subclass chooses with ``_hard_ties`` (``vote_winner``).
FeatureBoost takes Table 1's output rule, ``h_f = 1`` when the weighted vote for class 1 is
``>= 1/2`` of the total weight, so that an exact tie goes to the positive class
(``classes_[1]``), and with several classes to the *last* tied class in ``classes_`` order
(``"last"``); the mixture-of-experts baseline keeps ``numpy.argmax``'s first tied class
(``"first"``). Soft voting always predicts ``argmax`` of ``predict_proba`` (the first tied
class), as scikit-learn's classifiers do.

Missing values (``nan_policy="absent"``): a NaN entry is an absent feature. A test row is
predicted by *sleeping experts* (O'Sullivan et al. 2000, §6, after Freund et al. 1997): "only
hypotheses with no missing values vote". A sub-model *sleeps* on a row when its prediction for
that row depends on a missing feature, and is awake when its prediction is the same whatever
the missing values are, so that an awake vote is exact:

* a decision tree (``tree_``) sleeps when the row's path from the root reaches a split on a
  missing feature (the path is followed on the present features; the tree's other splits do
  not matter for this row);
* any other sub-model sleeps when one of its ``used_features_`` (:func:`used_columns`) is
  missing.

Each sub-model's *dependence* on a row is the number of missing features it needs there (split
nodes on a missing feature along the path of the mean-filled row, for a tree; missing used
features otherwise). The sub-models of least dependence vote: on a row where some sub-model
is awake (dependence 0), exactly the awake ones; when all sleep, the least affected ones, given
the training mean of each column they miss. Columns a voting sub-model does not depend on are
filled with the mean too, which cannot change its prediction.

NaN in the training data (``nan_policy="absent"``) is passed to base learners that accept it
(their tags' ``allow_nan``: scikit-learn's decision trees do) and replaced by the column's
(weighted) mean over its present entries for the others; the statistics of FeatureBoost are
computed on the same matrix the sub-models are trained on.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import BaseEnsemble
from sklearn.tree import BaseDecisionTree, DecisionTreeClassifier
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._blockwise import BlockwiseScoreMixin, blockwise_method
from .._validation import check_float32_range, check_option, validate_data
from ._sampling import checked_weights, weighted_nanmean

__all__ = ["NAN_POLICIES", "TIE_TOLERANCE", "VotingEnsembleMixin", "check_base_range",
           "default_estimator", "reads_float32", "seeded_clone", "used_columns", "vote_winner"]

#: Values of the ``nan_policy`` parameter (the library-wide choice, as in ``linear._base``).
NAN_POLICIES = ("absent", "raise")


#: Normalised votes (rows summing to 1) within this of the largest are tied: the same weights
#: summed in another order differ by rounding (about 1e-16 per expert), never by this much.
TIE_TOLERANCE = 1e-10


def vote_winner(votes: np.ndarray, ties: str = "first") -> np.ndarray:
    """Index of the winning class of each row of normalised ``votes`` (n_rows, n_classes).

    Classes whose vote is within :data:`TIE_TOLERANCE` of the row's largest are tied.
    ``ties="first"``: the first tied class (``numpy.argmax``); ``"last"``: the last one, which
    for two classes is Table 1's ``sum_t log(1/beta_t) h_t >= 1/2 sum_t log(1/beta_t)``
    (O'Sullivan et al. 2000): a tie goes to class 1, the positive class.
    """
    if ties == "first":
        return np.argmax(votes, axis=1)
    tied = votes >= votes.max(axis=1, keepdims=True) - TIE_TOLERANCE
    return votes.shape[1] - 1 - np.argmax(tied[:, ::-1], axis=1)


def default_estimator(estimator) -> BaseEstimator:
    """The base learner, a decision tree when ``estimator`` is None (not yet cloned)."""
    return DecisionTreeClassifier() if estimator is None else estimator


def reads_float32(estimator) -> bool:
    """Whether ``estimator`` reads ``X`` as float32: a scikit-learn decision tree, or an ensemble
    of them (forest, bagging, AdaBoost, gradient boosting: ``BaseEnsemble`` over a tree, or
    over its default, a tree). A pipeline is read by its first step, so it is not one."""
    if isinstance(estimator, BaseDecisionTree):
        return True
    if isinstance(estimator, BaseEnsemble):  # gradient boosting has no ``estimator``: trees
        inner = getattr(estimator, "estimator", None)
        return inner is None or reads_float32(inner)
    return False


def check_base_range(owner, X: np.ndarray, estimator, *, fit: bool) -> None:
    """Refuse values the base learner ``estimator`` of ``owner`` cannot read as float32.

    The library's magnitude check (:func:`robustclf._validation.check_magnitude`, 1e150) is
    made for float64; a tree casts ``X`` to float32, whose largest value is about 3.4e38, and
    refused larger values deep inside with a message about infinity. ``X`` is the validated
    float64 matrix the sub-models are fitted on (``fit``) or predict on.
    """
    if reads_float32(estimator):
        reader = f"{type(owner).__name__}'s base learner {type(estimator).__name__}"
        check_float32_range(X, reader=reader, lower=fit,
                            action="fit on" if fit else "predict on")


def seeded_clone(estimator, seed: int) -> BaseEstimator:
    """A clone of ``estimator`` with every (nested) ``random_state`` parameter set to ``seed``."""
    model = clone(estimator)
    keys = [k for k in model.get_params(deep=True)
            if k == "random_state" or k.endswith("__random_state")]
    if keys:
        model.set_params(**{k: seed for k in keys})
    return model


def _tree_features(model) -> np.ndarray | None:
    """Columns split on by a fitted tree, or by every tree of a fitted forest / boosting."""
    if hasattr(model, "tree_"):
        trees = [model]
    else:
        members = getattr(model, "estimators_", None)
        if members is None or hasattr(model, "estimators_features_"):  # bagging: subsets
            return None
        trees = list(np.ravel(np.asarray(members, dtype=object)))
        if not trees or not all(hasattr(t, "tree_") for t in trees):
            return None
    splits = np.concatenate([t.tree_.feature for t in trees])
    return np.unique(splits[splits >= 0]).astype(np.intp)


def used_columns(model, n_columns: int) -> np.ndarray:
    """Positions (among the ``n_columns`` it was fitted on) of the inputs ``model`` depends on.

    In order of precedence:

    * a decision tree (``tree_``), or a forest / gradient boosting whose ``estimators_`` are
      trees: the features of its split nodes (``tree_.feature``), exact;
    * a linear model (``coef_``): the columns with a nonzero coefficient for some class, exact;
    * a model with ``feature_importances_``: the columns of positive importance (trusted as
      given: a split of exactly zero gain would be missed);
    * anything else (k-nearest neighbours, pipelines, nets): every column.
    """
    features = _tree_features(model)
    if features is not None:
        return features
    coef = getattr(model, "coef_", None)
    if coef is not None:
        coef = np.atleast_2d(np.asarray(coef))
        if coef.shape[-1] == n_columns:
            return np.flatnonzero(np.any(coef != 0, axis=0))
    importances = getattr(model, "feature_importances_", None)
    if importances is not None and np.shape(importances) == (n_columns,):
        return np.flatnonzero(np.asarray(importances) > 0)
    return np.arange(n_columns)


def _estimator_has_proba(self) -> bool:
    """``predict_proba`` exists for soft voting over a base learner that has it."""
    return self.voting == "soft" and hasattr(default_estimator(self.estimator), "predict_proba")


class VotingEnsembleMixin(BlockwiseScoreMixin, ClassifierMixin, BaseEstimator):
    """Prediction of a weighted vote of sub-models on feature subsets (private base class).

    Subclasses declare ``nan_policy`` in ``__init__`` and call :meth:`_finish_fit`, and may
    set ``_hard_ties`` (``"first"`` or ``"last"``, see ``vote_winner``): which of the classes
    tied in a hard vote ``predict`` returns.
    """

    _hard_ties = "first"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = getattr(self, "nan_policy", "absent") == "absent"
        return tags

    def _check_nan_policy(self) -> str:
        return check_option(self.nan_policy, "nan_policy", NAN_POLICIES)

    def _fit_input(self, X, y, sample_weight, base):
        """Validated ``X, y``, the checked weights, and the matrix the sub-models are fit on.

        Sets ``column_means_`` (weighted means of the present entries).
        """
        finite = "allow-nan" if self._check_nan_policy() == "absent" else True
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=finite)
        check_base_range(self, X, base, fit=True)
        weight = checked_weights(sample_weight, X)
        self.column_means_ = weighted_nanmean(X, weight)
        missing = np.isnan(X)
        if missing.any() and not get_tags(base).input_tags.allow_nan:
            X = np.where(missing, self.column_means_[None, :], X)
        return X, y, weight

    def _check_predict_input(self, X) -> np.ndarray:
        check_is_fitted(self)
        finite = "allow-nan" if self._check_nan_policy() == "absent" else True
        X = validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=finite)
        check_base_range(self, X, default_estimator(self.estimator), fit=False)
        return X

    def _member_scores(self, model, Xs: np.ndarray) -> np.ndarray:
        """One sub-model's (n_rows, n_classes) score: a one-hot vote or its probabilities."""
        n_classes = self.classes_.size
        if self.voting == "soft":
            scores = np.zeros((Xs.shape[0], n_classes))
            scores[:, np.asarray(model.classes_, dtype=np.intp)] = model.predict_proba(Xs)
            return scores
        pred = np.asarray(model.predict(Xs), dtype=np.intp)
        return np.eye(n_classes)[pred]

    def _dependence(self, e: int, filled: np.ndarray, missing: np.ndarray) -> np.ndarray:
        """How many missing features sub-model ``e`` needs on each row (0: it is awake)."""
        model, cols = self.estimators_[e], self.feature_subsets_[e]
        if hasattr(model, "tree_") and hasattr(model, "decision_path"):
            path = model.decision_path(filled[:, cols]).tocoo()  # (row, node) pairs
            feature = model.tree_.feature[path.col]
            split = feature >= 0
            rows = path.row[split]
            hit = missing[:, cols][rows, feature[split]]
            return np.bincount(rows[hit], minlength=filled.shape[0])
        return missing[:, self.used_features_[e]].sum(axis=1)

    def _awake(self, filled: np.ndarray, missing: np.ndarray,
               voters: np.ndarray) -> np.ndarray:
        """(n_rows, n_voters) mask of the sub-models of least dependence on each row."""
        counts = np.column_stack([self._dependence(e, filled, missing) for e in voters])
        return counts == counts.min(axis=1, keepdims=True)

    def _vote(self, X: np.ndarray) -> np.ndarray:
        """Normalised weighted vote, shape (n_rows, n_classes), rows summing to 1."""
        weights = np.asarray(self.estimator_weights_, dtype=np.float64)
        voters = np.flatnonzero(weights > 0)
        missing = np.isnan(X)
        votes = np.zeros((X.shape[0], self.classes_.size))
        if not missing.any():
            for e in voters:
                model, cols = self.estimators_[e], self.feature_subsets_[e]
                votes += weights[e] * self._member_scores(model, X[:, cols])
            return votes / weights[voters].sum()
        filled = np.where(missing, self.column_means_[None, :], X)
        awake = self._awake(filled, missing, voters)
        total = np.zeros(X.shape[0])
        for j, e in enumerate(voters):
            rows = np.flatnonzero(awake[:, j])
            if rows.size:
                model, cols = self.estimators_[e], self.feature_subsets_[e]
                votes[rows] += weights[e] * self._member_scores(model, filled[np.ix_(rows, cols)])
                total[rows] += weights[e]
        return votes / total[:, None]

    @blockwise_method("labels")
    def predict(self, X) -> np.ndarray:
        """Class of the largest weighted vote (sleeping experts for rows with NaN).

        An exact tie of a hard vote goes to the class the subclass's ``_hard_ties`` names
        (``vote_winner``); a soft vote predicts the argmax of ``predict_proba``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            With ``nan_policy="absent"`` NaN marks an absent feature; with ``"raise"`` it is
            an error. A dask array or DataFrame gives a lazy dask array, computed chunk by chunk.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        X = self._check_predict_input(X)
        ties = self._hard_ties if self.voting == "hard" else "first"
        return self.classes_[vote_winner(self._vote(X), ties)]

    @available_if(_estimator_has_proba)
    @blockwise_method("columns")
    def predict_proba(self, X) -> np.ndarray:
        """Weighted average of the sub-models' class probabilities (``voting="soft"`` only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            With ``nan_policy="absent"`` NaN marks an absent feature; with ``"raise"`` it is
            an error. A dask array or DataFrame gives a lazy dask array, computed chunk by chunk.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        X = self._check_predict_input(X)
        return self._vote(X)

    def _finish_fit(self) -> None:
        """Used features of every sub-model and a guard against an all-zero weight vector."""
        self.used_features_ = [cols[used_columns(model, cols.size)] for model, cols
                               in zip(self.estimators_, self.feature_subsets_, strict=True)]
        weights = np.asarray(self.estimator_weights_, dtype=np.float64)
        if not (weights > 0).any():
            self.estimator_weights_ = np.ones_like(weights)
