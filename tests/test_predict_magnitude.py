"""Issue 19: the magnitude check of ``fit`` also guards prediction.

``robustclf._validation.validate_data`` applies :func:`~robustclf._validation.check_magnitude`
at prediction (``reset=False``) as in ``fit``, so every estimator's ``predict``,
``decision_function``, ``predict_proba`` and ``transform`` refuse values beyond
``MAX_MAGNITUDE`` with one message instead of inf/NaN scores or an error from deep inside
(FeatureBoostClassifier's trees: "a value too large for dtype('float32')").
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression

from robustclf import DropoutLogisticRegression, GroupMissingIndicator
from robustclf._discovery import all_estimators
from robustclf._validation import MAX_MAGNITUDE, validate_data

X = np.random.default_rng(0).normal(size=(50, 5))
y = (X @ [1, -2, 0.5, 1.5, -1] > 0).astype(int)
METHODS = ("predict", "decision_function", "predict_proba", "transform")
# reads only where NaN is, never the values: no magnitude check at fit or at transform
_VALUE_FREE = {"GroupMissingIndicator"}
_NEEDS_ESTIMATOR = {"WeightResamplingClassifier": LogisticRegression}
_FITTED = {}


def _fitted(cls):
    if cls not in _FITTED:
        base = _NEEDS_ESTIMATOR.get(cls.__name__)
        model = cls(base()) if base is not None else cls()
        _FITTED[cls] = model.fit(X, y)
    return _FITTED[cls]


_CASES = [(cls, m) for name, cls in all_estimators() if name not in _VALUE_FREE
          for m in METHODS if hasattr(cls, m)]


@pytest.mark.parametrize("cls, method", _CASES, ids=lambda c: getattr(c, "__name__", c))
def test_prediction_refuses_values_too_large(cls, method):
    model = _fitted(cls)
    if not hasattr(model, method):  # available_if on the fitted estimator
        pytest.skip(f"{cls.__name__} has no {method} once fitted")
    X_big = X * 1e300
    X_big[0, 0] = np.nan  # NaN (absent) ignored by the check, not turned into an error
    with pytest.raises(ValueError, match=r"^X has values too large to predict on: the largest "
                       r"magnitude is 3\.11e\+300, above 1e\+150.*StandardScaler"):
        getattr(model, method)(X_big)


@pytest.mark.parametrize("cls", [cls for name, cls in all_estimators()
                                 if name not in _VALUE_FREE and hasattr(cls, "predict")],
                         ids=lambda c: c.__name__)
def test_prediction_keeps_absent_and_tiny_values(cls):
    # NaN is still an absent feature, and tiny values (no lower bound at prediction) are scored
    model = _fitted(cls)
    X_ok = X * 1e-300
    X_ok[0, 0] = 1e30  # beside large ones (float32 trees of FeatureBoostClassifier: < 3.4e38)
    X_ok[1, 1] = np.nan
    if not model.__sklearn_tags__().input_tags.allow_nan:
        X_ok[1, 1] = 0.0
    assert model.predict(X_ok).shape == (X.shape[0],)


def test_value_free_transform_accepts_any_magnitude():
    flags = GroupMissingIndicator().fit(np.where(X > 1, np.nan, X)).transform(X * 1e300)
    assert flags.shape[0] == X.shape[0] and np.isfinite(flags).all()


def test_dask_prediction_checks_every_chunk():
    da = pytest.importorskip("dask.array")
    model = DropoutLogisticRegression().fit(X, y)
    X_big = X.copy()
    X_big[30:] *= 1e300  # only the second chunk
    with pytest.raises(ValueError, match="^X has values too large to predict on"):
        model.predict(da.from_array(X_big, chunks=25)).compute()
    assert (model.predict(da.from_array(X, chunks=25)).compute() == model.predict(X)).all()


def test_validate_data_magnitude_modes():
    class Fitted(BaseEstimator):
        n_features_in_ = 5

    big = X * 1e300
    validate_data(Fitted(), big, reset=False, magnitude=False)  # opt out
    edge = np.array([[MAX_MAGNITUDE, np.nan, 1e-300, 0.0, 1.0]])
    assert validate_data(Fitted(), edge, reset=False, ensure_all_finite="allow-nan") is not None
    with pytest.raises(ValueError, match="too small to fit on"):  # partial_fit: both bounds
        validate_data(Fitted(), X * 1e-300, reset=False, magnitude=True)
    with pytest.raises(ValueError, match="too large to predict on"):
        validate_data(Fitted(), big, reset=False)
