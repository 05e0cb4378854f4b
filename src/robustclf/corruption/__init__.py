"""Test-time corruptions of feature matrices and training-time outlier injection."""

from ._adversarial import BlackBoxGreedyDeletion, GreedyDeletion, model_margins
from ._base import Corruption, DeletionCorruption
from ._outliers import inject_outliers
from ._random import FeatureNoise, GroupDeletion, MarginalResampling, RandomDeletion

__all__ = [
    "Corruption",
    "DeletionCorruption",
    "GreedyDeletion",
    "BlackBoxGreedyDeletion",
    "model_margins",
    "RandomDeletion",
    "GroupDeletion",
    "MarginalResampling",
    "FeatureNoise",
    "inject_outliers",
]
