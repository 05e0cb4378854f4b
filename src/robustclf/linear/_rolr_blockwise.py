"""RoLR on the row chunks of a dask collection: the in-memory fit, pass by pass.

:func:`~._rolr_solvers.fista` is the dual iteration of :func:`~._rolr_solvers.solve_dual`
written once, against a row-level backend: :class:`~._rolr_solvers._MemoryRows` holds the dual
iterates as arrays; :class:`_BlockRows` keeps them in the row chunks of a dask collection
(:class:`~robustclf._blockwise.StatefulRowChunks`: a state per chunk -- dual iterates,
gradient, row norms, kept-row mask, projections -- persisted where the chunk is processed) and
computes every row-level step with the in-memory functions of :mod:`._rolr_solvers`
(:class:`~._rolr_solvers._Design`'s products, :func:`~._rolr_solvers.centred_row_norms`,
:func:`~._rolr_solvers.fill_absent`, the offset fit's :func:`~._rolr_offset.offset_terms`).
Only ``d``-sized vectors, scalars and small per-chunk summaries reach the client. The steps of
Algorithm 1 that are not sums over rows are found exactly, never approximated:

* order statistics (column medians, the median row norm, the trimmed sum of Eq. 2, the sum of
  the ``n`` largest row norms, the trimmed set) by
  :class:`~robustclf._blockwise._select.OrderStatisticSearch`, and the shift ``tau`` of the
  capped-simplex projection by :class:`~robustclf._blockwise._select.CappedSumSearch` (exact
  selections over the chunks, see :mod:`robustclf._blockwise._select`): from a good starting
  bracket (the previous FISTA iterate's value) one pass, fused with the pass that computes
  the values;
* the Lipschitz constant by :func:`~._rolr_solvers.largest_eigenvalue` on the Gram matrix
  ``A^T W A`` summed over chunks (one pass, up to ``MAX_GRAM_FEATURES`` features; one pass per
  Lanczos product beyond).

The blockwise fit takes the in-memory iterations, up to the rounding of sums taken in another
order (measured: coefficients within 1e-13 relative at the default ``tol``). Passes over ``X``:
two per dual iteration (gradient ``A u``, then ``A^T t``; one more for a backtracking step),
plus a fixed number for the preprocessing (see ``RobustLogisticRegression._fit_ovr_blockwise``,
which drives the functions of this module); the order-statistic refinements and the offset fit
read the states only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._blockwise import StatefulRowChunks, _select
from .._blockwise._select import (
    CappedSumSearch,
    OrderStatisticSearch,
    capped_sum_summary,
    hint_width,
    order_statistic_summary,
    run_search,
    sorted_values,
)
from ._rolr_solvers import (
    RoLRSolution,
    _Design,
    _dot,
    centred_row_norms,
    fill_absent,
    fista,
    has_absent,
    largest_eigenvalue,
)

__all__ = ["MAX_GRAM_FEATURES", "BlockSpec", "apply_threshold_blockwise",
           "column_medians_blockwise", "inlier_mask_blockwise", "kept_totals",
           "lipschitz_blockwise", "offset_terms_blockwise", "projections_blockwise",
           "robust_scale_blockwise", "row_norms_blockwise", "scale_loss_blockwise",
           "select_blockwise", "solve_dual_blockwise", "weight_statistics"]

#: Widest data whose Gram matrix ``A^T W A`` the blockwise fit assembles (one pass) to estimate
#: the step size; wider data use Lanczos with one pass per product.
MAX_GRAM_FEATURES = 1024


# -- reading a chunk --------------------------------------------------------------------------

@dataclass(frozen=True)
class BlockSpec:
    """How every chunk task reads its chunk of a blockwise RoLR fit.

    Attributes
    ----------
    reader : robustclf.linear._base.ChunkReader
        The in-memory validation, chunk by chunk (absent entries kept as NaN).
    weighted : bool
        Row weights are used (False: there are none, or all are one).
    fit_intercept : bool
        Rows are centred (absent entries put at the centre); without, absent entries are 0.
    center : ndarray of shape (n_features,) or None
        The centre ``m`` of the rows (and the value of their absent entries).
    scale : float
        ``S``: the design's rows are ``(x - m) / S``.
    """

    reader: object
    weighted: bool
    fit_intercept: bool
    center: np.ndarray | None = None
    scale: float = 1.0


def _read_rows(Xb, yb, wb, spec: BlockSpec):
    """The chunk's rows of positive weight: ``X`` (NaN kept with an intercept), the ±1 targets,
    the weights (None when unweighted) and the mask of those rows (None: all)."""
    X, Y, w = spec.reader.read(Xb, yb, wb)
    present = None
    if not spec.weighted:
        w = None
    elif not w.all():
        present = w > 0
        X, Y, w = X[present], Y[present], w[present]
    if not spec.fit_intercept:
        from ._base import absent_as_zero

        X = absent_as_zero(X)
    return X, Y, w, present


def _kept_rows(Xb, yb, wb, state, spec: BlockSpec, fill: bool = True):
    """The chunk's rows kept by the preprocessing threshold, absent entries at ``spec.center``
    (``fill``), their ±1 targets and weights."""
    X, Y, w, _ = _read_rows(Xb, yb, wb, spec)
    keep = state.get("keep") if state else None
    if keep is not None:
        X, Y = X[keep], Y[keep]
        w = None if w is None else w[keep]
    absent = state.get("absent", True) if state else True
    if fill and spec.center is not None and absent and has_absent(X):
        X = fill_absent(X, spec.center)
    return X, Y, w


def _chunk_weights(Xb, yb, wb, state, reader):
    """Row-weight statistics of a chunk: rows, total weight, rows of weight 0 and of a weight
    other than one, non-integer weights, and the total weight of each class."""
    y = np.asarray(yb).ravel()
    _, Y, w = reader.read(np.empty((y.size, 0)), yb, wb)
    w = np.ones(y.size) if w is None else w
    classes = Y > 0 if Y.shape[1] > 1 else np.column_stack([Y[:, 0] < 0, Y[:, 0] > 0])
    counts = np.array([y.size, w.sum(), np.count_nonzero(w == 0), np.count_nonzero(w != 1.0),
                       np.count_nonzero(w != np.round(w))], dtype=np.float64)
    return None, (counts, w @ classes), None


def weight_statistics(chunks: StatefulRowChunks, reader) -> dict:
    """One pass over the labels and weights: the numbers ``fit`` needs to resolve ``n1``.

    Raises the in-memory errors for weights that are zero everywhere or on all classes but one.
    """
    summed, _ = chunks.run(_chunk_weights, reader, data="labels")
    counts, per_class = summed
    n_rows, total, zero, not_one, non_integer = counts
    if total <= 0:
        raise ValueError("sample_weight (times class_weight) is zero for every row; at "
                         "least one row must have a positive weight.")
    weighted_classes = np.flatnonzero(per_class > 0)
    if weighted_classes.size < 2:
        raise ValueError(
            "RobustLogisticRegression needs rows of at least 2 classes with a positive "
            "sample_weight (times class_weight), but only the rows of class "
            f"{reader.classes[weighted_classes[0]]!r} have one.")
    weighted = bool(not_one)
    return {"weighted": weighted, "n_rows": int(n_rows - zero) if weighted else int(n_rows),
            "total": float(total), "integral": not non_integer}


# -- preprocessing: centre, row norms, threshold, scale ---------------------------------------

def _column_values(X, w, j: int, cache: dict):
    """The observed values of column ``j`` of a chunk and their weights (None: all one).

    Absent (NaN) entries are left out; a sparse column's implicit zeros are one value 0 with
    their total weight.
    """
    if not sp.issparse(X):
        col = X[:, j]
        ok = ~np.isnan(col)
        if ok.all():
            return col, w
        return col[ok], None if w is None else w[ok]
    if "csc" not in cache:
        cache["csc"] = sp.csc_matrix(X)
        cache["total"] = X.shape[0] if w is None else float(w.sum())
    Xc = cache["csc"]
    start, stop = Xc.indptr[j], Xc.indptr[j + 1]
    data, rows = Xc.data[start:stop], Xc.indices[start:stop]
    row_w = np.ones(rows.size) if w is None else w[rows]
    implicit = cache["total"] - row_w.sum()
    ok = ~np.isnan(data)
    return (np.concatenate([data[ok], [0.0]]),
            np.concatenate([row_w[ok], [max(implicit, 0.0)]]))


def _chunk_columns(Xb, yb, wb, state, spec, use_keep, columns, queries):
    """Per column: one chunk's part of the :class:`OrderStatisticSearch` passes of the medians."""
    X, _, w = _kept_rows(Xb, yb, wb, state if use_keep else None, spec, fill=False)
    cache, summed, collected = {}, [], []
    for j, query in zip(columns, queries, strict=True):
        if j not in cache:
            cache[j] = sorted_values(*_column_values(X, w, j, cache))
        part, window = order_statistic_summary(cache[j], query)
        summed.append(part)
        collected.append(window)
    return state, tuple(summed), collected


