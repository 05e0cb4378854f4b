"""Corruptions on DataFrames and sparse matrices: the container is kept, the values are those of
the ndarray path, the input is never modified (issue 16, item 3)."""

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import chisquare
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, OneHotEncoder

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
from robustclf.linear import DeletionRobustLP

SETTINGS = settings(max_examples=25, deadline=None)

_finite = st.one_of(st.just(0.0), st.floats(-10, 10, allow_nan=False, allow_infinity=False))


def matrices(*, nan=True, max_rows=7, max_cols=7):
    elements = st.one_of(_finite, st.just(np.nan)) if nan else _finite
    shapes = st.tuples(st.integers(1, max_rows), st.integers(1, max_cols))
    return shapes.flatmap(lambda shape: hnp.arrays(np.float64, shape, elements=elements))


levels = st.one_of(st.builds(dict, k=st.integers(0, 8)),
                   st.builds(dict, fraction=st.sampled_from([0.0, 0.2, 0.5, 0.7, 1.0])))
fills = st.sampled_from([0.0, np.nan])
seeds = st.integers(0, 2**32 - 1)


def same(a, b):
    return np.array_equal(a, b, equal_nan=True)


def as_frame(X):
    """A DataFrame with a non-default index and string column names."""
    return pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])],
                        index=pd.Index(np.arange(X.shape[0]) * 10 + 3, name="id"))


def fixed_model(n_features=12):
    """A linear model with fixed coefficients (no fit, so results do not depend on a solver)."""
    model = LogisticRegression()
    model.coef_ = np.linspace(-1.0, 1.0, n_features)[None, :]
    model.intercept_ = np.array([0.1])
    model.classes_ = np.array([0, 1])
    model.n_features_in_ = n_features
    return model


def value_corruptions(groups):
    return [
        RandomDeletion(**groups["level"], among=groups["among"], fill=groups["fill"]),
        GroupDeletion(groups["groups"], **groups["level"], fill=groups["fill"]),
        MarginalResampling(**groups["level"]),
        MarginalResampling(**groups["level"], groups=groups["groups"]),
        FeatureNoise(**groups["level"]),
    ]


@st.composite
def cases(draw):
    X = draw(matrices())
    n = X.shape[1]
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    groups = [np.flatnonzero(labels == g).tolist() for g in np.unique(labels)]
    params = {"level": draw(levels), "among": draw(st.sampled_from(["all", "nonzero"])),
              "fill": draw(fills), "groups": groups}
    return X, params, draw(seeds)


# -- ndarray behaviour is unchanged ------------------------------------------------------------

# sha256 prefixes of the outputs of the code before issue 16 (commit 54e0a25), same data and seed.
# The deletions' default fill was 0.0 then (np.nan since issue 16): it is given explicitly, so
# the papers' protocol still gives the same bytes.
GOLDEN = [
    (RandomDeletion(fraction=0.3, fill=0.0), "8ba99a4f6651b4f9"),
    (RandomDeletion(k=3, among="nonzero", fill=np.nan), "292f2e7b567e0030"),
    (GroupDeletion([[0, 1, 2], [3, 4], [5, 6, 7, 8]], k=1, fill=0.0), "13a3cfd99e9b0e57"),
    (MarginalResampling(fraction=0.25), "2e2e0c0b31212654"),
    (MarginalResampling(k=1, groups=[[0, 1], [2, 3, 4]]), "6824dbb1cd72e358"),
    (FeatureNoise(k=2), "84a7af017ea9a27c"),
    (GreedyDeletion(budget=3, fill=0.0), "1a17e1bab37de8cf"),
    (OptimalDeletion(budget=2.5, feature_values=np.linspace(0.5, 1.5, 12), fill=0.0),
     "f4ffc4dfaa835a6e"),
    (BlackBoxGreedyDeletion(budget=2, fill=0.0), "4a65b3dd8a4a722c"),
]


def golden_data():
    rng = np.random.default_rng(42)
    X = rng.normal(size=(50, 12))
    X[X < 0.2] = 0
    X[rng.random(X.shape) < 0.05] = np.nan
    complete = np.nan_to_num(X)
    model = fixed_model()
    y = (complete @ model.coef_[0] + 0.1 > 0).astype(int)
    return X, complete, y, model


