"""Tests of the fitted-model curves (fitted_robustness_curve, fitted_certified_curve), of the
refit=False switch of robustness_curve/certified_curve, and of scoring= for curves."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from _corruption_doubles import ZeroColumns
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, f1_score, log_loss, make_scorer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from robustclf.certify import certified_error
from robustclf.evaluation import (
    CERTIFIED_COLUMNS,
    CURVE_COLUMNS,
    SCORED_CURVE_COLUMNS,
    certified_curve,
    fitted_certified_curve,
    fitted_robustness_curve,
    robustness_curve,
    summarize_curve,
)

# -- test doubles -----------------------------------------------------------------------------


class NoRefit(LogisticRegression):
    """A logistic regression that may be fitted once (``fit_once``), never again."""

    def fit(self, X, y, sample_weight=None):
        raise AssertionError("fit must not be called on a fitted model")

    def fit_once(self, X, y):
        return super().fit(X, y)


class TypeRecorder(ClassifierMixin, BaseEstimator):
    """A fitted classifier that records the container type of what it predicts on."""

    def __init__(self, seen=None):
        self.seen = seen

    def fit(self, X, y):
        raise AssertionError("fit must not be called on a fitted model")

    def predict(self, X):
        self.seen.append(type(X))
        return np.zeros(X.shape[0], dtype=int)


class DuckDeletion:
    """Duck-typed corruption: deletes the first ``n`` columns as NaN, keeping X's container.

    It records the container it was given. (The library's corruptions will keep containers too;
    this double makes the evaluation tests independent of that.)
    """

    level_name = "n"

    def __init__(self, n=0, seen=None):
        self.n = n
        self.seen = [] if seen is None else seen

    def with_level(self, n):
        return DuckDeletion(n, self.seen)

    def corrupt(self, X, y=None, model=None, random_state=None):
        self.seen.append(type(X))
        X = X.copy()
        if isinstance(X, pd.DataFrame):
            X.iloc[:, : self.n] = np.nan
        elif sp.issparse(X):
            X = X.tolil()
            X[:, : self.n] = 0.0
            X = X.tocsr()
        else:
            X[:, : self.n] = np.nan
        return X


def _fitted_once(model, X, y):
    model.fit_once(X, y)
    return model


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=4, random_state=0)
    return X[:100], y[:100], X[100:], y[100:]


@pytest.fixture(scope="module")
def fitted(data):
    X_train, y_train, _, _ = data
    return {
        "lr": _fitted_once(NoRefit(), X_train, y_train),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_train, y_train),
    }


# -- the fitted-model curve -------------------------------------------------------------------


def test_never_refits_and_matches_the_refitting_curve(data, fitted):
    X_train, y_train, X_test, y_test = data
    frame = fitted_robustness_curve(fitted, X_test, y_test, corruption=ZeroColumns(),
                                    levels=[0, 2, 6], n_repeats=2, random_state=0)
    assert tuple(frame.columns) == CURVE_COLUMNS
    assert len(frame) == 2 * 2 * 3
    assert frame["fit_seconds"].isna().all()
    assert (frame["predict_seconds"] >= 0).all()
    # the same models refitted by robustness_curve give the same errors (deterministic fits)
    refitted = robustness_curve(
        {"lr": LogisticRegression(), "tree": DecisionTreeClassifier(max_depth=3, random_state=0)},
        *data, corruption=ZeroColumns(), levels=[0, 2, 6], n_repeats=2, random_state=0)
    lr = frame["estimator"] == "lr"
    np.testing.assert_allclose(frame.loc[lr, "error"], refitted.loc[lr, "error"])
    # level 0 is the clean error of the fitted model
    clean = 1.0 - fitted["lr"].score(X_test, y_test)
    np.testing.assert_allclose(frame.loc[lr & (frame["level"] == 0), "error"], clean)


def test_a_clone_of_the_fitted_model_is_never_used(data, fitted):
    # a clone would be unfitted: predicting with it would raise NotFittedError
    frame = fitted_robustness_curve(fitted["lr"], data[2], data[3], corruption=ZeroColumns(),
                                    levels=[0])
    assert list(frame["estimator"]) == ["NoRefit"]


def test_unfitted_estimator_is_refused(data):
    with pytest.raises(ValueError, match=r"estimators\['LogisticRegression'\] is not fitted"):
        fitted_robustness_curve(LogisticRegression(), data[2], data[3],
                                corruption=ZeroColumns(), levels=[0])


def test_pairing_and_repeats_differ_only_in_the_corruption(data, fitted):
    from test_curve import GaussianNoise

    frame = fitted_robustness_curve(fitted, data[2], data[3], corruption=GaussianNoise(),
                                    levels=[0.0, 2.0], n_repeats=3, random_state=1)
    lr = frame[frame["estimator"] == "lr"]
    assert lr.loc[lr["level"] == 0.0, "error"].nunique() == 1  # no noise: identical repeats
    assert lr.loc[lr["level"] == 2.0, "error"].nunique() > 1  # fresh draws per repeat
    again = fitted_robustness_curve(fitted, data[2], data[3], corruption=GaussianNoise(),
                                    levels=[0.0, 2.0], n_repeats=3, random_state=1, n_jobs=2)
    pd.testing.assert_series_equal(frame["error"], again["error"])


def test_pipeline_is_named_after_its_final_step(data):
    X_train, y_train, X_test, y_test = data
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_train, y_train)
    frame = fitted_robustness_curve([pipe, ("named", pipe)], X_test, y_test,
                                    corruption=ZeroColumns(), levels=[0])
    assert list(frame["estimator"]) == ["LogisticRegression", "named"]


# -- containers: X stays as the user gave it --------------------------------------------------


def test_dataframe_reaches_the_corruption_and_the_model_as_a_dataframe(data):
    X_test = pd.DataFrame(data[2], columns=[f"f{j}" for j in range(6)])
    corruption, seen = DuckDeletion(), []
    fitted_robustness_curve(_fitted_recorder(seen), X_test, data[3], corruption=corruption,
                            levels=[0, 2])
    assert corruption.seen == [pd.DataFrame, pd.DataFrame]
    assert seen == [pd.DataFrame, pd.DataFrame]


def _fitted_recorder(seen):
    model = TypeRecorder(seen)
    model.classes_ = np.array([0, 1])
    return model


def test_sparse_stays_sparse(data):
    corruption, seen = DuckDeletion(), []
    fitted_robustness_curve(_fitted_recorder(seen), sp.csr_matrix(data[2]), data[3],
                            corruption=corruption, levels=[0, 2])
    assert corruption.seen == seen == [sp.csr_matrix, sp.csr_matrix]


@pytest.mark.filterwarnings("error:X does not have valid feature names")
def test_refitting_curve_passes_dataframes_through_cv_folds(data):
    X = pd.DataFrame(data[0], columns=[f"f{j}" for j in range(6)])
    corruption = DuckDeletion()
    frame = robustness_curve({"tree": DecisionTreeClassifier(max_depth=3)}, X, data[1],
                             corruption=corruption, levels=[0, 1], cv=3)
    assert corruption.seen == [pd.DataFrame] * 6
    # the folds kept the column names: a tree fitted on a DataFrame warns on an ndarray
    assert frame["error"].notna().all() and len(frame) == 6


# -- refit=False ------------------------------------------------------------------------------


def test_robustness_curve_refit_false_is_the_fitted_curve(data, fitted):
    kwargs = dict(corruption=ZeroColumns(), levels=[0, 3], n_repeats=2, random_state=0)
    frame = robustness_curve(fitted, X_test=data[2], y_test=data[3], refit=False, **kwargs)
    expected = fitted_robustness_curve(fitted, data[2], data[3], **kwargs)
    pd.testing.assert_frame_equal(frame.drop(columns="predict_seconds"),
                                  expected.drop(columns="predict_seconds"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"X_train": "data"}, "with refit=False"),
        ({"cv": 3}, "with refit=False"),
        ({"X_test": None}, "X_test and y_test"),
        ({"refit": "no"}, "refit must be True or False"),
    ],
)
def test_refit_false_bad_inputs(data, fitted, kwargs, match):
    arguments = dict(X_test=data[2], y_test=data[3], refit=False)
    if kwargs.get("X_train") == "data":
        kwargs = {"X_train": data[0], "y_train": data[1]}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        robustness_curve(fitted, corruption=ZeroColumns(), levels=[0], **arguments)


def test_refit_needs_training_data(data):
    with pytest.raises(ValueError, match="X_train and y_train are required"):
        robustness_curve(LogisticRegression(), X_test=data[2], y_test=data[3],
                         corruption=ZeroColumns(), levels=[0])


def test_frozen_estimator_mixes_fitted_and_unfitted(data, fitted):
    frame = robustness_curve({"frozen": FrozenEstimator(fitted["lr"]),
                              "fresh": LogisticRegression()}, *data,
                             corruption=ZeroColumns(), levels=[0, 2])
    np.testing.assert_allclose(frame.loc[frame["estimator"] == "frozen", "error"],
                               frame.loc[frame["estimator"] == "fresh", "error"])


# -- scoring ----------------------------------------------------------------------------------


def test_default_scoring_keeps_the_error_frame(data, fitted):
    default = fitted_robustness_curve(fitted, data[2], data[3], corruption=ZeroColumns(),
                                      levels=[0, 2])
    explicit = fitted_robustness_curve(fitted, data[2], data[3], corruption=ZeroColumns(),
                                       levels=[0, 2], scoring="error")
    assert tuple(default.columns) == tuple(explicit.columns) == CURVE_COLUMNS
    pd.testing.assert_series_equal(default["error"], explicit["error"])


@pytest.mark.parametrize(
    ("scoring", "name", "metric", "method"),
    [
        ("balanced_accuracy", "balanced_accuracy", balanced_accuracy_score, "predict"),
        ("neg_log_loss", "neg_log_loss", lambda y, p: -log_loss(y, p), "predict_proba"),
        (make_scorer(f1_score), "f1_score", f1_score, "predict"),
    ],
)
def test_scorers_are_recorded_with_their_name(data, fitted, scoring, name, metric, method):
    X_test, y_test = data[2], data[3]
    frame = fitted_robustness_curve(fitted["lr"], X_test, y_test, corruption=ZeroColumns(),
                                    levels=[0, 3], scoring=scoring)
    assert tuple(frame.columns) == SCORED_CURVE_COLUMNS
    assert set(frame["scoring"]) == {name}
    X3 = X_test.copy()
    X3[:, :3] = 0.0
    expected = [metric(y_test, getattr(fitted["lr"], method)(X)) for X in (X_test, X3)]
    np.testing.assert_allclose(frame["score"], expected)


def test_roc_auc_on_the_refitting_curve_and_summary(data):
    frame = robustness_curve({"lr": LogisticRegression(), "dummy": DummyClassifier()}, *data,
                             corruption=ZeroColumns(), levels=[0, 2], n_repeats=2,
                             scoring="roc_auc", random_state=0)
    assert set(frame["scoring"]) == {"roc_auc"}
    assert (frame.loc[frame["estimator"] == "dummy", "score"] == 0.5).all()
    summary = summarize_curve(frame)  # value defaults to "score" for a scored frame
    assert list(summary.columns) == ["corruption", "level_name", "scoring", "estimator", "level",
                                     "mean", "std", "sem", "count"]
    assert summary["count"].tolist() == [2] * 4


@pytest.mark.parametrize("scoring", ["not_a_metric", ["accuracy", "f1"], f1_score, 3])
def test_bad_scoring(data, fitted, scoring):
    with pytest.raises(ValueError, match="scoring"):
        fitted_robustness_curve(fitted, data[2], data[3], corruption=ZeroColumns(),
                                levels=[0], scoring=scoring)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"X": np.zeros(60)}, "X must be 2-D"),
        ({"y": np.zeros(7)}, "y has 7 entries"),
        ({"n_repeats": 0}, "n_repeats"),
        ({"levels": []}, "levels"),
        ({"corruption": "zero"}, "corruption"),
        ({"estimators": {}}, "estimators"),
    ],
)
def test_fitted_bad_inputs(data, fitted, kwargs, match):
    arguments = dict(estimators=fitted, X=data[2], y=data[3], corruption=ZeroColumns(),
                     levels=[0, 1])
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fitted_robustness_curve(**arguments)


# -- certified curves -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def linear_data():
    X, y = make_classification(n_samples=160, n_features=8, random_state=1)
    return X[:100], y[:100], X[100:], y[100:]


def test_fitted_certified_curve_is_the_certified_error_and_never_refits(linear_data):
    X_train, y_train, X_test, y_test = linear_data
    model = _fitted_once(NoRefit(), X_train, y_train)
    frame = fitted_certified_curve({"lr": model}, X_test, y_test, budgets=[0, 1, 3], fill=0.0)
    assert tuple(frame.columns) == CERTIFIED_COLUMNS
    assert frame["repeat"].eq(0).all() and frame["fit_seconds"].isna().all()
    expected = [certified_error(model, X_test, y_test, b, fill=0.0).error for b in (0, 1, 3)]
    np.testing.assert_allclose(frame["error"], expected)
    # certified_curve refits the same (deterministic) model: same errors, through the same loop
    refitted = certified_curve({"lr": LogisticRegression()}, *linear_data, budgets=[0, 1, 3],
                               fill=0.0)
    np.testing.assert_allclose(refitted["error"], frame["error"])
    assert (refitted["fit_seconds"] > 0).all()


def test_certified_curve_refit_false(linear_data):
    X_train, y_train, X_test, y_test = linear_data
    model = LinearSVC().fit(X_train, y_train)
    frame = certified_curve([model], X_test=X_test, y_test=y_test, budgets=[0, 2], refit=False,
                            fill=0.0)
    expected = fitted_certified_curve(model, X_test, y_test, budgets=[0, 2], fill=0.0)
    pd.testing.assert_frame_equal(frame.drop(columns="predict_seconds"),
                                  expected.drop(columns="predict_seconds"))
    with pytest.raises(ValueError, match="with refit=False"):
        certified_curve([model], X_train, y_train, X_test, y_test, budgets=[0], refit=False)
    with pytest.raises(ValueError, match="n_repeats must be 1 with refit=False"):
        certified_curve([model], X_test=X_test, y_test=y_test, budgets=[0], refit=False,
                        n_repeats=2)
    with pytest.raises(ValueError, match="X_test and y_test"):
        certified_curve([model], budgets=[0], refit=False)


def test_fitted_certified_curve_on_a_dataframe_and_bad_inputs(linear_data):
    X_train, y_train, X_test, y_test = linear_data
    model = LogisticRegression().fit(X_train, y_train)
    frame = fitted_certified_curve(model, pd.DataFrame(X_test), y_test, budgets=[1], fill=0.0)
    assert frame["error"].item() == certified_error(model, X_test, y_test, 1, fill=0.0).error
    with pytest.raises(ValueError, match="not fitted"):
        fitted_certified_curve(LinearSVC(), X_test, y_test, budgets=[1])
    with pytest.raises(ValueError, match="budgets must be distinct"):
        fitted_certified_curve(model, X_test, y_test, budgets=[1, 1])
    with pytest.raises(ValueError, match="exact must be"):
        fitted_certified_curve(model, X_test, y_test, budgets=[1], exact="yes")


# -- property: a model's curve does not depend on the company it is evaluated in --------------


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_repeats=st.integers(1, 3),
       levels=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=3,
                       unique=True))
def test_a_models_curve_does_not_depend_on_the_other_models(data, fitted, seed, n_repeats,
                                                            levels):
    from test_curve import GaussianNoise

    kwargs = dict(corruption=GaussianNoise(), levels=levels, n_repeats=n_repeats,
                  random_state=seed)
    alone = fitted_robustness_curve({"lr": fitted["lr"]}, data[2], data[3], **kwargs)
    together = fitted_robustness_curve({"tree": fitted["tree"], "lr": fitted["lr"]}, data[2],
                                       data[3], **kwargs)
    in_company = together[together["estimator"] == "lr"].reset_index(drop=True)
    np.testing.assert_array_equal(alone["error"], in_company["error"])
    assert alone[["repeat", "level"]].equals(in_company[["repeat", "level"]])
