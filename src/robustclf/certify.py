"""Certified worst case of linear classifiers under value-budgeted feature deletion.

For a linear model and a labelled row, an omniscient adversary deletes a feature set S with
``V(S) <= N`` to minimise the margin (Dekel & Shamir, ICML 2008, Eq. 2).

**What deletion means** (``fill``, as in the deletion corruptions). The model is read in raw
coordinates as ``score(x) = sum_j (w_j x_j - D_j) + b'`` (``robustclf._affine``), where
``D_j`` is the score contribution a *deleted* feature j keeps, so that deleting j removes the
term ``w_j x_j - D_j`` exactly as the model scores the corrupted row:

* ``fill=np.nan`` (default): the deleted entry is absent (NaN) and the model handles it as it
  handles NaN. Scalers pass NaN through; a ``SimpleImputer`` in the pipeline writes its statistic
  ``v_j`` (``D_j = w_j v_j`` when it is the first step); a NaN that reaches one of the library's
  linear models (``nan_policy="absent"``) contributes zero in the model's input space (behind a
  ``StandardScaler``: the training mean). A model that would receive NaN without reading it as
  absent (a bare scikit-learn classifier) raises a ValueError: give it an imputer or use
  ``fill=0.0``.
* ``fill=0.0``: the papers' protocol, a raw zero (``D = 0``), exactly the certificate computed
  before issue 16; another finite ``fill`` is a raw entry of that value.

Steps that are not read exactly (``MinMaxScaler(clip=True)``, column transformers, anything
non-affine) are refused rather than approximated. With the per-feature contributions
``a_ij = y_i (w_j x_ij - D_j)`` the margin after deletion is ``y_i score(x_i) - sum_{j in S}
a_ij``, so the worst margin of row i is::

    mu_i = y_i score(x_i) - max_{delta in {0,1}^n} { sum_j a_ij delta_j : sum_j v_j delta_j <= N }

a 0/1 knapsack per row (:mod:`robustclf._worst_case`), and row i is a worst-case error when
``mu_i <= 0``. For multi-class (one-vs-rest) models a row is misclassified when some other class c
scores at least as high as the true class t; the adversary attacks each pairwise margin
``s_t - s_c`` (contributions ``(w_t - w_c)_j x_j - (D_t - D_c)_j``) and keeps the worst, which is
exact because the two minimisations commute.

Bounds first, exact solves only where they are needed:

* the **relaxed** worst margin (fractional knapsack, Eq. 7) is a lower bound on ``mu_i``: a row
  whose relaxed margin is positive is *certified* correct against every admissible deletion;
* the **greedy** margin (the paper's greedy adversary) is what a concrete attack achieves: an upper
  bound on ``mu_i``; a row it misclassifies is a worst-case error;
* the **exact** solver (``robustclf._worst_case.exact_knapsack_deletion``: dynamic programming
  for integer values, HiGHS's MILP otherwise) runs only on the (row, class) knapsacks the bounds
  leave open -- for :func:`certified_error` the rows whose *sign* is undecided, for
  :func:`worst_case_margin` the rows whose greedy and relaxed margins differ. For 0/1 feature
  values and an integer budget the two bounds meet (Lemma 1(b)) and nothing is solved.

A margin ``<= 0`` counts as an error (the paper's convention), which is conservative for exact ties;
to make ties robust to round-off, "0" means ``|margin| <= 1e-10 * (|clean margin| + sum_j |a_ij|)``
(``WorstCaseMargins.tolerance``). An exact solve that stops short (time limit, HiGHS status) leaves
its rows bracketed, never guessed: the result says so (``is_exact``, the bracket) and a
:class:`~sklearn.exceptions.ConvergenceWarning` names the reason and the gap left.

**Sparse X** (any scipy sparse matrix or array) is never densified. A deleted entry removes
``a_ij = y_i (w_j x_ij - D_j)``; at an implicit zero that is ``-y_i D_j``, zero when deletion
writes a raw zero (``fill=0.0``, or NaN read as absent by a bare library model or behind
scalers that keep zeros at zero: ``MaxAbsScaler``, ``StandardScaler(with_mean=False)``), so
that only the stored entries compete, in O(nnz log nnz). When ``D != 0`` (NaN behind an
imputer or a centring scaler, a non-zero finite ``fill``) an adversary may also delete implicit
zeros, at their value ``v_j``, wherever ``-y_i D_j > 0``: those gains are the same for all rows
of a class, so they are sorted once per class and each row scans them only as far as its budget
reaches (:func:`robustclf._worst_case.csr_deletion_bounds`); the exact solves run on blocks of
open rows restricted to the columns with a useful item
(``robustclf._worst_case.csr_exact_knapsack_deletion``). The numbers are the dense
call's on ``X.toarray()`` (the same items in the same order; sums to round-off); the masks
are boolean CSR matrices (``csr_array`` for a sparse array input).

**Dask arrays and DataFrames.** Every row's worst case depends on that row only, so a dask ``X``
is certified chunk by chunk where its chunks live (:class:`robustclf._blockwise.RowBlocks`),
one pass over the data, and never gathered: :func:`certified_error` brings back a few counts
per chunk, :func:`worst_case_margin` the per-row margins (1-D arrays) and lazy dask arrays for
the deletions. The bounds, the exact solves and the tolerances are the in-memory ones, applied
per chunk, so the numbers are those of the in-memory call on ``X.compute()``, except that
``time_limit`` (and the 30 s of ``exact="auto"``) applies to each chunk's exact solves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._affine import AffineModel, affine_model
from ._blockwise import RowBlocks, is_dask_collection
from ._convergence import warn_not_converged
from ._validation import (
    check_budget,
    check_feature_values,
    check_fill,
    check_labels,
    check_matrix,
    check_n_rows,
    check_nonnegative,
)
from ._worst_case import (
    csr_deletion_bounds,
    csr_exact_knapsack_deletion,
    exact_knapsack_deletion,
    greedy_knapsack_deletion,
    knapsack_deletion,
)

__all__ = ["WorstCaseMargins", "CertifiedError", "worst_case_margin", "certified_error"]

_TIE_RTOL = 1e-10
#: Seconds of exact solving that ``exact="auto"`` allows per call when ``time_limit`` is None.
AUTO_TIME_LIMIT = 30.0


@dataclass(frozen=True)
class WorstCaseMargins:
    """Worst-case margins of every row under the deletion budget, with their bounds.

    Attributes
    ----------
    relaxed : ndarray of shape (n_samples,)
        LP-relaxation (fractional knapsack) margin: a certified lower bound on the worst margin.
    greedy : ndarray of shape (n_samples,)
        Margin after the greedy deletion ``greedy_mask``: an upper bound on the worst margin.
    greedy_mask : ndarray of bool, shape (n_samples, n_features)
        The greedy attack (deleted entries), feasible for the budget. For sparse ``X`` this and
        the other masks are boolean CSR matrices (they may include implicit zeros, see the
        module docstring).
    lower : ndarray of shape (n_samples,)
        The best proven lower bound on the worst margin: ``relaxed``, raised by the exact
        solver where it ran.
    upper : ndarray of shape (n_samples,)
        The margin after ``attack_mask``, the most harmful deletion found (the greedy one or the
        exact solver's): an upper bound on the worst margin.
    attack_mask : ndarray of bool, shape (n_samples, n_features)
    exact : ndarray of shape (n_samples,) or None
        The exact worst margin (``upper``) when every row's is known: ``upper - lower <=
        tolerance`` on every row. None otherwise.
    exact_mask : ndarray of bool or None
        An optimal deletion per row (``attack_mask``) when ``exact`` is known.
    relaxation_is_exact : bool
        True for 0/1 feature values and an integer budget (Dekel & Shamir, Lemma 1(b)).
    tolerance : ndarray of shape (n_samples,)
        Round-off scale of each row's margin: margins ``<= tolerance`` count as errors.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.certify import worst_case_margin
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> wc = worst_case_margin(clf, X, y, budget=1, fill=0.0)
    >>> wc.relaxation_is_exact, wc.exact is not None
    (True, True)
    >>> bool((wc.lower <= wc.upper).all())
    True
    >>> round(float((wc.exact <= wc.tolerance).mean()), 2)
    0.22
    """

    relaxed: np.ndarray
    greedy: np.ndarray
    greedy_mask: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    attack_mask: np.ndarray
    exact: np.ndarray | None
    exact_mask: np.ndarray | None
    relaxation_is_exact: bool
    tolerance: np.ndarray

    @property
    def margin(self) -> np.ndarray:
        """The exact worst margin if known, otherwise the certified lower bound ``lower``."""
        return self.exact if self.exact is not None else self.lower


@dataclass(frozen=True)
class CertifiedError:
    """The error an omniscient deleting adversary can force, with its bracket.

    Attributes
    ----------
    error : float
        The exact worst-case error when known (``is_exact``), else the certified upper bound
        ``bracket[1]``.
    lower : float
        Error forced by the greedy attack (achievable, so a lower bound).
    upper : float
        Error bound from the relaxation: no admissible deletion can do worse (certified).
    is_exact : bool
        Whether ``error`` is exact: every row is either misclassified by a deletion found or
        certified correct.
    budget : float
    n_samples : int
    bracket : tuple of float
        The tightest bracket known, inside ``[lower, upper]``: the error forced by the deletions
        found (greedy or exact solver) and the certified bound. Both equal ``error`` when exact.
    n_undecided : int
        Rows whose worst-case outcome is still open (0 when exact).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.certify import certified_error
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> result = certified_error(clf, X, y, budget=1, fill=0.0)
    >>> result.is_exact, round(result.error, 2)
    (True, 0.22)
    >>> result.bracket
    (0.22, 0.22)
    """

    error: float
    lower: float
    upper: float
    is_exact: bool
    budget: float
    n_samples: int
    bracket: tuple[float, float]
    n_undecided: int

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
    (+1 for ``classes[1]``) and ``contributions_ij = y_i (w_j x_ij - D_j)``. Multi-class models
    yield one pair per class c: the margin ``s_t - s_c`` of the true class t over c and its
    per-feature contributions ``(w_t - w_c)_j x_ij - (D_t - D_c)_j`` (``+inf`` margin for rows
    whose true class is c). ``D`` is ``model.deleted`` (zero for a raw-zero deletion).
    """
    t = _signed_rows(model, y)
    offsets = not model.deletion_is_raw_zero  # D != 0: subtract it (else today's operations)
    if model.coef.shape[0] == 1:
        sign = np.where(t == 1, 1.0, -1.0)
        contributions = (sign[:, None] * model.coef[0]) * X
        if offsets:
            contributions -= sign[:, None] * model.deleted[0]
        yield sign * (X @ model.coef[0] + model.intercept[0]), contributions
        return
    scores = X @ model.coef.T + model.intercept
    true_scores = scores[np.arange(X.shape[0]), t]
    for c in range(model.coef.shape[0]):
        margins = np.where(t == c, np.inf, true_scores - scores[:, c])
        contributions = (model.coef[t] - model.coef[c]) * X
        if offsets:
            contributions -= model.deleted[t] - model.deleted[c]
        contributions[t == c] = 0.0
        yield margins, contributions


def _checked_rows(X, n_features, min_rows=0):
    """``X`` checked (finite numbers, the model's width, at least ``min_rows`` rows): a float64
    array, or for sparse input a canonical float64 CSR matrix (a ``csr_array`` for a sparse
    array); a copy either way.

    NaN is refused whatever the model: the certificate bounds what deleting features does to
    rows whose every value is known, so an entry absent already has no certified meaning.
    """
    array = isinstance(X, sp.sparray)
    X = check_matrix(X, n_features=n_features, accept_sparse=True, allow_nan=True,
                     min_rows=min_rows, why_rows=_NO_ERROR_RATE)
    missing = np.isnan(X.data if sp.issparse(X) else X)
    if missing.any():
        rows = np.unique(X.tocoo().row[missing] if sp.issparse(X)
                         else np.flatnonzero(missing.any(axis=1)))
        raise ValueError(
            f"X contains NaN in {rows.size} row(s) (first: row {rows[0]}); certification "
            "needs complete rows, since it bounds what deleting features of known value "
            "does. Impute X first (e.g. with sklearn.impute.SimpleImputer) or drop the "
            "incomplete rows.")
    if sp.issparse(X):
        X.sum_duplicates()  # sorted indices, one entry per cell: the scan's ties are by column
        if array:
            X = sp.csr_array(X)
    return X


#: Why :func:`certified_error` needs a row (the message of :func:`check_n_rows`).
_NO_ERROR_RATE = "the certified error rate of no rows is undefined"


def _validate(model, X, y, budget, feature_values, exact, time_limit, fill, min_rows=0):
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}.")
    if time_limit is not None:
        time_limit = check_nonnegative(time_limit, "time_limit")
    aff = affine_model(model, check_fill(fill))
    X = _checked_rows(X, aff.n_features, min_rows)
    y = check_labels(y, X.shape[0])
    values = check_feature_values(feature_values, aff.n_features)
    budget = check_budget(budget, values)
    return aff, X, y, values, budget, time_limit


