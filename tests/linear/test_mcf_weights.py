"""Row weights, class weights and NaN (absent features) in MCFClassifier and
ExplicitCorruptionClassifier.

MCF: ``sample_weight`` multiplies each row's marginalised loss, so integer weights give the fit
of the repeated rows and weight 0 that of the data without the row (quadratic: one linear solve;
logistic: L-BFGS to a tight tolerance), checked on scikit-learn's digits (pixels / 16, 10
classes) and against the weighted independent solves of :mod:`robustclf._oracles.mcf`.

ExplicitCorruptionClassifier: the weights go with the rows into every corrupted copy and on to
the wrapped estimator. A weight k is not k repeated rows there (those would be corrupted
independently); what holds exactly is tested: the wrapped estimator receives the tiled weights,
and without corruption (q = 0) weights are repeated rows.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from robustclf._oracles import mcf as oracle
from robustclf.linear import ExplicitCorruptionClassifier, MCFClassifier, explicit_corruption
from robustclf.linear._base import ovr_targets
from robustclf.linear._dropout_solvers import Variance
from robustclf.linear.mcf import _quadratic_gradient_norm


def _digits(n=400):
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)[:n]
    return X[perm] / 16.0, y[perm]


def _integer_weights(n, seed=0):
    return np.random.default_rng(seed).integers(0, 4, size=n).astype(float)


def _repeated(X, y, weights):
    rows = np.repeat(np.arange(y.size), weights.astype(int))
    return X[rows], y[rows]


def _fit(est, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return est.fit(X, y, **fit_params)


def _assert_same_model(a, b, X, atol):
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=atol)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


MCF_CASES = [
    (dict(loss="quadratic"), np.asarray, 1e-10),
    (dict(loss="quadratic"), sp.csr_matrix, 1e-7),             # conjugate gradients
    (dict(loss="quadratic", noise="gaussian", q=0.3), np.asarray, 1e-10),
    (dict(loss="logistic", tol=1e-8), np.asarray, 1e-5),
    (dict(loss="logistic", tol=1e-8), sp.csr_matrix, 1e-5),
    (dict(loss="logistic", noise="laplace", q=0.2, tol=1e-8), np.asarray, 1e-5),  # bounded w
]


@pytest.mark.parametrize("params, container, atol", MCF_CASES)
def test_mcf_integer_weights_equal_repeated_rows_on_ten_digit_classes(params, container, atol):
    X, y = _digits()
    w = _integer_weights(y.size)
    weighted = _fit(MCFClassifier(**params), container(X), y, sample_weight=w)
    Xr, yr = _repeated(X, y, w)
    repeated = _fit(MCFClassifier(**params), container(Xr), yr)
    _assert_same_model(weighted, repeated, X, atol)
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-8)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_mcf_zero_weight_equals_removing_the_rows(loss):
    X, y = _digits(300)
    w = np.ones(y.size)
    w[1::4] = 0.0
    weighted = _fit(MCFClassifier(loss=loss, tol=1e-8), X, y, sample_weight=w)
    removed = _fit(MCFClassifier(loss=loss, tol=1e-8), X[w > 0], y[w > 0])
    _assert_same_model(weighted, removed, X, 1e-6)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
@pytest.mark.parametrize("class_weight", ["balanced", {1: 4.0, 8: 0.25}])
def test_mcf_class_weight_equals_the_corresponding_sample_weight(loss, class_weight):
    X, y = _digits(300)
    by_class = _fit(MCFClassifier(loss=loss, class_weight=class_weight), X, y)
    by_row = _fit(MCFClassifier(loss=loss), X, y,
                  sample_weight=compute_sample_weight(class_weight, y))
    np.testing.assert_array_equal(by_class.coef_, by_row.coef_)
    np.testing.assert_array_equal(by_class.intercept_, by_row.intercept_)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_mcf_weighted_default_fit_matches_the_independent_oracle(loss):
    """Real-valued weights; the oracle weights each row's term by hand (SVD least squares,
    damped Newton with the exact Hessian), 10 one-vs-rest problems on 200 digits."""
    X, y = _digits(200)
    w = np.random.default_rng(1).uniform(0.0, 3.0, size=y.size)
    model = _fit(MCFClassifier(loss=loss, q=0.5), X, y, sample_weight=w)
    W, B, F = oracle.solve_ovr(loss, X, y, 0.5, 1.0, sample_weight=w)
    np.testing.assert_allclose(model.objective_, F, rtol=1e-7)
    np.testing.assert_array_equal(model.predict(X), oracle.ovr_predict(model.classes_, W, B, X))
    if loss == "quadratic":
        np.testing.assert_allclose(model.coef_, W, rtol=0, atol=1e-9)


def test_mcf_weighted_sparse_oracle():
    """The sparse oracles (LSQR, trust-krylov) with weights against the dense ones."""
    X, y = _digits(150)
    s = np.where(y == 3, 1.0, -1.0)
    w = np.random.default_rng(2).uniform(0.0, 2.0, size=y.size)
    wq, bq = oracle.solve_quadratic(X, s, 0.5, 1.0, sample_weight=w)
    wqs, bqs = oracle.solve_quadratic_sparse(sp.csr_matrix(X), s, 0.5, 1.0, sample_weight=w)
    np.testing.assert_allclose(np.append(wqs, bqs), np.append(wq, bq), atol=1e-8)
    wl, bl, fl = oracle.solve_logistic(X, s, 0.5, 1.0, sample_weight=w)
    wls, bls, fls = oracle.solve_logistic_sparse(sp.csr_matrix(X), s, 0.5, 1.0,
                                                 sample_weight=w)
    np.testing.assert_allclose(fls, fl, rtol=1e-9)


def test_mcf_gradient_norm_is_that_of_the_weighted_objective():
    """``gradient_norm_`` (the optimality measure) is computed on the weighted objective: the
    same as the repeated rows' measure."""
    X, y = _digits(300)
    w = _integer_weights(y.size, seed=4)
    weighted = MCFClassifier().fit(sp.csr_matrix(X), y, sample_weight=w)
    Xr, yr = _repeated(X, y, w)

    var = Variance(*weighted.noise_._variance_terms(Xr), Xr.shape)
    measure = _quadratic_gradient_norm(Xr, ovr_targets(yr)[1], var, 1.0, weighted.coef_,
                                       weighted.intercept_, True)
    np.testing.assert_allclose(weighted.gradient_norm_, measure, rtol=1e-6, atol=1e-12)
    assert weighted.gradient_norm_.max() <= weighted.tol