@pytest.mark.parametrize(("corruption", "digest"), GOLDEN,
                         ids=[type(c).__name__ for c, _ in GOLDEN])
def test_ndarray_output_is_bit_for_bit_the_one_before_issue_16(corruption, digest):
    X, complete, y, model = golden_data()
    out = corruption.corrupt(complete if corruption.requires_model else X, y, model,
                             random_state=7)
    assert type(out) is np.ndarray and out.dtype == np.float64
    assert hashlib.sha256(np.ascontiguousarray(out).tobytes()).hexdigest()[:16] == digest


# -- DataFrames: same values as the ndarray path --------------------------------------------


@SETTINGS
@given(cases())
def test_numeric_dataframe_gives_the_ndarray_values_in_a_dataframe(case):
    X, params, seed = case
    for corruption in value_corruptions(params):
        frame = as_frame(X)
        before = frame.copy()
        out = corruption.corrupt(frame, random_state=seed)
        assert isinstance(out, pd.DataFrame)
        pd.testing.assert_index_equal(out.index, frame.index)
        pd.testing.assert_index_equal(out.columns, frame.columns)
        assert (out.dtypes == np.float64).all()
        assert same(out.to_numpy(), corruption.corrupt(X, random_state=seed))
        pd.testing.assert_frame_equal(frame, before)  # input untouched


@SETTINGS
@given(cases())
def test_dataframe_deletion_mask_is_the_ndarray_mask(case):
    X, params, seed = case
    corruption = RandomDeletion(**params["level"], among=params["among"])
    mask = corruption.deletion_mask(as_frame(X), random_state=seed)
    assert type(mask) is np.ndarray and mask.dtype == bool
    assert np.array_equal(mask, corruption.deletion_mask(X, random_state=seed))


def test_adversaries_on_a_dataframe_give_the_ndarray_values():
    X, complete, y, model = golden_data()
    frame = as_frame(complete)
    model_df = LogisticRegression().fit(frame, y)
    model_np = LogisticRegression().fit(complete, y)
    for corruption in (GreedyDeletion(budget=3, fill=0.0), OptimalDeletion(budget=2, fill=0.0),
                       BlackBoxGreedyDeletion(budget=2, fill=0.0)):
        out = corruption.corrupt(frame, y, model_df, random_state=0)
        assert isinstance(out, pd.DataFrame)
        assert same(out.to_numpy(), corruption.corrupt(complete, y, model_np, random_state=0))


# -- DataFrames with columns of every kind --------------------------------------------------


def mixed_frame(n=40, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "x": rng.normal(size=n),
        "count": rng.integers(1, 5, n),
        "nullable": pd.array(rng.integers(1, 5, n), dtype="Int64"),
        "flag": rng.random(n) < 0.5,
        "single": rng.normal(size=n).astype(np.float32),
        "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n),
                                 categories=["red", "green", "blue", "unused"]),
        "name": pd.array(rng.choice(["a", "b"], n), dtype="string"),
        "thing": pd.Series(rng.choice(["p", "q"], n), dtype=object),
        "when": pd.to_datetime(rng.integers(0, 10**9, n), unit="s"),
    }, index=pd.Index(rng.permutation(n) + 100))
    frame.loc[frame.index[:3], "colour"] = np.nan
    frame.loc[frame.index[3:5], "x"] = np.nan
    return frame


