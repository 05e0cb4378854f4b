"""The command line and the report writer, end to end on small settings."""

import re
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


# -- the user's own table and model ----------------------------------------------------------

@pytest.fixture
def user_files(tmp_path):
    """A CSV with a text column and a fitted pipeline saved with joblib, as a user has them."""
    import joblib
    import numpy as np
    from sklearn.compose import make_column_transformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder, StandardScaler

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 4)), columns=["age", "dose", "bmi", "score"])
    frame["site"] = rng.choice(["north", "south", "east"], size=200)
    frame["outcome"] = np.where(frame.age + frame.dose + (frame.site == "north") > 0.3,
                                "sick", "well")
    frame.to_csv(tmp_path / "patients.csv", index=False)
    numeric = frame.drop(columns="site")
    numeric.to_csv(tmp_path / "numeric.csv", index=False)
    X = frame.drop(columns="outcome")
    hgb = make_pipeline(
        make_column_transformer((OrdinalEncoder(handle_unknown="use_encoded_value",
                                                unknown_value=np.nan), ["site"]),
                                remainder="passthrough"),
        HistGradientBoostingClassifier(categorical_features=[0], max_iter=30, random_state=0),
    ).fit(X, frame.outcome)
    joblib.dump(hgb, tmp_path / "hgb.joblib")
    linear = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression()).fit(
        numeric.drop(columns="outcome"), numeric.outcome)
    joblib.dump(linear, tmp_path / "linear.joblib")
    affine = make_pipeline(StandardScaler(), LogisticRegression()).fit(
        numeric.drop(columns="outcome"), numeric.outcome)
    joblib.dump(affine, tmp_path / "affine.joblib")
    return tmp_path


def _run(argv, capsys):
    code = main([*argv, "--no-progress"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_curve_on_a_user_csv_and_saved_model(user_files, capsys):
    out_dir = user_files / "out"
    code, out, err = _run(["curve", "--data", str(user_files / "numeric.csv"), "--target",
                           "outcome", "--model", str(user_files / "linear.joblib"),
                           "--corruption", "random_deletion", "--levels", "0", "0.5",
                           "--param", "fill=nan", "--repeats", "2",
                           "--output", str(out_dir)], capsys)
    assert code == 0, err
    assert "| linear |" in out
    frame = pd.read_csv(out_dir / "numeric_random_deletion.csv")
    assert set(frame.estimator) == {"linear"} and len(frame) == 4
    assert frame["fit_seconds"].isna().all()          # scored as it is, never refitted
    assert (out_dir / "numeric_random_deletion.png").stat().st_size > 1000
    report = (out_dir / "report.md").read_text()
    assert "saved models scored as they are (never refitted): `linear`" in report
    assert "(numeric_random_deletion.png)" in report and "report written to" in out


def test_curve_scores_saved_model_and_registry_estimator_on_the_same_rows(user_files, capsys):
    out_dir = user_files / "out"
    code, out, err = _run(["curve", "--data", str(user_files / "numeric.csv"), "--target",
                           "outcome", "--model", str(user_files / "linear.joblib"),
                           "--estimator", "logistic", "--corruption", "random_deletion",
                           "--levels", "0", "--param", "fill=nan", "--scoring",
                           "balanced_accuracy", "--repeats", "1", "--output", str(out_dir)],
                          capsys)
    assert code == 0, err
    frame = pd.read_csv(out_dir / "numeric_random_deletion.csv")
    assert set(frame.estimator) == {"linear", "logistic"}
    assert (frame["scoring"] == "balanced_accuracy").all()


@pytest.mark.parametrize("model, fill", [("linear", "nan"), ("affine", "0")])
def test_certify_a_saved_linear_pipeline(user_files, capsys, model, fill):
    out_dir = user_files / "out"
    code, out, err = _run(["certify", "--data", str(user_files / "numeric.csv"), "--target",
                           "outcome", "--model", str(user_files / f"{model}.joblib"),
                           "--budgets", "0", "1", "--fill", fill, "--output", str(out_dir)],
                          capsys)
    assert code == 0, err
    frame = pd.read_csv(out_dir / "numeric_certified.csv")
    worst = frame.set_index("level")["error"]
    assert worst[1] >= worst[0]


def test_certify_a_model_that_cannot_take_absent_entries_says_so(user_files, capsys):
    code, out, err = _run(["certify", "--data", str(user_files / "numeric.csv"), "--target",
                           "outcome", "--model", str(user_files / "affine.joblib"),
                           "--budgets", "1", "--output", str(user_files / "out")], capsys)
    assert code == 2 and "Traceback" not in err
    assert "cannot take the absent (NaN) entries" in err and "fill=0.0" in err


@pytest.mark.parametrize("argv, message", [
    (["--data", "{d}/none.csv", "--target", "outcome", "--model", "{d}/linear.joblib"],
     "data file .*none.csv' does not exist"),
    (["--data", "{d}/numeric.csv", "--target", "label", "--model", "{d}/linear.joblib"],
     "has no column 'label'"),
    (["--data", "{d}/numeric.csv", "--model", "{d}/linear.joblib"], "--data needs --target"),
    (["--dataset", "digits", "--target", "y", "--estimator", "logistic"],
     "give --data too"),
    (["--data", "{d}/patients.csv", "--target", "outcome", "--estimator", "logistic"],
     "registry estimators need numeric columns; non-numeric: site"),
    (["--data", "{d}/numeric.csv", "--target", "outcome", "--model", "{d}/hgb.joblib"],
     "fitted on columns the data lacks: site"),
    (["--data", "{d}/numeric.csv", "--target", "outcome", "--model", "{d}/none.joblib"],
     "model file .* does not exist"),
])
def test_user_file_errors_are_one_clear_line(user_files, capsys, argv, message):
    argv = [a.format(d=user_files) for a in argv]
    code, out, err = _run(["curve", *argv, "--corruption", "random_deletion", "--levels", "0",
                           "--output", str(user_files / "out")], capsys)
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_curve_of_a_saved_gradient_boosting_pipeline_with_a_text_column(user_files, capsys):
    out_dir = user_files / "out"
    code, out, err = _run(["curve", "--data", str(user_files / "patients.csv"), "--target",
                           "outcome", "--model", str(user_files / "hgb.joblib"),
                           "--corruption", "random_deletion", "--levels", "0", "0.6",
                           "--param", "fill=nan", "--scoring", "roc_auc", "--repeats", "2",
                           "--output", str(out_dir)], capsys)
    assert code == 0, err
    frame = pd.read_csv(out_dir / "patients_random_deletion.csv")
    auc = frame.groupby("level")["score"].mean()
    assert auc[0.0] > 0.9 and auc[0.6] < auc[0.0]
