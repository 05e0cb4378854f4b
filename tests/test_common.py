"""scikit-learn's estimator checks over every robust estimator in the registry.

Known failures are declared per estimator, with a reason, in its ``EstimatorEntry``
(``robustclf._registry``), never by skipping a whole estimator.
"""

import importlib.util

import pytest
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from robustclf import (
    ExplicitCorruptionClassifier,
    GaussianMixtureImputer,
    GeometricMarginSeparableSVC,
    GroupMissingIndicator,
    MCFClassifier,
    MixtureOfExpertsClassifier,
    WeightResamplingClassifier,
)
from robustclf._registry import estimator_entries

_ENTRIES = {type(e.factory()).__name__: e for e in estimator_entries(robust=True)}


def _expected_failures(estimator):
    return _ENTRIES[type(estimator).__name__].expected_failed_checks


if _ENTRIES:

    @parametrize_with_checks([e.factory() for e in _ENTRIES.values()],
                             expected_failed_checks=_expected_failures)
    def test_sklearn_compatible_estimator(estimator, check):
        check(estimator)

else:  # pragma: no cover - only before any robust estimator exists

    def test_sklearn_compatible_estimator():
        pytest.skip("no robust estimator registered yet")


# Public classes outside the registry, each with its expected failures and their reasons.
_SEPARABLE_XFAIL = dict.fromkeys([
    "check_fit_score_takes_y", "check_n_features_in_after_fitting", "check_estimators_dtypes",
    "check_sample_weights_pandas_series", "check_sample_weights_not_an_array",
    "check_sample_weights_list", "check_dtype_object", "check_classifier_data_not_an_array",
    "check_classifiers_train", "check_supervised_y_2d", "check_fit_idempotent",
    "check_fit_check_is_fitted", "check_n_features_in"],
    "hard-margin Eq. (4) has no solution on the check's data, which are not strictly linearly "
    "separable: fit raises a ValueError by design (the same properties are tested on separable "
    "data in tests/missing/test_geometric_socp.py)")
_HAS_CONIC = all(importlib.util.find_spec(name) for name in ("cvxpy", "clarabel"))

_UNREGISTERED = [
    # -- robustclf.missing --
    (GaussianMixtureImputer(n_components=2, random_state=0), {}),
    (GroupMissingIndicator(), {}),
    *([(GeometricMarginSeparableSVC(tol=1e-3), _SEPARABLE_XFAIL)] if _HAS_CONIC else []),
    # -- robustclf.ensemble --
    (MixtureOfExpertsClassifier(n_estimators=5, random_state=0),
     {"check_sample_weight_equivalence_on_dense_data": "bootstrap resamples drawn in "
      "proportion to the weights: equal to those of the repeated rows in distribution only "
      "(exact for rows repeated in place, tested in tests/ensemble); the check shuffles them"}),
    (WeightResamplingClassifier(DecisionTreeClassifier(max_depth=3, random_state=0),
                                max_samples=1.0, random_state=0), {}),
    # -- robustclf.linear --
    (MCFClassifier(), {}),
    (MCFClassifier(loss="logistic", q=0.3), {}),
    # the wrapped LinearSVC gets a small max_iter: the checks' random data are far from
    # separable and the default's 1e6 passes would cost seconds per check
    (ExplicitCorruptionClassifier(LinearSVC(loss="hinge", max_iter=20_000, random_state=0),
                                  n_copies=2, random_state=0), dict.fromkeys([
        "check_sample_weight_equivalence_on_dense_data",
        "check_sample_weight_equivalence_on_sparse_data"],
        "a weight k scales one set of corrupted copies of the row; k repeated rows are "
        "corrupted independently (k times as many draws), so the fits differ at any finite "
        "n_copies")),
]
_UNREGISTERED_XFAIL = {id(estimator): xfail for estimator, xfail in _UNREGISTERED}


@parametrize_with_checks([estimator for estimator, _ in _UNREGISTERED],
                         expected_failed_checks=lambda est: _UNREGISTERED_XFAIL[id(est)])
def test_sklearn_compatible_unregistered(estimator, check):
    check(estimator)


def test_registry_names_are_unique():
    names = [e.name for e in estimator_entries()]
    assert len(names) == len(set(names))
