"""Training on dask collections: the same optimum as in memory, read chunk by chunk.

Every estimator whose objective is a sum over rows trains on a dask array or DataFrame with the
solvers of :mod:`robustclf.linear._dropout_blockwise` (or, for MCF-logistic, the in-memory
L-BFGS-B whose function evaluations are summed over chunks). The reference is always the same
estimator fitted on the same rows in memory; the cluster tests run on a real
``distributed.LocalCluster`` with worker processes.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

from robustclf import DropoutLogisticRegression, DropoutSVC, MCFClassifier

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

ESTIMATORS = {
    "dropout_logistic": DropoutLogisticRegression,
    "dropout_svc": DropoutSVC,
    "mcf_quadratic": MCFClassifier,
    "mcf_logistic": lambda **kw: MCFClassifier(loss="logistic", **kw),
}


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.permutation(X.shape[0])[:900]
    return X[rows] / 16.0, y[rows]


def _dask(X, y, chunk=200):
    return da.from_array(X, chunks=(chunk, X.shape[1])), da.from_array(y, chunks=chunk)


def _relative(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("name", ["dropout_logistic", "dropout_svc", "mcf_quadratic"])
@pytest.mark.parametrize("n_classes", [2, 10])
def test_tight_fit_on_dask_equals_the_in_memory_fit(digits, name, n_classes):
    """At a tight tolerance both fits are the optimum: coefficients within 1e-6 relative."""
    X, y = digits
    y = (y > 4).astype(int) if n_classes == 2 else y
    make = ESTIMATORS[name]
    kw = {} if name.startswith("mcf") else {"tol": 1e-10}
    memory = make(**kw).fit(X, y)
    blocks = make(**kw).fit(*_dask(X, y))
    assert _relative(blocks.coef_, memory.coef_) < 1e-6
    assert np.allclose(blocks.intercept_, memory.intercept_, atol=1e-6 * np.abs(
        memory.intercept_).max() + 1e-9)
    np.testing.assert_array_equal(blocks.classes_, memory.classes_)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_default_fit_on_dask_predicts_as_the_in_memory_fit(digits, name):
    """At the defaults each fit stops within ``tol`` (relative gradient norm) of the optimum:
    the same predictions and coefficients within 1e-4 relative (measured: 1e-6 to 3e-5)."""
    X, y = digits
    make = ESTIMATORS[name]
    memory = make().fit(X, y)
    blocks = make().fit(*_dask(X, y))
    assert _relative(blocks.coef_, memory.coef_) < 1e-4
    Xd, _ = _dask(X, y)
    labels = blocks.predict(Xd)
    assert isinstance(labels, da.Array)            # lazy
    np.testing.assert_array_equal(labels.compute(), memory.predict(X))
    scores = blocks.decision_function(Xd)
    assert isinstance(scores, da.Array) and scores.shape == (X.shape[0], 10)
    np.testing.assert_allclose(scores.compute(), blocks.decision_function(X))


def test_fit_on_a_local_cluster(digits, dask_client):
    """On worker processes (every chunk task and partial sum serialised) the fit is the same."""
    X, y = digits
    Xd, yd = _dask(X, y, chunk=150)
    memory = DropoutLogisticRegression(tol=1e-10).fit(X, y)
    blocks = DropoutLogisticRegression(tol=1e-10).fit(Xd, yd)
    assert _relative(blocks.coef_, memory.coef_) < 1e-6
    proba = blocks.predict_proba(Xd)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), memory.predict_proba(X), atol=1e-6)
    svc = DropoutSVC().fit(Xd, yd)
    np.testing.assert_array_equal(svc.predict(Xd).compute(), DropoutSVC().fit(X, y).predict(X))


def test_dataframe_feature_names_weights_and_absent_entries(digits):
    """A dask DataFrame gives ``feature_names_in_``; row and class weights and NaN (absent,
    read as zero) mean what they mean in memory."""
    pd = pytest.importorskip("pandas")
    X, y = digits
    X = X.copy()
    X[::7, 10] = np.nan
    frame = pd.DataFrame(X, columns=[f"px{j}" for j in range(X.shape[1])])
    weights = np.random.default_rng(1).uniform(0.0, 2.0, X.shape[0])
    est = DropoutLogisticRegression(tol=1e-10, class_weight="balanced")
    memory = est.fit(frame, y, sample_weight=weights)
    ddf = dd.from_pandas(frame, npartitions=4)
    blocks = DropoutLogisticRegression(tol=1e-10, class_weight="balanced").fit(
        ddf, da.from_array(y, chunks=ddf.to_dask_array(lengths=True).chunks[0]),
        sample_weight=weights)
    np.testing.assert_array_equal(blocks.feature_names_in_, frame.columns.to_numpy())
    assert _relative(blocks.coef_, memory.coef_) < 1e-6
    labels = blocks.predict(ddf)
    np.testing.assert_array_equal(np.asarray(labels.compute()), memory.predict(frame))


def test_sparse_chunks(digits):
    """Chunks holding scipy CSR matrices are read without densifying the variance terms."""
    X, y = digits
    X = np.where(X > 0.3, X, 0.0)
    Xs = sp.csr_matrix(X)
    Xd = da.from_array(Xs, chunks=(300, X.shape[1]), asarray=False)
    memory = DropoutSVC(tol=1e-10).fit(Xs, y)
    blocks = DropoutSVC(tol=1e-10).fit(Xd, da.from_array(y, chunks=300))
    assert _relative(blocks.coef_, memory.coef_) < 1e-6


def test_errors_name_the_input(digits):
    X, y = digits
    Xd, yd = _dask(X, y)
    with pytest.raises(ValueError, match="solver='irls' runs in memory only"):
        DropoutSVC(objective="bound", solver="irls").fit(Xd, yd)
    bad = X.copy()
    bad[5, 3] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DropoutSVC().fit(*_dask(bad, y))
    nan = X.copy()
    nan[5, 3] = np.nan
    with pytest.raises(ValueError, match="nan_policy='raise'"):
        DropoutSVC(nan_policy="raise").fit(*_dask(nan, y))
    with pytest.raises(ValueError, match="has 899 entries but X has 900 rows"):
        DropoutSVC().fit(Xd, y[:-1])
    with pytest.raises(ValueError, match="2-D"):
        DropoutSVC().fit(da.from_array(X[:, 0], chunks=100), yd)


def test_models_without_a_blockwise_solver_say_so(digits):
    from robustclf import DeletionRobustLP

    X, y = digits
    with pytest.raises(TypeError, match="cannot train on a dask collection"):
        DeletionRobustLP().fit(*_dask(X, (y > 4).astype(int)))


def test_wide_sparse_data_take_the_blockwise_lbfgs():
    """Beyond ``MAX_HESSIAN_FEATURES`` the default solver is L-BFGS, one pass per evaluation;
    it reaches ``tol`` at the defaults (measured: 31-36 iterations on 20k x 3k)."""
    from robustclf.linear._dropout_blockwise import MAX_HESSIAN_FEATURES

    rng = np.random.default_rng(0)
    n, d = 4000, MAX_HESSIAN_FEATURES + 452
    X = sp.random(n, d, density=0.01, random_state=1, format="csr",
                  data_rvs=lambda k: rng.uniform(0.5, 1.5, k))
    y = (X @ (rng.normal(size=d) * (rng.random(d) < 0.2)) + 0.3 * rng.normal(size=n) > 0)
    memory = DropoutLogisticRegression().fit(X, y)
    blocks = DropoutLogisticRegression().fit(
        da.from_array(X, chunks=(1000, d), asarray=False), da.from_array(y, chunks=1000))
    assert blocks.solver_ == "lbfgs" and blocks.optimality_.max() <= 1e-6
    assert _relative(blocks.coef_, memory.coef_) < 1e-4
    np.testing.assert_array_equal(blocks.predict(X), memory.predict(X))
    with pytest.raises(ValueError, match="limited to 2048 features"):
        DropoutLogisticRegression(solver="newton").fit(
            da.from_array(X, chunks=(1000, d), asarray=False), da.from_array(y, chunks=1000))


def test_explicit_corruption_predicts_lazily(digits):
    from robustclf import ExplicitCorruptionClassifier

    X, y = digits
    model = ExplicitCorruptionClassifier(n_copies=2, random_state=0).fit(X, y)
    Xd, _ = _dask(X, y)
    for method in ("predict", "decision_function"):
        out = getattr(model, method)(Xd)
        assert isinstance(out, da.Array)
        np.testing.assert_allclose(out.compute(), getattr(model, method)(X))


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_blockwise_solvers_warn_at_max_iter(digits, solver):
    from sklearn.exceptions import ConvergenceWarning

    X, y = digits
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        DropoutSVC(solver=solver, max_iter=1).fit(*_dask(X, y))


def test_parquet_columns_selected_from_small_files(digits, tmp_path):
    """A label column and feature columns selected from ``read_parquet`` of small files, which
    dask fuses into fewer partitions than files (dask #12411 broke ``lengths=True`` there)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    X, y = digits
    frame = pd.DataFrame(X, columns=[f"px{j}" for j in range(X.shape[1])]).assign(label=y)
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 9)):
        frame.iloc[part].to_parquet(tmp_path / f"part{i}.parquet")
    ddf = dd.read_parquet(tmp_path)
    features = ddf.drop(columns="label")
    blocks = DropoutLogisticRegression(tol=1e-10).fit(features, ddf["label"])
    memory = DropoutLogisticRegression(tol=1e-10).fit(frame.drop(columns="label"), y)
    assert _relative(blocks.coef_, memory.coef_) < 1e-6
    np.testing.assert_array_equal(blocks.feature_names_in_, memory.feature_names_in_)
    np.testing.assert_array_equal(np.asarray(blocks.predict(features).compute()),
                                  memory.predict(frame.drop(columns="label")))
    assert blocks.score(features, ddf["label"]) == pytest.approx(
        memory.score(frame.drop(columns="label"), y), abs=1e-15)


