"""Read a fitted linear classifier as an affine score function of the *raw* features.

Certification and the linear greedy adversary need ``scores = X @ W.T + b`` in the coordinates in
which features are deleted (set to 0). A model may be a bare linear classifier (``coef_``,
``intercept_``, ``classes_``) or a :class:`~sklearn.pipeline.Pipeline` whose steps before the
classifier are affine scalers (StandardScaler, MinMaxScaler, MaxAbsScaler); those are folded into
``W`` and ``b``, so deleting raw feature j still means ``x_j = 0`` in the raw input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AffineModel", "affine_model"]


@dataclass(frozen=True)
class AffineModel:
    """``scores(x) = W x + b`` with one row of ``W`` per score (one score for binary models).

    For a binary model the single score is positive for ``classes[1]``, as in scikit-learn.
    """

    coef: np.ndarray  # (n_scores, n_features)
    intercept: np.ndarray  # (n_scores,)
    classes: np.ndarray

    @property
    def n_features(self) -> int:
        return self.coef.shape[1]


def _fold_scaler(step, coef: np.ndarray, intercept: np.ndarray):
    """Compose ``coef @ T(x) + intercept`` with an affine scaler ``T(x) = x * s + t``."""
    name = type(step).__name__
    n = coef.shape[1]
    if name == "StandardScaler":
        scale = step.scale_ if step.scale_ is not None else np.ones(n)
        mean = step.mean_ if step.mean_ is not None and step.with_mean else np.zeros(n)
        s, t = 1.0 / scale, -mean / scale
    elif name == "MinMaxScaler":
        s, t = step.scale_, step.min_
    elif name == "MaxAbsScaler":
        s, t = 1.0 / step.scale_, np.zeros(n)
    elif name in ("FunctionTransformer",) and step.func is None:
        return coef, intercept
    else:
        raise ValueError(
            f"model: cannot read the pipeline step {name} as an affine map; certification and "
            "the linear adversary support StandardScaler, MinMaxScaler and MaxAbsScaler before "
            "a linear classifier. Use BlackBoxGreedyDeletion for other models."
        )
    return coef * s, intercept + coef @ t


def affine_model(model) -> AffineModel:
    """Return the affine score function of a fitted linear classifier (or scaler pipeline).

    Raises
    ------
    ValueError
        If ``model`` is not fitted, is not linear, or has preprocessing that is not affine.
    """
    steps = []
    final = model
    if hasattr(model, "steps"):  # a Pipeline
        steps = [s for _, s in model.steps[:-1] if s not in (None, "passthrough")]
        final = model.steps[-1][1]
    if not all(hasattr(final, a) for a in ("coef_", "intercept_", "classes_")):
        raise ValueError(
            f"model must be a fitted linear classifier with coef_, intercept_ and classes_ "
            f"(optionally behind affine scalers in a Pipeline), got {type(final).__name__}."
        )
    coef = np.atleast_2d(np.asarray(final.coef_, dtype=np.float64))
    if hasattr(coef, "toarray"):
        coef = coef.toarray()
    intercept = np.broadcast_to(
        np.asarray(final.intercept_, dtype=np.float64), (coef.shape[0],)
    ).copy()
    classes = np.asarray(model.classes_)
    expected = 1 if classes.size == 2 else classes.size
    if coef.shape[0] != expected:
        raise ValueError(
            f"model has {classes.size} classes but {coef.shape[0]} weight vectors; expected "
            f"{expected} (one-vs-rest linear scores)."
        )
    for step in reversed(steps):
        coef, intercept = _fold_scaler(step, coef, intercept)
    return AffineModel(coef, intercept, classes)
