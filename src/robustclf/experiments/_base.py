"""What an experiment returns and how experiments are registered.

An experiment is a function ``run(*, fast, random_state, n_jobs, data_dir) -> ExperimentResult``.
It computes tidy DataFrames and never prints or writes; :mod:`robustclf.cli` writes CSV, PNG and a
markdown report from the result (:mod:`robustclf.report`). A paper's experiment puts the paper's
reported numbers in ``CurveResult.paper`` so that the report shows them beside ours.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["CurveResult", "ExperimentResult", "Experiment", "register_experiment",
           "experiments", "get_experiment", "CellStore"]


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


class CellStore:
    """Keeps the finished cells of a long run, one CSV each, so that an interrupted run resumes.

    A cell is a unit of work that returns a tidy frame (e.g. one threat on one split of the
    benchmark). Calling the store with a key and the function computing the cell returns the
    kept frame when ``folder/<key>.csv`` exists, and otherwise computes the cell and writes its
    CSV atomically (:func:`robustclf.report.write_csv`) before returning it. Either way the
    frame is read back from the CSV, so a resumed run returns exactly what an uninterrupted one
    does. The folder must be specific to the run's settings (mode, seed): cells are found by
    key only.

    Parameters
    ----------
    folder : str or path-like or None
        Where the cells are kept; ``None`` keeps nothing (every cell is computed).

    Attributes
    ----------
    computed, reused : list of str
        The keys computed by this store and those read back from an earlier run.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from robustclf.experiments._base import CellStore
    >>> folder = tempfile.mkdtemp()
    >>> first = CellStore(folder)
    >>> first("a", lambda: pd.DataFrame({"error": [0.25]}))["error"].tolist()
    [0.25]
    >>> again = CellStore(folder)    # a rerun: the finished cell is not computed again
    >>> again("a", lambda: 1 / 0)["error"].tolist(), again.reused
    ([0.25], ['a'])
    """

    def __init__(self, folder=None):
        self.folder = None if folder is None else Path(folder)
        self.computed: list[str] = []
        self.reused: list[str] = []

    def __call__(self, key: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """The frame of cell ``key``: kept from an earlier run, or ``compute()`` (then kept)."""
        if self.folder is None:
            self.computed.append(key)
            return compute()
        from ..report import write_csv

        path = self.folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', key)}.csv"
        if path.is_file():
            self.reused.append(key)
        else:
            write_csv(compute(), path)
            self.computed.append(key)
        return pd.read_csv(path)