def worst_case_margin(
    model, X, y, budget: float, feature_values="uniform", *, exact: bool | str = "auto",
    time_limit: float | None = None, max_work: float = 5e7, fill: float = np.nan,
) -> WorstCaseMargins:
    """Worst-case margins of a linear model when an adversary deletes features of value <= budget.

    Parameters
    ----------
    model : classifier
        A fitted linear classifier: anything with ``coef_``, ``intercept_``, ``classes_``
        (LinearSVC, LogisticRegression, the library's linear estimators), optionally behind
        affine scalers and a ``SimpleImputer`` in a Pipeline (see ``robustclf._affine`` for the
        steps read exactly; any other step
        raises a ValueError). A scikit-learn model without an imputer needs ``fill=0.0``.
    X : {array-like, sparse matrix, dask array, dask DataFrame} of shape (n_samples, n_features)
        Clean rows (finite values). A sparse matrix or array (any format) is certified on its
        stored entries and never densified, a dask collection chunk by chunk; its chunks may
        be sparse (see the module docstring).
    y : array-like of shape (n_samples,)
        True labels (a dask array or Series with a dask ``X``).
    budget : float
        Value budget N, in [0, V([n])].
    feature_values : {"uniform"} or array-like of shape (n_features,), default="uniform"
        Feature values v_j (Dekel & Shamir §2.1). For the mutual-information heuristic compute
        the values on training data with :func:`robustclf.feature_values.mutual_info_values`.
    exact : {"auto", True, False}, default="auto"
        Whether to solve the 0/1 knapsack exactly on the rows where the greedy and relaxed
        margins differ (dynamic programming for integer values, HiGHS's MILP otherwise). True
        and "auto" differ only in the default ``time_limit``. False returns the bounds only
        (``exact`` is then known only where they meet on every row).
    time_limit : float or None, default=None
        Seconds allowed for the exact solves. None means ``AUTO_TIME_LIMIT`` (30 s) under
        ``exact="auto"`` and no limit under ``exact=True``. Rows left open when it runs out keep
        their bounds (``lower``, ``upper``), ``exact`` is None, and a ConvergenceWarning says so.
    max_work : float, default=5e7
        Largest dynamic-programming table (entries) for integer values; beyond it the MILP is
        used (see ``robustclf._worst_case.exact_knapsack_deletion``).
    fill : float, default=np.nan
        What a deletion writes into the raw entry, as the deletion corruptions' ``fill``:
        ``np.nan`` (default) makes it absent, handled as the model handles NaN (see the module
        docstring: an imputer's value, or no contribution for the library's linear models; a
        model that would receive NaN without reading it as absent raises a ValueError);
        ``0.0`` is the papers' protocol (a raw zero, the certificate of before issue 16).

    Returns
    -------
    WorstCaseMargins
        For a sparse ``X`` the masks are boolean CSR matrices. For a dask ``X``: the per-row
        fields (``relaxed``, ``greedy``, ``lower``, ``upper``, ``exact``, ``tolerance``) are
        in-memory 1-D arrays, computed in one pass; the masks (``greedy_mask``,
        ``attack_mask``, ``exact_mask``) are lazy boolean dask arrays with ``X``'s row chunks
        (sparse chunks for sparse chunks), each chunk's attack recomputed when they are
        computed (identical unless a time limit cut the exact solves short).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.certify import worst_case_margin
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> wc = worst_case_margin(clf, X, y, budget=2, fill=0.0)
    >>> np.round(wc.exact[:3], 2)
    array([ 0.44, -1.03,  0.84])
    >>> wc.exact_mask[:3].sum(axis=1)
    array([2, 2, 2])
    """
    if is_dask_collection(X):
        return _dask_worst_case_margin(model, X, y, budget, feature_values, exact=exact,
                                       time_limit=time_limit, max_work=max_work, fill=fill)
    aff, X, y, values, budget, time_limit = _validate(model, X, y, budget, feature_values,
                                                      exact, time_limit, fill)
    return _worst_case(aff, X, y, values, budget, exact=exact, time_limit=time_limit,
                       max_work=max_work, target="margins", owner="worst_case_margin")