def test_mixed_dataframe_deletion_keeps_dtypes_and_deletes_as_missing():
    frame = mixed_frame()
    before = frame.copy()
    corruption = RandomDeletion(k=3, fill=np.nan)
    out = corruption.corrupt(frame, random_state=1)
    mask = corruption.deletion_mask(frame, random_state=1)
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_index_equal(out.index, frame.index)
    pd.testing.assert_index_equal(out.columns, frame.columns)
    # every row loses exactly 3 present entries, and they are the masked ones
    was_missing = frame.isna().to_numpy()
    assert (out.isna().to_numpy().sum(axis=1) - was_missing.sum(axis=1) == 3).all()
    assert np.array_equal(out.isna().to_numpy(), was_missing | mask)
    assert not (mask & was_missing).any()
    kept = ~out.isna().to_numpy()
    for j, name in enumerate(frame.columns):  # untouched entries keep their values
        assert out[name][kept[:, j]].tolist() == frame[name][kept[:, j]].tolist()
    dtypes = out.dtypes
    assert dtypes["x"] == np.float64 and dtypes["single"] == np.float32
    assert dtypes["count"] == np.float64 and dtypes["flag"] == np.float64  # received NaN
    assert dtypes["nullable"] == "Int64" and out["nullable"].isna().any()
    assert dtypes["colour"] == frame["colour"].dtype  # same categories, "unused" included
    assert dtypes["name"] == frame["name"].dtype and dtypes["thing"] == np.dtype(object)
    assert dtypes["when"] == frame["when"].dtype


def test_integer_columns_keep_their_dtype_when_no_nan_is_written():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6], "ok": [True, True, True]})
    corruption = RandomDeletion(k=1, fill=0.0)
    out = corruption.corrupt(frame, random_state=0)
    assert (out.dtypes == frame.dtypes).all()
    mask = corruption.deletion_mask(frame, random_state=0)
    assert (out.to_numpy()[mask] == 0).all() and (out.to_numpy()[~mask] != 0).all()


@SETTINGS
@given(st.integers(5, 30), seeds, st.sampled_from([dict(k=1), dict(k=2), dict(fraction=0.5)]))
def test_marginal_resampling_moves_values_of_every_kind_between_rows(n, seed, level):
    frame = mixed_frame(n, seed)
    out = MarginalResampling(**level).corrupt(frame, random_state=seed)
    for name in frame.columns:  # every value comes from some row of the column
        values = set(frame[name].dropna().tolist())
        assert set(out[name].dropna().tolist()) <= values
        assert out[name].dtype == frame[name].dtype
    assert (out.isna().to_numpy() >= frame.isna().to_numpy()).all()  # NaN never overwritten


def test_marginal_resampling_reference_dataframe():
    frame = mixed_frame(10, 0)
    reference = mixed_frame(30, 1)
    out = MarginalResampling(fraction=1.0, reference=reference).corrupt(frame, random_state=0)
    assert out["colour"].dtype == frame["colour"].dtype
    for name in ("colour", "name", "count"):
        assert set(out[name].dropna()) <= set(reference[name].dropna())
    with pytest.raises(ValueError, match="reference must be a DataFrame with X's columns"):
        MarginalResampling(k=1, reference=reference.to_numpy()).corrupt(frame)
    with pytest.raises(ValueError, match="reference must have the same columns"):
        MarginalResampling(k=1, reference=reference.iloc[:, ::-1]).corrupt(frame)


def test_non_numeric_columns_need_fill_nan():
    with pytest.raises(ValueError, match=r"fill=0.0 cannot be written into the non-numeric "
                                         r"column\(s\) \['colour', 'name', 'thing', 'when'\]"):
        RandomDeletion(k=1, fill=0.0).corrupt(mixed_frame())


@pytest.mark.parametrize("corruption", [FeatureNoise(k=1), GreedyDeletion(budget=1),
                                        OptimalDeletion(budget=1)], ids=type)
def test_value_corruptions_name_the_non_numeric_columns(corruption):
    frame = mixed_frame()[["x", "name"]].fillna(0.0)
    with pytest.raises(ValueError, match=r"needs numeric columns; X has non-numeric column\(s\) "
                                         r"\['name'\]"):
        corruption.corrupt(frame, np.zeros(len(frame), dtype=int), fixed_model(2))


