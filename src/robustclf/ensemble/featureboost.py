"""FeatureBoost: boosting over features for any classifier (O'Sullivan et al., ICML 2000)."""

from __future__ import annotations

import math

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import has_fit_parameter

from .._validation import (
    check_fraction,
    check_generator,
    check_int,
    check_n_jobs,
    check_option,
)
from ._sampling import (
    RowSampler,
    deemphasize,
    importance,
    make_units,
    marginal_error,
    unit_of_columns,
)
from ._voting import VotingEnsembleMixin, default_estimator, seeded_clone

__all__ = ["FeatureBoostClassifier"]

#: Lower bound of beta_t (Table 1, line 8), so that a perfect hypothesis gets weight log(100).
BETA_MIN = 0.01
_MAX_SEED = np.iinfo(np.int32).max


class FeatureBoostClassifier(VotingEnsembleMixin):
    """FeatureBoost: a weighted vote of models pushed away from their predecessors' features.

    A distribution ``p`` over features is kept (Table 1). Before model ``t`` is trained,
    DEEMPHASIZE (Table 4) removes features drawn from ``p`` until the previous model's
    marginalised error passes a threshold; the model is trained on the remaining columns only;
    IMPORTANCE (Table 2) then measures how often resampling each feature from its marginal
    changes the new model's prediction, and important features gain removal probability
    (line 9). The final prediction is the vote weighted by ``log(1 / beta_t)``.

    Parameters
    ----------
    estimator : classifier, default=None
        The base learner LEARN, cloned for every round and never modified;
        ``DecisionTreeClassifier()`` when None.
    n_estimators : int, default=20
        Number of rounds T (the paper uses 20 experts). More experts keep helping under
        deletion, at a cost linear in T: digits / 16, two stratified 50/50 splits, 300 test
        rows, error clean / with 25 % of the pixels deleted (NaN): 5 experts 0.107 / 0.349,
        10 experts 0.047 / 0.265, 20 experts 0.034 / 0.215, 40 experts 0.027 / 0.165 (a forest
        of 100 trees: 0.019 / 0.061; ``benchmarks/bench_defaults_quality.py``). The default
        stays the paper's 20; fewer than 20 (the old demo's 10) is not advised.
    importance_samples : int, default=500
        Sampled examples per feature in IMPORTANCE (the ``T = 500`` of Table 2).
    marginal_samples : int, default=500
        Sampled examples per marginalised error in DEEMPHASIZE (the ``S = 500`` of Tables 3-4).
    min_removed : float in [0, 1], default=0.15
        Fraction of the features always removed from round 2 on (rounded up).
    min_kept : float in [0, 1], default=0.10
        Fraction of the features always kept (rounded up; at least one feature is kept).
    groups : sequence of array-like of int, or ndarray of int, default=None
        Optional feature groups treated as single units by IMPORTANCE, the distribution ``p``,
        MARGINALIZE and the removal (e.g. the five encodings of THRESHOLD); columns in no group
        are units of their own. None: every feature is a unit (the paper). Pass them whenever
        the threat deletes features together: they are what makes FeatureBoost robust to it,
        and no default can guess them. THRESHOLD with 4 of its 5 encodings deleted in every
        test row (three seeds): error 0.000 / 0.000 / 0.004 with ``groups``, 0.224 / 0.187 /
        0.246 without, 0.363 / 0.409 / 0.304 for a forest of 100 trees.
    voting : {"hard", "soft"}, default="hard"
        ``"hard"``: the paper's weighted vote of predicted classes; an exact tie goes to the
        positive class ``classes_[1]`` (Table 1's ``>=``), with several classes to the last
        tied class in ``classes_`` order (see Notes). ``"soft"``: the weighted average of the
        sub-models' probabilities, which enables ``predict_proba``; ``predict`` is its argmax.
    n_jobs : int, default=None
        Accepted for API symmetry with the other ensembles; the rounds are sequential and the
        vectorised statistics already batch their ``predict`` calls, so it is not used.
    random_state : None, int or numpy Generator, default=None
        Seeds the sampling and every sub-model (nested ``random_state`` parameters).
    nan_policy : {"absent", "raise"}, default="absent"
        Meaning of NaN in ``predict`` / ``predict_proba``. ``"absent"``: the feature is absent
        for that row and the row is predicted by sleeping experts (see Notes); ``"raise"``:
        NaN is an error, as in scikit-learn. In ``fit``, with ``"absent"``, NaN is passed to
        a base learner that accepts it (decision trees do) and replaced by the column's mean
        over its present entries otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    estimators_ : list of classifier
        The T sub-models, fitted on encoded labels ``0 .. n_classes - 1``.
    feature_subsets_ : list of ndarray of int
        The columns each sub-model was trained on and is given at prediction.
    used_features_ : list of ndarray of int
        The columns each sub-model's prediction can depend on (a subset of its
        ``feature_subsets_``): split features of a tree or of a forest / boosting of trees,
        nonzero coefficients of a linear model, positive ``feature_importances_``, else all
        its columns. A non-tree expert sleeps on a row in which one of them is NaN.
    column_means_ : ndarray of shape (n_features,)
        (Weighted) training means, given for absent features when every expert sleeps.
    estimator_weights_ : ndarray of shape (n_estimators,)
        ``max(log(1 / beta_t), 0)``.
    estimator_errors_ : ndarray of shape (n_estimators,)
        Training error rate eps_t of each sub-model.
    marginal_errors_ : ndarray of shape (n_estimators,)
        Full-marginalisation error eps_fm of each sub-model (every feature resampled).
    n_removed_ : ndarray of int, shape (n_estimators,)
        Units removed before each round (K of Table 4).
    importances_ : ndarray of shape (n_estimators, n_units)
        IMPORTANCE of each sub-model.
    feature_distributions_ : ndarray of shape (n_estimators, n_units)
        The removal distribution p^t used in each round.
    feature_distribution_ : ndarray of shape (n_units,)
        The distribution after the last update (p^{T+1}). One entry per feature, or per unit
        (group, then ungrouped column) when ``groups`` is given.
    units_ : list of ndarray of int
        The columns of each unit.

    Notes
    -----
    The pseudocode has slips; this implementation follows the text (see
    ``docs/reproduction/featureboost.md``):

    * eps_t (Table 1, line 7) is the training error *rate*, so that
      ``beta_t = max(eps_t / (1 - eps_t), 0.01)`` makes sense. Weights ``log(1 / beta_t)`` are
      clipped at 0 (a model worse than chance does not vote; with several classes the paper's
      binary rule has no other meaning); if all are 0 every model gets weight 1.
    * Ties of the hard vote follow Table 1's output, ``h_f = 1`` when
      ``sum_t log(1/beta_t) h_t >= 1/2 sum_t log(1/beta_t)``: with two classes an exact tie
      goes to the positive class ``classes_[1]``. With several classes (the paper has only
      two) the plurality vote's tie goes to the last tied class in ``classes_`` order (sorted
      labels), which is the same rule for two classes. Votes within 1e-10 of the total weight
      count as tied (rounding of the sums). Ties are common with trees: an unpruned tree has
      training error 0, so every expert gets weight ``log(100)`` and an even number of them
      can split evenly: on THRESHOLD with 20 trees, 0.7 % of the test rows tie with 40 % of
      their features resampled, 8 % with 80 %, and Table 1's rule has 0.2-0.7 points more
      error there than ties to ``classes_[0]`` (``docs/reproduction/featureboost.md``).
    * Round 1 has no previous model: it is trained on all features (the brute-force strategy
      of §2 starts from S = {}); the 15 % minimum removal applies from round 2.
    * DEEMPHASIZE's threshold is ``((T - t) eps_{t-1} + t eps_fm) / T`` as in the text (Table 4
      omits ``/ T``). K starts at the minimum removal and stops at the first K whose
      marginalised error reaches the threshold, or at the maximum removal.
    * MARGINALIZE's error is the error rate against the labels after all K features of a
      sampled example are resampled (Table 4 initialises it with the training error; Table 3's
      indentation would otherwise count up to K errors per example).
    * eps_fm in line 9 is the one DEEMPHASIZE computed for h_{t-1}; in round 1 it is h_1's own.
      Weights ``w`` are clipped at 0 after the update so that p stays a distribution.
    * Features are removed afresh from the full set in every round (p carries the memory).
    * Test rows with NaN are predicted by sleeping experts (§6: "only hypotheses with no
      missing values vote"). An expert sleeps on a row exactly when its prediction for that
      row depends on a missing feature: for a tree, when the row's path (followed on the
      present features) reaches a split on a missing feature; for another learner, when one
      of its ``used_features_`` is missing. An awake expert predicts what it would with the
      missing values present, so its vote is exact. When every expert sleeps on a row, the
      experts that need the fewest missing features vote, given the training means of what
      they miss (``robustclf.ensemble._voting``); this is the sleeping rule itself whenever
      one expert is awake. The earlier rule (sleep when any column the expert was trained on
      is missing) silenced nearly every expert, each keeping >= 85 % of the columns. On votes
      with 2 NaN per test row (50 stratified 70/30 splits, ``?`` coded 0.5, trees) it had
      error 0.129 against 0.081 for a mean-imputing pipeline, and sleeping on the union of a
      tree's split features 0.112; the per-row rule has 0.073 (paired difference with the
      pipeline -0.0075 +- 0.0058, 95 % CI). Neither older rule is offered.
    * ``sample_weight``: a row of weight k counts as k copies of the row everywhere: in the
      weighted training error eps_t, in the draws of sampled examples and donors of IMPORTANCE
      and MARGINALIZE (proportional to the weights), and in each sub-model's fit (its own
      ``sample_weight`` when ``fit`` has one, otherwise the rows repeated by their weight,
      which needs integer weights). With integer weights and a fixed ``random_state`` the fit
      is draw for draw the fit on the rows repeated in place (``np.repeat(X, w, axis=0)``);
      on the repeated rows in any other order it is the same only in distribution.

    References
    ----------
    .. [1] J. O'Sullivan, J. Langford, R. Caruana and A. Blum. FeatureBoost: a meta-learning
       algorithm that improves model robustness. ICML 2000, Tables 1-4.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from robustclf.datasets import make_threshold
    >>> from robustclf.ensemble import FeatureBoostClassifier
    >>> X, y, groups = make_threshold(100, random_state=0)
    >>> clf = FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=5,
    ...                              random_state=0).fit(X, y)
    >>> len(clf.feature_subsets_)
    5
    """

    #: Table 1's ``>=``: a tie of the hard vote goes to the last tied class (``classes_[1]``).
    _hard_ties = "last"

    def __init__(self, estimator=None, n_estimators=20, *, importance_samples=500,
                 marginal_samples=500, min_removed=0.15, min_kept=0.10, groups=None,
                 voting="hard", n_jobs=None, random_state=None, nan_policy="absent"):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.importance_samples = importance_samples
        self.marginal_samples = marginal_samples
        self.min_removed = min_removed
        self.min_kept = min_kept
        self.groups = groups
        self.voting = voting
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.nan_policy = nan_policy

    def _check_params(self) -> dict:
        params = dict(
            n_estimators=check_int(self.n_estimators, "n_estimators"),
            importance_samples=check_int(self.importance_samples, "importance_samples"),
            marginal_samples=check_int(self.marginal_samples, "marginal_samples"),
            min_removed=check_fraction(self.min_removed, "min_removed"),
            min_kept=check_fraction(self.min_kept, "min_kept"),
        )
        check_option(self.voting, "voting", ("hard", "soft"))
        check_n_jobs(self.n_jobs)
        self._check_nan_policy()
        if params["min_removed"] + params["min_kept"] > 1:
            raise ValueError(f"min_removed + min_kept must be at most 1, got "
                             f"{params['min_removed']} + {params['min_kept']}.")
        return params

    def fit(self, X, y, sample_weight=None):
        """Run T rounds of FeatureBoost (Table 1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; NaN is handled as ``nan_policy`` says.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights, not all zero; a row of weight k counts as k copies of
            it (see Notes). A base learner whose ``fit`` has no ``sample_weight`` needs
            integer weights.

        Returns
        -------
        self : FeatureBoostClassifier
        """
        params = self._check_params()
        base = default_estimator(self.estimator)
        X, y, weight = self._fit_input(X, y, sample_weight, base)
        check_classification_targets(y)
        rng = check_generator(self.random_state)
        self.classes_, y_enc = np.unique(y, return_inverse=True)
        fit_member = _member_fitter(base, weight)
        sampler = RowSampler(X.shape[0], weight)
        n_rounds = params["n_estimators"]
        n_features = X.shape[1]
        units = make_units(self.groups, n_features)
        unit_of = unit_of_columns(units, n_features)
        n_units = len(units)
        k_max = min(math.floor((1 - params["min_kept"]) * n_units + 1e-9), n_units - 1)
        k_min = min(math.ceil(params["min_removed"] * n_units - 1e-9), k_max)
        seeds = rng.integers(0, _MAX_SEED, size=n_rounds)

        w = np.full(n_units, 1.0 / n_units)
        all_columns = np.arange(n_features)
        models, subsets, errors, full_errors, removed, imps, dists = [], [], [], [], [], [], []
        for t in range(1, n_rounds + 1):
            p = w / w.sum() if w.sum() > 0 else np.full(n_units, 1.0 / n_units)
            dists.append(p)
            if t == 1:
                columns, k = all_columns, 0
            else:
                gone, k = deemphasize(
                    X, y_enc, models[-1].predict, subsets[-1], unit_of, p,
                    previous_error=errors[-1], full_error=full_errors[-1], t=t,
                    n_estimators=n_rounds, n_samples=params["marginal_samples"],
                    k_min=k_min, k_max=k_max, rng=rng, sampler=sampler)
                columns = all_columns[~np.isin(unit_of, gone)]
            model = fit_member(seeded_clone(base, int(seeds[t - 1])), X[:, columns], y_enc)
            eps = float(np.average(model.predict(X[:, columns]) != y_enc, weights=weight))
            full = self._full_marginal_error(X, y_enc, model, columns, unit_of, n_units,
                                             params["marginal_samples"], rng, sampler)
            imp = importance(X, model.predict, columns, unit_of, n_units,
                             params["importance_samples"], rng, sampler)
            update_fm = full_errors[-1] if t > 1 else full
            w = np.maximum(w + imp * (update_fm - eps), 0.0)
            models.append(model)
            subsets.append(columns)
            errors.append(eps)
            full_errors.append(full)
            removed.append(k)
            imps.append(imp)

        self.estimators_ = models
        self.feature_subsets_ = subsets
        self.estimator_errors_ = np.asarray(errors)
        self.estimator_weights_ = self._vote_weights(self.estimator_errors_)
        self.marginal_errors_ = np.asarray(full_errors)
        self.n_removed_ = np.asarray(removed, dtype=np.intp)
        self.importances_ = np.asarray(imps)
        self.feature_distributions_ = np.asarray(dists)
        self.feature_distribution_ = (w / w.sum() if w.sum() > 0
                                      else np.full(n_units, 1.0 / n_units))
        self.units_ = units
        self._finish_fit()
        return self

    @staticmethod
    def _vote_weights(errors: np.ndarray) -> np.ndarray:
        """``max(log(1 / beta_t), 0)`` with ``beta_t = max(eps_t / (1 - eps_t), 0.01)``."""
        with np.errstate(divide="ignore"):
            beta = np.maximum(errors / np.maximum(1.0 - errors, 0.0), BETA_MIN)
        return np.maximum(-np.log(beta), 0.0)

    @staticmethod
    def _full_marginal_error(X, y_enc, model, columns, unit_of, n_units, n_samples, rng,
                             sampler):
        """eps_fm: error rate when every feature of a sampled example is resampled."""
        rows = sampler(rng, n_samples)
        donors = sampler(rng, (n_samples, n_units))
        ranks = np.zeros((n_samples, n_units), dtype=np.intp)
        return float(marginal_error(X, y_enc, model.predict, columns, unit_of, ranks, donors,
                                    rows, [n_units])[0])


def _member_fitter(base, weight):
    """``fit(model, X, y)`` giving each sub-model the row weights in the way it can take them.

    Its own ``sample_weight`` when its ``fit`` has one; otherwise the rows repeated by their
    (integer) weight, i.e. the k copies themselves.
    """
    if weight is None:
        return lambda model, X, y: model.fit(X, y)
    if has_fit_parameter(base, "sample_weight"):
        return lambda model, X, y: model.fit(X, y, sample_weight=weight)
    if not np.all(weight == np.round(weight)):
        raise ValueError(
            f"sample_weight must be integers for a base learner without sample_weight "
            f"({type(base).__name__}): its rows are repeated by their weight. Wrap it in "
            f"WeightResamplingClassifier(estimator, max_samples=1.0) for other weights.")
    counts = weight.astype(np.intp)
    return lambda model, X, y: model.fit(np.repeat(X, counts, axis=0),
                                         np.repeat(y, counts, axis=0))
