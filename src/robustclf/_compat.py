"""The one place where robustclf imports private or version-dependent scikit-learn names."""

from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils.validation import validate_data

__all__ = ["LinearClassifierMixin", "validate_data"]
