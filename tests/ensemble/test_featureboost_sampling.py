"""The vectorised statistics of FeatureBoost (Tables 2-4) against their definitions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf.ensemble._sampling import (
    deemphasize,
    draw_ranks,
    importance,
    make_units,
    marginal_error,
    unit_of_columns,
)


def _first_feature_rule(Z):
    return (Z[:, 0] > 0.5).astype(int)


def test_make_units_groups_then_loose_columns():
    units = make_units([[0, 1], [3]], 5)
    assert [u.tolist() for u in units] == [[0, 1], [3], [2], [4]]
    assert [u.tolist() for u in make_units(None, 3)] == [[0], [1], [2]]
    with pytest.raises(ValueError, match="groups"):
        make_units([[0, 0]], 3)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.0, 5.0), min_size=1, max_size=12), st.integers(0, 2**31 - 1))
def test_draw_ranks_are_permutations_with_zero_weight_units_last(weights, seed):
    p = np.asarray(weights)
    if p.sum() == 0:
        p = np.ones_like(p)
    p = p / p.sum()  # (a denormal weight may underflow to 0 here: count after normalising)
    ranks = draw_ranks(p, 7, np.random.default_rng(seed))
    assert (np.sort(ranks, axis=1) == np.arange(p.size)).all()
    n_positive = int((p > 0).sum())
    assert (ranks[:, p > 0] < n_positive).all()


def test_first_draw_is_proportional_to_p():
    p = np.array([0.5, 0.3, 0.2])
    ranks = draw_ranks(p, 20_000, np.random.default_rng(0))
    first = np.bincount(np.argmin(ranks, axis=1), minlength=3) / 20_000
    np.testing.assert_allclose(first, p, atol=0.015)


def test_importance_matches_its_expectation_and_ignores_unseen_features():
    rng = np.random.default_rng(0)
    X = rng.random((400, 4))
    unit_of = np.arange(4)
    q = np.mean(X[:, 0] > 0.5)
    columns = np.array([0, 2])  # the hypothesis sees columns 0 and 2 and uses column 0

    def predict(Z):
        return _first_feature_rule(Z)

    c = importance(X, predict, columns, unit_of, 4, 4000, rng)
    assert c[1] == 0 and c[3] == 0 and c[2] == 0  # unseen, unseen, seen but unused
    np.testing.assert_allclose(c[0], 2 * q * (1 - q), atol=0.03)  # P(prediction flips)


def test_importance_of_a_group_resamples_the_whole_group():
    X = np.array([[0.0, 0.0], [1.0, 1.0]] * 50)
    unit_of = np.array([0, 0])

    def xor(Z):  # changes only if the two columns disagree: never when copied together
        return (Z[:, 0] != Z[:, 1]).astype(int)

    c = importance(X, xor, np.array([0, 1]), unit_of, 1, 500, np.random.default_rng(0))
    assert c[0] == 0


def test_marginal_error_at_zero_and_all_features():
    rng = np.random.default_rng(1)
    X = rng.random((300, 3))
    y = _first_feature_rule(X)
    unit_of = np.arange(3)
    rows = rng.integers(0, 300, size=2000)
    donors = rng.integers(0, 300, size=(2000, 3))
    ranks = draw_ranks(np.full(3, 1 / 3), 2000, rng)
    errors = marginal_error(X, y, _first_feature_rule, np.arange(3), unit_of, ranks, donors,
                            rows, [0, 3])
    assert errors[0] == 0  # the rule is perfect on clean rows
    q = y.mean()
    np.testing.assert_allclose(errors[1], 2 * q * (1 - q), atol=0.04)


def test_marginal_error_matches_a_direct_transcription_statistically():
    """Table 3 written row by row, with K features drawn from p per example."""
    rng = np.random.default_rng(2)
    X = rng.random((200, 5))
    y = (X[:, 0] + X[:, 1] > 1).astype(int)

    def predict(Z):
        return (Z[:, 0] + Z[:, 1] > 1).astype(int)

    p = np.array([0.4, 0.3, 0.1, 0.1, 0.1])
    K, S = 2, 4000
    # against the labels, as the vectorised version
    direct = []
    for _ in range(S):
        i = rng.integers(200)
        x1 = X[i].copy()
        for f in rng.choice(5, size=K, replace=False, p=p):
            x1[f] = X[rng.integers(200), f]
        direct.append(predict(x1[None])[0] != y[i])
    rows = rng.integers(0, 200, size=S)
    donors = rng.integers(0, 200, size=(S, 5))
    ranks = draw_ranks(p, S, rng)
    vectorised = marginal_error(X, y, predict, np.arange(5), np.arange(5), ranks, donors, rows,
                                [K])[0]
    se = np.sqrt(0.25 / S)
    assert abs(np.mean(direct) - vectorised) < 4 * np.sqrt(2) * se


def test_deemphasize_respects_the_removal_bounds():
    rng = np.random.default_rng(3)
    X = rng.random((100, 20))
    y = _first_feature_rule(X)
    unit_of = unit_of_columns(make_units(None, 20), 20)
    p = np.full(20, 1 / 20)
    common = dict(t=2, n_estimators=20, n_samples=200, rng=rng)
    # an unreachable threshold (error 1 needed) removes the maximum
    removed, k = deemphasize(X, y, _first_feature_rule, np.arange(20), unit_of, p,
                             previous_error=1.0, full_error=1.0, k_min=3, k_max=18, **common)
    assert k == 18 and removed.size == 18 and np.unique(removed).size == 18
    # a threshold of 0 is met at once: the minimum is removed
    removed, k = deemphasize(X, y, _first_feature_rule, np.arange(20), unit_of, p,
                             previous_error=0.0, full_error=0.0, k_min=3, k_max=18, **common)
    assert k == 3 and removed.size == 3


def test_deemphasize_removes_heavy_features_first():
    rng = np.random.default_rng(4)
    X = rng.random((100, 10))
    y = _first_feature_rule(X)
    unit_of = np.arange(10)
    p = np.zeros(10)
    p[[0, 1]] = 0.5
    removed, k = deemphasize(X, y, _first_feature_rule, np.arange(10), unit_of, p,
                             previous_error=0.0, full_error=0.0, t=2, n_estimators=20,
                             n_samples=100, k_min=2, k_max=9, rng=rng)
    assert sorted(removed.tolist()) == [0, 1]
