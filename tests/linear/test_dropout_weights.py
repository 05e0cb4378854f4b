"""Row weights, class weights and NaN (absent features) in the dropout-trained classifiers.

``sample_weight`` multiplies each row's marginalised loss, so an integer weight k must give the
optimum of k copies of the row and weight 0 that of the data without it; every solver is checked
at a tight tolerance (its optimality measure, the relative gradient norm, is the same for both
fits because the weighted gradient *is* the repeated-rows gradient). Real data: scikit-learn's
digits (pixels / 16, 10 classes); the weighted default fit is also checked against the
independent oracles of :mod:`robustclf._oracles.dropout`.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from robustclf._oracles import dropout as oracle
from robustclf.linear import DropoutLogisticRegression, DropoutSVC
from robustclf.linear import _dropout_problem as problem

ESTIMATORS = [DropoutSVC, DropoutLogisticRegression]


def _digits(n=400):
    X, y = load_digits(return_X_y=True)
    perm = np.random.default_rng(0).permutation(y.size)[:n]
    return X[perm] / 16.0, y[perm]


def _integer_weights(n, seed=0, high=4):
    """Weights 0, 1, 2, 3: the zero rows are removed, the others repeated in the comparison."""
    return np.random.default_rng(seed).integers(0, high, size=n).astype(float)


def _repeated(X, y, weights):
    rows = np.repeat(np.arange(y.size), weights.astype(int))
    return X[rows], y[rows]


def _fit(est, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)    # both fits must converge
        return est.fit(X, y, **fit_params)


def _assert_same_model(a, b, X, atol):
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=atol)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# (estimator, parameters, solver_ expected, coefficient tolerance): every solver path
# DropoutSVC's class-8 problem is flat along pixel 8 (non-zero in a few rows): at tol=1e-9 its
# coefficient is determined to ~3e-6 (35-37 Newton steps; tighter, the line search reaches
# machine precision first), so the two fits agree to 1e-5 there and to 1e-7 elsewhere.
SOLVER_CASES = [
    (DropoutSVC, dict(q=0.5), "newton", 1e-5),
    (DropoutSVC, dict(q=0.5, objective="bound"), "newton", 1e-5),
    (DropoutSVC, dict(q=0.0), "libsvm", 1e-5),                 # libsvm's own sample_weight
    (DropoutLogisticRegression, dict(q=0.5), "newton", 1e-6),
    # IRLS: weighted and repeated iterates are the same maps, equal at any tolerance
    (DropoutLogisticRegression, dict(q=0.5, solver="irls", tol=1e-4), "irls", 1e-10),
    (DropoutLogisticRegression, dict(q=0.5, solver="lbfgs", tol=1e-7), "lbfgs", 1e-4),
    (DropoutLogisticRegression, dict(q=0.3, objective="gaussian"), "newton", 1e-6),
]


@pytest.mark.parametrize("Est, params, solver, atol", SOLVER_CASES)
def test_integer_weights_equal_repeated_rows_on_ten_digit_classes(Est, params, solver, atol):
    X, y = _digits()
    w = _integer_weights(y.size)
    params = {"tol": 1e-9, "max_iter": 500, **params}
    weighted = _fit(Est(**params), X, y, sample_weight=w)
    repeated = _fit(Est(**params), *_repeated(X, y, w))
    assert weighted.solver_ == repeated.solver_ == solver
    _assert_same_model(weighted, repeated, X, atol)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_sparse_weighted_fit_equals_the_dense_one(Est):
    X, y = _digits(300)
    w = np.random.default_rng(1).uniform(0.0, 3.0, size=y.size)
    params = dict(q=0.5, C=1.0, objective="bound", tol=1e-9)
    dense = _fit(Est(**params), X, y, sample_weight=w)
    sparse = _fit(Est(**params), sp.csr_matrix(X), y, sample_weight=w)
    _assert_same_model(dense, sparse, X, 1e-7)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_zero_weight_equals_removing_the_rows(Est):
    X, y = _digits(300)
    w = np.ones(y.size)
    w[::3] = 0.0
    weighted = _fit(Est(q=0.5, tol=1e-8), X, y, sample_weight=w)
    removed = _fit(Est(q=0.5, tol=1e-8), X[w > 0], y[w > 0])
    _assert_same_model(weighted, removed, X, 1e-6)


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 1: 0.5, 7: 2.0}])
def test_class_weight_equals_the_corresponding_sample_weight(Est, class_weight):
    X, y = _digits(300)
    by_class = _fit(Est(q=0.5, class_weight=class_weight), X, y)
    by_row = _fit(Est(q=0.5), X, y,
                  sample_weight=compute_sample_weight(class_weight, y))
    np.testing.assert_array_equal(by_class.coef_, by_row.coef_)
    np.testing.assert_array_equal(by_class.intercept_, by_row.intercept_)


def test_class_weight_and_sample_weight_multiply():
    X, y = _digits(300)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size)
    both = _fit(DropoutLogisticRegression(q=0.5, class_weight="balanced"), X, y,
                sample_weight=w)
    product = _fit(DropoutLogisticRegression(q=0.5), X, y,
                   sample_weight=w * compute_sample_weight("balanced", y))
    np.testing.assert_array_equal(both.coef_, product.coef_)


def test_a_heavy_class_weight_moves_the_boundary_towards_the_other_class():
    """More weight on class 1 of a binary problem: fewer of its rows misclassified."""
    X, y = _digits(400)
    y = (y == 3).astype(int)
    plain = _fit(DropoutSVC(q=0.5), X, y)
    heavy = _fit(DropoutSVC(q=0.5, class_weight={0: 1.0, 1: 20.0}), X, y)
    missed = [np.mean(m.predict(X[y == 1]) != 1) for m in (plain, heavy)]
    assert missed[1] < missed[0]


def test_sub_sampled_hessian_and_float32_paths_honour_the_weights(monkeypatch):
    """The Newton solver's large-data path -- Hessian products on a fixed row subset with a
    presolve on it, X read in float32 -- forced on 600 digits: the subset's curvatures carry
    their rows' weights, objective and gradient use every row, so the optimum is that of the
    repeated rows (the two fits draw different subsets). The subset is drawn among the rows of
    positive weight, so a zero weight is exactly a removed row: the same iterations."""
    monkeypatch.setattr(problem, "_HESSIAN_ROWS", 100)
    monkeypatch.setattr(problem, "_FLOAT32_MIN_SIZE", 1000)
    X, y = _digits(600)
    w = _integer_weights(y.size, seed=3)
    # float32 passes put a floor of ~1e-7 under the relative gradient norm (1.4e-7 reached
    # here; below it the line search finds no decrease and the solver warns): tol above it
    weighted = _fit(DropoutLogisticRegression(q=0.5, C=1.0, tol=3e-7), X, y, sample_weight=w)
    repeated = _fit(DropoutLogisticRegression(q=0.5, C=1.0, tol=3e-7), *_repeated(X, y, w))
    _assert_same_model(weighted, repeated, X, 1e-5)
    w = np.ones(y.size)
    w[::3] = 0.0
    weighted = _fit(DropoutLogisticRegression(q=0.5), X, y, sample_weight=w)
    removed = _fit(DropoutLogisticRegression(q=0.5), X[w > 0], y[w > 0])
    np.testing.assert_array_equal(weighted.n_iter_, removed.n_iter_)
    # the same iterations, summed in float32 over 600 rows (400 of positive weight) or over 400:
    # equal to float32 rounding (2e-6 on coefficients of size 0.1-1.4)
    _assert_same_model(weighted, removed, X, 1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("Est, params", [(DropoutSVC, dict(q=0.2, C=0.1)),
                                         (DropoutLogisticRegression, dict(q=0.5))])
def test_weights_on_the_large_data_path_at_its_real_size(Est, params):
    """22,000 rows x 100 features (3 classes): 10,000-row Hessian subset and float32 passes,
    as the estimator chooses them; weighted fit against 33,000 repeated rows."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=22_000, n_features=100, n_informative=20,
                               n_classes=3, random_state=0)
    X = X / 5.0
    w = _integer_weights(y.size, seed=6)
    weighted = _fit(Est(**params), X, y, sample_weight=w)
    repeated = _fit(Est(**params), *_repeated(X, y, w))
    _assert_same_model(weighted, repeated, X[:2000], 1e-4)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), q=st.sampled_from([0.0, 0.3, 0.7]),
       Est=st.sampled_from(ESTIMATORS))
