"""Read a fitted linear classifier as a separable score of the *raw* features, deletion included.

Certification and the linear adversaries need, for every score row ``k``, the score of a raw row
``x`` and what deleting a set S of its features does to it::

    score_k(x) = W_k x + b_k
    score_k(x with S deleted) = score_k(x) - sum_{j in S} (W_kj x_j - D_kj)

so that deleting feature j removes exactly the term ``W_kj x_j - D_kj`` (the knapsack's
contribution). ``D_kj`` is the score contribution a *deleted* feature j keeps: the score with j
deleted minus the score with ``x_j = 0``. It depends on what deletion writes (``fill``) and on
what the model does with it:

* ``fill=0.0`` (the papers' protocol): the raw entry is 0, so ``D = 0`` -- the reading used
  before issue 16, computed by the same operations (bit for bit);
* another finite ``fill = c``: the raw entry is c, ``D_kj = W_kj c``;
* ``fill=np.nan`` (an absent entry): the NaN is followed through the pipeline. Affine scalers pass
  it through (as scikit-learn's do); a :class:`~sklearn.impute.SimpleImputer` turns it into its
  statistic ``v_j`` (in its own input coordinates), which the later affine steps then map; a NaN
  that reaches the final estimator must meet one that reads NaN as absent -- a linear model of the
  library with ``nan_policy="absent"``, for which the entry contributes zero in its input space
  (behind a ``StandardScaler``: the training mean). Any other final estimator is refused.

A model may be a bare linear classifier (``coef_``, ``intercept_``, ``classes_``) or a
:class:`~sklearn.pipeline.Pipeline` (nested pipelines and a ``FrozenEstimator`` are unwrapped)
whose steps before the classifier are read exactly: ``StandardScaler``, ``MinMaxScaler`` (not
with ``clip=True``, which is not affine), ``MaxAbsScaler``, an identity ``FunctionTransformer``
and ``SimpleImputer`` (missing values NaN, no ``add_indicator``). Every other step is refused with
a ``ValueError``: a certificate computed on a misread model would be wrong, not approximate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AffineModel", "affine_model", "as_float"]


@dataclass(frozen=True)
class AffineModel:
    """``scores(x) = W x + b`` with one row of ``W`` per score (one score for binary models).

    For a binary model the single score is positive for ``classes[1]``, as in scikit-learn.
    ``deleted[k, j]`` is ``D_kj``: deleting feature j changes score k by ``-(W_kj x_j - D_kj)``.
    """

    coef: np.ndarray  # (n_scores, n_features)
    intercept: np.ndarray  # (n_scores,)
    classes: np.ndarray
    deleted: np.ndarray  # (n_scores, n_features), D

    @property
    def n_features(self) -> int:
        return self.coef.shape[1]

    @property
    def deletion_is_raw_zero(self) -> bool:
        """Whether deleting a feature is the same as writing 0 into it (``D == 0``)."""
        return not np.any(self.deleted)


_REFUSED = ("certification and the linear adversaries read exactly StandardScaler, "
            "MinMaxScaler (clip=False), MaxAbsScaler, SimpleImputer and an identity "
            "FunctionTransformer before a linear classifier. Use BlackBoxGreedyDeletion for "
            "other models.")


def _affine_map(step, n: int):
    """``(s, t)`` of an affine scaler ``T(x) = x * s + t``, or None if ``step`` is no scaler."""
    name = type(step).__name__
    if name == "StandardScaler":
        scale = step.scale_ if step.scale_ is not None else np.ones(n)
        mean = step.mean_ if step.mean_ is not None and step.with_mean else np.zeros(n)
        return 1.0 / scale, -mean / scale
    if name == "MinMaxScaler":
        if getattr(step, "clip", False):
            raise ValueError(
                "model: MinMaxScaler(clip=True) clips its output to feature_range, which is not "
                "an affine map (a value outside the training range would be misread); "
                f"{_REFUSED}")
        return step.scale_, step.min_
    if name == "MaxAbsScaler":
        return 1.0 / step.scale_, np.zeros(n)
    return None


def _imputed_values(step, n: int) -> np.ndarray:
    """The value a :class:`~sklearn.impute.SimpleImputer` writes for NaN, per feature."""
    if getattr(step, "add_indicator", False):
        raise ValueError(
            "model: SimpleImputer(add_indicator=True) adds indicator features, which a "
            f"deletion switches on; {_REFUSED}")
    missing = step.missing_values
    if not (isinstance(missing, float) and np.isnan(missing)):
        raise ValueError(
            f"model: SimpleImputer(missing_values={missing!r}) also rewrites that value in "
            f"clean rows; only missing_values=np.nan is read exactly; {_REFUSED}")
    try:
        values = np.asarray(step.statistics_, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"model: SimpleImputer has non-numeric statistics {step.statistics_!r}; "
            "the linear adversaries need numbers.") from exc
    if values.shape != (n,) or np.isnan(values).any():
        raise ValueError(
            "model: the SimpleImputer drops the features it saw no value of at fit "
            "(statistics_ NaN); refit it with keep_empty_features=True.")
    return values


def _flat_steps(model):
    """The preprocessing steps and the final estimator (nested pipelines flattened)."""
    while True:  # wrappers that score as the model they hold
        name = type(model).__name__
        if name == "FrozenEstimator":
            model = model.estimator
        elif name == "_DecodingModel":  # robustclf.corruption._containers: container views
            model = model._model
        else:
            break
    if not hasattr(model, "steps"):
        return [], model
    steps = []
    for _, step in model.steps[:-1]:
        if step is None or step == "passthrough":
            continue
        inner, last = _flat_steps(step)
        steps += inner + [last]
    inner, final = _flat_steps(model.steps[-1][1])
    return steps + inner, final


def as_float(X):
    """``X`` with floating-point values (float64 unless already floating): the identity on
    values, for a ``FunctionTransformer`` in front of an imputer fitted on floats, so that
    integer data can be given to the pipeline too. Certification reads it as the identity."""
    if np.issubdtype(getattr(X, "dtype", np.dtype(object)), np.floating):
        return X
    return X.astype(np.float64) if hasattr(X, "astype") else np.asarray(X, dtype=np.float64)


def _is_identity(step) -> bool:
    return type(step).__name__ == "FunctionTransformer" and step.func in (None, as_float)


def _reads_nan_as_absent(final) -> bool:
    """Whether ``final`` scores a NaN entry as zero in its input space (its term dropped)."""
    from .linear._base import LinearClassifierBase

    return (isinstance(final, LinearClassifierBase)
            and getattr(final, "nan_policy", None) == "absent"
            and type(final).decision_function is LinearClassifierBase.decision_function)


def affine_model(model, fill: float = 0.0) -> AffineModel:
    """Return the affine score function of a fitted linear classifier (or pipeline).

    Parameters
    ----------
    model : fitted classifier or Pipeline
        A linear classifier (``coef_``, ``intercept_``, ``classes_``), optionally behind the
        steps listed in the module docstring.
    fill : float, default=0.0
        What a deletion writes into the raw entry: ``0.0``, another finite value, or ``np.nan``
        (absent). Sets ``AffineModel.deleted`` (see the module docstring).

    Raises
    ------
    ValueError
        If ``model`` is not fitted, is not linear, has a step that cannot be read exactly, or
        would receive the absent (NaN) entries a ``fill=np.nan`` deletion writes without
        reading them as absent.
    """
    steps, final = _flat_steps(model)
    if not all(hasattr(final, a) for a in ("coef_", "intercept_", "classes_")):
        raise ValueError(
            f"model must be a fitted linear classifier with coef_, intercept_ and classes_ "
            f"(optionally behind affine scalers in a Pipeline), got {type(final).__name__}."
        )
    coef = final.coef_
    coef = np.atleast_2d(np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef,
                                    dtype=np.float64))
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
    n = coef.shape[1]
    maps = [_step_map(step, n) for step in steps]
    raw_coef = coef
    for s, t in reversed([m for m in maps if isinstance(m, tuple)]):
        coef, intercept = coef * s, intercept + coef @ t
    zero, removed = _model_inputs(maps, steps, n, fill)
    if np.isnan(removed).any() and not _reads_nan_as_absent(final):
        raise ValueError(
            f"model {type(final).__name__} cannot take the absent (NaN) entries this deletion "
            "writes; put an imputer in its pipeline or use fill=0.0.")
    deleted = raw_coef * (np.where(np.isnan(removed), 0.0, removed) - zero)
    return AffineModel(coef, intercept, classes, deleted)


_IMPUTE = "impute"


def _step_map(step, n: int):
    """``(s, t)`` of an affine step, ``None`` for the identity, ``"impute"`` for an imputer."""
    if _is_identity(step):
        return None
    if type(step).__name__ == "SimpleImputer":
        return _IMPUTE
    affine = _affine_map(step, n)
    if affine is None:
        raise ValueError(
            f"model: cannot read the pipeline step {type(step).__name__} exactly; {_REFUSED}")
    return affine


def _model_inputs(maps, steps, n: int, fill: float):
    """What the final estimator receives for a raw 0 and for a deleted entry, per feature.

    The raw zero and the deleted entry (``fill``) are sent through the steps in order, by the
    same operations; NaN (absent) survives the affine steps and becomes an imputer's statistic.
    """
    zero = np.zeros(n)
    removed = np.full(n, float(fill))
    for step, m in zip(steps, maps, strict=True):
        if m is None:
            continue
        if not isinstance(m, tuple):  # the imputer
            values = _imputed_values(step, n)
            removed = np.where(np.isnan(removed), values, removed)
            continue
        s, t = m
        zero, removed = zero * s + t, removed * s + t
    return zero, removed
