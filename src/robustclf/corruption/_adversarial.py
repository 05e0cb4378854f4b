"""Adversarial test-time deletion: the greedy adversary of Dekel & Shamir (§4) and the optimal one.

"A greedy adversary, which deletes the most valuable features of each instance until either the
limit N is reached or all useful features are deleted." For a linear model the harm of deleting
feature j is its margin contribution ``a_j = y (w_j x_j - D_j)`` (``D_j``: what a deleted feature
still contributes, for the corruption's ``fill``; 0 for the papers' raw zero, see
:mod:`robustclf.certify`); :class:`GreedyDeletion` scans the
features by harm per unit of value, ``a_j / v_j``, deletes each one that still fits in the budget
left and skips (but goes on past) those that do not. :class:`OptimalDeletion` deletes, per row, a
set that minimises the margin exactly -- the 0/1 knapsack of :mod:`robustclf._worst_case` -- so the
error it forces is the certified worst-case error. Both call the same function as the
certification (:func:`robustclf.certify.worst_case_margin`).

:class:`BlackBoxGreedyDeletion` does the same for any classifier by querying the model: at each
step it tries every remaining feature of every row in one batched call and deletes, per row, the
one that lowers the true-class margin most per unit of value.

All three accept DataFrames and sparse matrices and return the container they were given (see
:mod:`robustclf.corruption._base`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp

from .._affine import affine_model
from .._validation import (
    check_budget,
    check_feature_values,
    check_fill,
    check_nonnegative,
    check_not_complex,
)
from .._worst_case import csr_greedy_knapsack_deletion
from ..certify import _signed_rows, worst_case_margin
from ._base import DeletionCorruption

__all__ = ["GreedyDeletion", "OptimalDeletion", "BlackBoxGreedyDeletion", "model_margins"]

# Largest number of matrix entries sent to the model in one batched query (about 64 MB).
_BATCH_ENTRIES = 8_000_000


class GreedyDeletion(DeletionCorruption):
    """Greedy value-budgeted deletion against a linear model (Dekel & Shamir §4).

    Per row, scans the features in decreasing order of margin drop per unit of feature value
    and deletes each one whose value still fits in the budget left; a feature that does not fit
    is skipped and the scan goes on with the next ones (the paper's "until the limit N is
    reached": the budget, not the first feature too costly for it, ends the attack). Features
    that do not lower the margin are never deleted. Multi-class models: the margin between the
    true class and the other class that the attack brings closest (each pairwise margin is
    attacked, the worst kept).

    For unit feature values (and 0/1 values with an integer budget) this attack is optimal: its
    error equals the certified worst-case error of :func:`robustclf.certify.certified_error`.
    For other values it can miss the worst case; :class:`OptimalDeletion` does not.

    Parameters
    ----------
    budget : float, default=1.0
        The adversary's value budget N, in [0, V([n])].
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j.
    fill : float, default=np.nan
        Value written into deleted entries. ``np.nan`` (default): the entry is absent, and
        every estimator of the library handles it per its method (see
        ``docs/missing_values.md``); a scikit-learn model that rejects NaN needs an imputer
        in its pipeline. ``0.0``: the papers' own protocol (deletion writes zeros in the raw
        features).

    Notes
    -----
    The model must be linear (``coef_``/``intercept_``, optionally behind affine scalers and a
    ``SimpleImputer``); for other models use :class:`BlackBoxGreedyDeletion`. The harm of a
    deletion is computed for what ``fill`` writes, as the model scores it (see
    :mod:`robustclf.certify`): with ``fill=np.nan`` a deleted feature contributes what the model
    gives an absent entry (an imputer's value; zero in the input space of the library's linear
    models), so the harm is ``y (w_j x_j - D_j)``; with ``fill=0.0`` it is ``y w_j x_j``. A
    model that cannot take the NaN a ``fill=np.nan`` deletion writes raises a ValueError.

    A DataFrame must have numeric columns (the margin contributions need numbers), in the order
    the model was fitted on. A sparse ``X`` stays sparse. When a deleted feature contributes
    nothing (``D = 0``: ``fill=0.0``, or NaN read as a zero in raw units, e.g. a bare library
    model or one behind a ``MaxAbsScaler``) an implicit zero cannot be harmed, so only stored
    entries are deleted, and the attack runs on them in O(nnz log nnz)
    (``robustclf._worst_case.csr_greedy_knapsack_deletion``). Otherwise (``D != 0``, e.g.
    NaN behind a ``StandardScaler`` or an imputer) deleting an implicit zero moves the score
    too, and the attack runs exactly on blocks of rows densified one at a time (time
    O(n_samples x n_features), memory bounded), writing NaN into the implicit zeros it deletes:
    3,000 x 3,000 at density 0.01, budget 5, takes 1.9 s against 0.015 s on the stored entries.
    On sparse input scikit-learn's scalers do not centre (``MaxAbsScaler``,
    ``StandardScaler(with_mean=False)``), so ``D != 0`` arises only from an imputer with nonzero
    statistics (a zero-constant imputer keeps ``D = 0``) or a nonzero finite ``fill``. Either way
    the result equals the dense array's attack.

    Before issue 14 the attack stopped at the first feature that did not fit; skipping it can
    only delete more (never less) of the margin, e.g. 0.310 instead of 0.293 forced error on the
    spambase case of ``robustclf._oracles.worst_case`` (the worst case is 0.314).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import GreedyDeletion
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> X_attacked = GreedyDeletion(budget=1, fill=0.0).corrupt(X, y, model=clf)
    >>> int((X_attacked != X).sum(axis=1).max())
    1
    >>> round(clf.score(X, y), 2), round(clf.score(X_attacked, y), 2)
    (0.94, 0.78)
    """

    requires_labels: ClassVar[bool] = True
    requires_model: ClassVar[bool] = True
    level_params: ClassVar[tuple[str, ...]] = ("budget",)
    column_kinds: ClassVar[str] = "numeric"

    def __init__(self, budget=1.0, feature_values="uniform", fill=np.nan):
        self.budget = budget
        self.feature_values = feature_values
        self.fill = fill

    def _deletion_mask(self, X, y, model, rng):
        if np.isnan(X).any():
            raise ValueError("X contains NaN; the linear greedy adversary needs complete rows.")
        return worst_case_margin(model, X, y, self.budget, self.feature_values,
                                 exact=False, fill=self.fill).greedy_mask

    def _sparse_deletion(self, X, y, model, rng, fill):
        return _linear_sparse_deletion(self, X, y, model, rng, fill, exact=False)


class OptimalDeletion(DeletionCorruption):
    """The optimal value-budgeted deletion against a linear model: the worst case itself.

    Per row, deletes a feature set of total value <= ``budget`` that minimises the true-class
    margin (multi-class: the margin over the class the deletion brings closest), found by solving
    the row's 0/1 knapsack exactly (:func:`robustclf.certify.worst_case_margin` with
    ``exact=True``: the greedy and relaxed bounds first, then dynamic programming for integer
    values or HiGHS's MILP for the rows they leave open). The error it forces is the exact
    worst-case error of :func:`robustclf.certify.certified_error`; it is at least that of
    :class:`GreedyDeletion`, which it equals for unit feature values.

    Parameters
    ----------
    budget : float, default=1.0
        The adversary's value budget N, in [0, V([n])].
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j.
    fill : float, default=np.nan
        Value written into deleted entries. ``np.nan`` (default): the entry is absent, and
        every estimator of the library handles it per its method (see
        ``docs/missing_values.md``); a scikit-learn model that rejects NaN needs an imputer
        in its pipeline. ``0.0``: the papers' own protocol (deletion writes zeros in the raw
        features).
    time_limit : float or None, default=None
        Seconds allowed for the exact solves (None: no limit). If rows are not solved in time
        the attack uses the most harmful deletion found for them and a ConvergenceWarning says
        how many rows are not proven optimal.

    Notes
    -----
    Solves every row whose greedy and relaxed margins differ (not only those whose prediction
    could change), so that each row gets its minimal margin: 561 of the 1,000 spambase rows of
    ``robustclf._oracles.worst_case.spambase_case``, about 0.06 s (error 0.314, against
    0.310 for :class:`GreedyDeletion`), where the certified error alone solves 29 rows.
    The model must be linear; the harm of a deletion is computed for what ``fill`` writes, as in
    :class:`GreedyDeletion`. DataFrames and sparse matrices as in :class:`GreedyDeletion`: for
    0/1 feature values, an integer budget and ``D = 0`` the optimal deletion is the greedy one,
    found in O(nnz log nnz) on the stored entries; otherwise the exact solves run on blocks of
    rows densified one at a time (at most 4 million entries each), so ``time_limit`` applies to
    each block.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import GreedyDeletion, OptimalDeletion
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> values = [1.0, 2.0, 1.0, 1.5, 0.5]
    >>> greedy = GreedyDeletion(budget=2, feature_values=values, fill=0.0)
    >>> optimal = OptimalDeletion(budget=2, feature_values=values, fill=0.0)
    >>> round(clf.score(greedy.corrupt(X, y, model=clf), y), 2)
    0.79
    >>> round(clf.score(optimal.corrupt(X, y, model=clf), y), 2)
    0.77
    """

    requires_labels: ClassVar[bool] = True
    requires_model: ClassVar[bool] = True
    level_params: ClassVar[tuple[str, ...]] = ("budget",)
    column_kinds: ClassVar[str] = "numeric"

    def __init__(self, budget=1.0, feature_values="uniform", fill=np.nan, time_limit=None):
        self.budget = budget
        self.feature_values = feature_values
        self.fill = fill
        self.time_limit = time_limit

    def _deletion_mask(self, X, y, model, rng):
        if np.isnan(X).any():
            raise ValueError("X contains NaN; the optimal adversary needs complete rows.")
        return worst_case_margin(model, X, y, self.budget, self.feature_values, exact=True,
                                 time_limit=self.time_limit, fill=self.fill).attack_mask

    def _sparse_deletion(self, X, y, model, rng, fill):
        return _linear_sparse_deletion(self, X, y, model, rng, fill, exact=True)


def _linear_sparse_deletion(corruption, X, y, model, rng, fill, *, exact):
    """The linear adversaries on a CSR matrix.

    When a deleted feature contributes nothing (``D = 0``), deletion only changes the margin
    through stored entries (an implicit zero contributes ``w_j 0 - 0 = 0``), so the worst case
    is a knapsack over the stored entries. The greedy attack is
    :func:`robustclf._worst_case.csr_greedy_knapsack_deletion`, in O(nnz log nnz) with the same
    order and ties as the dense path. For 0/1 feature values and an integer budget the greedy,
    relaxed and exact deletions coincide (Dekel & Shamir, Lemma 1(b)), so the exact attack is
    the greedy one. With ``D != 0`` every implicit zero j has the contribution ``-y D_j``, so
    the dense path runs on blocks of rows (exact, memory bounded; the implicit zeros it deletes
    are listed); so it does for the exact attack with other values.
    """
    if np.isnan(X.data).any():
        raise ValueError("X contains NaN; the linear adversaries need complete rows.")
    values = check_feature_values(corruption.feature_values, X.shape[1])
    budget = check_budget(corruption.budget, values)
    aff = affine_model(model, fill)
    if aff.n_features != X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features, but the model has {aff.n_features}.")
    unit = np.all((values == 0) | (values == 1)) and budget == int(budget)
    if not aff.deletion_is_raw_zero or (exact and not unit):
        return DeletionCorruption._sparse_deletion(corruption, X, y, model, rng, fill)
    true = _signed_rows(aff, y)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    scores = np.asarray(X @ aff.coef.T) + aff.intercept
    worst = np.full(X.shape[0], np.inf)
    deleted = np.zeros(X.nnz, dtype=bool)
    if aff.coef.shape[0] == 1:  # binary: the margin of the true class, y (b + w.x)
        sign = np.where(true == 1, 1.0, -1.0)
        contrasts = [(sign * scores[:, 0], sign[rows] * aff.coef[0, X.indices])]
    else:  # the true class t against every other class c, as in certify
        top = scores[np.arange(X.shape[0]), true]
        contrasts = (
            (np.where(true == c, np.inf, top - scores[:, c]),
             np.where(true[rows] == c, 0.0,
                      aff.coef[true[rows], X.indices] - aff.coef[c, X.indices]))
            for c in range(aff.coef.shape[0])
        )
    for margins, weights in contrasts:
        gains = sp.csr_matrix((X.data * weights, X.indices, X.indptr), shape=X.shape)
        harm, taken = csr_greedy_knapsack_deletion(gains, values, budget)
        better = margins - harm < worst
        worst = np.where(better, margins - harm, worst)
        deleted = np.where(better[rows], taken, deleted)
    no_cells = np.zeros(0, dtype=np.intp)
    return deleted, no_cells, no_cells


def model_margins(model, X, y, response: str = "auto") -> np.ndarray:
    """True-class margin of any classifier: score of the true class minus the best other score.

    ``response="decision_function"`` uses decision scores (binary: ``+-f(x)``),
    ``"predict_proba"`` class probabilities, ``"auto"`` the former when available.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import model_margins
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> margins = model_margins(clf, X, y)
    >>> margins.shape
    (100,)
    >>> float((margins > 0).mean()) == clf.score(X, y)
    True
    """
    if response == "auto":
        response = "decision_function" if hasattr(model, "decision_function") else "predict_proba"
    if response not in ("decision_function", "predict_proba"):
        raise ValueError(
            f"response must be 'auto', 'decision_function' or 'predict_proba', got {response!r}."
        )
    if not hasattr(model, response):
        raise ValueError(f"model {type(model).__name__} has no {response} method.")
    check_not_complex(X)
    classes = np.asarray(model.classes_)
    t = np.clip(np.searchsorted(classes, y), 0, classes.size - 1)
    if np.any(classes[t] != y):
        raise ValueError("y contains labels the model was not fitted on.")
    scores = np.asarray(getattr(model, response)(X), dtype=np.float64)
    if scores.ndim == 1:  # binary decision_function
        return np.where(t == 1, scores, -scores)
    rows = np.arange(scores.shape[0])
    true = scores[rows, t]
    others = scores.copy()
    others[rows, t] = -np.inf
    return true - others.max(axis=1)


class BlackBoxGreedyDeletion(DeletionCorruption):
    """Greedy value-budgeted deletion against any classifier, by batched model queries.

    At each step every still-active row tries deleting each of its remaining features (those not
    yet deleted, not already equal to ``fill``, and fitting in the remaining budget); all these
    candidate rows go to the model in ONE batched call. Each row then deletes the feature with the
    largest margin drop per unit of value, if that drop is positive. A row stops when its budget is
    spent, no deletion lowers its margin, its query allowance is used up, or (by default) it is
    already misclassified.

    Parameters
    ----------
    budget : float, default=1.0
        Value budget N, in [0, V([n])].
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j.
    max_queries : int or None, default=None
        Maximum number of rows evaluated by the model per attacked row (one per tried deletion,
        plus one for the clean margin). When fewer queries remain than candidates, a random
        subset of candidates is tried. None means no limit (at most ``1 + n_features * steps``).
    response : {"auto", "decision_function", "predict_proba"}, default="auto"
        Which model output defines the margin (see :func:`model_margins`).
    stop_when_misclassified : bool, default=True
        Stop attacking a row once it is misclassified (saves queries; the error is unchanged).
    fill : float, default=np.nan
        Value written into deleted entries. ``np.nan`` (default): the entry is absent, and
        every estimator of the library handles it per its method (see
        ``docs/missing_values.md``); a scikit-learn model that rejects NaN needs an imputer
        in its pipeline. ``0.0``: the papers' own protocol (deletion writes zeros in the raw
        features). The model is queried with this value too.

    Notes
    -----
    The model is queried in ``X``'s container: a DataFrame with ``X``'s columns and dtypes
    (so pipelines with column transformers and categorical columns work; deleted non-numeric
    entries are missing values, which needs ``fill=np.nan``), or sparse rows of ``X``'s format.
    A sparse ``X`` is attacked on blocks of rows densified one at a time and stays sparse; with
    ``fill=0.0`` only stored entries can be deleted (an implicit zero is already 0), with
    ``fill=np.nan`` implicit zeros are candidates too. The result equals the dense array's,
    except for the random subsets tried when ``max_queries`` runs short.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> from robustclf.corruption import BlackBoxGreedyDeletion
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(X, y)
    >>> X_attacked = BlackBoxGreedyDeletion(budget=1).corrupt(X, y, model=clf)
    >>> int(np.isnan(X_attacked).sum(axis=1).max())
    1
    >>> round(clf.score(X, y), 2), round(clf.score(X_attacked, y), 2)
    (0.93, 0.47)
    """

    requires_labels: ClassVar[bool] = True
    requires_model: ClassVar[bool] = True
    level_params: ClassVar[tuple[str, ...]] = ("budget",)

    def __init__(self, budget=1.0, feature_values="uniform", max_queries=None, response="auto",
                 stop_when_misclassified=True, fill=np.nan):
        self.budget = budget
        self.feature_values = feature_values
        self.max_queries = max_queries
        self.response = response
        self.stop_when_misclassified = stop_when_misclassified
        self.fill = fill

    def _deletion_mask(self, X, y, model, rng):
        m, n = X.shape
        values = check_feature_values(self.feature_values, n)
        budget = check_budget(self.budget, values)
        fill = check_fill(self.fill)
        allowance = (np.inf if self.max_queries is None
                     else check_nonnegative(self.max_queries, "max_queries", integer=True))
        X = X.copy()
        deleted = np.zeros((m, n), dtype=bool)
        left = np.full(m, budget)
        queries = np.ones(m)
        margin = model_margins(model, X, y, self.response)
        active = queries <= allowance
        unchanged = np.isnan(X) if np.isnan(fill) else X == fill
        while True:
            if self.stop_when_misclassified:
                active &= margin > 0
            fits = values[None, :] <= left[:, None] * (1 + 1e-12) + 1e-12
            candidates = active[:, None] & ~deleted & ~unchanged & fits
            candidates = self._limit_to_allowance(candidates, allowance - queries, rng)
            rows, cols = np.nonzero(candidates)
            if rows.size == 0:
                break
            drop = np.full((m, n), -np.inf)
            drop[rows, cols] = margin[rows] - self._trial_margins(model, X, y, rows, cols, fill)
            queries += candidates.sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                score = np.where(values > 0, drop / np.where(values > 0, values, 1.0),
                                 np.where(drop > 0, np.inf, -np.inf))
            best = np.argmax(score, axis=1)
            r = np.arange(m)
            go = candidates.any(axis=1) & (drop[r, best] > 0)
            active &= go
            if not go.any():
                break
            g = np.flatnonzero(go)
            deleted[g, best[g]] = True
            X[g, best[g]] = fill
            left[g] -= values[best[g]]
            margin[g] -= drop[g, best[g]]
        return deleted

    def _trial_margins(self, model, X, y, rows, cols, fill):
        """Margins of rows ``X[rows]`` with entry ``cols`` deleted, in memory-bounded batches."""
        out = np.empty(rows.size)
        step = max(1, _BATCH_ENTRIES // X.shape[1])
        for start in range(0, rows.size, step):  # batches of candidate rows, not single rows
            r, c = rows[start:start + step], cols[start:start + step]
            trial = X[r]
            trial[np.arange(r.size), c] = fill
            out[start:start + step] = model_margins(model, trial, y[r], self.response)
        return out

    @staticmethod
    def _limit_to_allowance(candidates, remaining, rng):
        """Keep at most ``remaining`` candidates per row, chosen uniformly at random."""
        counts = candidates.sum(axis=1)
        short = counts > remaining
        if not short.any():
            return candidates
        keys = rng.random(candidates.shape)
        keys[~candidates] = np.inf
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
        limited = candidates & (ranks < np.floor(remaining)[:, None])
        return np.where(short[:, None], limited, candidates)