def test_property_integer_weights_equal_repeated_rows(seed, q, Est):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(40, 4))
    y = (X @ rng.normal(size=4) + 0.3 * rng.normal(size=40) > X.sum(axis=1) / 4).astype(int)
    y[:2] = [0, 1]
    w = rng.integers(0, 4, size=40).astype(float)
    w[:2] = [1.0, 1.0]                                  # both classes keep a row
    weighted = _fit(Est(q=q, tol=1e-8, max_iter=300), X, y, sample_weight=w)
    repeated = _fit(Est(q=q, tol=1e-8, max_iter=300), *_repeated(X, y, w))
    scale = 1.0 + np.abs(repeated.coef_).max()
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=0,
                               atol=1e-5 * scale)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_weighted_default_fit_matches_the_independent_oracle(Est):
    """The oracle weights each row's term of the bound by hand (SOCP for the hinge, BFGS for
    the logistic bound); 10 one-vs-rest problems on 150 digits with real-valued weights."""
    if Est is DropoutSVC:
        pytest.importorskip("cvxpy")
    X, y = _digits(150)
    w = np.random.default_rng(4).uniform(0.0, 3.0, size=y.size)
    model = _fit(Est(q=0.5, C=1.0, objective="bound"), X, y, sample_weight=w)
    kind = "hinge" if Est is DropoutSVC else "logistic"
    coef, intercept, f_opt = oracle.solve_ovr(kind, X, y, 0.5, 1.0, sample_weight=w)
    f = oracle.objectives(kind, model.coef_, model.intercept_, X, y, 0.5, 1.0, sample_weight=w)
    np.testing.assert_allclose(f, f_opt, rtol=1e-6)
    scores = X @ coef.T + intercept
    np.testing.assert_array_equal(model.predict(X), model.classes_[scores.argmax(axis=1)])


