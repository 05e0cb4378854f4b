"""Timing of the benchmark cases, shared by every oracle module's ``bench_cases``."""

from __future__ import annotations

import time
import warnings

__all__ = ["timed", "fit"]


def timed(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, its wall time in seconds and the messages of its warnings."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, time.perf_counter() - start, [str(w.message) for w in caught]


def fit(estimator, X, y):
    """``estimator.fit(X, y)`` (a function, for :func:`timed`)."""
    return estimator.fit(X, y)
