"""Scorers for model selection under corruption: ``GridSearchCV(scoring=...)``, ``cross_validate``.

A scorer is a callable ``scorer(estimator, X, y) -> float``, greater is better, as scikit-learn
expects. :func:`make_corruption_scorer` scores a fitted candidate on the validation fold corrupted
at one level; the corruption's seeds are fixed when the scorer is made, so that every candidate
of a search is scored on the same corrupted fold (for corruptions that do not look at the model).
:func:`make_certified_scorer` scores the certified worst-case accuracy of linear models.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._blockwise import is_dask_collection
from .._validation import check_fill, check_nonnegative
from ..certify import certified_error
from ._checks import (
    MAX_SEED,
    check_data_and_labels,
    check_scorer,
    resolve_corruptions,
    scoring_name,
)
from ._dask import dask_score
from ._fitted import check_n_repeats

if TYPE_CHECKING:
    from ..corruption import Corruption

__all__ = ["make_corruption_scorer", "make_certified_scorer"]


def make_corruption_scorer(
    corruption: Corruption | Callable[[Any], Corruption],
    level=None,
    *,
    scoring="accuracy",
    n_repeats: int = 1,
    random_state: int = 0,
) -> Callable:
    """A scorer that scores a fitted model on the validation data corrupted at one level.

    Use it as ``scoring=`` of :class:`~sklearn.model_selection.GridSearchCV`,
    :func:`~sklearn.model_selection.cross_validate` or
    :func:`~sklearn.model_selection.cross_val_score` to select or compare models by how well
    they do under a corruption rather than on clean data. The scorer corrupts the data it is
    given (the validation fold) with the fitted candidate as ``model`` and the fold's labels as
    ``y`` (so adversarial corruptions attack each candidate), then applies ``scoring``.

    Parameters
    ----------
    corruption : Corruption or callable
        A :class:`~robustclf.corruption.Corruption`, or a callable mapping a level to one.
    level : object, default=None
        The corruption level, set with ``corruption.with_level(level)`` (or by calling a
        callable ``corruption``). ``None`` uses ``corruption`` as configured (a callable then
        needs a level).
    scoring : str or callable, default="accuracy"
        Any scikit-learn scorer name (``"balanced_accuracy"``, ``"roc_auc"``,
        ``"neg_log_loss"``, ``"f1"``, ...) or callable ``scorer(estimator, X, y)``; its value
        on the corrupted data is returned (greater is better).
    n_repeats : int, default=1
        Number of independent corruption draws; the scorer returns the mean score over them.
    random_state : int, default=0
        Seed of the corruption draws. The ``n_repeats`` seeds are drawn from it once, when the
        scorer is made, and reused at every call: every candidate of a search, and every call
        on the same fold, sees the same draws. An int is required (``None`` or a Generator
        would give each candidate different draws and make the comparison noisy).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, **kwargs) -> float``; extra keyword arguments (such as
        ``sample_weight``) are passed to the underlying scorer. Picklable, so it works with
        ``n_jobs``. A dask ``X`` is corrupted and scored chunk by chunk, as in
        :func:`fitted_robustness_curve` (accuracy from per-chunk counts; other scorers from
        the gathered per-row outputs of the model).

    See Also
    --------
    make_certified_scorer : Score the certified worst-case accuracy of linear models.
    fitted_robustness_curve : The scores at many levels, as a curve.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from robustclf.corruption import RandomDeletion
    >>> from robustclf.evaluation import make_corruption_scorer
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> scorer = make_corruption_scorer(RandomDeletion(fraction=0.0, fill=0.0), 0.3,
    ...                                 scoring="balanced_accuracy", n_repeats=3)
    >>> search = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer, cv=3)
    >>> search = search.fit(X, y)
    >>> sorted(search.best_params_)
    ['C']
    >>> bool(0.0 <= search.best_score_ <= 1.0)
    True
    """
    scorer = check_scorer(scoring)
    if level is None:
        if not (hasattr(corruption, "corrupt") and hasattr(corruption, "with_level")):
            raise ValueError(
                "level is required when corruption is a callable level -> Corruption; got "
                f"corruption={corruption!r} and level=None.")
        resolved = corruption
    else:
        (resolved,) = resolve_corruptions(corruption, [level])
    n_repeats = check_n_repeats(n_repeats)
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) \
            or random_state < 0:
        raise ValueError(
            "random_state must be a non-negative int (fixed seeds give every candidate the "
            f"same corruption draws), got {random_state!r}.")
    seeds = np.random.default_rng(int(random_state)).integers(0, MAX_SEED, size=n_repeats)
    return _CorruptionScorer(resolved, scorer, scoring_name(scoring), tuple(seeds.tolist()))


def make_certified_scorer(
    budget: float,
    feature_values="uniform",
    *,
    exact: bool | str = "auto",
    time_limit: float | None = None,
    fill: float = np.nan,
) -> Callable:
    """A scorer of the certified worst-case accuracy of a fitted linear model at one budget.

    The score is ``1 - certified_error``: the fraction of rows that no deletion of features of
    total value at most ``budget`` can misclassify (:func:`robustclf.certify.certified_error`;
    exact when the certificate is, otherwise the certified lower bound on the accuracy). Use it
    as ``scoring=`` of :class:`~sklearn.model_selection.GridSearchCV` or
    :func:`~sklearn.model_selection.cross_validate` to choose the model that is most robust to
    the worst case.

    Parameters
    ----------
    budget : float
        Deletion budget N, in units of feature value (non-negative).
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (see :mod:`robustclf.feature_values`).
    exact : {"auto", True, False}, default="auto"
        Passed to :func:`robustclf.certify.certified_error`.
    time_limit : float or None, default=None
        Seconds of exact solving per call, passed to :func:`robustclf.certify.certified_error`.
    fill : float, default=np.nan
        What a deletion writes, as the deletion corruptions' ``fill``, passed to
        :func:`robustclf.certify.certified_error`: ``np.nan`` (default) certifies against
        absent entries, handled as the model handles NaN (a scikit-learn model needs an
        imputer in its pipeline, else the scorer raises a ValueError); ``0.0`` against raw
        zeros, the papers' protocol.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y) -> float`` in [0, 1]. The estimator must be a linear
        classifier (``coef_``, ``intercept_``, optionally behind affine scalers in a Pipeline);
        ``X`` must be finite. A dask ``X`` is certified chunk by chunk, never gathered.

    See Also
    --------
    make_corruption_scorer : Score under a (random or adversarial) corruption.
    fitted_certified_curve : The certified error at many budgets, as a curve.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.svm import LinearSVC
    >>> from robustclf.evaluation import make_certified_scorer
    >>> X, y = make_classification(n_samples=150, n_features=8, random_state=0)
    >>> scores = cross_val_score(LinearSVC(), X, y, cv=3,
    ...                          scoring=make_certified_scorer(2, fill=0.0))
    >>> scores.shape, bool(((0 <= scores) & (scores <= 1)).all())
    ((3,), True)
    """
    budget = check_nonnegative(budget, "budget")
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}.")
    if time_limit is not None:
        time_limit = check_nonnegative(time_limit, "time_limit")
    return _CertifiedScorer(budget, feature_values, exact, time_limit, check_fill(fill))


class _CorruptionScorer:
    """Score ``scorer`` on data corrupted by ``corruption`` with fixed seeds; mean over seeds."""

    def __init__(self, corruption, scorer, name: str, seeds: tuple[int, ...]):
        self.corruption = corruption
        self.scorer = scorer
        self.name = name
        self.seeds = seeds

    def __call__(self, estimator, X, y, **kwargs) -> float:
        if is_dask_collection(X):
            X, y = check_data_and_labels(X, y)
        scores = [
            self._score(estimator,
                        self.corruption.corrupt(X, y=y, model=estimator, random_state=seed),
                        y, **kwargs)
            for seed in self.seeds
        ]
        return float(np.mean(scores))

    def _score(self, estimator, X, y, **kwargs) -> float:
        if is_dask_collection(X):
            return dask_score(self.scorer, self.name, estimator, X, y, **kwargs)
        return self.scorer(estimator, X, y, **kwargs)

    def __repr__(self) -> str:
        return (f"make_corruption_scorer({self.corruption!r}, scoring={self.name!r}, "
                f"n_repeats={len(self.seeds)})")


class _CertifiedScorer:
    """``1 - certified_error(estimator, X, y, budget, feature_values)``."""

    def __init__(self, budget: float, feature_values, exact, time_limit, fill: float):
        self.budget = budget
        self.feature_values = feature_values
        self.exact = exact
        self.time_limit = time_limit
        self.fill = fill

    def __call__(self, estimator, X, y) -> float:
        result = certified_error(estimator, X, y, self.budget, self.feature_values,
                                 exact=self.exact, time_limit=self.time_limit, fill=self.fill)
        return 1.0 - float(result.error)

    def __repr__(self) -> str:
        fill = "" if np.isnan(self.fill) else f", fill={self.fill!r}"  # non-default only
        return f"make_certified_scorer(budget={self.budget:g}{fill})"