def certified_error(
    model, X, y, budget: float, feature_values="uniform", *, exact: bool | str = "auto",
    time_limit: float | None = None, max_work: float = 5e7, fill: float = np.nan,
) -> CertifiedError:
    """The error an omniscient adversary can force by deleting features of total value <= budget.

    Same parameters as :func:`worst_case_margin`. A row counts as an error when its worst-case
    margin is ``<= 0``. Only the rows whose sign the greedy attack and the relaxation leave
    undecided (greedy margin > 0 >= relaxed margin) go to the exact solver, and only their
    knapsacks against the classes whose relaxed margin is <= 0. ``lower`` is what the greedy
    attack achieves, ``upper`` the certified bound of the relaxation, ``error`` the exact value
    when every row is decided (else the certified bound ``bracket[1]``).
    ``X`` must have at least one row: the error rate of no rows is undefined (a ValueError
    naming ``X``), whereas :func:`worst_case_margin` returns empty margins for it.

    With the default ``exact="auto"`` the spambase case of issue 14 (1,000 rows x 57
    mutual-information values, budget 5; ``robustclf._oracles.worst_case.spambase_case``)
    leaves 29 rows undecided by the bounds (greedy 0.310, relaxed 0.339); solving them gives the
    exact 0.314 in about 0.02 s.

    A dask ``X`` (array or DataFrame) is certified chunk by chunk, one pass over the data: each
    chunk returns its counts (errors forced, rows certified, rows undecided) and only these
    are added up, so ``X`` is never gathered; ``time_limit`` then applies to each chunk.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.certify import certified_error
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = LogisticRegression().fit(X, y)
    >>> [round(certified_error(clf, X, y, budget=b, fill=0.0).error, 2) for b in (0, 1, 2)]
    [0.06, 0.22, 0.52]
    """
    if is_dask_collection(X):
        return _dask_certified_error(model, X, y, budget, feature_values, exact=exact,
                                     time_limit=time_limit, max_work=max_work, fill=fill)
    aff, X, y, values, budget, time_limit = _validate(model, X, y, budget, feature_values,
                                                      exact, time_limit, fill, min_rows=1)
    wc = _worst_case(aff, X, y, values, budget, exact=exact, time_limit=time_limit,
                     max_work=max_work, target="signs", owner="certified_error")
    return _certified_from_counts(_sign_counts(wc), budget)