def test_weights_change_the_fit():
    """Not a no-op: the weighted optimum differs from the unweighted one."""
    X, y = _digits(300)
    plain = _fit(DropoutLogisticRegression(q=0.5), X, y)
    weighted = _fit(DropoutLogisticRegression(q=0.5), X, y,
                    sample_weight=_integer_weights(y.size, seed=5) + 0.5)
    assert np.abs(plain.coef_ - weighted.coef_).max() > 1e-2


def test_bad_weights_are_rejected_with_a_clear_error():
    X, y = _digits(100)
    with pytest.raises(ValueError, match="[Nn]egative"):
        DropoutSVC().fit(X, y, sample_weight=-np.ones(y.size))
    with pytest.raises(ValueError, match="non-zero"):
        DropoutSVC().fit(X, y, sample_weight=np.zeros(y.size))
    with pytest.raises(ValueError, match="sample_weight"):
        DropoutSVC().fit(X, y, sample_weight=np.ones(y.size - 1))


# -- NaN: the feature is absent, its contribution is zero -----------------------------------
def _with_nan(X, seed=0, fraction=0.2):
    mask = np.random.default_rng(seed).random(X.shape) < fraction
    return np.where(mask, np.nan, X), mask


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_nan_at_predict_equals_zero_in_the_model_input(Est):
    X, y = _digits(300)
    model = _fit(Est(q=0.5), X, y)
    X_nan, mask = _with_nan(X)
    X_zero = np.where(mask, 0.0, X)
    np.testing.assert_array_equal(model.decision_function(X_nan),
                                  model.decision_function(X_zero))
    np.testing.assert_array_equal(model.predict(X_nan), model.predict(X_zero))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(model.predict_proba(X_nan), model.predict_proba(X_zero))


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_nan_behind_a_standard_scaler_is_the_training_mean(Est):
    X, y = _digits(300)
    pipe = make_pipeline(StandardScaler(), Est(q=0.5, objective="bound"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # constant pixels: 0 / 0 in scaling
        _fit(pipe, X, y)
        X_nan, mask = _with_nan(X, seed=1)
        X_mean = np.where(mask, pipe[0].mean_, X)
        np.testing.assert_allclose(pipe.decision_function(X_nan),
                                   pipe.decision_function(X_mean), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(pipe.predict(X_nan), pipe.predict(X_mean))


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_nan_at_fit_is_read_as_zero(Est):
    X, y = _digits(300)
    X_nan, mask = _with_nan(X, seed=2)
    a = _fit(Est(q=0.5), X_nan, y)
    b = _fit(Est(q=0.5), np.where(mask, 0.0, X), y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_nan_policy_raise_rejects_nan_at_fit_and_predict(Est):
    X, y = _digits(200)
    X_nan, _ = _with_nan(X)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        Est(nan_policy="raise").fit(X_nan, y)
    model = _fit(Est(q=0.5, nan_policy="raise"), X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.predict(X_nan)
    assert not model.__sklearn_tags__().input_tags.allow_nan
    assert Est().__sklearn_tags__().input_tags.allow_nan
    with pytest.raises(ValueError, match="nan_policy"):
        Est(nan_policy="zero").fit(X, y)
