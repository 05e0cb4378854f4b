"""Default fits of MCF and explicit corruption against independent solves (issue 14).

Oracles: :mod:`robustclf._oracles.mcf` (SVD least squares for MCF-quadratic, damped Newton with
the exact Hessian for MCF-logistic, both written out entry by entry under dropout; LSQR and
Newton-CG for sparse X). Data: digits (10 classes), spambase, Amazon books reviews restricted
to their 2,500 most frequent words (sparse, d > 2,000).
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC

from robustclf._oracles import mcf as oracle
from robustclf.linear import ExplicitCorruptionClassifier, MCFClassifier, explicit_corruption


def _split(name):
    if name == "digits":
        return oracle.digits_split()
    try:
        return {"spambase": oracle.spambase_split, "amazon": oracle.amazon_split}[name]()
    except (FileNotFoundError, OSError):
        pytest.skip(f"{name} is not available (set ROBUSTCLF_DATA)")


@pytest.mark.parametrize("loss", ["quadratic", "logistic"])
@pytest.mark.parametrize("dataset", ["digits", "spambase", "amazon"])
def test_default_fit_matches_the_oracle(dataset, loss):
    Xtr, ytr, Xte, _ = _split(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = MCFClassifier(loss=loss).fit(Xtr, ytr)       # the defaults: q = 0.2, C = 1
    assert model.q is None and model.C == 1.0
    W, B, F = oracle.solve_ovr(loss, Xtr, ytr, q=0.2, C=1.0)
    np.testing.assert_allclose(model.objective_, F, rtol=1e-6)
    assert np.all(model.objective_ >= F * (1 - 1e-12))       # the oracle is the minimum
    np.testing.assert_array_equal(model.predict(Xte),
                                  oracle.ovr_predict(model.classes_, W, B, Xte))
    assert np.all(model.gradient_norm_ <= model.tol)


def test_oracle_objectives_are_the_estimators_objectives():
    """The written-out objectives agree with the fitted ``objective_`` at the same point."""
    Xtr, ytr, _, _ = oracle.digits_split()
    for loss, fn in [("quadratic", oracle.quadratic_objective),
                     ("logistic", oracle.logistic_objective)]:
        model = MCFClassifier(loss=loss, q=0.5).fit(Xtr, ytr)
        for k in (0, 7):
            s = np.where(ytr == k, 1.0, -1.0)
            value = fn(Xtr, s, model.coef_[k], model.intercept_[k], 0.5, 1.0)
            assert value == pytest.approx(model.objective_[k], rel=1e-12)


def test_logistic_reports_max_iter_with_the_gradient_norm():
    Xtr, ytr, _, _ = oracle.digits_split()
    with pytest.warns(ConvergenceWarning, match=r"max_iter=3 L-BFGS.*relative projected "
                                                r"gradient norm .* \(tol=1e-06\)"):
        model = MCFClassifier(loss="logistic", max_iter=3).fit(Xtr, ytr)
    assert np.all(model.n_iter_ == 3)
    assert np.all(model.gradient_norm_ > 1e-6)


def test_logistic_reports_an_abnormal_lbfgs_termination(monkeypatch):
    import robustclf.linear.mcf as mcf

    real = mcf.minimize

    def abnormal(*args, **kwargs):
        kwargs["options"] = dict(kwargs["options"], maxiter=2)
        res = real(*args, **kwargs)
        res.status, res.message = 2, "ABNORMAL: test"
        return res

    monkeypatch.setattr(mcf, "minimize", abnormal)
    X, y = make_classification(200, 8, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"L-BFGS-B stopped \(status 2: ABNORMAL"):
        MCFClassifier(loss="logistic").fit(X, y)


def test_tol_is_relative_to_the_starting_gradient():
    """Scaling C by 100 scales the gradients, not the number of iterations' target."""
    X, y = make_classification(300, 10, random_state=0)
    for C in (0.01, 1.0, 100.0):
        model = MCFClassifier(loss="logistic", C=C, q=0.3).fit(X, y)
        assert model.gradient_norm_[0] <= 1e-6
        s = np.where(y == 1, 1.0, -1.0)
        w, b, f = oracle.solve_logistic(X, s, 0.3, C)
        assert model.objective_[0] == pytest.approx(f, rel=1e-8)


def test_explicit_corruption_surfaces_the_wrapped_convergence_warning():
    X, y = make_classification(300, 10, random_state=0)
    model = ExplicitCorruptionClassifier(LinearSVC(loss="hinge", max_iter=2, random_state=0),
                                         n_copies=4, random_state=0)
    with pytest.warns(ConvergenceWarning, match="ExplicitCorruptionClassifier did not "
                                                "converge: the wrapped LinearSVC stopped "
                                                "after 2 iterations"):
        model.fit(X, y)
    assert model.n_iter_ == 2


def test_explicit_corruption_passes_other_warnings_through():
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Noisy(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            warnings.warn("something else", UserWarning, stacklevel=2)
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.classes_[0])

    X, y = make_classification(50, 4, random_state=0)
    with pytest.warns(UserWarning, match="something else"):
        model = ExplicitCorruptionClassifier(Noisy(), n_copies=2, random_state=0).fit(X, y)
    assert model.n_iter_ is None


@pytest.mark.slow
def test_explicit_corruption_default_converges_on_digits():
    """Default LinearSVC(max_iter=1e6) reaches liblinear's tol on all 10 classes (up to 1.3e5
    passes are needed) and predicts as a 100x tighter solve."""
    Xtr, ytr, Xte, _ = oracle.digits_split()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = ExplicitCorruptionClassifier(random_state=0).fit(Xtr, ytr)
    assert np.max(model.n_iter_) < 1_000_000
    Xc, yc = explicit_corruption(Xtr, ytr, n_copies=16, random_state=0)
    tight = LinearSVC(loss="hinge", tol=1e-6, max_iter=10**7, random_state=0).fit(Xc, yc)
    np.testing.assert_array_equal(model.predict(Xte), tight.predict(Xte))
