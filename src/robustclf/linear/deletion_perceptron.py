"""Dekel & Shamir's Perceptron with projections onto the cube (ICML 2008, §3).

An online learner facing a feature-deleting adversary. Before example i the algorithm holds
``(w_i, b_i)``; the adversary reveals only the features ``J_i`` (deleting a set of value at most
N), and the algorithm suffers the robust hinge loss of Eq. (12)::

    xi(w, b, x, y) = [max_{J: V([n] \\ J) <= N} gamma V(J) / P - y (b + sum_{j in J} w_j x_j)]_+

with ``P = V([n]) - N``. Writing ``a_j = y w_j x_j - gamma v_j / P`` the bracket is
``-(y b + min_J sum_{j in J} a_j)``: the adversary deletes the features with the largest
``a_j`` subject to the value budget, a knapsack solved by the library's one worst-case solver
(:func:`robustclf._worst_case.knapsack_deletion`, relaxation of Eq. 7). If the loss is positive
the update is coordinate-wise on the kept features, followed by projection on the cube::

    w_{i+1,j} = [w_{i,j} + y_i tau x_{i,j}]_{+-C}   (j in J_i),     b_{i+1} = [b_i + y_i tau]_{+-C},

with ``tau = sqrt(n + 1) C / sqrt(2 m)``. The batch classifier is the average hypothesis of the
online-to-batch conversion (§3.2): ``w_bar = (1/m) sum_{i=1}^m w_{i-1}``, likewise ``b_bar``.

Row weights are *presentations*: a row of weight s is played ``ceil(s)`` times, every round
with weight one except the last, which has weight ``s - ceil(s) + 1`` in (0, 1]. A round of
weight omega is a round on the loss ``omega xi``: its update is ``omega`` times the unweighted
one and its hypothesis counts ``omega`` times in the average; the sequence has T = sum of the
weights. An integer weight k is therefore exactly k copies of the row in the sequence, and a
zero weight no round at all (:func:`_presentations`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_bool,
    check_budget,
    check_generator,
    check_int,
    check_positive,
    validate_data,
)
from .._worst_case import csr_knapsack_deletion, knapsack_deletion, unit_knapsack_deletion
from ..feature_values import resolve_feature_values
from ._base import LinearClassifierBase, absent_as_zero
from ._deletion_lp_solvers import _worst_case
from ._stream import PartialFitMixin, signed_targets
from ._weights import positive_weight_rows

__all__ = ["DeletionRobustPerceptron", "deletion_hinge_loss"]


def _check_margin(margin) -> float:
    """gamma of Eq. (12): a finite real > 0."""
    if (isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating))
            or not np.isfinite(margin) or margin <= 0):
        raise ValueError(
            f"margin must be > 0 (gamma of Eq. 12; with 0 the all-zero model has zero loss and "
            f"nothing is learnt), got {margin!r}.")
    return float(margin)


def _resolve_adversary(feature_values, budget, margin, X, y, sample_weight=None):
    """Feature values, budget and the per-feature penalty ``gamma v_j / P`` of Eq. (7)/(12)."""
    values = resolve_feature_values(feature_values, X, y, sample_weight)
    budget = check_budget(budget, values)
    total = float(values.sum())
    if budget >= total:
        raise ValueError(
            f"budget must be smaller than the total feature value V([n]) = {total:g} so that "
            f"P = V([n]) - budget > 0 (Dekel & Shamir, Eq. 12); got budget={budget:g}."
        )
    margin = _check_margin(margin)
    return values, budget, margin * values / (total - budget)


def deletion_hinge_loss(coef: np.ndarray, intercept: float, X: np.ndarray,
                        y_signed: np.ndarray, feature_values: np.ndarray, budget: float,
                        margin: float) -> np.ndarray:
    """Robust hinge loss of Dekel & Shamir's Eq. (12) for every row (vectorised, trusted inputs).

    Parameters
    ----------
    coef : ndarray of shape (n_features,)
    intercept : float
    X : ndarray or CSR matrix of shape (n_samples, n_features)
        A CSR matrix is not densified: a zero entry's gain ``-gamma v_j / P`` is never deleted,
        so the knapsack runs on the stored entries only.
    y_signed : ndarray of shape (n_samples,) with entries in {-1, +1}
    feature_values : ndarray of shape (n_features,)
    budget : float
        ``N < V([n])``.
    margin : float
        ``gamma``.

    Returns
    -------
    loss : ndarray of shape (n_samples,)
        ``[-(y b + min_tau sum_j tau_j a_j)]_+`` with ``a_j = y w_j x_j - gamma v_j / P``, the
        minimum over the relaxed knapsack polytope of Eq. (7). It equals Eq. (12) exactly for 0/1
        feature values and an integer budget (Lemma 1(b)) and upper-bounds it otherwise.
    """
    values = np.asarray(feature_values, dtype=np.float64)
    if sp.issparse(X):
        theta, _ = _worst_case(sp.csr_matrix(X), y_signed, coef, intercept, values, budget,
                               margin)
        return np.maximum(-theta, 0.0)
    penalty = margin * values / (values.sum() - budget)
    gains = y_signed[:, None] * X * coef[None, :] - penalty[None, :]
    res = knapsack_deletion(gains, values, budget)
    kept_value = y_signed * intercept + gains.sum(axis=1) - res.relaxed_gain
    return np.maximum(-kept_value, 0.0)


def _mean_loss(w, b, X, s, values, budget, margin, block=2048, sample_weight=None):
    """Mean Eq. (12) loss over the rows, as :func:`deletion_hinge_loss` but cheaper.

    With ``sample_weight`` the mean is weighted: ``sum_i s_i xi_i / sum_i s_i``.

    Rows are taken in blocks (memory O(block n), O(nnz of the block) for a CSR ``X``, whose
    knapsack runs on the stored entries); with unit values the knapsack is the sum of
    the ``budget`` largest positive gains, found by partition
    (:func:`~robustclf._worst_case.unit_knapsack_deletion`) instead of a sort; otherwise the
    shared sort-based knapsack runs only on the rows and columns that can have a positive loss
    (rows whose margin exceeds a cheap upper bound on the harm are skipped in both cases).
    """
    penalty = margin * values / (values.sum() - budget)
    unit = bool(np.all(values == 1.0))
    total = 0.0
    for start in range(0, X.shape[0], block):
        sb = s[start:start + block]
        if sp.issparse(X):  # the knapsack on the stored entries (memory O(nnz of the block))
            theta, _ = _worst_case(X[start:start + block], sb, w, b, values, budget, margin)
            loss = np.maximum(-theta, 0.0)
            total += loss.sum() if sample_weight is None else \
                sample_weight[start:start + block] @ loss
            continue
        gains = sb[:, None] * X[start:start + block] * w - penalty
        value = sb * b + gains.sum(axis=1)
        if unit:  # screen: the harm is at most min(sum of gains, budget * largest gain)
            pos = np.maximum(gains, 0.0)
            harm = np.zeros(sb.size)
            rows = np.flatnonzero(value < np.minimum(pos.sum(axis=1), budget * pos.max(axis=1)))
            if rows.size:
                harm[rows] = unit_knapsack_deletion(pos[rows], budget)[0]
        else:
            harm = np.zeros(sb.size)
            useful = gains > 0.0
            rows = np.flatnonzero(value - np.where(useful, gains, 0.0).sum(axis=1) < 0.0)
            cols = np.flatnonzero(useful[rows].any(axis=0))
            if rows.size and cols.size:
                harm[rows] = knapsack_deletion(gains[rows][:, cols], values[cols],
                                               budget).relaxed_gain
        loss = np.maximum(harm - value, 0.0)
        total += loss.sum() if sample_weight is None else \
            sample_weight[start:start + block] @ loss
    return total / (X.shape[0] if sample_weight is None else sample_weight.sum())


def _dual_bound(m, alpha, kept, kept_value, values, budget, margin, bound, fit_intercept):
    """Weak-duality lower bound on ``min F`` over the cube from the updates' dual point.

    ``F(w, b) = (1 / (m gamma)) sum_i xi_i`` (Eq. 12's loss averaged, the objective of
    Dekel & Shamir's LP, Eq. 4) over ``||w||_inf <= C`` and ``|b| <= C`` (the Perceptron's cube;
    ``b = 0`` without intercept). Each ``xi_i`` is a maximum over ``alpha_i in [0, 1]``, ``u_i in
    alpha_i T`` of a function linear in ``(w, b)``, so any such point bounds the minimum from
    below by the minimum over the cube of that linear function::

        (1 / (m gamma)) [gamma / P sum_i u_i.v - C ||sum_i y_i u_i * x_i||_1
                         - C |sum_i alpha_i y_i|]

    The Perceptron's updates give the point: ``alpha_i = 1`` and ``u_i`` the kept fractions at
    the rounds with positive loss, averaged over epochs (ergodic dual of online subgradient
    descent: its gap to the average hypothesis is at most the average regret, Theorem 4's
    O(1 / sqrt(T)) bound). With an intercept, the balanced point (larger class scaled down so
    that ``sum alpha_i y_i = 0``) is tried too; the larger bound is returned.

    ``m`` is the number of rows, or with row weights their total weight S: the objective is
    then ``(1 / (S gamma)) sum_i s_i xi_i`` and every term of row i above is multiplied by
    ``s_i``. A round of weight omega adds ``omega`` to the row's ``alpha`` and ``omega`` times
    its kept fractions to ``u``; the rounds of row i in one epoch weigh ``s_i`` in total, so
    ``alpha_i = (its active weight) / s_i`` is in [0, 1] and ``u_i`` in ``alpha_i T`` (T is
    convex): the weighted sums below are those of a feasible dual point.
    """
    P = float(values.sum()) - budget
    pos, neg = alpha
    plain = (margin / P) * kept_value.sum() - bound * np.abs(kept[0] - kept[1]).sum()
    if not fit_intercept:
        return plain / (m * margin)
    plain -= bound * abs(pos - neg)
    rho_pos = min(1.0, neg / pos) if pos > 0 else 0.0
    rho_neg = min(1.0, pos / neg) if neg > 0 else 0.0
    balanced = ((margin / P) * (rho_pos * kept_value[0] + rho_neg * kept_value[1])
                - bound * np.abs(rho_pos * kept[0] - rho_neg * kept[1]).sum())
    return max(plain, balanced) / (m * margin)


def _presentations(sample_weight):
    """Rounds of a weighted pass: the row of every round and the round's weight omega.

    Row i is played ``ceil(s_i)`` times, with weight one except the last round, of weight
    ``s_i - ceil(s_i) + 1`` (one for an integer weight); rows of weight zero are not played.
    The rounds of a row are consecutive, so with integer weights the rows are those of
    ``X.repeat(sample_weight, axis=0)``, round for round.
    """
    counts = np.ceil(sample_weight).astype(np.intp)
    rows = np.repeat(np.arange(sample_weight.size), counts)
    omega = np.ones(rows.size)
    last = np.cumsum(counts)[counts > 0] - 1
    omega[last] = (sample_weight - (counts - 1))[counts > 0]
    return rows, omega


class _State:
    """Online state of one binary problem: current and summed hypotheses (lazy averaging)."""

    def __init__(self, n_features: int):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.w_sum = np.zeros(n_features)
        self.b_sum = 0.0
        # rounds played with the current (w, b), not yet added to the sums (their total weight)
        self.pending = 0
        self.n_updates = 0
        # the dual point of the updates (alpha_i = 1, u_i = kept fractions), per class (+1, -1):
        # sum of alpha_i, of u_i * x_i and of u_i.v (see _dual_bound)
        self.dual_alpha = np.zeros(2)
        self.dual_kept = np.zeros((2, n_features))
        self.dual_value = np.zeros(2)

    def flush(self):
        if self.pending:
            self.w_sum += self.pending * self.w
            self.b_sum += self.pending * self.b
            self.pending = 0


def _online_pass(state, X, s, order, taus, values, budget, penalty, bound, fit_intercept,
                 omega=None):
    """One pass of §3.1 over the rows ``order`` (the inherent sequential loop).

    ``taus[k]`` is the step of the k-th round of this pass and ``omega[k]`` its weight (None:
    all one): the update of a weighted round is ``omega`` times the unweighted one, and the
    round's hypothesis counts ``omega`` times in the average and in the dual point.

    The hypothesis changes only at rounds with positive loss, so the losses of the next rows
    under the *current* hypothesis are exact until the first of them is positive: rows are
    therefore evaluated in blocks, with one call of the shared worst-case solver per block
    (vectorised over the block's rows; :func:`_first_loss_dense` or, for a CSR ``X``,
    :func:`_first_loss_sparse`), and the pass advances to the first positive-loss row, updates,
    and continues from the next row. The block length adapts to the observed gap between
    updates. A CSR ``X`` (canonical: sorted, no duplicates) is never densified and takes the
    same rounds and updates as ``X.toarray()`` (up to the order of floating-point sums).
    """
    first_loss = _first_loss_sparse if sp.issparse(X) else _first_loss_dense
    totals = (float(values.sum()), float(penalty.sum()))
    w = state.w
    b = state.b
    m = order.shape[0]
    pos = 0
    block = 8
    while pos < m:
        rows = order[pos:pos + block]
        found = first_loss(X, rows, s[rows], w, b, values, budget, penalty, totals)
        if found is None:  # no update in this block
            state.pending += rows.shape[0] if omega is None else \
                omega[pos:pos + rows.shape[0]].sum()
            pos += rows.shape[0]
            block = min(2 * block, 512)
            continue
        # positive loss at row `first`: rounds up to it used (w, b); then the update on J_i
        first, cols, kept, kept_value = found
        state.pending += first + 1 if omega is None else omega[pos:pos + first + 1].sum()
        state.w, state.b = w, b
        state.flush()
        w, b = _apply_update(state, w, b, s[rows[first]], taus[pos + first],
                             1.0 if omega is None else omega[pos + first], cols, kept,
                             kept_value, bound, fit_intercept)
        pos += first + 1
        block = first + 1
    state.w, state.b = w, b
    state.flush()


def _first_loss_dense(X, rows, sb, w, b, values, budget, penalty, totals):
    """The first row of the block ``rows`` with positive loss under ``(w, b)``, and its update.

    Returns None when every row's loss is zero, else ``(first, cols, kept, kept_value)`` for
    :func:`_apply_update`. A row whose margin stays non-negative after deleting *all* its
    positive-gain features has zero loss without solving the knapsack, and the knapsack is
    solved only over columns with a positive gain somewhere (the others are never deleted).
    """
    gains = sb[:, None] * X[rows] * w - penalty
    value = sb * b + gains.sum(axis=1)
    useful = gains > 0.0
    candidate = np.flatnonzero(value - np.where(useful, gains, 0.0).sum(axis=1) < 0.0)
    if not candidate.size:
        return None
    cols = np.flatnonzero(useful[candidate].any(axis=0))
    if cols.size:  # (knapsack_deletion does not accept zero columns)
        res = knapsack_deletion(gains[candidate][:, cols], values[cols], budget)
        hit = np.flatnonzero(value[candidate] - res.relaxed_gain < 0.0)
    else:
        hit = np.arange(candidate.size)
    if not hit.size:
        return None
    first = candidate[hit[0]]
    kept_x = X[rows[first]].copy()
    deleted_value = 0.0
    if cols.size:
        kept_x[cols] *= 1.0 - res.fractions[hit[0]]
        deleted_value = float(res.fractions[hit[0]] @ values[cols])
    return first, slice(None), kept_x, totals[0] - deleted_value


def _first_loss_sparse(X, rows, sb, w, b, values, budget, penalty, totals):
    """:func:`_first_loss_dense` for a canonical CSR ``X``, in O(nnz of the block).

    A zero entry's gain ``-gamma v_j / P`` is never deleted, so only the stored entries of the
    block are gathered (from ``X``'s arrays directly: scipy's row indexing costs more than the
    rest of a round), and the knapsack runs on the stored entries of the rows that may have a
    positive loss (:func:`~robustclf._worst_case.csr_knapsack_deletion`). The update touches
    the row's stored features only.
    """
    indptr, indices, data = X.indptr, X.indices, X.data
    starts, lengths = indptr[rows], indptr[rows + 1] - indptr[rows]
    ends = np.cumsum(lengths)
    owner = np.repeat(np.arange(rows.shape[0]), lengths)
    at = np.arange(ends[-1]) + np.repeat(starts - (ends - lengths), lengths)
    cols, vals = indices[at], data[at]
    contrib = sb[owner] * vals * w[cols]
    gains = contrib - penalty[cols]
    value = sb * b + np.bincount(owner, contrib, rows.shape[0]) - totals[1]
    useful = np.where(gains > 0.0, gains, 0.0)
    candidate = np.flatnonzero(value - np.bincount(owner, useful, rows.shape[0]) < 0.0)
    if not candidate.size:
        return None
    keep = np.isin(owner, candidate)
    sub = sp.csr_matrix((gains[keep], cols[keep], np.r_[0, np.cumsum(lengths[candidate])]),
                        shape=(candidate.size, X.shape[1]))
    relaxed, fractions = csr_knapsack_deletion(sub, values, budget)
    hit = np.flatnonzero(value[candidate] - relaxed < 0.0)
    if not hit.size:
        return None
    first = int(candidate[hit[0]])
    lo, hi = fractions.indptr[hit[0]], fractions.indptr[hit[0] + 1]
    mine = slice(ends[first] - lengths[first], ends[first])
    deleted = fractions.data[lo:hi]
    return (first, cols[mine], vals[mine] * (1.0 - deleted),
            totals[0] - float(deleted @ values[cols[mine]]))


def _apply_update(state, w, b, si, tau, weight, cols, kept, kept_value, bound, fit_intercept):
    """The update of §3.1 at a round with positive loss, and the round's dual point.

    ``kept`` holds ``(1 - delta_j) x_j`` of the row's features ``cols`` (an index array, or
    ``slice(None)``: all), ``kept_value`` the value ``V - delta.v`` they keep, ``weight`` the
    round's omega (one unweighted). ``w`` is changed in place (the caller has flushed the
    hypothesis into the average); returns ``(w, b)``.
    """
    cls = 0 if si > 0 else 1
    state.dual_alpha[cls] += weight
    state.dual_kept[cls, cols] += weight * kept
    state.dual_value[cls] += weight * kept_value
    step = si * tau * weight
    w[cols] = np.minimum(np.maximum(w[cols] + step * kept, -bound), bound)
    if fit_intercept:
        b = min(max(b + step, -bound), bound)
    state.n_updates += 1
    return w, b


class DeletionRobustPerceptron(PartialFitMixin, LinearClassifierBase):
    """Perceptron with projections onto the cube against a feature-deleting adversary.

    Dekel & Shamir (ICML 2008), §3: on each example the adversary deletes the features of total
    value at most ``budget`` that maximise the robust hinge loss of Eq. (12); when the loss is
    positive the weights of the *kept* features move by ``y tau x`` and are clipped to
    ``[-weight_bound, weight_bound]``; the returned classifier is the average of the online
    hypotheses (online-to-batch conversion, §3.2). Multi-class problems are solved one-vs-rest.

    Parameters
    ----------
    budget : float, default=1.0
        The adversary's value budget N; must be smaller than the total feature value. The
        default, one feature of unit value, is the smallest threat that changes the model; set
        it to the threat you expect. Measured at the defaults (one pass, two stratified 50/50
        splits, at most 1,000 training rows; ``benchmarks/bench_defaults_quality.py``), error
        clean / under the exact worst case of one deleted feature, against ``LinearSVC()``:
        breast cancer 0.032 / 0.051 (0.038 / 0.118), spambase 0.136 / 0.226 (0.102 / 0.218),
        digits 0.073 / 0.192 (0.039 / 0.298), votes 0.106 / 0.162 (0.048 / 0.446). The single
        online pass is what costs clean accuracy on spambase (budget 0: 0.128).
    feature_values : {"uniform", "mutual_info"} or array-like of shape (n_features,), \