def column_medians_blockwise(chunks: StatefulRowChunks, spec: BlockSpec, n_features: int,
                             use_keep: bool) -> np.ndarray:
    """:func:`~._rolr_solvers.column_medians` of the chunks' rows (the kept rows if
    ``use_keep``), exactly.

    Each column's lower and upper middle order statistics (weighted, absent entries left out,
    implicit zeros of sparse chunks counted) are :class:`OrderStatisticSearch` selections run
    side by side: one pass sends sketches, the next narrows every column to a few hundred
    values per chunk, the third collects them -- three passes over ``X`` for typical data.
    """
    n_problems = 2 * n_features
    cap = max(16, (16 * _select.RAW_BUDGET) // (chunks.n_chunks * n_problems))
    searches = [OrderStatisticSearch(chunks.n_chunks, fraction=0.5, strict=strict, cap=cap)
                for _ in range(n_features) for strict in (False, True)]
    active = list(range(n_problems))
    while active:
        columns = np.array([p // 2 for p in active])
        summed, collected = chunks.run(_chunk_columns, spec, use_keep, columns,
                                       [searches[p].query for p in active])
        for i, p in enumerate(active):
            searches[p].update(summed[i], [c[i] for c in collected])
        active = [p for p in active if not searches[p].done]
    med = np.zeros(n_features)
    for j in range(n_features):
        lower, upper = searches[2 * j], searches[2 * j + 1]
        if lower.total_w > 0:
            med[j] = 0.5 * (lower.value + upper.value)
    return med


def _chunk_norms(Xb, yb, wb, state, spec, key):
    """The centred norms ``||x_i - m||`` of the chunk's rows (kept rows once the threshold is
    known); the first call sets up the chunk's state (rows of positive weight, targets)."""
    if state is None:
        X, Y, w, present = _read_rows(Xb, yb, wb, spec)
        absent = has_absent(X)
        if spec.center is not None and absent:
            X = fill_absent(X, spec.center)
        state = {"present": present, "keep": None, "w": w, "Y": (Y > 0),
                 "absent": absent}
    else:
        X, _, _ = _kept_rows(Xb, yb, wb, state, spec)
        state = dict(state)
    state[key] = centred_row_norms(X, spec.center)
    return state, None, None


def row_norms_blockwise(chunks: StatefulRowChunks, spec: BlockSpec, key: str) -> None:
    """One pass over ``X``: the centred row norms into every chunk's state (as ``key``)."""
    chunks.run(_chunk_norms, spec, key, update=True)


def _state_values(state, source):
    """Row values of a chunk's state that a selection works on, and their weights."""
    kind = source[0]
    w = state["w"]
    if kind == "norm":                       # (norm, key, divisor, negate)
        values = state[source[1]] / source[2]
        return (-values if source[3] else values), w
    if kind == "grad":
        return state["grad"], w
    if kind == "v":                          # (v, lip): the point projected onto C
        return state["s"] - state["grad"] / source[1], w
    if kind == "margin":                     # (margin, k, y): y_k <beta_k, z> per kept row
        k = source[1]
        return np.where(state["Y"][:, k], 1.0, -1.0) * state["proj"][k], w
    raise ValueError(kind)                   # pragma: no cover - internal


def _chunk_select(Xb, yb, wb, state, source, clip, query):
    z, w = _state_values(state, source)
    summed, collected = (capped_sum_summary(z, w, query) if clip
                         else order_statistic_summary(sorted_values(z, w), query))
    return state, summed, collected


def select_blockwise(chunks: StatefulRowChunks, source, n=None, *, fraction=None, strict=False,
                     hint=None, width=None) -> OrderStatisticSearch:
    """An :class:`OrderStatisticSearch` over state values (passes over the states only)."""
    search = OrderStatisticSearch(chunks.n_chunks, n, fraction=fraction, strict=strict,
                                  hint=hint, width=width)
    return run_search(chunks, search, _chunk_select, source, False)


def robust_scale_blockwise(chunks: StatefulRowChunks, key: str) -> float:
    """``_robust_scale`` of the row norms ``key`` of the states: their (weighted) median, else
    their mean, else 1 (two selections, a few passes over the states)."""
    source = ("norm", key, 1.0, False)
    lower = select_blockwise(chunks, source, fraction=0.5)
    upper = select_blockwise(chunks, source, fraction=0.5, strict=True)
    candidates = []
    if lower.total_w > 0:
        candidates = [0.5 * (lower.value + upper.value), lower.total_s / lower.total_w]
    for value in candidates:
        if value > 0 and np.isfinite(value):
            return float(value)
    return 1.0


def _chunk_keep(Xb, yb, wb, state, threshold):
    """Rows kept by the threshold (``norm1 < T``): the state's rows become the kept rows."""
    norms = state["norm1"]
    w = state["w"]
    keep = norms < threshold
    removed_w = float(np.count_nonzero(~keep)) if w is None else float(w[~keep].sum())
    kept_w = float(np.count_nonzero(keep)) if w is None else float(w[keep].sum())
    summed = np.array([np.count_nonzero(keep), np.count_nonzero(~keep), kept_w, removed_w],
                      dtype=np.float64)
    state = dict(state)
    if not keep.all():
        state.update(keep=keep, Y=state["Y"][keep], w=None if w is None else w[keep],
                     norm1=norms[keep])
    return state, summed, None


def apply_threshold_blockwise(chunks: StatefulRowChunks, threshold: float) -> np.ndarray:
    """One pass over the states: keep the rows with ``norm1 < T``; returns the kept and
    removed numbers of rows and weights."""
    summed, _ = chunks.run(_chunk_keep, threshold, data=False, update=True)
    return summed


def _chunk_totals(Xb, yb, wb, state):
    """Kept rows, their total weight and each column's positive weight."""
    w = state["w"]
    Y = state["Y"]
    if w is None:
        return state, (np.array([Y.shape[0], Y.shape[0]], dtype=np.float64),
                       Y.sum(axis=0).astype(np.float64)), None
    return state, (np.array([Y.shape[0], w.sum()]), w @ Y), None


def kept_totals(chunks: StatefulRowChunks):
    """``(rows, weight)`` of the kept rows and the positive weight of every ±1 column."""
    (counts, positive), _ = chunks.run(_chunk_totals, data=False)
    return int(counts[0]), float(counts[1]), positive


# -- the Lipschitz constant -------------------------------------------------------------------

def _chunk_gram(Xb, yb, wb, state, spec):
    """The chunk's ``Z^T W Z`` for ``Z = (X - m) / S`` (kept rows)."""
    X, _, w = _kept_rows(Xb, yb, wb, state, spec)
    m = spec.center
    if sp.issparse(X):
        Xw = X if w is None else X.multiply(w[:, None]).tocsr()
        gram = np.asarray((X.T @ Xw).toarray())
        if m is not None:
            colsum = np.asarray(Xw.sum(axis=0)).ravel()
            total = X.shape[0] if w is None else float(w.sum())
            gram = gram - np.outer(m, colsum) - np.outer(colsum, m) + total * np.outer(m, m)
        return state, gram / (spec.scale * spec.scale), None
    Z = X if m is None else X - m
    Z = Z / spec.scale
    return state, Z.T @ (Z if w is None else Z * w[:, None]), None


def _chunk_gram_apply(Xb, yb, wb, state, spec, u):
    X, _, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, np.ones(X.shape[0]), None, spec.center, spec.scale, w)
    return state, design.rmatvec(design.matvec(u)), None


def lipschitz_blockwise(chunks: StatefulRowChunks, spec: BlockSpec, n_features: int) -> float:
    """``||W^{1/2} A||_2^2`` by :func:`largest_eigenvalue`: on the Gram matrix ``A^T W A``
    summed over chunks (one pass) up to ``MAX_GRAM_FEATURES`` features, else on products
    with it (one pass each)."""
    if n_features <= MAX_GRAM_FEATURES:
        gram, _ = chunks.run(_chunk_gram, spec)
        gram = 0.5 * (gram + gram.T)
        return largest_eigenvalue(lambda u: gram @ u, n_features)
    return largest_eigenvalue(lambda u: chunks.run(_chunk_gram_apply, spec, u)[0], n_features)


# -- the dual iteration on row chunks ---------------------------------------------------------

def _chunk_start(Xb, yb, wb, state, spec, k, t0):
    """``t = s = t0`` on the kept rows; the chunk's part of ``A^T t``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    t = np.full(X.shape[0], t0)
    state = dict(state, t=t, s=t, t_new=None, grad=None)
    return state, design.rmatvec(t), None


def _chunk_gradient(Xb, yb, wb, state, spec, k, u_s, momentum, lip, q_query, tau_query):
    """Move to the extrapolated point ``s`` (after an accepted step), ``grad = A u_s``, and the
    chunk's parts of the trimmed sum of ``grad`` and of the projection shift of
    ``s - grad / lip``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    if state["t_new"] is not None:
        t_new = state["t_new"]
        s, t = t_new + momentum * (t_new - state["t"]), t_new
    else:
        s, t = state["s"], state["t"]
    grad = design.matvec(u_s)
    state = dict(state, s=s, t=t, t_new=None, grad=grad)
    q_summed, q_collected = order_statistic_summary(sorted_values(grad, w), q_query)
    tau_summed, tau_collected = capped_sum_summary(s - grad / lip, w, tau_query)
    return state, (q_summed, tau_summed), (q_collected, tau_collected)


def _chunk_project(Xb, yb, wb, state, spec, k, lip, tau):
    """``t+ = clip(s - grad / lip - tau, 0, 1)`` and the chunk's parts of ``A^T t+``,
    ``||t+ - s||_w^2`` and ``<s - t+, t+ - t>_w``."""
    X, Y, w = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, Y[:, k], None, spec.center, spec.scale, w)
    s, t = state["s"], state["t"]
    t_new = np.clip(s - state["grad"] / lip - tau, 0.0, 1.0)
    summed = (design.rmatvec(t_new),
              np.array([_dot(w, t_new - s, t_new - s), _dot(w, s - t_new, t_new - t)]))
    return dict(state, t_new=t_new), summed, None


class _BlockRows:
    """The row-level side of :func:`~._rolr_solvers.fista` on row chunks (the interface of
    :class:`~._rolr_solvers._MemoryRows`).

    The dual iterates ``t``, ``s``, the candidate ``t+`` and ``grad = A u_s`` stay in the
    chunks' states. Per iteration: one pass over ``X`` for ``grad`` (with the trimmed sum of
    Eq. 2 and the projection shift started from the previous iterate's values, usually found
    in the same pass), one for ``A^T t+``; a selection that the first pass did not settle
    costs further passes over the states only, as does a backtracking step (plus one pass
    over ``X``).
    """

    def __init__(self, chunks: StatefulRowChunks, spec: BlockSpec, k: int, n: float,
                 total: float, dim: int, bound: float, lip: float):
        self.chunks, self.spec, self.k, self.n, self.total = chunks, spec, k, n, total
        self.dim, self._bound, self._lip = dim, bound, lip
        self.momentum = None
        self.q_history, self.tau_history = [], []
        self.tau_search = None

    def bound(self) -> float:
        return self._bound

    def lipschitz(self) -> float:
        return self._lip

    def start(self) -> np.ndarray:
        u, _ = self.chunks.run(_chunk_start, self.spec, self.k, self.n / self.total,
                               update=True)
        return u

    def _tau_search(self, lip):
        hint = self.tau_history[-1] if self.tau_history else None
        return CappedSumSearch(self.chunks.n_chunks, self.n, self.total, hint,
                               hint_width(self.tau_history))

    def gradient(self, u_s: np.ndarray, lip: float) -> float:
        nc = self.chunks.n_chunks
        q = OrderStatisticSearch(nc, self.n,
                                 hint=self.q_history[-1] if self.q_history else None,
                                 width=hint_width(self.q_history))
        tau = self._tau_search(lip)
        summed, collected = self.chunks.run(
            _chunk_gradient, self.spec, self.k, u_s, self.momentum, lip, q.query, tau.query,
            update=True)
        self.momentum = None
        q.update(summed[0], [c[0] for c in collected])
        if not tau.done:
            tau.update(summed[1], [c[1] for c in collected])
        run_search(self.chunks, q, _chunk_select, ("grad",), False)
        if np.isfinite(q.value):
            self.q_history.append(q.value)
        self.tau_search, self.tau_lip = tau, lip
        return q.trimmed_sum

    def project(self, lip: float):
        tau = self.tau_search
        if self.tau_lip != lip:                    # the step was backtracked
            tau = self._tau_search(lip)
        run_search(self.chunks, tau, _chunk_select, ("v", lip), True)
        if np.isfinite(tau.value):
            self.tau_history.append(tau.value)
        (u_new, (step_sq, restart)), _ = self.chunks.run(
            _chunk_project, self.spec, self.k, lip, tau.value, update=True)
        return u_new, float(step_sq), float(restart)

    def advance(self, momentum: float) -> None:
        self.momentum = momentum


def solve_dual_blockwise(chunks: StatefulRowChunks, spec: BlockSpec, k: int, n: float,
                         total: float, n_features: int, bound: float, lip: float, tol: float,
                         max_iter: int) -> RoLRSolution:
    """:func:`~._rolr_solvers.solve_dual` on the kept rows and ±1 column ``k`` of the states.

    ``n`` is the trimmed weight, ``total`` the kept rows' total weight, ``bound`` the sum of
    the ``n`` largest row norms (:func:`select_blockwise`) and ``lip`` the step's Lipschitz
    constant (:func:`lipschitz_blockwise`); the dual iterates stay in the states.
    """
    rows = _BlockRows(chunks, spec, k, n, total, n_features, bound, lip)
    return fista(rows, tol, max_iter)


# -- after the solve: projections, offset, trimmed set, slope ---------------------------------

def _chunk_projections(Xb, yb, wb, state, spec, directions):
    """``t_i = <beta_k, z_i>`` of the kept rows for every direction (rows of ``directions``)."""
    X, _, _ = _kept_rows(Xb, yb, wb, state, spec)
    design = _Design(X, np.ones(X.shape[0]), None, spec.center, spec.scale)
    proj = np.array([design.matvec(beta) for beta in directions])
    state = {key: value for key, value in state.items()
             if key not in ("s", "t", "t_new", "grad", "norm1", "norm2")}
    return dict(state, proj=proj), None, None


def projections_blockwise(chunks, spec, directions) -> None:
    """One pass over ``X``: the projections of the kept rows on every direction, into the
    states (the dual iterates are dropped)."""
    chunks.run(_chunk_projections, spec, np.asarray(directions), update=True)


def _chunk_offset_terms(Xb, yb, wb, state, k, theta):
    from ._rolr_offset import offset_terms

    y = np.where(state["Y"][:, k], 1.0, -1.0)
    loss, grad, hess = offset_terms(theta, state["proj"][k], y, state["w"])
    return state, (np.array([loss]), grad, hess), None


def offset_terms_blockwise(chunks, k):
    """``theta -> offset_terms`` of column ``k`` summed over the states (one pass a call)."""

    def terms(theta):
        (loss, grad, hess), _ = chunks.run(_chunk_offset_terms, k, theta, data=False)
        return float(loss[0]), grad, hess

    return terms


def _chunk_ties(Xb, yb, wb, state, k, q):
    z, w = _state_values(state, ("margin", k))
    tied = z == q
    return state, None, float(np.count_nonzero(tied) if w is None else w[tied].sum())


def _chunk_mask(state, columns, size):
    """The inlier mask of a chunk's rows, shape ``(n_columns, size)``: kept by the threshold
    and inside the trimmed set of each column.

    ``columns``: per column None (every kept row is inside) or ``(q, allowance)``: margins
    below ``q`` are inside, and ties at ``q`` in row order while the tied weight before them
    (in this chunk) is below the chunk's allowance.
    """
    present, keep = state["present"], state["keep"]
    masks = np.zeros((len(columns), size), dtype=bool)
    for k, rule in enumerate(columns):
        if rule is None:
            inside = np.ones(state["Y"].shape[0], dtype=bool)
        else:
            q, allowance = rule
            z, w = _state_values(state, ("margin", k))
            tied = z == q
            tw = np.where(tied, 1.0 if w is None else w, 0.0)
            inside = (z < q) | (tied & (np.cumsum(tw) - tw < allowance))
        if keep is not None:
            kept = np.zeros(keep.size, dtype=bool)
            kept[keep] = inside
            inside = kept
        if present is not None:
            masks[k, present] = inside
        else:
            masks[k] = inside
    return masks


def inlier_mask_blockwise(chunks, searches, n):
    """The inlier mask as a dask array chunked like ``X`` (persisted), of shape
    ``(n_columns, n_samples)``.

    ``searches``: per column the :class:`OrderStatisticSearch` of its margins at the weight
    ``n`` (the trimmed set: margins below the order statistic ``q``, ties at ``q`` in row
    order), or None (a collapsed problem: every kept row).
    """
    import dask.array as da

    rules = []
    for k, search in enumerate(searches):
        if search is None or not np.isfinite(search.value):
            rules.append(None)
            continue
        _, ties = chunks.run(_chunk_ties, k, search.value, data=False)
        before = np.concatenate([[0.0], np.cumsum(ties)[:-1]])
        rules.append([(search.value, n - search.w_below - b) for b in before])
    blocks = chunks.map_states(_chunk_mask, [([None if r is None else r[b] for r in rules],)
                                             for b in range(chunks.n_chunks)])
    arrays = [da.from_delayed(block, shape=(len(searches), size), dtype=bool)
              for block, size in zip(blocks, chunks.sizes, strict=True)]
    return da.concatenate(arrays, axis=1)


def _chunk_scale_loss(Xb, yb, wb, state, scores, slope):
    """``sum_k sum_i w_i log(1 + exp(-slope y_ik s_ik))`` with ``s_ik`` the projection (or a
    constant, ``scores[k]``, for a collapsed problem); and the largest ``|margin|``."""
    total, top = 0.0, 0.0
    w = state["w"]
    for k, constant in enumerate(scores):
        y = np.where(state["Y"][:, k], 1.0, -1.0)
        margins = y * (state["proj"][k] if constant is None else constant)
        losses = np.logaddexp(0.0, -slope * margins)
        total += float(losses.sum() if w is None else w @ losses)
        top = max(top, float(np.max(np.abs(margins), initial=0.0)))
    return state, np.array([total]), top


def scale_loss_blockwise(chunks: StatefulRowChunks, scores, slope: float) -> tuple[float, float]:
    """One pass over the states: the logistic loss at ``slope`` of the projections (or of the
    constants ``scores[k]`` of collapsed problems), summed over rows, and the largest
    ``|margin|``."""
    (loss,), tops = chunks.run(_chunk_scale_loss, scores, slope, data=False)
    return float(loss), max(tops)
