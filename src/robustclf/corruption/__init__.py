"""Test-time corruptions of feature matrices and training-time outlier injection.

Every corruption returns the container it was given: a float64 ndarray for array-likes, a
DataFrame with the same index, columns and (where the values allow) dtypes for a DataFrame, and
a sparse matrix of the same format for a sparse matrix (deletion corruptions; the others refuse
sparse input). Deletion corruptions delete entries of every column kind, non-numeric ones as
missing values; groups of features may be named by column. A dask array or DataFrame gives a
lazy dask collection, corrupted chunk by chunk with one random stream per chunk (see
:mod:`._dask`). See :mod:`._base` for the contract.

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
    """Build the corruption called ``name`` (a key of :data:`CORRUPTIONS`) with ``params``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import make_corruption
    >>> deletion = make_corruption("random_deletion", k=1)
    >>> deletion
    RandomDeletion(k=1)
    >>> X = deletion.corrupt(np.ones((3, 4)), random_state=0)
    >>> np.isnan(X).sum(axis=1)
    array([1, 1, 1])
    """
    if name not in CORRUPTIONS:
        known = ", ".join(CORRUPTIONS)
        raise ValueError(f"unknown corruption {name!r}; known corruptions: {known}.")
    cls = CORRUPTIONS[name]
    valid = cls._get_param_names()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"{cls.__name__} has no parameter(s) {unknown}; it takes {valid}.")
    return cls(**params)
