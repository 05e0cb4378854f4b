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

__all__ = ["THREATS", "EstimatorEntry", "estimator_entries", "get_entry", "make_estimator"]

#: The threats the demo and the benchmark measure: test-time deletion of random entries, of
#: whole feature groups (encodings, pixel blocks), by an adversary with a deletion budget, and
#: outliers injected into the training rows.
THREATS = ("random_deletion", "group_deletion", "adversarial_deletion", "training_outliers")


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
    requires : tuple of str, default=()
        Optional packages the estimator needs (e.g. a conic solver); entries whose packages
        are missing are left out of the demo, the CLI's defaults and the common tests.
    param_grid : dict, default={}
        The hyper-parameters the demo and the benchmark choose, each under the threat being
        measured, by one rule for every model: a grid search on the training rows with the
        library's corruption scorer (:func:`robustclf.evaluation.make_corruption_scorer`) and
        the same inner folds, then a refit on all training rows. Keys are ``set_params``
        names (``step__param`` inside a pipeline); an empty grid keeps the factory's settings.
    threats : tuple of str or None, default=None
        What a robust method was built for, among :data:`THREATS`; the demo shows it under
        those threats only (the benchmark under all). ``None``, for the baselines, means every
        threat.
    """

    name: str
    factory: Callable[[], BaseEstimator]
    robust: bool
    linear: bool
    description: str
    requires: tuple[str, ...] = ()
    param_grid: dict = field(default_factory=dict)
    threats: tuple[str, ...] | None = None

    @property
    def available(self) -> bool:
        """Whether the optional packages in ``requires`` are installed."""
        return all(importlib.util.find_spec(module) is not None for module in self.requires)


def _absent_as_zero():
    """The steps in front of the baselines that reject NaN: an absent entry reads as 0.

    Zero is what the library's linear models do with an absent feature (its term is dropped)
    and what the papers' deletion writes, so on the same corrupted data every linear model
    sees the same thing; it is named in every description that uses it.

    Two steps: values made floating point (:func:`robustclf._affine.as_float`), then a
    ``SimpleImputer`` writing 0. Without the first, integer data from the Python API failed
    inside scikit-learn ("fill_value ... cannot be cast"), at fit and also at prediction
    after a fit on floats. Certification reads both steps exactly (:mod:`robustclf._affine`).
    """
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import FunctionTransformer

    from ._affine import as_float

    return (FunctionTransformer(as_float, feature_names_out="one-to-one"),
            SimpleImputer(strategy="constant", fill_value=0.0, keep_empty_features=True))


def _linear_svc():
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    return make_pipeline(*_absent_as_zero(),
                         LinearSVC(loss="hinge", C=1.0, max_iter=20_000, random_state=0))


def _logistic_regression():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    return make_pipeline(*_absent_as_zero(), LogisticRegression(C=1.0, max_iter=2_000))


def _imputed_logistic():
    """What a practitioner writes for a linear model on data with holes: mean imputation with
    missing indicators, standardisation, logistic regression."""
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        SimpleImputer(strategy="mean", add_indicator=True, keep_empty_features=True),
        StandardScaler(), LogisticRegression(C=1.0, max_iter=2_000))


def _hist_gradient_boosting():
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=0)


def _random_forest():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1)


def _robust_filter_logistic():
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from .experiments._robust_filter import MCDFilterClassifier

    return make_pipeline(SimpleImputer(strategy="mean", keep_empty_features=True),
                         MCDFilterClassifier(LogisticRegression(max_iter=2_000),
                                             outlier_fraction=0.1, n_components=20,
                                             random_state=0))


def _lazy(module: str, name: str, **params) -> Callable[[], BaseEstimator]:
    """A factory that imports ``module`` only when called and builds ``name(**params)``."""

    def factory() -> BaseEstimator:
        return getattr(importlib.import_module(module), name)(**params)

    factory.__qualname__ = f"{name}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
    return factory


#: Grids list the registry setting first, so that a truncated grid (``--fast``: the first
#: value, ``--medium``: the first two) always holds it (tested).
_C3 = [1.0, 0.1, 10.0]
_BUDGETS = [1.0, 2.0, 4.0]

_ENTRIES: list[EstimatorEntry] = [
    # -- baselines: the papers' own (absent read as 0) ---------------------------------------
    EstimatorEntry("linear_svc", _linear_svc, robust=False, linear=True,
                   param_grid={"linearsvc__C": [1.0, 0.1, 0.01]},
                   description="scikit-learn LinearSVC, hinge loss (SVMlight-style baseline of "
                               "the papers); absent (NaN) entries imputed as 0 (SimpleImputer)"),
    EstimatorEntry("logistic", _logistic_regression, robust=False, linear=True,
                   param_grid={"logisticregression__C": _C3},
                   description="scikit-learn LogisticRegression (L2); absent (NaN) entries "
                               "imputed as 0 (SimpleImputer), as the papers delete"),
    # -- baselines a practitioner would pick ----------------------------------------------------
    EstimatorEntry("imputed_logistic", _imputed_logistic, robust=False, linear=False,
                   param_grid={"logisticregression__C": _C3},
                   description="SimpleImputer(mean, add_indicator=True) + StandardScaler + "
                               "LogisticRegression: absent (NaN) entries become the training "
                               "mean plus a missing-indicator feature (not certifiable: the "
                               "indicators are not affine in x; attacked as a black box)"),
    EstimatorEntry("hist_gradient_boosting", _hist_gradient_boosting, robust=False,
                   linear=False, param_grid={"learning_rate": [0.1, 0.05, 0.2]},
                   description="scikit-learn HistGradientBoostingClassifier, 100 iterations; "
                               "absent (NaN) entries routed natively (each split learns which "
                               "side missing values go to)"),
    EstimatorEntry("random_forest", _random_forest, robust=False, linear=False,
                   param_grid={"min_samples_leaf": [1, 3]},
                   description="scikit-learn RandomForestClassifier, 100 trees; absent (NaN) "
                               "entries handled natively by its trees"),
    EstimatorEntry("robust_filter_logistic", _robust_filter_logistic, robust=False,
                   linear=True, threats=("training_outliers",),
                   param_grid={"mcdfilterclassifier__outlier_fraction":
                               [0.1, 0.05, 0.2]},
                   description="robust-covariance outlier filter (MinCovDet distances, the most "
                               "outlying rows dropped) + LogisticRegression, the practitioner's "
                               "answer to training outliers; absent (NaN) entries imputed with "
                               "the training mean (SimpleImputer)"),
    # -- the library's robust methods, each set up for the threat it was built for -------------
    EstimatorEntry(
        "deletion_lp",
        _lazy("robustclf.linear", "DeletionRobustLP", budget=1.0, random_state=0),
        robust=True, linear=True, threats=("adversarial_deletion",),
        param_grid={"budget": _BUDGETS},
        description="deletion-robust LP (Dekel & Shamir 2008, Eq. 4) against an adversary "
                    "deleting features of total value `budget` (1, so that it fits data of two "
                    "features; chosen per threat), "
                    "C/gamma = 10, solved to its certified optimum (the default solver: cutting "
                    "planes up to 256 features, e.g. digits' 64; the full LP up to 200,000 "
                    "rows x features; else first order); "
                    "absent (NaN) entries contribute 0"),
    EstimatorEntry(
        "deletion_perceptron",
        _lazy("robustclf.linear", "DeletionRobustPerceptron", budget=1.0, n_epochs=3,
              random_state=0),
        robust=True, linear=True, threats=("adversarial_deletion",),
        param_grid={"budget": _BUDGETS},
        description="Perceptron with projections onto the cube against a deleting adversary, "
                    "averaged (Dekel & Shamir 2008, §3), budget 1 (chosen per threat); absent "
                    "(NaN) entries contribute 0"),
    EstimatorEntry(
        "fdrop", _lazy("robustclf.linear", "FDROPClassifier", budget=1.0, C=1.0, tol=1e-4),
        robust=True, linear=True, requires=("clarabel",), threats=("adversarial_deletion",),
        param_grid={"budget": _BUDGETS},
        description="FDROP: hinge loss against deletion of the K most useful features (K=1; "
                    "chosen per threat), exact QP (Globerson & Roweis 2006); absent (NaN) "
                    "entries contribute 0"),
    EstimatorEntry(
        "dropout_svc", _lazy("robustclf.linear", "DropoutSVC", q=0.2),
        robust=True, linear=True, threats=("random_deletion",),
        param_grid={"q": [0.2, 0.1, 0.5], "C": [10.0, 1.0, 0.1]},
        description="Dropout-SVM: hinge loss marginalised over dropout noise (the defaults "
                    "q=0.2, C=10; q and C chosen per threat), the Gaussian approximation of "
                    "the expected hinge loss minimised by Newton (Chen et al. 2014); absent "
                    "(NaN) entries contribute 0"),
    EstimatorEntry(
        "dropout_logistic", _lazy("robustclf.linear", "DropoutLogisticRegression", q=0.1),
        robust=True, linear=True, threats=("random_deletion",),
        param_grid={"q": [0.1, 0.2, 0.5], "C": [10.0, 1.0, 0.1]},
        description="Dropout-Logistic: logistic loss marginalised over dropout noise (the "
                    "defaults q=0.1, C=10; q and C chosen per threat), Newton on the "
                    "Polya-Gamma bound (Chen et al. 2014); absent (NaN) entries contribute 0"),
    EstimatorEntry(
        "geometric_svc", _lazy("robustclf.missing", "GeometricMarginSVC", C=1.0, max_iter=2),
        robust=True, linear=False, threats=("random_deletion", "group_deletion"),
        param_grid={"C": _C3},
        description="geometric-margin SVM for absent (NaN) features, linear kernel, 2 scaling "
                    "updates (Chechik et al. 2007); C chosen per threat"),
    EstimatorEntry(
        "featureboost",
        _lazy("robustclf.ensemble", "FeatureBoostClassifier", n_estimators=20,
              importance_samples=200, marginal_samples=200, voting="soft", random_state=0),
        robust=True, linear=False, threats=("group_deletion", "random_deletion"),
        param_grid={"n_estimators": [20, 10, 30]},
        description="FeatureBoost over decision trees, 20 experts, soft vote (O'Sullivan et al. "
                    "2000); the demo and the benchmark pass the data's feature groups "
                    "(`groups=`) when it has them; absent (NaN) entries handled by the trees"),
    EstimatorEntry(
        "rolr", _lazy("robustclf.linear", "RobustLogisticRegression", outlier_fraction=0.1),
        robust=True, linear=True, threats=("training_outliers",),
        param_grid={"outlier_fraction": [0.1, 0.05, 0.2]},
        description="RoLR: trimmed-correlation robust logistic regression (Feng et al. 2014), "
                    "10% of rows trimmed (chosen per threat); absent (NaN) entries contribute "
                    "0"),
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
