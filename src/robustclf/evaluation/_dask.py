"""Robustness curves on dask collections: scores computed chunk by chunk, ``X`` never gathered.

A dask ``X`` (array or DataFrame) is corrupted lazily (:mod:`robustclf.corruption._dask`) and
scored where its chunks live: the model's own in-memory ``predict`` runs on each corrupted chunk
(as dask-ml's ``ParallelPostFit`` does), so any fitted scikit-learn-compatible classifier works,
whether or not it knows dask. The corruption and the scoring of a level are one pass over the
data.

* The error rate (the default ``scoring``) and ``"accuracy"`` are sums over rows: each chunk
  returns its count of correct predictions and its length, added up by a tree reduction
  (:meth:`robustclf._blockwise.RowBlocks.reduce`). Nothing per row is gathered.
* Any other scorer (``"roc_auc"``, ``"neg_log_loss"``, ``"balanced_accuracy"``, a callable...)
  is not a sum over rows that this module knows how to split: the model's predictions, class
  probabilities or decision values are computed chunk by chunk and gathered as in-memory arrays
  of one row per sample (1-D, or one column per class), with the labels, and the scorer runs on
  them. ``X`` itself is never gathered.
"""

from __future__ import annotations

import functools

import numpy as np

from .._blockwise import as_row_blocks, is_dask_collection, map_rows
from .._blockwise._score import align_rows, count_correct

__all__: list[str] = []

#: Scorers computed from per-chunk counts of correct predictions.
COUNTED_SCORERS = ("error", "accuracy")


def _is_frame(X) -> bool:
    import dask.dataframe as dd

    return isinstance(X, dd.DataFrame)


def check_dask_data(X, y, *, X_name: str = "X", y_name: str = "y",
                    n_features: int | None = None):
    """A dask ``X`` and its labels ``y`` cut into the same row chunks.

    Returns ``(X, y)``: ``X`` a dask array chunked along rows only (columns joined), or the
    dask DataFrame unchanged; ``y`` a 1-D dask array with one chunk per row chunk (partition)
    of ``X``. A DataFrame's partition lengths are computed once here (one pass over its index)
    unless ``y`` already has one chunk per partition (:func:`robustclf._blockwise.align_rows`).
    """
    if _is_frame(X):
        n_columns = len(X.columns)
    else:
        X, _ = as_row_blocks(X, X_name)
        n_columns = X.shape[1]
    if n_features is not None and n_columns != n_features:
        raise ValueError(
            f"{X_name} has {n_columns} features, but {n_features} were expected "
            "(the number of features of the training data).")
    return X, align_rows(X, y, X_name=X_name, name=y_name)


def dask_score(scorer, name: str, model, X, y, **kwargs) -> float:
    """The value of ``scorer(model, X, y)`` for a dask ``X`` (see the module docstring).

    ``name`` is the metric's name: ``"error"`` and ``"accuracy"`` (without keyword arguments)
    are the accuracy from per-chunk counts; any other scorer gets the gathered per-row outputs
    of the model through :class:`_GatheredModel`.
    """
    if name in COUNTED_SCORERS and not kwargs:
        correct, n = count_correct(model, X, y)
        return float(correct / n) if n else float("nan")
    y = np.asarray(y.compute() if is_dask_collection(y) else y)
    return scorer(_GatheredModel(model), X, y, **kwargs)


class _GatheredModel:
    """A fitted model whose prediction methods, given a dask ``X``, run chunk by chunk and
    return the gathered in-memory result (one row per sample); everything else is the model's.

    It is what a scikit-learn scorer receives with a dask ``X``: the scorer reads
    ``classes_``, tags and ``predict``/``predict_proba``/``decision_function`` as usual.
    """

    _methods = ("predict", "predict_proba", "predict_log_proba", "decision_function")

    def __init__(self, model):
        self._model = model

    def __getattr__(self, attr):
        value = getattr(self._model, attr)
        if attr not in self._methods:
            return value

        @functools.wraps(value)  # scikit-learn's scorers read the method's __name__
        def gathered(X):
            return self._gathered(attr, value, X)

        return gathered

    def __sklearn_tags__(self):
        return self._model.__sklearn_tags__()

    def _gathered(self, attr, method, X):
        if not is_dask_collection(X):
            return method(X)
        classes = np.asarray(self._model.classes_)
        if attr == "predict":
            return map_rows(method, X, dtype=classes.dtype).compute()
        if attr == "decision_function" and classes.size == 2:
            return map_rows(method, X, dtype=np.float64).compute()
        return map_rows(method, X, dtype=np.float64, n_columns=classes.size).compute()
