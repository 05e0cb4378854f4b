"""Experiments: the demo and the papers' reproductions, each returning tidy results.

A paper module defines ``run_*`` functions returning :class:`ExperimentResult` and registers them
with :func:`register_experiment`; ``robustclf reproduce NAME`` runs them.
"""

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
