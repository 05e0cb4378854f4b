"""Row chunks that keep a state where they are processed: iterative solvers over dask data.

:meth:`RowBlocks.reduce <._rows.RowBlocks.reduce>` serves a solver whose every step is a sum over
rows of a function of ``X`` and ``d``-sized vectors. An iteration whose row-level vectors
cannot travel to the client (the dual iterates of RoLR, one value per row) keeps them per chunk
instead: :class:`StatefulRowChunks` runs *passes*, each calling a function on every chunk with
the chunk's state and returning the new state (kept where the chunk lives), a part summed over
chunks by the same tree reduction (:func:`._rows.tree_sum`, :func:`._rows.add_parts`) and a
small part collected per chunk.
"""

from __future__ import annotations

from ._rows import SPLIT_EVERY, RowBlocks, add_parts, tree_sum

__all__ = ["StatefulRowChunks"]


class _Box:
    """Hides a value from dask's graph parsing (a literal task argument, never traversed)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _unbox(state):
    """A chunk's state: boxed (local schedulers), the output of a distributed pass (a tuple
    whose first entry is the state), or a state dict set directly."""
    if isinstance(state, _Box):
        return state.value
    return state[0] if isinstance(state, tuple) else state


def _call_chunk(func, Xb, yb, wb, state, args):
    """A chunk task: ``func(X_b, y_b, w_b, state_b, *args)``."""
    return func(Xb, yb, wb, _unbox(state), *args.value)


def _call_state(func, state, args):
    """A task on a chunk's state alone."""
    return func(_unbox(state), *args.value)


def _sum_outputs(*outputs):
    """First level of the tree sum: the summed parts of chunk outputs."""
    return add_parts(*[out[1] for out in outputs])


def _finish_pass(total, *outputs):
    """The pass's result: the sum and the collected part of every chunk."""
    return total, [out[2] for out in outputs]


def _is_distributed() -> bool:
    """Whether the active scheduler is a ``dask.distributed`` client."""
    from dask.base import get_scheduler

    client = getattr(get_scheduler(), "__self__", None)
    return client is not None and type(client).__module__.startswith("distributed")


#: The inputs a pass reads for each value of ``data``.
_READS = {True: ("X", "y", "w"), "labels": ("y", "w"), False: ()}


class StatefulRowChunks:
    """The row chunks of a dask fit, each with a state kept where the chunk is processed.

    A *pass* calls ``func(X_b, y_b, w_b, state_b, *args)`` on every chunk ``b``; it returns the
    chunk's new state (e.g. a dict of row-level arrays, kept when ``update=True``), a part to be
    summed over chunks (arrays or tuples of arrays, added by a tree reduction) and a part
    collected per chunk (small). Only the sums and the collected parts reach the client.
    ``data=False`` passes read the states only (no chunk of ``X`` is touched), ``data="labels"``
    the labels and weights only.

    On a ``dask.distributed`` cluster the states stay on the workers (persisted futures); the
    local schedulers (threads, processes, synchronous) keep them in this process. Each pass
    is one graph of ``n_chunks`` tasks plus the tree sum, computed by the active scheduler.

    Parameters
    ----------
    data : RowBlocks
        ``X`` (a dask array), labels and weights in the same row chunks.

    Attributes
    ----------
    states : list
        The state of every chunk (None before the first updating pass).
    sizes : tuple of int
        Rows per chunk.
    n_passes, n_data_passes : int
        Passes run so far, and how many of them read ``X``.
    """

    def __init__(self, data: RowBlocks):
        columns = zip(*data.blocks, strict=True)
        self.keys, self.graphs, self.delayed = {}, {}, {}
        for name, column in zip(("X", "y", "w"), columns, strict=True):
            self.delayed[name] = list(column)
            self.keys[name] = [None if d is None else d.key for d in column]
            self.graphs[name] = {} if column[0] is None else dict(column[0].__dask_graph__())
        self.sizes = tuple(int(c) for c in data.X.chunks[0])
        self.states = [None] * len(self.sizes)
        self.n_passes = self.n_data_passes = 0

    @property
    def n_chunks(self) -> int:
        return len(self.sizes)

    def run(self, func, *args, data: bool | str = True, update: bool = False):
        """One pass: returns the summed part and the list of collected parts."""
        from dask.base import get_scheduler

        if _is_distributed():
            result = self._run_distributed(func, args, data, update)
        else:
            import dask.threaded

            result = self._run_local(get_scheduler() or dask.threaded.get, func, args, data,
                                     update)
        self.n_passes += 1
        self.n_data_passes += data is True
        return result

    def map_states(self, func, per_chunk):
        """``func(state_b, *per_chunk[b], size_b)`` for every chunk, as persisted delayed
        values (kept on the workers of a cluster): per-chunk results built from the states."""
        import dask
        from dask import delayed

        task = delayed(_call_state, pure=False)
        distributed = _is_distributed()
        return dask.persist(*[
            task(func, state if distributed else _Box(state), _Box((*args, size)))
            for state, args, size in zip(self.states, per_chunk, self.sizes, strict=True)],
            optimize_graph=False)

    def _inputs(self, source, data) -> list:
        """Per chunk, ``(X_b, y_b, w_b)`` from ``source`` (keys or delayed values), None for
        the inputs the pass does not read."""
        names = _READS[data]
        return [[source[n][b] if n in names else None for n in ("X", "y", "w")]
                for b in range(self.n_chunks)]

    def _run_local(self, get, func, args, data, update):
        """The pass as one dask graph of the chunk tasks (states boxed in) and the tree sum."""
        from uuid import uuid4

        token = uuid4().hex
        dsk = {}
        for name in _READS[data]:
            dsk.update(self.graphs[name])
        shared = _Box(args)
        outs = []
        for b, (x, y, w) in enumerate(self._inputs(self.keys, data)):
            key = (f"row-chunk-{token}", b)
            dsk[key] = (_call_chunk, func, x, y, w, _Box(self.states[b]), shared)
            outs.append(key)

        def combine(level, i, group):
            key = (f"row-sum-{token}-{level}", i)
            dsk[key] = (_sum_outputs if level == 0 else add_parts, *group)
            return key

        final = f"row-pass-{token}"
        dsk[final] = (_finish_pass, tree_sum(outs, combine, SPLIT_EVERY), *outs)
        results = get(dsk, [*outs, final] if update else [final])
        if update:
            self.states = [out[0] for out in results[:-1]]
        return results[-1]

    def _run_distributed(self, func, args, data, update):
        """The pass as delayed tasks on the persisted states; new states persisted."""
        import dask
        from dask import delayed

        shared = delayed(_Box(args), pure=False)
        task = delayed(_call_chunk, pure=False)
        outs = [task(func, x, y, w, state, shared)
                for (x, y, w), state in zip(self._inputs(self.delayed, data), self.states,
                                            strict=True)]
        first, add = delayed(_sum_outputs, pure=False), delayed(add_parts, pure=False)
        total = tree_sum(outs, lambda level, i, group: (first if level == 0 else add)(*group),
                         SPLIT_EVERY)
        final = delayed(_finish_pass, pure=False)(total, *outs)
        if not update:
            return dask.compute(final, optimize_graph=False)[0]
        *states, final = dask.persist(*outs, final, optimize_graph=False)
        self.states = states
        return final.compute(optimize_graph=False)
