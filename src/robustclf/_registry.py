"""One list of the estimators the CLI, the demo and the common tests know about.

A method issue adds its estimator by appending one :class:`EstimatorEntry` to ``_ENTRIES``;
nothing else in the core changes. Factories import lazily so that ``robustclf list`` stays fast.
"""

from __future__ import annotations

import importlib
import importlib.util
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
    requires : tuple of str, default=()
        Optional packages the estimator needs (e.g. a conic solver); entries whose packages
        are missing are left out of the demo, the CLI's defaults and the common tests.
    """

    name: str
    factory: Callable[[], BaseEstimator]
    robust: bool
    linear: bool
    description: str
    expected_failed_checks: dict[str, str] = field(default_factory=dict)
    requires: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        """Whether the optional packages in ``requires`` are installed."""
        return all(importlib.util.find_spec(module) is not None for module in self.requires)


def _absent_as_zero():
    """The imputer in front of the baselines that reject NaN: an absent entry reads as 0.

    Zero is what the library's linear models do with an absent feature (its term is dropped)
    and what the papers' deletion writes, so on the same corrupted data every linear model
    sees the same thing; it is named in every description that uses it.
    """
    from sklearn.impute import SimpleImputer

    return SimpleImputer(strategy="constant", fill_value=0.0, keep_empty_features=True)


def _linear_svc():
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    return make_pipeline(_absent_as_zero(),
                         LinearSVC(loss="hinge", C=1.0, max_iter=20_000, random_state=0))


def _logistic_regression():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(_absent_as_zero(), LogisticRegression(C=1.0, max_iter=2_000))


def _random_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1)


def _lazy(module: str, name: str, **params) -> Callable[[], BaseEstimator]:
    """A factory that imports ``module`` only when called and builds ``name(**params)``."""

    def factory() -> BaseEstimator:
        return getattr(importlib.import_module(module), name)(**params)

    factory.__qualname__ = f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    return factory


_ENTRIES: list[EstimatorEntry] = [
    EstimatorEntry("linear_svc", _linear_svc, robust=False, linear=True,
                   description="scikit-learn LinearSVC, hinge loss (SVMlight-style baseline); "
                               "absent (NaN) entries imputed as 0 (SimpleImputer)"),
    EstimatorEntry("logistic", _logistic_regression, robust=False, linear=True,
                   description="scikit-learn LogisticRegression (L2); absent (NaN) entries imputed "
                               "as 0 (SimpleImputer)"),
    EstimatorEntry("random_forest", _random_forest, robust=False, linear=False,
                   description="scikit-learn RandomForestClassifier, 100 trees (absent (NaN) "
                               "entries handled natively by its trees)"),
    EstimatorEntry(
        "deletion_lp",
        _lazy("robustclf.linear", "DeletionRobustLP", budget=1, solver="subgradient",
              max_iter=10, random_state=0),
        robust=True, linear=True,
        description="deletion-robust LP (Dekel & Shamir 2008, Eq. 4), budget 1 feature, "
                    "C/gamma = 10, AdaGrad subgradient (10 epochs; uncertified, it warns)"),
    EstimatorEntry(
        "deletion_perceptron",
        _lazy("robustclf.linear", "DeletionRobustPerceptron", budget=1.0, n_epochs=3,
              random_state=0),
        robust=True, linear=True,
        description="Perceptron with projections onto the cube against a deleting adversary, "
                    "averaged (Dekel & Shamir 2008, §3), budget 1",
        expected_failed_checks={
            "check_fit2d_1feature": "budget=1 equals the total value of a single feature, so "
            "P = V([n]) - N = 0 and Eq. (12) is undefined (ValueError naming budget)",
            "check_sample_weight_equivalence_on_dense_data": "an online method depends on the "
            "order of its rows: a row of integer weight k is exactly k presentations, so "
            "fit(X, sample_weight=k) is fit(X.repeat(k)) bit for bit for rows in the same "
            "order (tests/linear/test_deletion_weights.py), but the check shuffles the "
            "weighted rows and not the repeated ones"}),
    EstimatorEntry(
        "fdrop", _lazy("robustclf.linear", "FDROPClassifier", budget=1.0, C=1.0, tol=1e-4),
        robust=True, linear=True, requires=("clarabel",),
        description="FDROP: hinge loss against deletion of the K=1 most useful features, "
                    "exact QP (Globerson & Roweis 2006)",
        expected_failed_checks={
            name: "the weighted and the repeated fits solve the same QP (objectives equal to "
            "1e-9 relative, tests/linear/test_fdrop_weights.py), each to Clarabel's interior-"
            "point accuracy (~1e-8): their decision values differ by ~1e-7 (8e-8 on values up "
            "to 3), above the check's rtol=1e-7 on every entry"
            for name in ("check_sample_weight_equivalence_on_dense_data",
                         "check_sample_weight_equivalence_on_sparse_data")}),
    EstimatorEntry(
        "dropout_svc", _lazy("robustclf.linear", "DropoutSVC", q=0.5, C=1.0),
        robust=True, linear=True,
        description="Dropout-SVM: hinge loss marginalised over dropout noise q=0.5, Newton on "
                    "the IRLS bound (Chen et al. 2014)"),
    EstimatorEntry(
        "dropout_logistic", _lazy("robustclf.linear", "DropoutLogisticRegression", q=0.5, C=1.0),
        robust=True, linear=True,
        description="Dropout-Logistic: logistic loss marginalised over dropout noise q=0.5, "
                    "Newton on the Polya-Gamma bound (Chen et al. 2014)"),
    EstimatorEntry(
        "geometric_svc", _lazy("robustclf.missing", "GeometricMarginSVC", C=1.0, max_iter=2),
        robust=True, linear=False,
        description="geometric-margin SVM for absent (NaN) features, linear kernel, 2 scaling "
                    "updates (Chechik et al. 2007)",
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": "weights are exact (C w_i in "
            "every SVM solve), but libsvm stops at svm_tol=1e-3 and this check compares at "
            "rtol 1e-7: it passes with svm_tol=1e-10 (10 s); tests/missing/"
            "test_missing_weights_and_nan.py checks weights against repeated rows at "
            "svm_tol=1e-9"}),
    EstimatorEntry(
        "featureboost",
        _lazy("robustclf.ensemble", "FeatureBoostClassifier", n_estimators=10,
              importance_samples=200, marginal_samples=200, voting="soft", random_state=0),
        robust=True, linear=False,
        description="FeatureBoost over decision trees, 10 experts (O'Sullivan et al. 2000)",
        expected_failed_checks={
            "check_sample_weight_equivalence_on_dense_data": "randomised: a weight-k row is "
            "drawn like k copies, but the check shuffles the weighted rows, so the draws "
            "differ; equal in distribution only (exact for rows repeated in place, tested in "
            "tests/ensemble)"}),
    EstimatorEntry(
        "rolr", _lazy("robustclf.linear", "RobustLogisticRegression", outlier_fraction=0.1),
        robust=True, linear=True,
        description="RoLR: trimmed-correlation robust logistic regression (Feng et al. 2014), "
                    "10% of rows trimmed"),
]


def estimator_entries(*, robust: bool | None = None,
                      available: bool = True) -> list[EstimatorEntry]:
    """Registered estimators, optionally only the robust ones or only the baselines.

    With ``available=True`` (default) entries whose optional packages are missing are skipped.
    """
    return [e for e in _ENTRIES
            if (robust is None or e.robust == robust) and (e.available or not available)]


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
