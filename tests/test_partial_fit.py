"""partial_fit of the deletion-robust models (issue 17.1): batches, dask-ml's Incremental.

DeletionRobustLP's ``partial_fit`` makes the steps of its first-order solver on each batch
(:class:`~robustclf.linear._deletion_lp_solvers.SubgradientStream`); DeletionRobustPerceptron's
is the online algorithm itself. Checked here: the update against a pure-Python transcription,
independence of the batch boundaries (bit for bit where the method allows it), closeness to
``fit``, sparse batches, the errors, and training on a dask array through dask-ml's
``Incremental`` on a real LocalCluster.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler

from robustclf.linear import DeletionRobustLP, DeletionRobustPerceptron, FDROPClassifier
from robustclf.linear._deletion_lp_solvers import _objective
from robustclf.linear.fdrop import fdrop_hinge_loss


@pytest.fixture(scope="module")
def cancer():
    """Breast cancer scaled to [0, 1], rows in a fixed random order (569 x 30)."""
    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.size)
    return MinMaxScaler().fit_transform(X)[order], y[order]


def _stream(est, X, y, size, epochs=1, classes=(0, 1)):
    for _ in range(epochs):
        for start in range(0, X.shape[0], size):
            est.partial_fit(X[start:start + size], y[start:start + size], classes=classes)
    return est


def _lp_objective(est, X, y):
    """Eq. (4)'s objective F of a fitted binary DeletionRobustLP on (X, y)."""
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    return _objective(X, s, est.coef_[0], est.intercept_[0], est.feature_values_,
                      float(est.budget), float(est.margin))[0]


# --- DeletionRobustLP -------------------------------------------------------------------


def _reference_stream(X, s, epochs, budget, C=10.0, step=0.1, batch=32):
    """Pure-Python transcription of the stream for unit values and an integer budget.

    Per mini-batch: a row is active when its worst-case margin after the adversary deletes its
    ``budget`` largest positive gains ``g_j = s w_j x_j - 1 / P`` is negative (Eq. 7); the
    subgradient is minus the mean of ``s x`` over the kept features of the active rows; AdaGrad
    steps, clipping to the box; then the polynomial-decay average with rho = 4 / (t + 3).
    """
    m, n = X.shape
    P = n - budget
    w, b = np.zeros(n), 0.0
    G, Gb = np.full(n, 1e-12), 1e-12
    wbar, bbar, t = np.zeros(n), 0.0, 0
    for _ in range(epochs):
        for start in range(0, m, batch):
            gw, gb, active = np.zeros(n), 0.0, False
            rows = range(start, min(start + batch, m))
            for i in rows:
                g = [s[i] * w[j] * X[i, j] - 1.0 / P for j in range(n)]
                deleted = sorted((j for j in range(n) if g[j] > 0), key=lambda j: -g[j])
                deleted = deleted[:budget]
                theta = s[i] * b + sum(g) - sum(g[j] for j in deleted)
                if theta < 0:
                    active = True
                    for j in range(n):
                        if j not in deleted:
                            gw[j] -= s[i] * X[i, j]
                    gb -= s[i]
            if active:
                gw, gb = gw / len(rows), gb / len(rows)
                G += gw * gw
                w = np.clip(w - step * C * gw / np.sqrt(G), -C, C)
                Gb += gb * gb
                b -= step * C * gb / np.sqrt(Gb)
            t += 1
            wbar += 4.0 / (t + 3.0) * (w - wbar)
            bbar += 4.0 / (t + 3.0) * (b - bbar)
    return wbar, bbar


