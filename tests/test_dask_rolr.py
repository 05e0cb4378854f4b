"""RobustLogisticRegression on dask collections: the in-memory fit, computed chunk by chunk.

The blockwise fit (``_fit_ovr_blockwise``, :mod:`robustclf.linear._rolr_blockwise`) runs the
in-memory algorithm on row chunks: the same preprocessing statistics (exact medians, not
approximate quantiles), the same dual iteration (:func:`fista`) with its row-level iterates kept
in the chunks, the same calibration. The reference is always the in-memory fit of the same
rows: at the defaults both take the same iterations, so coefficients agree to rounding; the
order statistics are checked against their in-memory counterparts directly, with the exact
selection forced through several passes.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from robustclf._blockwise import RowBlocks, StatefulRowChunks, _select
from robustclf.datasets import make_contaminated_logistic
from robustclf.linear import _rolr_blockwise as blockwise
from robustclf.linear import _rolr_solvers as solvers
from robustclf.linear._base import ChunkReader
from robustclf.linear.rolr import RobustLogisticRegression

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


@pytest.fixture(scope="module")
def local_cluster():
    """A real ``dask.distributed`` cluster: two in-process workers with one thread each."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def data():
    """1,200 rows, 8 features (not centred), 10 % outliers with large norms and flipped labels,
    a three-class label, integer and real row weights, NaN and sparse versions."""
    rng = np.random.default_rng(0)
    n, d = 1200, 8
    beta = rng.standard_normal(d)
    X = rng.standard_normal((n, d)) + 0.5
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * (X - 0.5) @ beta)), 1, 0)
    out = rng.random(n) < 0.1
    X[out] = 4.0 * rng.standard_normal((out.sum(), d))
    y[out] = 1 - y[out]
    return {
        "X": X, "y": y, "y3": np.digitize((X - 0.5) @ beta, [-0.3, 1.2]),
        "int_w": rng.integers(0, 4, n).astype(float), "real_w": rng.uniform(0.0, 2.0, n),
        "nan": np.where(rng.random(X.shape) < 0.1, np.nan, X),
        "sparse": sp.csr_matrix(np.where(rng.random(X.shape) < 0.6, 0.0, X)),
    }


def _dask(X, y, chunk=300):
    Xd = da.from_array(X, chunks=(chunk, X.shape[1]), asarray=not sp.issparse(X))
    return Xd, da.from_array(y, chunks=chunk)


def _row_blocks(X, y, chunk, weights=None):
    return RowBlocks.from_inputs(*_dask(X, y, chunk), weights)


def _relative(a, b):
    """``||a - b|| / ||b||`` (``||a||`` when ``b`` is zero, e.g. a collapsed fit)."""
    scale = np.linalg.norm(b)
    return np.linalg.norm(a - b) / scale if scale > 0 else np.linalg.norm(a)


def _both(data, X="X", y="y", weights=None, chunk=300, **params):
    """The in-memory and the blockwise fit (threaded scheduler) of the same rows."""
    X, y = data[X], data[y]
    sw = None if weights is None else data[weights]
    memory = RobustLogisticRegression(**params).fit(X, y, sample_weight=sw)
    with dask.config.set(scheduler="threads"):
        blocks = RobustLogisticRegression(**params).fit(*_dask(X, y, chunk), sample_weight=sw)
    return memory, blocks


