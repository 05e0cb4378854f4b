"""Corruptions of dask arrays and DataFrames: lazy, chunk by chunk, one random stream per chunk.

The in-memory corruptions are the oracle: deterministic (adversarial) corruptions must give the
same values on a dask array as on the array itself; random ones the same per-row counts and the
same distribution, reproducibly for a fixed seed. Runs on dask's local threaded scheduler; the
distributed cluster is exercised in ``test_dask_evaluation.py``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from robustclf.corruption import (
    BlackBoxGreedyDeletion,
    FeatureNoise,
    GreedyDeletion,
    GroupDeletion,
    MarginalResampling,
    OptimalDeletion,
    RandomDeletion,
    inject_outliers,
)

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def problem():
    X, y = make_classification(n_samples=400, n_features=8, n_informative=5, random_state=0)
    model = LogisticRegression().fit(X, y)
    return X, y, model


def as_dask(X, rows=90):
    return da.from_array(X, chunks=(rows, 3))  # columns split too: joined by the corruption


def touched_source(X, tmp_path, rows=100):
    """A dask array whose chunks leave a file in ``tmp_path`` when they are read."""
    import dask

    parts = [da.from_delayed(dask.delayed(_read_chunk)(X[i:i + rows], tmp_path / f"chunk{i}"),
                             shape=X[i:i + rows].shape, dtype=X.dtype)
             for i in range(0, X.shape[0], rows)]
    return da.concatenate(parts)


def _read_chunk(values, marker):
    marker.touch()
    return values


def test_random_deletion_is_lazy_and_returns_dask(problem, tmp_path):
    X, _, _ = problem
    Xd = touched_source(X, tmp_path)
    out = RandomDeletion(fraction=0.25).corrupt(Xd, random_state=0)
    assert isinstance(out, da.Array)
    assert out.shape == X.shape and out.chunks[0] == Xd.chunks[0] and out.dtype == np.float64
    assert not list(tmp_path.iterdir())  # nothing was read
    values = out.compute()
    assert len(list(tmp_path.iterdir())) == 4
    # exactly round(0.25 * 8) = 2 deletions in every row, as in memory
    assert np.array_equal(np.isnan(values).sum(axis=1), np.full(X.shape[0], 2))
    assert np.array_equal(values[~np.isnan(values)], X[~np.isnan(values)])


def test_random_corruptions_are_reproducible_and_independent_across_chunks(problem):
    X, _, _ = problem
    same = np.tile(X[:50], (4, 1))  # four identical chunks of 50 rows
    Xd = da.from_array(same, chunks=(50, 8))
    for corruption in [RandomDeletion(k=3), GroupDeletion([[0, 1], [2, 3, 4], [5]], k=1),
                       FeatureNoise(k=2), MarginalResampling(k=2, reference=X)]:
        first = corruption.corrupt(Xd, random_state=7).compute()
        again = corruption.corrupt(Xd, random_state=7).compute()
        other = corruption.corrupt(Xd, random_state=8).compute()
        assert np.array_equal(first, again, equal_nan=True), type(corruption).__name__
        assert not np.array_equal(first, other, equal_nan=True), type(corruption).__name__
        chunks = first.reshape(4, 50, 8)
        assert not np.array_equal(chunks[0], chunks[1], equal_nan=True)  # own stream per chunk
        lazy = corruption.corrupt(Xd, random_state=7)
        assert np.array_equal(lazy.compute(), lazy.compute(), equal_nan=True)  # never redrawn


def test_generator_seeds_advance_like_in_memory(problem):
    X, _, _ = problem
    rng = np.random.default_rng(3)
    a = RandomDeletion(k=2).corrupt(as_dask(X), random_state=rng).compute()
    b = RandomDeletion(k=2).corrupt(as_dask(X), random_state=rng).compute()
    assert not np.array_equal(a, b, equal_nan=True)
    c = RandomDeletion(k=2).corrupt(as_dask(X), random_state=np.random.default_rng(3)).compute()
    assert np.array_equal(a, c, equal_nan=True)


def test_random_deletion_has_the_in_memory_distribution():
    X = np.ones((3000, 10))
    dask_rate = np.isnan(RandomDeletion(fraction=0.3).corrupt(
        da.from_array(X, chunks=(700, 10)), random_state=0).compute()).mean(axis=0)
    memory_rate = np.isnan(RandomDeletion(fraction=0.3).corrupt(X, random_state=0)).mean(axis=0)
    # every column is deleted in 30 % of the rows, +- 3 standard errors (0.025)
    assert np.allclose(dask_rate, 0.3, atol=0.025)
    assert np.allclose(memory_rate, 0.3, atol=0.025)


def test_feature_noise_has_the_in_memory_distribution():
    X = np.zeros((2000, 6))
    noisy = FeatureNoise(k=3, scale=2.0).corrupt(da.from_array(X, chunks=(450, 6)),
                                                  random_state=1).compute()
    assert np.array_equal((noisy != 0).sum(axis=1), np.full(2000, 3))
    values = noisy[noisy != 0]
    assert abs(values.mean()) < 0.1 and abs(values.std() - 2.0) < 0.1


@pytest.mark.parametrize("corruption", [
    GreedyDeletion(budget=2, fill=0.0),
    GreedyDeletion(budget=2.5, feature_values=np.linspace(0.5, 2.0, 8), fill=0.0),
    OptimalDeletion(budget=2.5, feature_values=np.linspace(0.5, 2.0, 8), fill=0.0),
    BlackBoxGreedyDeletion(budget=2, fill=0.0),
], ids=["greedy", "greedy-values", "optimal-values", "black-box"])
def test_adversarial_corruptions_equal_the_in_memory_attack(problem, corruption):
    X, y, model = problem
    expected = corruption.corrupt(X, y=y, model=model)
    for labels in (y, da.from_array(y, chunks=120)):  # y in memory, or chunked differently
        out = corruption.corrupt(as_dask(X), y=labels, model=model)
        assert isinstance(out, da.Array)
        assert np.array_equal(out.compute(), expected)
    mask = corruption.deletion_mask(as_dask(X), y=y, model=model)
    assert isinstance(mask, da.Array) and mask.dtype == bool
    assert np.array_equal(mask.compute(), corruption.deletion_mask(X, y=y, model=model))


def test_deletion_mask_matches_corrupt_for_the_same_seed(problem):
    X, _, _ = problem
    corruption = RandomDeletion(fraction=0.4)
    mask = corruption.deletion_mask(as_dask(X), random_state=5).compute()
    corrupted = corruption.corrupt(as_dask(X), random_state=5).compute()
    assert np.array_equal(mask, np.isnan(corrupted))


def test_sparse_chunks_stay_sparse():
    S = sp.random(300, 40, density=0.1, format="csr", random_state=0)
    Sd = da.from_array(S, chunks=(80, 40), asarray=False)
    out = RandomDeletion(k=2, among="nonzero", fill=0.0).corrupt(Sd, random_state=0)
    assert isinstance(out._meta, sp.csr_matrix)
    blocks = [out.blocks[i].compute() for i in range(out.numblocks[0])]
    assert all(isinstance(b, sp.csr_matrix) for b in blocks)
    result = sp.vstack(blocks, format="csr")
    expected_nnz = np.diff(S.indptr) - np.minimum(np.diff(S.indptr), 2)
    assert np.array_equal(np.diff(result.indptr), expected_nnz)
    dense, original = result.toarray(), S.toarray()
    assert np.all((dense == original) | (dense == 0))  # only deletions


def test_dask_dataframe_gives_a_dask_dataframe_with_the_array_values(problem):
    X, y, model = problem
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(8)])
    frame["level"] = pd.Categorical(np.where(y == 1, "high", "low"))
    frame["count"] = np.arange(400) % 7
    ddf = dd.from_pandas(frame, npartitions=4)
    out = RandomDeletion(fraction=0.3).corrupt(ddf, random_state=2)
    assert isinstance(out, dd.DataFrame)
    assert list(out.columns) == list(frame.columns) and out.divisions == ddf.divisions
    assert out.dtypes["level"] == frame.dtypes["level"] and out.dtypes["count"] == np.float64
    result = out.compute()
    assert (result.isna().sum(axis=1) == 3).all()  # round(0.3 * 10)
    assert list(result.dtypes) == list(out.dtypes)
    # a DataFrame gets the values of its numeric array with the same seed, chunk for chunk
    numeric = frame[[f"f{j}" for j in range(8)]]
    lengths = tuple(int(v) for v in ddf.map_partitions(len).compute())
    as_frame = RandomDeletion(k=2).corrupt(dd.from_pandas(numeric, npartitions=4),
                                           random_state=9).compute()
    as_array = RandomDeletion(k=2).corrupt(da.from_array(numeric.to_numpy(), chunks=(lengths, 8)),
                                           random_state=9).compute()
    assert np.array_equal(as_frame.to_numpy(), as_array, equal_nan=True)
    # labels as the frame's own column, partition by partition
    attacked = GreedyDeletion(budget=2, fill=0.0).corrupt(
        dd.from_pandas(numeric, npartitions=4),
        y=dd.from_pandas(pd.Series(y), npartitions=4), model=model.fit(numeric, y)).compute()
    assert np.array_equal(attacked.to_numpy(),
                          GreedyDeletion(budget=2, fill=0.0).corrupt(numeric, y, model).to_numpy())


def test_errors_are_raised_when_corrupt_is_called(problem, tmp_path):
    X, y, model = problem
    Xd = touched_source(X, tmp_path)
    with pytest.raises(ValueError, match="fraction must be in"):
        RandomDeletion(fraction=2.0).corrupt(Xd)
    with pytest.raises(ValueError, match="needs the true labels"):
        GreedyDeletion().corrupt(Xd, model=model)
    with pytest.raises(ValueError, match="needs the fitted model"):
        GreedyDeletion().corrupt(Xd, y=y)
    with pytest.raises(ValueError, match="needs reference="):
        MarginalResampling(k=1).corrupt(Xd)
    with pytest.raises(ValueError, match="must be in memory"):
        MarginalResampling(k=1, reference=as_dask(X)).corrupt(Xd)
    with pytest.raises(ValueError, match="features"):
        GreedyDeletion().corrupt(Xd[:, :5], y=y, model=model)
    with pytest.raises(ValueError, match="in-memory X and y"):
        inject_outliers(Xd, y, model, n_outliers=3)
    assert not list(tmp_path.iterdir())


def test_marginal_resampling_takes_values_from_the_reference(problem):
    X, _, _ = problem
    reference = np.round(X[:20] * 1000) + 0.5  # values that X never has
    out = MarginalResampling(k=3, reference=reference).corrupt(as_dask(X), random_state=0)
    values = out.compute()
    changed = values != X
    assert np.array_equal(changed.sum(axis=1), np.full(X.shape[0], 3))
    for j in range(X.shape[1]):
        assert np.isin(values[changed[:, j], j], reference[:, j]).all()


def test_sparse_matrix_input_returns_the_same_sparse_format():
    S = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    out = RandomDeletion(k=2, among="nonzero").corrupt(S, random_state=0)
    assert isinstance(out, sp.csr_matrix)
    assert np.isnan(out.data).sum() == np.minimum(np.diff(S.indptr), 2).sum()
