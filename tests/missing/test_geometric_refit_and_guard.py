"""GeometricMarginSVC after issue 15: early stopping refits, iterate 0 is the zero-fill SVM, and
the floor ``min_scaling`` guards against collapsing scalings."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import SVC

from robustclf.datasets import make_structurally_missing, make_subtype_missing
from robustclf.missing import GeometricMarginSVC
from robustclf.missing import _geometric_solver as gs

#: Four subtypes sharing block 0, each owning the rest of its blocks, with its own rule: the
#: scalings of two subtypes shrink at every update (benchmarks/bench_geometric_collapse.py).
SHARED_ONE = np.array([[1, 1, 0, 0, 0, 0],
                       [1, 0, 1, 1, 0, 0],
                       [1, 0, 0, 0, 1, 1],
                       [1, 0, 0, 0, 0, 1]], dtype=bool)


def _missing(n=150, seed=0):
    return make_structurally_missing(n, n_blocks=3, block_size=2, noise_std=0.5,
                                     random_state=seed)


def _collapsing(n=300, seed=0):
    X, y = make_subtype_missing(n, n_subtypes=4, n_blocks=6, block_size=3,
                                subtype_blocks=SHARED_ONE, coef_similarity=0.0, noise_std=0.3,
                                random_state=seed)
    return (X - np.nanmean(X, axis=0)) / np.nanstd(X, axis=0), y


# -- early stopping: a hyper-parameter search, then a refit on all rows ------------------------
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), bias=st.sampled_from(["scaled", "unscaled"]),
       max_iter=st.integers(1, 4))
def test_early_stopping_is_the_refit_with_the_chosen_number_of_updates(seed, bias, max_iter):
    X, y = _missing(seed=seed % 7)
    model = GeometricMarginSVC(early_stopping=True, max_iter=max_iter, bias=bias,
                               random_state=seed).fit(X, y)
    assert 0 <= model.best_iteration_ <= max_iter
    assert model.best_iteration_ == int(np.argmin(model.validation_errors_))
    refit = GeometricMarginSVC(max_iter=model.best_iteration_, bias=bias).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), refit.decision_function(X),
                               rtol=0, atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), refit.predict(X))
    assert model.X_fit_.shape == X.shape and model.n_iter_ == refit.n_iter_


def test_early_stopping_refit_multiclass_and_a_later_iterate():
    X, y = _missing(240, seed=1)
    y3 = np.where(y > 0, 2, np.arange(y.size) % 2)
    model = GeometricMarginSVC(early_stopping=True, max_iter=3, C=10.0,
                               random_state=0).fit(X, y3)
    refit = GeometricMarginSVC(max_iter=model.best_iteration_, C=10.0).fit(X, y3)
    np.testing.assert_array_equal(model.decision_function(X), refit.decision_function(X))
    # a case where the chosen iterate is not the first: the refit runs the updates
    X, y = _collapsing(300, seed=2)
    model = GeometricMarginSVC(early_stopping=True, max_iter=3, random_state=0).fit(X, y)
    assert model.best_iteration_ > 0 and model.n_iter_ == model.best_iteration_ + 1
    refit = GeometricMarginSVC(max_iter=model.best_iteration_).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), refit.decision_function(X))


def test_early_stopping_costs_one_extra_fit(monkeypatch):
    """One fit with max_iter updates on the selection rows, one with best_iteration_ on all."""
    calls = []
    real = gs.fit_binary

    def recording(K, y, *args, max_iter, **kwargs):
        calls.append((y.size, max_iter))
        return real(K, y, *args, max_iter=max_iter, **kwargs)

    monkeypatch.setattr("robustclf.missing.geometric_svm.fit_binary", recording)
    X, y = _missing(200)
    model = GeometricMarginSVC(early_stopping=True, max_iter=3, validation_fraction=0.25,
                               random_state=0).fit(X, y)
    assert calls == [(150, 3), (200, model.best_iteration_)]


# -- iterate 0 is the zero-fill SVM ------------------------------------------------------------
@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("kernel, C", [("linear", 0.1), ("linear", 10.0), ("poly", 1.0)])
def test_iterate_zero_is_the_zero_fill_svm(bias, kernel, C):
    """Decision values, not only predictions, on training rows and on new rows with other
    missingness patterns; also iterate 0 of a longer fit. Every libsvm solve of the fit is
    polished to the exact optimum, so the reference SVC is solved tightly too."""
    X, y = _missing(200, seed=3)
    X_new, _ = _missing(100, seed=4)
    svm = SVC(kernel=kernel, C=C, degree=2, gamma=0.5, coef0=1.0, tol=1e-9).fit(
        np.nan_to_num(X), y)
    model = GeometricMarginSVC(max_iter=0, bias=bias, kernel=kernel, C=C, gamma=0.5)
    model.fit(X, y)
    longer = GeometricMarginSVC(max_iter=2, bias=bias, kernel=kernel, C=C, gamma=0.5,
                                tol=0.0).fit(X, y)
    for rows in (X, X_new):
        expected = svm.decision_function(np.nan_to_num(rows))
        # the reference's accuracy: libsvm's single-precision kernel cache leaves it 4e-5 from
        # Clarabel's solution at C = 10, which the polished fit matches to 2e-7
        np.testing.assert_allclose(model.decision_function(rows), expected, atol=1e-4)
        np.testing.assert_allclose(longer._scores(rows, 0)[:, 0], expected, atol=1e-4)
        np.testing.assert_array_equal(model.predict(rows), svm.predict(np.nan_to_num(rows)))


# -- min_scaling: the floor against collapsing scalings ----------------------------------------
def test_scalings_collapse_without_the_floor_and_stop_at_it():
    X, y = _collapsing()
    free = GeometricMarginSVC(max_iter=4, min_scaling=0.0).fit(X, y)
    smallest = [it.fit_scalings.min() for it in free.iterates_[0]]
    assert smallest[-1] < 0.1 and np.all(np.diff(smallest) < 0)  # shrinks at every update
    assert free.n_floored_ == 0
    guarded = GeometricMarginSVC(max_iter=4, min_scaling=0.2).fit(X, y)
    used = np.concatenate([it.fit_scalings for it in guarded.iterates_[0]])
    assert used.min() == pytest.approx(0.2)
    assert guarded.n_floored_ == np.count_nonzero(guarded.iterates_[0][-1].fit_scalings == 0.2)
    assert guarded.n_floored_ > 0
    # the floor applies at prediction too: training rows are scored with their solve's scalings
    it = guarded.iterates_[0][-1]
    w = guarded.X_fit_[it.support].T @ it.coef
    np.testing.assert_allclose(guarded.decision_function(X),
                               (np.nan_to_num(X) @ w + it.intercept) / it.fit_scalings,
                               rtol=1e-8)


def test_an_inactive_floor_changes_nothing():
    X, y = _missing(200, seed=5)
    free = GeometricMarginSVC(max_iter=3, min_scaling=0.0).fit(X, y)
    assert min(it.fit_scalings.min() for it in free.iterates_[0]) > 0.2
    guarded = GeometricMarginSVC(max_iter=3, min_scaling=0.2).fit(X, y)
    assert guarded.n_floored_ == 0
    np.testing.assert_array_equal(guarded.decision_function(X), free.decision_function(X))


@pytest.mark.parametrize("value", [-0.1, 1.0, 2.0])
def test_min_scaling_outside_zero_one_is_rejected(value):
    X, y = _missing(60)
    with pytest.raises(ValueError, match=r"min_scaling must be in \[0, 1\)"):
        GeometricMarginSVC(min_scaling=value).fit(X, y)
