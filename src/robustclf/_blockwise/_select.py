"""Exact order statistics and capped-sum roots of values spread over row chunks.

Two statistics of per-row values that are not sums over rows, found *exactly* without
gathering the values (each chunk holds its own, e.g. in the states of
:class:`._state.StatefulRowChunks`):

* the weighted order statistic ``q = min{c : G(c) >= n}``, ``G(c)`` the weight of the values
  ``<= c`` (medians, the sum of the ``n`` smallest values, a trimmed set), by
  :class:`OrderStatisticSearch`;
* the root ``tau`` of ``h(tau) = sum_i w_i clip(v_i - tau, 0, 1) = n`` (the shift of the
  Euclidean projection onto a capped simplex), by :class:`CappedSumSearch`.

Each is a bracket held by the client and refined by passes over the chunks. A pass evaluates
the weighted count (or ``h``) exactly at a few candidate points, summed over chunks
(:func:`order_statistic_summary`, :func:`capped_sum_summary`: a chunk's part); each chunk also
sends its values in the current bracket if they are few (at most ``RAW_BUDGET / n_chunks``;
with a starting guess, the ones nearest it), else a sketch whose pooled points are the next
candidates. The answer is exact once the sent values cover the bracket: one pass when the
chunks are small or the starting guess (e.g. the previous iteration's value, with
:func:`hint_width`) is good, a few otherwise (each narrows the bracket about ``_SKETCH``
times per chunk). :func:`run_search` runs the passes.

:func:`sorted_values`, :func:`capped_sums` and :func:`piecewise_root` are the in-memory
algebra underneath, shared with the in-memory projection onto the capped simplex
(:func:`robustclf.linear._rolr_solvers.project_capped_simplex`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["RAW_BUDGET", "CappedSumSearch", "OrderStatisticSearch", "Query", "capped_sum_summary",
           "capped_sums", "hint_width", "order_statistic_summary", "piecewise_root",
           "run_search", "sorted_values"]

#: Raw values sent to the client per selection and pass, over all chunks.
RAW_BUDGET = 1 << 16
#: Points of a chunk's sketch of its values inside a bracket.
_SKETCH = 32
#: Candidate points evaluated per selection and pass.
_CANDIDATES = 256
#: Candidate offsets (in units of the last change) around a hinted value.
_HINT_GRID = np.array([-64.0, -16.0, -4.0, -1.0, -0.25, 0.0, 0.25, 1.0, 4.0, 16.0, 64.0])


def sorted_values(z: np.ndarray, w: np.ndarray | None):
    """``z`` sorted with the prefix sums of its weights and of ``w z`` (weights 1 if None)."""
    if w is None:
        zs, ws = np.sort(z), None
    else:
        order = np.argsort(z, kind="stable")
        zs, ws = z[order], w[order]
    cw = (np.arange(zs.size + 1, dtype=np.float64) if ws is None
          else np.concatenate([[0.0], np.cumsum(ws)]))
    cs = np.concatenate([[0.0], np.cumsum(zs if ws is None else ws * zs)])
    return zs, ws, cw, cs


def capped_sums(v: np.ndarray, points: np.ndarray,
                weights: np.ndarray | None = None) -> np.ndarray:
    """``h(tau) = sum_i w_i clip(v_i - tau, 0, 1)`` at every ``tau`` in ``points``, exactly.

    One sort of ``v`` and prefix sums of ``w`` and ``w v``: O((N + P) log N) for ``P`` points.
    Without ``weights`` every ``w_i`` is 1. The sums of the row chunks of a dask fit add up to
    ``h`` of all rows.
    """
    points = np.asarray(points, dtype=np.float64)
    vs, _, cw, cwv = sorted_values(v, weights)                   # prefix sums of w and w v
    N = vs.size
    lo1 = np.searchsorted(vs, points + 1.0, side="left")         # from lo1 on: v_i - tau >= 1
    lo0 = np.searchsorted(vs, points, side="right")              # from lo0 on: v_i - tau > 0
    return (cw[N] - cw[lo1]) + (cwv[lo1] - cwv[lo0]) - (cw[lo1] - cw[lo0]) * points


def piecewise_root(points: np.ndarray, h: np.ndarray, n: float) -> float:
    """The ``tau`` with ``h(tau) = n`` of a continuous non-increasing piecewise linear ``h``,
    given at the increasing ``points`` that include all of its breakpoints in between."""
    k = np.searchsorted(-h, -n, side="left")        # first point with h <= n
    if k == 0:
        return float(points[0])
    if k == h.size:                                 # h > n at every point (by rounding)
        return float(points[-1])
    h0, h1, b0, b1 = h[k - 1], h[k], points[k - 1], points[k]
    return float(b0 + (h0 - n) * (b1 - b0) / (h0 - h1)) if h0 > h1 else float(b1)


@dataclass(frozen=True)
class Query:
    """What a chunk evaluates for one selection pass.

    The sum at the candidate points ``cands`` (exact); and the chunk's values inside the
    window ``(lo, hi)`` when there are at most ``cap`` of them -- otherwise the ``cap`` values
    nearest ``center`` (when given; they cover a narrower window, which the chunk reports) and
    a sketch of the values in ``(lo, hi)``.
    """

    lo: float
    hi: float
    cands: np.ndarray
    cap: int
    center: float | None = None


def _choose_window(points: np.ndarray, query: Query):
    """The window a chunk reports, from its sorted ``points`` (values or breakpoints).

    Returns ``(lo, hi, sketch)``: all points in the returned open window are sent; ``lo`` is
    None when the points in ``(query.lo, query.hi)`` are too many and there is no ``center``
    (then only the sketch is sent).
    """
    i0 = np.searchsorted(points, query.lo, side="right")
    i1 = max(i0, np.searchsorted(points, query.hi, side="left"))
    if i1 - i0 <= query.cap:
        return query.lo, query.hi, None
    sketch = points[i0 + np.linspace(0, i1 - i0 - 1, _SKETCH).astype(int)]
    if query.center is None:
        return None, None, sketch
    p = np.searchsorted(points, query.center)
    j0 = int(np.clip(p - query.cap // 2, i0, i1 - query.cap))
    j1 = j0 + query.cap
    lo = points[j0 - 1] if j0 > i0 else query.lo
    hi = points[j1] if j1 < i1 else query.hi
    return float(lo), float(hi), sketch


def order_statistic_summary(ranked, query: Query):
    """One chunk's part of a :class:`OrderStatisticSearch` pass, from ``ranked``, the
    :func:`sorted_values` of the chunk's values.

    Summed: ``G(<c)``, ``G(<=c)`` and ``S(<c) = sum_{z < c} w z`` at each candidate ``c``, and
    the totals ``(sum w, sum w z)``. Collected: ``(values, weights, sketch, lo, hi)``, the
    values (and weights) in the window ``(lo, hi)`` (:func:`_choose_window`).
    """
    zs, ws, cw, cs = ranked
    lt = np.searchsorted(zs, query.cands, side="left")
    le = np.searchsorted(zs, query.cands, side="right")
    summed = (np.stack([cw[lt], cw[le], cs[lt]]), np.array([cw[-1], cs[-1]]))
    lo, hi, sketch = _choose_window(zs, query)
    if lo is None:
        return summed, (None, None, sketch, None, None)
    i0 = np.searchsorted(zs, lo, side="right")
    i1 = max(i0, np.searchsorted(zs, hi, side="left"))
    return summed, (zs[i0:i1], None if ws is None else ws[i0:i1], sketch, lo, hi)


def capped_sum_summary(v: np.ndarray, w: np.ndarray | None, query: Query):
    """One chunk's part of a :class:`CappedSumSearch` pass.

    Summed: ``h(c) = sum_i w_i clip(v_i - c, 0, 1)`` at each candidate (:func:`capped_sums`)
    and, for the rows without a breakpoint (``v_i`` or ``v_i - 1``) inside the chunk's window
    ``(lo, hi)``, the constant ``L0`` and slope ``L1`` of their contribution ``L0 - L1 tau``
    on ``[lo, hi]``, and the total weight. Collected: ``(v, w, sketch, lo, hi)`` of the rows
    with a breakpoint inside the window (at most ``cap`` of them; :func:`_choose_window` on
    the breakpoints).
    """
    ww = np.ones(v.size) if w is None else w
    low = v - 1.0
    breaks = np.concatenate([v, low])
    breaks = np.sort(breaks[(breaks > query.lo) & (breaks < query.hi)])
    lo, hi, sketch = _choose_window(breaks, query)
    h = capped_sums(v, query.cands, w)
    if lo is None:
        return (h, np.array([0.0, 0.0, ww.sum()])), (None, None, sketch, None, None)
    active = ((v > lo) & (v < hi)) | ((low > lo) & (low < hi))
    one = ~active & (low >= hi)
    lin = ~active & (v >= hi) & (low <= lo)
    linear = np.array([ww[one].sum() + ww[lin] @ v[lin], ww[lin].sum(), ww.sum()])
    return (h, linear), (v[active], None if w is None else w[active], sketch, lo, hi)


class _Search:
    """Client side of an exact selection over chunks: a bracket and the next query."""

    def __init__(self, n_chunks: int, hint: float | None = None, width: float | None = None,
                 cap: int | None = None):
        self.cap = max(64, RAW_BUDGET // max(n_chunks, 1)) if cap is None else cap
        self.done, self.passes = False, 0
        self.a, self.b = -np.inf, np.inf            # the answer lies in (a, b)
        if hint is not None and np.isfinite(hint):
            cands = hint + width * _HINT_GRID if width else np.array([hint])
            self.query = Query(-np.inf, np.inf, cands, self.cap, float(hint))
        else:
            self.query = Query(-np.inf, np.inf, np.empty(0), self.cap)

    def _covered(self, collected) -> bool:
        """Whether every chunk sent all its values in a window that holds the bracket."""
        return all(c[3] is not None and c[3] <= self.a and self.b <= c[4] for c in collected)

    @staticmethod
    def _raw(collected):
        """The values every chunk sent, and their weights (ones when unweighted)."""
        values = np.concatenate([c[0] for c in collected])
        weights = np.concatenate([np.ones(c[0].size) if c[1] is None else c[1]
                                  for c in collected])
        return values, weights

    def _next_query(self, collected) -> None:
        """The bracket as the next window; candidates from the pooled values and sketches."""
        pool = [p for c in collected for p in (c[0], c[2]) if p is not None]
        pool = np.sort(np.concatenate([np.empty(0)] + pool))
        pool = pool[(pool > self.a) & (pool < self.b)]
        if pool.size > _CANDIDATES:
            pool = pool[np.linspace(0, pool.size - 1, _CANDIDATES).astype(int)]
        cands = np.unique(pool)
        if cands.size == 0 and np.isfinite(self.a) and np.isfinite(self.b):
            cands = np.linspace(self.a, self.b, 66)[1:-1]
        cap = self.cap if self.passes < 8 else np.iinfo(np.int64).max   # never stalls
        self.query = Query(self.a, self.b, cands, cap)


class OrderStatisticSearch(_Search):
    """The weighted order statistic ``q = min{c : G(c) >= n}`` (``> n`` if ``strict``) of values
    spread over row chunks, ``G(c)`` the weight of the values ``<= c``, exactly, with
    ``G(<q)`` and ``S(<q)`` (the weighted sum of the values below ``q``).

    ``n`` may be given as a ``fraction`` of the total weight (known after the first pass).
    ``trimmed_sum`` is then the sum of the smallest values up to the weight ``n``.
    """

    def __init__(self, n_chunks, n=None, *, fraction=None, strict=False, hint=None,
                 width=None, cap=None):
        super().__init__(n_chunks, hint, width, cap)
        self.n, self.fraction, self.strict = n, fraction, strict
        self.ga = self.sa = 0.0                    # G(a) and sum of w z over z <= a

    def update(self, summed, collected) -> bool:
        (glt, gle, slt), (total_w, total_s) = summed
        self.passes += 1
        self.total_w, self.total_s = float(total_w), float(total_s)
        if self.n is None:
            self.n = self.fraction * self.total_w
        n, c = self.n, self.query.cands
        if self.total_w <= 0 or n >= self.total_w:        # every value is inside
            return self._finish(np.inf, self.total_w, self.total_s)
        if self.strict:
            hit, below, above = (glt <= n) & (n < gle), gle <= n, glt > n
        else:
            hit, below, above = (glt < n) & (n <= gle), gle < n, glt >= n
        if hit.any():
            j = int(np.argmax(hit))
            return self._finish(float(c[j]), float(glt[j]), float(slt[j]))
        if below.any():
            j = int(np.flatnonzero(below)[-1])
            if c[j] > self.a:
                self.a, self.ga = float(c[j]), float(gle[j])
                self.sa = float(slt[j] + c[j] * (gle[j] - glt[j]))
        if above.any():
            self.b = min(self.b, float(c[int(np.argmax(above))]))
        if self._covered(collected):
            return self._solve(*self._raw(collected))
        self._next_query(collected)
        return False

    def _solve(self, values, weights) -> bool:
        inside = (values > self.a) & (values < self.b)
        values, weights = values[inside], weights[inside]
        order = np.argsort(values, kind="stable")
        values, weights = values[order], weights[order]
        cum = self.ga + np.cumsum(weights)
        reached = cum > self.n if self.strict else cum >= self.n
        j = int(np.argmax(reached)) if reached.any() else values.size - 1
        q = float(values[j])
        below = values < q
        return self._finish(q, self.ga + float(weights[below].sum()),
                            self.sa + float(weights[below] @ values[below]))

    def _finish(self, value, w_below, s_below) -> bool:
        self.value, self.w_below, self.s_below = value, w_below, s_below
        self.done = True
        return True

    @property
    def trimmed_sum(self) -> float:
        """Sum of the smallest values up to the weight ``n`` (all of them if ``n >= sum w``)."""
        if not np.isfinite(self.value):
            return self.total_s
        return self.s_below + (self.n - self.w_below) * self.value


class CappedSumSearch(_Search):
    """The shift ``tau`` with ``sum_i w_i clip(v_i - tau, 0, 1) = n`` (the projection onto the
    capped simplex) of values spread over row chunks, exactly: on the linear piece of ``h``
    that holds the root, from the rows with a breakpoint inside the final bracket."""

    def __init__(self, n_chunks, n, total, hint=None, width=None):
        super().__init__(n_chunks, hint, width)
        self.n = n
        if n >= total:
            self._finish(-np.inf)
        elif n <= 0:
            self._finish(np.inf)

    def update(self, summed, collected) -> bool:
        h, (l0, l1, _) = summed
        self.passes += 1
        c, n = self.query.cands, self.n
        if (h == n).any():
            return self._finish(float(c[int(np.argmax(h == n))]))
        above, below = h > n, h < n
        if above.any():
            self.a = max(self.a, float(c[np.flatnonzero(above)[-1]]))
        if below.any():
            self.b = min(self.b, float(c[int(np.argmax(below))]))
        if self._covered(collected):
            v, w = self._raw(collected)
            points = np.concatenate([v, v - 1.0, [self.a, self.b]])
            points = np.unique(points[(points >= self.a) & (points <= self.b)
                                      & np.isfinite(points)])
            values = l0 - l1 * points + capped_sums(v, points, w)
            return self._finish(piecewise_root(points, values, n))
        self._next_query(collected)
        return False

    def _finish(self, tau) -> bool:
        self.value, self.done = float(tau), True
        return True


def run_search(chunks, search, func, *args):
    """Passes over the chunk states until ``search`` is done; returns it.

    ``chunks`` is a :class:`._state.StatefulRowChunks`; ``func(X_b, y_b, w_b, state_b, *args,
    query)`` returns the chunk's state, its summed part and its collected part of the search's
    current ``query`` (:func:`order_statistic_summary` or :func:`capped_sum_summary` of the
    chunk's values).
    """
    while not search.done:
        summed, collected = chunks.run(func, *args, search.query, data=False)
        search.update(summed, collected)
    return search


def hint_width(history: list) -> float | None:
    """The last change of a sequence of values (None before two of them): the ``width`` of
    the candidate grid of a search whose starting guess is the sequence's last value."""
    if len(history) < 2 or not np.all(np.isfinite(history[-2:])):
        return None
    change = abs(history[-1] - history[-2])
    return max(change, 1e-12 * max(abs(history[-1]), 1e-300))
