"""Tests of the synthetic generators: shapes, determinism and the properties each one promises."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import ndtr

from robustclf.datasets import (
    THRESHOLD_ENCODINGS,
    encode_threshold_value,
    make_contaminated_logistic,
    make_label_copies,
    make_structurally_missing,
    make_threshold,
)

FAST = settings(max_examples=25, deadline=None)


# -- make_label_copies ---------------------------------------------------------------------------
def test_label_copies_shapes_and_copies():
    X, y = make_label_copies(random_state=0)
    assert X.shape == (1000, 22) and y.shape == (1000,)
    assert set(np.unique(y)) == {-1, 1}
    np.testing.assert_array_equal(X[:, 20], y)
    np.testing.assert_array_equal(X[:, 21], y)


def test_label_copies_is_deterministic():
    a = make_label_copies(200, 5, random_state=3)
    b = make_label_copies(200, 5, random_state=3)
    c = make_label_copies(200, 5, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


@FAST
@given(n=st.integers(1, 300), p=st.integers(1, 30), margin=st.floats(0, 3),
       flip=st.floats(0, 1), copies=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_label_copies_margin_and_noise(n, p, margin, flip, copies, seed):
    X, y, w = make_label_copies(n, p, flip_prob=flip, n_copies=copies, margin=margin,
                                random_state=seed, return_coef=True)
    assert X.shape == (n, p + copies)
    assert np.isclose(np.linalg.norm(w), 1.0)
    distance = X[:, :p] @ w
    # clean data separable by w* with the requested geometric margin
    assert np.all(np.abs(distance) >= margin - 1e-9)
    assert np.all(X[:, p:] == y[:, None])
    if flip == 0:
        np.testing.assert_array_equal(y, np.sign(distance))
    if flip == 1:
        np.testing.assert_array_equal(y, -np.sign(distance))


def test_label_copies_flip_rate_and_margin_distribution():
    n, margin = 20000, 0.25
    X, y, w = make_label_copies(n, 20, margin=margin, random_state=0, return_coef=True)
    distance = X[:, :20] @ w
    assert abs(np.mean(y != np.sign(distance)) - 0.2) < 0.015
    # |w . x| follows N(0, 1) conditioned on |z| >= margin, as rejection sampling would give
    tail = ndtr(-margin)

    def cdf(a):
        return np.clip((ndtr(a) - ndtr(margin)) / tail, 0, 1)

    assert stats.kstest(np.abs(distance), cdf).pvalue > 1e-3
    # the part orthogonal to w* stays standard normal
    ortho = X[:, :20] - distance[:, None] * w
    assert np.allclose(ortho.var(axis=0), 1 - w**2, atol=0.05)


@pytest.mark.parametrize("kwargs, name", [
    ({"n_samples": 0}, "n_samples"), ({"n_features": 2.5}, "n_features"),
    ({"flip_prob": 1.5}, "flip_prob"), ({"n_copies": -1}, "n_copies"),
    ({"margin": -0.1}, "margin"), ({"margin": np.inf}, "margin"), ({"margin": 50.0}, "margin"),
])
def test_label_copies_bad_input(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make_label_copies(**kwargs)


# -- make_threshold ------------------------------------------------------------------------------
def _decode_bits(bits):
    return (bits.astype(np.int64) << np.arange(bits.shape[1] - 1, -1, -1)).sum(axis=1)


def _decode_gray(bits):
    binary = np.bitwise_xor.accumulate(bits.astype(np.int64), axis=1)
    return _decode_bits(binary)


def _decode_peaks(peaks):
    centres = np.linspace(0, 100, peaks.shape[1])
    step = centres[1] - centres[0]
    k = np.clip(np.argmax(peaks, axis=1), 1, peaks.shape[1] - 2)
    rows = np.arange(peaks.shape[0])
    lm, l0, lp = (np.log(peaks[rows, k + d]) for d in (-1, 0, 1))
    # log of a Gaussian is a parabola: three points give its vertex exactly
    return centres[k] + step * (lm - lp) / (2 * (lm - 2 * l0 + lp))


def _decode_all(X, groups, encodings):
    decoders = {
        "gray": _decode_gray, "binary": _decode_bits, "peaks": _decode_peaks,
        "unary": lambda b: b.sum(axis=1), "value": lambda b: b[:, 0] * 100,
    }
    return {name: decoders[name](X[:, g]) for name, g in zip(encodings, groups, strict=True)}


def test_threshold_shapes_groups_and_labels():
    X, y, groups, t = make_threshold(300, random_state=0, return_threshold=True)
    assert X.shape == (300, 215)
    assert [g.size for g in groups] == [7, 100, 7, 100, 1]
    np.testing.assert_array_equal(np.concatenate(groups), np.arange(215))
    assert 25 <= t <= 75
    value = np.rint(X[:, groups[-1][0]] * 100)
    np.testing.assert_array_equal(y, (value > t).astype(int))
    assert set(np.unique(y)) <= {0, 1}


def test_threshold_encodings_decode_to_the_value():
    X, y, groups = make_threshold(500, random_state=1)
    decoded = _decode_all(X, groups, THRESHOLD_ENCODINGS)
    value = decoded["value"]
    assert np.all((value >= 0) & (value <= 100))
    for name, v in decoded.items():
        np.testing.assert_allclose(v, value, atol=1e-6, err_msg=name)


@FAST
@given(values=st.lists(st.integers(0, 100), min_size=1, max_size=50),
       width=st.floats(1.0, 20.0))
def test_encode_threshold_value_roundtrip(values, width):
    values = np.array(values)
    X, groups = encode_threshold_value(values, peak_width=width)
    for name, v in _decode_all(X, groups, THRESHOLD_ENCODINGS).items():
        np.testing.assert_allclose(v, values, atol=1e-6, err_msg=name)


def test_gray_code_changes_one_bit_per_step():
    X, _ = encode_threshold_value(np.arange(101), ("gray",))
    assert np.all(np.abs(np.diff(X, axis=0)).sum(axis=1) == 1)
    assert len({tuple(r) for r in X}) == 101


def test_threshold_subset_and_order_of_encodings():
    X, y, groups = make_threshold(50, encodings=("value", "unary"), random_state=2)
    assert X.shape == (50, 101)
    assert [g.size for g in groups] == [1, 100]
    np.testing.assert_allclose(X[:, 1:].sum(axis=1), X[:, 0] * 100)


def test_threshold_shared_between_train_and_test():
    X, y, groups, t = make_threshold(100, random_state=0, return_threshold=True)
    X_test, y_test, _, t_test = make_threshold(300, threshold=t, random_state=1,
                                               return_threshold=True)
    assert t_test == t
    v_test = np.rint(X_test[:, -1] * 100)
    np.testing.assert_array_equal(y_test, (v_test > t).astype(int))
    # a fixed threshold is honoured exactly, and the same seed reproduces the data
    a = make_threshold(40, threshold=50.5, random_state=7)
    b = make_threshold(40, threshold=50.5, random_state=7)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], (np.rint(a[0][:, -1] * 100) > 50.5).astype(int))


@pytest.mark.parametrize("kwargs, match", [
    ({"encodings": ("gray", "morse")}, "morse"), ({"encodings": ()}, "encodings"),
    ({"encodings": "gray"}, "encodings"), ({"encodings": ("gray", "gray")}, "repeat"),
    ({"peak_width": 0.0}, "peak_width"), ({"threshold": np.nan}, "threshold"),
    ({"n_samples": -3}, "n_samples"),
])
def test_threshold_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_threshold(**kwargs)


def test_encode_threshold_value_rejects_bad_values():
    with pytest.raises(ValueError, match="values"):
        encode_threshold_value([101])
    with pytest.raises(ValueError, match="integers"):
        encode_threshold_value([1.5])


# -- make_contaminated_logistic -----------------------------------------------------------------
def test_contaminated_without_outliers():
    X, y, beta, is_outlier = make_contaminated_logistic(random_state=0)
    assert X.shape == (1000, 20) and y.shape == (1000,)
    assert np.isclose(np.linalg.norm(beta), 1.0)
    assert not is_outlier.any() and is_outlier.dtype == bool
    assert set(np.unique(y)) == {-1, 1}


def test_contaminated_outliers_follow_the_opposite_model():
    n = 1000
    X, y, beta, is_outlier = make_contaminated_logistic(n, 20, outlier_ratio=1.2,
                                                        random_state=0)
    assert X.shape == (2200, 20)
    np.testing.assert_array_equal(is_outlier, np.arange(2200) >= n)
    out = X[is_outlier]
    assert np.all(np.abs(out) <= 10.0) and np.abs(out).max() > 9.0
    np.testing.assert_array_equal(y[is_outlier], -np.sign(out @ beta))
    # the authentic rows do not depend on the number of outliers
    X0, y0, beta0, _ = make_contaminated_logistic(n, 20, random_state=0)
    np.testing.assert_array_equal(X[:n], X0)
    np.testing.assert_array_equal(y[:n], y0)
    np.testing.assert_array_equal(beta, beta0)


def test_contaminated_outlier_count_and_scale():
    X, y, beta, is_outlier = make_contaminated_logistic(50, 3, n_outliers=7, outlier_scale=2.0,
                                                        random_state=1)
    assert X.shape == (57, 3) and is_outlier.sum() == 7
    assert np.all(np.abs(X[is_outlier]) <= 2.0)


def test_contaminated_classification_noise_rate():
    # P(sign(z + v) != sign(z)) = arctan(sigma_e) / pi for z ~ N(0, 1), v ~ N(0, sigma_e^2)
    X, y, beta, _ = make_contaminated_logistic(20000, 5, noise_std=0.5, random_state=0)
    assert abs(np.mean(y != np.sign(X @ beta)) - np.arctan(0.5) / np.pi) < 0.012
    X, y, beta, _ = make_contaminated_logistic(500, 5, noise_std=0.0, random_state=0)
    np.testing.assert_array_equal(y, np.sign(X @ beta))


def test_contaminated_regression_is_the_logistic_model():
    from sklearn.linear_model import LogisticRegression

    X, y, beta, _ = make_contaminated_logistic(20000, 5, task="regression", noise_std=0.0,
                                               random_state=0)
    coef = LogisticRegression(C=1e6, fit_intercept=False).fit(X, y).coef_.ravel()
    # maximum likelihood recovers beta* itself (unit norm), not only its direction
    assert np.linalg.norm(coef - beta) < 0.1


@pytest.mark.parametrize("kwargs, match", [
    ({"n_outliers": 3, "outlier_ratio": 0.1}, "at most one"),
    ({"outlier_ratio": -0.1}, "outlier_ratio"), ({"n_outliers": 1.5}, "n_outliers"),
    ({"task": "ranking"}, "task"), ({"outlier_scale": 0.0}, "outlier_scale"),
    ({"noise_std": -1.0}, "noise_std"),
])
def test_contaminated_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_contaminated_logistic(**kwargs)


# -- make_structurally_missing ------------------------------------------------------------------
def _instance_margins(X, w):
    valid = ~np.isnan(X)
    return np.nan_to_num(X) @ w / np.linalg.norm(np.where(valid, w, 0.0), axis=1)


def test_structurally_missing_block_structure():
    X, y, blocks = make_structurally_missing(2000, 4, 5, missing_prob=0.5, random_state=0,
                                             return_blocks=True)
    assert X.shape == (2000, 20)
    assert set(np.unique(y)) == {-1, 1}
    np.testing.assert_array_equal(np.concatenate(blocks), np.arange(20))
    absent = np.stack([np.isnan(X[:, b]).all(axis=1) for b in blocks], axis=1)
    partial = np.stack([np.isnan(X[:, b]).any(axis=1) for b in blocks], axis=1)
    np.testing.assert_array_equal(absent, partial)  # blocks are absent whole or not at all
    assert absent.sum(axis=1).max() <= 3  # every instance keeps at least one block
    # independent absence w.p. 1/2, minus the 1/16 of instances that get one block back
    assert np.allclose(absent.mean(axis=0), 0.5 - 1 / 64, atol=0.04)


def test_structurally_missing_per_block_sizes_and_probabilities():
    X, y, blocks = make_structurally_missing(500, 3, [2, 3, 4], missing_prob=[0.0, 1.0, 0.5],
                                             random_state=1, return_blocks=True)
    assert X.shape == (500, 9) and [b.size for b in blocks] == [2, 3, 4]
    assert not np.isnan(X[:, blocks[0]]).any()
    assert np.isnan(X[:, blocks[1]]).all()
    assert 0.4 < np.isnan(X[:, blocks[2][0]]).mean() < 0.6


@FAST
@given(n=st.integers(1, 200), blocks=st.integers(1, 5), size=st.integers(1, 4),
       prob=st.floats(0, 0.95), margin=st.floats(0, 2), seed=st.integers(0, 2**32 - 1))
def test_structurally_missing_labels_follow_own_subspace_rule(n, blocks, size, prob, margin,
                                                             seed):
    X, y, w = make_structurally_missing(n, blocks, size, missing_prob=prob, margin=margin,
                                        noise_std=0.0, random_state=seed, return_coef=True)
    assert (~np.isnan(X)).any(axis=1).all()
    rho = _instance_margins(X, w)
    np.testing.assert_array_equal(y, np.sign(rho))
    assert np.all(np.abs(rho) >= margin - 1e-9)


def test_structurally_missing_noise_is_measured_in_own_subspace():
    X, y, w = make_structurally_missing(40000, 4, 5, missing_prob=0.5, noise_std=0.5,
                                        random_state=0, return_coef=True)
    wrong = y != np.sign(_instance_margins(X, w))
    n_present = (~np.isnan(X)).sum(axis=1) // 5
    expected = np.arctan(0.5) / np.pi  # the same for every missingness pattern
    for k in (1, 4):
        assert abs(wrong[n_present == k].mean() - expected) < 0.025


def test_structurally_missing_is_deterministic():
    a = make_structurally_missing(100, random_state=5)
    b = make_structurally_missing(100, random_state=5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("kwargs, match", [
    ({"missing_prob": 1.0}, "missing_prob"), ({"missing_prob": [0.1, 0.2]}, "missing_prob"),
    ({"block_size": [1, 2]}, "block_size"), ({"block_size": 0}, "block_size"),
    ({"n_blocks": 0}, "n_blocks"), ({"margin": -1.0}, "margin"),
    ({"noise_std": np.nan}, "noise_std"),
])
def test_structurally_missing_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_structurally_missing(**kwargs)
