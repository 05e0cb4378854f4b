"""Tests of RandomDeletion, GroupDeletion, MarginalResampling and FeatureNoise."""

from decimal import ROUND_FLOOR, Decimal
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import chisquare
from sklearn.base import clone

from robustclf.corruption import (
    FeatureNoise,
    GroupDeletion,
    MarginalResampling,
    RandomDeletion,
)

SETTINGS = settings(max_examples=60, deadline=None)

# -- strategies ---------------------------------------------------------------------------------

_finite = st.one_of(
    st.just(0.0), st.sampled_from([1.0, -2.0, 3.5]),
    st.floats(-10, 10, allow_nan=False, allow_infinity=False),
)


def matrices(*, nan=False, min_rows=0, max_rows=8, max_cols=8):
    elements = st.one_of(_finite, st.just(np.nan)) if nan else _finite
    shapes = st.tuples(st.integers(min_rows, max_rows), st.integers(1, max_cols))
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=elements))


# fractions with at most three decimals, so that the rounding oracle below is exact
levels = st.one_of(
    st.builds(dict, k=st.integers(0, 10)),
    st.builds(dict, fraction=st.integers(0, 1000).map(lambda i: i / 1000)),
)
seeds = st.integers(0, 2**32 - 1)
fills = st.sampled_from([0.0, np.nan, -1.0])


@st.composite
def grouped_matrices(draw, nan=False):
    """A matrix and a partition of some of its columns into groups (label -1: no group)."""
    X = draw(matrices(nan=nan))
    labels = draw(hnp.arrays(np.int64, X.shape[1], elements=st.integers(-1, 3)))
    labels[draw(st.integers(0, X.shape[1] - 1))] = draw(st.integers(0, 3))  # >= one group
    groups = [np.flatnonzero(labels == g).tolist() for g in np.unique(labels) if g >= 0]
    return X, groups


def expected_count(m, *, k=None, fraction=None):
    """The documented count: min(k, m), or fraction * m rounded half up (exact decimal oracle)."""
    if k is not None:
        return min(k, m)
    exact = Decimal(repr(fraction)) * m + Decimal("0.5")
    return min(m, int(exact.to_integral_value(rounding=ROUND_FLOOR)))


def expected_counts(m, level):
    return np.array([expected_count(int(mi), **level) for mi in m], dtype=int)


def read_only(X):
    X = np.array(X, copy=True)
    X.flags.writeable = False
    return X


def same(a, b):
    return np.array_equal(a, b, equal_nan=True)


def check_output(X, X_before, out):
    """Shape kept, new float64 array, input untouched, NaN entries still NaN."""
    assert same(X, X_before)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    assert out.shape == X.shape
    assert not np.shares_memory(out, X)
    assert np.isnan(out[np.isnan(X)]).all()


# -- RandomDeletion ----------------------------------------------------------------------------


@SETTINGS
@given(X=matrices(nan=True), level=levels, among=st.sampled_from(["all", "nonzero"]),
       fill=fills, seed=seeds)
def test_random_deletion_counts_and_fill(X, level, among, fill, seed):
    X_before = X.copy()
    X = read_only(X)
    corruption = RandomDeletion(among=among, fill=fill, **level)
    out = corruption.corrupt(X, random_state=seed)
    check_output(X, X_before, out)

    mask = corruption.deletion_mask(X, random_state=seed)
    eligible = ~np.isnan(X) & ((X != 0) if among == "nonzero" else True)
    assert not (mask & ~eligible).any()  # only candidates: present (and non-zero) entries
    np.testing.assert_array_equal(mask.sum(axis=1), expected_counts(eligible.sum(axis=1), level))
    assert same(out[~mask], X[~mask])
    assert same(out[mask], np.full(mask.sum(), fill))


@pytest.mark.parametrize(
    ("fraction", "m", "count"),
    [(0.3, 5, 2), (0.5, 3, 2), (0.5, 5, 3), (0.25, 10, 3), (0.1, 4, 0), (0.7, 5, 4),
     (0.15, 10, 2), (1.0, 7, 7), (0.0, 7, 0), (0.49, 1, 0), (0.5, 1, 1),
     (0.7, 45, 32), (0.58, 25, 15), (0.29, 50, 15)],  # 0.7 * 45 == 31.499999999999996
)
def test_fraction_rounds_half_up(fraction, m, count):
    X = np.ones((3, m))
    mask = RandomDeletion(fraction=fraction).deletion_mask(X, random_state=0)
    np.testing.assert_array_equal(mask.sum(axis=1), count)


