"""Reading a user's table and saved model: the happy path and one clear error per bad input."""

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from robustclf.datasets import load_table
from robustclf.datasets._files import check_model_columns, load_model


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60),
                          "colour": rng.choice(["red", "blue"], size=60)})
    frame["label"] = np.where(frame.a + (frame.colour == "red") > 0.5, "yes", "no")
    frame.loc[3, "b"] = np.nan
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_load_table_splits_the_target_and_keeps_dtypes(table):
    path, frame = table
    X, y = load_table(path, "label")
    assert list(X.columns) == ["a", "b", "colour"]
    assert not pd.api.types.is_numeric_dtype(X["colour"]) and np.isnan(X.loc[3, "b"])
    assert (y.to_numpy() == frame.label.to_numpy()).all()


def test_load_table_drops_unlabelled_rows(tmp_path):
    path = tmp_path / "d.tsv"
    pd.DataFrame({"x": [1.0, 2.0, 3.0], "t": [0, None, 1]}).to_csv(path, sep="\t", index=False)
    X, y = load_table(path, "t")
    assert len(X) == 2 and list(y) == [0, 1]


@pytest.mark.parametrize("name, content, match", [
    ("none.csv", None, "does not exist"),
    ("d.xlsx", "x", "unknown file type"),
    ("e.csv", "", "not a readable CSV"),
])
def test_load_table_bad_files(tmp_path, name, content, match):
    if content is not None:
        (tmp_path / name).write_text(content)
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        load_table(tmp_path / name, "label")


def test_load_table_missing_target_lists_columns(table):
    path, _ = table
    with pytest.raises(ValueError, match=r"no column 'y' .*columns are: a, b, colour, label"):
        load_table(path, "y")


def test_parquet_round_trip_or_clear_error(tmp_path, table):
    _, frame = table
    path = tmp_path / "d.parquet"
    try:
        frame.to_parquet(path)
    except ImportError:
        path.write_bytes(b"PAR1")
        with pytest.raises(ValueError, match="needs pyarrow"):
            load_table(path, "label")
        return
    X, _ = load_table(path, "label")
    assert list(X.columns) == ["a", "b", "colour"]


def _hgb_pipeline(X, y):
    encode = make_column_transformer((OrdinalEncoder(), ["colour"]), remainder="passthrough")
    model = make_pipeline(encode, HistGradientBoostingClassifier(
        categorical_features=[0], max_iter=20, random_state=0))
    return model.fit(X, y)


def test_model_round_trip_and_columns_reordered(tmp_path, table):
    path, _ = table
    X, y = load_table(path, "label")
    joblib.dump(_hgb_pipeline(X, y), tmp_path / "m.joblib")
    model = load_model(tmp_path / "m.joblib")
    shuffled = X[["colour", "b", "a"]].assign(extra=1.0)
    checked = check_model_columns(model, shuffled)
    assert list(checked.columns) == ["a", "b", "colour"]


def test_model_errors(tmp_path, table):
    path, _ = table
    X, y = load_table(path, "label")
    with pytest.raises(FileNotFoundError, match="model file .* does not exist"):
        load_model(tmp_path / "none.joblib")
    (tmp_path / "junk.joblib").write_bytes(b"not a pickle")
    with pytest.raises(ValueError, match="could not be loaded"):
        load_model(tmp_path / "junk.joblib")
    joblib.dump(LogisticRegression(), tmp_path / "unfitted.joblib")
    with pytest.raises(ValueError, match="unfitted LogisticRegression"):
        load_model(tmp_path / "unfitted.joblib")
    joblib.dump({"a": 1}, tmp_path / "dict.joblib")
    with pytest.raises(ValueError, match="not an estimator"):
        load_model(tmp_path / "dict.joblib")
    model = _hgb_pipeline(X, y)
    with pytest.raises(ValueError, match="lacks: colour"):
        check_model_columns(model, X.drop(columns="colour"))
    numeric = LogisticRegression().fit(X[["a", "b"]].fillna(0).to_numpy(), y)
    with pytest.raises(ValueError, match="non-numeric columns: colour"):
        check_model_columns(numeric, X.assign(b=0.0)[["a", "colour"]])
    with pytest.raises(ValueError, match="fitted on 2 columns, the data has 3"):
        check_model_columns(numeric, X)
    named = LogisticRegression().fit(X[["a", "b"]].fillna(0), y)
    with pytest.raises(ValueError, match="cannot predict on the data's columns"):
        check_model_columns(named, X)   # NaN in b: LogisticRegression refuses it


@pytest.mark.parametrize("content", [b"not gzip at all", None])
def test_load_table_corrupt_or_truncated_gzip_names_the_file(tmp_path, content):
    import gzip

    path = tmp_path / "rows.csv.gz"
    if content is None:       # a valid archive cut short (an interrupted download)
        rows = "".join(f"{i * 0.37:.6f},{i % 2}\n" for i in range(3000))
        whole = gzip.compress(("a,label\n" + rows).encode())
        content = whole[:len(whole) // 2]
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"rows\.csv\.gz.* is not a readable CSV file"):
        load_table(path, "label")