def test_lp_partial_fit_is_the_transcribed_stream():
    rng = np.random.default_rng(1)
    X = rng.random((150, 6))
    y = (X @ rng.normal(size=6) + 0.3 * rng.normal(size=150) > 0).astype(int)
    est = _stream(DeletionRobustLP(budget=2), X, y, size=64, epochs=3)
    w, b = _reference_stream(X, np.where(y == 1, 1.0, -1.0), epochs=3, budget=2)
    np.testing.assert_allclose(est.coef_[0], w, rtol=1e-10, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(b, rel=1e-10, abs=1e-12)
    assert est.solver_ == "subgradient" and est.n_iter_.tolist() == [9]


@pytest.mark.parametrize("sparse", [False, True])
def test_lp_partial_fit_does_not_depend_on_the_batches(cancer, sparse):
    """Batches of multiples of 32 rows (the mini-batch) give the model of whole passes."""
    X, y = cancer
    X = sp.csr_matrix(X) if sparse else X
    whole = _stream(DeletionRobustLP(budget=1), X, y, size=X.shape[0], epochs=4)
    chunked = _stream(DeletionRobustLP(budget=1), X, y, size=96, epochs=4)
    np.testing.assert_array_equal(chunked.coef_, whole.coef_)
    np.testing.assert_array_equal(chunked.intercept_, whole.intercept_)
    # other boundaries cut mini-batches: another (as good) model
    odd = _stream(DeletionRobustLP(budget=1), X, y, size=100, epochs=4)
    assert not np.array_equal(odd.coef_, whole.coef_)
    assert _lp_objective(odd, X, y) == pytest.approx(_lp_objective(whole, X, y), rel=0.1)


def test_lp_sparse_and_dense_batches_give_the_same_model(cancer):
    X, y = cancer
    X = np.where(X > 0.3, X, 0.0)  # genuinely sparse
    dense = _stream(DeletionRobustLP(budget=2), X, y, size=128, epochs=2)
    sparse = _stream(DeletionRobustLP(budget=2), sp.csr_matrix(X), y, size=128, epochs=2)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)


def test_lp_partial_fit_approaches_fit(cancer):
    """k passes of partial_fit over batches against fit's first-order solver (k epochs) and
    the exact optimum: the stream has no restarts, so it is a little further from it."""
    X, y = cancer
    optimum = DeletionRobustLP(budget=1, solver="cutting_plane").fit(X, y)
    with pytest.warns(ConvergenceWarning):
        sgd = DeletionRobustLP(budget=1, solver="subgradient", max_iter=30,
                               random_state=0).fit(X, y)
    stream = _stream(DeletionRobustLP(budget=1), X, y, size=96, epochs=30)
    best = optimum.objective_[0]
    assert _lp_objective(sgd, X, y) <= 1.05 * best
    assert best <= _lp_objective(stream, X, y) <= 1.2 * best
    assert stream.score(X, y) >= optimum.score(X, y) - 0.01
    # continuing matters: restarting from scratch on every batch would be far worse
    lone = DeletionRobustLP(budget=1).partial_fit(X[-96:], y[-96:], classes=[0, 1])
    assert _lp_objective(lone, X, y) > 1.3 * best


def test_lp_partial_fit_after_fit_continues_from_the_fitted_model(cancer):
    X, y = cancer
    fitted = DeletionRobustLP(budget=1, feature_values="mutual_info", random_state=0).fit(X, y)
    coef = fitted.coef_.copy()
    fitted.partial_fit(X[:64], y[:64])  # mutual_info values kept from fit, classes too
    assert fitted.solver_ == "subgradient" and not hasattr(fitted, "objective_")
    # one step from the fitted point, averaged with it: close to it, not equal
    assert 0 < np.abs(fitted.coef_ - coef).max() < 0.5 * np.abs(coef).max()
    refit = fitted.fit(X, y)  # fit forgets the stream (same optimum; HiGHS to 1e-13)
    np.testing.assert_allclose(refit.coef_, coef, rtol=1e-9, atol=1e-12)
    assert "_stream" not in refit.__dict__


def test_lp_partial_fit_multiclass_and_weights():
    rng = np.random.default_rng(2)
    X = rng.random((256, 5))
    y = np.argmax(X[:, :3] + 0.1 * rng.normal(size=(256, 3)), axis=1)
    est = _stream(DeletionRobustLP(budget=1), X, y, size=64, epochs=5, classes=[0, 1, 2])
    assert est.coef_.shape == (3, 5) and est.score(X, y) > 0.6
    # a batch without class 2 is fine once the classes are known
    est.partial_fit(X[y != 2][:32], y[y != 2][:32])
    # weights scale the rows' subgradients: weight 2 on every row is the unweighted stream
    # (AdaGrad steps do not change when every subgradient is doubled, up to its 1e-12 start)
    a = DeletionRobustLP(budget=1).partial_fit(X, y, classes=[0, 1, 2])
    b = DeletionRobustLP(budget=1).partial_fit(X, y, classes=[0, 1, 2],
                                               sample_weight=np.full(256, 2.0))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    c = DeletionRobustLP(budget=1, class_weight={0: 3.0}).partial_fit(X, y, classes=[0, 1, 2])
    assert not np.allclose(a.coef_, c.coef_)