def test_random_deletion_k_larger_than_candidates_deletes_all():
    X = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0]])
    mask = RandomDeletion(k=3, among="nonzero").deletion_mask(X, random_state=0)
    np.testing.assert_array_equal(mask.sum(axis=1), [2, 0, 3])
    np.testing.assert_array_equal(mask[0], [True, False, True, False])


def test_random_deletion_is_uniform_over_features():
    n, d, k = 20_000, 10, 3
    mask = RandomDeletion(k=k).deletion_mask(np.ones((n, d)), random_state=12345)
    counts = mask.sum(axis=0)
    assert chisquare(counts).pvalue > 1e-3
    assert np.allclose(counts / (n * k / d), 1.0, atol=0.05)


def test_random_deletion_is_uniform_over_subsets():
    n, d = 12_000, 4
    mask = RandomDeletion(k=2).deletion_mask(np.ones((n, d)), random_state=7)
    pairs = list(combinations(range(d), 2))
    counts = [np.sum(mask[:, i] & mask[:, j]) for i, j in pairs]
    assert sum(counts) == n
    assert chisquare(counts).pvalue > 1e-3


def test_random_deletion_nonzero_is_uniform_among_nonzero():
    n, d = 20_000, 10
    X = np.zeros((n, d))
    X[:, ::2] = 1.0  # five non-zero features per row
    mask = RandomDeletion(k=2, among="nonzero").deletion_mask(X, random_state=3)
    assert not mask[:, 1::2].any()
    assert chisquare(mask[:, ::2].sum(axis=0)).pvalue > 1e-3


# -- GroupDeletion -----------------------------------------------------------------------------


@SETTINGS
@given(data=grouped_matrices(nan=True), level=levels, fill=fills, seed=seeds)
def test_group_deletion_deletes_whole_groups(data, level, fill, seed):
    X, groups = data
    X_before = X.copy()
    X = read_only(X)
    corruption = GroupDeletion(groups, fill=fill, **level)
    out = corruption.corrupt(X, random_state=seed)
    check_output(X, X_before, out)

    mask = corruption.deletion_mask(X, random_state=seed)
    # groups are chosen regardless of the values: the same seed picks the same groups on a
    # NaN-free copy, and NaN entries of a chosen group are left as they are
    full = corruption.deletion_mask(np.nan_to_num(X, nan=1.0), random_state=seed)
    np.testing.assert_array_equal(mask, full & ~np.isnan(X))
    grouped = np.zeros(X.shape[1], dtype=bool)
    n_deleted_groups = np.zeros(X.shape[0], dtype=int)
    for cols in groups:
        grouped[cols] = True
        whole = full[:, cols].all(axis=1)
        assert (whole | ~full[:, cols].any(axis=1)).all()  # all of a group or none of it
        n_deleted_groups += whole
    assert not full[:, ~grouped].any()  # columns in no group are never deleted
    np.testing.assert_array_equal(n_deleted_groups, expected_count(len(groups), **level))
    assert same(out[~mask], X[~mask])
    assert same(out[mask], np.full(mask.sum(), fill))


def test_group_deletion_accepts_one_label_per_feature():
    X = np.arange(1.0, 13.0).reshape(2, 6)
    labels = np.array([0, 0, 1, 1, 1, 2])
    a = GroupDeletion(labels, k=1).deletion_mask(X, random_state=5)
    b = GroupDeletion([[0, 1], [2, 3, 4], [5]], k=1).deletion_mask(X, random_state=5)
    np.testing.assert_array_equal(a, b)


def test_group_deletion_chooses_groups_uniformly():
    n = 9_000
    groups = [[0], [1, 2], [3, 4, 5]]
    mask = GroupDeletion(groups, k=1).deletion_mask(np.ones((n, 6)), random_state=11)
    counts = [mask[:, cols[0]].sum() for cols in groups]
    assert sum(counts) == n
    assert chisquare(counts).pvalue > 1e-3


