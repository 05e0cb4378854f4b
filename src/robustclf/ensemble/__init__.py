"""Ensembles robust to corrupted features: FeatureBoost and its baselines.

FeatureBoostClassifier       O'Sullivan et al. (2000): boosting over features, any base learner
MixtureOfExpertsClassifier   the paper's MIXTURE baseline (bootstrap experts, unweighted vote)
WeightResamplingClassifier   boosting by resampling, for AdaBoost over learners without weights
"""

from .featureboost import FeatureBoostClassifier
from .mixture import MixtureOfExpertsClassifier
from .resampling import WeightResamplingClassifier

__all__ = ["FeatureBoostClassifier", "MixtureOfExpertsClassifier", "WeightResamplingClassifier"]
