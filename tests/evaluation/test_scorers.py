"""Tests of make_corruption_scorer and make_certified_scorer (model selection under corruption)."""

import pickle

import numpy as np
import pytest
from _corruption_doubles import ZeroColumns
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, get_scorer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from robustclf.certify import certified_error
from robustclf.corruption import Corruption
from robustclf.evaluation import make_certified_scorer, make_corruption_scorer


class SeedLog(Corruption):
    """Random: add N(0, scale^2) noise; logs (seed, model id) of every call."""

    level_params = ("scale",)
    calls: list = []

    def __init__(self, scale=0.0):
        self.scale = scale

    def corrupt(self, X, y=None, model=None, random_state=None):
        SeedLog.calls.append((random_state, id(model), X.shape[0]))
        return super().corrupt(X, y, model, random_state)

    def _corrupt(self, X, y, model, rng):
        return X + self.scale * rng.standard_normal(X.shape)


@pytest.fixture(autouse=True)
def _clear_calls():
    SeedLog.calls = []
    yield
    SeedLog.calls = []


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=150, n_features=6, n_informative=4, random_state=0)


def test_score_is_the_metric_on_the_corrupted_data(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    scorer = make_corruption_scorer(ZeroColumns(), 3, scoring="balanced_accuracy")
    X3 = X.copy()
    X3[:, :3] = 0.0
    assert scorer(model, X, y) == pytest.approx(balanced_accuracy_score(y, model.predict(X3)))
    # level None: the corruption as configured
    assert make_corruption_scorer(ZeroColumns(n=3))(model, X, y) == pytest.approx(
        model.score(X3, y))
    # a callable level -> corruption
    assert make_corruption_scorer(lambda k: ZeroColumns(n=k), 3)(model, X, y) == pytest.approx(
        model.score(X3, y))


def test_mean_over_fixed_draws(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    scorer = make_corruption_scorer(SeedLog(), 2.0, n_repeats=3, random_state=5)
    first = scorer(model, X, y)
    seeds = [seed for seed, _, _ in SeedLog.calls]
    assert len(set(seeds)) == 3
    expected = np.mean([model.score(SeedLog(2.0).corrupt(X, random_state=s), y) for s in seeds])
    assert first == pytest.approx(expected)
    assert scorer(model, X, y) == first  # the same draws at every call
    assert make_corruption_scorer(SeedLog(), 2.0, n_repeats=3, random_state=6)(model, X, y) \
        != first


def test_grid_search_scores_every_candidate_on_the_same_draws(data):
    X, y = data
    scorer = make_corruption_scorer(SeedLog(), 1.5, scoring="accuracy", n_repeats=2)
    search = GridSearchCV(LogisticRegression(), {"C": [0.001, 0.1, 10.0]}, scoring=scorer,
                          cv=3, refit=False).fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    # 3 candidates x 3 folds x 2 draws, one seed pair reused by every (candidate, fold)
    assert len(SeedLog.calls) == 18
    assert len({seed for seed, _, _ in SeedLog.calls}) == 2
    # and each split score is the candidate, fitted on the training folds, scored by the scorer
    for i, C in enumerate([0.001, 0.1, 10.0]):
        for k, (train, test) in enumerate(StratifiedKFold(3).split(X, y)):
            model = LogisticRegression(C=C).fit(X[train], y[train])
            expected = scorer(model, X[test], y[test])
            assert search.cv_results_[f"split{k}_test_score"][i] == pytest.approx(expected)


def test_cross_validate_with_several_scorers_and_n_jobs(data):
    X, y = data
    scoring = {
        "clean": "roc_auc",
        "deleted": make_corruption_scorer(ZeroColumns(), 2, scoring="roc_auc"),
        "certified": make_certified_scorer(1, fill=0.0),  # a bare model: raw zeros
    }
    result = cross_validate(LinearSVC(), X, y, cv=3, scoring=scoring, n_jobs=2)
    assert (result["test_deleted"] <= result["test_clean"] + 1e-12).all()
    assert ((0 <= result["test_certified"]) & (result["test_certified"] <= 1)).all()


def test_certified_scorer_is_one_minus_the_certified_error(data):
    X, y = data
    # the default deletion writes NaN: the pipeline imputes it
    model = make_pipeline(SimpleImputer(), StandardScaler(), LinearSVC()).fit(X, y)
    values = np.linspace(0.5, 1.5, X.shape[1])
    scorer = make_certified_scorer(2.0, values)
    assert scorer(model, X, y) == pytest.approx(1 - certified_error(model, X, y, 2.0, values).error)
    raw = make_certified_scorer(2.0, values, fill=0.0)
    assert raw(model, X, y) == pytest.approx(
        1 - certified_error(model, X, y, 2.0, values, fill=0.0).error)
    assert make_certified_scorer(0)(model, X, y) == pytest.approx(model.score(X, y))
    with pytest.raises(ValueError, match="linear classifier"):
        make_certified_scorer(1)(DummyClassifier().fit(X, y), X, y)


def test_scorers_pickle_and_repr(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    scorer = make_corruption_scorer(ZeroColumns(), 2, scoring="f1")
    assert pickle.loads(pickle.dumps(scorer))(model, X, y) == scorer(model, X, y)
    assert "f1" in repr(scorer) and "ZeroColumns" in repr(scorer)
    assert repr(make_certified_scorer(2)) == "make_certified_scorer(budget=2)"
    assert repr(make_certified_scorer(2, fill=0.0)) == "make_certified_scorer(budget=2, fill=0.0)"


def test_sample_weight_is_passed_to_the_metric(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    weights = np.where(y == 1, 5.0, 1.0)
    scorer = make_corruption_scorer(ZeroColumns(), 2)
    X2 = X.copy()
    X2[:, :2] = 0.0
    expected = get_scorer("accuracy")(model, X2, y, sample_weight=weights)
    assert scorer(model, X, y, sample_weight=weights) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("factory", "kwargs", "match"),
    [
        (make_corruption_scorer, {"corruption": ZeroColumns(), "random_state": None},
         "random_state must be a non-negative int"),
        (make_corruption_scorer, {"corruption": ZeroColumns(),
                                  "random_state": np.random.default_rng(0)}, "random_state"),
        (make_corruption_scorer, {"corruption": ZeroColumns(), "n_repeats": 0}, "n_repeats"),
        (make_corruption_scorer, {"corruption": ZeroColumns(), "scoring": "nope"}, "scoring"),
        (make_corruption_scorer, {"corruption": lambda k: ZeroColumns(n=k)}, "level is required"),
        (make_corruption_scorer, {"corruption": "zero", "level": 1}, "corruption"),
        (make_certified_scorer, {"budget": -1}, "budget"),
        (make_certified_scorer, {"budget": 1, "exact": "maybe"}, "exact"),
        (make_certified_scorer, {"budget": 1, "time_limit": -2}, "time_limit"),
    ],
)
def test_bad_inputs(factory, kwargs, match):
    with pytest.raises(ValueError, match=match):
        factory(**kwargs)
