"""Row weights (``sample_weight``, ``class_weight``: ``C_i = C s_i``) and absent features (NaN)
in FDROPClassifier (issue 16).

The exact solvers (cutting planes, the QP) solve the weighted QP exactly: integer weights give
the QP of the repeated rows. The stochastic ``"sgd"`` solver minimises the same weighted
objective, with a certificate that stays a lower bound, but not along the same iterates as a
fit on repeated rows.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from robustclf._oracles.deletion import breast_cancer_split, digits_split, fdrop_qp, ovr_oracle
from robustclf.linear import FDROPClassifier
from robustclf.linear.fdrop import fdrop_hinge_loss

pytest.importorskip("clarabel")


@pytest.fixture(scope="module")
def cancer():
    Xtr, ytr, Xte, _ = breast_cancer_split(n_train=100)
    weights = np.random.default_rng(0).integers(0, 4, ytr.size)
    return Xtr, ytr, Xte, weights


def _weighted_objective(est, X, y, weights):
    """``1/2 ||w||^2 + C sum_i s_i hinge_i`` of each binary problem, recomputed."""
    classes = est.classes_
    columns = [classes[1]] if classes.size == 2 else list(classes)
    return np.array([
        0.5 * w @ w + est.C * weights @ fdrop_hinge_loss(w, b, X, np.where(y == c, 1.0, -1.0),
                                                         float(est.budget))
        for w, b, c in zip(est.coef_, est.intercept_, columns, strict=True)])


@pytest.mark.parametrize("solver", ["cutting_plane", "qp"])
def test_integer_weights_solve_the_qp_of_the_repeated_rows(cancer, solver):
    Xtr, ytr, Xte, sw = cancer
    weighted = FDROPClassifier(budget=2, solver=solver).fit(Xtr, ytr, sample_weight=sw)
    repeated = FDROPClassifier(budget=2, solver=solver).fit(Xtr.repeat(sw, 0), ytr.repeat(sw))
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-6)
    # w is unique (strongly convex): equal to the solvers' accuracy
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-3)
    np.testing.assert_allclose(weighted.decision_function(Xte), repeated.decision_function(Xte),
                               atol=1e-3)
    np.testing.assert_allclose(_weighted_objective(weighted, Xtr, ytr, sw), weighted.objective_,
                               rtol=1e-10)


@pytest.mark.parametrize("solver", ["cutting_plane", "sgd"])
def test_zero_weight_is_the_row_removed(cancer, solver):
    Xtr, ytr, _, sw = cancer
    keep = sw > 0
    params = dict(budget=2, solver=solver, max_iter=5, random_state=0)
    with warnings.catch_warnings():  # sgd at 5 epochs warns
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = FDROPClassifier(**params).fit(Xtr, ytr, sample_weight=keep.astype(float))
        removed = FDROPClassifier(**params).fit(Xtr[keep], ytr[keep])
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)
    np.testing.assert_array_equal(weighted.intercept_, removed.intercept_)


def test_balanced_class_weight_is_its_sample_weight(cancer):
    Xtr, ytr, _, _ = cancer
    balanced = FDROPClassifier(budget=2, class_weight="balanced").fit(Xtr, ytr)
    manual = FDROPClassifier(budget=2).fit(Xtr, ytr,
                                           sample_weight=compute_sample_weight("balanced", ytr))
    np.testing.assert_array_equal(balanced.coef_, manual.coef_)
    assert not np.allclose(balanced.coef_, FDROPClassifier(budget=2).fit(Xtr, ytr).coef_)


def test_weighted_default_fit_matches_the_oracle_on_ten_classes():
    """Fractional weights on digits (10 one-vs-rest problems) against Globerson & Roweis's QP
    written out in cvxpy with per-row C_i = C s_i."""
    pytest.importorskip("cvxpy")
    Xtr, ytr, Xte, _ = digits_split(n_train=60, n_test=200)
    sw = np.random.default_rng(1).uniform(0.0, 3.0, ytr.size)
    sw[:4] = 0.0
    est = FDROPClassifier(budget=1, C=0.5).fit(Xtr, ytr, sample_weight=sw)
    _, W, b, optimum = ovr_oracle(fdrop_qp, Xtr, ytr, budget=1, C=0.5, sample_weight=sw)
    np.testing.assert_allclose(est.objective_, optimum, rtol=1e-6)
    assert np.all(est.lower_bound_ <= optimum * (1 + 1e-7))
    np.testing.assert_allclose(est.coef_, W, atol=2e-3)
    unweighted = FDROPClassifier(budget=1, C=0.5).fit(Xtr, ytr)
    assert np.abs(unweighted.coef_ - W).max() > 0.05  # the weights matter


def test_sgd_minimises_the_weighted_objective_with_a_valid_certificate(cancer):
    Xtr, ytr, _, _ = cancer
    sw = np.random.default_rng(2).uniform(0.0, 3.0, ytr.size)
    exact = FDROPClassifier(budget=2).fit(Xtr, ytr, sample_weight=sw)
    est = FDROPClassifier(budget=2, solver="sgd", max_iter=30, random_state=0)
    with pytest.warns(ConvergenceWarning, match="certified relative optimality gap"):
        est.fit(Xtr, ytr, sample_weight=sw)
    np.testing.assert_allclose(_weighted_objective(est, Xtr, ytr, sw), est.objective_,
                               rtol=1e-9)
    assert np.all(est.lower_bound_ <= exact.objective_ * (1 + 1e-7))
    assert np.all(est.objective_ >= exact.objective_ * (1 - 1e-7))


def test_sgd_uniform_weights_are_a_larger_c():
    """Weights 2 everywhere are C doubled: the same run (every step is exact in binary)."""
    Xtr, ytr, _, _ = digits_split(n_train=150)
    params = dict(budget=1, solver="sgd", max_iter=3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        two = FDROPClassifier(C=0.5, **params).fit(Xtr, ytr, sample_weight=np.full(150, 2.0))
        one = FDROPClassifier(C=1.0, **params).fit(Xtr, ytr)
    np.testing.assert_allclose(two.coef_, one.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(two.objective_, one.objective_, rtol=1e-12)


@pytest.mark.parametrize("solver", ["cutting_plane", "sgd"])
def test_sparse_weighted_equals_dense(cancer, solver):
    Xtr, ytr, _, sw = cancer
    params = dict(budget=2, solver=solver, max_iter=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = FDROPClassifier(**params).fit(Xtr, ytr, sample_weight=sw)
        sparse = FDROPClassifier(**params).fit(sp.csr_matrix(Xtr), ytr, sample_weight=sw)
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-7)


def test_one_class_left_by_the_weights_is_a_clear_error(cancer):
    Xtr, ytr, _, _ = cancer
    with pytest.raises(ValueError, match=r"at least 2 classes with a positive sample_weight"):
        FDROPClassifier().fit(Xtr, ytr, sample_weight=(ytr == ytr[0]).astype(float))


# -- absent features (NaN) -------------------------------------------------------------------

def test_nan_is_a_zero_contribution(cancer):
    Xtr, ytr, Xte, _ = cancer
    est = FDROPClassifier(budget=2).fit(Xtr, ytr)
    holes = np.random.default_rng(5).random(Xte.shape) < 0.2
    np.testing.assert_array_equal(est.decision_function(np.where(holes, np.nan, Xte)),
                                  est.decision_function(np.where(holes, 0.0, Xte)))
    train_holes = np.random.default_rng(6).random(Xtr.shape) < 0.1
    a = FDROPClassifier(budget=2).fit(np.where(train_holes, np.nan, Xtr), ytr)
    b = FDROPClassifier(budget=2).fit(np.where(train_holes, 0.0, Xtr), ytr)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_nan_through_a_scaler_is_the_training_mean(cancer):
    Xtr, ytr, Xte, _ = cancer
    pipe = make_pipeline(StandardScaler(), FDROPClassifier(budget=2)).fit(Xtr, ytr)
    holes = np.random.default_rng(7).random(Xte.shape) < 0.2
    np.testing.assert_allclose(pipe.decision_function(np.where(holes, np.nan, Xte)),
                               pipe.decision_function(np.where(holes, pipe[0].mean_, Xte)),
                               atol=1e-12)


def test_nan_policy_raise(cancer):
    Xtr, ytr, Xte, _ = cancer
    est = FDROPClassifier(budget=2, nan_policy="raise").fit(Xtr, ytr)
    X_nan = Xte.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.predict(X_nan)
    X_nan = Xtr.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        FDROPClassifier(nan_policy="raise").fit(X_nan, ytr)
    assert not est.__sklearn_tags__().input_tags.allow_nan
    assert FDROPClassifier().__sklearn_tags__().input_tags.allow_nan


def test_sgd_weighted_step_and_dual_point_are_those_of_the_copies(cancer):
    """One mini-batch of ``_sgd_pass``: a weighted batch (r_i = s_i n / S, C' = C S / n) moves
    the iterate as the batch of copies does, and its dual sums times S / n (so that C' r_i =
    C s_i) are the copies' sums: the weighted certificate is the certificate of the copies."""
    from robustclf.linear._fdrop_sgd import _csr_parts, _sgd_pass

    Xtr, ytr, _, sw = cancer
    keep = sw > 0
    X, s, y = Xtr[keep][:30], sw[keep][:30].astype(float), ytr[keep][:30]
    Y = np.where(y == 1, 1.0, -1.0)[:, None]
    reps = s.astype(int)
    rng = np.random.default_rng(0)
    W0, b0 = rng.normal(size=(1, 30)) * 0.3, np.array([0.1])

    def one_batch(X, Y, r):
        state = (W0.copy(), b0.copy(), W0.copy(), b0.copy())
        dual = (np.zeros((1, 2)), np.zeros((1, 2, 30)))
        _sgd_pass(_csr_parts(X), Y, np.arange(X.shape[0]), state, np.array([0.5]),
                  1.0 / s.sum(), 0, 2.0, True, dual, r)
        return state, dual

    (Ww, bw, _, _), (aw, kw) = one_batch(X, Y, s * (s.size / s.sum()))
    (Wr, br, _, _), (ar, kr) = one_batch(X.repeat(reps, 0), Y.repeat(reps, 0), None)
    np.testing.assert_allclose(Ww, Wr, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bw, br, rtol=1e-6)
    scale = s.sum() / s.size
    assert ar.sum() > 0
    np.testing.assert_allclose(aw * scale, ar, rtol=1e-12)
    np.testing.assert_allclose(kw * scale, kr, rtol=1e-5, atol=1e-6)
