"""Complex inputs and inputs without rows (issue 19, point 1).

Complex ``X`` is refused by the one validation path (``_validation.check_not_complex``, run by
``validate_data``, ``check_matrix``, the corruptions' containers and evaluation's data check)
with a short message naming the input, never cast (which drops the imaginary part) and never
with scikit-learn's message and its dump of the array. ``X`` without rows is either a correct
empty result (a corruption, worst-case margins) or a clear error where the result is undefined
(the certified error rate).
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from robustclf import DropoutSVC, GeometricMarginSeparableSVC
from robustclf._validation import check_matrix, check_not_complex
from robustclf._worst_case import greedy_knapsack_deletion
from robustclf.certify import certified_error, worst_case_margin
from robustclf.corruption import GreedyDeletion, RandomDeletion, model_margins
from robustclf.evaluation import fitted_certified_curve, robustness_curve

_COMPLEX = r"X has complex values \(dtype complex128\); expected real numbers"


@pytest.fixture
def data():
    X = np.random.default_rng(0).normal(size=(30, 3))
    y = (X @ [1.0, -2.0, 0.5] > 0).astype(int)
    return X, y


@pytest.mark.parametrize("make", [
    lambda X: X + 1j,
    lambda X: sp.csr_matrix(X + 1j),
    lambda X: (X + 1j).tolist(),
    lambda X: pd.DataFrame({"a": X[:, 0], "b": X[:, 1] + 1j}),
], ids=["ndarray", "csr", "list", "dataframe-column"])
def test_check_not_complex_looks_at_the_dtype(data, make):
    with pytest.raises(ValueError, match="X has complex values"):
        check_not_complex(make(data[0]))
    check_not_complex(data[0])  # real: nothing to say
    check_not_complex(pd.DataFrame(data[0]))


def test_complex_python_numbers_in_an_object_array_are_refused(data):
    X = data[0].astype(object)
    X[0, 0] = 1 + 2j
    with pytest.raises(ValueError, match=r"X has complex values \(dtype object"):
        check_not_complex(X)


def test_check_matrix_refuses_complex_instead_of_dropping_the_imaginary_part(data):
    with pytest.raises(ValueError, match=_COMPLEX.replace("X has", "reference has")):
        check_matrix(data[0] + 1j, name="reference")


@pytest.mark.parametrize("method", ["fit", "predict"])
def test_estimator_names_X_without_dumping_the_array(data, method):
    X, y = data
    est = DropoutSVC()
    if method == "predict":
        est.fit(X, y)
    with pytest.raises(ValueError, match=_COMPLEX) as info:
        est.fit(X + 1j, y) if method == "fit" else est.predict(X + 1j)
    assert "[[" not in str(info.value) and len(str(info.value)) < 200


@pytest.mark.parametrize("container", [np.asarray, pd.DataFrame])
def test_corruption_refuses_complex(data, container):
    with pytest.raises(ValueError, match=_COMPLEX):
        RandomDeletion(k=1).corrupt(container(data[0] + 1j), random_state=0)


def test_evaluation_and_margins_name_the_complex_input(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="X_train has complex values"):
        robustness_curve({"lr": LogisticRegression()}, X + 1j, y, X, y,
                         corruption=RandomDeletion(fraction=0.5), levels=[0.0], progress=False)
    with pytest.raises(ValueError, match=_COMPLEX):
        model_margins(model, X + 1j, y)


def test_greedy_knapsack_of_no_rows_is_empty():
    gain, mask = greedy_knapsack_deletion(np.zeros((0, 3)), np.ones(3), 1.0)
    assert gain.shape == (0,) and mask.shape == (0, 3)


def test_no_rows(data):
    X, y = data
    model = LogisticRegression().fit(X, y)
    margins = worst_case_margin(model, X[:0], y[:0], 1, fill=0.0)
    assert margins.margin.shape == (0,)
    out = GreedyDeletion(budget=1, fill=0.0).corrupt(X[:0], y[:0], model)
    assert out.shape == (0, 3)
    message = "X has 0 rows, but at least 1 row is required"
    with pytest.raises(ValueError, match=message):
        certified_error(model, X[:0], y[:0], 1, fill=0.0)
    with pytest.raises(ValueError, match=message):
        certified_error(model, sp.csr_matrix(X[:0]), y[:0], 1, fill=0.0)
    with pytest.raises(ValueError, match=message):
        fitted_certified_curve({"lr": model}, X[:0], y[:0], budgets=[0, 1], fill=0.0)


def test_certified_error_of_no_dask_rows_is_refused(data):
    da = pytest.importorskip("dask.array")
    X, y = data
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="X has 0 rows"):
        certified_error(model, da.from_array(X[:0]), da.from_array(y[:0]), 1, fill=0.0)


def test_hard_margin_svc_names_X_and_y_when_not_separable(data):
    X, y = data
    X = np.vstack([X, X[:1]])
    y = np.append(y, 1 - y[0])  # the same row with both labels: not separable
    with pytest.raises(ValueError, match="X, y are not strictly linearly separable"):
        GeometricMarginSeparableSVC(tol=1e-2).fit(X, y)
