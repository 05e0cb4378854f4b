"""Tests of robustness_curve and summarize_curve."""

import hashlib
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from _corruption_doubles import ZeroColumns
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.tree import DecisionTreeClassifier

import robustclf.corruption
from robustclf.corruption import Corruption
from robustclf.evaluation import CURVE_COLUMNS, robustness_curve, summarize_curve

# -- test doubles -----------------------------------------------------------------------------




class GaussianNoise(Corruption):
    """Random: add N(0, scale^2) noise to every entry."""

    level_params = ("scale",)

    def __init__(self, scale=0.0):
        self.scale = scale

    def _corrupt(self, X, y, model, rng):
        return X + self.scale * rng.standard_normal(X.shape)


class Recorder(ClassifierMixin, BaseEstimator):
    """Wraps a classifier and logs its fit calls, fit seeds and the matrices it predicts."""

    log: ClassVar[list] = []

    def __init__(self, estimator=None, tag="", random_state=None):
        self.estimator = estimator
        self.tag = tag
        self.random_state = random_state

    def fit(self, X, y):
        Recorder.log.append(("fit", self.tag, self.random_state))
        self.estimator_ = clone(self.estimator).fit(X, y)
        self.classes_ = self.estimator_.classes_
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        digest = hashlib.sha1(np.ascontiguousarray(X).tobytes()).hexdigest()
        Recorder.log.append(("predict", self.tag, digest))
        return self.estimator_.predict(X)


