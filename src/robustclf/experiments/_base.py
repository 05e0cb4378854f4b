"""What an experiment returns and how experiments are registered.

An experiment is a function ``run(*, fast, random_state, n_jobs, data_dir) -> ExperimentResult``.
It computes tidy DataFrames and never prints or writes; :mod:`robustclf.cli` writes CSV, PNG and a
markdown report from the result (:mod:`robustclf.report`). A paper's experiment puts the paper's
reported numbers in ``CurveResult.paper`` so that the report shows them beside ours.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["CurveResult", "ExperimentResult", "Experiment", "register_experiment",
           "experiments", "get_experiment"]


@dataclass
class CurveResult:
    """One figure of an experiment: a tidy curve frame and how to present it.

    Attributes
    ----------
    name : str
        File stem of the CSV and PNG.
    title, xlabel : str
        Figure title and x-axis label.
    frame : pandas.DataFrame
        Columns of :func:`robustclf.evaluation.robustness_curve` (at least estimator, level,
        repeat, error).
    intro : str
        Markdown paragraph shown above the figure (protocol, what differs from the paper).
    paper : pandas.DataFrame or None
        The paper's reported numbers in the table layout of :func:`robustclf.report.curve_table`
        (estimators as rows, levels as columns), shown beside ours.
    spread : {"std", "sem"}
        What the ± in the table means.
    ylabel : str
        What the ``error`` column holds (plot label and table caption), when it is not the test
        error (e.g. a parameter error or an improvement over a baseline).
    """

    name: str
    title: str
    xlabel: str
    frame: pd.DataFrame
    intro: str = ""
    paper: pd.DataFrame | None = None
    spread: str = "std"
    ylabel: str = "test error"


@dataclass
class ExperimentResult:
    """Everything an experiment produced: a title, a preamble and its figures."""

    title: str
    preamble: str
    curves: list[CurveResult] = field(default_factory=list)


@dataclass(frozen=True)
class Experiment:
    """A named, runnable experiment (``robustclf reproduce NAME``)."""

    name: str
    paper: str
    description: str
    run: Callable[..., ExperimentResult]


_EXPERIMENTS: dict[str, Experiment] = {}


def register_experiment(experiment: Experiment) -> Experiment:
    """Add an experiment to the registry (its name must be new)."""
    if experiment.name in _EXPERIMENTS:
        raise ValueError(f"an experiment called {experiment.name!r} is already registered.")
    _EXPERIMENTS[experiment.name] = experiment
    return experiment


def experiments() -> list[Experiment]:
    """All registered experiments, in registration order."""
    return list(_EXPERIMENTS.values())


def get_experiment(name: str) -> Experiment:
    """The experiment called ``name``; a ``ValueError`` lists the known names otherwise."""
    if name not in _EXPERIMENTS:
        known = ", ".join(_EXPERIMENTS) or "none yet"
        raise ValueError(f"unknown experiment {name!r}; known experiments: {known}.")
    return _EXPERIMENTS[name]
