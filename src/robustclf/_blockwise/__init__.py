"""Blockwise primitives over the row chunks of dask collections: the library's one dask package.

Every method the library runs on data larger than memory is a sum over rows (an objective, a
gradient, a Hessian block) or a map over rows (a prediction, a corruption, a worst-case margin).
This package gives those shapes once, for every caller, one module a job:

* :mod:`._rows` -- :func:`is_dask_collection`; :func:`as_row_blocks` (a dask array or DataFrame
  as a 2-D dask array chunked along rows only, with its feature names); :class:`RowBlocks`
  (``X`` with its labels and row weights in the same row chunks) and its
  :meth:`RowBlocks.reduce`, a function of every chunk summed by a tree reduction
  (:func:`tree_sum`; one pass over the data per call, whatever the scheduler: threads,
  processes or a ``dask.distributed`` cluster);
* :mod:`._map` -- :func:`map_rows`, a lazy dask array of a function applied chunk by chunk
  (what dask-ml's ``ParallelPostFit`` does for ``predict``), and :func:`blockwise_method`, the
  decorator that gives an estimator's ``predict``/``decision_function``/``predict_proba``/
  ``transform`` that behaviour on dask input;
* :mod:`._state` -- :class:`StatefulRowChunks`, row chunks each with a state kept where the
  chunk is processed, for iterations whose row-level vectors must stay with the rows (RoLR's
  dual iterates); the same tree sum;
* :mod:`._score` -- labels and weights cut like the rows of ``X`` (:func:`align_rows`) and the
  accuracy counted per chunk (:func:`count_correct`, :class:`BlockwiseScoreMixin`, the
  estimators' ``score`` on dask input);
* :mod:`._select` -- exact order statistics and capped-sum roots of values spread over the
  chunks (medians, trimmed sums, the shift of a projection onto a capped simplex), refined by
  passes over the chunks without gathering the values.

The solvers never see dask: they receive a :class:`RowBlocks` (or :class:`StatefulRowChunks`)
and pass it functions of numpy (or scipy.sparse) chunks, the same per-row algebra as in memory.
"""

from ._map import blockwise_method, map_rows
from ._rows import SPLIT_EVERY, RowBlocks, add_parts, as_row_blocks, is_dask_collection, tree_sum
from ._score import BlockwiseScoreMixin, align_rows, count_correct
from ._state import StatefulRowChunks

__all__ = ["SPLIT_EVERY", "BlockwiseScoreMixin", "RowBlocks", "StatefulRowChunks", "add_parts",
           "align_rows", "as_row_blocks", "blockwise_method", "count_correct",
           "is_dask_collection", "map_rows", "tree_sum"]
