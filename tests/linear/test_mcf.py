"""MCF baselines and explicit corruption."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression, RidgeClassifier

from robustclf.linear import (
    DropoutLogisticRegression,
    ExplicitCorruptionClassifier,
    MCFClassifier,
    explicit_corruption,
)
from robustclf.noise import DropoutNoise, LaplaceNoise


def _data(n_classes=2):
    return make_classification(n_samples=160, n_features=6, n_informative=4,
                               n_classes=n_classes, class_sep=2.0, flip_y=0.02, random_state=0)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_quadratic_at_q0_is_ridge(n_classes, fit_intercept):
    X, y = _data(n_classes)
    ref = RidgeClassifier(alpha=0.5, fit_intercept=fit_intercept).fit(X, y)
    model = MCFClassifier(loss="quadratic", C=2.0, q=0.0, fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(model.coef_, np.atleast_2d(ref.coef_), rtol=1e-8, atol=1e-10)
    ref_b = np.broadcast_to(np.atleast_1d(ref.intercept_), model.intercept_.shape)
    np.testing.assert_allclose(model.intercept_, ref_b, atol=1e-10)


def test_quadratic_is_the_marginalised_closed_form():
    X, y = _data()
    s = np.where(y == 1, 1.0, -1.0)
    noise = DropoutNoise(0.4)
    model = MCFClassifier(loss="quadratic", C=0.7, noise=noise).fit(X, y)
    Xb = np.hstack([X, np.ones((len(y), 1))])
    A = 0.7 * Xb.T @ Xb + np.diag(np.r_[1.0 + 0.7 * noise.variance(X).sum(axis=0), 0.0])
    theta = np.linalg.solve(A, 0.7 * Xb.T @ s)
    np.testing.assert_allclose(model.coef_[0], theta[:-1], rtol=1e-8)
    np.testing.assert_allclose(model.intercept_[0], theta[-1], rtol=1e-8)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_logistic_at_q0_is_logistic_regression(fit_intercept):
    X, y = _data()
    ref = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000,
                             fit_intercept=fit_intercept).fit(X, y)
    model = MCFClassifier(loss="logistic", C=1.0, q=0.0, tol=1e-7,
                          fit_intercept=fit_intercept).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-5, atol=1e-7)


def test_logistic_bound_lies_above_the_expected_loss():
    """Jensen: log(1 + E e^Z) >= E log(1 + e^Z); check the fitted objective against Monte Carlo."""
    X, y = _data()
    s = np.where(y == 1, 1.0, -1.0)
    noise = DropoutNoise(0.5)
    model = MCFClassifier(loss="logistic", C=1.0, noise=noise).fit(X, y)
    w, b = model.coef_[0], model.intercept_[0]
    copies = noise.sample(np.tile(X, (3000, 1)), random_state=0)
    mc = w @ w + np.logaddexp(0.0, -np.tile(s, 3000) * (copies @ w + b)).sum() / 3000
    assert model.objective_[0] > mc
    # and differs from the Polya-Gamma bound of Dropout-Logistic (another model)
    other = DropoutLogisticRegression(q=0.5, C=1.0).fit(X, y)
    assert not np.allclose(other.coef_, model.coef_, rtol=1e-2)


@pytest.mark.parametrize("noise, q", [("gaussian", 0.3), ("poisson", None),
                                      (LaplaceNoise(0.3), None)], ids=str)
def test_logistic_with_other_noise_models(noise, q):
    X, y = _data()
    X = X - X.min(axis=0)                      # non-negative, for Poisson noise
    model = MCFClassifier(loss="logistic", noise=noise, q=q).fit(X, y)
    assert model.score(X, y) > 0.7
    if isinstance(noise, LaplaceNoise):        # weights stay inside the MGF's domain
        assert np.all(np.abs(model.coef_) < 1 / 0.3)


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
def test_dense_and_sparse_agree(loss):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.5, size=(150, 20)).astype(float)
    y = (X @ rng.normal(size=20) > 0).astype(int)
    a = MCFClassifier(loss=loss, q=0.3, tol=1e-7).fit(X, y)
    b = MCFClassifier(loss=loss, q=0.3, tol=1e-7).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("params, match", [({"loss": "hinge"}, "loss"), ({"C": 0}, "C"),
                                           ({"q": 2.0}, "q"), ({"max_iter": 0}, "max_iter"),
                                           ({"tol": -1.0}, "tol")])
def test_mcf_bad_parameters(params, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        MCFClassifier(**params).fit(X, y)


def test_explicit_corruption_copies():
    X, y = _data()
    X0 = X.copy()
    Xc, yc = explicit_corruption(X, y, q=0.5, n_copies=4, random_state=0)
    assert Xc.shape == (4 * len(y), X.shape[1])
    np.testing.assert_array_equal(yc, np.tile(y, 4))
    np.testing.assert_array_equal(X, X0)
    kept = Xc != 0
    np.testing.assert_allclose(Xc[kept], np.tile(X, (4, 1))[kept] * 2.0)
    again = explicit_corruption(X, q=0.5, n_copies=4, random_state=0)
    np.testing.assert_array_equal(again, Xc)
    Xs = explicit_corruption(sp.csr_matrix(X), q=0.5, n_copies=3, random_state=0)
    assert sp.issparse(Xs) and Xs.shape == (3 * len(y), X.shape[1])
    with pytest.raises(ValueError, match="n_copies"):
        explicit_corruption(X, y, n_copies=0)
    with pytest.raises(ValueError, match="y has"):
        explicit_corruption(X, y[:-1])


def test_explicit_corruption_classifier():
    X, y = _data(3)
    model = ExplicitCorruptionClassifier(LogisticRegression(max_iter=1000), q=0.3, n_copies=5,
                                         random_state=0).fit(X, y)
    assert model.predict_proba(X).shape == (len(y), 3)
    assert model.score(X, y) > 0.7
    assert model.estimator_.coef_.shape == (3, 6)
    default = ExplicitCorruptionClassifier(q=0.3, n_copies=2, random_state=0).fit(X, y)
    assert not hasattr(default, "predict_proba")          # LinearSVC has none
    assert default.decision_function(X).shape == (len(y), 3)
    with pytest.raises(ValueError, match="n_copies"):
        ExplicitCorruptionClassifier(n_copies=0).fit(X, y)
    with pytest.raises(ValueError, match="noise"):
        ExplicitCorruptionClassifier(noise="pepper").fit(X, y)


def test_many_explicit_copies_approach_the_marginalised_quadratic_fit():
    """M -> infinity: least squares on explicit copies tends to MCF-quadratic (exactly its
    expected objective); with 400 copies the coefficients agree to a few percent."""
    from sklearn.linear_model import Ridge

    X, y = _data()
    s = np.where(y == 1, 1.0, -1.0)
    marginal = MCFClassifier(loss="quadratic", C=1.0, q=0.3).fit(X, s)
    Xc, yc = explicit_corruption(X, s, q=0.3, n_copies=400, random_state=0)
    explicit = Ridge(alpha=400.0).fit(Xc, yc)       # ||w||^2 + (1/M) sum over copies
    np.testing.assert_allclose(explicit.coef_, marginal.coef_[0], rtol=0.05, atol=0.01)