def test_score_on_dask_counts_per_chunk(digits):
    """``score`` on dask input (arrays, weights, a DataFrame of unknown partition lengths)
    equals the in-memory accuracy, for linear models and the others."""
    from sklearn.tree import DecisionTreeClassifier

    from robustclf import WeightResamplingClassifier

    pd = pytest.importorskip("pandas")
    X, y = digits
    weights = np.random.default_rng(2).uniform(0.0, 2.0, X.shape[0])
    Xd, yd = _dask(X, y)
    for model in (DropoutSVC().fit(X, y),
                  WeightResamplingClassifier(DecisionTreeClassifier(max_depth=4),
                                             random_state=0).fit(X, y)):
        assert model.score(Xd, yd) == pytest.approx(model.score(X, y), abs=1e-15)
        assert model.score(Xd, y, sample_weight=da.from_array(weights, chunks=300)) == \
            pytest.approx(model.score(X, y, sample_weight=weights), rel=1e-12)
    frame = pd.DataFrame(X, columns=[f"px{j}" for j in range(X.shape[1])])
    named = DropoutLogisticRegression().fit(frame, y)
    ddf = dd.from_pandas(frame, npartitions=3)
    assert named.score(ddf, y) == pytest.approx(named.score(frame, y), abs=1e-15)
    with pytest.raises(ValueError, match="y has 10 entries but X has 900 rows"):
        named.score(ddf, y[:10])


