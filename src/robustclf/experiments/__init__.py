"""Experiments: the demo and the papers' reproductions, each returning tidy results.

The demo (``robustclf demo``) and the benchmark (``robustclf benchmark``, :mod:`.benchmark`)
have commands of their own. A paper module in this package (e.g. ``dekel_shamir.py``) defines
``run_*`` functions returning :class:`ExperimentResult` and registers them with
:func:`register_experiment` at import time;
every module of the package is imported here, so adding a file is all it takes for
``robustclf reproduce NAME`` and ``robustclf list`` to know it.
"""

import importlib
import pkgutil

from ._base import (
    CurveResult,
    Experiment,
    ExperimentResult,
    experiments,
    get_experiment,
    register_experiment,
)
from .benchmark import run_benchmark
from .demo import run_demo

__all__ = [
    "CurveResult",
    "Experiment",
    "ExperimentResult",
    "experiments",
    "get_experiment",
    "register_experiment",
    "run_benchmark",
    "run_demo",
]

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_") and _module.name not in ("demo", "benchmark"):
        importlib.import_module(f"{__name__}.{_module.name}")