# -- MarginalResampling ------------------------------------------------------------------------


def coded_reference(n_ref, d):
    """Reference whose entry (r, j) is 1000 + r * d + j: distinct from X and decodable."""
    return 1000.0 + np.arange(n_ref * d, dtype=float).reshape(n_ref, d)


@SETTINGS
@given(X=matrices(nan=True), level=levels, n_ref=st.integers(1, 5), seed=seeds)
def test_marginal_resampling_takes_reference_values(X, level, n_ref, seed):
    d = X.shape[1]
    reference = coded_reference(n_ref, d)
    X_before = X.copy()
    X = read_only(X)
    out = MarginalResampling(reference=read_only(reference), **level).corrupt(X, random_state=seed)
    check_output(X, X_before, out)

    changed = ~same_entries(out, X)
    cols = np.nonzero(changed)[1]
    donors = (out[changed] - 1000.0 - cols) / d
    assert np.all(donors == np.round(donors)) and np.all((donors >= 0) & (donors < n_ref))
    m = (~np.isnan(X)).sum(axis=1)
    np.testing.assert_array_equal(changed.sum(axis=1), expected_counts(m, level))


@SETTINGS
@given(data=grouped_matrices(), level=levels, n_ref=st.integers(1, 5), seed=seeds)
def test_marginal_resampling_groups_share_one_reference_row(data, level, n_ref, seed):
    X, groups = data
    d = X.shape[1]
    out = MarginalResampling(groups=groups, reference=coded_reference(n_ref, d),
                             **level).corrupt(read_only(X), random_state=seed)
    changed = out != X
    grouped = np.zeros(d, dtype=bool)
    n_changed_groups = np.zeros(X.shape[0], dtype=int)
    for cols in groups:
        grouped[cols] = True
        block = changed[:, cols]
        assert (block.all(axis=1) | ~block.any(axis=1)).all()
        rows = block.all(axis=1)
        donors = (out[np.ix_(rows, cols)] - 1000.0 - np.asarray(cols)) / d
        assert (donors == donors[:, :1]).all()  # the same reference row for the whole group
        n_changed_groups += rows
    assert not changed[:, ~grouped].any()
    np.testing.assert_array_equal(n_changed_groups, expected_count(len(groups), **level))


@SETTINGS
@given(shape=st.tuples(st.integers(2, 8), st.integers(1, 6)), level=levels, seed=seeds,
       grouped=st.booleans())
def test_marginal_resampling_without_reference_uses_another_row(shape, level, seed, grouped):
    n, d = shape
    X = 1.0 + np.arange(n * d, dtype=float).reshape(n, d)  # entry (i, j) encodes row i
    groups = [[j] for j in range(d)][::-1] if grouped else None
    out = MarginalResampling(groups=groups, **level).corrupt(read_only(X), random_state=seed)
    rows, cols = np.nonzero(out != X)
    donors = (out[rows, cols] - 1.0 - cols) / d
    assert np.all(donors == np.round(donors)) and np.all(donors != rows)
    np.testing.assert_array_equal((out != X).sum(axis=1), expected_count(d, **level))


def test_marginal_resampling_groups_keep_nan_entries():
    X = np.array([[np.nan, 1.0, 2.0], [3.0, np.nan, np.nan]])
    reference = coded_reference(2, 3)
    out = MarginalResampling(k=2, groups=[[0, 1], [2]], reference=reference).corrupt(
        X, random_state=0)
    assert same(np.isnan(out), np.isnan(X))
    present = ~np.isnan(X)
    assert np.all(out[present] >= 1000.0)  # every present entry of the chosen groups resampled