def _sign_counts(wc: WorstCaseMargins) -> np.ndarray:
    """``[rows, attacked, not certified, undecided, greedy errors, relaxed errors]`` of some
    rows: what :class:`CertifiedError` is made of, as counts that add up over row chunks."""
    attacked = wc.upper <= wc.tolerance  # some deletion found misclassifies the row
    certified = wc.lower > wc.tolerance  # no admissible deletion does
    return np.array([wc.relaxed.size, attacked.sum(), (~certified).sum(),
                     (~attacked & ~certified).sum(), (wc.greedy <= wc.tolerance).sum(),
                     (wc.relaxed <= wc.tolerance).sum()], dtype=np.int64)


def _certified_from_counts(counts: np.ndarray, budget: float) -> CertifiedError:
    n, attacked, not_certified, n_undecided, greedy_errors, relaxed_errors = (
        int(c) for c in counts)
    check_n_rows(n, "X", why=_NO_ERROR_RATE)  # a dask X: its rows are counted only here
    bracket = (attacked / n, not_certified / n)
    return CertifiedError(
        error=bracket[1] if n_undecided else bracket[0],
        lower=greedy_errors / n,
        upper=relaxed_errors / n,
        is_exact=n_undecided == 0, budget=float(budget), n_samples=n,
        bracket=bracket, n_undecided=n_undecided,
    )


