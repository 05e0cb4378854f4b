"""Tests of inject_outliers (Feng et al. 2014, §6)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from robustclf.corruption import inject_outliers

SETTINGS = settings(max_examples=60, deadline=None)


def read_only(X):
    X = np.array(X, copy=True)
    X.flags.writeable = False
    return X


def gaussian_problem(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = rng.normal(size=d)
    y = np.where(X @ beta > 0, 1, -1)
    return X, y, beta


@st.composite
def problems(draw):
    n = draw(st.integers(0, 20))
    d = draw(st.integers(1, 5))
    X = draw(hnp.arrays(np.float64, (n, d), elements=st.floats(-5, 5)))
    beta = draw(hnp.arrays(np.float64, d, elements=st.floats(-3, 3)))
    dtype = draw(st.sampled_from([np.int64, np.int8, np.float64, np.float32]))
    y = draw(hnp.arrays(dtype, n, elements=st.sampled_from([-1, 1])))
    return X, y, beta


@SETTINGS
@given(problem=problems(), n_outliers=st.integers(0, 15), scale=st.floats(0.5, 20.0),
       seed=st.integers(0, 2**32 - 1))
def test_outliers_are_appended_bounded_and_labelled_against_beta(problem, n_outliers, scale,
                                                                 seed):
    X, y, beta = problem
    X_before, y_before = X.copy(), y.copy()
    X_out, y_out, is_outlier = inject_outliers(read_only(X), read_only(y), read_only(beta),
                                               n_outliers=n_outliers, scale=scale,
                                               random_state=seed)
    n, d = X.shape
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)
    assert X_out.shape == (n + n_outliers, d) and X_out.dtype == np.float64
    assert y_out.shape == (n + n_outliers,) and y_out.dtype == y.dtype
    assert is_outlier.dtype == bool
    np.testing.assert_array_equal(is_outlier, np.arange(n + n_outliers) >= n)
    np.testing.assert_array_equal(X_out[:n], X)  # authentic rows first, in order
    np.testing.assert_array_equal(y_out[:n], y)
    outliers = X_out[is_outlier]
    assert np.all(np.abs(outliers) <= scale)
    score = outliers @ beta
    np.testing.assert_array_equal(y_out[is_outlier], np.where(score > 0, -1, 1))


@pytest.mark.parametrize(
    ("ratio", "n", "n1"),
    [(0.0, 10, 0), (0.25, 10, 3), (0.05, 10, 1), (0.04, 10, 0), (0.1, 1000, 100),
     (1.2, 1000, 1200), (1.2, 10, 12), (0.3, 5, 2), (2.5, 1, 3),
     (0.29, 50, 15)],  # 0.29 * 50 == 14.499999999999998
)
def test_outlier_ratio_is_rounded_half_up(ratio, n, n1):
    X, y, beta = gaussian_problem(n=n)
    X_out, y_out, is_outlier = inject_outliers(X, y, beta, outlier_ratio=ratio, random_state=0)
    assert is_outlier.sum() == n1 and X_out.shape[0] == n + n1 and y_out.shape[0] == n + n1


def test_outliers_are_uniform_on_the_box():
    X, y, beta = gaussian_problem()
    X_out, _, is_outlier = inject_outliers(X, y, beta, n_outliers=20_000, random_state=1)
    outliers = X_out[is_outlier]
    assert np.abs(outliers).max() <= 10.0 and np.abs(outliers).max() > 9.9
    assert np.allclose(outliers.mean(axis=0), 0.0, atol=0.15)
    assert np.allclose(outliers.var(axis=0), 100.0 / 3.0, rtol=0.03)


def test_ties_get_the_positive_label():
    X, y, _ = gaussian_problem(d=3)
    _, y_out, is_outlier = inject_outliers(X, y, np.zeros(3), n_outliers=5, random_state=0)
    np.testing.assert_array_equal(y_out[is_outlier], 1)


def test_coef_row_is_accepted():
    X, y, beta = gaussian_problem()
    a = inject_outliers(X, y, beta, n_outliers=7, random_state=3)
    b = inject_outliers(X, y, beta[None, :], n_outliers=7, random_state=3)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


def test_two_other_labels_map_to_the_sorted_classes():
    X, y_pm, beta = gaussian_problem()
    y01 = (y_pm > 0).astype(np.int64)
    X_out, y_out, is_outlier = inject_outliers(X, y01, beta, n_outliers=30, random_state=0)
    predicted = (X_out[is_outlier] @ beta > 0).astype(np.int64)  # classes_ = [0, 1]
    np.testing.assert_array_equal(y_out[is_outlier], 1 - predicted)

    y_str = np.where(y_pm > 0, "spam", "ham")
    _, y_out, is_outlier = inject_outliers(X, y_str, beta, n_outliers=30, random_state=0)
    np.testing.assert_array_equal(y_out[is_outlier], np.where(predicted == 1, "ham", "spam"))
    assert y_out.dtype == y_str.dtype


@pytest.mark.parametrize("labels", [("no", "yes"), (0, 1), (-1, 1)])
def test_classifier_outliers_get_the_class_it_does_not_predict(labels):
    X, y_pm, _ = gaussian_problem(n=200)
    y = np.where(y_pm > 0, labels[1], labels[0])
    model = LogisticRegression().fit(X, y)
    X_out, y_out, is_outlier = inject_outliers(X, y, model, outlier_ratio=0.5, scale=3.0,
                                               random_state=0)
    assert is_outlier.sum() == 100 and y_out.dtype == y.dtype
    predicted = model.predict(X_out[is_outlier])
    assert np.all(predicted != y_out[is_outlier])
    assert set(np.unique(y_out[is_outlier])) <= set(model.classes_)


def test_classifier_with_no_outliers():
    X, y, _ = gaussian_problem()
    model = LogisticRegression().fit(X, y)
    X_out, y_out, is_outlier = inject_outliers(X, y, model, n_outliers=0)
    np.testing.assert_array_equal(X_out, X)
    np.testing.assert_array_equal(y_out, y)
    assert not is_outlier.any()


def test_seeded_and_reproducible():
    X, y, beta = gaussian_problem()
    a = inject_outliers(X, y, beta, n_outliers=10, random_state=5)
    b = inject_outliers(X, y, beta, n_outliers=10, random_state=5)
    c = inject_outliers(X, y, beta, n_outliers=10, random_state=6)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


# -- errors ------------------------------------------------------------------------------------

X0, Y0, BETA0 = gaussian_problem()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "exactly one of n_outliers and outlier_ratio"),
        ({"n_outliers": 1, "outlier_ratio": 0.1}, "exactly one of n_outliers and outlier_ratio"),
        ({"n_outliers": -1}, "n_outliers must be"),
        ({"n_outliers": 2.5}, "n_outliers must be"),
        ({"outlier_ratio": -0.1}, "outlier_ratio must be"),
        ({"outlier_ratio": np.nan}, "outlier_ratio must be"),
        ({"outlier_ratio": np.inf}, "outlier_ratio must be"),
        ({"n_outliers": 1, "scale": 0.0}, "scale must be positive"),
        ({"n_outliers": 1, "scale": -1.0}, "scale must be"),
        ({"n_outliers": 1, "scale": np.nan}, "scale must be"),
        ({"n_outliers": 1, "random_state": -3}, "random_state"),
    ],
)
def test_bad_counts_and_scale_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        inject_outliers(X0, Y0, BETA0, **kwargs)


@pytest.mark.parametrize(
    ("X", "y", "model", "match"),
    [
        (np.ones(5), Y0[:5], BETA0, "X must be a 2-D array"),
        (np.where(X0 > 1, np.nan, X0), Y0, BETA0, "X contains NaN"),
        (np.where(X0 > 1, np.inf, X0), Y0, BETA0, "X contains infinite"),
        (X0, Y0[:-1], BETA0, "y has 39 entries"),
        (X0, Y0.reshape(4, 10), BETA0, "y must be 1-D"),
        (X0, Y0, BETA0[:2], r"model given as coefficients must have shape \(3,\)"),
        (X0, Y0, np.ones((2, 3)), r"model given as coefficients must have shape"),
        (X0, Y0, np.array([1.0, np.nan, 0.0]), "model coefficients must be finite"),
        (X0, Y0, "logistic", "model must be a coefficient vector"),
        (X0, np.arange(40) % 3, BETA0, "y must have labels in"),
        (X0, np.full(40, 2), BETA0, "y must have labels in"),
    ],
)
def test_bad_inputs_raise(X, y, model, match):
    with pytest.raises(ValueError, match=match):
        inject_outliers(X, y, model, n_outliers=3)


def test_multiclass_classifier_raises():
    y = np.arange(40) % 3
    model = LogisticRegression().fit(X0, y)
    with pytest.raises(ValueError, match="model must be a fitted binary classifier"):
        inject_outliers(X0, y, model, n_outliers=3)


def test_unfitted_classifier_raises():
    with pytest.raises(NotFittedError):
        inject_outliers(X0, Y0, LogisticRegression(), n_outliers=3)


def test_classifier_fitted_on_other_width_raises():
    model = LogisticRegression().fit(X0[:, :2], Y0)
    with pytest.raises(ValueError, match="model was fitted on 2 features"):
        inject_outliers(X0, Y0, model, n_outliers=3)


def test_labels_not_representable_in_y_dtype_raise():
    model = LogisticRegression().fit(X0, np.where(Y0 > 0, "pos", "neg"))
    with pytest.raises(ValueError, match="cannot be stored in y's dtype"):
        inject_outliers(X0, Y0, model, n_outliers=3)
