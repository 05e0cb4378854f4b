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
