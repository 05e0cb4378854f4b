"""An interrupted ``robustclf benchmark`` resumes where it stopped and ends with the results of
an uninterrupted run, without computing its finished cells again (issue 19 point 4)."""

import pandas as pd
import pytest

from robustclf.cli import main
from robustclf.experiments import benchmark
from robustclf.experiments._base import CellStore

CELLS = ("benchmark_data", "cells", "fast-seed0")
TIMES = ["fit_seconds", "select_seconds", "predict_seconds"]


@pytest.fixture
def selections(monkeypatch):
    """Two cheap models (one linear, so that every threat has a cell), and a record of the
    model selections run: one per threat cell, two in the outlier cell."""
    entries = benchmark.estimator_entries
    monkeypatch.setattr(benchmark, "estimator_entries", lambda **kw: [
        e for e in entries(**kw) if e.name in ("logistic", "imputed_logistic")])
    calls, select = [], benchmark._select
    state = {"interrupt_at": None}

    def recording(*args, **kwargs):
        calls.append(args[2])   # the scorer of the threat
        if len(calls) == state["interrupt_at"]:
            raise KeyboardInterrupt
        return select(*args, **kwargs)

    monkeypatch.setattr(benchmark, "_select", recording)
    return calls, state


def _run(out, capsys, *extra):
    code = main(["benchmark", "--fast", "--output", str(out), "--no-progress", *extra])
    return code, capsys.readouterr().err


def _frame(out):
    return pd.read_csv(out / "benchmark_data" / "benchmark.csv")


def test_an_interrupted_benchmark_resumes_without_recomputing_finished_cells(
        tmp_path, capsys, selections):
    calls, state = selections
    code, _ = _run(tmp_path / "whole", capsys)
    assert code == 0
    n_selections = len(calls)
    assert n_selections == 5      # random deletion, greedy, group deletion, outliers (2)

    out = tmp_path / "interrupted"
    calls.clear()
    state["interrupt_at"] = 2     # in the second cell, after the first finished
    code, err = _run(out, capsys)
    assert code == 130 and "interrupted" in err and "Traceback" not in err
    cells = out.joinpath(*CELLS)
    assert "rerun the same command to resume" in err and str(cells) in err
    assert not (out / "benchmark.md").exists()
    kept = sorted(p.name for p in cells.iterdir())
    assert kept == ["label_copies-split0-random_deletion.csv"]
    first = (cells / kept[0]).read_bytes()

    calls.clear()
    state["interrupt_at"] = None
    code, err = _run(out, capsys)
    assert code == 0 and "resuming" in err
    assert len(calls) == n_selections - 1       # the finished cell was read, not recomputed
    assert (cells / kept[0]).read_bytes() == first
    assert len(list(cells.iterdir())) == 4
    assert not (tmp_path / "interrupted-2").exists()
    assert "resumed: its last run computed 3 of the 4 cells" in (out / "benchmark.md").read_text()
    assert "resumed:" not in (tmp_path / "whole" / "benchmark.md").read_text()
    whole, resumed = _frame(tmp_path / "whole"), _frame(out)
    pd.testing.assert_frame_equal(whole.drop(columns=TIMES), resumed.drop(columns=TIMES))
    # the resumed rows of the first cell carry the interrupted run's own timings
    first_cell = pd.read_csv(cells / kept[0])
    assert resumed.head(len(first_cell))[TIMES].equals(first_cell[TIMES])


def test_force_recomputes_every_cell_in_place(tmp_path, capsys, selections):
    calls, _ = selections
    out = tmp_path / "out"
    assert _run(out, capsys)[0] == 0
    (out / "benchmark.md").write_text("the previous page")
    calls.clear()
    assert _run(out, capsys, "--force")[0] == 0
    assert len(calls) == 5                  # every cell again, the page overwritten in place
    assert (out / "benchmark.md").read_text() != "the previous page"
    assert not (tmp_path / "out-2").exists()


