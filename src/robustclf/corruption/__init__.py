"""Test-time corruptions of feature matrices and training-time outlier injection.

Every corruption has a short name in :data:`CORRUPTIONS` (used by the CLI and the experiments);
:func:`make_corruption` builds one from its name and parameters.
"""

from ._adversarial import BlackBoxGreedyDeletion, GreedyDeletion, OptimalDeletion, model_margins
from ._base import Corruption, DeletionCorruption
from ._outliers import inject_outliers
from ._random import FeatureNoise, GroupDeletion, MarginalResampling, RandomDeletion

__all__ = [
    "Corruption",
    "DeletionCorruption",
    "GreedyDeletion",
    "OptimalDeletion",
    "BlackBoxGreedyDeletion",
    "model_margins",
    "RandomDeletion",
    "GroupDeletion",
    "MarginalResampling",
    "FeatureNoise",
    "inject_outliers",
    "CORRUPTIONS",
    "make_corruption",
]

#: Short names of the test-time corruptions, as used on the command line.
CORRUPTIONS: dict[str, type[Corruption]] = {
    "random_deletion": RandomDeletion,
    "group_deletion": GroupDeletion,
    "greedy": GreedyDeletion,
    "optimal": OptimalDeletion,
    "black_box_greedy": BlackBoxGreedyDeletion,
    "marginal_resampling": MarginalResampling,
    "feature_noise": FeatureNoise,
}


def make_corruption(name: str, **params) -> Corruption:
    """Build the corruption called ``name`` (a key of :data:`CORRUPTIONS`) with ``params``."""
    if name not in CORRUPTIONS:
        known = ", ".join(CORRUPTIONS)
        raise ValueError(f"unknown corruption {name!r}; known corruptions: {known}.")
    cls = CORRUPTIONS[name]
    valid = cls._get_param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{cls.__name__} has no parameter(s) {unknown}; it takes {valid}.")
    return cls(**params)
