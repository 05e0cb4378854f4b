"""The dual certificate of the separable geometric margin and the refinement that uses it."""

import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings
from sklearn.exceptions import ConvergenceWarning

from robustclf._oracles import missing as oracle
from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSeparableSVC
from robustclf.missing._margin_certificate import dual_margin_bound
from robustclf.missing.socp import _distinct_constraints

pytest.importorskip("cvxpy")
pytest.importorskip("clarabel")


def _separable_with_holes(seed, n=40, d=4, absent=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    score = X @ w
    keep = np.abs(score) > np.abs(score).std()            # a clear margin
    X, y = X[keep], (score[keep] > 0).astype(int)
    holes = rng.random(X.shape) < absent
    holes[:, 0] = False                                      # every row keeps a feature
    return np.where(holes, np.nan, X), y


def _fitted(seed):
    X, y = _separable_with_holes(seed)
    if np.unique(y).size < 2:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = GeometricMarginSeparableSVC().fit(X, y)
    except ValueError:  # the holes made it non-separable
        return None
    Xd, yd = _distinct_constraints(X, np.where(y == model.classes_[1], 1.0, -1.0))
    M = ~np.isnan(Xd)
    return model, np.where(M, Xd, 0.0), M, yd


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), noise=st.floats(0.0, 1.0), bias=st.floats(-1.0, 1.0))
def test_the_bound_from_any_point_is_above_the_best_margin_found(seed, noise, bias):
    """Validity: U bounds the optimum from above whatever point it is built from, so it is
    never below a margin the fit achieved."""
    fitted = _fitted(seed)
    if fitted is None:
        return
    model, X0, M, y = fitted
    w = model.coef_ + noise * np.random.default_rng(seed).normal(size=model.coef_.shape)
    _, upper = dual_margin_bound(X0, M, y, w, model.intercept_ + noise * bias, True)
    assert upper >= model.margin_ * (1 - 1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_bound_at_the_fitted_point_is_tight(seed):
    fitted = _fitted(seed)
    assert fitted is not None
    model, X0, M, y = fitted
    gamma, upper = dual_margin_bound(X0, M, y, model.coef_, model.intercept_, True)
    assert gamma == pytest.approx(model.margin_, rel=1e-12)
    assert (upper - gamma) / upper <= model.tol


def test_the_bound_without_a_margin_is_infinite():
    X0 = np.array([[1.0, 0.0], [-1.0, 0.0]])
    M = np.ones_like(X0, dtype=bool)
    y = np.array([1.0, -1.0])
    gamma, upper = dual_margin_bound(X0, M, y, np.array([-1.0, 0.0]), 0.0, True)
    assert gamma < 0 and upper == np.inf


def _data(name):
    if name == "gaussian":
        X = np.random.default_rng(0).normal(size=(50, 5))
        return X, (X @ [1, -2, 0.5, 1.5, -1] > 0).astype(int)
    if name == "structural":
        return make_structurally_missing(60, n_blocks=3, block_size=2, margin=0.5,
                                         noise_std=0.0, random_state=0)
    return oracle.separable_digits(3, 8)[:2]


@pytest.mark.parametrize("name", ["gaussian", "structural", "digits"])
def test_default_fit_certifies_1e6_in_few_solves(name):
    """Bisection alone stopped at 1.2e-6 on the Gaussian rows (with a warning) and needed
    26-32 solves for 1e-5 on digits; the refinement certifies the default 1e-6 in ~15."""
    X, y = _data(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = GeometricMarginSeparableSVC().fit(X, y)
    assert model.tol == 1e-6
    assert model.bracket_width_ <= 1e-6
    assert model.n_iter_ <= 20


def test_a_tighter_tol_than_the_solver_can_certify_warns():
    X, y = _data("digits")
    with pytest.warns(ConvergenceWarning, match="certified relative bracket width"):
        model = GeometricMarginSeparableSVC(tol=1e-13).fit(X, y)
    assert model.bracket_width_ > 1e-13
    assert model.bracket_width_ <= 1e-6


def test_a_row_whose_present_weights_are_zero_is_separated_only_by_the_bias():
    from robustclf.missing import geometric_margin

    X = np.array([[1.0, np.nan], [np.nan, 2.0]])
    y = np.array([1.0, -1.0])
    w = np.array([0.0, -1.0])                  # row 0 sees only the zero weight
    assert geometric_margin(w, 0.5, X, y) == pytest.approx(1.5)   # row 0 at +inf; row 1
    assert geometric_margin(w, -0.5, X, y) == -np.inf