def test_cells_of_another_seed_are_not_reused(tmp_path, capsys, selections):
    calls, _ = selections
    out = tmp_path / "out"
    assert _run(out, capsys)[0] == 0
    (out / "benchmark.md").unlink()         # as if interrupted before the page
    calls.clear()
    assert _run(out, capsys, "--seed", "1")[0] == 0
    assert len(calls) == 5
    assert sorted(p.name for p in (out / "benchmark_data" / "cells").iterdir()) == [
        "fast-seed0", "fast-seed1"]


def test_cell_store_reads_back_exactly_what_it_wrote(tmp_path):
    frame = pd.DataFrame({"estimator": ["a", "b"], "error": [0.1 + 0.2, 1 / 3],
                          "scoring": [None, None]})
    store = CellStore(tmp_path)
    written = store("x/y z", lambda: frame)
    again = CellStore(tmp_path)("x/y z", lambda: pytest.fail("a kept cell was recomputed"))
    pd.testing.assert_frame_equal(written, again)
    assert written["error"].tolist() == [0.1 + 0.2, 1 / 3]
    assert [p.name for p in tmp_path.iterdir()] == ["x_y_z.csv"]


# --- robustclf reproduce NAME ------------------------------------------------------------------

REPRODUCE_CELLS = ("rolr-simulation", "cells", "fast-seed0")


@pytest.fixture
def simulation_tasks(monkeypatch):
    """Record the simulation cells computed by rolr-simulation; interrupt at a chosen one."""
    from robustclf.experiments import feng

    calls, task = [], feng._simulation_task
    state = {"interrupt_at": None}

    def recording(*args, **kwargs):
        calls.append(args[:3])          # task, level, repeat
        if len(calls) == state["interrupt_at"]:
            raise KeyboardInterrupt
        return task(*args, **kwargs)

    monkeypatch.setattr(feng, "_simulation_task", recording)
    return calls, state


def _reproduce(out, capsys, *extra):
    code = main(["reproduce", "rolr-simulation", "--fast", "--n-jobs", "1", "--output", str(out),
                 *extra])
    return code, capsys.readouterr().err


def _curves(folder):
    return {p.name: pd.read_csv(p).drop(columns=["fit_seconds", "predict_seconds"],
                                        errors="ignore")
            for p in sorted(folder.glob("*.csv"))}


def test_an_interrupted_reproduction_resumes_without_recomputing_finished_cells(
        tmp_path, capsys, simulation_tasks):
    calls, state = simulation_tasks
    assert _reproduce(tmp_path / "whole", capsys)[0] == 0
    n_cells = len(calls)
    assert n_cells == 12                # 2 tasks x 3 levels x 2 repeats

    out = tmp_path / "interrupted"
    calls.clear()
    state["interrupt_at"] = 5
    code, err = _reproduce(out, capsys)
    cells = out.joinpath(*REPRODUCE_CELLS)
    assert code == 130 and "rerun the same command to resume" in err and str(cells) in err
    assert not (out / "rolr-simulation" / "report.md").exists()
    kept = {p.name: p.read_bytes() for p in cells.iterdir()}
    assert len(kept) == 4               # the four cells that finished, nothing half-written

    calls.clear()
    state["interrupt_at"] = None
    code, err = _reproduce(out, capsys)
    assert code == 0 and "resuming" in err
    assert len(calls) == n_cells - 4    # the finished cells were read, not recomputed
    assert all((cells / name).read_bytes() == data for name, data in kept.items())
    whole = _curves(tmp_path / "whole" / "rolr-simulation")
    resumed = _curves(out / "rolr-simulation")
    assert whole.keys() == resumed.keys() and len(whole) >= 2
    for name in whole:
        pd.testing.assert_frame_equal(whole[name], resumed[name])
    assert not (tmp_path / "interrupted-2").exists()


def test_reproduce_force_recomputes_every_cell(tmp_path, capsys, simulation_tasks):
    calls, _ = simulation_tasks
    out = tmp_path / "out"
    assert _reproduce(out, capsys)[0] == 0
    calls.clear()
    code, err = _reproduce(out, capsys, "--force")
    assert code == 0 and "resuming" not in err
    assert len(calls) == 12
    assert not (tmp_path / "out-2").exists()


def _finished(cells):
    return {p.name: p.read_bytes() for p in cells.glob("[!.]*.pkl")}