def test_marginal_resampling_single_row_without_reference_is_unchanged():
    X = np.array([[1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(MarginalResampling(k=3).corrupt(X, random_state=0), X)


def test_marginal_resampling_draws_donors_uniformly():
    n, n_ref = 10_000, 5
    out = MarginalResampling(k=1, reference=coded_reference(n_ref, 1)).corrupt(
        np.zeros((n, 1)), random_state=2)
    donors = (out[:, 0] - 1000.0).astype(int)
    assert chisquare(np.bincount(donors, minlength=n_ref)).pvalue > 1e-3


def same_entries(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


# -- FeatureNoise ------------------------------------------------------------------------------


@SETTINGS
@given(X=matrices(nan=True), level=levels, seed=seeds, scale=st.floats(0.1, 5.0),
       distribution=st.sampled_from(["gaussian", "uniform"]),
       mode=st.sampled_from(["add", "replace"]))
def test_feature_noise_changes_exactly_the_chosen_count(X, level, seed, scale, distribution,
                                                         mode):
    X_before = X.copy()
    X = read_only(X)
    out = FeatureNoise(scale=scale, distribution=distribution, mode=mode, **level).corrupt(
        X, random_state=seed)
    check_output(X, X_before, out)
    changed = ~same_entries(out, X)
    m = (~np.isnan(X)).sum(axis=1)
    if mode == "add":
        np.testing.assert_array_equal(changed.sum(axis=1), expected_counts(m, level))
        if distribution == "uniform":
            assert np.all(np.abs(out[changed] - X[changed]) <= scale)
    else:
        # a replaced entry may by chance equal the old value only with probability zero
        assert (changed.sum(axis=1) <= expected_counts(m, level)).all()
        if distribution == "uniform":
            assert np.all(np.abs(out[changed]) <= scale)


def test_feature_noise_replace_uniform_is_dekel_shamir_noise():
    X = np.full((2_000, 6), 5.0)
    out = FeatureNoise(fraction=0.5, distribution="uniform", mode="replace").corrupt(
        X, random_state=0)
    noisy = out[out != 5.0]
    assert noisy.size == 2_000 * 3
    assert np.abs(noisy).max() <= 1.0 and abs(noisy.mean()) < 0.05
    assert abs(noisy.var() - 1 / 3) < 0.02  # Var U[-1, 1] = 1/3


def test_feature_noise_gaussian_add_has_the_given_std():
    X = np.zeros((5_000, 4))
    out = FeatureNoise(k=4, scale=2.0).corrupt(X, random_state=0)
    assert abs(out.std() - 2.0) < 0.05 and abs(out.mean()) < 0.05


# -- all corruptions ----------------------------------------------------------------------------

CORRUPTIONS = [
    RandomDeletion(fraction=0.5),
    RandomDeletion(k=3, among="nonzero", fill=np.nan),
    GroupDeletion([[0, 1], [2, 3, 4], [5, 6, 7]], k=1),
    MarginalResampling(fraction=0.5),
    MarginalResampling(k=1, groups=[[0, 1], [2, 3, 4]], reference=np.arange(40.0).reshape(5, 8)),
    FeatureNoise(fraction=0.5),
    FeatureNoise(k=2, distribution="uniform", mode="replace"),
]
IDS = [repr(c) for c in CORRUPTIONS]


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=IDS)
def test_seeded_and_reproducible(corruption):
    X = np.random.default_rng(0).normal(size=(50, 8))
    a = corruption.corrupt(X, random_state=1)
    b = corruption.corrupt(X, random_state=1)
    c = corruption.corrupt(X, random_state=2)
    g = corruption.corrupt(X, random_state=np.random.default_rng(1))
    assert same(a, b) and same(a, g)
    assert not same(a, c)


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=IDS)
def test_accepts_lists_and_ints_and_ignores_y_and_model(corruption):
    X = np.arange(24).reshape(3, 8)
    out = corruption.corrupt(X.tolist(), y=[0, 1, 0], random_state=0)
    assert out.dtype == np.float64 and out.shape == (3, 8)
    assert same(out, corruption.corrupt(X, random_state=0))


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=IDS)
def test_empty_input(corruption):
    out = corruption.corrupt(np.zeros((0, 8)), random_state=0)
    assert out.shape == (0, 8)


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=IDS)
def test_clone_and_with_level(corruption):
    clone(corruption)
    name = corruption.level_name
    level = 0.25 if name == "fraction" else 4
    swept = corruption.with_level(level)
    assert getattr(swept, name) == level
    assert getattr(corruption, name) != level  # the original is unchanged
    swept.corrupt(np.ones((4, 8)), random_state=0)


