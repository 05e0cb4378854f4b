"""The shared adversary solver against brute-force enumeration (Dekel & Shamir, Eqs. 2, 6, 7)."""

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import robustclf._worst_case as wc
from robustclf._worst_case import (
    csr_knapsack_deletion,
    exact_knapsack_deletion,
    greedy_knapsack_deletion,
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


def sequential_greedy(gains_row, values, budget):
    """The paper's greedy adversary for one row, written as a plain loop."""
    pairs = enumerate(zip(gains_row, values, strict=True))
    ratio = [(g / v if v > 0 else np.inf, j) for j, (g, v) in pairs if g > 0]
    ratio.sort(key=lambda t: (-t[0], t[1]))
    used, deleted = 0.0, np.zeros(values.size, dtype=bool)
    for _, j in ratio:
        if used + values[j] <= budget * (1 + 1e-12) + 1e-12:
            used += values[j]
            deleted[j] = True
    return deleted


# Small integers make ties, zero gains and zero-valued features frequent.
small_ints = st.integers(-3, 3).map(float)


@st.composite
def knapsack_instances(draw, integer_values=False, unit_values=False, max_features=7):
    n = draw(st.integers(1, max_features))
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
def test_relaxation_and_greedy_are_exact_for_unit_values(instance):
    gains, values, budget = instance
    expected = brute_force(gains, values, budget)
    np.testing.assert_allclose(knapsack_deletion(gains, values, budget).relaxed_gain, expected,
                               atol=1e-9)
    np.testing.assert_allclose(greedy_knapsack_deletion(gains, values, budget)[0], expected,
                               atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(knapsack_instances())
def test_relaxation_and_greedy_bracket_the_optimum(instance):
    gains, values, budget = instance
    solution = knapsack_deletion(gains, values, budget)
    greedy_gain, greedy_mask = greedy_knapsack_deletion(gains, values, budget)
    optimum = brute_force(gains, values, budget)
    assert np.all(solution.relaxed_gain >= optimum - 1e-9)
    assert np.all(greedy_gain <= optimum + 1e-9)
    # the greedy deletion is feasible and its gain is what it claims
    assert np.all(greedy_mask @ values <= budget + 1e-9)
    np.testing.assert_allclose(np.where(greedy_mask, gains, 0).sum(1), greedy_gain, atol=1e-9)
    # the fractional solution is feasible, attains the relaxed value, has <= 1 fractional entry
    fractions = solution.fractions
    assert np.all((fractions >= 0) & (fractions <= 1))
    assert np.all(fractions @ values <= budget + 1e-9)
    np.testing.assert_allclose((fractions * gains).sum(1), solution.relaxed_gain, atol=1e-9)
    assert np.all(((fractions > 0) & (fractions < 1)).sum(axis=1) <= 1)
    # features that do not help the adversary are never deleted
    assert not np.any(greedy_mask & (gains <= 0))


@settings(max_examples=200, deadline=None)
@given(knapsack_instances())
def test_greedy_skips_what_does_not_fit_and_goes_on(instance):
    gains, values, budget = instance
    _, mask = greedy_knapsack_deletion(gains, values, budget)
    for i in range(gains.shape[0]):
        np.testing.assert_array_equal(mask[i], sequential_greedy(gains[i], values, budget))


def test_greedy_goes_on_past_a_feature_that_does_not_fit():
    # ratios 3, 2, 1: item 0 fits (value 1), item 1 (value 2) does not fit in the 1 left,
    # item 2 (value 1) does. Stopping at item 1 would leave the budget half unused.
    gains = np.array([[3.0, 4.0, 1.0]])
    values = np.array([1.0, 2.0, 1.0])
    gain, mask = greedy_knapsack_deletion(gains, values, 2.0)
    assert mask.tolist() == [[True, False, True]]
    assert gain[0] == 4.0


@settings(max_examples=200, deadline=None)
@given(st.one_of(knapsack_instances(integer_values=True), knapsack_instances(max_features=9)))
def test_exact_solver_matches_enumeration(instance):
    gains, values, budget = instance
    expected = brute_force(gains, values, budget)
    methods = ["milp", "highs", "auto"] + (["dp"] if np.all(values == np.round(values)) else [])
    for method in methods:
        with pytest.MonkeyPatch.context() as mp:
            if method == "highs":  # no enumeration fast path: every open row goes to HiGHS
                mp.setattr(wc, "_ENUM_MAX_VARS", -1)
            sol = exact_knapsack_deletion(gains, values, budget,
                                          method="milp" if method == "highs" else method)
        assert sol.solved.all() and sol.status == "optimal"
        np.testing.assert_allclose(sol.gain, expected, atol=1e-9)
        assert np.all(sol.bound >= expected - 1e-9)
        assert np.all(sol.mask @ values <= budget * (1 + 1e-12) + 1e-12)
        np.testing.assert_allclose(np.where(sol.mask, gains, 0).sum(1), sol.gain, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(knapsack_instances(max_features=9))
def test_exact_lies_between_greedy_and_relaxation(instance):
    gains, values, budget = instance
    sol = exact_knapsack_deletion(gains, values, budget, method="milp")
    assert np.all(greedy_knapsack_deletion(gains, values, budget)[0] <= sol.gain + 1e-12)
    assert np.all(sol.gain <= knapsack_deletion(gains, values, budget).relaxed_gain + 1e-12)


@pytest.mark.parametrize("enumerate_up_to", [-1, 3, 12])
def test_block_diagonal_milp_solves_many_rows_at_once(monkeypatch, enumerate_up_to):
    # 200 rows x 12 real-valued features, blocks of at most 8 binaries: every block boundary
    # and every block size is exercised, against enumeration; the fast path takes no rows (-1),
    # some, or all.
    rng = np.random.default_rng(4)
    gains = rng.normal(size=(200, 12))
    values = rng.uniform(0.1, 2.0, size=12)
    monkeypatch.setattr(wc, "_MILP_BLOCK_VARS", 8)
    monkeypatch.setattr(wc, "_ENUM_MAX_VARS", enumerate_up_to)
    monkeypatch.setattr(wc, "_ENUM_ENTRIES", 1000)  # chunks of rows in the enumeration
    sol = exact_knapsack_deletion(gains, values, 3.3)
    assert sol.method == "milp" and sol.solved.all()
    np.testing.assert_allclose(sol.gain, brute_force(gains, values, 3.3), atol=1e-9)
    assert np.all(sol.mask @ values <= 3.3 + 1e-9)
    np.testing.assert_allclose(np.where(sol.mask, gains, 0).sum(1), sol.gain, atol=1e-12)


def test_reduced_cost_fixing_keeps_the_optimum():
    rng = np.random.default_rng(5)
    gains = rng.normal(size=(300, 10))
    values = rng.uniform(0.1, 2.0, size=10)
    budget = 4.0
    limit = budget * (1 + 1e-12) + 1e-12
    fit = np.where(gains > 0, gains, 0.0)
    relax = knapsack_deletion(fit, values, budget)
    greedy, _ = greedy_knapsack_deletion(gains, values, budget)
    fixed_in, free_vars = wc._fix_items(fit, values, relax.fractions, limit, greedy,
                                        np.zeros(300))
    optimum = brute_force(gains, values, budget)
    assert fixed_in.any() and (free_vars.sum() < (fit > 0).sum())  # the reduction does reduce
    # the fixed items in, the dropped ones out, the free ones enumerated: the same optimum (the
    # greedy deletion agrees with every fixing, so even where it is optimal nothing is lost)
    for i in range(300):
        cols = np.flatnonzero(free_vars[i])
        room = budget - values[fixed_in[i]].sum()
        assert room >= -1e-12
        best = fit[i][fixed_in[i]].sum() + brute_force(fit[i:i + 1, cols], values[cols], room)[0]
        assert best == pytest.approx(optimum[i], abs=1e-9)


def test_enumeration_handles_rows_with_every_item_fixed():
    gains = np.array([[3.0, 1.0, 0.5], [3.0, 1.0, 0.5]])
    values = np.ones(3)
    fixed_in = np.array([[True, False, False], [False, False, False]])
    free_vars = np.array([[False, False, False], [False, True, True]])
    gain, mask = wc._enumerate_rows(gains, values, 1.0, fixed_in, free_vars)
    assert gain.tolist() == [3.0, 1.0]
    assert mask.tolist() == [[True, False, False], [False, True, False]]


def test_time_limit_leaves_rows_bracketed_not_guessed(monkeypatch):
    monkeypatch.setattr(wc, "_ENUM_MAX_VARS", -1)  # every open row needs HiGHS
    rng = np.random.default_rng(6)
    gains = rng.normal(size=(50, 30))
    values = rng.uniform(0.2, 2.0, size=30)
    sol = exact_knapsack_deletion(gains, values, 5.0, method="milp", time_limit=0.0)
    greedy, _ = greedy_knapsack_deletion(gains, values, 5.0)
    assert not sol.solved.all() and "time limit" in sol.status
    np.testing.assert_allclose(sol.gain, greedy)  # nothing solved: the greedy deletion
    assert np.all(sol.bound >= sol.gain)
    assert np.all(sol.mask @ values <= 5.0 + 1e-9)
    full = exact_knapsack_deletion(gains, values, 5.0, method="milp")
    assert full.solved.all()
    assert np.all((sol.gain <= full.gain + 1e-12) & (full.gain <= sol.bound + 1e-12))


def test_fractional_item_uses_the_remaining_budget():
    # ratios 3, 2, 1: take item 0 (value 1), then half of item 1 (value 2) with budget 2
    gains = np.array([[3.0, 4.0, 1.0]])
    values = np.array([1.0, 2.0, 1.0])
    solution = knapsack_deletion(gains, values, 2.0)
    np.testing.assert_allclose(solution.fractions, [[1.0, 0.5, 0.0]])
    assert solution.relaxed_gain[0] == 5.0
    sol = exact_knapsack_deletion(gains, values, 2.0)
    assert sol.gain[0] == 4.0  # {0, 2} and {1} both reach 4
    assert sol.mask[0] @ values <= 2.0 and np.where(sol.mask, gains, 0).sum() == 4.0


def test_free_features_are_always_deleted():
    gains = np.array([[1.0, 5.0, -1.0]])
    values = np.array([0.0, 1.0, 0.0])
    assert knapsack_deletion(gains, values, 0.0).relaxed_gain[0] == 1.0
    gain, mask = greedy_knapsack_deletion(gains, values, 0.0)
    assert mask.tolist() == [[True, False, False]] and gain[0] == 1.0
    real_values = np.array([0.0, 1.5, 0.0])  # the MILP path
    assert exact_knapsack_deletion(gains, real_values, 0.0).mask.tolist() == [[True, False, False]]


def test_exact_solver_rejects_bad_methods_and_huge_tables():
    rng = np.random.default_rng(0)
    gains = rng.normal(size=(10, 30))
    with pytest.raises(ValueError, match="integer feature values"):
        exact_knapsack_deletion(gains, rng.uniform(0.5, 1.5, 30), 5.0, method="dp")
    with pytest.raises(ValueError, match="max_work"):
        exact_knapsack_deletion(gains, np.ones(30), 20.0, method="dp", max_work=100)
    with pytest.raises(ValueError, match="method must be"):
        exact_knapsack_deletion(gains, np.ones(30), 2.0, method="enumerate")
    # "auto" falls back to the MILP when the table is too large
    sol = exact_knapsack_deletion(gains, np.ones(30), 20.0, max_work=100)
    assert sol.method == "milp" and sol.solved.all()
    np.testing.assert_allclose(sol.gain, exact_knapsack_deletion(gains, np.ones(30), 20.0).gain)


def test_no_features_means_no_harm():
    solution = knapsack_deletion(np.zeros((3, 0)), np.zeros(0), 1.0)
    assert solution.relaxed_gain.tolist() == [0.0, 0.0, 0.0]
    gain, mask = greedy_knapsack_deletion(np.zeros((3, 0)), np.zeros(0), 1.0)
    assert gain.tolist() == [0.0, 0.0, 0.0] and mask.shape == (3, 0)


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


@pytest.mark.parametrize("budget", [0.0, 0.7, 2.5, 40.0])
def test_csr_knapsack_is_the_dense_knapsack_on_stored_entries(budget):
    """Entries not stored are non-positive gains: the sparse solve equals the dense one."""
    import scipy.sparse as sp

    rng = np.random.default_rng(3)
    gains = rng.normal(size=(60, 25)) * (rng.random((60, 25)) < 0.3)
    values = rng.uniform(0.2, 2.0, size=25)
    values[3] = 0.0                                  # a free feature
    dense = knapsack_deletion(gains, values, budget)
    relaxed, fractions = csr_knapsack_deletion(sp.csr_matrix(gains), values, budget)
    np.testing.assert_allclose(relaxed, dense.relaxed_gain, atol=1e-12)
    np.testing.assert_allclose((fractions.toarray() * gains).sum(axis=1), relaxed, atol=1e-12)
    assert np.all((fractions.toarray() * values).sum(axis=1) <= budget * (1 + 1e-9) + 1e-9)
