"""The command line fails in one line with the right exit code, and never loses a report.

Exit codes: 2 for a usage error (bad flag or value, unreadable input, unusable output folder),
1 for a run that failed, 130 when interrupted; ``--debug`` shows the traceback instead.
"""

import gzip
import os
import subprocess
import sys

import pandas as pd
import pytest

import robustclf.evaluation
from robustclf import report
from robustclf.cli import main


@pytest.fixture
def table(tmp_path):
    """A small numeric CSV with a binary label, as a user has it."""
    frame = pd.DataFrame({"a": [i / 4 for i in range(40)], "b": [i % 7 + 0.5 for i in range(40)],
                          "y": [i % 2 for i in range(40)]})
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def _curve(data, *extra):
    return ["curve", "--data", str(data), "--target", "y", "--estimator", "logistic",
            "--corruption", "random_deletion", "--levels", "0", "--repeats", "1",
            "--no-progress", *extra]


def _code(argv, capsys):
    """Exit code and stderr of ``main(argv)``; argparse's own errors exit via SystemExit."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _assert_one_line(err, command, *words):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"robustclf {command}: error: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], err


def _corrupt_gzip(path):
    path.write_bytes(b"not a gzip archive")


def _truncated_gzip(path):
    rows = "".join(f"{i * 0.37:.6f},{i ** 0.5:.6f},{i % 2}\n" for i in range(3000))
    whole = gzip.compress(("a,b,y\n" + rows).encode())
    path.write_bytes(whole[:len(whole) // 2])   # an interrupted download


def _empty(path):
    path.write_bytes(b"")


@pytest.mark.parametrize("name, make, words", [
    ("corrupt.csv.gz", _corrupt_gzip, ["corrupt.csv.gz", "not a readable CSV file"]),
    ("truncated.csv.gz", _truncated_gzip, ["truncated.csv.gz", "not a readable CSV file"]),
    ("empty.csv", _empty, ["empty.csv"]),
    ("model.joblib", _corrupt_gzip, ["model.joblib"]),
])
def test_unreadable_input_file_is_a_usage_error_naming_it(tmp_path, capsys, name, make, words):
    path = tmp_path / name
    make(path)
    if name.endswith(".joblib"):
        argv = ["certify", "--data", str(tmp_path / "t.csv"), "--target", "y", "--model",
                str(path), "--budgets", "1", "--output", str(tmp_path / "out")]
        pd.DataFrame({"a": [1.0, 2.0], "y": [0, 1]}).to_csv(tmp_path / "t.csv", index=False)
        command = "certify"
    else:
        argv = _curve(path, "--output", str(tmp_path / "out"))
        command = "curve"
    code, err = _code(argv, capsys)
    assert code == 2
    _assert_one_line(err, command, *words)
    assert not (tmp_path / "out").exists()   # nothing written for a run that never started


@pytest.mark.parametrize("extra, words", [
    (["--seed", "-1"], ["--seed", "seed must be an integer in [0, 4294967295]", "-1"]),
    (["--seed", "x"], ["--seed", "'x'"]),
    (["--n-jobs", "0"], ["--n-jobs", "non-zero"]),
    (["--repeats", "0"], ["--repeats", "positive"]),
    (["--levels", "many"], ["--levels"]),
    (["--no-such-flag"], ["--no-such-flag"]),
])
def test_bad_flag_values_are_one_line_usage_errors(table, tmp_path, capsys, extra, words):
    code, err = _code([*_curve(table, "--output", str(tmp_path / "out")), *extra], capsys)
    assert code == 2
    _assert_one_line(err, "curve", *words)


@pytest.mark.parametrize("command", ["reproduce", "benchmark"])
def test_seed_is_checked_by_every_command(capsys, command):
    argv = [command, *(["rolr-spambase"] if command == "reproduce" else []), "--seed", "-1"]
    code, err = _code(argv, capsys)
    assert code == 2
    _assert_one_line(err, command, "seed must be an integer")


@pytest.mark.parametrize("inside", [False, True])
def test_output_that_is_a_file_is_a_usage_error(table, tmp_path, capsys, inside):
    existing = tmp_path / "results.md"
    existing.write_text("mine")
    output = existing / "sub" if inside else existing
    code, err = _code(_curve(table, "--output", str(output)), capsys)
    assert code == 2
    _assert_one_line(err, "curve", str(existing), "is an existing file, not a folder")
    assert existing.read_text() == "mine"


def test_failed_run_exits_1_in_one_line_and_debug_shows_the_traceback(table, tmp_path, capsys,
                                                                      monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("the solver\nexploded")

    monkeypatch.setattr(robustclf.evaluation, "robustness_curve", explode)
    code, err = _code(_curve(table, "--output", str(tmp_path / "out")), capsys)
    assert code == 1
    _assert_one_line(err, "curve", "the run failed: RuntimeError: the solver exploded",
                     "--debug")
    with pytest.raises(RuntimeError, match="exploded"):
        main(_curve(table, "--output", str(tmp_path / "out"), "--debug"))


def test_debug_reraises_usage_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        main(_curve(tmp_path / "missing.csv", "--debug"))


def test_interrupted_run_exits_130(table, tmp_path, capsys, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(robustclf.evaluation, "robustness_curve", interrupt)
    code, err = _code(_curve(table, "--output", str(tmp_path / "out")), capsys)
    assert code == 130 and "interrupted" in err and "Traceback" not in err


def test_python_dash_m_is_the_command(tmp_path):
    run = subprocess.run([sys.executable, "-m", "robustclf", "list"], capture_output=True,
                         text=True, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "estimators:" in run.stdout and "experiments" in run.stdout


def test_python_dash_m_usage_error_has_no_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-m", "robustclf", "benchmark", "--seed", "-1"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    _assert_one_line(run.stderr, "benchmark", "seed")


# -- outputs: atomic, and a previous report is never overwritten ------------------------------

def test_a_previous_report_is_kept_and_the_new_run_written_beside_it(table, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_curve(table, "--output", str(out))) == 0
    (out / "report.md").write_text("the previous report")
    capsys.readouterr()
    assert main(_curve(table, "--output", str(out))) == 0
    captured = capsys.readouterr()
    assert (out / "report.md").read_text() == "the previous report"
    beside = tmp_path / "out-2"
    assert "# table: random_deletion" in (beside / "report.md").read_text()
    assert str(beside) in captured.err and "--force" in captured.err
    assert str(beside.resolve()) in captured.out
    # a third run goes to out-3; --force overwrites out itself
    assert main(_curve(table, "--output", str(out))) == 0
    assert (tmp_path / "out-3" / "report.md").exists()
    assert main(_curve(table, "--output", str(out), "--force")) == 0
    assert "# table: random_deletion" in (out / "report.md").read_text()
    assert not (tmp_path / "out-4").exists()


def test_an_existing_folder_without_a_report_is_used(table, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    assert main(_curve(table, "--output", str(out))) == 0
    assert (out / "report.md").exists() and (out / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "out-2").exists()


def test_every_output_file_is_written_by_an_atomic_rename(table, tmp_path, monkeypatch):
    renamed = []
    real_replace = os.replace

    def record(src, dst):
        renamed.append(os.path.abspath(dst))
        real_replace(src, dst)

    monkeypatch.setattr(report.os, "replace", record)
    out = tmp_path / "out"
    assert main(_curve(table, "--output", str(out))) == 0
    written = sorted(str(p) for p in out.rglob("*") if p.is_file())
    assert written == sorted(renamed)
    assert {p.rsplit(".", 1)[1] for p in written} == {"csv", "png", "md"}


def test_a_failed_write_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "table.csv"
    target.write_text("previous")
    frame = pd.DataFrame({"a": [1, 2]})

    def fail(self, path, *args, **kwargs):
        with open(path, "w") as handle:
            handle.write("a\n1\n")            # half written, then the disk fills up
        raise OSError("No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail)
    with pytest.raises(OSError, match="No space"):
        report.write_csv(frame, target)
    assert target.read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]
