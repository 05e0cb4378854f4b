"""make_subtype_missing: structural absence per object subtype (Chechik et al. 2007, §1, §4)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf.datasets import make_subtype_missing

PARTS = np.array([[1, 1, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0]], dtype=bool)


def _scores(X, W, t, parts, block_size):
    valid = np.repeat(parts, block_size, axis=1)
    w = np.where(valid, W, 0.0)[t]
    return np.nansum(X * w, axis=1), np.linalg.norm(w, axis=1)


def test_shapes_and_nan_pattern_is_exactly_the_subtypes_parts():
    X, y, t, parts = make_subtype_missing(500, n_subtypes=3, n_blocks=4, block_size=2,
                                          subtype_blocks=PARTS, random_state=0,
                                          return_subtypes=True)
    assert X.shape == (500, 8) and y.shape == (500,) and t.shape == (500,)
    assert set(np.unique(y)) == {-1, 1} and set(np.unique(t)) == {0, 1, 2}
    np.testing.assert_array_equal(parts, PARTS)
    np.testing.assert_array_equal(~np.isnan(X), np.repeat(PARTS, 2, axis=1)[t])
    assert np.unique(np.isnan(X), axis=0).shape[0] == 3  # one missingness pattern per subtype


def test_random_part_table_and_subtype_frequencies():
    X, y, t, parts = make_subtype_missing(4000, n_subtypes=5, n_blocks=7, block_prob=0.3,
                                          subtype_probs=[4, 1, 1, 1, 1], random_state=1,
                                          return_subtypes=True)
    assert parts.shape == (5, 7) and parts.any(axis=1).all()
    np.testing.assert_array_equal(~np.isnan(X), np.repeat(parts, 3, axis=1)[t])
    assert abs(np.mean(t == 0) - 0.5) < 0.03
    full = make_subtype_missing(50, n_subtypes=2, block_prob=1.0, random_state=1)[0]
    assert not np.isnan(full).any()


@pytest.mark.parametrize("noise", ["subspace", "full"])
def test_labels_follow_the_rule_on_existing_parts(noise):
    X, y, t, parts, W = make_subtype_missing(800, n_subtypes=3, n_blocks=4, block_size=2,
                                             subtype_blocks=PARTS, coef_similarity=0.3,
                                             noise=noise, noise_std=0.0, random_state=2,
                                             return_subtypes=True, return_coef=True)
    np.testing.assert_allclose(np.linalg.norm(W, axis=1), 1.0)
    score, _ = _scores(X, W, t, parts, 2)
    np.testing.assert_array_equal(y, np.where(score >= 0, 1, -1))
    # with several rules the subtypes really are classified differently
    assert not np.allclose(W[0], W[1])


def test_noise_location_subspace_versus_full():
    kw = dict(n_subtypes=3, n_blocks=4, block_size=2, subtype_blocks=PARTS, noise_std=0.5,
              return_subtypes=True, return_coef=True)
    rates = {}
    for noise in ("subspace", "full"):
        X, y, t, parts, W = make_subtype_missing(30000, noise=noise, random_state=3, **kw)
        score, norm = _scores(X, W, t, parts, 2)
        wrong = y != np.where(score >= 0, 1, -1)
        rates[noise] = np.array([wrong[t == k].mean() for k in range(3)]), norm
    # subspace: flip rate arctan(0.5) / pi for every subtype
    np.testing.assert_allclose(rates["subspace"][0], np.arctan(0.5) / np.pi, atol=0.015)
    # full: the noise is relative to ||w_t[F_t]||, so it is larger for subtypes with less weight
    norms = np.array([rates["full"][1][t == k][0] for k in range(3)])
    np.testing.assert_allclose(rates["full"][0], np.arctan(0.5 / norms) / np.pi, atol=0.015)


def test_subtype_shift_moves_the_means():
    X, _, t, _ = make_subtype_missing(6000, n_subtypes=2, block_prob=1.0, subtype_shift=2.0,
                                      random_state=4, return_subtypes=True)
    gap = np.abs(X[t == 0].mean(axis=0) - X[t == 1].mean(axis=0))
    assert gap.mean() > 1.0
    X0, _, t0, _ = make_subtype_missing(6000, n_subtypes=2, block_prob=1.0, random_state=4,
                                        return_subtypes=True)
    assert np.abs(X0[t0 == 0].mean(axis=0) - X0[t0 == 1].mean(axis=0)).max() < 0.15


def test_deterministic_per_seed():
    a = make_subtype_missing(300, subtype_shift=1.0, coef_similarity=0.5, random_state=7)
    b = make_subtype_missing(300, subtype_shift=1.0, coef_similarity=0.5, random_state=7)
    c = make_subtype_missing(300, subtype_shift=1.0, coef_similarity=0.5, random_state=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(np.isnan(a[0]), np.isnan(c[0])) or \
        not np.allclose(np.nan_to_num(a[0]), np.nan_to_num(c[0]))


@pytest.mark.parametrize("kwargs, name", [
    ({"n_samples": 0}, "n_samples"), ({"n_subtypes": 0}, "n_subtypes"),
    ({"n_blocks": 1.5}, "n_blocks"), ({"block_size": 0}, "block_size"),
    ({"block_prob": 0.0}, "block_prob"), ({"block_prob": 1.5}, "block_prob"),
    ({"coef_similarity": 1.5}, "coef_similarity"), ({"subtype_shift": -1.0}, "subtype_shift"),
    ({"noise": "gaussian"}, "noise"), ({"noise_std": -0.1}, "noise_std"),
    ({"subtype_probs": [1.0, 0.0]}, "subtype_probs"),
    ({"subtype_probs": [-1.0, 1.0, 1.0, 1.0]}, "subtype_probs"),
    ({"subtype_blocks": np.ones((4, 5), dtype=bool)}, "subtype_blocks"),
    ({"subtype_blocks": np.ones((4, 6))}, "subtype_blocks"),
    ({"subtype_blocks": np.eye(4, 6, dtype=bool) & False}, "subtype_blocks"),
])
def test_bad_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make_subtype_missing(**kwargs)


# ------------------------------------------------------------------------------------------
# Options that leave room above the Bayes error (issue 15): per-subtype thresholds,
# label-dependent absence, and the exact posterior.
# ------------------------------------------------------------------------------------------
SUBTYPE_PARTS = np.array([[1, 1, 1, 1, 1, 0], [1, 1, 1, 0, 0, 1], [1, 0, 0, 1, 0, 1],
                          [0, 1, 0, 0, 1, 0]], dtype=bool)


def test_default_output_is_pinned():
    # values of the generator before the options existed (seed 5)
    X, y = make_subtype_missing(200, random_state=5)
    assert y[:16].tolist() == [-1, -1, -1, 1, 1, 1, -1, -1, -1, -1, 1, -1, -1, -1, 1, -1]
    np.testing.assert_allclose(X[0, 9:], [-0.363319, 1.185616, 0.826011, 0.729282, 0.803015,
                                          -1.014277, 0.373448, 1.588412, -0.695796], atol=1e-6)
    assert np.isnan(X[0, :9]).all()


def test_options_draw_after_everything_else():
    kw = dict(subtype_blocks=SUBTYPE_PARTS, coef_similarity=0.3, subtype_shift=0.5,
              random_state=6, return_subtypes=True, return_coef=True)
    X, y, t, _, W = make_subtype_missing(500, **kw)
    Xb, yb, tb, _, Wb = make_subtype_missing(500, subtype_threshold=1.0, **kw)
    np.testing.assert_array_equal(X, Xb)
    np.testing.assert_array_equal(t, tb)
    np.testing.assert_array_equal(W, Wb)
    assert (y != yb).any()
    Xc, yc, tc, _, _ = make_subtype_missing(500, label_absence=0.5, **kw)
    np.testing.assert_array_equal(y, yc)
    seen = ~np.isnan(Xc)
    np.testing.assert_array_equal(X[seen], Xc[seen])  # hiding only removes values


def test_thresholds_are_per_subtype_and_shift_base_rates():
    X, y, t, _, W = make_subtype_missing(20000, subtype_blocks=SUBTYPE_PARTS,
                                         subtype_threshold=1.0, noise_std=0.0, random_state=7,
                                         return_subtypes=True, return_coef=True)
    rates = np.array([np.mean(y[t == k] == 1) for k in range(4)])
    assert rates.max() - rates.min() > 0.2  # subtypes differ in base rate
    # within a subtype the label is a threshold on the subspace margin
    valid = np.repeat(SUBTYPE_PARTS, 3, axis=1)
    w = np.where(valid, W, 0.0)
    margin = np.nansum(X * w[t], axis=1) / np.linalg.norm(w, axis=1)[t]
    for k in range(4):
        pos, neg = margin[(t == k) & (y == 1)], margin[(t == k) & (y == -1)]
        assert pos.min() >= neg.max()


def test_label_absence_hides_only_positive_rows_never_the_first_block():
    X, y, t, parts = make_subtype_missing(3000, subtype_blocks=SUBTYPE_PARTS, label_absence=0.4,
                                          random_state=8, return_subtypes=True)
    full = np.repeat(parts, 3, axis=1)[t]
    seen = ~np.isnan(X)
    assert not (seen & ~full).any()
    np.testing.assert_array_equal(seen[y == -1], full[y == -1])
    hidden_blocks = (full & ~seen)[:, ::3]
    assert hidden_blocks[y == 1].any()
    first = np.argmax(parts, axis=1)[t]
    assert seen[:, ::3][np.arange(t.size), first].all()
    # each other existing block of a positive row is hidden with probability 0.4
    others = parts[t] & (np.arange(6) != first[:, None])
    rate = hidden_blocks[(y == 1)[:, None] & others].mean()
    assert abs(rate - 0.4) < 0.03


@settings(max_examples=8, deadline=None, derandomize=True)
@given(threshold=st.sampled_from([0.0, 1.0]), absence=st.sampled_from([0.0, 0.3]),
       shift=st.sampled_from([0.0, 1.0]), noise=st.sampled_from(["subspace", "full"]),
       seed=st.integers(0, 1000))
def test_posterior_is_calibrated(threshold, absence, shift, noise, seed):
    X, y, p = make_subtype_missing(10000, subtype_blocks=SUBTYPE_PARTS, coef_similarity=0.5,
                                   subtype_threshold=threshold, label_absence=absence,
                                   subtype_shift=shift, noise=noise, random_state=seed,
                                   return_posterior=True)
    assert np.all((p >= 0) & (p <= 1))
    # E[1{y = +1} - p] = 0 overall and within bins of p (the posterior is the truth)
    bins = np.digitize(p, [0.2, 0.5, 0.8])
    for b in range(4):
        rows = bins == b
        if rows.sum() > 300:  # within 4 standard errors of a Bernoulli mean
            assert abs(np.mean(y[rows] == 1) - p[rows].mean()) < 4 * np.sqrt(0.25 / rows.sum())
    # the Bayes rule's error count estimates its expected error mean(min(p, 1 - p))
    bayes = np.minimum(p, 1 - p).mean()
    wrong = np.where(p >= 0.5, 1, -1) != y
    assert abs(wrong.mean() - bayes) < 4 * np.sqrt(bayes * (1 - bayes) / y.size) + 1e-3


def test_posterior_is_the_label_without_noise():
    X, y, p = make_subtype_missing(2000, subtype_blocks=SUBTYPE_PARTS, coef_similarity=0.0,
                                   subtype_threshold=1.0, noise_std=0.0, random_state=9,
                                   return_posterior=True)
    np.testing.assert_array_equal(np.where(p >= 0.5, 1, -1), y)


@pytest.mark.parametrize("kwargs, name", [
    ({"subtype_threshold": -0.5}, "subtype_threshold"), ({"label_absence": 1.0}, "label_absence"),
    ({"label_absence": -0.1}, "label_absence"),
])
def test_bad_new_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make_subtype_missing(**kwargs)
