"""The instances every estimator test runs on, with their reasoned expected failures.

One table for every test that needs an instance of each public estimator: scikit-learn's
common checks (``tests/test_common.py``, which also uses the expected failures) and the fuzzing
harness (``tests/fuzz``, which fits one instance per class). An estimator that needs a required
argument (a base learner) or settings that keep the checks fast gets them here, once
(imbalanced-learn's ``instance_generator`` convention).
"""

import importlib.util

from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from robustclf import (
    DeletionRobustLP,
    ExplicitCorruptionClassifier,
    FDROPClassifier,
    GaussianMixtureImputer,
    GeometricMarginSeparableSVC,
    GroupMissingIndicator,
    MCFClassifier,
    MixtureOfExpertsClassifier,
    WeightResamplingClassifier,
)
from robustclf._registry import estimator_entries
from robustclf.experiments._chen_common import FreeBiasLinearSVC
from robustclf.experiments.chechik import PerPatternSVC

HAS_CONIC = all(importlib.util.find_spec(name) for name in ("cvxpy", "clarabel"))
_WEIGHT_CHECKS = ("check_sample_weight_equivalence_on_dense_data",
                  "check_sample_weight_equivalence_on_sparse_data")


def _registered(name):
    """The registry's instance (the settings the demo and the CLI use), or None if its
    optional packages are missing."""
    entries = {e.name: e for e in estimator_entries(robust=True)}
    return entries[name].factory() if name in entries else None


# -- reasons shared by several cases ------------------------------------------------------------
_LP_NOT_UNIQUE = (
    "Eq. (4)'s optimum is not unique (the check's 15 rows x 30 features: optimum 0, a polytope "
    "of optimal (w, b)); weighted and repeated fits reach the same value (1e-15) at different "
    "optimal vertices; tests/linear/test_deletion_weights.py checks the value and that the "
    "weighted solution is optimal for the repeated rows")
_STOCHASTIC = ("stochastic subgradient: a weight-k row and k copies of it define the same "
               "objective, not the same mini-batches")
_SEPARABLE = (
    "hard-margin Eq. (4) has no solution on the check's data, which are not strictly linearly "
    "separable: fit raises a ValueError by design (the same properties are tested on separable "
    "data in tests/missing/test_geometric_socp.py)")

# (instance, {check name: reason it is expected to fail})
CASES = [
    # -- robustclf.linear --
    (_registered("deletion_lp"), dict.fromkeys(_WEIGHT_CHECKS, _LP_NOT_UNIQUE)),
    (DeletionRobustLP(), dict.fromkeys(_WEIGHT_CHECKS, _LP_NOT_UNIQUE)),   # solver="auto"
    (_registered("deletion_perceptron"), {
        "check_fit2d_1feature": "budget=1 equals the total value of a single feature, so "
        "P = V([n]) - N = 0 and Eq. (12) is undefined (ValueError naming budget)",
        **dict.fromkeys(_WEIGHT_CHECKS,
                        "an online method depends on the order of its rows: a row of integer "
                        "weight k is exactly k presentations, so fit(X, sample_weight=k) is "
                        "fit(X.repeat(k)) bit for bit for rows in the same order "
                        "(tests/linear/test_deletion_weights.py), but the check shuffles the "
                        "weighted rows and not the repeated ones")}),
    (_registered("fdrop"), dict.fromkeys(
        _WEIGHT_CHECKS,
        "the weighted and the repeated fits solve the same QP (objectives equal to 1e-9 "
        "relative, tests/linear/test_fdrop_weights.py), each to Clarabel's interior-point "
        "accuracy (~1e-8): their decision values differ by ~1e-7, above the check's rtol=1e-7")),
    # budget 0.5, not the registry's 1: on the checks' 3-class blobs (2 features) K = 1 makes
    # the optimum of two one-vs-rest problems the constant classifier (exact objective
    # 200.0000002, from a w of order 1e-7 whose argmax still scores 0.88); sgd returns w = 0
    # there (objective 200.0), whose predictions are ties (0.62 < the check's 0.83)
    (FDROPClassifier(budget=0.5, solver="sgd", max_iter=20, random_state=0),
     dict.fromkeys(_WEIGHT_CHECKS, _STOCHASTIC)),
    # tol tightened for the weight checks: at C = 10 two fits stopped at the default relative
    # gradient 1e-6 give decision values ~2e-6 apart, above the checks' rtol=1e-7
    (_registered("dropout_svc").set_params(tol=1e-10), {}),
    (_registered("dropout_logistic").set_params(tol=1e-10), {}),
    (MCFClassifier(), {}),
    (MCFClassifier(loss="logistic", q=0.3), {}),
    # the wrapped LinearSVC gets a small max_iter: the checks' random data are far from
    # separable and the default's 1e6 passes would cost seconds per check
    (ExplicitCorruptionClassifier(LinearSVC(loss="hinge", max_iter=20_000, random_state=0),
                                  n_copies=2, random_state=0), dict.fromkeys(
        _WEIGHT_CHECKS,
        "a weight k scales one set of corrupted copies of the row; k repeated rows are "
        "corrupted independently (k times as many draws), so the fits differ at any finite "
        "n_copies")),
    (_registered("rolr"), {}),
    # -- robustclf.missing --
    # its weights are exact (C w_i in every SVM solve) and every solve is polished to the
    # optimum, so it meets the sample-weight equivalence check at rtol 1e-7 at its defaults
    (_registered("geometric_svc"), {}),
    *([(GeometricMarginSeparableSVC(tol=1e-3), dict.fromkeys([
        "check_fit_score_takes_y", "check_n_features_in_after_fitting",
        "check_estimators_dtypes", "check_sample_weights_pandas_series",
        "check_sample_weights_not_an_array", "check_sample_weights_list", "check_dtype_object",
        "check_classifier_data_not_an_array", "check_classifiers_train",
        "check_supervised_y_2d", "check_fit_idempotent", "check_fit_check_is_fitted",
        "check_n_features_in"], _SEPARABLE))] if HAS_CONIC else []),
    (GaussianMixtureImputer(n_components=2, random_state=0), {}),
    (GroupMissingIndicator(), {}),
    # -- robustclf.ensemble --
    (_registered("featureboost"), {
        "check_sample_weight_equivalence_on_dense_data": "randomised: a weight-k row is drawn "
        "like k copies, but the check shuffles the weighted rows, so the draws differ; equal "
        "in distribution only (exact for rows repeated in place, tested in tests/ensemble)"}),
    (MixtureOfExpertsClassifier(n_estimators=5, random_state=0), {
        "check_sample_weight_equivalence_on_dense_data": "bootstrap resamples drawn in "
        "proportion to the weights: equal to those of the repeated rows in distribution only "
        "(exact for rows repeated in place, tested in tests/ensemble); the check shuffles "
        "them"}),
    (WeightResamplingClassifier(DecisionTreeClassifier(max_depth=3, random_state=0),
                                max_samples=1.0, random_state=0), {}),
    # -- the experiments' baselines --
    (PerPatternSVC(), {}),
    (FreeBiasLinearSVC(), {}),
]
CASES = [(estimator, xfail) for estimator, xfail in CASES if estimator is not None]