def test_black_box_attack_on_a_fitted_pipeline_with_a_categorical_column():
    frame = mixed_frame(200, 3)[["x", "count", "colour", "name"]]
    y = ((frame["x"].fillna(0) > 0) ^ (frame["colour"] == "red")).astype(int).to_numpy()
    model = HistGradientBoostingClassifier(max_iter=20, categorical_features="from_dtype",
                                           random_state=0).fit(frame.drop(columns="name"), y)
    X = frame.drop(columns="name")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "X does not have valid feature names"
        out = BlackBoxGreedyDeletion(budget=2, fill=np.nan).corrupt(X, y, model)
    assert isinstance(out, pd.DataFrame) and out["colour"].dtype == X["colour"].dtype
    added = out.isna().to_numpy() & ~X.isna().to_numpy()
    assert added.sum(axis=1).max() <= 2 and added.any()
    assert (model.predict(out) != y).mean() > (model.predict(X) != y).mean()
    encoded = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["colour", "name"]),
                                remainder="passthrough"),
        LogisticRegression())
    frame_filled = frame.fillna({"x": 0.0, "colour": "red"})
    encoded.fit(frame_filled, y)
    out = BlackBoxGreedyDeletion(budget=1, fill=np.nan, stop_when_misclassified=False).corrupt(
        frame_filled, y, _NanAsDropped(encoded))
    assert isinstance(out, pd.DataFrame) and out["name"].dtype == frame["name"].dtype


class _NanAsDropped:
    """A fitted pipeline whose inputs' missing numbers are read as 0 (the one-hot part ignores
    missing categories)."""

    def __init__(self, model):
        self.model = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        self.feature_names_in_ = model.feature_names_in_

    def decision_function(self, X):
        assert isinstance(X, pd.DataFrame)
        return self.model.decision_function(X.fillna({"x": 0.0, "count": 0}))


def test_model_fitted_on_other_columns_is_refused():
    frame = as_frame(np.ones((4, 3)))
    model = LogisticRegression().fit(frame.iloc[:, ::-1], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="columns are not the ones the model was fitted on"):
        GreedyDeletion(budget=1).corrupt(frame, [0, 1, 0, 1], model)


# -- groups by column name -------------------------------------------------------------------


@SETTINGS
@given(cases())
def test_groups_by_name_equal_groups_by_position(case):
    X, params, seed = case
    frame = as_frame(X)
    named = [[frame.columns[j] for j in g] for g in params["groups"]]
    for cls in (GroupDeletion, MarginalResampling):
        by_name = (cls(named, **params["level"]) if cls is GroupDeletion
                   else cls(groups=named, **params["level"]))
        by_position = by_name.set_params(groups=params["groups"]).corrupt(X, random_state=seed)
        by_name.set_params(groups=named)
        assert same(by_name.corrupt(frame, random_state=seed).to_numpy(), by_position)


def test_unknown_or_misplaced_group_names_raise():
    frame = as_frame(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"groups\[1\] names unknown column\(s\) \['nope'\]"):
        GroupDeletion([["f0"], ["f1", "nope"]], k=1).corrupt(frame)
    with pytest.raises(ValueError, match="column names need X as a pandas DataFrame"):
        GroupDeletion([["f0"]], k=1).corrupt(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"groups\[0\] must be a list of column indices or"):
        MarginalResampling(k=1, groups=["f0", "f1"]).corrupt(frame)


# -- sparse matrices -------------------------------------------------------------------------


def sparse_of(X, density_seed, fmt="csr"):
    """X with some entries made implicit zeros, as a sparse matrix of format ``fmt``."""
    keep = np.random.default_rng(density_seed).random(X.shape) < 0.6
    dense = np.where(keep, X, 0.0)
    return sp.csr_matrix(dense).asformat(fmt), dense


def stored_mask(S):
    S = sp.csr_matrix(S)
    mask = np.zeros(S.shape, dtype=bool)
    rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
    mask[rows, S.indices] = True
    return mask


