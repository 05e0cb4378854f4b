"""Classifiers and baselines for structurally absent features (NaN in ``X`` means absent).

GeometricMarginSVC           Chechik et al. (2007) §3: iterative geometric-margin SVM (Eq. 6-7)
GeometricMarginSeparableSVC  Chechik et al. (2007) Eq. (4): separable case by SOCP bisection
GroupMissingIndicator        one flag per group of features absent together ("aggregated flags")
GaussianMixtureImputer       EM imputation with a spherical Gaussian mixture
make_imputation_baseline     the paper's baselines (zero, mean, flags, kNN, EM) as Pipelines
"""

from .geometric_svm import GeometricMarginSVC
from .impute import GaussianMixtureImputer, GroupMissingIndicator, make_imputation_baseline
from .kernels import masked_kernel, missingness_patterns, restricted_sq_norms
from .socp import GeometricMarginSeparableSVC, geometric_margin

__all__ = [
    "GaussianMixtureImputer",
    "GeometricMarginSVC",
    "GeometricMarginSeparableSVC",
    "GroupMissingIndicator",
    "geometric_margin",
    "make_imputation_baseline",
    "masked_kernel",
    "missingness_patterns",
    "restricted_sq_norms",
]
