"""FDROP: Globerson & Roweis's "Nightmare at test time" SVM (ICML 2006).

L2-regularised hinge loss against an adversary that deletes (sets to 0) the ``K = budget``
features contributing most to each training margin::

    min_{w, b} 1/2 ||w||^2 + C sum_i [1 - y_i (b + w.x_i) + h_i(w)]_+,
    h_i(w) = max_{|D| <= K} sum_{j in D} y_i w_j x_ij.

The inner maximum ``h_i`` is the library's knapsack with unit values (``knapsack_deletion``;
exact for an integer K). Globerson & Roweis replace it by its LP dual, which gives a QP with
O(mn) variables::

    min 1/2 ||w||^2 + C sum_i xi_i
    s.t. y_i (b + w.x_i) - K z_i - sum_j v_ij >= 1 - xi_i,  z_i + v_ij >= y_i w_j x_ij,
         xi, z, v >= 0                                                               (GR)

Its size makes it slow (and HiGHS's active-set QP solver stopped with "Solve error" on small
instances of it), so this module solves the *same* problem with a master QP over ``(w, b, xi)``
that holds (GR)'s constraints only where they are needed. A violated example gets its own
(GR) block over a *support*, a few of its features: its ``2 ceil(K) + 2`` largest gains
``y_i w_j x_ij`` at the current ``w`` (``_exact_blocks``). The block states that the adversary
deletes at most K features of the support, so the master is a relaxation of FDROP (its value a
lower bound) and the block is (GR) itself once the support holds every non-zero feature. The
worst-case deletion of each example (the shared knapsack solver) tells whether its support
misses a feature the adversary uses; if so its largest gains join the support, and the master
is solved again, until the certified gap is below ``tol``. Each master problem is a convex QP
solved by Clarabel's interior-point method (an optional dependency).

Why supports: Kelley cuts alone (one deletion per cut) took 45-52 rounds on MNIST's 784
pixels. Promoting a row to (GR) over *all* its non-zero features took 4 rounds on clean rows,
but with 20 % of dense outlier rows (the benchmark's training-outlier threat, 2,400 x 784, K = 4)
the master grew to 311,000 extra columns and 118-131 s per round; supports (with 3 Kelley cuts
first) kept it at 25,000 columns and 20 s per round, and the default fit ends in 7 rounds, 74 s
(``benchmarks/bench_deletion_lp.py --only fdrop``).

For data of MNIST's size (tens of thousands of rows, hundreds of features, ten classes) the exact
solvers are far too slow; ``solver="sgd"`` (:mod:`._fdrop_sgd`) minimises the same objective
approximately by mini-batch stochastic subgradient, all one-vs-rest problems sharing each
mini-batch, with the bias re-optimised exactly once per epoch (:func:`_best_intercept`).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._validation import check_budget, check_generator, check_int, check_option, check_real
from .._worst_case import csr_knapsack_deletion, knapsack_deletion
from ._base import LinearClassifierBase, warn_if_not_converged
from ._deletion_lp_solvers import _csr_gains, _kept_products
from ._fdrop_sgd import SGDStream, _solve_sgd
from ._stream import PartialFitMixin, signed_targets
from ._weights import positive_weight_rows

__all__ = ["FDROPClassifier", "fdrop_hinge_loss"]

_SOLVERS = ("auto", "cutting_plane", "qp", "sgd")


def _worst_deletion(sx, w, budget):
    """The adversary's best deletion of ``budget`` features (unit values) against ``w`` in every
    row of ``sx = y x``: ``(harm, fractions)`` from the shared knapsack, ``fractions`` dense, or
    CSR with ``sx``'s pattern for a sparse ``sx`` (never densified: a zero entry has no gain)."""
    n = sx.shape[1]
    if sp.issparse(sx):
        return csr_knapsack_deletion(_csr_gains(sx, sx.data * w[sx.indices]), np.ones(n), budget)
    res = knapsack_deletion(sx * w, np.ones(n), budget)
    return res.relaxed_gain, res.fractions


