"""make_subtype_missing: structural absence per object subtype (Chechik et al. 2007, §1, §4)."""

import numpy as np
import pytest

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