def _assert_same_fit(memory, blocks, rtol=1e-9):
    assert _relative(blocks.coef_, memory.coef_) < rtol
    np.testing.assert_allclose(blocks.intercept_, memory.intercept_, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(blocks.scale_, memory.scale_, rtol=1e-6)
    np.testing.assert_allclose(blocks.objective_, memory.objective_, rtol=rtol)
    assert blocks.x_scale_ == pytest.approx(memory.x_scale_, rel=1e-12)
    assert (blocks.threshold_ is None) == (memory.threshold_ is None)
    if memory.threshold_ is not None:
        assert blocks.threshold_ == pytest.approx(memory.threshold_, rel=1e-12)
    assert blocks.n_outliers_ == pytest.approx(memory.n_outliers_, rel=1e-12)
    np.testing.assert_array_equal(blocks.classes_, memory.classes_)


CASES = {
    "binary": {},
    "three classes": {"y": "y3"},
    "integer weights": {"weights": "int_w"},
    "real weights, balanced": {"weights": "real_w", "class_weight": "balanced"},
    "absent entries": {"X": "nan"},
    "no intercept, absent entries": {"X": "nan", "fit_intercept": False},
    "no threshold": {"threshold": None},
    "paper threshold, 97-row chunks": {"threshold": "paper", "chunk": 97},
    "sparse chunks, real weights": {"X": "sparse", "weights": "real_w"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_fit_on_dask_is_the_in_memory_fit(data, case):
    """At the defaults the blockwise fit takes the in-memory iterations: every statistic and
    the coefficients agree to rounding (measured: coefficients within 1e-13 relative) and the
    inlier mask, a lazy dask array chunked like X, is the same."""
    memory, blocks = _both(data, **CASES[case])
    _assert_same_fit(memory, blocks)
    np.testing.assert_array_equal(blocks.n_iter_, memory.n_iter_)
    assert isinstance(blocks.inlier_mask_, da.Array)
    assert blocks.inlier_mask_.chunks[-1] == _dask(data["X"], data["y"],
                                                   CASES[case].get("chunk", 300))[0].chunks[0]
    np.testing.assert_array_equal(blocks.inlier_mask_.compute(), memory.inlier_mask_)


def test_tight_fit_on_dask_equals_the_in_memory_fit(data):
    """At ``tol=1e-10`` both fits are the optimum of Eq. (2) to 1e-10 (relative gap): the
    coefficients agree within 1e-6 relative (measured 1e-9: sums taken in another order move
    the last iterations). The inlier masks may differ only at the trimming boundary, where the
    optimum makes margins equal (ties broken by rounding)."""
    memory, blocks = _both(data, tol=1e-10)
    assert _relative(blocks.coef_, memory.coef_) < 1e-6
    np.testing.assert_allclose(blocks.intercept_, memory.intercept_, rtol=1e-6)
    assert np.count_nonzero(blocks.inlier_mask_.compute() != memory.inlier_mask_) <= 2


def test_prediction_on_dask_is_lazy_and_the_same(data):
    memory, blocks = _both(data, y="y3")
    Xd, _ = _dask(data["X"], data["y3"])
    for method in ("predict", "decision_function", "predict_proba", "predict_log_proba"):
        out = getattr(blocks, method)(Xd)
        assert isinstance(out, da.Array), method
        expected = getattr(memory, method)(data["X"])
        if method == "predict":
            np.testing.assert_array_equal(out.compute(), expected)
        else:
            np.testing.assert_allclose(out.compute(), expected, rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_fit_on_a_local_cluster_from_a_dataframe(data, local_cluster):
    """On a ``distributed.LocalCluster`` (row iterates persisted on the workers), from a dask
    DataFrame with sample weights: the in-memory fit, feature names, lazy probabilities."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y, w = data["X"], data["y"], data["real_w"]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    params = {"tol": 1e-4, "threshold": 8.0}                 # few passes: a quick test
    memory = RobustLogisticRegression(**params).fit(frame, y, sample_weight=w)
    ddf = dd.from_pandas(frame, npartitions=3)
    lengths = ddf.to_dask_array(lengths=True).chunks[0]
    from distributed import Client

    with Client(local_cluster):
        blocks = RobustLogisticRegression(**params).fit(
            ddf, da.from_array(y, chunks=lengths), sample_weight=w)
        proba = blocks.predict_proba(ddf)
        assert isinstance(proba, da.Array)
        proba = proba.compute()
        mask = blocks.inlier_mask_.compute()
    _assert_same_fit(memory, blocks)
    np.testing.assert_array_equal(blocks.feature_names_in_, frame.columns.to_numpy())
    np.testing.assert_allclose(proba, memory.predict_proba(frame), rtol=1e-9)
    np.testing.assert_array_equal(mask, memory.inlier_mask_)


def test_passes_over_the_data(data, monkeypatch):
    """Two passes over X per dual iteration plus a fixed number for the preprocessing: here
    one for the medians (every chunk sends its values at once), one for the row norms, and,
    as the threshold removes rows, one more for each; one for the Gram matrix, one to start,
    one for the projections."""
    counts = {"data": 0}
    run = StatefulRowChunks.run

    def counting(self, func, *args, **kwargs):
        counts["data"] += kwargs.get("data", True) is True
        return run(self, func, *args, **kwargs)

    monkeypatch.setattr(StatefulRowChunks, "run", counting)
    memory, blocks = _both(data)
    assert blocks.threshold_ is not None and not blocks.inlier_mask_.compute().all()
    iterations = int(blocks.n_iter_[0])
    assert counts["data"] == 2 * iterations - 1 + 7


def test_warnings_and_errors_are_the_in_memory_ones(data):
    X, y = data["X"], data["y"]
    Xd, yd = _dask(X, y)
    with pytest.warns(UserWarning, match="removed .* rows, more than the n_outliers = 10"):
        RobustLogisticRegression(n_outliers=10).fit(Xd, yd)
    with pytest.raises(ValueError, match="solver='socp' runs in memory only"):
        RobustLogisticRegression(solver="socp").fit(Xd, yd)
    with pytest.raises(ValueError, match="removes every row"):
        RobustLogisticRegression(threshold=1e-3).fit(Xd, yd)
    with pytest.raises(ValueError, match="zero for every row"):
        RobustLogisticRegression().fit(Xd, yd, sample_weight=np.zeros(X.shape[0]))
    one_class = (y == 1).astype(float)
    with pytest.raises(ValueError, match="only the rows of class") as m:
        RobustLogisticRegression().fit(X, y, sample_weight=one_class)
    with pytest.raises(ValueError) as b:
        RobustLogisticRegression().fit(Xd, yd, sample_weight=one_class)
    assert str(b.value) == str(m.value)
    with pytest.raises(ValueError, match="nan_policy='raise'"):
        RobustLogisticRegression(nan_policy="raise").fit(*_dask(data["nan"], y))


def test_collapse_on_dask_is_the_in_memory_collapse():
    """Outliers outweighing the authentic rows: both fits certify the collapse, warn, and
    predict the majority class with the same log-odds (no intercept: the shared slope too)."""
    X, y, _, _ = make_contaminated_logistic(300, 5, outlier_ratio=0.5, random_state=10)
    y[:40] = 1
    params = {"n_outliers": 150, "fit_intercept": False, "threshold": None}
    with pytest.warns(UserWarning, match="collapsed to beta = 0"):
        memory = RobustLogisticRegression(**params).fit(X, y)
    with pytest.warns(UserWarning, match="collapsed to beta = 0"):
        blocks = RobustLogisticRegression(**params).fit(*_dask(X, y, 100))
    assert np.all(blocks.coef_ == 0)
    _assert_same_fit(memory, blocks)
    np.testing.assert_array_equal(blocks.inlier_mask_.compute(), memory.inlier_mask_)


# -- the exact order statistics over chunks ------------------------------------------------

def _chunks_with_states(values, weights, chunk):
    """A :class:`StatefulRowChunks` whose states hold ``values`` (as ``grad``) and ``weights``."""
    n = values.size
    chunks = StatefulRowChunks(_row_blocks(np.zeros((n, 1)), np.zeros(n), chunk))
    bounds = np.cumsum((0,) + chunks.sizes)
    chunks.states = [{"grad": values[a:b], "w": None if weights is None else weights[a:b]}
                     for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    return chunks


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_selections_over_chunks_are_exact(monkeypatch, ties, weighted):
    """With at most 64 values per chunk sent (so that every selection takes several passes of
    sketches and narrowing), the trimmed sum, the weighted median and the projection shift
    equal their in-memory values; with integer values (many ties) too."""
    monkeypatch.setattr(_select, "RAW_BUDGET", 0)
    rng = np.random.default_rng(3)
    n = 5000
    z = rng.integers(-20, 20, n).astype(float) if ties else rng.standard_normal(n) ** 3
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    chunks = _chunks_with_states(z, w, 700)
    total = n if w is None else float(w.sum())
    for n_trim in (0.3 * total if weighted else 1500, total - 1):
        search = blockwise.select_blockwise(chunks, ("grad",), n_trim)
        assert search.passes > 1 or n_trim == total - 1
        magnitude = np.abs(z).sum() if w is None else np.abs(z) @ w    # sums of that size
        assert search.trimmed_sum == pytest.approx(solvers.trimmed_sum(z, n_trim, w),
                                                   abs=1e-12 * magnitude)
    lower = blockwise.select_blockwise(chunks, ("grad",), fraction=0.5)
    upper = blockwise.select_blockwise(chunks, ("grad",), fraction=0.5, strict=True)
    expected = solvers.weighted_medians(z, np.ones(n) if w is None else w)
    assert 0.5 * (lower.value + upper.value) == expected
    v = rng.standard_normal(n) * 3
    chunks.states = [dict(state, s=v_b, grad=np.zeros(v_b.size))
                     for state, v_b in zip(chunks.states, np.split(v, np.cumsum(
                         chunks.sizes)[:-1]), strict=True)]
    for target in (0.1 * total, 0.5 * total):
        search = _select.run_search(chunks, _select.CappedSumSearch(chunks.n_chunks, target,
                                                                    total),
                                    blockwise._chunk_select, ("v", 1.0), True)
        assert search.value == pytest.approx(solvers._project_sort(v, target, w), abs=1e-12)


def test_column_medians_over_chunks_are_exact(data, monkeypatch):
    """Dense chunks with absent entries and real weights, sparse chunks (implicit zeros
    counted): the medians are :func:`column_medians`, also through several passes."""
    monkeypatch.setattr(_select, "RAW_BUDGET", 0)
    reader = ChunkReader(np.array([0, 1]), None, allow_nan=True, keep_absent=True)
    y, w = data["y"], data["real_w"]
    for X, weights in ((data["nan"], w), (data["sparse"], None), (data["sparse"], w)):
        chunks = StatefulRowChunks(_row_blocks(X, y, 250, weights))
        spec = blockwise.BlockSpec(reader, weighted=weights is not None, fit_intercept=True)
        got = blockwise.column_medians_blockwise(chunks, spec, X.shape[1], False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            np.testing.assert_array_equal(got, solvers.column_medians(X, weights))
        assert chunks.n_passes >= 2
