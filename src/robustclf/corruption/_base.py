"""The contract every corruption follows.

A corruption is configured with its level at construction and exposes one method,
``corrupt(X, y=None, model=None, random_state=None)``, returning a new array. Deletion-type
corruptions only choose *which* entries to delete (``_deletion_mask``); the base class writes the
fill value, so that ``fill=0.0`` (the papers' convention) and ``fill=np.nan`` (absent features, for
missing-aware estimators) behave identically everywhere.

Corruptions subclass :class:`sklearn.base.BaseEstimator` only to inherit ``get_params``,
``set_params``, ``clone`` and a readable ``repr``; they are not estimators.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone

from .._validation import check_fill, check_generator, check_labels, check_matrix

__all__ = ["Corruption", "DeletionCorruption"]


class Corruption(BaseEstimator):
    """Base class of test-time corruptions.

    Subclasses implement ``_corrupt(X, y, model, rng)``, which receives a validated float64
    *copy* of ``X`` (so it may write into it), labels and model when the corruption needs them,
    and a :class:`numpy.random.Generator`.

    Class attributes
    ----------------
    requires_labels : bool
        ``corrupt`` refuses to run without ``y`` (adversarial corruptions attack the true class).
    requires_model : bool
        ``corrupt`` refuses to run without a fitted ``model``.
    level_params : tuple of str
        Names of the parameters that measure the corruption's strength, in order of preference;
        :meth:`with_level` sets the first one that is not ``None`` (or the first one if all are).
    """

    requires_labels: ClassVar[bool] = False
    requires_model: ClassVar[bool] = False
    level_params: ClassVar[tuple[str, ...]] = ()

    def corrupt(self, X, y=None, model=None, random_state=None) -> np.ndarray:
        """Return a corrupted copy of ``X``; ``X`` itself is never modified.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to corrupt. NaN (an already absent entry) is allowed and left as it is.
        y : array-like of shape (n_samples,), default=None
            True labels; required by adversarial corruptions.
        model : fitted estimator, default=None
            The model under attack; required by adversarial corruptions.
        random_state : None, int or numpy Generator, default=None
            Seed of the corruption's randomness.

        Returns
        -------
        X_corrupted : ndarray of shape (n_samples, n_features), dtype float64
        """
        X, y = self._validate_call(X, y, model)
        return self._corrupt(X, y, model, check_generator(random_state))

    def with_level(self, level) -> Corruption:
        """A copy of this corruption with its strength parameter set to ``level``."""
        if not self.level_params:
            raise ValueError(f"{type(self).__name__} has no level parameter to sweep.")
        name = next((p for p in self.level_params if getattr(self, p) is not None),
                    self.level_params[0])
        return clone(self).set_params(**{name: level})

    @property
    def level_name(self) -> str:
        """The name of the parameter :meth:`with_level` sets."""
        return next((p for p in self.level_params if getattr(self, p) is not None),
                    self.level_params[0] if self.level_params else "")

    # -- internals ---------------------------------------------------------------------------
    def _validate_call(self, X, y, model):
        n_features = getattr(model, "n_features_in_", None) if model is not None else None
        X = check_matrix(X, allow_nan=True, n_features=n_features)
        if self.requires_labels and y is None:
            raise ValueError(f"{type(self).__name__}.corrupt needs the true labels y.")
        if self.requires_model and model is None:
            raise ValueError(f"{type(self).__name__}.corrupt needs the fitted model under attack.")
        if y is not None:
            y = check_labels(y, X.shape[0])
        return X, y

    def _corrupt(self, X, y, model, rng):  # pragma: no cover - abstract
        raise NotImplementedError


class DeletionCorruption(Corruption):
    """A corruption that deletes entries: subclasses choose them, the base class fills them.

    Subclasses implement ``_deletion_mask(X, y, model, rng)`` returning a boolean array of
    ``X``'s shape (True = delete) and have a ``fill`` parameter.
    """

    def deletion_mask(self, X, y=None, model=None, random_state=None) -> np.ndarray:
        """Boolean mask of the entries :meth:`corrupt` would delete with the same seed."""
        X, y = self._validate_call(X, y, model)
        return self._deletion_mask(X, y, model, check_generator(random_state))

    def _corrupt(self, X, y, model, rng):
        fill = check_fill(self.fill)
        mask = self._deletion_mask(X, y, model, rng)
        X[mask] = fill
        return X

    def _deletion_mask(self, X, y, model, rng):  # pragma: no cover - abstract
        raise NotImplementedError
