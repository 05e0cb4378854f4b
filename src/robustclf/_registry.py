"""One list of the estimators the CLI, the demo and the common tests know about.

A method issue adds its estimator by appending one :class:`EstimatorEntry` to ``_ENTRIES``;
nothing else in the core changes. Factories import lazily so that ``robustclf list`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sklearn.base import BaseEstimator

__all__ = ["EstimatorEntry", "estimator_entries", "get_entry", "make_estimator"]


@dataclass(frozen=True)
class EstimatorEntry:
    """How to build one estimator for the demo, the CLI and the common tests.

    Parameters
    ----------
    name : str
        Short name used on the command line and in reports.
    factory : callable
        Returns a new, unfitted estimator with the settings used by the demo and the CLI.
    robust : bool
        True for this library's robust methods, False for the standard baselines.
    linear : bool
        True when the fitted model exposes ``coef_`` and ``intercept_``, so that its exact
        worst case can be certified (:mod:`robustclf.certify`).
    description : str
        One line for ``robustclf list``.
    expected_failed_checks : dict, default={}
        scikit-learn estimator checks this estimator is known to fail, each with its reason;
        passed to ``parametrize_with_checks`` by the common tests (robust estimators only).
    """

    name: str
    factory: Callable[[], BaseEstimator]
    robust: bool
    linear: bool
    description: str
    expected_failed_checks: dict[str, str] = field(default_factory=dict)


def _linear_svc():
    from sklearn.svm import LinearSVC

    return LinearSVC(loss="hinge", C=1.0, max_iter=20_000, random_state=0)


def _logistic_regression():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, max_iter=2_000)


def _random_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1)


_ENTRIES: list[EstimatorEntry] = [
    EstimatorEntry("linear_svc", _linear_svc, robust=False, linear=True,
                   description="scikit-learn LinearSVC, hinge loss (SVMlight-style baseline)"),
    EstimatorEntry("logistic", _logistic_regression, robust=False, linear=True,
                   description="scikit-learn LogisticRegression (L2)"),
    EstimatorEntry("random_forest", _random_forest, robust=False, linear=False,
                   description="scikit-learn RandomForestClassifier, 100 trees"),
]


def estimator_entries(*, robust: bool | None = None) -> list[EstimatorEntry]:
    """All registered estimators, optionally only the robust ones or only the baselines."""
    return [e for e in _ENTRIES if robust is None or e.robust == robust]


def get_entry(name: str) -> EstimatorEntry:
    """The entry called ``name``; a ``ValueError`` lists the known names otherwise."""
    for entry in _ENTRIES:
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in _ENTRIES)
    raise ValueError(f"unknown estimator {name!r}; known estimators: {known}.")


def make_estimator(name: str) -> BaseEstimator:
    """A new, unfitted estimator built by the entry called ``name``."""
    return get_entry(name).factory()
