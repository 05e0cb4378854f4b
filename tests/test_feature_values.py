"""Dekel & Shamir's mutual-information feature values against a direct computation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf.feature_values import mutual_info_values, resolve_feature_values


def direct_mutual_info(x, y):
    """max_c I([x > c]; y) by looping over thresholds and counting (natural log)."""
    best = 0.0
    for c in np.unique(x)[:-1]:
        b = x > c
        info = 0.0
        for side in (False, True):
            for label in np.unique(y):
                p = np.mean((b == side) & (y == label))
                if p > 0:
                    info += p * np.log(p / (np.mean(b == side) * np.mean(y == label)))
        best = max(best, info)
    return best


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n_classes=st.integers(2, 3))
def test_matches_direct_computation_and_sums_to_n(seed, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(30, 5)).astype(float)
    y = rng.integers(0, n_classes, size=30)
    y[:n_classes] = np.arange(n_classes)
    X[:, 0] = 1.0  # a constant feature carries no information
    raw = np.array([direct_mutual_info(X[:, j], y) for j in range(5)])
    if raw.sum() == 0:
        return
    values = mutual_info_values(X, y)
    np.testing.assert_allclose(values, raw * 5 / raw.sum(), atol=1e-10)
    assert values[0] == 0.0
    assert values.sum() == pytest.approx(5.0)


def test_informative_feature_gets_the_largest_value():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    X = rng.normal(size=(500, 4))
    X[:, 2] += 3 * y
    assert np.argmax(mutual_info_values(X, y)) == 2


def test_resolve():
    X = np.zeros((3, 4))
    np.testing.assert_array_equal(resolve_feature_values("uniform", X), np.ones(4))
    with pytest.raises(ValueError, match="mutual_info"):
        resolve_feature_values("mutual_info", X)
    with pytest.raises(ValueError, match="feature_values"):
        resolve_feature_values("entropy", X)
    with pytest.warns(UserWarning, match="uniform"):
        np.testing.assert_array_equal(mutual_info_values(X, [0, 1, 0]), np.ones(4))
