"""The registry's baselines on integer data from the Python API (issue 19).

The "absent as zero" imputer in front of ``linear_svc`` and ``logistic`` had ``fill_value=0.0``,
which scikit-learn cannot cast to integer data: ``robustness_curve`` with an integer ``X``
failed at fit with "fill_value=0.0 ... cannot be cast". The loaders read integer columns as
float (``load_table``), but the Python API takes the user's arrays as they are.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from robustclf._registry import make_estimator
from robustclf.certify import certified_error
from robustclf.corruption import RandomDeletion
from robustclf.evaluation import robustness_curve


@pytest.fixture
def int_data():
    rng = np.random.default_rng(0)
    X = np.round(3 * rng.normal(size=(60, 4))).astype(np.int64)
    y = (X @ [1.0, -2.0, 0.5, 1.0] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("name", ["linear_svc", "logistic"])
def test_int_X_through_the_python_api(int_data, name):
    X, y = int_data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # liblinear's convergence warnings
        curve = robustness_curve({name: make_estimator(name)}, X, y, X, y,
                                 corruption=RandomDeletion(fraction=0.5), levels=[0.0, 0.5],
                                 random_state=0, progress=False)
        assert np.isfinite(curve["error"]).all()
        model = make_estimator(name).fit(X, y)
        # fitted on integers, it reads deleted (NaN) entries as zero
        X_nan = X.astype(float)
        X_nan[:, 0] = np.nan
        zeroed = X.copy()
        zeroed[:, 0] = 0
        np.testing.assert_array_equal(model.predict(X_nan), model.predict(zeroed))
        # and the step stays one certification reads exactly
        float_model = clone(model).fit(X.astype(float), y)
        exact = certified_error(model, X, y, 1, fill=0.0).error
        assert exact == pytest.approx(certified_error(float_model, X, y, 1, fill=0.0).error)


@pytest.mark.parametrize("name", ["linear_svc", "logistic"])
def test_a_model_fitted_on_floats_predicts_integer_X(int_data, name):
    """The baselines' imputer was fitted with a float fill value; integer X at prediction
    failed inside scikit-learn ("cannot be cast") until the values are made float first."""
    X, y = int_data
    model = make_estimator(name).fit(X.astype(float), y)
    np.testing.assert_array_equal(model.predict(X), model.predict(X.astype(float)))