def _worst_case(aff, X, y, values, budget, *, exact, time_limit, max_work, target, owner):
    """:func:`_worst_case_rows`, then a ConvergenceWarning for the rows left open."""
    wc, status = _worst_case_rows(aff, X, y, values, budget, exact=exact, time_limit=time_limit,
                                  max_work=max_work, target=target)
    if exact is not False:
        n_open, gap = _open_rows(target, wc)
        _warn_open(owner, status, n_open, wc.relaxed.size, gap)
    return wc


def _worst_case_rows(aff, X, y, values, budget, *, exact, time_limit, max_work, target):
    """Bounds for every row, then exact solves where ``target`` needs them.

    ``target="margins"``: a (row, class) knapsack is solved when its lower bound lies below the
    row's best attack by more than the tolerance (it could be the worst). ``target="signs"``:
    only for rows with ``upper > tol >= lower`` and classes with lower bound ``<= tol``.
    Returns the :class:`WorstCaseMargins` and the exact solver's status (``"optimal"`` when
    nothing stopped short).
    """
    if sp.issparse(X):
        return _sparse_worst_case_rows(aff, X, y, values, budget, exact=exact,
                                       time_limit=time_limit, max_work=max_work, target=target)
    m, n = X.shape
    relaxed_c, greedy = [], np.full(m, np.inf)
    greedy_mask = np.zeros((m, n), dtype=bool)
    tolerance = np.zeros(m)
    for margins, contributions in contrast_contributions(aff, X, y):
        finite = np.isfinite(margins)
        scale = np.abs(np.where(finite, margins, 0.0)) + np.abs(contributions).sum(axis=1)
        tolerance = np.maximum(tolerance, _TIE_RTOL * scale)
        relaxed_c.append(margins - knapsack_deletion(contributions, values, budget).relaxed_gain)
        gain, mask = greedy_knapsack_deletion(contributions, values, budget)
        better = margins - gain < greedy
        greedy = np.where(better, margins - gain, greedy)
        greedy_mask[better] = mask[better]
    lower_c = np.array(relaxed_c)
    relaxed = lower_c.min(axis=0)
    upper, attack_mask = greedy.copy(), greedy_mask.copy()
    status = "optimal"
    if exact is not False:
        limit = time_limit if time_limit is not None else (
            AUTO_TIME_LIMIT if exact == "auto" else None)
        status = _solve_open(aff, X, y, values, budget, lower_c, upper, attack_mask, tolerance,
                             target=target, time_limit=limit, max_work=max_work)
    lower = lower_c.min(axis=0)
    known = bool(np.all(upper - lower <= tolerance))
    wc = WorstCaseMargins(relaxed, greedy, greedy_mask, lower, upper, attack_mask,
                          upper.copy() if known else None,
                          attack_mask.copy() if known else None,
                          _relaxation_is_exact(values, budget), tolerance)
    return wc, status


def _relaxation_is_exact(values, budget) -> bool:
    """0/1 feature values and an integer budget (Dekel & Shamir, Lemma 1(b))."""
    return bool(np.all((values == 0) | (values == 1)) and budget == int(budget))


def _needs_exact(target, lower_c, upper, tolerance):
    """Which rows' knapsack against one class the exact solver must settle."""
    if target == "margins":
        return lower_c < upper - tolerance
    return (upper > tolerance) & (lower_c <= tolerance)


