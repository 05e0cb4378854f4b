"""What an experiment returns and how experiments are registered.

An experiment is a function ``run(*, fast, random_state, n_jobs, data_dir) -> ExperimentResult``.
It computes tidy DataFrames and never prints or writes; :mod:`robustclf.cli` writes CSV, PNG and a
markdown report from the result (:mod:`robustclf.report`). A paper's experiment puts the paper's
reported numbers in ``CurveResult.paper`` so that the report shows them beside ours.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from joblib import Parallel

__all__ = ["CurveResult", "ExperimentResult", "Experiment", "register_experiment",
           "experiments", "get_experiment", "CellStore", "keeping_cells",
           "active_cells"]


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
    """Keeps the finished cells of a long run, one file each, so that an interrupted run resumes.

    A cell is a unit of work: one threat on one split of the benchmark, one fold or repeat of a
    reproduction. Calling the store with a key and the function computing the cell returns the
    kept value when the cell's file exists, and otherwise computes the cell and writes its file
    atomically before returning it. A data frame is kept as a CSV (``folder/<key>.csv``, written
    by :func:`robustclf.report.write_csv`; readable, but it keeps only what a CSV holds) unless
    ``csv_frames=False``; any other value (a tuple of errors and chosen parameters, rows holding
    arrays) as a pickle (``folder/<key>.pkl``). Either way the value is read back from its file,
    so a resumed run returns exactly what an uninterrupted one does.
    The folder must be specific to the run's settings (experiment, mode, seed): cells are found
    by key only, so a run with other data or code must not share it (``--force`` recomputes).

    Parameters
    ----------
    folder : str or path-like or None
        Where the cells are kept; ``None`` keeps nothing (every cell is computed).
    csv_frames : bool, default=True
        Keep data frames as CSV files; ``False`` pickles them too (then a kept frame is the
        computed one, dtypes and all).

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
    >>> first("b", lambda: (0.5, {"C": 1.0}))
    (0.5, {'C': 1.0})
    >>> again = CellStore(folder)    # a rerun: the finished cells are not computed again
    >>> again("a", lambda: 1 / 0)["error"].tolist(), again("b", lambda: 1 / 0), again.reused
    ([0.25], (0.5, {'C': 1.0}), ['a', 'b'])
    """

    def __init__(self, folder=None, *, csv_frames: bool = True):
        self.folder = None if folder is None else Path(folder)
        self.csv_frames = csv_frames
        self.computed: list[str] = []
        self.reused: list[str] = []
        self._batches = 0

    def _path(self, key: str, suffix: str) -> Path:
        return self.folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', key)}{suffix}"

    def _kept(self, key: str) -> Path | None:
        for suffix in (".csv", ".pkl"):
            if (path := self._path(key, suffix)).is_file():
                return path
        return None

    def _write(self, key: str, value) -> Path:
        from ..report import atomic_path, write_csv

        if self.csv_frames and isinstance(value, pd.DataFrame):
            return write_csv(value, self._path(key, ".csv"))
        with atomic_path(self._path(key, ".pkl")) as tmp:
            tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        return self._path(key, ".pkl")

    @staticmethod
    def _read(path: Path):
        if path.suffix == ".csv":
            return pd.read_csv(path)
        return pickle.loads(path.read_bytes())

    def __call__(self, key: str, compute: Callable[[], object]):
        """The value of cell ``key``: kept from an earlier run, or ``compute()`` (then kept)."""
        if self.folder is None:
            self.computed.append(key)
            return compute()
        path = self._kept(key)
        if path is not None:
            self.reused.append(key)
        else:
            path = self._write(key, compute())
            self.computed.append(key)
        return self._read(path)

    def parallel(self, calls: Iterable[tuple[str, tuple]], n_jobs=None) -> list:
        """Run joblib ``delayed`` calls as cells: the kept ones are read, the others computed.

        The missing cells run through :class:`joblib.Parallel` and each is written as soon as
        it returns, so an interruption loses only the cells still running. Every call of this
        method within a run is numbered, and the number prefixes its keys, so that two batches
        of one experiment may use the same labels.

        Parameters
        ----------
        calls : iterable of (str, delayed call)
            A label unique within the batch (e.g. ``"fold2-LinearSVC"``) and
            ``joblib.delayed(function)(*args)``.
        n_jobs : int or None, default=None
            Passed to :class:`joblib.Parallel`.

        Returns
        -------
        list
            The results in the order of ``calls``.
        """
        calls = list(calls)
        labels = [label for label, _ in calls]
        if len(set(labels)) != len(labels):
            raise ValueError(f"cell labels must be unique within a batch, got {labels}.")
        self._batches += 1
        keys = [f"{self._batches:02d}-{label}" for label in labels]
        if self.folder is None:
            self.computed.extend(keys)
            return list(Parallel(n_jobs=n_jobs)(call for _, call in calls))
        kept = [self._kept(key) is not None for key in keys]
        missing = [i for i, is_kept in enumerate(kept) if not is_kept]
        self.reused.extend(key for key, is_kept in zip(keys, kept, strict=True) if is_kept)
        done = Parallel(n_jobs=n_jobs, return_as="generator")(calls[i][1] for i in missing)
        for i, value in zip(missing, done, strict=True):
            self._write(keys[i], value)
            self.computed.append(keys[i])
        return [self._read(self._kept(key)) for key in keys]


_ACTIVE_STORE: ContextVar[CellStore] = ContextVar("robustclf_cell_store")


@contextmanager
def keeping_cells(folder) -> Iterator[CellStore]:
    """Within the block, experiments keep their finished cells in ``folder``.

    ``robustclf reproduce NAME`` runs the experiment inside this block, so that an
    interrupted run, rerun with the same command, reads its finished cells instead of
    computing them again (:class:`CellStore`). Every cell is pickled (``csv_frames=False``),
    so that a resumed experiment sees the very values an uninterrupted one computed.

    Parameters
    ----------
    folder : str or path-like or None
        Where the cells are kept; ``None`` keeps nothing.

    Yields
    ------
    CellStore
        The store the experiments use (its ``computed`` and ``reused`` say what happened).

    Examples
    --------
    >>> import tempfile
    >>> from joblib import delayed
    >>> from robustclf.experiments._base import active_cells, keeping_cells
    >>> folder = tempfile.mkdtemp()
    >>> with keeping_cells(folder) as store:
    ...     active_cells().parallel([("a", delayed(pow)(2, 3)), ("b", delayed(pow)(3, 2))])
    [8, 9]
    >>> store.computed
    ['01-a', '01-b']
    """
    token = _ACTIVE_STORE.set(CellStore(folder, csv_frames=False))
    try:
        yield _ACTIVE_STORE.get()
    finally:
        _ACTIVE_STORE.reset(token)


def active_cells() -> CellStore:
    """The store of the enclosing :func:`keeping_cells` block (one keeping nothing outside).

    Examples
    --------
    >>> from robustclf.experiments._base import active_cells
    >>> active_cells().folder is None
    True
    """
    return _ACTIVE_STORE.get(CellStore())
