"""Tests of the loaders on small files written here, plus `data` tests on the real shared files."""

import gzip
import struct

import numpy as np
import pytest
import scipy.sparse as sp

from robustclf.datasets import (
    DATA_ENV_VAR,
    _paths,
    get_data_home,
    load_amazon_reviews,
    load_breast_cancer_wisconsin,
    load_hepatitis,
    load_horse_colic,
    load_mnist,
    load_spambase,
    load_votes,
    parse_processed_acl,
    read_idx,
)


def write(path, content, gz=False):
    """Write text or bytes, gzipped when ``gz``; returns the path written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode() if isinstance(content, str) else content
    if gz:
        path = path.with_name(path.name + ".gz")
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


@pytest.fixture
def no_default_data(monkeypatch):
    """No environment variable and no checkout fallback: only explicit paths count."""
    monkeypatch.delenv(DATA_ENV_VAR, raising=False)
    monkeypatch.setattr(_paths, "_checkout_fallback", lambda: None)


# -- path resolution -----------------------------------------------------------------------------
SPAM_ROWS = [
    ",".join(["0.5"] * 57 + ["1"]),
    ",".join(["0"] * 56 + ["12", "0"]),
    ",".join([str(j) for j in range(57)] + ["1"]),
]
SPAM_TEXT = "\n".join(SPAM_ROWS) + "\n"


@pytest.mark.parametrize("gz", [False, True])
def test_spambase_from_path(tmp_path, gz):
    file = write(tmp_path / "spambase.data", SPAM_TEXT, gz=gz)
    data = load_spambase(path=file)
    assert data.data.shape == (3, 57) and data.data.dtype == np.float64
    np.testing.assert_array_equal(data.target, [1, 0, 1])
    assert data.data[1, 56] == 12 and data.data[2, 10] == 10
    assert len(data.feature_names) == 57 and data.feature_names[0] == "word_freq_make"
    assert data.feature_names[-1] == "capital_run_length_total"
    assert list(data.target_names) == ["not_spam", "spam"]
    X, y = load_spambase(path=file, return_X_y=True)
    np.testing.assert_array_equal(X, data.data)


def test_data_dir_env_var_and_precedence(tmp_path, monkeypatch, no_default_data):
    write(tmp_path / "a" / "spambase" / "spambase.data", SPAM_TEXT, gz=True)
    write(tmp_path / "b" / "spambase.data", SPAM_TEXT.replace(",1\n", ",0\n"))
    # data_dir holding the dataset folder, or the dataset folder itself
    assert load_spambase(data_dir=tmp_path / "a").target.sum() == 2
    assert load_spambase(data_dir=tmp_path / "b").target.sum() == 0
    monkeypatch.setenv(DATA_ENV_VAR, str(tmp_path / "a"))
    assert get_data_home() == tmp_path / "a"
    assert load_spambase().target.sum() == 2
    assert load_spambase(data_dir=tmp_path / "b").target.sum() == 0  # data_dir wins


def test_missing_data_says_how_to_configure(tmp_path, no_default_data):
    assert get_data_home() is None
    with pytest.raises(FileNotFoundError, match=DATA_ENV_VAR) as info:
        load_spambase()
    assert "data_dir" in str(info.value)
    with pytest.raises(FileNotFoundError, match="data_dir"):
        load_votes(data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="path="):
        load_hepatitis(path=tmp_path / "nope.data")
    with pytest.raises(FileNotFoundError, match=DATA_ENV_VAR):
        load_mnist(data_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match=DATA_ENV_VAR):
        load_horse_colic(data_dir=tmp_path)


def test_checkout_fallback_points_next_to_the_repository():
    fallback = _paths._checkout_fallback()
    assert fallback is None or fallback.parts[-2:] == ("shared", "data")


def test_spambase_bad_files(tmp_path):
    with pytest.raises(ValueError, match="58 columns"):
        load_spambase(path=write(tmp_path / "s1", "1,2,3\n"))
    bad_label = ",".join(["0"] * 57 + ["2"]) + "\n"
    with pytest.raises(ValueError, match="label"):
        load_spambase(path=write(tmp_path / "s2", bad_label))
    with pytest.raises(ValueError, match="non-numeric"):
        load_spambase(path=write(tmp_path / "s3", ",".join(["x"] * 57 + ["1"]) + "\n"))


# -- UCI tables with '?' -------------------------------------------------------------------------
def test_votes_yes_no_and_missing(tmp_path):
    text = ("republican," + ",".join(["y", "n", "?"] * 5 + ["y"]) + "\n"
            "democrat," + ",".join(["?"] * 16) + "\n")
    data = load_votes(path=write(tmp_path / "house-votes-84.data", text, gz=True))
    assert data.data.shape == (2, 16)
    np.testing.assert_array_equal(data.data[0, :3], [1.0, 0.0, np.nan])
    assert np.isnan(data.data[1]).all()
    np.testing.assert_array_equal(data.target, [1, 0])
    assert data.feature_names[0] == "handicapped-infants"
    with pytest.raises(ValueError, match="'y', 'n' or '\\?'"):
        load_votes(path=write(tmp_path / "v2", "democrat," + ",".join(["x"] * 16) + "\n"))
    with pytest.raises(ValueError, match="label"):
        load_votes(path=write(tmp_path / "v3", "whig," + ",".join(["y"] * 16) + "\n"))


def test_hepatitis(tmp_path):
    row = "2,30,2,1,2,2,2,2,1,2,2,2,2,2,1.00,85,18,4.0,?,1"
    text = row + "\n" + row.replace("2,30", "1,?", 1) + "\n"
    data = load_hepatitis(path=write(tmp_path / "hepatitis.data", text))
    assert data.data.shape == (2, 19)
    np.testing.assert_array_equal(data.target, [0, 1])  # 1 = die
    assert np.isnan(data.data[:, 17]).all() and np.isnan(data.data[1, 0])
    assert data.data[0, 0] == 30 and data.data[0, 13] == 1.0
    assert data.feature_names[-1] == "histology"


def test_breast_cancer_drops_id(tmp_path):
    text = "1000025,5,1,1,1,2,1,3,1,1,2\n1057013,8,4,5,1,2,?,7,3,1,4\n"
    X, y = load_breast_cancer_wisconsin(path=write(tmp_path / "b.data", text, gz=True),
                                        return_X_y=True)
    assert X.shape == (2, 9)
    np.testing.assert_array_equal(X[0], [5, 1, 1, 1, 2, 1, 3, 1, 1])
    assert np.isnan(X[1, 5]) and np.isnan(X).sum() == 1
    np.testing.assert_array_equal(y, [0, 1])


HORSE_ROWS = [
    "2 1 530101 38.50 66 28 3 3 ? 2 5 4 4 ? ? ? 3 5 45.00 8.40 ? ? 2 2 11300 00000 00000 2",
    "1 1 534817 39.2 88 20 ? ? 4 1 3 4 2 ? ? ? 4 2 50 85 2 2 3 1 02208 00000 00000 2",
]


def test_horse_colic_train_and_test(tmp_path):
    folder = tmp_path / "horse_colic"
    write(folder / "horse-colic.data", "\n".join(HORSE_ROWS))  # no final newline
    write(folder / "horse-colic.test", HORSE_ROWS[1] + " \n", gz=True)  # trailing space
    data = load_horse_colic(data_dir=tmp_path)
    assert data.data.shape == (2, 21) and data.data_test.shape == (1, 21)
    np.testing.assert_array_equal(data.target, [0, 1])  # column 24: 1 = lesion
    np.testing.assert_array_equal(data.target_test, [1])
    assert data.data[0, 2] == 38.5  # hospital number dropped
    assert np.isnan(data.data[0, 7]) and np.isnan(data.data[1, 5]) and np.isnan(data.data[1, 6])
    assert "hospital_number" not in data.feature_names and "outcome" not in data.feature_names
    X, X_test, y, y_test = load_horse_colic(path=folder, return_X_y=True)
    np.testing.assert_array_equal(X_test, data.data_test)
    (folder / "horse-colic.test.gz").unlink()
    with pytest.raises(FileNotFoundError, match="horse-colic.test"):
        load_horse_colic(path=folder)
    write(tmp_path / "h2" / "horse-colic.test", HORSE_ROWS[0])
    with pytest.raises(ValueError, match="28 columns"):
        load_horse_colic(path=write(tmp_path / "h2" / "horse-colic.data", "1 2 3\n").parent)


# -- MNIST ---------------------------------------------------------------------------------------
def idx_bytes(array, code=0x08, dtype=">u1"):
    header = struct.pack(">BBBB", 0, 0, code, array.ndim)
    header += struct.pack(">" + "I" * array.ndim, *array.shape)
    return header + array.astype(dtype).tobytes()


@pytest.fixture
def tiny_mnist():
    rng = np.random.default_rng(0)
    return {
        "x_train": rng.integers(0, 256, (12, 28, 28), dtype=np.uint8),
        "y_train": np.arange(12, dtype=np.uint8) % 10,
        "x_test": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
        "y_test": np.array([4, 7, 1, 4, 0], dtype=np.uint8),
    }


def test_mnist_npz(tmp_path, tiny_mnist):
    np.savez_compressed(tmp_path / "mnist.npz", **tiny_mnist)
    data = load_mnist(path=tmp_path / "mnist.npz")
    assert data.data.shape == (12, 784) and data.data.dtype == np.uint8
    assert data.data_test.shape == (5, 784)
    np.testing.assert_array_equal(data.data[3], tiny_mnist["x_train"][3].ravel())
    np.testing.assert_array_equal(data.target_test, [4, 7, 1, 4, 0])
    assert data.feature_names[29] == "pixel_1_1"
    X, X_test, y, y_test = load_mnist(data_dir=tmp_path, digits=(4, 7), scale=True,
                                      return_X_y=True)
    np.testing.assert_array_equal(y, [4, 7])
    np.testing.assert_array_equal(y_test, [4, 7, 4])
    assert X.dtype == np.float64 and X.max() <= 1.0
    np.testing.assert_allclose(X[0] * 255, tiny_mnist["x_train"][4].ravel())
    with pytest.raises(ValueError, match="digits"):
        load_mnist(path=tmp_path / "mnist.npz", digits=(3, 12))
    with pytest.raises(ValueError, match="dtype"):
        load_mnist(path=tmp_path / "mnist.npz", scale=True, dtype=np.int32)
    del tiny_mnist["y_test"]
    np.savez(tmp_path / "broken.npz", **tiny_mnist)
    with pytest.raises(ValueError, match="y_test"):
        load_mnist(path=tmp_path / "broken.npz")


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_idx_files(tmp_path, tiny_mnist, gz):
    folder = tmp_path / "mnist"
    names = {"x_train": "train-images-idx3-ubyte", "y_train": "train-labels-idx1-ubyte",
             "x_test": "t10k-images-idx3-ubyte", "y_test": "t10k-labels-idx1-ubyte"}
    for key, name in names.items():
        write(folder / name, idx_bytes(tiny_mnist[key]), gz=gz)
    X, X_test, y, y_test = load_mnist(data_dir=tmp_path, return_X_y=True)
    np.testing.assert_array_equal(X, tiny_mnist["x_train"].reshape(12, 784))
    np.testing.assert_array_equal(y_test, tiny_mnist["y_test"])
    np.testing.assert_array_equal(load_mnist(path=folder).target, tiny_mnist["y_train"])
    (folder / (names["y_test"] + (".gz" if gz else ""))).unlink()
    with pytest.raises(FileNotFoundError, match="t10k-labels"):
        load_mnist(path=folder)


def test_read_idx_types_and_errors(tmp_path):
    a = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    file = write(tmp_path / "a.idx", idx_bytes(a, code=0x0C, dtype=">i4"), gz=True)
    out = read_idx(file)
    np.testing.assert_array_equal(out, a)
    assert out.dtype == np.int32 and out.dtype.isnative
    with pytest.raises(ValueError, match="not an IDX"):
        read_idx(write(tmp_path / "b.idx", b"<html>error</html>"))
    with pytest.raises(ValueError, match="holds"):
        read_idx(write(tmp_path / "c.idx", idx_bytes(a, code=0x0C, dtype=">i4")[:-4]))


# -- Amazon processed_acl ------------------------------------------------------------------------
POSITIVE = ("great:2 great_book:1 a:b:3 #label#:positive\n"
            "great:1 fun:4 #label#:positive\n\n")
NEGATIVE = "boring:2 great:1 #label#:negative\n"


def test_parse_processed_acl():
    rows, names, counts, labels = parse_processed_acl(POSITIVE)
    np.testing.assert_array_equal(rows, [0, 0, 0, 1, 1])
    assert names == ["great", "great_book", "a:b", "great", "fun"]  # split at the last colon
    np.testing.assert_array_equal(counts, [2, 1, 3, 1, 4])
    np.testing.assert_array_equal(labels, [1, 1])


@pytest.mark.parametrize("text, match", [
    ("good:1 bad:2\n", "exactly one"), ("good:1 #label#:neutral\n", "positive"),
    ("good:x #label#:positive\n", "good:x"), ("good #label#:positive\n", "good"),
    ("#label#:positive #label#:negative\n", "exactly one"),
])
def test_parse_processed_acl_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_processed_acl(text, source="f")


def test_amazon_reviews(tmp_path):
    folder = tmp_path / "amazon_sentiment_processed_acl" / "toys"
    write(folder / "positive.review", POSITIVE, gz=True)
    write(folder / "negative.review", NEGATIVE)
    data = load_amazon_reviews("toys", data_dir=tmp_path)
    assert sp.issparse(data.data) and data.data.format == "csr"
    assert list(data.feature_names) == sorted(["great", "great_book", "a:b", "fun", "boring"])
    np.testing.assert_array_equal(data.target, [1, 1, 0])  # positive file first
    dense = data.data.toarray()
    column = {name: j for j, name in enumerate(data.feature_names)}
    np.testing.assert_array_equal(dense[:, column["great"]], [2, 1, 1])
    np.testing.assert_array_equal(dense[:, column["a:b"]], [3, 0, 0])
    assert dense.sum() == 14
    # a shared vocabulary fixes the columns; unknown words are dropped
    X, y = load_amazon_reviews(path=folder, vocabulary=["fun", "great", "unseen"],
                               return_X_y=True)
    np.testing.assert_array_equal(X.toarray(), [[0, 2, 0], [4, 1, 0], [0, 1, 0]])
    kept = load_amazon_reviews("toys", data_dir=tmp_path, min_df=2)
    assert list(kept.feature_names) == ["great"]
    with pytest.raises(ValueError, match="min_df"):
        load_amazon_reviews("toys", data_dir=tmp_path, min_df=0)
    with pytest.raises(ValueError, match="min_df"):
        load_amazon_reviews("toys", data_dir=tmp_path, min_df=2, vocabulary=["great"])
    with pytest.raises(ValueError, match="vocabulary"):
        load_amazon_reviews("toys", data_dir=tmp_path, vocabulary=["a", "a"])
    with pytest.raises(FileNotFoundError, match="toys"):
        load_amazon_reviews("books", data_dir=tmp_path)  # lists the domains available
    (folder / "negative.review").unlink()
    with pytest.raises(FileNotFoundError, match="negative.review"):
        load_amazon_reviews("toys", data_dir=tmp_path)


# -- the real shared files -----------------------------------------------------------------------
def _require(subdir):
    home = get_data_home()
    if home is None or not (home / subdir).is_dir():
        pytest.skip(f"shared data '{subdir}' not found (set {DATA_ENV_VAR})")


@pytest.mark.data
def test_real_spambase():
    _require("spambase")
    data = load_spambase()
    assert data.data.shape == (4601, 57) and data.target.sum() == 1813
    assert not np.isnan(data.data).any()


@pytest.mark.data
def test_real_uci_with_missing_values():
    _require("house_votes_84")
    votes = load_votes()
    assert votes.data.shape == (435, 16) and votes.target.sum() == 168
    assert np.isnan(votes.data).sum() == 392 and np.isnan(votes.data).any(axis=1).sum() == 203
    assert np.nansum(votes.data) == 3421
    _require("hepatitis")
    hep = load_hepatitis()
    assert hep.data.shape == (155, 19) and hep.target.sum() == 32
    assert np.isnan(hep.data).sum() == 167 and np.isnan(hep.data).any(axis=1).sum() == 75
    _require("breast_cancer_wisconsin_original")
    bcw = load_breast_cancer_wisconsin()
    assert bcw.data.shape == (699, 9) and bcw.target.sum() == 241
    assert np.isnan(bcw.data).sum() == 16 and np.isnan(bcw.data[:, 5]).sum() == 16
    _require("horse_colic")
    horse = load_horse_colic()
    assert horse.data.shape == (300, 21) and horse.data_test.shape == (68, 21)
    assert horse.target.sum() == 191 and horse.target_test.sum() == 41
    # PROVENANCE: 1605 missing train cells, 1 of them in the outcome column not loaded here
    assert np.isnan(horse.data).sum() == 1604 and np.isnan(horse.data_test).sum() == 321


@pytest.mark.data
def test_real_mnist():
    _require("mnist")
    data = load_mnist()
    assert data.data.shape == (60000, 784) and data.data_test.shape == (10000, 784)
    np.testing.assert_array_equal(
        np.bincount(data.target_test), [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009])
    assert np.bincount(data.target)[4] == 5842 and np.bincount(data.target)[7] == 6265


@pytest.mark.data
@pytest.mark.parametrize("domain, nnz", [("books", 234_339 + 244_834),
                                         ("kitchen", 131_221 + 132_248)])
def test_real_amazon(domain, nnz):
    _require("amazon_sentiment_processed_acl")
    data = load_amazon_reviews(domain)
    assert data.data.shape[0] == 2000 and data.target.sum() == 1000
    assert data.data.nnz == nnz