def _solve_open(aff, X, y, values, budget, lower_c, upper, attack_mask, tolerance, *, target,
                time_limit, max_work):
    """Solve the open knapsacks class by class; update the bounds in place; return a status."""
    deadline = np.inf if time_limit is None else time.perf_counter() + time_limit
    status = "optimal"
    for c, (margins, contributions) in enumerate(contrast_contributions(aff, X, y)):
        rows = np.flatnonzero(_needs_exact(target, lower_c[c], upper, tolerance))
        if rows.size == 0:
            continue
        remaining = None if time_limit is None else max(deadline - time.perf_counter(), 0.0)
        sol = exact_knapsack_deletion(contributions[rows], values, budget,
                                      time_limit=remaining, max_work=max_work)
        if sol.status != "optimal":
            status = sol.status + ("" if time_limit is None else f", time_limit={time_limit:g} s")
        lower_c[c, rows] = np.maximum(lower_c[c, rows], margins[rows] - sol.bound)
        attacked = margins[rows] - sol.gain
        better = attacked < upper[rows]
        upper[rows[better]] = attacked[better]
        attack_mask[rows[better]] = sol.mask[better]
    return status


def _open_rows(target, wc: WorstCaseMargins) -> tuple[int, float]:
    """How many rows ``target`` needed are left open, and their largest relative gap (0 if
    none)."""
    gap = wc.upper - wc.lower
    if target == "signs":
        open_rows = (wc.upper > wc.tolerance) & (wc.lower <= wc.tolerance)
    else:
        open_rows = gap > wc.tolerance
    if not open_rows.any():
        return 0, 0.0
    scale = np.maximum(wc.tolerance[open_rows] / _TIE_RTOL, np.finfo(float).tiny)
    return int(open_rows.sum()), float(np.max(gap[open_rows] / scale))


def _warn_open(owner, status, n_open, n_rows, gap, stacklevel=5):
    """ConvergenceWarning when the exact solves left ``n_open`` rows that were needed open."""
    if not n_open:
        return
    warn_not_converged(
        owner,
        reason=(f"the exact worst case was not reached for {n_open} of {n_rows} rows "
                f"({status}); their bracket is reported"),
        measure_name="largest relative gap between the margin bounds",
        measure=gap, tol=_TIE_RTOL,
        advice="Increase time_limit, or use the bracket.", stacklevel=stacklevel,
    )


# -- sparse X: the stored entries, and the implicit zeros by class --------------------------------

def sparse_contrasts(model: AffineModel, X, y: np.ndarray):
    """:func:`contrast_contributions` for a canonical CSR ``X``, without an (n_samples,
    n_features) array.

    Yields ``(margins, gains, implicit, group)``: the margins as there; ``gains``, a CSR
    matrix with ``X``'s structure, holds the contributions of the stored entries, computed by
    the dense path's operations (so bit for bit its values); the contribution of an implicit
    zero j of row i is ``implicit[group[i], j]`` -- ``-y_i D_j`` (binary, ``group`` the label's
    index) or ``-(D_t - D_c)_j`` for true class ``t = group[i]`` -- the same for every row of a
    class, all zero when deletion writes a raw zero (``D = 0``: only stored entries can lower
    the margin).
    """
    t = _signed_rows(model, y)
    offsets = not model.deletion_is_raw_zero
    m, n = X.shape
    rows = np.repeat(np.arange(m), np.diff(X.indptr))
    cols = X.indices

    def stored(data):
        return sp.csr_matrix((data, cols, X.indptr), shape=(m, n))

    if model.coef.shape[0] == 1:
        sign = np.where(t == 1, 1.0, -1.0)
        data = (sign[rows] * model.coef[0, cols]) * X.data
        implicit = np.zeros((2, n))
        if offsets:
            data -= sign[rows] * model.deleted[0, cols]
            implicit = 0.0 - np.array([[-1.0], [1.0]]) * model.deleted[0]
        yield sign * (X @ model.coef[0] + model.intercept[0]), stored(data), implicit, t
        return
    scores = np.asarray(X @ model.coef.T) + model.intercept
    true_scores = scores[np.arange(m), t]
    k = model.coef.shape[0]
    for c in range(k):
        margins = np.where(t == c, np.inf, true_scores - scores[:, c])
        data = (model.coef[t[rows], cols] - model.coef[c, cols]) * X.data
        implicit = np.zeros((k, n))
        if offsets:
            data -= model.deleted[t[rows], cols] - model.deleted[c, cols]
            implicit = 0.0 - (model.deleted - model.deleted[c])
            implicit[c] = 0.0
        data[t[rows] == c] = 0.0
        yield margins, stored(data), implicit, t


