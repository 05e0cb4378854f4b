"""FDROP's first-order solver (``FDROPClassifier(solver="sgd")``).

Mini-batch stochastic subgradient on Globerson & Roweis's objective, every one-vs-rest problem
sharing each mini-batch, with the bias re-optimised exactly once per epoch
(:func:`_best_intercept`). Private: :class:`~robustclf.linear.FDROPClassifier` validates its
inputs and calls :func:`_solve_sgd`.

Row weights ``s_i`` (objective ``1/2 ||w||^2 + C sum_i s_i hinge_i``) are written as weights
relative to their mean, ``r_i = s_i n / S`` with ``S = sum_i s_i``, and ``C' = C S / n``: the
objective is ``1/2 ||w||^2 + C' sum_i r_i hinge_i``, the unweighted one when every ``r_i`` is
one. Every function below takes ``r`` (``None``: all one); rows are still drawn uniformly, each
row's subgradient multiplied by ``r_i``, so a mini-batch subgradient is an unbiased estimate of
the weighted objective's. A row of integer weight k and k copies of it give the same objective
(and ``lam = 1 / (C S)``), not the same iterates: the copies change the mini-batches.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._worst_case import unit_knapsack_deletion

_SGD_BATCH = 128  # rows per mini-batch
_SGD_SAMPLE = 2048  # rows of the sample on which the initial step is chosen
_SGD_SAMPLE_PASSES = 4  # passes over that sample per candidate step
_SGD_STEP_FACTORS = 4.0 ** np.arange(0, 5)  # candidate initial steps, times 1 / mean ||x||^2
_SGD_CHUNK = 256  # rows per chunk when the whole objective is evaluated


def _csr_parts(X):
    """``(indptr, indices, data)`` of a CSR copy of ``X``: sorted indices, no stored zeros.

    Dense and sparse inputs holding the same matrix give identical arrays, and the sgd solver
    reads nothing else, so both give the same model.
    """
    if sp.issparse(X):
        A = sp.csr_matrix(X, dtype=np.float64, copy=True)
        A.sum_duplicates()
        A.eliminate_zeros()
        A.sort_indices()
    else:
        A = sp.csr_matrix(np.asarray(X, dtype=np.float64))
    return A.indptr, A.indices, A.data


def _padded_rows(csr, rows):
    """Non-zeros of ``rows`` as ``(columns, values)`` of shape (len(rows), max non-zeros per
    row); the padding has value 0 (column 0) and so never contributes."""
    indptr, indices, data = csr
    start = indptr[rows]
    length = indptr[rows + 1] - start
    width = max(int(length.max(initial=0)), 1)
    owner = np.repeat(np.arange(rows.size), length)
    offset = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    src = np.repeat(start, length) + offset
    cols = np.zeros((rows.size, width), dtype=np.intp)
    vals = np.zeros((rows.size, width))
    cols[owner, offset] = indices[src]
    vals[owner, offset] = data[src]
    return cols, vals


def _robust_slack_padded(W, S, cols, vals, budget, kept=False):
    """``1 - s_i w.x_i + h_i(w)`` of every (problem, row) from padded rows (no bias).

    ``W`` (k, d), ``S`` (k, rows) the signs. ``h`` is the shared unit-value knapsack
    (:func:`~robustclf._worst_case.unit_knapsack_deletion`) on the positive gains
    ``[s_i w_j x_ij]_+`` of the non-zeros, shape (k, rows, width); padding has no gain. With
    ``kept=True`` also returns the kept fraction ``1 - delta`` of every slot (subgradient).
    """
    contrib = vals[None] * W[:, cols]
    gains = np.maximum(S[:, :, None] * contrib, 0.0)
    harm, delta = unit_knapsack_deletion(gains, budget, fractions=kept)
    slack = 1.0 - S * contrib.sum(axis=2) + harm
    return (slack, 1.0 - delta) if kept else slack


def _best_intercept(slack, S, r=None):
    """``argmin_b sum_i r_i [slack_i - s_i b]_+`` of every problem (rows of ``slack``), exactly.

    The sum is convex and piecewise linear in b, with slope ``-#{s_i = 1, slack_i > b} +
    #{s_i = -1, -slack_i < b}`` (the rows counted with their weights ``r_i``, all one if
    None); the minimiser is the first breakpoint ``s_i slack_i`` (sorted) at which the slope
    becomes non-negative.
    """
    points = S * slack
    order = np.argsort(points, axis=1, kind="stable")
    pos = np.take_along_axis(S > 0, order, axis=1)
    if r is None:
        slope = -(pos.sum(axis=1, keepdims=True) - np.cumsum(pos, axis=1)) + np.cumsum(~pos,
                                                                                      axis=1)
    else:
        weight = r[order]
        wpos = np.where(pos, weight, 0.0)
        slope = (-(wpos.sum(axis=1, keepdims=True) - np.cumsum(wpos, axis=1))
                 + np.cumsum(weight - wpos, axis=1))
    first = np.argmax(slope >= 0, axis=1)
    return np.take_along_axis(points, order, axis=1)[np.arange(points.shape[0]), first]


def _sgd_objective(csr, W, b, S, budget, C, best_intercept=False, r=None):
    """``1/2 ||w||^2 + C sum_i r_i robust hinge_i`` of each problem (k,) and the intercept used.

    Rows are evaluated in chunks of similar numbers of non-zeros (little padding); with
    ``best_intercept`` the bias minimising the objective for this ``W`` replaces ``b``
    (:func:`_best_intercept`).
    """
    n = S.shape[0]
    slack = np.empty((W.shape[0], n))
    by_length = np.argsort(np.diff(csr[0]), kind="stable")
    for start in range(0, n, _SGD_CHUNK):
        rows = by_length[start:start + _SGD_CHUNK]
        cols, vals = _padded_rows(csr, rows)
        slack[:, rows] = _robust_slack_padded(W, S[rows].T, cols, vals, budget)
    if best_intercept:
        b = _best_intercept(slack, S.T, r)
    hinge = np.maximum(slack - S.T * b[:, None], 0.0)
    loss = hinge.sum(axis=1) if r is None else hinge @ r
    return 0.5 * np.einsum("kd,kd->k", W, W) + C * loss, b


def _sgd_pass(csr, S, order, state, step0, lam, t, budget, fit_intercept, dual=None, r=None):
    """One pass of mini-batch stochastic subgradient over the rows ``order``; returns ``t``.

    On ``lam/2 ||w||^2 + mean_i robust hinge_i`` with the step ``eta_t = eta_0 / (1 + lam eta_0
    (t - 1))`` and polynomial-decay averaging ``wbar_t = (1 - 4/(t+3)) wbar_{t-1} + 4/(t+3) w_t``
    (Shamir & Zhang 2013). ``state = (W, b, Wbar, bbar)`` (k rows each) is updated in place. The
    gains tensor of a batch is float32 (selection and step only; objectives are float64).
    ``dual = (alpha (k, 2), kept (k, 2, d))``, if given, accumulates the dual point of the
    subgradients per class (+1, -1): the active rows and their kept fractions (:func:`_dual_value`).
    With row weights ``r`` a row's subgradient and its dual terms are multiplied by ``r_i``.
    """
    W, b, Wbar, bbar = state
    k, d = W.shape
    offset = (d * np.arange(k))[:, None, None]
    for start in range(0, order.size, _SGD_BATCH):
        rows = order[start:start + _SGD_BATCH]
        cols, vals = _padded_rows(csr, rows)
        Sb = S[rows].T
        vals32 = vals.astype(np.float32)
        slack, keep = _robust_slack_padded(W.astype(np.float32), Sb.astype(np.float32), cols,
                                           vals32, budget, kept=True)
        ay = np.where(slack - Sb * b[:, None] > 0, Sb, 0.0)  # sign of the active rows, else 0
        if r is not None:  # weighted rows: r_i times the sign
            ay = ay * r[rows]
        # subgradient of the batch's summed loss: -sum_i ay_i x_i (1 - delta_i)
        weights = (ay.astype(np.float32)[:, :, None] * vals32[None]) * keep
        grad = np.bincount((cols[None] + offset).ravel(), weights=weights.ravel(),
                           minlength=k * d).reshape(k, d)
        if dual is not None:
            for c, sign in enumerate((1.0, -1.0)):
                mine = (ay * Sb > 0) & (Sb == sign)
                dual[0][:, c] += mine.sum(axis=1) if r is None else mine @ r[rows]
                mine = mine[:, :, None]
                dual[1][:, c] += np.bincount(
                    (cols[None] + offset).ravel(),
                    weights=np.where(mine, weights * sign, 0.0).ravel(),  # r_i x_i (1 - delta)
                    minlength=k * d).reshape(k, d)
        t += 1
        eta = step0 / (1.0 + lam * step0 * (t - 1))
        W *= (1.0 - eta * lam)[:, None]
        W += (eta / rows.size)[:, None] * grad
        if fit_intercept:
            b += eta / rows.size * ay.sum(axis=1)
        rho = 4.0 / (t + 3.0)
        Wbar += rho * (W - Wbar)
        bbar += rho * (b - bbar)
    return t


def _dual_value(alpha, kept, C, fit_intercept):
    """FDROP's dual objective at a dual point given by per-class sums: a certified lower bound.

    Each robust hinge is ``max_{a_i in [0, 1], u_i in a_i T'} a_i (1 - y_i b) - sum_j u_ij y_i
    x_ij w_j`` (``T'`` the kept fractions of at most K deleted features), so for any such point
    with ``sum_i a_i y_i = 0`` (free bias) weak duality gives::

        1/2 ||w||^2 + C sum_i hinge_i >= C sum_i a_i - C^2 / 2 ||sum_i y_i u_i * x_i||^2

    (the minimum over ``w`` is at ``w = C sum_i y_i u_i * x_i``). ``alpha`` (k, 2) holds the sums
    of ``a_i`` over the classes +1 / -1 and ``kept`` (k, 2, d) the sums of ``u_i * x_i``; with an
    intercept the larger class is scaled down to balance them (scaled points stay feasible).
    """
    pos, neg = alpha[:, 0], alpha[:, 1]
    if fit_intercept:
        with np.errstate(divide="ignore", invalid="ignore"):
            rho_pos = np.where(pos > 0, np.minimum(1.0, neg / pos), 0.0)
            rho_neg = np.where(neg > 0, np.minimum(1.0, pos / neg), 0.0)
    else:
        rho_pos = rho_neg = np.ones_like(pos)
    G = rho_pos[:, None] * kept[:, 0] - rho_neg[:, None] * kept[:, 1]
    return C * (rho_pos * pos + rho_neg * neg) - 0.5 * C * C * np.einsum("kd,kd->k", G, G)


def _initial_step(csr, Y, d, budget, lam, fit_intercept, rng, r=None):
    """Initial step of each problem: the candidate with the lowest sample objective.

    Bottou's recipe (2012, §5.2): candidates ``4^j / mean ||x||^2`` (j = 0..4, never above
    Pegasos's ``1 / lam``) each run 4 passes over the same random sample of at most
    ``_SGD_SAMPLE`` rows; the sample objective of the averaged iterate (with its best bias)
    decides, per problem. With j = -6..6, one pass, MNIST (K = 10, 10,000 rows) chose j = 2-3
    or -6: the tiny steps "win" a short run by staying at the near-optimal w = 0 and then stall
    far above the optimum (class 2: 18.95 after 2 epochs against 16.75 with j = 2), so the
    grid starts at j = 0; the synthetic test data choose j = 2-3 too. With row weights ``r``
    the sample's runs and objective are weighted the same way.
    """
    n, k = Y.shape
    indptr, indices, data = csr
    sq = np.bincount(np.repeat(np.arange(n), np.diff(indptr)), weights=data ** 2, minlength=n)
    base = 1.0 / max(float(sq.mean() if r is None else (r * sq).mean()), 1e-12)  # weighted
    candidates = np.unique(np.minimum(base * _SGD_STEP_FACTORS, 1.0 / lam))
    sample = np.sort(rng.permutation(n)[:_SGD_SAMPLE])
    sub = _csr_parts(sp.csr_matrix((data, indices, indptr), shape=(n, d))[sample])
    r_sample = None if r is None else r[sample]
    scores = np.empty((candidates.size, k))
    for c, eta0 in enumerate(candidates):
        state = (np.zeros((k, d)), np.zeros(k), np.zeros((k, d)), np.zeros(k))
        t = 0
        for _ in range(_SGD_SAMPLE_PASSES):
            t = _sgd_pass(sub, Y[sample], rng.permutation(sample.size), state, np.full(k, eta0),
                          lam, t, budget, fit_intercept, r=r_sample)
        scores[c] = _sgd_objective(sub, state[2], state[3], Y[sample], budget,
                                   1.0 / (lam * sample.size), fit_intercept, r_sample)[0]
    return candidates[np.argmin(scores, axis=0)]


def _solve_sgd(X, Y, budget, C, fit_intercept, tol, max_iter, rng, sample_weight=None):
    """All one-vs-rest problems (columns of ``Y``) by mini-batch stochastic subgradient.

    ``sample_weight`` (positive, or None) weights the rows' losses: see the module docstring.

    Returns ``coef`` (k, d), ``intercept`` (k,), ``objective`` (k,), epochs (k,), converged (k,),
    lower bound (k,).

    After each epoch the averaged iterate's bias is replaced by the exact best bias for its
    weights (:func:`_best_intercept`; the running bias restarts from it too). The best point
    evaluated is returned, the start ``w = 0`` (with its best bias) included: on MNIST with
    K = 50 that constant classifier is (near) optimal.

    **Stopping on a certified gap.** The subgradients of an epoch define a dual point (each row's
    activity and kept fractions at the step where it was visited); its dual value
    (:func:`_dual_value`) and that of the average of all epochs' points (the ergodic dual, whose
    gap to the averaged iterate shrinks with the method's average regret) are lower bounds on the
    optimum. A problem stops after the first epoch whose relative gap ``(best objective - best
    bound) / max(best objective, 1e-3)`` is at most ``tol``. Each problem has its own initial
    step and stopping epoch, and the row order depends only on the seed, so each problem's
    result is that of fitting it alone.
    """
    n, d = X.shape
    k = Y.shape[1]
    csr = _csr_parts(X)
    r = None
    if sample_weight is not None:  # weights relative to their mean, C' = C S / n
        total = float(sample_weight.sum())
        r, C = sample_weight * (n / total), C * total / n
    lam = 1.0 / (C * n)
    step0 = _initial_step(csr, Y, d, budget, lam, fit_intercept, rng, r)
    W, b, Wbar, bbar = np.zeros((k, d)), np.zeros(k), np.zeros((k, d)), np.zeros(k)
    objective = np.full(k, np.inf)
    best_W, best_b = np.zeros((k, d)), np.zeros(k)  # the start w = 0 and its best bias
    if fit_intercept:
        best_b = _best_intercept(np.ones((k, n)), Y.T, r)
    hinge = np.maximum(1.0 - Y.T * best_b[:, None], 0.0)
    best = C * (hinge.sum(axis=1) if r is None else hinge @ r)
    lower = np.full(k, -np.inf)
    avg_alpha, avg_kept = np.zeros((k, 2)), np.zeros((k, 2, d))
    epochs, converged = np.zeros(k, dtype=int), np.zeros(k, dtype=bool)
    t = 0
    for epoch in range(1, max_iter + 1):
        order = rng.permutation(n)
        act = np.flatnonzero(~converged)
        state = (W[act], b[act], Wbar[act], bbar[act])
        dual = (np.zeros((act.size, 2)), np.zeros((act.size, 2, d)))
        t = _sgd_pass(csr, Y[:, act], order, state, step0[act], lam, t, budget, fit_intercept,
                      dual, r)
        objective[act], bias = _sgd_objective(csr, state[2], state[3], Y[:, act], budget, C,
                                              fit_intercept, r)
        W[act], Wbar[act], b[act], bbar[act] = state[0], state[2], bias, bias
        better = act[objective[act] < best[act]]
        best[better], best_W[better], best_b[better] = objective[better], Wbar[better], b[better]
        avg_alpha[act] += (dual[0] - avg_alpha[act]) / epoch
        avg_kept[act] += (dual[1] - avg_kept[act]) / epoch
        lower[act] = np.maximum.reduce([
            lower[act], _dual_value(dual[0], dual[1], C, fit_intercept),
            _dual_value(avg_alpha[act], avg_kept[act], C, fit_intercept)])
        epochs[act] = epoch
        gap = np.maximum(best[act] - lower[act], 0.0) / np.maximum(best[act], 1e-3)
        converged[act] = gap <= tol
        if converged.all():
            break
    return best_W, best_b, best, epochs, converged, lower


class SGDStream:
    """The steps of :func:`_solve_sgd` as an online method, for ``partial_fit``.

    The objective is ``fit``'s on every row the stream has seen (a row seen twice counts
    twice): ``1/2 ||w||^2 + C sum_i s_i robust hinge_i``, i.e. ``lam = 1 / (C S)`` with ``S``
    the summed row weights seen so far (the number of rows without weights), and row
    multipliers ``r_i = s_i n / S`` relative to the mean weight seen so far. Each batch is one
    pass of :func:`_sgd_pass` in the given row order, continuing the step counter ``t``, the
    point and the polynomial-decay average (the model). The initial step of every problem is
    chosen on the first batch (:func:`_initial_step`). What ``fit`` does and a stream cannot:
    the exact best bias after every epoch, the best point over epochs and the certified gap
    need every row at once.

    Parameters
    ----------
    coef, intercept : ndarray of shape (k, d) and (k,)
        Where the stream starts (zeros, or a fitted model).
    n_seen, weight_seen : float
        Rows and summed row weights behind the start (0 for zeros; the fit's rows after
        ``fit``).
    """

    def __init__(self, coef, intercept, n_seen=0.0, weight_seen=0.0):
        self.state = (coef.astype(float), intercept.astype(float), coef.astype(float),
                      intercept.astype(float))
        self.n_seen, self.weight_seen = float(n_seen), float(weight_seen)
        # a fitted start counts as one epoch of steps, so that the first steps stay small
        self.t = int(np.ceil(n_seen / _SGD_BATCH))
        self.step0 = None

    def partial_pass(self, X, Y, budget, C, fit_intercept, rng, sample_weight=None):
        """One pass over the batch ``(X, Y)`` (``Y``: ±1 targets, one column per problem)."""
        n = X.shape[0]
        weights = np.ones(n) if sample_weight is None else sample_weight
        self.n_seen += n
        self.weight_seen += float(weights.sum())
        lam = 1.0 / (C * self.weight_seen)
        uniform = sample_weight is None and self.weight_seen == self.n_seen
        r = None if uniform else weights * (self.n_seen / self.weight_seen)
        csr = _csr_parts(X)
        if self.step0 is None:
            self.step0 = _initial_step(csr, Y, X.shape[1], budget, lam, fit_intercept, rng, r)
        self.t = _sgd_pass(csr, Y, np.arange(n), self.state, self.step0, lam, self.t, budget,
                           fit_intercept, r=r)

    @property
    def coef_avg(self):
        return self.state[2]

    @property
    def intercept_avg(self):
        return self.state[3]