@pytest.mark.parametrize("n_classes", [2, 10])
def test_dropout_svc_takes_about_one_pass_per_newton_iteration(digits, monkeypatch, n_classes):
    """DropoutSVC's smoothing path costs no pass of its own: the history (the final objective)
    and the terms of the levels ahead come from the step's pass. Binary digits: 2 start passes
    and one per iteration (15 passes when each level advance cost a pass and 20 with a history
    pass); 10 classes, whose columns advance at different times: 14 for 10 iterations (40)."""
    from robustclf._blockwise import RowBlocks

    X, y = digits
    passes = []
    original = RowBlocks.reduce
    monkeypatch.setattr(RowBlocks, "reduce",
                        lambda self, *a, **k: passes.append(1) or original(self, *a, **k))
    labels = (y >= 5).astype(int) if n_classes == 2 else y
    blocks = DropoutSVC(tol=1e-8).fit(*_dask(X, labels))
    memory = DropoutSVC(tol=1e-8).fit(X, labels)
    n_iter = blocks.n_iter_.max()
    limit = 2 + n_iter if n_classes == 2 else 2 + 1.5 * n_iter
    assert len(passes) <= limit
    for a, b in zip(blocks.objective_history_, memory.objective_history_, strict=True):
        np.testing.assert_allclose(a[-1], b[-1], rtol=1e-9)
    np.testing.assert_allclose(blocks.coef_, memory.coef_, rtol=0, atol=1e-6 * np.abs(
        memory.coef_).max())
