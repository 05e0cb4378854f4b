"""The command line and the report writer, end to end on small settings."""

import warnings

import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from robustclf.cli import main
from robustclf.report import curve_table, markdown_table


def test_demo_writes_a_complete_report(tmp_path, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)   # collected into the report
        assert main(["demo", "--fast", "--output", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert str(tmp_path) in out
    report = (tmp_path / "report.md").read_text()
    # the registry's 10-epoch subgradient LP is uncertified: said once, in the report
    assert "## Solver notes" in report and "DeletionRobustLP did not converge" in report
    assert "see 'Solver notes' in the report" in out
    for name in ("digits_random_deletion", "digits_block_deletion", "digits_greedy_adversary",
                 "digits_certified", "threshold_encoding_deletion", "label_copies"):
        assert f"({name}.png)" in report
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        frame = pd.read_csv(tmp_path / f"{name}.csv")
        assert {"estimator", "level", "error"} <= set(frame.columns)
        assert frame["error"].between(0, 1).all()
    # the greedy adversary hurts every model, and the certified worst case is at least as bad
    greedy = pd.read_csv(tmp_path / "digits_greedy_adversary.csv")
    clean = greedy[greedy.level == 0].set_index("estimator")["error"]
    attacked = greedy[greedy.level == 4].set_index("estimator")["error"]
    assert (attacked > clean + 0.2).all()
    certified = pd.read_csv(tmp_path / "digits_certified.csv")
    worst = certified[certified.level == 4].set_index("estimator")["error"]
    assert (worst >= attacked[worst.index] - 1e-12).all()


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for word in ("linear_svc", "random_deletion", "greedy", "digits", "experiments"):
        assert word in out


def test_curve_command(tmp_path, capsys):
    code = main(["curve", "--dataset", "label_copies", "--corruption", "group_deletion",
                 "--levels", "0", "1", "2", "--estimator", "logistic", "--repeats", "2",
                 "--output", str(tmp_path), "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "| logistic |" in out
    frame = pd.read_csv(tmp_path / "label_copies_group_deletion.csv")
    assert sorted(frame.level.unique()) == [0, 1, 2]
    assert len(frame) == 6


def test_curve_with_extra_corruption_parameter(tmp_path):
    code = main(["curve", "--dataset", "digits", "--corruption", "random_deletion", "--levels",
                 "0", "0.5", "--param", "among='nonzero'", "--estimator", "logistic",
                 "--repeats", "1", "--output", str(tmp_path), "--no-progress"])
    assert code == 0


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "no-such-paper"], "unknown experiment"),
    (["curve", "--dataset", "nope", "--corruption", "greedy", "--levels", "1"],
     "unknown dataset"),
    (["curve", "--dataset", "digits", "--corruption", "smudge", "--levels", "1"],
     "unknown corruption"),
    (["curve", "--dataset", "digits", "--corruption", "group_deletion", "--levels", "1"],
     "no feature groups"),
])
def test_errors_are_reported_cleanly(argv, message, capsys, tmp_path):
    assert main([*argv, "--output", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_curve_table_layout():
    frame = pd.DataFrame({"estimator": ["a"] * 4 + ["b"] * 4, "level": [0, 0, 1, 1] * 2,
                          "repeat": [0, 1] * 4, "error": [0.1, 0.3, 0.5, 0.5, 0, 0, 1, 1]})
    table = markdown_table(curve_table(frame))
    assert "| a | 0.200 ± 0.141 | 0.500 ± 0.000 |" in table
    assert table.splitlines()[0] == "| estimator \\ level | 0 | 1 |"
    with pytest.raises(ValueError, match="spread"):
        curve_table(frame, spread="iqr")
