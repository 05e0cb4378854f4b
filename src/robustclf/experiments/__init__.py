"""Experiments: the demo and the papers' reproductions, each returning tidy results.

A paper module in this package (e.g. ``dekel_shamir.py``) defines ``run_*`` functions returning
:class:`ExperimentResult` and registers them with :func:`register_experiment` at import time;
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
from .demo import run_demo

__all__ = [
    "CurveResult",
    "Experiment",
    "ExperimentResult",
    "experiments",
    "get_experiment",
    "register_experiment",
    "run_demo",
]

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_") and _module.name != "demo":
        importlib.import_module(f"{__name__}.{_module.name}")
