"""The shared adversary solver against brute-force enumeration (Dekel & Shamir, Eqs. 3, 6, 7)."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robustclf._worst_case import (
    exact_knapsack_deletion,
    knapsack_deletion,
    unit_knapsack_deletion,
)


def brute_force(gains, values, budget):
    """Best 0/1 deletion per row by enumerating every subset."""
    n = gains.shape[1]
    best = np.zeros(gains.shape[0])
    for subset in product((False, True), repeat=n):
        subset = np.array(subset, dtype=bool)
        if values[subset].sum() <= budget * (1 + 1e-12) + 1e-12:
            best = np.maximum(best, gains[:, subset].sum(axis=1))
    return best


# Small integers make ties, zero gains and zero-valued features frequent.
small_ints = st.integers(-3, 3).map(float)


@st.composite
def knapsack_instances(draw, integer_values=False, unit_values=False):
    n = draw(st.integers(1, 7))
    m = draw(st.integers(1, 5))
    gains = draw(st.one_of(arrays(np.float64, (m, n), elements=small_ints),
                           arrays(np.float64, (m, n), elements=st.floats(-2, 2, width=32))))
    if unit_values:
        values = draw(arrays(np.float64, n, elements=st.sampled_from([0.0, 1.0])))
        budget = float(draw(st.integers(0, n)))
    elif integer_values:
        values = draw(arrays(np.float64, n, elements=st.integers(0, 4).map(float)))
        budget = float(draw(st.integers(0, int(values.sum()))))
    else:
        values = draw(arrays(np.float64, n, elements=st.floats(0, 3, width=32)))
        budget = draw(st.floats(0, float(values.sum()) + 0.5))
    return gains, values, budget


@settings(max_examples=200, deadline=None)
@given(knapsack_instances(unit_values=True))
def test_relaxation_is_exact_for_unit_values(instance):
    gains, values, budget = instance
    solution = knapsack_deletion(gains, values, budget)
    expected = brute_force(gains, values, budget)
    np.testing.assert_allclose(solution.relaxed_gain, expected, atol=1e-9)
    np.testing.assert_allclose(solution.greedy_gain, expected, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(knapsack_instances())
def test_relaxation_and_greedy_bracket_the_optimum(instance):
    gains, values, budget = instance
    solution = knapsack_deletion(gains, values, budget)
    optimum = brute_force(gains, values, budget)
    assert np.all(solution.relaxed_gain >= optimum - 1e-9)
    assert np.all(solution.greedy_gain <= optimum + 1e-9)
    # the greedy deletion is feasible and its gain is what it claims
    assert np.all(solution.greedy_mask @ values <= budget + 1e-9)
    np.testing.assert_allclose(np.where(solution.greedy_mask, gains, 0).sum(1),
                               solution.greedy_gain, atol=1e-9)
    # the fractional solution is feasible, attains the relaxed value, has <= 1 fractional entry
    fractions = solution.fractions
    assert np.all((fractions >= 0) & (fractions <= 1))
    assert np.all(fractions @ values <= budget + 1e-9)
    np.testing.assert_allclose((fractions * gains).sum(1), solution.relaxed_gain, atol=1e-9)
    assert np.all(((fractions > 0) & (fractions < 1)).sum(axis=1) <= 1)
    # features that do not help the adversary are never deleted
    assert not np.any(solution.greedy_mask & (gains <= 0))


@settings(max_examples=200, deadline=None)
@given(st.one_of(knapsack_instances(integer_values=True), knapsack_instances()))
def test_exact_solver_matches_enumeration(instance):
    gains, values, budget = instance
    gain, mask = exact_knapsack_deletion(gains, values, budget)
    np.testing.assert_allclose(gain, brute_force(gains, values, budget), atol=1e-9)
    assert np.all(mask @ values <= budget + 1e-9)
    np.testing.assert_allclose(np.where(mask, gains, 0).sum(1), gain, atol=1e-9)


def test_free_features_are_always_deleted():
    gains = np.array([[1.0, 5.0, -1.0]])
    values = np.array([0.0, 1.0, 0.0])
    solution = knapsack_deletion(gains, values, 0.0)
    assert solution.greedy_mask.tolist() == [[True, False, False]]
    assert solution.relaxed_gain[0] == 1.0


def test_fractional_item_uses_the_remaining_budget():
    # ratios 3, 2, 1: take item 0 (value 1), then half of item 1 (value 2) with budget 2
    gains = np.array([[3.0, 4.0, 1.0]])
    values = np.array([1.0, 2.0, 1.0])
    solution = knapsack_deletion(gains, values, 2.0)
    np.testing.assert_allclose(solution.fractions, [[1.0, 0.5, 0.0]])
    assert solution.relaxed_gain[0] == 5.0
    assert solution.greedy_gain[0] == 3.0
    gain, mask = exact_knapsack_deletion(gains, values, 2.0)
    assert gain[0] == 4.0  # {0, 2} and {1} both reach 4
    assert mask[0] @ values <= 2.0 and np.where(mask, gains, 0).sum() == 4.0


def test_exact_solver_refuses_huge_instances():
    import pytest

    rng = np.random.default_rng(0)
    gains = rng.normal(size=(10, 30))
    with pytest.raises(ValueError, match="too many"):
        exact_knapsack_deletion(gains, rng.uniform(0.5, 1.5, 30), 5.0)
    with pytest.raises(ValueError, match="max_work"):
        exact_knapsack_deletion(gains, np.ones(30), 20.0, max_work=100)


def test_no_features_means_no_harm():
    solution = knapsack_deletion(np.zeros((3, 0)), np.zeros(0), 1.0)
    assert solution.relaxed_gain.tolist() == [0.0, 0.0, 0.0]
    assert solution.greedy_mask.shape == (3, 0)


@pytest.mark.parametrize("budget", [0.0, 1.0, 2.5, 7.0, 30.0])
def test_unit_knapsack_equals_the_sorted_knapsack_with_unit_values(budget):
    rng = np.random.default_rng(3)
    gains = np.maximum(rng.standard_normal((2, 40, 12)), 0.0)
    gains[0, :5, :4] = 0.5  # ties at the split
    harm, delta = unit_knapsack_deletion(gains, budget, fractions=True)
    expected = knapsack_deletion(gains.reshape(-1, 12), np.ones(12), budget).relaxed_gain
    np.testing.assert_allclose(harm.ravel(), expected, atol=1e-12)
    # delta is a feasible deletion that attains the harm
    assert np.all((delta >= 0) & (delta <= 1 + 1e-12))
    assert np.all(delta.sum(axis=-1) <= budget + 1e-9)
    np.testing.assert_allclose((delta * gains).sum(axis=-1), harm, atol=1e-12)