@pytest.mark.parametrize("params, call, match", [
    ({}, {}, "classes must be passed on the first call to DeletionRobustLP.partial_fit"),
    ({"feature_values": "mutual_info"}, {"classes": [0, 1]},
     "feature_values='mutual_info' needs the whole training set"),
    ({"solver": "cutting_plane"}, {"classes": [0, 1]}, "partial_fit runs the first-order"),
    ({"class_weight": "balanced"}, {"classes": [0, 1]}, "class_weight='balanced' needs"),
    ({}, {"classes": [0]}, "classes must contain at least two classes"),
    ({}, {"classes": [0, 2]}, r"y contains labels \[1\] not in classes"),
    ({"budget": 6.0}, {"classes": [0, 1]}, "budget must be less than the total feature value"),
])
def test_lp_partial_fit_errors(params, call, match):
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 6)), np.arange(40) % 2
    with pytest.raises(ValueError, match=match):
        DeletionRobustLP(**params).partial_fit(X, y, **call)


def test_lp_partial_fit_later_classes_must_match():
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 6)), np.arange(40) % 2
    est = DeletionRobustLP().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="differs from the classes of the first call"):
        est.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="X has 5 features"):
        est.partial_fit(X[:, :5], y)


# --- DeletionRobustPerceptron -----------------------------------------------------------


def test_perceptron_sparse_stream_equals_the_dense_stream(cancer):
    X, y = cancer
    X = np.where(X > 0.3, X, 0.0)
    values = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[1])
    dense = _stream(DeletionRobustPerceptron(budget=2.5, feature_values=values), X, y, size=50)
    sparse = _stream(DeletionRobustPerceptron(budget=2.5, feature_values=values),
                     sp.csr_matrix(X), y, size=70)  # other cuts: the anytime step ignores them
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.n_updates_, dense.n_updates_)
    np.testing.assert_allclose(sparse.robust_loss(sp.csr_matrix(X), y), dense.robust_loss(X, y),
                               rtol=1e-10, atol=1e-12)


def test_perceptron_sparse_fit_equals_dense_fit(cancer):
    X, y = cancer
    X = np.where(X > 0.3, X, 0.0)
    dense = DeletionRobustPerceptron(budget=1, n_epochs=2, random_state=0).fit(X, y)
    sparse = DeletionRobustPerceptron(budget=1, n_epochs=2, random_state=0).fit(
        sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    assert sparse.lower_bound_[0] == pytest.approx(dense.lower_bound_[0], rel=1e-10)
    assert sparse.objective_[0] == pytest.approx(dense.objective_[0], rel=1e-10)


# --- FDROPClassifier -----------------------------------------------------------------


def _fdrop_objective(est, X, y, C):
    """``1/2 ||w||^2 + C sum_i robust hinge_i`` of a binary FDROP model on (X, y)."""
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    w = est.coef_[0]
    return 0.5 * w @ w + C * fdrop_hinge_loss(w, est.intercept_[0], X, s, float(est.budget)).sum()


def test_fdrop_partial_fit_approaches_the_optimum_of_the_rows_it_saw(cancer):
    """E passes over n rows count every row E times: the stream's objective is fit's with
    C * E on the n rows. After 20 passes in batches of 128 it is within 25 % of that exact
    optimum (cutting planes); a single batch, without the stream's state, is far from it."""
    X, y = cancer
    epochs = 20
    target = FDROPClassifier(budget=1, C=float(epochs), solver="cutting_plane").fit(X, y)
    stream = _stream(FDROPClassifier(budget=1, random_state=0), X, y, size=128, epochs=epochs)
    best = target.objective_[0]
    assert best <= _fdrop_objective(stream, X, y, epochs) <= 1.25 * best
    assert stream.score(X, y) >= target.score(X, y) - 0.03
    assert stream.solver_ == "sgd" and stream.n_iter_.tolist() == [epochs * 5]
    assert not hasattr(stream, "objective_")
    lone = FDROPClassifier(budget=1, random_state=0).partial_fit(X[:128], y[:128],
                                                                 classes=[0, 1])
    assert _fdrop_objective(lone, X, y, 1.0) > 2 * FDROPClassifier(budget=1).fit(
        X, y).objective_[0]


def test_fdrop_sparse_and_dense_batches_give_the_same_model(cancer):
    X, y = cancer
    dense = _stream(FDROPClassifier(budget=2, random_state=0), X, y, size=100, epochs=2)
    sparse = _stream(FDROPClassifier(budget=2, random_state=0), sp.csr_matrix(X), y,
                     size=100, epochs=2)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)


