"""Ensembles over trees refuse values a tree cannot read as float32 (issue 19).

scikit-learn's trees cast ``X`` to float32 (largest value about 3.4e38), while the library's
magnitude check admits values up to 1e150: values in between made FeatureBoostClassifier fail
inside the trees, at fit and at predict, with "Input X contains infinity or a value too large
for dtype('float32')" although X holds no infinity.
"""

import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from robustclf import FeatureBoostClassifier
from robustclf.ensemble import MixtureOfExpertsClassifier, WeightResamplingClassifier
from robustclf.ensemble._voting import reads_float32

_TOO_LARGE = r"X has values too large to {} with .* \(X is read as float32\).*3\.4e\+38"

ENSEMBLES = [
    FeatureBoostClassifier(n_estimators=3, random_state=0),
    FeatureBoostClassifier(RandomForestClassifier(n_estimators=3, random_state=0),
                           n_estimators=2, random_state=0),
    MixtureOfExpertsClassifier(random_state=0),
    WeightResamplingClassifier(DecisionTreeClassifier(random_state=0)),
]


@pytest.fixture
def data():
    X = np.random.default_rng(0).normal(size=(40, 3))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("est", ENSEMBLES, ids=lambda e: type(e).__name__)
def test_values_beyond_float32_are_refused_by_name(est, data):
    X, y = data
    with pytest.raises(ValueError, match=_TOO_LARGE.format("fit on")):
        est.fit(X * 1e100, y)
    est.fit(X * 1e30, y)  # large, but float32 holds it
    with pytest.raises(ValueError, match=_TOO_LARGE.format("predict on")):
        est.predict(X * 1e100)
    assert est.predict(X * 1e-100).shape == (40,)  # tiny rows to score are fine
    with pytest.raises(ValueError, match="X has values too small to fit on"):
        est.fit(X * 1e-100, y)  # a tree would see zeros


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_base_learner_reading_float64_is_not_limited(data):
    X, y = data
    est = FeatureBoostClassifier(LogisticRegression(), n_estimators=2, random_state=0)
    assert est.fit(X * 1e100, y).predict(X * 1e100).shape == (40,)


def test_reads_float32():
    assert reads_float32(DecisionTreeClassifier())
    assert reads_float32(RandomForestClassifier())
    assert reads_float32(GradientBoostingClassifier())
    assert not reads_float32(LogisticRegression())
    # a pipeline's first step reads X, not its trees
    assert not reads_float32(make_pipeline(StandardScaler(), DecisionTreeClassifier()))
