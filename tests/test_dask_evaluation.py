"""Prediction, corruption, certification and robustness curves on dask collections, on a real
``dask.distributed`` cluster (the session's ``dask_client``: two worker processes).

The in-memory calls are the oracle: deterministic things (adversarial corruptions, predictions,
certificates, curves under them) must give the same numbers on a dask array as on the array;
random corruptions the same numbers for the same seed across dask calls and the in-memory
statistics. Outputs must be lazy: nothing is read before ``.compute()``.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from robustclf.certify import certified_error, worst_case_margin
from robustclf.corruption import GreedyDeletion, OptimalDeletion, RandomDeletion
from robustclf.ensemble import FeatureBoostClassifier, WeightResamplingClassifier
from robustclf.evaluation import (
    certified_curve,
    fitted_certified_curve,
    fitted_robustness_curve,
    make_certified_scorer,
    make_corruption_scorer,
    robustness_curve,
)
from robustclf.missing.impute import GaussianMixtureImputer, GroupMissingIndicator
from robustclf.missing.socp import GeometricMarginSeparableSVC

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

VALUES = np.linspace(0.5, 2.0, 10)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=900, n_features=10, n_informative=6, random_state=0)
    y = np.where(y == 1, "yes", "no")  # string labels travel through the chunks too
    return X[:300], y[:300], X[300:], y[300:]


@pytest.fixture(scope="module")
def model(data):
    X_train, y_train, _, _ = data
    return LogisticRegression().fit(X_train, y_train)


def as_dask(X, rows=130):
    return da.from_array(X, chunks=(rows, 4))


def touched_source(X, folder, rows=150):
    """A dask array whose chunks leave a file in ``folder`` when a worker reads them."""
    import dask

    parts = [da.from_delayed(dask.delayed(_read_chunk)(X[i:i + rows], str(folder / f"c{i}")),
                             shape=X[i:i + rows].shape, dtype=X.dtype)
             for i in range(0, X.shape[0], rows)]
    return da.concatenate(parts)


def _read_chunk(values, marker):
    open(marker, "w").close()
    return values


def test_on_a_cluster_dask_gives_the_in_memory_numbers_lazily(dask_client, data, model, tmp_path):
    _, _, X, y = data
    Xd = touched_source(X, tmp_path)
    attack = GreedyDeletion(budget=2, fill=0.0)

    corrupted = attack.corrupt(Xd, y=y, model=model)
    booster = FeatureBoostClassifier(n_estimators=3, random_state=0).fit(X, y)
    predicted = booster.predict(corrupted)
    assert isinstance(corrupted, da.Array) and isinstance(predicted, da.Array)
    assert not list(tmp_path.iterdir())  # lazy: no chunk read yet

    expected = attack.corrupt(X, y=y, model=model)
    assert np.array_equal(corrupted.compute(), expected)
    assert np.array_equal(predicted.compute(), booster.predict(expected))
    assert len(list(tmp_path.iterdir())) == 4

    for budget, values in [(2, "uniform"), (2.5, VALUES)]:
        assert certified_error(model, Xd, y, budget, values, fill=0.0) == \
            certified_error(model, X, y, budget, values, fill=0.0)

    levels = [0, 1, 2]
    on_dask = fitted_robustness_curve(model, Xd, da.from_array(y, chunks=200),
                                      corruption=attack, levels=levels)
    in_memory = fitted_robustness_curve(model, X, y, corruption=attack, levels=levels)
    assert on_dask["error"].tolist() == in_memory["error"].tolist()
    assert in_memory["error"].is_monotonic_increasing and in_memory["error"].iloc[-1] > 0.2


def test_random_curves_on_a_cluster_are_reproducible_with_in_memory_statistics(
        dask_client, data, model):
    _, _, X, y = data
    options = dict(corruption=RandomDeletion(fraction=0.0, fill=0.0), levels=[0.0, 0.5],
                   n_repeats=4, random_state=0)
    first = fitted_robustness_curve(model, as_dask(X), y, **options)
    again = fitted_robustness_curve(model, as_dask(X), y, **options)
    in_memory = fitted_robustness_curve(model, X, y, **options)
    assert first["error"].tolist() == again["error"].tolist()
    clean = first["level"] == 0.0
    assert first.loc[clean, "error"].tolist() == in_memory.loc[clean, "error"].tolist()
    dask_mean = first.loc[~clean, "error"].mean()
    memory_mean = in_memory.loc[~clean, "error"].mean()
    # 4 x 600 corrupted rows each: the two means agree within about 4 standard errors
    assert abs(dask_mean - memory_mean) < 0.04
    assert dask_mean > first.loc[clean, "error"].mean() + 0.05


@pytest.mark.parametrize("scoring", ["roc_auc", "balanced_accuracy", "neg_log_loss", "accuracy"])
def test_other_scorers_match_in_memory(dask_client, data, model, scoring):
    _, _, X, y = data
    options = dict(corruption=GreedyDeletion(fill=0.0), levels=[0, 2], scoring=scoring)
    on_dask = fitted_robustness_curve(model, as_dask(X), y, **options)
    in_memory = fitted_robustness_curve(model, X, y, **options)
    assert np.allclose(on_dask["score"], in_memory["score"], rtol=1e-12)


def test_certified_curves_and_scorers_match_in_memory(dask_client, data, model):
    X_train, y_train, X, y = data
    options = dict(budgets=[0, 1, 2.5], feature_values=VALUES, fill=0.0)
    on_dask = fitted_certified_curve(model, as_dask(X), y, **options)
    in_memory = fitted_certified_curve(model, X, y, **options)
    columns = ["level", "error", "error_lower", "error_upper", "is_exact"]
    pd.testing.assert_frame_equal(on_dask[columns], in_memory[columns])
    refit = certified_curve([LogisticRegression()], X_train, y_train, as_dask(X), y, **options)
    pd.testing.assert_frame_equal(refit[columns], in_memory[columns])

    scorer = make_certified_scorer(2, fill=0.0)
    assert scorer(model, as_dask(X), y) == scorer(model, X, y)
    corruption_scorer = make_corruption_scorer(OptimalDeletion(fill=0.0), 2,
                                               scoring="balanced_accuracy")
    assert corruption_scorer(model, as_dask(X), da.from_array(y, chunks=250)) == \
        pytest.approx(corruption_scorer(model, X, y), rel=1e-12)


def test_worst_case_margins_on_dask(dask_client, data, model):
    _, _, X, y = data
    expected = worst_case_margin(model, X, y, 2.5, VALUES, fill=0.0)
    result = worst_case_margin(model, as_dask(X), y, 2.5, VALUES, fill=0.0)
    for field in ("relaxed", "greedy", "lower", "upper", "exact"):
        assert isinstance(getattr(result, field), np.ndarray)
        assert np.allclose(getattr(result, field), getattr(expected, field), rtol=0, atol=1e-12)
    for field in ("greedy_mask", "attack_mask", "exact_mask"):
        mask = getattr(result, field)
        assert isinstance(mask, da.Array)
        assert np.array_equal(mask.compute(), getattr(expected, field))


def test_rows_left_open_warn_once_for_all_chunks(data, model, monkeypatch):
    """An exact solver stopped short (stubbed: it returns the bounds it was given) leaves the
    same rows open on dask as in memory, and one warning names them all, at the caller."""
    import dask

    import robustclf.certify as certify
    from robustclf._worst_case import ExactDeletion, greedy_knapsack_deletion, knapsack_deletion

    def stopped(gains, values, budget, **kwargs):
        gain, mask = greedy_knapsack_deletion(gains, values, budget)
        bound = knapsack_deletion(gains, values, budget).relaxed_gain
        return ExactDeletion(gain, bound, mask, gain >= bound, "milp", "time limit reached")

    monkeypatch.setattr(certify, "exact_knapsack_deletion", stopped)
    _, _, X, y = data
    with warnings.catch_warnings(record=True) as memory_warnings:
        warnings.simplefilter("always")
        expected = certified_error(model, X, y, 2.5, VALUES, fill=0.0)
    with dask.config.set(scheduler="sync"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = certified_error(model, as_dask(X, rows=100), y, 2.5, VALUES, fill=0.0)
    assert result == expected and expected.n_undecided > 0
    assert len(caught) == 1 and len(memory_warnings) == 1
    assert str(caught[0].message) == str(memory_warnings[0].message)
    assert caught[0].filename == memory_warnings[0].filename == __file__


def test_refitting_curve_with_a_dask_test_set(dask_client, data):
    X_train, y_train, X, y = data
    options = dict(corruption=GreedyDeletion(fill=0.0), levels=[0, 1, 3], n_repeats=2,
                   random_state=0)
    estimators = {"lr": LogisticRegression(), "lr-strong": LogisticRegression(C=0.01)}
    on_dask = robustness_curve(estimators, X_train, y_train, as_dask(X), y, **options)
    in_memory = robustness_curve(estimators, X_train, y_train, X, y, **options)
    assert on_dask["error"].tolist() == in_memory["error"].tolist()
    with pytest.raises(ValueError, match="cv with a dask X_train"):
        robustness_curve(estimators, as_dask(X_train), y_train, cv=3, **options)


def test_dask_dataframes_reach_the_model_as_pandas_partitions(dask_client, data):
    X_train, y_train, X, y = data
    names = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    model = make_pipeline(SimpleImputer(), LogisticRegression()).fit(
        pd.DataFrame(X_train, columns=names), y_train)
    ddf = dd.from_pandas(frame, npartitions=3)
    labels = dd.from_pandas(pd.Series(y), npartitions=3)
    for scoring in (None, "roc_auc"):
        options = dict(corruption=GreedyDeletion(), levels=[0, 2], scoring=scoring)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*valid feature names")
            on_dask = fitted_robustness_curve(model, ddf, labels, **options)
        in_memory = fitted_robustness_curve(model, frame, y, **options)
        column = "error" if scoring is None else "score"
        assert np.allclose(on_dask[column], in_memory[column], rtol=1e-12)


def test_library_estimators_predict_lazily_chunk_by_chunk(dask_client, data):
    X_train, y_train, X, _ = data
    holes = X.copy()
    holes[::5, :3] = np.nan
    holes[1::7, 4:6] = np.nan
    Xd = as_dask(holes)
    separable_y = np.where(X_train[:, 0] > 0, "yes", "no")
    separable_X = X_train + np.where(separable_y == "yes", 1.0, -1.0)[:, None] * np.eye(10)[0]
    fitted = [
        (FeatureBoostClassifier(n_estimators=3, random_state=0).fit(X_train, y_train),
         ["predict"]),
        (WeightResamplingClassifier(LogisticRegression(), random_state=0).fit(X_train, y_train),
         ["predict", "predict_proba"]),
        (GeometricMarginSeparableSVC().fit(separable_X, separable_y),
         ["predict", "decision_function"]),
        (GroupMissingIndicator().fit(holes), ["transform"]),
        (GaussianMixtureImputer(2, random_state=0).fit(holes), ["transform"]),
    ]
    for estimator, methods in fitted:
        for method in methods:
            out = getattr(estimator, method)(Xd)
            expected = getattr(estimator, method)(holes)
            assert isinstance(out, da.Array), (type(estimator).__name__, method)
            assert out.shape == expected.shape and out.chunks[0] == Xd.chunks[0]
            values = out.compute()
            if values.dtype.kind == "f":
                assert np.allclose(values, expected, rtol=1e-12, atol=1e-12)
            else:
                assert np.array_equal(values, expected)