def _sparse_scale(margins, gains, implicit, group):
    """``|margin| + sum_j |a_ij|`` over all n features (the stored ones and the implicit
    zeros): the round-off scale of :data:`_TIE_RTOL`."""
    m = gains.shape[0]
    rows = np.repeat(np.arange(m), np.diff(gains.indptr))
    scale = (np.abs(np.where(np.isfinite(margins), margins, 0.0))
             + np.bincount(rows, weights=np.abs(gains.data), minlength=m))
    if np.any(implicit):
        size = np.abs(implicit)
        scale += size.sum(axis=1)[group] - np.bincount(
            rows, weights=size[group[rows], gains.indices], minlength=m)
    return scale


def _sparse_worst_case_rows(aff, X, y, values, budget, *, exact, time_limit, max_work,
                            target):
    """:func:`_worst_case_rows` for a canonical CSR ``X``: the same bounds, exact solves and
    result (masks as boolean sparse matrices of ``X``'s kind), in memory O(nnz) plus the
    implicit zeros the adversary can reach (:func:`robustclf._worst_case.csr_deletion_bounds`,
    :func:`~robustclf._worst_case.csr_exact_knapsack_deletion`)."""
    m = X.shape[0]
    relaxed_c, greedy = [], np.full(m, np.inf)
    tolerance = np.zeros(m)
    deletions, greedy_from = [], np.full(m, -1)  # every deletion found; which one each row keeps
    for c, (margins, gains, implicit, group) in enumerate(sparse_contrasts(aff, X, y)):
        tolerance = np.maximum(tolerance,
                               _TIE_RTOL * _sparse_scale(margins, gains, implicit, group))
        bounds = csr_deletion_bounds(gains, implicit, group, values, budget)
        relaxed_c.append(margins - bounds.relaxed_gain)
        better = margins - bounds.greedy_gain < greedy
        greedy = np.where(better, margins - bounds.greedy_gain, greedy)
        greedy_from[better] = c
        deletions.append((bounds.rows, bounds.cols))
    lower_c = np.array(relaxed_c)
    relaxed = lower_c.min(axis=0)
    upper, attack_from = greedy.copy(), greedy_from.copy()
    status = "optimal"
    if exact is not False:
        limit = time_limit if time_limit is not None else (
            AUTO_TIME_LIMIT if exact == "auto" else None)
        status = _sparse_solve_open(aff, X, y, values, budget, lower_c, upper, attack_from,
                                    deletions, tolerance, target=target, time_limit=limit,
                                    max_work=max_work)
    lower = lower_c.min(axis=0)
    known = bool(np.all(upper - lower <= tolerance))
    kind = sp.csr_array if isinstance(X, sp.sparray) else sp.csr_matrix
    greedy_mask = _sparse_mask(deletions, greedy_from, X.shape, kind)
    attack_mask = _sparse_mask(deletions, attack_from, X.shape, kind)
    wc = WorstCaseMargins(relaxed, greedy, greedy_mask, lower, upper, attack_mask,
                          upper.copy() if known else None,
                          attack_mask.copy() if known else None,
                          _relaxation_is_exact(values, budget), tolerance)
    return wc, status


def _sparse_solve_open(aff, X, y, values, budget, lower_c, upper, attack_from, deletions,
                       tolerance, *, target, time_limit, max_work):
    """:func:`_solve_open` on sparse rows; the deletions found are appended to ``deletions``
    and ``attack_from`` points the improved rows at them."""
    deadline = np.inf if time_limit is None else time.perf_counter() + time_limit
    status = "optimal"
    for c, (margins, gains, implicit, group) in enumerate(sparse_contrasts(aff, X, y)):
        rows = np.flatnonzero(_needs_exact(target, lower_c[c], upper, tolerance))
        if rows.size == 0:
            continue
        remaining = None if time_limit is None else max(deadline - time.perf_counter(), 0.0)
        sol = csr_exact_knapsack_deletion(gains, implicit, group, rows, values, budget,
                                          time_limit=remaining, max_work=max_work)
        if sol.status != "optimal":
            status = sol.status + ("" if time_limit is None else f", time_limit={time_limit:g} s")
        lower_c[c, rows] = np.maximum(lower_c[c, rows], margins[rows] - sol.bound)
        attacked = margins[rows] - sol.gain
        better = attacked < upper[rows]
        upper[rows[better]] = attacked[better]
        attack_from[rows[better]] = len(deletions)
        r, cols = sol.mask.nonzero()
        deletions.append((rows[r], cols))
    return status


def _sparse_mask(deletions, source, shape, kind):
    """The boolean sparse matrix of each row's deletion ``deletions[source[row]]``."""
    rows = np.concatenate([r for r, _ in deletions])
    cols = np.concatenate([c for _, c in deletions])
    ids = np.repeat(np.arange(len(deletions)), [r.size for r, _ in deletions])
    keep = source[rows] == ids
    return kind((np.ones(int(keep.sum()), dtype=bool), (rows[keep], cols[keep])), shape=shape)


# -- dask: chunk by chunk -----------------------------------------------------------------------