# -- NaN: absent features -------------------------------------------------------------------
def _with_nan(X, seed=0, fraction=0.2):
    mask = np.random.default_rng(seed).random(X.shape) < fraction
    return np.where(mask, np.nan, X), mask


@pytest.mark.parametrize("est", [MCFClassifier(), MCFClassifier(loss="logistic"),
                                 ExplicitCorruptionClassifier(LogisticRegression(max_iter=500),
                                                              n_copies=3, random_state=0)],
                         ids=["mcf-quadratic", "mcf-logistic", "explicit"])
def test_nan_at_predict_equals_zero_and_at_fit_too(est):
    X, y = _digits(300)
    model = _fit(est, X, y)
    X_nan, mask = _with_nan(X)
    X_zero = np.where(mask, 0.0, X)
    np.testing.assert_array_equal(model.decision_function(X_nan),
                                  model.decision_function(X_zero))
    np.testing.assert_array_equal(model.predict(X_nan), model.predict(X_zero))
    assert model.__sklearn_tags__().input_tags.allow_nan
    a = _fit(clone(est), X_nan, y)
    b = _fit(clone(est), X_zero, y)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


@pytest.mark.parametrize("est", [MCFClassifier(), ExplicitCorruptionClassifier(
    LogisticRegression(max_iter=500), n_copies=3, random_state=0)], ids=["mcf", "explicit"])