@SETTINGS
@given(cases(), st.integers(0, 100), st.sampled_from(["csr", "csc", "coo"]))
def test_sparse_random_deletion_counts_and_containers(case, density_seed, fmt):
    X, params, seed = case
    S, dense = sparse_of(X, density_seed, fmt)
    S.data.flags.writeable = False  # the input is never written
    before = S.copy()
    corruption = RandomDeletion(**params["level"], among=params["among"], fill=params["fill"])
    out = corruption.corrupt(S, random_state=seed)
    assert type(out) is type(S) and out.format == fmt and out.dtype == np.float64
    assert same(S.toarray(), before.toarray())
    result = out.toarray()
    nan_before = np.isnan(dense)
    assert np.isnan(result[nan_before]).all()  # NaN never overwritten
    fill = params["fill"]
    changed = ~nan_before & (np.isnan(result) if np.isnan(fill) else (result != dense))
    assert (result[~changed & ~nan_before] == dense[~changed & ~nan_before]).all()
    # counts per row: exactly the documented number of candidates deleted
    candidates = ~nan_before & ((dense != 0) if params["among"] == "nonzero" else True)
    m = candidates.sum(axis=1)
    k, fraction = params["level"].get("k"), params["level"].get("fraction")
    expected = np.minimum(m, k) if k is not None else np.minimum(
        m, np.floor(fraction * m + 0.5 + 1e-12 * np.maximum(1, fraction * m)).astype(int))
    if np.isnan(fill):
        assert np.array_equal(changed.sum(axis=1), expected)
    else:  # a deleted zero does not show; deleted non-zeros are removed from storage
        assert (changed.sum(axis=1) <= expected).all()
        assert (stored_mask(out) <= stored_mask(S)).all()
    if params["among"] == "nonzero" or not np.isnan(fill):
        assert out.nnz <= sp.csr_matrix(S).nnz  # never grows
    mask = corruption.deletion_mask(S, random_state=seed)
    assert sp.issparse(mask) and mask.format == fmt and mask.dtype == bool
    assert np.array_equal(mask.toarray(), changed | (stored_mask(S) & ~stored_mask(out)))


@SETTINGS
@given(cases())
def test_sparse_random_deletion_equals_dense_when_every_entry_is_stored(case):
    X, params, seed = case
    X = np.where(X == 0, 1.0, X)  # no stored zero is lost by the CSR conversion
    S = sp.csr_array(X)
    assert S.nnz == X.size
    corruption = RandomDeletion(**params["level"], among=params["among"], fill=np.nan)
    out = corruption.corrupt(S, random_state=seed)
    assert isinstance(out, sp.csr_array)
    assert same(out.toarray(), corruption.corrupt(X, random_state=seed))


@SETTINGS
@given(cases(), st.integers(0, 100))
def test_sparse_group_deletion_equals_dense(case, density_seed):
    X, params, seed = case
    S, dense = sparse_of(X, density_seed, "csc")
    corruption = GroupDeletion(params["groups"], **params["level"], fill=params["fill"])
    out = corruption.corrupt(S, random_state=seed)
    assert sp.isspmatrix_csc(out)
    assert same(out.toarray(), corruption.corrupt(dense, random_state=seed))
    if not np.isnan(params["fill"]):  # deleted entries leave storage
        assert (stored_mask(out) <= stored_mask(S)).all() and not np.any(out.data == 0)


def test_sparse_among_all_is_uniform_over_present_features():
    """A row of 4 features, 2 of them stored: one deletion falls on a stored entry with
    probability 1/2, and on each feature with probability 1/4 (fill=nan shows implicit ones)."""
    n = 4000
    S = sp.csr_matrix(np.tile([1.0, 0.0, 2.0, 0.0], (n, 1)))
    out = RandomDeletion(k=1, fill=np.nan).corrupt(S, random_state=0).toarray()
    hits = np.isnan(out).sum(axis=0)
    assert hits.sum() == n
    assert chisquare(hits).pvalue > 1e-3
    out = RandomDeletion(k=1, fill=0.0).corrupt(S, random_state=0)
    assert chisquare(np.bincount(np.diff(out.indptr), minlength=3)[1:]).pvalue > 1e-3
    # 4 of 5 implicit zeros: drawn through the complement, the spared one is uniform too
    empty = sp.csr_matrix((n, 5))
    out = RandomDeletion(k=4, fill=np.nan).corrupt(empty, random_state=0).toarray()
    assert np.array_equal(np.isnan(out).sum(axis=1), np.full(n, 4))
    assert chisquare((~np.isnan(out)).sum(axis=0)).pvalue > 1e-3