def test_fdrop_partial_fit_after_fit_continues_from_the_fitted_model(cancer):
    X, y = cancer
    fitted = FDROPClassifier(budget=1, random_state=0).fit(X, y)
    coef = fitted.coef_.copy()
    fitted.partial_fit(X[:128], y[:128])          # classes kept from fit
    assert fitted.solver_ == "sgd" and not hasattr(fitted, "gap_")
    # small steps from the fitted point, averaged with it: close to it, not equal
    assert 0 < np.abs(fitted.coef_ - coef).max() < 0.2 * np.abs(coef).max()
    refit = fitted.fit(X, y)                      # fit forgets the stream
    np.testing.assert_allclose(refit.coef_, coef, rtol=1e-6, atol=1e-8)
    assert "_stream" not in refit.__dict__


def test_fdrop_partial_fit_multiclass_and_weights():
    rng = np.random.default_rng(2)
    X = rng.random((384, 5))
    y = np.argmax(X[:, :3] + 0.1 * rng.normal(size=(384, 3)), axis=1)
    est = _stream(FDROPClassifier(budget=1, random_state=0), X, y, size=128, epochs=10,
                  classes=[0, 1, 2])
    # one problem per class, each the stream of that binary problem alone
    alone = _stream(FDROPClassifier(budget=1, random_state=0), X, (y == 1).astype(int),
                    size=128, epochs=10)
    assert est.coef_.shape == (3, 5)
    np.testing.assert_allclose(est.coef_[1], alone.coef_[0], rtol=1e-12, atol=1e-14)
    est.partial_fit(X[y != 2][:64], y[y != 2][:64])       # a batch without class 2
    # weight 2 on every row is C doubled: the same model as FDROP(C=2) unweighted
    a = FDROPClassifier(budget=1, C=2.0, random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    b = FDROPClassifier(budget=1, random_state=0).partial_fit(
        X, y, classes=[0, 1, 2], sample_weight=np.full(384, 2.0))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("params, call, match", [
    ({}, {}, "classes must be passed on the first call to FDROPClassifier.partial_fit"),
    ({"solver": "qp"}, {"classes": [0, 1]}, "partial_fit runs the stochastic subgradient"),
    ({"class_weight": "balanced"}, {"classes": [0, 1]}, "class_weight='balanced' needs"),
    ({"budget": 7.0}, {"classes": [0, 1]}, "budget"),
])
def test_fdrop_partial_fit_errors(params, call, match):
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 6)), np.arange(40) % 2
    with pytest.raises(ValueError, match=match):
        FDROPClassifier(**params).partial_fit(X, y, **call)


def test_fdrop_incremental_trains_on_a_dask_array(dask_client, cancer):
    da = pytest.importorskip("dask.array")
    wrappers = pytest.importorskip("dask_ml.wrappers")
    X, y = cancer
    dX, dy = da.from_array(X, chunks=(128, -1)), da.from_array(y, chunks=128)
    inc = wrappers.Incremental(FDROPClassifier(budget=1, random_state=0), shuffle_blocks=False)
    for _ in range(5):   # each block one partial_fit on a worker, in order
        inc.partial_fit(dX, dy, classes=[0, 1])
    local = _stream(FDROPClassifier(budget=1, random_state=0), X, y, size=128, epochs=5)
    np.testing.assert_allclose(inc.estimator_.coef_, local.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(inc.predict(dX).compute(), local.predict(X))


# --- dask-ml's Incremental on a dask array --------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: DeletionRobustLP(budget=1),
    lambda: DeletionRobustPerceptron(budget=1),
], ids=["DeletionRobustLP", "DeletionRobustPerceptron"])
def test_incremental_trains_on_a_dask_array(dask_client, cancer, make):
    da = pytest.importorskip("dask.array")
    wrappers = pytest.importorskip("dask_ml.wrappers")
    X, y = cancer
    dX, dy = da.from_array(X, chunks=(96, -1)), da.from_array(y, chunks=96)
    inc = wrappers.Incremental(make(), shuffle_blocks=False)
    for _ in range(5):  # five passes over the blocks, each block one partial_fit on a worker
        inc.partial_fit(dX, dy, classes=[0, 1])
    # the blocks in order are the rows in order: the in-memory stream (to round-off: the
    # Perceptron adds its hypotheses to the average at every batch end)
    local = _stream(make(), X, y, size=X.shape[0], epochs=5)
    np.testing.assert_allclose(inc.estimator_.coef_, local.coef_, rtol=1e-12, atol=1e-14)
    predicted = inc.predict(dX)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), local.predict(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        in_memory = make().set_params(random_state=0).fit(X, y)
    assert inc.estimator_.score(X, y) >= in_memory.score(X, y) - 0.02