def test_nan_behind_a_standard_scaler_is_the_training_mean(est):
    X, y = _digits(300)
    pipe = make_pipeline(StandardScaler(), est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # constant pixels in the scaler
        _fit(pipe, X, y)
        X_nan, mask = _with_nan(X, seed=1)
        X_mean = np.where(mask, pipe[0].mean_, X)
        np.testing.assert_allclose(pipe.decision_function(X_nan),
                                   pipe.decision_function(X_mean), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(pipe.predict(X_nan), pipe.predict(X_mean))


@pytest.mark.parametrize("Est", [MCFClassifier, ExplicitCorruptionClassifier])
def test_nan_policy_raise(Est):
    X, y = _digits(200)
    X_nan, _ = _with_nan(X)
    est = Est(nan_policy="raise") if Est is MCFClassifier else Est(
        LogisticRegression(max_iter=500), n_copies=2, random_state=0, nan_policy="raise")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.fit(X_nan, y)
    model = est.fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.predict(X_nan)
    assert not model.__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="nan_policy"):
        Est(nan_policy="mean").fit(X, y)


# -- ExplicitCorruptionClassifier: weights go with the rows into every copy -----------------
def test_explicit_passes_the_weights_of_every_copy_to_the_estimator():
    X, y = _digits(300)
    w = np.random.default_rng(3).uniform(0.0, 2.0, size=y.size)
    inner = LogisticRegression(max_iter=1000)
    model = ExplicitCorruptionClassifier(inner, q=0.4, n_copies=3, random_state=7).fit(
        X, y, sample_weight=w)
    Xc, yc = explicit_corruption(X, y, q=0.4, n_copies=3, random_state=7)
    by_hand = LogisticRegression(max_iter=1000).fit(Xc, yc, sample_weight=np.tile(w, 3))
    np.testing.assert_array_equal(model.estimator_.coef_, by_hand.coef_)
    unweighted = ExplicitCorruptionClassifier(inner, q=0.4, n_copies=3, random_state=7).fit(X, y)
    assert np.abs(unweighted.estimator_.coef_ - model.estimator_.coef_).max() > 1e-2


@pytest.mark.parametrize("container", [np.asarray, sp.csr_matrix])
def test_explicit_without_corruption_weights_are_repeated_rows(container):
    """q = 0: every copy is the data, so a weight k is k repeated rows and 0 a removed row."""
    X, y = _digits(300)
    w = _integer_weights(y.size, seed=5)
    est = ExplicitCorruptionClassifier(LogisticRegression(tol=1e-10, max_iter=5000), q=0.0,
                                       n_copies=2, random_state=0)
    weighted = _fit(est, container(X), y, sample_weight=w)
    Xr, yr = _repeated(X, y, w)
    repeated = _fit(ExplicitCorruptionClassifier(LogisticRegression(tol=1e-10, max_iter=5000),
                                                 q=0.0, n_copies=2, random_state=0),
                    container(Xr), yr)
    np.testing.assert_allclose(weighted.estimator_.coef_, repeated.estimator_.coef_,
                               rtol=0, atol=1e-5)
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


def test_explicit_rejects_weights_its_estimator_cannot_take():
    X, y = _digits(100)
    est = ExplicitCorruptionClassifier(KNeighborsClassifier(), n_copies=2, random_state=0)
    with pytest.raises(ValueError, match="KNeighborsClassifier does not accept sample_weight"):
        est.fit(X, y, sample_weight=np.ones(y.size))
    est.fit(X, y)                                      # without weights it is fine
    with pytest.raises(ValueError, match="[Nn]egative"):
        ExplicitCorruptionClassifier(LogisticRegression(), n_copies=2).fit(
            X, y, sample_weight=-np.ones(y.size))
    with pytest.raises(ValueError, match="sample_weight"):
        ExplicitCorruptionClassifier(LogisticRegression(), n_copies=2).fit(
            X, y, sample_weight=np.ones(y.size + 1))