def fdrop_hinge_loss(coef: np.ndarray, intercept: float, X: np.ndarray, y_signed: np.ndarray,
                     budget: float) -> np.ndarray:
    """Globerson & Roweis's robust hinge loss of every row (vectorised, trusted inputs).

    ``[1 - y (b + w.x) + max_{|D| <= K} sum_{j in D} y w_j x_j]_+`` with the maximum from the
    shared fractional knapsack (unit values), exact for an integer ``budget = K``. A sparse
    ``X`` is not densified: a zero entry has no gain, so the knapsack runs on the stored
    entries (:func:`~robustclf._worst_case.csr_knapsack_deletion`).
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        signed = sp.csr_matrix(X.multiply(y_signed[:, None]))
    else:
        signed = y_signed[:, None] * X
    harm = _worst_deletion(signed, coef, budget)[0]
    score = np.asarray(X @ coef).ravel()
    return np.maximum(1.0 - y_signed * (intercept + score) + harm, 0.0)


def _clarabel():
    try:
        import clarabel
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "FDROPClassifier needs the Clarabel QP solver: pip install clarabel "
            "(or robustclf[conic])") from exc
    return clarabel


# Clarabel statuses that still return a usable (if inexact) point: ConvergenceWarning.
_QP_INEXACT = ("AlmostSolved", "MaxIterations", "MaxTime", "InsufficientProgress")


def _solve_qp(n_w, cost, A, rhs, n_zero):
    """``min 1/2 ||x[:n_w]||^2 + cost.x  s.t.  A[:n_zero] x = rhs[:n_zero], A[n_zero:] x <= rhs``.

    Solved by Clarabel's interior-point method. Returns ``(x, dual value, reason)``: the dual
    objective is a lower bound on the QP's optimum (to Clarabel's accuracy) and ``reason`` is
    ``None`` when the status is "Solved", else why the point is inexact (reduced accuracy,
    iteration or time limit, insufficient progress; the caller warns and uses no bound).
    The QPs here are always feasible and bounded (``w = 0`` with large slacks; objective >= 0),
    so any other status (infeasible, numerical error) raises ``RuntimeError``.
    """
    clarabel = _clarabel()
    n_cols = cost.shape[0]
    P = sp.diags(np.r_[np.ones(n_w), np.zeros(n_cols - n_w)], format="csc")
    cones = ([clarabel.ZeroConeT(n_zero)] if n_zero else []) + [
        clarabel.NonnegativeConeT(A.shape[0] - n_zero)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solution = clarabel.DefaultSolver(P, cost, sp.csc_matrix(A), rhs, cones, settings).solve()
    status = str(solution.status)
    if status == "Solved":
        return np.asarray(solution.x), float(solution.obj_val_dual), None
    if status in _QP_INEXACT:
        return (np.asarray(solution.x), -np.inf,
                f"Clarabel stopped on the FDROP quadratic program with status {status}")
    raise RuntimeError(f"the FDROP quadratic program was not solved: Clarabel status {status} "
                       "(it is always feasible and bounded: numerical trouble; scale the data).")


def _exact_blocks(sx, s, idx, support, budget, n_col):
    """Globerson & Roweis's constraints (GR) for the rows ``idx``, with ``v_ij`` only on each row's
    support, as ``A x <= rhs`` rows over ``[w, b, xi, z_idx, v]`` (new columns from ``n_col`` on).

    ``support`` is ``sx`` restricted to the pairs ``(i, j)`` whose ``v_ij`` is kept (CSR). On a
    support ``S_i`` the block states ``xi_i >= 1 - y_i (b + w.x_i) + h_i^S(w)`` with ``h_i^S``
    the adversary's best deletion among ``S_i`` only, ``min_z K z + sum_{j in S_i} (y_i w_j
    x_ij - z)_+``: at most ``h_i``, so the master stays a relaxation of FDROP (its value a lower
    bound), and it is (GR) itself once ``S_i`` holds every non-zero ``x_ij`` (for ``x_ij = 0``
    the constraint ``z_i + v_ij >= 0`` holds at ``v_ij = 0``). Returns ``(A, rhs, number of new
    columns)``; ``z`` and ``v`` are non-negative.
    """
    m, n = sx.shape
    Xi = sp.csr_matrix(sx[idx])
    Xi.eliminate_zeros()
    Vi = sp.csr_matrix(support[idx])
    Vi.eliminate_zeros()
    k, nnz = idx.size, Vi.nnz
    owner_x = np.repeat(np.arange(k), np.diff(Xi.indptr))
    owner_v = np.repeat(np.arange(k), np.diff(Vi.indptr))
    col_z = n_col + np.arange(k)
    col_v = n_col + k + np.arange(nnz)
    # -s_i b - sum_j s_i x_ij w_j + K z_i + sum_{j in S_i} v_ij - xi_i <= -1
    r1 = np.concatenate([owner_x, np.arange(k), np.arange(k), owner_v, np.arange(k)])
    c1 = np.concatenate([Xi.indices, np.full(k, n), col_z, col_v, n + 1 + idx])
    d1 = np.concatenate([-Xi.data, -s[idx], np.full(k, float(budget)), np.ones(nnz), -np.ones(k)])
    # s_i x_ij w_j - z_i - v_ij <= 0, j in S_i
    e = k + np.arange(nnz)
    r2 = np.concatenate([e, e, e])
    c2 = np.concatenate([Vi.indices, col_z[owner_v], col_v])
    d2 = np.concatenate([Vi.data, -np.ones(nnz), -np.ones(nnz)])
    # z, v >= 0
    r3 = k + nnz + np.arange(k + nnz)
    c3 = n_col + np.arange(k + nnz)
    A = sp.csr_matrix((np.concatenate([d1, d2, -np.ones(k + nnz)]),
                       (np.concatenate([r1, r2, r3]), np.concatenate([c1, c2, c3]))),
                      shape=(2 * (k + nnz), n_col + k + nnz))
    A.eliminate_zeros()
    return A, np.concatenate([-np.ones(k), np.zeros(nnz + k + nnz)]), k + nnz


def _top_gains(sx, w, idx, size):
    """``(rows, features)`` of the ``size`` largest positive gains ``y_i w_j x_ij`` of each row
    ``idx`` (the adversary's best deletion at budget ``size``; shared knapsack, unit values)."""
    rows, cols = _worst_deletion(sp.csr_matrix(sx[idx]) if sp.issparse(sx) else sx[idx], w,
                                 size)[1].nonzero()   # CSR: nonzero() skips stored zeros
    return idx[rows], cols


def _support_step(budget):
    """Features added to a row's (GR) support when it is violated: its ``2 ceil(K) + 2`` largest
    gains (twice the adversary's deletion, so that the runner-up features are there when ``w``
    moves)."""
    return 2 * int(np.ceil(budget)) + 2


def _restricted(sx, pairs):
    """``sx`` restricted to the pairs ``i * n + j`` (CSR)."""
    n = sx.shape[1]
    rows, cols = pairs // n, pairs % n
    values = np.asarray(sx[rows, cols]).ravel()
    return sp.csr_matrix((values, (rows, cols)), shape=sx.shape)


def _master(sx, s, cut_rows, cut_coef, C, fit_intercept, exact=()):
    """The QP over (w, b, xi) with one cut ``y_i (b + sum_j tau_j x_ij w_j) >= 1 - xi_i`` per row
    of ``cut_coef`` (the rows ``tau * y_i x_i``, sparse), ``xi >= 0``, ``b = 0`` without
    intercept, and the exact blocks ``exact`` (from :func:`_exact_blocks`, over extra columns);
    ``C`` is the cost of every slack, one number or one per row (``C s_i`` with row weights).
    Returns ``w, b, xi``, the QP's dual value (a lower bound on FDROP's optimum: the master is a
    relaxation) and the reason the QP solve was inexact (``None`` if it was not)."""
    m, n = sx.shape
    n_cols = n + 1 + m + sum(block[2] for block in exact)
    k = cut_rows.shape[0]
    cuts = sp.hstack([-sp.csr_matrix(cut_coef), sp.csr_matrix(-s[cut_rows, None]),
                      sp.csr_matrix((-np.ones(k), (np.arange(k), cut_rows)), shape=(k, m))])
    xi_pos = sp.hstack([sp.csr_matrix((m, n + 1)), -sp.identity(m)])
    blocks, rhs, n_zero = [cuts, xi_pos], [-np.ones(k), np.zeros(m)], 0
    for A, r, _ in exact:
        blocks.append(A)
        rhs.append(r)
    blocks = [sp.csr_matrix((B.data, B.indices, B.indptr), shape=(B.shape[0], n_cols))
              for B in map(sp.csr_matrix, blocks)]
    if not fit_intercept:
        blocks.insert(0, sp.csr_matrix(([1.0], ([0], [n])), shape=(1, n_cols)))
        rhs.insert(0, np.zeros(1))
        n_zero = 1
    cost = np.r_[np.zeros(n + 1), np.full(m, C), np.zeros(n_cols - n - 1 - m)]
    sol, bound, reason = _solve_qp(n, cost, sp.vstack(blocks), np.concatenate(rhs), n_zero)
    return sol[:n], float(sol[n]) if fit_intercept else 0.0, sol[n + 1:n + 1 + m], bound, reason


def relative_gap(upper, lower):
    """``(upper - lower) / max(upper, 1e-3)`` (>= 0); ``inf`` without a lower bound."""
    if not np.isfinite(lower):
        return float("inf")
    return max(upper - lower, 0.0) / max(upper, 1e-3)


def _solve_cutting_plane(X, s, budget, C, fit_intercept, tol, max_iter, promote_after=1,
                         sample_weight=None, support_step=None):
    """Cutting planes on (w, b, xi); returns coef, intercept, objective, rounds, converged,
    lower bound, reason.

    With ``sample_weight`` the slack of row i costs ``C s_i`` (the master QP's cost and the
    objective); the cuts, the bound and the stopping rules are unchanged.

    Stopping (a certified optimality gap): the master QP keeps only some of the constraints of
    (GR), so its optimal value -- Clarabel's dual objective, a bound to its accuracy, ~1e-8
    relative -- is a lower bound on FDROP's optimum; the objective at the best master solution
    is an upper bound. The solver stops when ``(upper - lower) / max(upper, 1e-3) <= tol``.
    A row whose robust hinge exceeds its master slack by more than ``1e-9 (1 + loss)`` is
    violated; if no violated row adds anything new to the master, the gap is at Clarabel's
    accuracy and the solve ends too.

    A violated row with fewer than ``promote_after`` cuts gets a Kelley cut (its worst-case
    deletion, one constraint); otherwise its ``support_step`` (None: ``2 ceil(K) + 2``; at
    least ``ceil(K)``) largest gains join its (GR) support (:func:`_exact_blocks`). The default
    ``promote_after=1`` never cuts beyond the first round's undeleted rows: a support block
    holds every deletion of its features in ``support_step + 1`` constraints, and was faster
    than 3 cuts first on MNIST 4 vs 7 (2,000 rows: 9.2 vs 13 s at K = 1; 2,400 rows with 20 %
    outliers, K = 4: 72 vs 117 s). It ends after finitely many rounds: each adds a cut (at most
    ``promote_after`` per row) or a feature to a support.
    """
    m, n = X.shape
    sparse = sp.issparse(X)
    if sparse:  # never densified: the cuts tau * y_i x_i keep x_i's sparsity
        sx = sp.csr_matrix(X.multiply(s[:, None]))
        sx.sort_indices()
    else:
        sx = s[:, None] * X
    cut_rows = np.arange(m)
    cut_coef = sp.csr_matrix(sx)  # first cuts: nothing deleted
    n_cuts = np.ones(m, dtype=int)
    promoted = np.zeros(m, dtype=bool)
    pairs = np.zeros(0, dtype=np.int64)  # i * n + j of every v_ij kept (the supports S_i)
    support = None
    # at least the adversary's ceil(K) features: then a row whose step largest gains are all in
    # its support has h_i^S = h_i, and is violated only to Clarabel's accuracy
    step = max(_support_step(budget) if support_step is None else support_step,
               int(np.ceil(budget)))
    converged = False
    reason = None
    lower, best = -np.inf, (None, 0.0, np.inf)
    cost = C if sample_weight is None else C * sample_weight  # of every slack
    n_round = 0
    while n_round < max_iter:
        n_round += 1
        exact = () if support is None else (
            _exact_blocks(sx, s, np.flatnonzero(promoted), support, budget, n + 1 + m),)
        w, b, xi, bound, reason = _master(sx, s, cut_rows, cut_coef, cost, fit_intercept, exact)
        harm, delta = _worst_deletion(sx, w, budget)   # sparse: on the stored entries only
        robust = np.maximum(1.0 - s * b - np.asarray(sx @ w).ravel() + harm, 0.0)
        objective = 0.5 * w @ w + (C * robust.sum() if sample_weight is None
                                   else cost @ robust)
        if objective < best[2]:
            best = (w, b, objective)
        if reason is not None:  # inexact master: no certified bound, stop with a warning
            break
        lower = max(lower, bound)
        if relative_gap(best[2], lower) <= tol:
            converged = True
            break
        violated = np.flatnonzero(robust > xi + 1e-9 * (1.0 + robust))
        widen = violated[promoted[violated] | (n_cuts[violated] >= promote_after)]
        violated = violated[~promoted[violated] & (n_cuts[violated] < promote_after)]
        new = np.zeros(0, dtype=np.int64)
        if widen.size:  # the adversary's best features of each row join its support
            rows, cols = _top_gains(sx, w, widen, step)
            new = np.setdiff1d(rows.astype(np.int64) * n + cols, pairs)
        if violated.size == 0 and new.size == 0:  # nothing left: the gap is Clarabel's accuracy
            converged = True
            break
        if new.size:
            pairs = np.union1d(pairs, new)
            promoted[new // n] = True
            support = _restricted(sx, pairs)
        n_cuts[violated] += 1
        cut_rows = np.r_[cut_rows, violated]
        cut_coef = sp.vstack([cut_coef, sp.csr_matrix(
            _kept_products(sx, np.ones(m), delta, violated))], format="csr")
    if not converged and reason is None:
        reason = f"max_iter={max_iter} rounds were reached"
    w, b, objective = best
    return w, b, objective, n_round, converged, lower, reason


def _solve_gr_qp(X, s, budget, C, fit_intercept, sample_weight=None):
    """Globerson & Roweis's QP (GR) with its O(mn) dual variables z, v, solved directly (the
    slack of row i costs ``C s_i`` with ``sample_weight``)."""
    m, n = X.shape
    sx = s[:, None] * X
    eye_m = sp.identity(m, format="csr")
    # columns: w (n), b, xi (m), z (m), v (m n, row-major); all constraints as A x <= rhs
    margin = -sp.hstack([sp.csr_matrix(sx), sp.csr_matrix(s[:, None]), eye_m, -budget * eye_m,
                         -sp.kron(eye_m, np.ones((1, n)), format="csr")])
    pair = -sp.hstack([sp.csr_matrix(-sx.reshape(-1)[:, None] * np.tile(np.eye(n), (m, 1))),
                       sp.csr_matrix((m * n, 1 + m)), sp.kron(eye_m, np.ones((n, 1))),
                       sp.identity(m * n)])
    n_cols = n + 1 + 2 * m + m * n
    nonneg = sp.hstack([sp.csr_matrix((m + m + m * n, n + 1)), -sp.identity(m + m + m * n)])
    blocks = [margin, pair, nonneg]
    rhs = [-np.ones(m), np.zeros(m * n), np.zeros(2 * m + m * n)]
    n_zero = 0
    if not fit_intercept:
        blocks.insert(0, sp.csr_matrix(([1.0], ([0], [n])), shape=(1, n_cols)))
        rhs.insert(0, np.zeros(1))
        n_zero = 1
    slack_cost = np.full(m, C) if sample_weight is None else C * sample_weight
    cost = np.r_[np.zeros(n + 1), slack_cost, np.zeros(m + m * n)]
    sol, bound, reason = _solve_qp(n, cost, sp.vstack(blocks), np.concatenate(rhs), n_zero)
    w, b = sol[:n], float(sol[n]) if fit_intercept else 0.0
    loss = fdrop_hinge_loss(w, b, X, s, budget)
    objective = 0.5 * w @ w + (C * loss.sum() if sample_weight is None
                               else C * (sample_weight @ loss))
    return w, b, objective, 1, reason is None, bound, reason


class FDROPClassifier(PartialFitMixin, LinearClassifierBase):
    """Linear SVM robust to the deletion of the ``budget`` most useful features per example.

    Globerson & Roweis (2006): the hinge loss of every training example is taken after an
    adversary deletes the K features with the largest contributions ``y w_j x_j`` (feature values
    uniform); the bias is never deleted and not regularised. Solved exactly by cutting planes: the
    worst-case deletion of each violated example (shared knapsack solver) becomes a constraint of
    a QP over (w, b, xi), solved by Clarabel, until the certified gap between the objective and
    the master's value is below ``tol``; an example violated after 3 cuts gets its exact (GR)
    constraints instead. ``solver="sgd"`` minimises the same objective approximately by
    mini-batch stochastic subgradient, fast enough for MNIST-sized data (its certified gap is
    loose, see ``tol``). Multi-class problems are solved one-vs-rest.

    Parameters
    ----------
    budget : float, default=1.0
        Number K of deleted features (at most n_features). A fractional K gives the LP relaxation
        of the adversary's problem (deletion fractions summing to K). A K too large for the data
        makes ``w = 0`` optimal for some one-vs-rest problems. Their scores are then their
        intercepts plus coefficients inside the solver's gap, so which of those classes is
        predicted is arbitrary. On the benchmark's 600 digits rows (pixels / 16), 3 of 10
        columns are zero at K = 2 and 8 at K = 4. Two exact solvers, both within the gap, then
        disagree on 3-5 % and 21-36 % of test predictions; at K = 1 they agree on every row.
        The exact solvers warn (``UserWarning``) when ``w = 0`` is within a problem's
        certified gap (``||w - w*||^2 <= 2 (objective_ - lower_bound_)``, the objective being
        1-strongly convex in ``w``). Choose K by validation.
    C : float, default=1.0
        Weight of the summed robust hinge loss against ``1/2 ||w||^2`` (as in SVC / LinearSVC).
        With row weights (``fit``'s ``sample_weight`` times ``class_weight``) row i's loss
        has weight ``C_i = C s_i``, as in LinearSVC: an integer weight k is k copies of the
        row and a zero weight removes it (such rows are dropped before solving).
    fit_intercept : bool, default=True
    solver : {"auto", "cutting_plane", "qp", "sgd"}, default="auto"
        ``"qp"`` solves Globerson & Roweis's QP (GR) directly, with its O(mn) dual variables;
        ``"cutting_plane"`` solves the same problem over (w, b, xi) with worst-case cuts (see the
        module docstring). Both are exact. Cutting planes need few rounds: 3-5 on digits
        (898 x 64) and spambase (4,100 x 57) at K = 1 and 4, where they take 1-5 s and the
        direct QP 3-4 s on digits. On MNIST's 784 pixels Kelley cuts alone needed 43-52
        rounds; with (GR) blocks over supports they take 3-5 rounds and beat the direct QP
        (K = 10; 50 rows: 0.09 s vs 1.4 s; 300 rows: 4.7 s vs 18 s).
        ``"auto"`` is ``"cutting_plane"``. ``"sgd"`` is approximate: mini-batch (128 rows)
        stochastic subgradient on ``lam/2 ||w||^2 + mean_i robust hinge_i`` with
        ``lam = 1 / (C n_samples)`` (the objective above divided by ``C n``), steps
        ``eta_t = eta_0 / (1 + lam eta_0 t)`` (Pegasos's ``1 / (lam t)`` with a smaller start;
        ``eta_0`` chosen per binary problem as in Bottou 2012, §5.2: the best of
        ``4^j / mean ||x||^2``, j = 0..4, capped at ``1 / lam``, after 4 passes over a sample of
        2,048 rows), polynomial-decay iterate averaging (Shamir & Zhang 2013); the unregularised
        bias moves with the same steps and is set to its exact best value after each epoch; the
        best point evaluated (``w = 0`` included) is returned. All binary problems share each
        mini-batch: one gains tensor (problems x rows x non-zeros per row), split at K by
        ``np.partition``. It reads X row by row as CSR (a sparse X is never densified; dense and
        sparse X give the same model). The cutting planes keep a sparse X sparse (the cuts
        ``tau * x_i`` have ``x_i``'s pattern, the knapsack runs on the stored entries);
        ``"qp"`` densifies it ((GR) has O(m n) terms).
    tol : float or None, default=None
        The certified relative optimality gap ``(objective - lower bound) / max(objective,
        1e-3)`` at which the solver stops. Cutting planes (None: 1e-6): the bound is the master
        QP's value (a relaxation of FDROP), and the solve also ends when no example's robust
        hinge exceeds its master slack by more than ``1e-9 (1 + loss)`` (the gap is then at
        Clarabel's accuracy, ~1e-8). ``"sgd"`` (None: 1e-3): the bound is the dual value of its
        own subgradients (per epoch, and averaged over epochs;
        ``robustclf.linear._fdrop_sgd._dual_value``), valid but loose (digits, 300 rows, K = 1:
        certified gap > 1 after 200 epochs while the objective is 2x the optimum), so ``"sgd"``
        normally ends at ``max_iter`` with a ``ConvergenceWarning`` giving the gap. Not used by
        ``"qp"`` (Clarabel's own tolerances; its status and duality gap are reported). Changed
        in issue 14: the cutting planes used to stop on per-example violations and ``"sgd"`` on
        a relative change of the objective between epochs, which is no measure of optimality.
    max_iter : int or None, default=None
        Maximum number of cutting-plane rounds (None: 100) or of ``"sgd"`` epochs (None: 30);
        ConvergenceWarning when reached.
    random_state : int, numpy Generator or None, default=None
        Seeds the row order and the step-choosing sample of ``"sgd"`` (unused otherwise).
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, scikit-learn's meaning: the robust hinge loss of every row of
        class ``k`` is multiplied by ``class_weight[k]`` (in every one-vs-rest problem, as the
        row's own ``sample_weight`` is); ``"balanced"`` uses ``n_samples / (n_classes *
        n_k)``; None weights every class one. Combined with ``fit``'s ``sample_weight`` by
        multiplication. The exact solvers honour weights exactly; ``"sgd"`` minimises the
        weighted objective with weighted subgradients of uniformly drawn rows (see
        ``robustclf.linear._fdrop_sgd``): a weight-k row and k copies of it give the same
        objective, not the same iterates.
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means. ``"absent"``: the feature is absent from that row and
        contributes nothing, ``w_j x_j = 0``, at fit and at prediction time (it is read as 0,
        the paper's deletion); behind a ``StandardScaler`` in a pipeline that is the training
        mean. ``"raise"``: NaN is rejected with scikit-learn's usual error.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    objective_ : ndarray of shape (n_problems,)
        ``1/2 ||w||^2 + C sum_i robust hinge`` at the solution, per binary problem.
    n_iter_ : ndarray of shape (n_problems,)
        Cutting-plane rounds (QP solves) per binary problem (1 for ``"qp"``; epochs for
        ``"sgd"``; after :meth:`partial_fit`, its calls since the stream started).
    lower_bound_ : ndarray of shape (n_problems,)
        A certified lower bound on each binary problem's optimum (see ``tol``; ``-inf`` when
        the last QP was solved inexactly).
    gap_ : ndarray of shape (n_problems,)
        The certified relative gap ``(objective_ - lower_bound_) / max(objective_, 1e-3)``.
    solver_ : str
        The solver used (``"auto"`` resolved).
    n_features_in_ : int

    References
    ----------
    A. Globerson and S. Roweis. Nightmare at test time: robust learning by feature deletion.
    ICML 2006.

    S. Shalev-Shwartz, Y. Singer, N. Srebro and A. Cotter. Pegasos: primal estimated
    sub-gradient solver for SVM. Mathematical Programming 127, 2011 (the ``"sgd"`` steps).

    L. Bottou. Stochastic gradient descent tricks. Neural Networks: Tricks of the Trade, 2012
    (the initial step chosen on a sample).

    O. Shamir and T. Zhang. Stochastic gradient descent for non-smooth optimization: convergence
    results and optimal averaging schemes. ICML 2013 (polynomial-decay averaging).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustclf import FDROPClassifier
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = FDROPClassifier(budget=1).fit(X, y)
    >>> clf.coef_.shape
    (1, 5)
    >>> round(clf.score(X, y), 2)
    0.87
    """

    def __init__(self, *, budget=1.0, C=1.0, fit_intercept=True, solver="auto", tol=None,
                 max_iter=None, random_state=None,
                 class_weight=None, nan_policy="absent"):
        self.budget = budget
        self.C = C
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.class_weight = class_weight
        self.nan_policy = nan_policy

    def _check_params(self):
        C = check_real(self.C, "C", minimum=0.0)
        if C <= 0:
            raise ValueError(f"C must be positive, got {C:g}.")
        if self.tol is not None:
            check_real(self.tol, "tol", minimum=0.0)
        if self.max_iter is not None:
            check_int(self.max_iter, "max_iter")
        check_option(self.solver, "solver", _SOLVERS)
        if not isinstance(self.fit_intercept, (bool, np.bool_)):
            raise ValueError(f"fit_intercept must be a bool, got {self.fit_intercept!r}.")

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass of the ``"sgd"`` steps over a batch of a stream, in the given row order.

        The mini-batch stochastic subgradient steps of ``solver="sgd"`` (see the class
        docstring), continued from the state the previous calls left: the point, the step
        counter and the polynomial-decay average, which is the model (``coef_``,
        ``intercept_``). The objective is ``fit``'s on all the rows the stream has seen (a row
        passed twice counts twice, as in ``fit`` on the concatenated batches): its ``lam = 1 /
        (C S)`` follows ``S``, the summed row weights seen so far. Each problem's initial
        step is chosen on the first batch (Bottou's recipe, as ``fit`` does on a sample of all
        rows). The first call after :meth:`fit` starts from the fitted model, counted as one
        epoch of steps over the fit's rows (so that the steps start small and the average keeps
        the fitted model's weight); :meth:`fit` forgets the stream. Each call is an ordinary
        scikit-learn ``partial_fit``, so dask-ml's ``Incremental`` trains the model on the
        blocks of a dask array, one block at a time.

        What a stream cannot do that ``fit(solver="sgd")`` does: the exact best bias after
        each epoch, keeping the best point of all epochs and the certified gap need every row
        at once; ``objective_``, ``lower_bound_`` and ``gap_`` describe a fit and are removed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch (a sparse matrix is read as CSR, never densified). With
            ``nan_policy="absent"`` NaN marks a feature absent from a row (read as 0).
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; required on the first call (a batch may lack classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (times a dict ``class_weight``): row i's loss has weight
            ``C s_i``, as in :meth:`fit`. None: all one.

        Returns
        -------
        self : object
            The updated estimator.

        Raises
        ------
        ValueError
            With ``solver="cutting_plane"`` or ``"qp"`` (exact solvers on the whole training
            set: use ``"auto"`` or ``"sgd"``); on the first call without ``classes``; with
            ``class_weight="balanced"`` (class frequencies of the whole set).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.datasets import make_classification
        >>> from robustclf import FDROPClassifier
        >>> X, y = make_classification(n_samples=600, n_features=5, random_state=0)
        >>> clf = FDROPClassifier(budget=1, random_state=0)
        >>> for epoch in range(5):
        ...     for batch in np.array_split(np.arange(600), 4):
        ...         clf = clf.partial_fit(X[batch], y[batch], classes=[0, 1])
        >>> clf.solver_, clf.n_iter_.tolist(), bool(clf.score(X, y) > 0.8)
        ('sgd', [20], True)
        """
        self._check_params()
        if self.solver not in ("auto", "sgd"):
            raise ValueError(
                f"partial_fit runs the stochastic subgradient method; solver={self.solver!r} "
                "solves FDROP exactly on the whole training set with fit. Use solver='auto' "
                "or 'sgd'.")
        X, y, classes, weights, first = self._stream_batch(X, y, classes, sample_weight)
        n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
        budget = check_budget(self.budget, np.ones(X.shape[1]))
        if first:
            self.classes_ = classes
        stream = self.__dict__.get("_stream")
        if stream is None:  # first call, or first after fit: start from the current model
            if first:
                stream = SGDStream(np.zeros((n_problems, X.shape[1])), np.zeros(n_problems))
            else:
                stream = SGDStream(self.coef_, self.intercept_, *self._fitted_rows)
            self._stream = stream
            self._stream_rng = check_generator(self.random_state)
            self.n_iter_ = np.zeros(n_problems, dtype=int)
        stream.partial_pass(X, signed_targets(y, classes), budget, float(self.C),
                            bool(self.fit_intercept), self._stream_rng, weights)
        self.coef_ = stream.coef_avg.copy()
        self.intercept_ = stream.intercept_avg.copy()
        self.solver_ = "sgd"
        self.n_iter_ = self.n_iter_ + 1
        for name in ("objective_", "lower_bound_", "gap_"):  # they describe a fit
            self.__dict__.pop(name, None)
        return self

    def _fit_ovr(self, X, Y, sample_weight=None):
        """The chosen solver for the one-vs-rest columns of ``Y`` (row weights: ``C_i = C s_i``)."""
        X, Y, sample_weight = positive_weight_rows(X, Y, sample_weight)
        budget = check_budget(self.budget, np.ones(X.shape[1]))
        self.__dict__.pop("_stream", None)  # fit forgets an earlier partial_fit stream
        weight = float(X.shape[0] if sample_weight is None else sample_weight.sum())
        self._fitted_rows = (X.shape[0], weight)   # where a later partial_fit continues from
        solver = self.solver
        if solver == "auto":
            solver = "cutting_plane"
        self.solver_ = solver
        if solver == "sgd":
            tol = 1e-3 if self.tol is None else float(self.tol)
            max_iter = 30 if self.max_iter is None else int(self.max_iter)
            rng = check_generator(self.random_state)
            coef, intercept, objective, epochs, converged, lower = _solve_sgd(
                X, Y, budget, float(self.C), bool(self.fit_intercept), tol, max_iter, rng,
                sample_weight)
            self.objective_, self.n_iter_, self.lower_bound_ = objective, epochs, lower
            self.gap_ = np.array([relative_gap(u, lo) for u, lo in zip(objective, lower,
                                                                        strict=True)])
            warn_if_not_converged(self, converged, max_iter, measure=self.gap_,
                                  measure_name="certified relative optimality gap", tol=tol)
            return coef, intercept
        tol = 1e-6 if self.tol is None else float(self.tol)
        max_iter = 100 if self.max_iter is None else int(self.max_iter)
        if solver == "qp":
            X = X.toarray() if sp.issparse(X) else X  # (GR) has O(n_samples n_features) terms
            results = [_solve_gr_qp(X, s, budget, float(self.C), bool(self.fit_intercept),
                                    sample_weight) for s in Y.T]
        else:
            results = [_solve_cutting_plane(X, s, budget, float(self.C), bool(self.fit_intercept),
                                            tol, max_iter, sample_weight=sample_weight)
                       for s in Y.T]
        self.objective_ = np.array([r[2] for r in results])
        self.n_iter_ = np.array([r[3] for r in results])
        self.lower_bound_ = np.array([r[5] for r in results])
        self.gap_ = np.array([relative_gap(r[2], r[5]) for r in results])
        reasons = sorted({r[6] for r in results if r[6] is not None})
        warn_if_not_converged(self, [r[4] for r in results], max_iter, measure=self.gap_,
                              measure_name="certified relative optimality gap", tol=tol,
                              reason="; ".join(reasons) or None)
        coef = np.stack([r[0] for r in results])
        self._warn_if_zero_is_optimal(coef, budget)
        return coef, np.array([r[1] for r in results])

    def _warn_if_zero_is_optimal(self, coef, budget):
        """``UserWarning`` for the binary problems whose optimum may be ``w = 0``.

        The objective is 1-strongly convex in ``w``, so ``||w - w*||^2 <= 2 (objective -
        lower bound)``: a ``w`` closer to 0 than that radius does not exclude ``w* = 0``.
        Such a problem scores every row by its intercept (up to the solver's accuracy), and
        between two such classes the prediction is decided by coefficients inside the gap.
        """
        radius = np.sqrt(2.0 * np.maximum(self.objective_ - self.lower_bound_, 0.0))
        zero = np.flatnonzero(np.linalg.norm(coef, axis=1) <= radius)   # inf radius: no claim
        zero = zero[np.isfinite(radius[zero])]
        if zero.size == 0:
            return
        if coef.shape[0] == 1:
            what = ("the model is constant up to the solver's accuracy (it predicts by its "
                    "intercept)")
        else:
            what = (f"the one-vs-rest problems of the classes at positions {zero.tolist()} of "
                    "classes_ score every row by their intercepts up to the solver's accuracy"
                    + (", and which of them is predicted is arbitrary" if zero.size > 1
                       else ""))
        warnings.warn(f"FDROPClassifier: w = 0 is within the certified optimality gap at "
                      f"budget K = {budget:g}: {what}. The budget is too large for these data; "
                      "use a smaller one, or choose it by validation.",
                      UserWarning, stacklevel=4)