def _dask_inputs(model, X, y, budget, feature_values, exact, time_limit, fill):
    """The checks of :func:`_validate` that need no data, and ``X`` and ``y`` in row chunks."""
    if exact not in ("auto", True, False):
        raise ValueError(f"exact must be 'auto', True or False, got {exact!r}.")
    if time_limit is not None:
        time_limit = check_nonnegative(time_limit, "time_limit")
    if y is None:
        raise ValueError("y (the true labels) is required.")
    aff = affine_model(model, check_fill(fill))
    blocks = RowBlocks.from_inputs(X, y)
    if blocks.shape[1] != aff.n_features:
        raise ValueError(f"X has {blocks.shape[1]} features, but the model has "
                         f"{aff.n_features}.")
    values = check_feature_values(feature_values, aff.n_features)
    budget = check_budget(budget, values)
    return aff, blocks, values, budget, time_limit


def _chunk_worst_case(X, y, aff, values, budget, exact, time_limit, max_work, target):
    """:func:`_worst_case_rows` on one in-memory row chunk (checked as in memory)."""
    X = _checked_rows(X, aff.n_features)
    y = check_labels(y, X.shape[0])
    return _worst_case_rows(aff, X, y, values, budget, exact=exact, time_limit=time_limit,
                            max_work=max_work, target=target)


def _chunk_signs(X, y, w, aff, values, budget, exact, time_limit, max_work):
    """Counts of :func:`_sign_counts`, the open rows and the solver's status of one chunk."""
    wc, status = _chunk_worst_case(X, y, aff, values, budget, exact, time_limit, max_work,
                                   "signs")
    return _sign_counts(wc), _open_rows("signs", wc), status


def _chunk_margins(X, y, w, aff, values, budget, exact, time_limit, max_work):
    """The per-row fields of one chunk, stacked, and the solver's status."""
    wc, status = _chunk_worst_case(X, y, aff, values, budget, exact, time_limit, max_work,
                                   "margins")
    return np.stack([wc.relaxed, wc.greedy, wc.lower, wc.upper, wc.tolerance]), status


def _chunk_mask(X, y, aff, values, budget, exact, time_limit, max_work, field):
    wc, _ = _chunk_worst_case(X, y[:, 0], aff, values, budget, exact, time_limit, max_work,
                              "margins")
    return getattr(wc, field)


def _first_stop(statuses) -> str:
    return next((s for s in statuses if s != "optimal"), "optimal")


def _dask_certified_error(model, X, y, budget, feature_values, *, exact, time_limit, max_work,
                          fill) -> CertifiedError:
    from dask import delayed

    aff, blocks, values, budget, time_limit = _dask_inputs(model, X, y, budget, feature_values,
                                                           exact, time_limit, fill)
    parts = blocks.collect(_chunk_signs, delayed(aff, pure=True), values, budget, exact,
                           time_limit, max_work)
    counts = np.sum([c for c, _, _ in parts], axis=0)
    if exact is not False:
        n_open = sum(o for _, (o, _), _ in parts)
        gap = max(g for _, (_, g), _ in parts)
        _warn_open("certified_error", _first_stop(s for _, _, s in parts), n_open,
                   int(counts[0]), gap)
    return _certified_from_counts(counts, budget)


def _dask_worst_case_margin(model, X, y, budget, feature_values, *, exact, time_limit,
                            max_work, fill) -> WorstCaseMargins:
    import dask.array as da
    from dask import delayed

    aff, blocks, values, budget, time_limit = _dask_inputs(model, X, y, budget, feature_values,
                                                           exact, time_limit, fill)
    shared = (delayed(aff, pure=True), values, budget, exact, time_limit, max_work)
    parts = blocks.collect(_chunk_margins, *shared)
    relaxed, greedy, lower, upper, tolerance = np.concatenate([p for p, _ in parts], axis=1)
    wc = WorstCaseMargins(relaxed, greedy, None, lower, upper, None, None, None,
                          _relaxation_is_exact(values, budget), tolerance)
    if exact is not False:
        n_open, gap = _open_rows("margins", wc)
        _warn_open("worst_case_margin", _first_stop(s for _, s in parts), n_open, relaxed.size,
                   gap)

    meta = np.zeros((0, 0), dtype=bool)
    if sp.issparse(blocks.X._meta):  # sparse chunks give sparse masks
        kind = sp.csr_array if isinstance(blocks.X._meta, sp.sparray) else sp.csr_matrix
        meta = kind((0, 0), dtype=bool)

    def mask(field):
        return da.map_blocks(_chunk_mask, blocks.X, blocks.y[:, None], *shared, field=field,
                             dtype=bool, meta=meta)

    known = bool(np.all(upper - lower <= tolerance))
    attack_mask = mask("attack_mask")
    return WorstCaseMargins(relaxed, greedy, mask("greedy_mask"), lower, upper, attack_mask,
                            upper.copy() if known else None, attack_mask if known else None,
                            wc.relaxation_is_exact, tolerance)