class NoSeed(ClassifierMixin, BaseEstimator):
    """A classifier without a random_state parameter (must be left untouched)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.classes_[0])


@pytest.fixture(autouse=True)
def _clear_log():
    Recorder.log.clear()
    yield
    Recorder.log.clear()


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=4, random_state=0)
    return X[:100], y[:100], X[100:], y[100:]


def _estimators():
    return {
        "logistic": LogisticRegression(),
        "tree": DecisionTreeClassifier(max_depth=3),
        "dummy": DummyClassifier(strategy="most_frequent"),
    }


# -- shape of the result ----------------------------------------------------------------------


def test_columns_and_one_row_per_estimator_repeat_level(data):
    levels = [0, 1, 2, 4]
    frame = robustness_curve(_estimators(), *data, corruption=ZeroColumns(), levels=levels,
                             n_repeats=3, random_state=0)
    assert tuple(frame.columns) == CURVE_COLUMNS
    assert len(frame) == 3 * 3 * len(levels)
    assert not frame.duplicated(["estimator", "repeat", "level"]).any()
    assert list(frame["estimator"].unique()) == ["logistic", "tree", "dummy"]
    assert sorted(frame["repeat"].unique()) == [0, 1, 2]
    assert list(frame["level"].unique()) == levels
    assert set(frame["corruption"]) == {"ZeroColumns"}
    assert set(frame["level_name"]) == {"n"}
    assert frame["error"].between(0, 1).all()
    assert (frame["fit_seconds"] >= 0).all() and (frame["predict_seconds"] >= 0).all()
    # the model is fitted once per repeat: one fit time shared by all its levels
    assert (frame.groupby(["estimator", "repeat"])["fit_seconds"].nunique() == 1).all()


def test_fit_once_per_estimator_and_repeat(data):
    estimators = {"a": Recorder(LogisticRegression(), tag="a"),
                  "b": Recorder(DummyClassifier(), tag="b")}
    levels = [0, 1, 2, 3, 5]
    robustness_curve(estimators, *data, corruption=ZeroColumns(), levels=levels, n_repeats=3,
                     random_state=0)
    fits = [e for e in Recorder.log if e[0] == "fit"]
    predicts = [e for e in Recorder.log if e[0] == "predict"]
    assert sorted(tag for _, tag, _ in fits) == ["a"] * 3 + ["b"] * 3
    assert sorted(tag for _, tag, _ in predicts) == ["a"] * 15 + ["b"] * 15
    # the caller's estimators are cloned, never fitted
    assert not hasattr(estimators["a"], "estimator_")


def test_level_zero_is_the_clean_error(data):
    X_train, y_train, X_test, y_test = data
    frame = robustness_curve(_estimators(), *data, corruption=ZeroColumns(), levels=[0, 3],
                             n_repeats=2, random_state=0)
    for name in ("logistic", "dummy"):  # deterministic fits: the seed does not matter
        clean = 1.0 - _estimators()[name].fit(X_train, y_train).score(X_test, y_test)
        at_zero = frame.loc[(frame["estimator"] == name) & (frame["level"] == 0), "error"]
        np.testing.assert_allclose(at_zero, clean)


def test_errors_are_misclassification_rates(data):
    X_train, y_train, X_test, y_test = data
    frame = robustness_curve({"lr": LogisticRegression()}, *data, corruption=ZeroColumns(),
                             levels=[6])
    model = LogisticRegression().fit(X_train, y_train)
    expected = np.mean(model.predict(np.zeros_like(X_test)) != y_test)
    assert frame["error"].item() == pytest.approx(expected)


# -- randomness and pairing -------------------------------------------------------------------


def test_same_corrupted_matrix_for_every_estimator(data):
    estimators = [("a", Recorder(LogisticRegression(), tag="a")),
                  ("b", Recorder(DecisionTreeClassifier(), tag="b"))]
    robustness_curve(estimators, *data, corruption=GaussianNoise(), levels=[0.5, 1.0],
                     n_repeats=3, random_state=0)
    seen = {tag: [d for kind, t, d in Recorder.log if kind == "predict" and t == tag]
            for tag in ("a", "b")}
    assert seen["a"] == seen["b"]  # paired: identical inputs at each (repeat, level)
    assert len(set(seen["a"])) == 6  # but fresh draws for every (repeat, level)


def test_estimator_seeds_differ_by_repeat_and_skip_estimators_without_one(data):
    estimators = {"a": Recorder(DummyClassifier(), tag="a"), "none": NoSeed()}
    frame = robustness_curve(estimators, *data, corruption=ZeroColumns(), levels=[0],
                             n_repeats=4, random_state=0)
    seeds = [seed for kind, _, seed in Recorder.log if kind == "fit"]
    assert len(set(seeds)) == 4 and all(isinstance(s, int) for s in seeds)
    assert len(frame) == 8


def test_nested_random_state_is_seeded(data):
    estimators = {"nested": Recorder(Recorder(DummyClassifier(), tag="inner"), tag="outer")}
    robustness_curve(estimators, *data, corruption=ZeroColumns(), levels=[0], n_repeats=2,
                     random_state=0)
    inner = [seed for kind, tag, seed in Recorder.log if kind == "fit" and tag == "inner"]
    assert len(inner) == 2 and None not in inner and inner[0] != inner[1]


def test_deterministic_given_a_seed(data):
    kwargs = dict(corruption=GaussianNoise(), levels=[0.0, 1.0, 3.0], n_repeats=3)
    first = robustness_curve(_estimators(), *data, random_state=7, **kwargs)
    second = robustness_curve(_estimators(), *data, random_state=7, **kwargs)
    other = robustness_curve(_estimators(), *data, random_state=8, **kwargs)
    pd.testing.assert_series_equal(first["error"], second["error"])
    assert not np.array_equal(first["error"], other["error"])


def test_generator_random_state_accepted(data):
    frame = robustness_curve(_estimators(), *data, corruption=GaussianNoise(), levels=[1.0],
                             random_state=np.random.default_rng(0))
    assert len(frame) == 3


def test_results_do_not_depend_on_n_jobs(data):
    kwargs = dict(corruption=GaussianNoise(), levels=[0.0, 0.5, 2.0], n_repeats=2,
                  random_state=3)
    serial = robustness_curve(_estimators(), *data, n_jobs=1, **kwargs)
    parallel = robustness_curve(_estimators(), *data, n_jobs=2, **kwargs)
    timing = ["fit_seconds", "predict_seconds"]
    pd.testing.assert_frame_equal(serial.drop(columns=timing), parallel.drop(columns=timing))


# -- inputs -----------------------------------------------------------------------------------


def test_list_of_estimators_named_after_classes(data):
    estimators = [LogisticRegression(), DecisionTreeClassifier(), LogisticRegression(C=0.1)]
    frame = robustness_curve(estimators, *data, corruption=ZeroColumns(), levels=[0])
    assert list(frame["estimator"]) == [
        "LogisticRegression-1", "DecisionTreeClassifier", "LogisticRegression-2"]


def test_single_estimator_and_named_pairs(data):
    frame = robustness_curve(LogisticRegression(), *data, corruption=ZeroColumns(), levels=[0])
    assert list(frame["estimator"]) == ["LogisticRegression"]
    frame = robustness_curve([("lr", LogisticRegression())], *data, corruption=ZeroColumns(),
                             levels=[0])
    assert list(frame["estimator"]) == ["lr"]


def test_corruption_as_callable(data):
    frame = robustness_curve(_estimators(), *data, corruption=lambda k: ZeroColumns(n=2 * k),
                             levels=[0, 1, 3], random_state=0)
    reference = robustness_curve(_estimators(), *data, corruption=ZeroColumns(),
                                 levels=[0, 2, 6], random_state=0)
    np.testing.assert_allclose(frame["error"], reference["error"])
    assert list(frame["level"].unique()) == [0, 1, 3]


def test_missing_values_are_passed_through(data):
    X_train, y_train, X_test, y_test = data
    X_train = X_train.copy()
    X_train[::7, 0] = np.nan  # the tree accepts NaN; robustness_curve must not refuse it
    frame = robustness_curve({"tree": DecisionTreeClassifier(max_depth=3)}, X_train, y_train,
                             X_test, y_test, corruption=ZeroColumns(), levels=[0, 2])
    assert frame["error"].notna().all()


def test_cross_validation(data):
    X, y = data[0], data[1]
    frame = robustness_curve(_estimators(), X, y, corruption=ZeroColumns(), levels=[0, 2],
                             cv=4, random_state=0)
    assert len(frame) == 3 * 4 * 2
    assert sorted(frame["repeat"].unique()) == [0, 1, 2, 3]
    # level 0 of fold k is the held-out error of a model fitted on the other folds
    for k, (train, test) in enumerate(StratifiedKFold(4).split(X, y)):
        model = LogisticRegression().fit(X[train], y[train])
        expected = 1.0 - model.score(X[test], y[test])
        rows = (frame["estimator"] == "logistic") & (frame["repeat"] == k) & (frame["level"] == 0)
        got = frame.loc[rows, "error"]
        assert got.item() == pytest.approx(expected)


def test_cross_validation_with_a_splitter(data):
    X, y = data[0], data[1]
    frame = robustness_curve(_estimators(), X, y, corruption=ZeroColumns(), levels=[0],
                             cv=KFold(5, shuffle=True, random_state=0))
    assert sorted(frame["repeat"].unique()) == list(range(5))


def test_random_deletion_from_the_library(data):
    random_deletion = getattr(robustclf.corruption, "RandomDeletion", None)
    if random_deletion is None:
        pytest.skip("robustclf.corruption.RandomDeletion is not available yet")
    # the default deletion writes NaN (absent): the tree takes it natively, the logistic
    # regression needs an imputer, a bare one refuses it
    estimators = {**_estimators(),
                  "logistic": make_pipeline(SimpleImputer(), LogisticRegression())}
    frame = robustness_curve(estimators, *data, corruption=random_deletion(fraction=0.0),
                             levels=[0.0, 0.5, 1.0], n_repeats=2, random_state=0)
    assert len(frame) == 3 * 2 * 3
    summary = summarize_curve(frame).set_index(["estimator", "level"])["mean"]
    assert summary["logistic", 1.0] >= summary["logistic", 0.0]
    with pytest.raises(ValueError, match="Input X contains NaN"):
        robustness_curve({"bare": LogisticRegression()}, *data,
                         corruption=random_deletion(fraction=0.5), levels=[0.5])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"levels": []}, "levels"),
        ({"levels": [[0, 1]]}, "levels"),
        ({"levels": 0}, "levels"),
        ({"levels": [0, 1, 0]}, "levels must be distinct"),
        ({"n_repeats": 0}, "n_repeats"),
        ({"n_repeats": 1.5}, "n_repeats"),
        ({"estimators": {}}, "estimators"),
        ({"estimators": [("a", LogisticRegression()), ("a", DummyClassifier())]},
         "estimators must have unique names"),
        ({"estimators": {"a": "not an estimator"}}, "estimators"),
        ({"estimators": 3}, "estimators"),
        ({"corruption": "zero"}, "corruption"),
        ({"corruption": lambda level: None}, "corruption"),
        ({"y_test": None}, "X_test and y_test"),
        ({"X_test": None, "y_test": None}, "cv"),
        ({"cv": 3}, "cv"),
        ({"y_train": np.zeros(7)}, "y_train"),
        ({"y_test": np.zeros(7)}, "y_test"),
        ({"X_test": np.zeros((60, 5))}, "X_test"),
        ({"X_train": np.zeros(100)}, "X_train"),
        ({"progress": "yes"}, "progress"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_inputs(data, kwargs, match):
    X_train, y_train, X_test, y_test = data
    arguments = dict(estimators=_estimators(), X_train=X_train, y_train=y_train, X_test=X_test,
                     y_test=y_test, corruption=ZeroColumns(), levels=[0, 1])
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        robustness_curve(**arguments)


def test_cv_rejects_repeats(data):
    with pytest.raises(ValueError, match="n_repeats must be 1 with cv"):
        robustness_curve(_estimators(), data[0], data[1], corruption=ZeroColumns(),
                         levels=[0], cv=3, n_repeats=2)


def test_progress_bar(data, capsys):
    robustness_curve(_estimators(), *data, corruption=ZeroColumns(), levels=[0], n_repeats=2,
                     progress=True)
    assert "6/6" in capsys.readouterr().err
    robustness_curve(_estimators(), *data, corruption=ZeroColumns(), levels=[0], progress=False)
    assert capsys.readouterr().err == ""


# -- summarize_curve --------------------------------------------------------------------------


def test_summarize_curve_statistics(data):
    frame = robustness_curve(_estimators(), *data, corruption=GaussianNoise(),
                             levels=[0.0, 1.0], n_repeats=4, random_state=0)
    summary = summarize_curve(frame)
    assert list(summary.columns) == ["corruption", "level_name", "estimator", "level",
                                     "mean", "std", "sem", "count"]
    assert len(summary) == 3 * 2
    row = summary.query("estimator == 'tree' and level == 1.0").iloc[0]
    errors = frame.query("estimator == 'tree' and level == 1.0")["error"].to_numpy()
    assert row["mean"] == pytest.approx(errors.mean())
    assert row["std"] == pytest.approx(errors.std(ddof=1))
    assert row["sem"] == pytest.approx(errors.std(ddof=1) / 2.0)
    assert row["count"] == 4


def test_summarize_curve_minimal_frame_and_other_value():
    frame = pd.DataFrame({"estimator": ["a", "a", "b"], "level": [0, 0, 0],
                          "error": [0.1, 0.3, 0.2], "fit_seconds": [1.0, 3.0, 2.0]})
    summary = summarize_curve(frame, value="fit_seconds")
    assert list(summary.columns) == ["estimator", "level", "mean", "std", "sem", "count"]
    assert summary["mean"].tolist() == [2.0, 2.0]
    assert np.isnan(summary["std"].iloc[1])  # a single repeat has no spread


def test_summarize_curve_rejects_bad_frames():
    with pytest.raises(ValueError, match="missing the column"):
        summarize_curve(pd.DataFrame({"estimator": ["a"], "error": [0.1]}))
    with pytest.raises(ValueError, match="frame must be a pandas DataFrame"):
        summarize_curve({"estimator": ["a"], "level": [0], "error": [0.1]})


def test_certified_curve_brackets_and_matches_the_greedy_attack():
    from sklearn.svm import LinearSVC

    from robustclf.corruption import GreedyDeletion
    from robustclf.evaluation import certified_curve

    X, y = make_classification(n_samples=200, n_features=10, random_state=0)
    estimators = {"lr": LogisticRegression(), "svm": LinearSVC()}
    # bare scikit-learn models: the papers' raw-zero deletion
    frame = certified_curve(estimators, X[:100], y[:100], X[100:], y[100:],
                            budgets=[0, 1, 3], n_repeats=2, random_state=0, fill=0.0)
    assert len(frame) == 2 * 2 * 3
    assert (frame["error_lower"] <= frame["error"]).all()
    assert (frame["error"] <= frame["error_upper"]).all()
    assert frame["is_exact"].all()  # uniform values, integer budgets
    # with uniform values the greedy attack is optimal: the robustness curve agrees
    curve = robustness_curve({"lr": LogisticRegression()}, X[:100], y[:100], X[100:], y[100:],
                             corruption=GreedyDeletion(budget=0, fill=0.0), levels=[0, 1, 3])
    certified = frame[(frame.estimator == "lr") & (frame.repeat == 0)]
    np.testing.assert_allclose(curve["error"].to_numpy(), certified["error"].to_numpy())
    with pytest.raises(ValueError, match="linear classifier"):
        certified_curve([DecisionTreeClassifier()], X[:100], y[:100], X[100:], y[100:],
                        budgets=[1])
    with pytest.raises(ValueError, match="LinearSVC cannot take the absent"):
        certified_curve({"svm": LinearSVC()}, X[:100], y[:100], X[100:], y[100:], budgets=[1])
    with pytest.raises(ValueError, match="fill"):
        certified_curve({"svm": LinearSVC()}, X[:100], y[:100], X[100:], y[100:], budgets=[1],
                        fill="zero")
