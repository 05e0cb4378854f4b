"""NaN at prediction time means "absent" for every classifier of the library (issue 16).

One test module across the library: every public classifier predicts rows with NaN at its
default settings, says so in its tags, and raises with ``nan_policy="raise"``; for the linear
models an absent feature contributes exactly zero in the model's input space. The semantics table
of ``docs/missing_values.md`` is generated from ``robustclf._absence`` and checked here.
"""

from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import robustclf
from robustclf._absence import ABSENCE_SEMANTICS, absence_table

_PUBLIC = {name: getattr(robustclf, name) for name in robustclf.__all__
           if isinstance(getattr(robustclf, name), type)}


def _default_of(cls):
    return cls(robustclf.DropoutSVC()) if cls is robustclf.WeightResamplingClassifier else cls()


_CLASSIFIERS = sorted(name for name, cls in _PUBLIC.items()
                      if is_classifier(_default_of(cls)))
_LINEAR = ["DeletionRobustLP", "DeletionRobustPerceptron", "FDROPClassifier", "DropoutSVC",
           "DropoutLogisticRegression", "MCFClassifier", "RobustLogisticRegression"]


def _default(name):
    return _default_of(_PUBLIC[name])


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=150, n_features=8, n_informative=5, random_state=0)
    X[:, 0] *= 10.0   # a column far from zero mean and unit scale: zero != mean
    X[:, 0] += 5.0
    rng = np.random.default_rng(0)
    X_absent = X.copy()
    X_absent[rng.random(X.shape) < 0.3] = np.nan
    X_absent[0] = np.nan              # a row with every feature absent
    return X, y, X_absent


def _labels(name, X, y):
    """The hard-margin method needs separable labels: those of a hyperplane with a gap."""
    if name != "GeometricMarginSeparableSVC":
        return y
    score = X @ np.linspace(1.0, -1.0, X.shape[1]) / 10.0
    return (score > np.median(score)).astype(int)


def test_semantics_table_covers_every_public_class_and_the_docs_show_it():
    assert set(ABSENCE_SEMANTICS) == set(_PUBLIC)
    page = Path(__file__).parents[1] / "docs" / "missing_values.md"
    assert absence_table() in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", _CLASSIFIERS)
def test_default_classifier_predicts_rows_with_absent_features(name, data):
    X, y, X_absent = data
    model = _default(name)
    assert model.get_params()["nan_policy"] == "absent"
    assert model.__sklearn_tags__().input_tags.allow_nan
    model.fit(X, _labels(name, X, y))
    predicted = model.predict(X_absent)
    assert set(np.unique(predicted)) <= set(model.classes_)
    if hasattr(model, "decision_function"):
        assert np.isfinite(model.decision_function(X_absent)).all()
    # rows without NaN are predicted as before
    complete = ~np.isnan(X_absent).any(axis=1)
    np.testing.assert_array_equal(predicted[complete], model.predict(X[complete]))


@pytest.mark.parametrize("name", _CLASSIFIERS)
def test_nan_policy_raise_rejects_nan(name, data):
    X, y, X_absent = data
    model = clone(_default(name)).set_params(nan_policy="raise")
    assert not model.__sklearn_tags__().input_tags.allow_nan
    model.fit(X, _labels(name, X, y))
    with pytest.raises(ValueError, match="NaN"):
        model.predict(X_absent)


@pytest.mark.parametrize("name", _LINEAR)
def test_linear_absent_feature_contributes_zero(name, data):
    X, y, X_absent = data
    model = _default(name).fit(X, y)
    np.testing.assert_allclose(model.decision_function(X_absent),
                               model.decision_function(np.nan_to_num(X_absent, nan=0.0)),
                               rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", _LINEAR)
def test_linear_absent_behind_a_scaler_is_the_training_mean(name, data):
    X, y, X_absent = data
    model = make_pipeline(StandardScaler(), _default(name)).fit(X, y)
    at_mean = np.where(np.isnan(X_absent), X.mean(axis=0), X_absent)
    np.testing.assert_allclose(model.decision_function(X_absent),
                               model.decision_function(at_mean), rtol=0, atol=1e-9)
