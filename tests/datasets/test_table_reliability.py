"""Issue 19: tables read by the loaders are float features, and a cut gzip file is an error.

* an all-integer CSV gave integer features, into which an imputer cannot write its float fill
  ("fill_value=0.0 ... cannot be cast to the input data that is dtype('int64')" from
  ``robustclf curve --data``);
* a gzip file cut short (an interrupted download) must never be read as a shorter table: the
  stream is read to its end-of-stream marker, and the error names the file.
"""

import gzip

import numpy as np
import pandas as pd
import pytest

from robustclf.cli import main
from robustclf.corruption import RandomDeletion
from robustclf.datasets import load_spambase, load_table
from robustclf.datasets._paths import read_bytes


@pytest.fixture
def int_table(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(0, 5, size=(40, 3)), columns=["a", "b", "c"])
    frame["flag"] = frame.a > 2
    frame["label"] = (frame.a + frame.b > 4).astype(int)
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    return path


def test_integer_and_boolean_columns_are_read_as_float(int_table):
    X, y = load_table(int_table, "label")
    assert all(X.dtypes == np.float64), X.dtypes
    assert y.dtype.kind == "i"  # labels keep their type
    corrupted = RandomDeletion(fraction=0.5).corrupt(X, random_state=0)
    assert corrupted.isna().to_numpy().any() and all(corrupted.dtypes == np.float64)


def test_nullable_integer_parquet_columns_give_nan(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "t": [0, 1, 0]})
    frame.to_parquet(tmp_path / "d.parquet")
    X, _ = load_table(tmp_path / "d.parquet", "t")
    assert X.a.dtype == np.float64 and np.isnan(X.a[1])


def test_curve_on_an_integer_csv(int_table, tmp_path, capsys):
    # before: the registry pipelines' SimpleImputer(fill_value=0.0) refused the int64 table
    code = main(["curve", "--data", str(int_table), "--target", "label", "--estimator",
                 "logistic", "--corruption", "random_deletion", "--levels", "0", "0.5",
                 "--repeats", "1", "--output", str(tmp_path / "out"), "--no-progress"])
    assert code == 0, capsys.readouterr().err


def _cut_gzip(path, n_bytes=60):
    rows = "".join(f"{i},{i % 3},{i % 2}\n" for i in range(200))
    whole = gzip.compress(("a,b,label\n" + rows).encode())
    path.write_bytes(whole[:n_bytes])
    return path


@pytest.mark.parametrize("n_bytes", [12, 60, -8, -1])
def test_load_table_refuses_a_cut_gzip_file(tmp_path, n_bytes):
    path = _cut_gzip(tmp_path / "rows.csv.gz", n_bytes)
    with pytest.raises(ValueError, match=r"^data file '.*rows\.csv\.gz' is not a readable CSV "
                       r"file: it is a corrupt or truncated gzip file.*EOFError"):
        load_table(path, "label")


def test_load_table_reads_a_whole_gzip_file(tmp_path):
    path = tmp_path / "rows.tsv.gz"
    path.write_bytes(gzip.compress(b"a\tlabel\n1\t0\n2\t1\n") + gzip.compress(b"3\t0\n"))
    X, y = load_table(path, "label")  # two members, as `cat a.gz b.gz` makes
    assert X.a.tolist() == [1.0, 2.0, 3.0] and y.tolist() == [0, 1, 0]


def test_bundled_loader_names_a_cut_gzip_file(tmp_path):
    # before: a bare EOFError ("Compressed file ended before the end-of-stream marker was
    # reached") naming no file
    folder = tmp_path / "spambase"
    folder.mkdir()
    path = _cut_gzip(folder / "spambase.data.gz")
    with pytest.raises(ValueError, match=r"spambase\.data\.gz' is not a readable gzip file: "
                       r"it is a corrupt or truncated gzip file"):
        load_spambase(data_dir=tmp_path)
    with pytest.raises(ValueError, match="CRC check failed"):
        whole = gzip.compress(b"1,2\n")
        path.write_bytes(whole[:-8] + bytes([whole[-8] ^ 1]) + whole[-7:])
        read_bytes(path)
