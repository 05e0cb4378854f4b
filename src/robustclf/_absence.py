"""What a missing value (NaN) means to each estimator: the library's one table.

Every classifier of the library reads NaN at prediction time as "this feature is absent from
this row" (``nan_policy="absent"``, the default) and handles it the way its own method's
theory says; ``nan_policy="raise"`` rejects NaN instead. :data:`ABSENCE_SEMANTICS` states, per
public class, what "absent" does; :func:`absence_table` renders it as the markdown table of
``docs/missing_values.md`` (a test keeps the page and this module in step).
"""

from __future__ import annotations

__all__ = ["ABSENCE_SEMANTICS", "absence_table"]

_ZERO = ("the term `w_j x_j` is dropped (the entry is read as 0 in the model's input space; "
         "behind a `StandardScaler` that is the training mean)")

_SLEEP = ("an expert sleeps on a row when its prediction depends on an absent feature (a tree: a "
          "split on the row's path; other learners: a feature they use); the awake experts "
          "vote. If all sleep, those missing the fewest used features vote, with the absent "
          "entries at the training mean")
_ENSEMBLE_FIT = "passed to base learners that accept NaN, else set to the column mean"

#: class name -> (what NaN does at prediction time, what NaN does in fit, why).
ABSENCE_SEMANTICS: dict[str, tuple[str, str, str]] = {
    "DeletionRobustLP": (
        _ZERO, "same (an absent entry is a deleted one)",
        "Dekel & Shamir (2008) Eq. 1: deletion sets the coordinate to zero"),
    "DeletionRobustPerceptron": (
        _ZERO, "same", "Dekel & Shamir (2008) Eq. 1"),
    "FDROPClassifier": (
        _ZERO, "same", "Globerson & Roweis (2006): deleted features are zeroed"),
    "DropoutSVC": (
        _ZERO, "same (the entry counts as already dropped)",
        "Chen et al. (2014): dropout noise writes zeros"),
    "DropoutLogisticRegression": (
        _ZERO, "same", "Chen et al. (2014): dropout noise writes zeros"),
    "MCFClassifier": (
        _ZERO, "same", "van der Maaten et al. (2013): blankout noise writes zeros"),
    "ExplicitCorruptionClassifier": (
        "the entry is set to 0 before the wrapped estimator predicts",
        "same, before the corrupted copies are drawn",
        "its training corruption (blankout) writes zeros"),
    "RobustLogisticRegression": (
        _ZERO, "zero in the centred problem of Eq. (2) (the entry at its feature's observed "
        "median): a raw zero would add a bias Eq. (2) cannot absorb",
        "no missing-value theory in Feng et al. (2014); the linear-model rule at prediction"),
    "GeometricMarginSVC": (
        "native: the row's margin is computed on its present features only (a row with no "
        "usable feature: scaling 1, so the intercept alone for the linear kernel)",
        "native (the geometric margin of each row in its own subspace)",
        "Chechik et al. (2007), Eq. 3"),
    "GeometricMarginSeparableSVC": (
        "native: the row's margin is computed on its present features only (a row with no "
        "usable feature scores `b / ||w||`)",
        "native", "Chechik et al. (2007), Eq. 3"),
    "FeatureBoostClassifier": (
        _SLEEP, _ENSEMBLE_FIT, "O'Sullivan et al. (2000): sleeping experts"),
    "MixtureOfExpertsClassifier": (
        _SLEEP, _ENSEMBLE_FIT, "the same sleeping rule as FeatureBoost"),
    "WeightResamplingClassifier": (
        "passed to the wrapped estimator if its tags accept NaN, else the entry is set to the "
        "column's weighted training mean", "same",
        "a resampling wrapper has no rule of its own"),
    "GaussianMixtureImputer": (
        "imputed by the conditional mean under the fitted mixture",
        "EM on the observed entries", "Chechik et al. (2007), imputation baseline"),
    "GroupMissingIndicator": (
        "one indicator column per feature group: 1 when the group is absent",
        "same", "Chechik et al. (2007), the indicator baseline"),
}


def absence_table() -> str:
    """The markdown table of :data:`ABSENCE_SEMANTICS`, one row per public class."""
    lines = ["| estimator | NaN at prediction time | NaN in `fit` | why |",
             "| --- | --- | --- | --- |"]
    lines += [f"| `{name}` | {predict} | {fit} | {why} |"
              for name, (predict, fit, why) in ABSENCE_SEMANTICS.items()]
    return "\n".join(lines)