def test_with_level_defaults_to_fraction():
    assert RandomDeletion().with_level(0.3).fraction == 0.3
    assert RandomDeletion(k=2).with_level(4).get_params()["k"] == 4


# -- errors ------------------------------------------------------------------------------------

X8 = np.ones((3, 8))


@pytest.mark.parametrize(
    ("corruption", "match"),
    [
        (RandomDeletion(), "exactly one of k and fraction"),
        (RandomDeletion(k=1, fraction=0.5), "exactly one of k and fraction"),
        (RandomDeletion(k=-1), "k must be"),
        (RandomDeletion(k=1.5), "k must be"),
        (RandomDeletion(k=True), "k must be"),
        (RandomDeletion(fraction=1.5), "fraction must be"),
        (RandomDeletion(fraction=-0.1), "fraction must be"),
        (RandomDeletion(fraction=np.nan), "fraction must be"),
        (RandomDeletion(fraction="half"), "fraction must be"),
        (RandomDeletion(k=1, among="zero"), "among must be"),
        (RandomDeletion(k=1, among=None), "among must be"),
        (RandomDeletion(k=1, fill=np.inf), "fill must be"),
        (RandomDeletion(k=1, fill="0"), "fill must be"),
        (GroupDeletion([[0, 1], [1, 2]], k=1), "groups must be disjoint"),
        (GroupDeletion([[0, 8]], k=1), r"groups\[0\] has a column index outside"),
        (GroupDeletion([], k=1), "groups must be a non-empty"),
        (GroupDeletion([[]], k=1), r"groups\[0\] must be a non-empty"),
        (GroupDeletion([[0.5]], k=1), r"groups\[0\] must be"),
        (GroupDeletion(np.zeros(5, dtype=int), k=1), "groups given as one label per feature"),
        (GroupDeletion([[0]], k=-2), "k must be"),
        (GroupDeletion([[0]], fraction=2.0), "fraction must be"),
        (GroupDeletion([[0]], k=1, fill=-np.inf), "fill must be"),
        (MarginalResampling(k=1, reference=np.ones((4, 7))), "reference has 7 features"),
        (MarginalResampling(k=1, reference=np.ones(8)), "reference must be a 2-D"),
        (MarginalResampling(k=1, reference=np.ones((0, 8))), "reference must have at least one"),
        (MarginalResampling(k=1, reference=np.full((2, 8), np.inf)),
         "reference contains infinite"),
        (MarginalResampling(k=1, groups=[[0, 0]]), "groups must be disjoint"),
        (MarginalResampling(k=-1), "k must be"),
        (MarginalResampling(fraction=3), "fraction must be"),
        (FeatureNoise(k=1, scale=-1.0), "scale must be"),
        (FeatureNoise(k=1, scale=np.nan), "scale must be"),
        (FeatureNoise(k=1, scale=np.inf), "scale must be"),
        (FeatureNoise(k=1, scale="big"), "scale must be"),
        (FeatureNoise(k=1, distribution="laplace"), "distribution must be"),
        (FeatureNoise(k=1, mode="multiply"), "mode must be"),
        (FeatureNoise(), "exactly one of k and fraction"),
    ],
)
def test_bad_parameters_raise(corruption, match):
    with pytest.raises(ValueError, match=match):
        corruption.corrupt(X8, random_state=0)


@pytest.mark.parametrize("corruption", CORRUPTIONS, ids=IDS)
@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.ones(8), "X must be a 2-D array"),
        (np.ones((2, 2, 2)), "X must be a 2-D array"),
        (np.array([[1.0, np.inf] * 4]), "X contains infinite"),
        ([["a"] * 8], "X must be a numeric"),
    ],
)
def test_bad_X_raises(corruption, X, match):
    with pytest.raises(ValueError, match=match):
        corruption.corrupt(X, random_state=0)


def test_bad_random_state_raises():
    with pytest.raises(ValueError, match="random_state"):
        RandomDeletion(k=1).corrupt(X8, random_state="seed")


def test_bad_groups_width_for_X():
    with pytest.raises(ValueError, match="groups"):
        GroupDeletion([[0, 1, 9]], k=1).corrupt(X8)
