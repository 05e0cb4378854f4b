"""DropoutSVC and DropoutLogisticRegression: sklearn oracles at q = 0, contract, bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from robustclf._registry import get_entry
from robustclf.linear import DropoutLogisticRegression, DropoutSVC
from robustclf.noise import DropoutNoise, GaussianNoise


def _separable():
    X, y = make_blobs(n_samples=80, centers=[[-2, -2, 0], [2, 2, 1]], cluster_std=0.6,
                      random_state=0)
    return X, y


def _overlapping():
    return make_classification(n_samples=150, n_features=6, n_informative=4, flip_y=0.1,
                               random_state=1)


DATASETS = {"separable": _separable, "non-separable": _overlapping}
TIGHT = dict(q=0.0, tol=1e-9, max_iter=3000)


def _svm_objective(coef, intercept, X, y, C):
    s = np.where(y == y.max(), 1.0, -1.0)
    return coef @ coef + 2 * C * np.maximum(0.0, 1 - s * (X @ coef + intercept)).sum()


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("solver", ["newton", "irls"])
def test_q0_is_the_linear_svm_with_free_bias(data, solver):
    X, y = DATASETS[data]()
    C = 0.5
    ref = SVC(kernel="linear", C=C, tol=1e-12).fit(X, y)
    # IRLS converges linearly: 3000 steps reach a relative gradient of 1e-8, not 1e-9
    tight = dict(TIGHT, tol=1e-8) if solver == "irls" else TIGHT
    model = DropoutSVC(C=C, solver=solver, objective="bound", **tight).fit(X, y)
    f_ref = _svm_objective(ref.coef_[0], ref.intercept_[0], X, y, C)
    f = _svm_objective(model.coef_[0], model.intercept_[0], X, y, C)
    assert f <= f_ref * (1 + 1e-7)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("C", [0.05, 0.5])
def test_q0_without_intercept_is_linearsvc_hinge(data, C):
    X, y = DATASETS[data]()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        ref = LinearSVC(loss="hinge", C=C, fit_intercept=False, tol=1e-12, max_iter=20_000,
                        random_state=0).fit(X, y)
    model = DropoutSVC(C=C, fit_intercept=False, **TIGHT).fit(X, y)
    assert np.all(model.intercept_ == 0)
    f_ref = _svm_objective(ref.coef_[0], 0.0, X, y, C)
    assert _svm_objective(model.coef_[0], 0.0, X, y, C) <= f_ref * (1 + 1e-7)   # smoothing
    if not caught:   # liblinear's dual coordinate descent converged: same solution
        np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("data", DATASETS)
@pytest.mark.parametrize("objective", ["bound", "gaussian"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_q0_is_logistic_regression_with_half_C(data, objective, fit_intercept):
    X, y = DATASETS[data]()
    ref = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000,
                             fit_intercept=fit_intercept).fit(X, y)
    model = DropoutLogisticRegression(C=1.0, objective=objective, fit_intercept=fit_intercept,
                                      **TIGHT).fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)


def test_gaussian_hinge_at_q0_is_the_svm_too():
    X, y = _overlapping()
    a = DropoutSVC(C=0.5, objective="gaussian", **TIGHT).fit(X, y)
    b = SVC(kernel="linear", C=0.5, tol=1e-12).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("Est", [DropoutSVC, DropoutLogisticRegression])
@pytest.mark.parametrize("objective", ["bound", "gaussian"])
def test_dense_and_sparse_inputs_give_the_same_model(Est, objective):
    rng = np.random.default_rng(0)
    X = rng.poisson(0.4, size=(200, 30)).astype(float)
    y = (X @ rng.normal(size=30) > 0).astype(int)
    a = Est(q=0.4, objective=objective, tol=1e-10).fit(X, y)
    b = Est(q=0.4, objective=objective, tol=1e-10).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(b.decision_function(sp.csr_matrix(X)), a.decision_function(X),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("Est", [DropoutSVC, DropoutLogisticRegression])
def test_all_solvers_reach_the_same_model(Est):
    X, y = _overlapping()
    models = [Est(q=0.3, C=1.0, objective="bound", solver=s, tol=1e-10,
                  max_iter=3000).fit(X, y)
              for s in ("newton", "irls", "lbfgs")]
    for other in models[1:]:
        np.testing.assert_allclose(other.coef_, models[0].coef_, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(other.objective_, models[0].objective_, rtol=1e-9)
    assert models[0].solver_ == "newton"
    hist = models[1].objective_history_[0]
    assert np.all(np.diff(hist) <= 1e-12 * hist[1:])    # IRLS is monotone


def test_multiclass_one_vs_all_and_probabilities():
    X, y = make_blobs(n_samples=150, centers=4, n_features=5, random_state=0)
    labels = np.array(["a", "b", "c", "d"])[y]
    svc = DropoutSVC(q=0.3).fit(X, labels)
    assert svc.coef_.shape == (4, 5) and svc.intercept_.shape == (4,)
    assert svc.n_iter_.shape == (4,) and len(svc.objective_history_) == 4
    assert list(svc.classes_) == ["a", "b", "c", "d"]
    assert np.mean(svc.predict(X) == labels) > 0.9
    lr = DropoutLogisticRegression(q=0.3).fit(X, labels)
    proba = lr.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(lr.classes_[proba.argmax(axis=1)], lr.predict(X))
    np.testing.assert_allclose(np.exp(lr.predict_log_proba(X)), proba)
    # one-vs-all: each row is the binary problem of its class against the rest
    binary = DropoutSVC(q=0.3).fit(X, labels == "c")
    np.testing.assert_allclose(svc.coef_[2], binary.coef_[0], rtol=1e-5, atol=1e-7)


def test_noise_options():
    X, y = _overlapping()
    X = X - X.min(axis=0)                      # non-negative, for Poisson noise
    for kwargs in ({"noise": "gaussian", "q": 0.3}, {"noise": "laplace", "q": 0.2},
                   {"noise": "poisson"}, {"noise": GaussianNoise(0.3)}):
        model = DropoutSVC(**kwargs).fit(X, y)
        assert model.score(X, y) > 0.6
    assert DropoutSVC().fit(X, y).noise_.get_params() == DropoutNoise(0.2).get_params()
    a = DropoutSVC(noise="gaussian", q=0.3).fit(X, y)
    b = DropoutSVC(noise=GaussianNoise(0.3)).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_)


def test_more_noise_shrinks_the_weights():
    """Marginalised dropout acts as a data-dependent L2 penalty (Wager et al.)."""
    X, y = _overlapping()
    norms = [np.linalg.norm(DropoutLogisticRegression(q=q).fit(X, y).coef_)
             for q in (0.0, 0.3, 0.6, 0.9)]
    assert np.all(np.diff(norms) < 0)


def test_inputs_are_not_modified():
    X, y = _overlapping()
    Xs = sp.csr_matrix(X)
    X0, Xs0, y0 = X.copy(), Xs.copy(), y.copy()
    for Est in (DropoutSVC, DropoutLogisticRegression):
        Est(q=0.5).fit(X, y)
        Est(q=0.5).fit(Xs, y)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(Xs.toarray(), Xs0.toarray())
    np.testing.assert_array_equal(y, y0)


def test_convergence_warning_at_max_iter():
    X, y = _overlapping()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        DropoutSVC(max_iter=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        DropoutSVC().fit(X, y)


def test_works_in_pipeline_and_grid_search():
    X, y = _overlapping()
    pipe = make_pipeline(StandardScaler(), DropoutSVC())
    grid = GridSearchCV(pipe, {"dropoutsvc__q": [0.1, 0.5], "dropoutsvc__C": [0.1, 1.0]}, cv=3)
    grid.fit(X, y)
    assert grid.best_score_ > 0.6
    clone(DropoutLogisticRegression(noise=DropoutNoise(0.2))).fit(X, y)


@pytest.mark.parametrize("Est", [DropoutSVC, DropoutLogisticRegression])
@pytest.mark.parametrize("params, match", [
    ({"C": 0.0}, "C"), ({"C": -1.0}, "C"), ({"C": "big"}, "C"),
    ({"q": 1.0}, "q"), ({"q": -0.5}, "q"),
    ({"tol": 0.0}, "tol"), ({"max_iter": 0}, "max_iter"), ({"max_iter": 2.5}, "max_iter"),
    ({"objective": "exact"}, "objective"), ({"solver": "sgd"}, "solver"),
    ({"solver": "irls", "objective": "gaussian"}, "solver"),
    ({"noise": "salt"}, "noise"), ({"noise": DropoutNoise(0.1), "q": 0.2}, "q"),
    ({"noise": "poisson", "q": 0.3}, "q"), ({"fit_intercept": "yes"}, "fit_intercept"),
])
def test_bad_parameters_are_named(Est, params, match):
    X, y = _overlapping()
    with pytest.raises(ValueError, match=match):
        Est(**params).fit(X, y)


def test_bad_data_is_rejected():
    X, y = _overlapping()
    with pytest.raises(ValueError, match="margin"):
        DropoutSVC(margin=0.0).fit(X, y)
    with pytest.raises(ValueError, match="X must be non-negative"):
        DropoutSVC(noise="poisson").fit(X - 10, y)
    with pytest.raises(ValueError, match="one class"):
        DropoutSVC().fit(X, np.zeros(len(y)))
    model = DropoutSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])


def test_registry_entries():
    for name, Est in (("dropout_svc", DropoutSVC), ("dropout_logistic", DropoutLogisticRegression)):
        entry = get_entry(name)
        assert entry.robust and entry.linear
        assert isinstance(entry.factory(), Est)


@pytest.mark.parametrize("objective", ["bound", "gaussian"])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_default_q0_is_the_exact_svm_even_at_large_C(objective, C):
    """Without noise the default solver hands the plain SVM to libsvm (the smoothed Newton
    path cannot certify an optimum with every support vector on the kink)."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    X, y = X[keep] / 16.0, y[keep]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = DropoutSVC(q=0.0, C=C, objective=objective).fit(X, y)
    ref = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    assert model.solver_ == "libsvm"
    f = _svm_objective(model.coef_[0], model.intercept_[0], X, y, C)
    f_ref = _svm_objective(ref.coef_[0], ref.intercept_[0], X, y, C)
    assert f <= f_ref * (1 + 1e-5)