def test_sparse_among_all_with_many_implicit_deletions():
    """Rows needing more than half their implicit zeros take the complement's path."""
    S = sp.random(50, 30, density=0.1, random_state=0, format="csr")
    out = RandomDeletion(fraction=0.9, fill=np.nan).corrupt(S, random_state=1)
    assert np.array_equal(np.isnan(out.toarray()).sum(axis=1), np.full(50, 27))


def test_sparse_is_never_densified(monkeypatch):
    S = sp.random(200, 50, density=0.05, random_state=0, format="csr")
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", _refuse)
    for corruption in (RandomDeletion(k=2), RandomDeletion(fraction=0.3, fill=np.nan),
                       RandomDeletion(k=1, among="nonzero"),
                       GroupDeletion([[0, 1], [2, 3, 4]], k=1, fill=np.nan)):
        assert sp.issparse(corruption.corrupt(S, random_state=0))
        assert sp.issparse(corruption.deletion_mask(S, random_state=0))


def _refuse(*args, **kwargs):
    raise AssertionError("a sparse matrix was densified")


@pytest.mark.parametrize("corruption", [FeatureNoise(k=1), MarginalResampling(k=1)], ids=type)
def test_value_corruptions_refuse_sparse(corruption):
    with pytest.raises(ValueError, match="X is a sparse matrix; .* needs a dense array or a "
                                         "DataFrame"):
        corruption.corrupt(sp.csr_matrix(np.ones((2, 3))))


def _sparse_model(kind):
    """Models for sparse input: how each reads a deleted (NaN) entry decides the sparse path."""
    if kind == "sklearn":  # NaN is an error: fill=0.0 only
        return make_pipeline(MaxAbsScaler(), LogisticRegression())
    if kind == "library":  # NaN contributes zero, a raw zero in raw units: D = 0, O(nnz)
        return make_pipeline(MaxAbsScaler(), DeletionRobustLP(budget=1))
    # NaN becomes the training mean: D != 0, implicit zeros can be deleted (blocks of rows)
    return make_pipeline(SimpleImputer(), MaxAbsScaler(), LogisticRegression())


_VALUES = np.linspace(0.2, 1.0, 8)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kind", ["sklearn", "library", "imputer"])
@pytest.mark.parametrize("corruption", [
    GreedyDeletion(budget=2), OptimalDeletion(budget=3), GreedyDeletion(budget=2, fill=0.0),
    OptimalDeletion(budget=3, fill=0.0),
    GreedyDeletion(budget=1.5, feature_values=_VALUES),
    GreedyDeletion(budget=1.5, feature_values=_VALUES, fill=0.0),
    OptimalDeletion(budget=1.5, feature_values=_VALUES),
    OptimalDeletion(budget=1.5, feature_values=_VALUES, fill=0.0),
    BlackBoxGreedyDeletion(budget=2), BlackBoxGreedyDeletion(budget=2, fill=0.0),
], ids=repr)
def test_sparse_adversaries_equal_dense(corruption, kind, n_classes):
    if kind == "sklearn" and np.isnan(corruption.fill):
        pytest.skip("a bare scikit-learn model cannot take NaN (tested in test_adversarial)")
    rng = np.random.default_rng(n_classes)
    X = rng.normal(size=(150, 8))
    X[X < 0.3] = 0
    y = np.digitize(X[:, 0] + X[:, 1] - X[:, 2], [0.5, 1.5][: n_classes - 1])
    model = _sparse_model(kind).fit(X, y)
    S = sp.csc_matrix(X)
    out = corruption.corrupt(S, y, model, random_state=0)
    dense = corruption.corrupt(X, y, model, random_state=0)
    assert sp.isspmatrix_csc(out)
    assert same(out.toarray(), dense)
    # NaN behind the imputer: deleting an implicit zero moves the score, so some are deleted
    writes_implicit = kind == "imputer" and np.isnan(corruption.fill)
    assert (out.nnz > S.nnz) if writes_implicit else (out.nnz <= S.nnz)
    mask = corruption.deletion_mask(S, y, model, random_state=0)
    assert np.array_equal(mask.toarray(), corruption.deletion_mask(X, y, model, random_state=0))


