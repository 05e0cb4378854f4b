"""robustclf: classifiers that keep working when features go missing or get corrupted.

Estimators trained to hedge against deleted or corrupted features, tools that measure how any
model degrades under random, grouped and worst-case corruption, and reproductions of the papers
behind them. The estimators are re-exported here; the tools live in their subpackages:
:mod:`robustclf.corruption`, :mod:`robustclf.certify`, :mod:`robustclf.evaluation`,
:mod:`robustclf.datasets`, :mod:`robustclf.feature_values`, :mod:`robustclf.noise`.
"""

from .ensemble import (
    FeatureBoostClassifier,
    MixtureOfExpertsClassifier,
    WeightResamplingClassifier,
)
from .linear import (
    DeletionRobustLP,
    DeletionRobustPerceptron,
    DropoutLogisticRegression,
    DropoutSVC,
    ExplicitCorruptionClassifier,
    FDROPClassifier,
    MCFClassifier,
    RobustLogisticRegression,
)
from .missing import (
    GaussianMixtureImputer,
    GeometricMarginSeparableSVC,
    GeometricMarginSVC,
    GroupMissingIndicator,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "DeletionRobustLP",
    "DeletionRobustPerceptron",
    "DropoutLogisticRegression",
    "DropoutSVC",
    "ExplicitCorruptionClassifier",
    "FDROPClassifier",
    "FeatureBoostClassifier",
    "GaussianMixtureImputer",
    "GeometricMarginSVC",
    "GeometricMarginSeparableSVC",
    "GroupMissingIndicator",
    "MCFClassifier",
    "MixtureOfExpertsClassifier",
    "RobustLogisticRegression",
    "WeightResamplingClassifier",
    "__version__",
]