default="uniform"
        Feature values v_j (``"mutual_info"`` is the paper's heuristic of §4, computed on the
        training data; with row weights the weighted mutual information, i.e. that of the
        rows repeated as their weights say).
    margin : float, default=1.0
        The margin parameter gamma of Eq. (12).
    weight_bound : float, default=10.0
        Radius C of the cube containing ``w`` and ``b``. Only ``weight_bound / margin`` matters
        (scaling both scales the whole run).
    fit_intercept : bool, default=True
        Learn the bias b (updated and clipped like the weights). If False, b = 0.
    n_epochs : int, default=1
        Passes over the training data in :meth:`fit` (the paper makes one).
    shuffle : bool, default=True
        Visit the rows of each epoch in a random order (the same order for every class).
    horizon : int or None, default=None
        Number of rounds m assumed by :meth:`partial_fit` for the step tau. None uses the
        anytime step ``tau_t = sqrt(n+1) C / sqrt(2 t)`` at round t. :meth:`fit` ignores it.
    random_state : int, numpy Generator or None, default=None
        Seeds the shuffling.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, scikit-learn's meaning, combined with ``sample_weight`` by
        multiplication: a row of class ``k`` is played as a row of weight ``class_weight[k]``
        (see Notes: weights are presentations of the row); ``"balanced"`` uses
        ``n_samples / (n_classes * n_k)`` in :meth:`fit` and is refused by
        :meth:`partial_fit` (a batch of a stream does not know the class frequencies).
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means. ``"absent"``: the feature is absent from that row and
        contributes nothing, ``w_j x_j = 0``, in :meth:`fit`, :meth:`partial_fit`, prediction
        and :meth:`robust_loss` (it is read as 0, the paper's deletion); behind a
        ``StandardScaler`` in a pipeline that is the training mean. ``"raise"``: NaN is
        rejected with scikit-learn's usual error.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Averaged weights ``w_bar``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Averaged bias ``b_bar``.
    classes_ : ndarray of shape (n_classes,)
    feature_values_ : ndarray of shape (n_features,)
    tau_ : float
        The step of :meth:`fit`, ``sqrt(n + 1) C / sqrt(2 T)`` with T = n_epochs * n_samples
        (``n`` instead of ``n + 1`` without intercept; with row weights n_samples is their
        sum); the last step for :meth:`partial_fit`.
    n_iter_ : int
        Epochs run.
    t_ : int or float
        Online rounds played so far (rows x epochs, summed over partial_fit calls); with row
        weights the summed weight of the rounds (the number of rounds of the repeated rows).
    n_updates_ : ndarray of shape (n_problems,)
        Rounds with positive loss (updates), per binary problem.
    objective_ : ndarray of shape (n_problems,)
        (:meth:`fit` only) ``F(w_bar, b_bar) = (1 / (m gamma)) sum_i xi_i`` on the training
        rows: Eq. (12)'s loss averaged, the objective of Dekel & Shamir's LP (Eq. 4), here over
        the cube ``||w||_inf, |b| <= C``.
    lower_bound_ : ndarray of shape (n_problems,)
        (:meth:`fit` only) A certified lower bound on the minimum of that objective over the
        cube: the ergodic dual of the updates (``_dual_bound``).
    duality_gap_ : ndarray of shape (n_problems,)
        (:meth:`fit` only) ``objective_ - lower_bound_`` (>= the true suboptimality).
    n_features_in_ : int

    Notes
    -----
    Choices where the paper is silent (see docs/reproduction/dekel_shamir_perceptron_fdrop.md):

    * The adversary's problem is solved by its LP relaxation (Eq. 7). For 0/1 values and an
      integer budget it is exact (Lemma 1(b)) and ``J_i`` is a set; otherwise at most one feature
      is deleted fractionally (Lemma 1(c)) and its update is scaled by its kept fraction, which is
      the exact subgradient of the relaxed loss (an upper bound on Eq. 12).
    * With several epochs the online sequence has T = n_epochs * m rounds: tau uses T and the
      average runs over all T hypotheses.
    * :meth:`partial_fit` visits rows in the given order; with ``horizon=None`` the step is the
      anytime schedule above, so feeding a stream in any chunking gives the same model.
    * Theorem 4 assumes ``||x||_1 <= 1``; the estimator does not rescale X.
    * ``margin`` (gamma) must be > 0: with gamma = 0 the loss only asks for a non-negative
      margin after deletion, which ``w = 0, b = 0`` attains, so nothing is learnt.

    **Row weights** (``sample_weight`` times ``class_weight``) are presentations, the online
    reading of scikit-learn's "a row of weight k acts as k copies". A row of weight s is played
    ``ceil(s)`` times per epoch: rounds of weight one and a last round of weight ``s -
    ceil(s) + 1``. A round of weight omega is a round on the loss ``omega xi``: its update is
    ``omega y tau x`` on the kept features, its hypothesis counts ``omega`` times in the
    average, and T (hence ``tau``) is the summed weight. With integer weights the fit is the
    fit on ``X.repeat(sample_weight, axis=0)`` round for round: bit for bit the same model for
    the same ``random_state`` (with ``shuffle`` the rounds of all rows are shuffled together;
    without it the k rounds of a row are consecutive). Weight zero is no round. What does not
    hold: the model depends on the order of the rows (as for any online method), so the
    weighted rows given in another order than the repeated ones give another (equally good in
    expectation) model. The objective, ``lower_bound_`` and ``duality_gap_`` are those of the
    weighted mean loss ``(1 / (S gamma)) sum_i s_i xi_i`` (S the summed weight); the bound
    stays certified (see ``_dual_bound``). Large weights cost rounds: a fit plays
    ``sum_i ceil(s_i)`` rounds per epoch.

    **Why a fixed epoch budget, and no ConvergenceWarning.** This is the paper's online
    algorithm, not an optimiser run to a tolerance: its step ``tau`` is set from the number of
    rounds ``T`` in advance (Theorem 4), and its guarantee is the regret bound, i.e. an
    average hypothesis within O(C sqrt(n / T)) of the best in the cube. Stopping on a gap
    would change ``T`` and hence every step. The fit therefore runs ``n_epochs`` and reports
    how far from the optimum of its objective it is: ``objective_``, a certified
    ``lower_bound_`` and their ``duality_gap_`` (the ergodic dual of its own updates). To
    solve the same objective to optimality use :class:`~robustclf.DeletionRobustLP`
    (its Eq. 4 with the bias also bounded is the Perceptron's batch problem).

    References
    ----------
    O. Dekel and O. Shamir. Learning to classify with missing and corrupted features. ICML 2008.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustclf import DeletionRobustPerceptron
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = DeletionRobustPerceptron(budget=1, n_epochs=5, random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (1, 5)
    >>> round(clf.score(X, y), 2)
    0.89
    """

    def __init__(self, *, budget=1.0, feature_values="uniform", margin=1.0, weight_bound=10.0,
                 fit_intercept=True, n_epochs=1, shuffle=True, horizon=None, random_state=None,
                 class_weight=None, nan_policy="absent"):
        self.budget = budget
        self.feature_values = feature_values
        self.margin = margin
        self.weight_bound = weight_bound
        self.fit_intercept = fit_intercept
        self.n_epochs = n_epochs
        self.shuffle = shuffle
        self.horizon = horizon
        self.random_state = random_state
        self.class_weight = class_weight
        self.nan_policy = nan_policy

    _accept_sparse = ("csr",)

    def _check_params(self):
        check_positive(self.weight_bound, "weight_bound")
        # gamma = 0 makes Eq. (12) the plain "keep a non-negative margin" loss, which w = 0,
        # b = 0 already attains: nothing is learnt (issue 14)
        _check_margin(self.margin)
        check_bool(self.fit_intercept, "fit_intercept")
        check_bool(self.shuffle, "shuffle")
        check_int(self.n_epochs, "n_epochs")
        if self.horizon is not None:
            check_int(self.horizon, "horizon")

    def _setup(self, X, y, n_problems, sample_weight=None):
        """Resolve the adversary and reset the online state (first call of fit/partial_fit)."""
        values, budget, penalty = _resolve_adversary(
            self.feature_values, self.budget, self.margin, X, y, sample_weight)
        self.feature_values_ = values
        self._adversary = (values, budget, penalty)
        self._states = [_State(X.shape[1]) for _ in range(n_problems)]
        self.t_ = 0
        self.n_iter_ = 0

    def _step_scale(self, n_features):
        return np.sqrt(n_features + (1 if self.fit_intercept else 0)) * float(self.weight_bound)

    def _run(self, X, targets, order, taus, omega=None):
        """One pass of every binary problem; returns the averaged (coef, intercept).

        ``order`` lists the row of every round, ``omega`` the rounds' weights (None: all one).
        """
        values, budget, penalty = self._adversary
        if sp.issparse(X) and not X.has_canonical_format:  # sorted, no duplicates
            X = sp.csr_matrix(X, copy=True)
            X.sum_duplicates()
        for state, s in zip(self._states, targets, strict=True):
            _online_pass(state, X, s, order, taus, values, budget, penalty,
                         float(self.weight_bound), bool(self.fit_intercept), omega)
        self.t_ += order.shape[0] if omega is None else omega.sum()
        self.n_updates_ = np.array([st.n_updates for st in self._states])
        return (np.stack([st.w_sum for st in self._states]) / self.t_,
                np.array([st.b_sum for st in self._states]) / self.t_)

    def _fit_ovr(self, X, Y, sample_weight=None):
        """``n_epochs`` passes of the cube-projected Perceptron, then the average (§3.1–3.2).

        With row weights the rounds are the weights' presentations (:func:`_presentations`).
        """
        X, Y, sample_weight = positive_weight_rows(X, Y, sample_weight)
        labels = Y[:, 0] if Y.shape[1] == 1 else Y.argmax(axis=1)  # for "mutual_info"
        self._setup(X, labels, Y.shape[1], sample_weight)
        rng = check_generator(self.random_state)
        if sample_weight is None:
            rows, omega, total = np.arange(X.shape[0]), None, X.shape[0]
        else:
            (rows, omega), total = _presentations(sample_weight), sample_weight.sum()
        n_epochs = int(self.n_epochs)
        self.tau_ = self._step_scale(X.shape[1]) / np.sqrt(2.0 * n_epochs * total)
        taus = np.full(rows.size, self.tau_)
        for _ in range(n_epochs):
            perm = rng.permutation(rows.size) if self.shuffle else np.arange(rows.size)
            coef, intercept = self._run(X, Y.T, rows[perm],
                                        taus, None if omega is None else omega[perm])
            self.n_iter_ += 1
        self._report_gap(X, Y, coef, intercept, n_epochs, sample_weight)
        return coef, intercept

    def _report_gap(self, X, Y, coef, intercept, n_epochs, sample_weight=None):
        """``objective_``, ``lower_bound_`` and ``duality_gap_`` of the averaged model."""
        values, budget, _ = self._adversary
        margin, bound = float(self.margin), float(self.weight_bound)
        total = X.shape[0] if sample_weight is None else sample_weight.sum()
        objective, lower = [], []
        for w, b, s, st in zip(coef, intercept, Y.T, self._states, strict=True):
            objective.append(_mean_loss(w, b, X, s, values, budget, margin,
                                        sample_weight=sample_weight) / margin)
            lower.append(_dual_bound(total, st.dual_alpha / n_epochs,
                                     st.dual_kept / n_epochs, st.dual_value / n_epochs,
                                     values, budget, margin, bound, bool(self.fit_intercept)))
        self.objective_ = np.array(objective)
        self.lower_bound_ = np.array(lower)
        self.duality_gap_ = np.maximum(self.objective_ - self.lower_bound_, 0.0)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over a batch of a stream, in the given row order.

        Continues the online sequence of earlier :meth:`partial_fit` calls (or of :meth:`fit`):
        with ``horizon=None`` the step of round t is ``sqrt(n+1) C / sqrt(2 t)`` with t counted
        over the whole stream, so the model does not depend on how the stream is cut into
        batches (class Notes). Each call is an ordinary scikit-learn ``partial_fit``, so
        dask-ml's ``Incremental`` streams the blocks of a dask array through it.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            With ``nan_policy="absent"`` NaN marks a feature absent from a row (read as 0). A
            sparse matrix is read as CSR and never densified.
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All classes of the stream; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (times a dict ``class_weight``), played as presentations
            (class Notes): a row of weight s gives ``ceil(s)`` consecutive rounds, the last of
            weight ``s - ceil(s) + 1``, and the anytime step of a round uses the summed weight
            of the rounds so far, so a row of integer weight k is exactly k copies of it in the
            stream. None: every weight one.

        Returns
        -------
        self : object
            The updated estimator.

        Raises
        ------
        ValueError
            On the first call without ``classes``, or with ``feature_values="mutual_info"``
            (the values need the whole training set: pass an array, see
            ``robustclf.linear._stream.PartialFitMixin``), or ``class_weight="balanced"``.
        """
        self._check_params()
        X, y, classes, weights, first = self._stream_batch(X, y, classes, sample_weight)
        if first:
            self._setup(X, y, 1 if classes.shape[0] == 2 else classes.shape[0])
            self.classes_ = classes
        if weights is None:
            rows, omega = np.arange(X.shape[0]), None
            played = self.t_ + np.arange(1, X.shape[0] + 1)
        else:
            rows, omega = _presentations(weights)
            played = self.t_ + np.cumsum(omega)
        scale = self._step_scale(X.shape[1])
        if self.horizon is None:
            taus = scale / np.sqrt(2.0 * played)
        else:
            taus = np.full(rows.size, scale / np.sqrt(2.0 * check_int(self.horizon, "horizon")))
        self.tau_ = float(taus[-1])
        for name in ("objective_", "lower_bound_", "duality_gap_"):  # they describe fit only
            self.__dict__.pop(name, None)
        self.coef_, self.intercept_ = self._run(
            X, signed_targets(y, self.classes_).T, rows, taus, omega)
        self.n_iter_ += 1
        return self

    def robust_loss(self, X, y):
        """Eq. (12) loss of the averaged model on each row, per binary problem.

        Returns
        -------
        loss : ndarray of shape (n_problems, n_samples)
        """
        check_is_fitted(self)
        X = absent_as_zero(validate_data(self, X, accept_sparse="csr", dtype=np.float64,
                                         reset=False, ensure_all_finite=self._finiteness()))
        values, budget, _ = self._adversary
        targets = signed_targets(np.asarray(y), self.classes_).T
        return np.stack([
            deletion_hinge_loss(w, b, X, s, values, budget, float(self.margin))
            for w, b, s in zip(self.coef_, self.intercept_, targets, strict=True)])