def test_sparse_linear_adversary_rejects_nan():
    S = sp.csr_matrix(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="X contains NaN"):
        GreedyDeletion(budget=1).corrupt(S, [1], fixed_model(2))


# -- inject_outliers -------------------------------------------------------------------------


def test_inject_outliers_keeps_the_container():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    frame = pd.DataFrame(X, columns=["a", "b", "c"], index=np.arange(30) + 7)
    frame["n"] = rng.integers(0, 3, 30)
    before = frame.copy()
    model = LogisticRegression().fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the model is queried with a DataFrame
        X_out, y_out, is_outlier = inject_outliers(frame, pd.Series(y, name="t"), model,
                                                   n_outliers=5, random_state=0)
    pd.testing.assert_frame_equal(frame, before)
    assert isinstance(X_out, pd.DataFrame) and list(X_out.columns) == ["a", "b", "c", "n"]
    pd.testing.assert_index_equal(X_out.index, pd.RangeIndex(35))
    assert isinstance(y_out, pd.Series) and y_out.name == "t" and y_out.index.equals(X_out.index)
    assert X_out["n"].dtype == np.float64 and X_out["a"].dtype == np.float64
    expected = inject_outliers(frame.to_numpy(dtype=float), y, model.coef_[0], n_outliers=5,
                               random_state=0)[0]
    assert np.array_equal(X_out.to_numpy(), expected)
    assert (y_out[is_outlier] != model.predict(X_out[is_outlier])).all()

    S = sp.csr_array(np.where(X > 0, X, 0))
    model = LogisticRegression().fit(S, y)
    X_out, y_out, _ = inject_outliers(S, y, model, n_outliers=4, random_state=0)
    assert isinstance(X_out, sp.csr_array) and X_out.shape == (34, 3)
    assert (X_out[:30] != S).nnz == 0

    frame["colour"] = "red"
    with pytest.raises(ValueError, match=r"non-numeric column\(s\) \['colour'\]"):
        inject_outliers(frame, y, model, n_outliers=1)


def test_a_model_fitted_on_an_array_is_queried_with_an_array():
    X, complete, y, _ = golden_data()
    model = LogisticRegression().fit(complete, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "X has feature names, but ... was fitted without"
        out = BlackBoxGreedyDeletion(budget=2, fill=0.0).corrupt(as_frame(complete), y, model)
    assert same(out.to_numpy(),
                BlackBoxGreedyDeletion(budget=2, fill=0.0).corrupt(complete, y, model))


def test_dataframe_subclasses_are_dataframes():
    class Table(pd.DataFrame):
        @property
        def _constructor(self):
            return Table

    out = RandomDeletion(k=1, fill=np.nan).corrupt(Table({"a": [1.0, 2.0], "b": ["u", "v"]}))
    assert isinstance(out, pd.DataFrame) and out.isna().to_numpy().sum() == 2


@pytest.mark.parametrize("fill", [0.0, np.nan])
@pytest.mark.parametrize("corruption", [
    GreedyDeletion(budget=2), OptimalDeletion(budget=3),
    GreedyDeletion(budget=1.5, feature_values=np.linspace(0.2, 1.0, 50)),
], ids=repr)
def test_sparse_linear_adversaries_are_never_densified(corruption, fill, monkeypatch):
    """Raw zeros (fill=0.0) into a scikit-learn model, or NaN into a library model that reads
    it as a zero (D = 0): the attack runs on the stored entries."""
    S = sp.random(300, 50, density=0.1, random_state=0, format="csr")
    y = np.random.default_rng(0).integers(0, 2, 300)
    model = (LogisticRegression() if fill == 0.0 else DeletionRobustLP(budget=1)).fit(S, y)
    monkeypatch.setattr(sp.csr_matrix, "toarray", _refuse)
    out = clone(corruption).set_params(fill=fill).corrupt(S, y, model)
    assert sp.issparse(out) and out.nnz <= S.nnz
    assert (np.isnan(out.data).sum() if np.isnan(fill) else S.nnz - out.nnz) > 0