def test_a_killed_reproduction_resumes_with_the_same_results(tmp_path):
    """A real process killed (SIGKILL, no cleanup) once two cells are kept, then rerun."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from robustclf.experiments.chechik import method_grids

    command = [sys.executable, "-m", "robustclf", "reproduce", "chechik-structural", "--fast",
               "--n-jobs", "1"]        # generated data: runs without the shared data sets
    n_cells = 4 * len(method_grids(fast=True))   # 2 curves x 2 folds, one cell per method
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = tmp_path / "killed"
    cells = out / "chechik-structural" / "cells" / "fast-seed0"
    proc = subprocess.Popen([*command, "--output", str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if cells.is_dir() and len(_finished(cells)) >= 2:
                break
            time.sleep(0.01)
        if proc.poll() is not None:
            assert proc.returncode == 0, proc.stderr.read()
            pytest.skip("the run finished before it could be killed")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    kept = _finished(cells)              # a cell being written is a hidden temporary file
    assert 2 <= len(kept) < n_cells
    rerun = subprocess.run([*command, "--output", str(out)], env=env, capture_output=True,
                           text=True, check=True)
    assert "resuming" in rerun.stderr
    assert all((cells / name).read_bytes() == data for name, data in kept.items())
    assert len(_finished(cells)) == n_cells == 32
    subprocess.run([*command, "--output", str(tmp_path / "whole")], env=env,
                   capture_output=True, check=True)
    whole = _curves(tmp_path / "whole" / "chechik-structural")
    resumed = _curves(out / "chechik-structural")
    assert whole.keys() == resumed.keys() and whole
    for name in whole:
        pd.testing.assert_frame_equal(whole[name], resumed[name])


def test_parallel_cells_keep_each_result_as_it_finishes(tmp_path):
    from joblib import delayed

    from robustclf.experiments._base import keeping_cells

    def boom(i):
        if i == 3:
            raise KeyboardInterrupt
        return {"i": i}

    with pytest.raises(KeyboardInterrupt), keeping_cells(tmp_path) as store:
        store.parallel([(f"c{i}", delayed(boom)(i)) for i in range(5)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["01-c0.pkl", "01-c1.pkl", "01-c2.pkl"]
    with keeping_cells(tmp_path) as store:
        values = store.parallel([(f"c{i}", delayed(dict)(i=i)) for i in range(5)])
    assert values == [{"i": i} for i in range(5)]
    assert store.reused == ["01-c0", "01-c1", "01-c2"] and store.computed == ["01-c3", "01-c4"]
    with pytest.raises(ValueError, match="unique"):
        store.parallel([("a", delayed(dict)()), ("a", delayed(dict)())])


def test_every_experiment_parallelises_through_the_cell_store():
    """A new experiment that calls joblib.Parallel itself would not resume: its work must go
    through ``active_cells().parallel`` (or ``active_cells()(key, compute)``)."""
    from pathlib import Path

    import robustclf.experiments as package

    offenders = [p.name for p in Path(package.__file__).parent.glob("*.py")
                 if p.name != "_base.py" and "Parallel(" in p.read_text()]
    assert offenders == []


@pytest.mark.parametrize("name", [
    "chechik-mcar", "chechik-votes", "chechik-fair", "dekel-sanity", "dekel-greedy",
    "featureboost-votes", "featureboost-threshold", "rolr-correlated",
    "dropout-amazon-explicit"])
def test_reproductions_keep_cells_and_resume_from_them(name, tmp_path):
    """Every kind of cell (fold, repeat, trial, grid point, greedy fold) is kept and reused."""
    import warnings

    from robustclf.experiments import get_experiment
    from robustclf.experiments._base import keeping_cells

    run = get_experiment(name).run
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with keeping_cells(tmp_path) as first:
                a = run(fast=True, random_state=0, n_jobs=1, data_dir=None)
        except FileNotFoundError as exc:
            pytest.skip(str(exc))
        with keeping_cells(tmp_path) as again:
            b = run(fast=True, random_state=0, n_jobs=1, data_dir=None)
    assert first.computed and not first.reused
    assert again.reused == first.computed and not again.computed
    for x, y in zip(a.curves, b.curves, strict=True):
        pd.testing.assert_frame_equal(x.frame, y.frame)
