"""scikit-learn's estimator checks over every public estimator, in one place.

The instances that are checked and, beside each, the checks it is known to fail with the
reason live in ``tests/_estimator_cases.py`` (imbalanced-learn's convention: test arguments and
reasoned expected failures in one file, shared with the fuzzing harness of ``tests/fuzz``).
Every class that :func:`robustclf._discovery.all_estimators` finds must have a case, so a new
public class is checked as soon as it is exported.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from _estimator_cases import CASES as _CASES
from _estimator_cases import HAS_CONIC as _HAS_CONIC
from robustclf._discovery import all_estimators
from robustclf._registry import estimator_entries

_XFAIL = {id(estimator): xfail for estimator, xfail in _CASES}


@parametrize_with_checks([estimator for estimator, _ in _CASES],
                         expected_failed_checks=lambda estimator: _XFAIL[id(estimator)])
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_every_public_estimator_is_checked():
    checked = {type(estimator).__name__ for estimator, _ in _CASES}
    optional = set() if _HAS_CONIC else {"GeometricMarginSeparableSVC", "FDROPClassifier"}
    missing = {name for name, _ in all_estimators()} - checked - optional
    assert not missing, f"public estimators without a common-check case: {sorted(missing)}"


def test_discovery_finds_classifiers_and_transformers():
    classifiers = dict(all_estimators("classifier"))
    transformers = dict(all_estimators("transformer"))
    assert {"DropoutSVC", "GeometricMarginSVC", "FeatureBoostClassifier"} <= set(classifiers)
    assert set(transformers) == {"GaussianMixtureImputer", "GroupMissingIndicator"}
    with pytest.raises(ValueError, match="kind must be one of"):
        all_estimators("corruption")


def test_registry_names_are_unique():
    names = [e.name for e in estimator_entries()]
    assert len(names) == len(set(names))
