"""Certified worst case of linear classifiers under value-budgeted feature deletion.

For a linear model and a labelled row, an omniscient adversary deletes (sets to 0) a feature set
D with ``V(D) <= budget`` to minimise the margin (Dekel & Shamir, ICML 2008, Eq. 2). With the
per-feature contributions ``a_ij = y_i w_j x_ij`` the margin after deletion is
``y_i (b + w.x_i) - sum_{j in D} a_ij``, so the adversary solves a knapsack per row, which
:mod:`robustclf._worst_case` solves for all rows at once.

For multi-class (one-vs-rest) models a row is misclassified when some other class c scores at least
as high as the true class t; the adversary attacks each pairwise margin ``s_t - s_c`` (contributions
``(w_t - w_c)_j x_j``) and keeps the worst, which is exact because the two minimisations commute.

Three numbers bracket the truth:

* the **relaxed** worst margin (fractional knapsack) is a lower bound: a row whose relaxed margin
  is positive is *certified* correct against every admissible deletion;
* the **greedy** margin is what a concrete attack achieves: an upper bound on the worst margin;
* the **exact** margin (0/1 knapsack by dynamic programming or enumeration) when the instance is
  small. For 0/1 feature values and an integer budget the relaxation is already exact.

A margin ``<= 0`` counts as an error (the paper's convention), which is conservative for exact ties;
to make ties robust to round-off, "0" means ``|margin| <= 1e-10 * (|clean margin| + sum_j |a_ij|)``
(``WorstCaseMargins.tolerance``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._affine import AffineModel, affine_model
from ._validation import check_budget, check_feature_values, check_labels, check_matrix
from ._worst_case import exact_knapsack_deletion, knapsack_deletion

__all__ = ["WorstCaseMargins", "CertifiedError", "worst_case_margin", "certified_error"]

_TIE_RTOL = 1e-10


@dataclass(frozen=True)
class WorstCaseMargins:
    """Worst-case margins of every row under the deletion budget.

    Attributes
    ----------
    relaxed : ndarray of shape (n_samples,)
        LP-relaxation (fractional knapsack) margin: a certified lower bound on the worst margin.
    greedy : ndarray of shape (n_samples,)
        Margin after the greedy deletion ``greedy_mask``: an upper bound on the worst margin.
    greedy_mask : ndarray of bool, shape (n_samples, n_features)
        The greedy attack (deleted entries), feasible for the budget.
    exact : ndarray of shape (n_samples,) or None
        The exact worst margin when it was computed or when ``relaxation_is_exact``.
    exact_mask : ndarray of bool or None
        An optimal deletion when ``exact`` was computed by the exact solver.
    relaxation_is_exact : bool
        True for 0/1 feature values and an integer budget (Dekel & Shamir, Lemma 1(b)).
    tolerance : ndarray of shape (n_samples,)
        Round-off scale of each row's margin: margins ``<= tolerance`` count as errors.
    """

    relaxed: np.ndarray
    greedy: np.ndarray
    greedy_mask: np.ndarray
    exact: np.ndarray | None
    exact_mask: np.ndarray | None
    relaxation_is_exact: bool
    tolerance: np.ndarray

    @property
    def margin(self) -> np.ndarray:
        """The exact worst margin if known, otherwise the certified lower bound ``relaxed``."""
        return self.exact if self.exact is not None else self.relaxed


@dataclass(frozen=True)
class CertifiedError:
    """The error an omniscient deleting adversary can force, with its bracket.

    Attributes
    ----------
    error : float
        The exact worst-case error when known (``is_exact``), else the certified bound ``upper``.
    lower : float
        Error forced by the greedy attack (achievable, so a lower bound).
    upper : float
        Error bound from the relaxation: no admissible deletion can do worse (certified).
    is_exact : bool
        Whether ``error`` is exact.
    budget : float
    n_samples : int
    """

    error: float
    lower: float
    upper: float
    is_exact: bool
    budget: float
    n_samples: int

    def __float__(self) -> float:
        return float(self.error)


def _signed_rows(model: AffineModel, y: np.ndarray) -> np.ndarray:
    """Index of each label in ``model.classes``; unknown labels raise."""
    classes = model.classes
    idx = np.searchsorted(classes, y)
    idx = np.clip(idx, 0, classes.size - 1)
    unknown = classes[idx] != y
    if unknown.any():
        raise ValueError(
            f"y contains labels the model was not fitted on, e.g. {y[unknown][0]!r}; "
            f"model classes: {list(classes)}."
        )
    return idx


def contrast_contributions(model: AffineModel, X: np.ndarray, y: np.ndarray):
    """Yield ``(margins, contributions)`` for every margin the adversary may attack.

    Binary models yield one pair: ``margins_i = y_i (b + w.x_i)`` with ``y_i`` in {-1, +1}
    (+1 for ``classes[1]``) and ``contributions_ij = y_i w_j x_ij``. Multi-class models yield one
    pair per class c: the margin ``s_t - s_c`` of the true class t over c and its per-feature
    contributions ``(w_t - w_c)_j x_ij`` (``+inf`` margin for rows whose true class is c).
    """
    t = _signed_rows(model, y)
    if model.coef.shape[0] == 1:
        sign = np.where(t == 1, 1.0, -1.0)
        contributions = (sign[:, None] * model.coef[0]) * X
        yield sign * (X @ model.coef[0] + model.intercept[0]), contributions
        return
    scores = X @ model.coef.T + model.intercept
    true_scores = scores[np.arange(X.shape[0]), t]
    for c in range(model.coef.shape[0]):
        margins = np.where(t == c, np.inf, true_scores - scores[:, c])
        contributions = (model.coef[t] - model.coef[c]) * X
        contributions[t == c] = 0.0
        yield margins, contributions


def _validate(model, X, y, budget, feature_values):
    aff = affine_model(model)
    X = check_matrix(X, n_features=aff.n_features)
    y = check_labels(y, X.shape[0])
    values = check_feature_values(feature_values, aff.n_features)
    budget = check_budget(budget, values)
    return aff, X, y, values, budget


def worst_case_margin(
    model, X, y, budget: float, feature_values="uniform", *, exact: bool | str = "auto",
    max_work: float = 5e7,
) -> WorstCaseMargins:
    """Worst-case margins of a linear model when an adversary deletes features of value <= budget.

    Parameters
    ----------
    model : fitted linear classifier
        Anything with ``coef_``, ``intercept_``, ``classes_`` (LinearSVC, LogisticRegression, the
        library's linear estimators), optionally behind affine scalers in a Pipeline.
    X : array-like of shape (n_samples, n_features)
        Clean rows (finite values).
    y : array-like of shape (n_samples,)
        True labels.
    budget : float
        Value budget N, in [0, V([n])].
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (Dekel & Shamir §2.1). For the mutual-information heuristic compute
        the values on training data with :func:`robustclf.feature_values.mutual_info_values`.
    exact : {"auto", True, False}, default="auto"
        Whether to solve the 0/1 knapsack exactly when the relaxation is not provably exact.
        "auto" does so when the instance is small enough (``max_work``), True raises if it is not.
    max_work : float, default=5e7
        Size limit of the exact solver (see :func:`robustclf._worst_case.exact_knapsack_deletion`).

    Returns
    -------
    WorstCaseMargins
    """
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}.")
    aff, X, y, values, budget = _validate(model, X, y, budget, feature_values)
    relaxation_is_exact = bool(np.all((values == 0) | (values == 1)) and budget == int(budget))
    want_exact = exact is True or (exact == "auto" and not relaxation_is_exact)

    m, n = X.shape
    relaxed = np.full(m, np.inf)
    greedy = np.full(m, np.inf)
    greedy_mask = np.zeros((m, n), dtype=bool)
    exact_margin = np.full(m, np.inf) if want_exact else None
    exact_mask = np.zeros((m, n), dtype=bool) if want_exact else None
    tolerance = np.zeros(m)
    for margins, contributions in contrast_contributions(aff, X, y):
        finite = np.isfinite(margins)
        scale = np.abs(np.where(finite, margins, 0.0)) + np.abs(contributions).sum(axis=1)
        tolerance = np.maximum(tolerance, _TIE_RTOL * scale)
        solution = knapsack_deletion(contributions, values, budget)
        relaxed = np.minimum(relaxed, margins - solution.relaxed_gain)
        attacked = margins - solution.greedy_gain
        better = attacked < greedy
        greedy = np.where(better, attacked, greedy)
        greedy_mask[better] = solution.greedy_mask[better]
        if want_exact:
            try:
                gain, mask = exact_knapsack_deletion(contributions, values, budget,
                                                     max_work=max_work)
            except ValueError:
                if exact is True:
                    raise
                want_exact, exact_margin, exact_mask = False, None, None
                continue
            worse = margins - gain < exact_margin
            exact_margin = np.where(worse, margins - gain, exact_margin)
            exact_mask[worse] = mask[worse]
    if relaxation_is_exact:
        exact_margin = relaxed
    return WorstCaseMargins(relaxed, greedy, greedy_mask, exact_margin, exact_mask,
                            relaxation_is_exact, tolerance)


def certified_error(
    model, X, y, budget: float, feature_values="uniform", *, exact: bool | str = "auto",
    max_work: float = 5e7,
) -> CertifiedError:
    """The error an omniscient adversary can force by deleting features of total value <= budget.

    Same parameters as :func:`worst_case_margin`. A row counts as an error when its worst-case
    margin is ``<= 0``. ``lower`` is what the greedy attack achieves, ``upper`` the certified
    bound of the relaxation, ``error`` the exact value when known (else ``upper``).
    """
    wc = worst_case_margin(model, X, y, budget, feature_values, exact=exact, max_work=max_work)
    lower = float(np.mean(wc.greedy <= wc.tolerance))
    upper = float(np.mean(wc.relaxed <= wc.tolerance))
    is_exact = wc.exact is not None
    error = float(np.mean(wc.exact <= wc.tolerance)) if is_exact else upper
    return CertifiedError(error, lower, upper, is_exact, float(budget), int(wc.relaxed.size))
