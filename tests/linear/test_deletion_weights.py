"""Row weights (``sample_weight``, ``class_weight``) and absent features (NaN) in
DeletionRobustLP and DeletionRobustPerceptron (issue 16).

A row of weight k must act as k copies of the row. For the LP that is a statement about the
optimum of Eq. (4) (its optimal *value*; the optimal point need not be unique). For the online
Perceptron a weight is a number of presentations, and with integer weights the fit is the fit
on the repeated rows round for round.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.class_weight import compute_sample_weight

from robustclf._oracles.deletion import breast_cancer_split, digits_split, eq4_lp, ovr_oracle
from robustclf.feature_values import mutual_info_values
from robustclf.linear import DeletionRobustLP, DeletionRobustPerceptron
from robustclf.linear import _deletion_lp_solvers as lp_solvers
from robustclf.linear.deletion_perceptron import _presentations


@pytest.fixture(scope="module")
def cancer():
    Xtr, ytr, Xte, yte = breast_cancer_split(n_train=120)
    weights = np.random.default_rng(0).integers(0, 4, ytr.size)
    return Xtr, ytr, Xte, weights


@pytest.fixture(scope="module")
def digits():
    """10 classes, pixels / 16 (scikit-learn's digits)."""
    Xtr, ytr, Xte, _ = digits_split(n_train=40, n_test=200)
    return Xtr, ytr, Xte


def _ovr_columns(y, classes):
    columns = [classes[1]] if classes.size == 2 else list(classes)
    return [np.where(y == c, 1.0, -1.0) for c in columns]


def _weighted_F(est, X, y, weights):
    """Eq. (4)'s weighted objective of each of ``est``'s binary problems, recomputed."""
    out = []
    for w, b, s in zip(est.coef_, est.intercept_, _ovr_columns(y, est.classes_), strict=True):
        xi, _ = lp_solvers.robust_hinge(X, s, w, b, est.feature_values_, float(est.budget),
                                        float(est.margin))
        out.append(weights @ xi / (weights.sum() * est.margin))
    return np.array(out)


# -- DeletionRobustLP ------------------------------------------------------------------------

@pytest.mark.parametrize("solver", ["cutting_plane", "lp"])
def test_lp_integer_weights_solve_the_lp_of_the_repeated_rows(cancer, solver):
    Xtr, ytr, Xte, sw = cancer
    params = dict(budget=2, solver=solver, random_state=0)
    weighted = DeletionRobustLP(**params).fit(Xtr, ytr, sample_weight=sw)
    repeated = DeletionRobustLP(**params).fit(Xtr.repeat(sw, axis=0), ytr.repeat(sw))
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-6)
    # the weighted solution is optimal for the repeated rows (Eq. (4)'s optimum may be a face)
    Xr, yr = Xtr.repeat(sw, axis=0), ytr.repeat(sw)
    np.testing.assert_allclose(_weighted_F(weighted, Xr, yr, np.ones(yr.size)),
                               repeated.objective_, rtol=1e-6)
    assert np.all(weighted.lower_bound_ <= repeated.objective_ + 1e-9)
    assert np.mean(weighted.predict(Xte) == repeated.predict(Xte)) >= 0.98


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # 20 epochs
@pytest.mark.parametrize("solver", ["cutting_plane", "lp", "subgradient"])
def test_lp_zero_weight_is_the_row_removed(cancer, solver):
    Xtr, ytr, _, sw = cancer
    keep = sw > 0
    params = dict(budget=2, solver=solver, random_state=0, max_iter=20)
    weighted = DeletionRobustLP(**params).fit(Xtr, ytr, sample_weight=keep.astype(float))
    removed = DeletionRobustLP(**params).fit(Xtr[keep], ytr[keep])
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)
    np.testing.assert_array_equal(weighted.intercept_, removed.intercept_)


def test_lp_balanced_class_weight_is_its_sample_weight(cancer):
    Xtr, ytr, _, _ = cancer
    balanced = DeletionRobustLP(budget=2, class_weight="balanced", random_state=0).fit(Xtr, ytr)
    manual = DeletionRobustLP(budget=2, random_state=0).fit(
        Xtr, ytr, sample_weight=compute_sample_weight("balanced", ytr))
    np.testing.assert_array_equal(balanced.coef_, manual.coef_)
    # and it is a different problem from the unweighted one
    plain = DeletionRobustLP(budget=2, random_state=0).fit(Xtr, ytr)
    assert not np.allclose(balanced.objective_, plain.objective_)


def test_lp_weighted_default_fit_matches_the_oracle_on_ten_classes(digits):
    """Fractional weights on digits (10 one-vs-rest problems) against Eq. (4) written out with
    weighted slack costs and solved by HiGHS's interior point (C / gamma = 1: every optimum is
    positive, and differs from the unweighted one)."""
    Xtr, ytr, Xte = digits
    sw = np.random.default_rng(1).uniform(0.0, 3.0, ytr.size)
    sw[:5] = 0.0
    est = DeletionRobustLP(budget=8, weight_bound=1.0, random_state=0).fit(Xtr, ytr,
                                                                           sample_weight=sw)
    _, _, _, optimum = ovr_oracle(eq4_lp, Xtr, ytr, values=np.ones(64), budget=8,
                                  weight_bound=1.0, sample_weight=sw)
    unweighted = DeletionRobustLP(budget=8, weight_bound=1.0, random_state=0).fit(Xtr, ytr)
    assert np.all(optimum > 0.05) and np.abs(optimum - unweighted.objective_).max() > 0.05
    np.testing.assert_allclose(est.objective_, optimum, rtol=1e-6)
    assert np.all(est.lower_bound_ <= optimum + 1e-9)
    np.testing.assert_allclose(_weighted_F(est, Xtr, ytr, sw), est.objective_, rtol=1e-12)


def test_lp_subgradient_certificate_stays_valid_with_weights(cancer):
    Xtr, ytr, _, _ = cancer
    sw = np.random.default_rng(2).uniform(0.0, 4.0, ytr.size)
    est = DeletionRobustLP(budget=2, solver="subgradient", max_iter=30, random_state=0)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        est.fit(Xtr, ytr, sample_weight=sw)
    exact = DeletionRobustLP(budget=2, random_state=0).fit(Xtr, ytr, sample_weight=sw)
    assert np.all(est.lower_bound_ <= exact.objective_ + 1e-9)
    assert np.all(est.objective_ >= exact.objective_ - 1e-9)
    np.testing.assert_allclose(_weighted_F(est, Xtr, ytr, sw), est.objective_, rtol=1e-12)
    # the first-order method reaches the weighted optimum approximately, not exactly: after
    # 30 epochs 21-25 % above it (seeds 0-2), unweighted 12-19 %
    assert np.all(est.objective_ <= exact.objective_ * 1.35)


def test_lp_subgradient_full_batch_weights_are_copies(cancer):
    """When every row fits in one mini-batch (32 rows) an epoch is one full subgradient step,
    and the weighted step is the step of the copies: same iterates, same certificate."""
    Xtr, ytr, _, sw = cancer
    X, y, s = Xtr[:14], ytr[:14], sw[:14]
    assert s.sum() <= 32
    params = dict(budget=2, weight_bound=0.3, solver="subgradient", max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = DeletionRobustLP(**params).fit(X, y, sample_weight=s)
        repeated = DeletionRobustLP(**params).fit(X.repeat(s, 0), y.repeat(s))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-9)
    np.testing.assert_allclose(weighted.lower_bound_, repeated.lower_bound_, rtol=1e-9,
                               atol=1e-12)
    assert np.all(repeated.lower_bound_ > 0.1)  # a bound that says something


def test_lp_scaling_every_weight_changes_nothing(cancer):
    """F is a weighted *mean*: weights 2 everywhere give the unweighted model (exact in binary
    floating point), for the exact and the first-order solvers."""
    Xtr, ytr, _, _ = cancer
    for solver in ("cutting_plane", "subgradient"):
        params = dict(budget=2, solver=solver, random_state=0, max_iter=10)
        with warnings.catch_warnings():  # the 10-epoch subgradient warns
            warnings.simplefilter("ignore", ConvergenceWarning)
            two = DeletionRobustLP(**params).fit(Xtr, ytr, sample_weight=np.full(ytr.size, 2.0))
            one = DeletionRobustLP(**params).fit(Xtr, ytr)
        np.testing.assert_allclose(two.coef_, one.coef_, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(two.objective_, one.objective_, rtol=1e-12)


def test_lp_sparse_weighted_equals_dense(cancer):
    Xtr, ytr, _, sw = cancer
    dense = DeletionRobustLP(budget=2, random_state=0).fit(Xtr, ytr, sample_weight=sw)
    sparse = DeletionRobustLP(budget=2, random_state=0).fit(sp.csr_matrix(Xtr), ytr,
                                                            sample_weight=sw)
    np.testing.assert_allclose(sparse.objective_, dense.objective_, rtol=1e-7)


def test_mutual_info_values_use_the_weights(cancer):
    """feature_values='mutual_info' is the weighted mutual information: that of the repeated
    rows for integer weights, of the remaining rows for zero weights."""
    Xtr, ytr, _, sw = cancer
    weighted = mutual_info_values(Xtr, ytr, sw)
    np.testing.assert_allclose(weighted, mutual_info_values(Xtr.repeat(sw, 0), ytr.repeat(sw)),
                               rtol=1e-12)
    np.testing.assert_allclose(mutual_info_values(sp.csr_matrix(Xtr), ytr, sw), weighted,
                               rtol=1e-12)
    keep = sw > 0
    np.testing.assert_allclose(mutual_info_values(Xtr, ytr, keep.astype(float)),
                               mutual_info_values(Xtr[keep], ytr[keep]), rtol=1e-12)
    with pytest.raises(ValueError, match="sample_weight must be 120 finite non-negative"):
        mutual_info_values(Xtr, ytr, -np.ones(120))
    est = DeletionRobustLP(budget=2, feature_values="mutual_info").fit(Xtr, ytr,
                                                                       sample_weight=sw)
    np.testing.assert_allclose(est.feature_values_, weighted, rtol=1e-12)


def test_one_class_left_by_the_weights_is_a_clear_error(cancer):
    Xtr, ytr, _, _ = cancer
    for est in (DeletionRobustLP(budget=2), DeletionRobustPerceptron(budget=2)):
        with pytest.raises(ValueError, match=r"at least 2 classes with a positive sample_weight"):
            est.fit(Xtr, ytr, sample_weight=(ytr == ytr[0]).astype(float))


# -- DeletionRobustPerceptron ----------------------------------------------------------------

@pytest.mark.parametrize("shuffle", [True, False])
def test_perceptron_integer_weights_are_copies_bit_for_bit(digits, shuffle):
    """A weight k is k presentations: the fit on X.repeat(sw) for the same seed, exactly."""
    Xtr, ytr, Xte = digits
    sw = np.random.default_rng(3).integers(0, 4, ytr.size)
    params = dict(budget=2, n_epochs=2, shuffle=shuffle, random_state=0)
    weighted = DeletionRobustPerceptron(**params).fit(Xtr, ytr, sample_weight=sw)
    repeated = DeletionRobustPerceptron(**params).fit(Xtr.repeat(sw, 0), ytr.repeat(sw))
    np.testing.assert_array_equal(weighted.coef_, repeated.coef_)
    np.testing.assert_array_equal(weighted.intercept_, repeated.intercept_)
    np.testing.assert_array_equal(weighted.n_updates_, repeated.n_updates_)
    assert weighted.tau_ == repeated.tau_ and weighted.t_ == repeated.t_
    np.testing.assert_allclose(weighted.objective_, repeated.objective_, rtol=1e-12)
    np.testing.assert_allclose(weighted.lower_bound_, repeated.lower_bound_, rtol=1e-9)


def test_perceptron_zero_weight_is_the_row_removed(cancer):
    Xtr, ytr, _, sw = cancer
    keep = sw > 0
    weighted = DeletionRobustPerceptron(budget=2, random_state=0).fit(
        Xtr, ytr, sample_weight=keep.astype(float))
    removed = DeletionRobustPerceptron(budget=2, random_state=0).fit(Xtr[keep], ytr[keep])
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)


def test_perceptron_balanced_class_weight_is_its_sample_weight(cancer):
    Xtr, ytr, _, _ = cancer
    balanced = DeletionRobustPerceptron(budget=2, class_weight="balanced",
                                        random_state=0).fit(Xtr, ytr)
    manual = DeletionRobustPerceptron(budget=2, random_state=0).fit(
        Xtr, ytr, sample_weight=compute_sample_weight("balanced", ytr))
    np.testing.assert_array_equal(balanced.coef_, manual.coef_)


def test_perceptron_fractional_weights_keep_a_certified_gap(cancer):
    """With fractional weights the objective is the weighted mean loss and lower_bound_ is
    below its optimum over the cube (Eq. (4) with |b| <= C and weighted slack costs)."""
    Xtr, ytr, _, _ = cancer
    sw = np.random.default_rng(4).uniform(0.0, 2.5, ytr.size)
    est = DeletionRobustPerceptron(budget=2, n_epochs=3, random_state=0).fit(
        Xtr, ytr, sample_weight=sw)
    optimum = ovr_oracle(eq4_lp, Xtr, ytr, values=np.ones(30), budget=2, bias_bound=10.0,
                         sample_weight=sw)[3]
    assert np.all(est.lower_bound_ <= optimum + 1e-9)
    assert np.all(est.objective_ >= optimum - 1e-9)
    loss = est.robust_loss(Xtr, ytr)  # Eq. (12) per row
    np.testing.assert_allclose(est.objective_, loss @ sw / sw.sum(), rtol=1e-10)
    assert est.t_ == pytest.approx(3 * sw.sum())


@given(st.lists(st.floats(0.0, 3.0), min_size=1, max_size=12))
@settings(max_examples=25, deadline=None)
def test_presentations_sum_to_the_weights(weights):
    weights = np.asarray(weights)
    rows, omega = _presentations(weights)
    assert np.all((omega > 0) & (omega <= 1))
    np.testing.assert_allclose(np.bincount(rows, omega, minlength=weights.size), weights,
                               atol=1e-12)
    np.testing.assert_array_equal(np.bincount(rows, minlength=weights.size),
                                  np.ceil(weights).astype(int))
    assert np.all(np.diff(rows) >= 0)  # the rounds of a row are consecutive


def test_perceptron_partial_fit_weights_are_copies_in_the_stream(cancer):
    Xtr, ytr, _, sw = cancer
    weighted = DeletionRobustPerceptron(budget=2)
    repeated = DeletionRobustPerceptron(budget=2)
    for rows in np.array_split(np.arange(ytr.size), 3):
        weighted.partial_fit(Xtr[rows], ytr[rows], classes=[0, 1], sample_weight=sw[rows])
        repeated.partial_fit(Xtr[rows].repeat(sw[rows], 0), ytr[rows].repeat(sw[rows]),
                             classes=[0, 1])
    np.testing.assert_array_equal(weighted.coef_, repeated.coef_)
    assert weighted.t_ == repeated.t_
    # a dict class_weight acts per row in partial_fit; "balanced" needs the whole data
    cw = DeletionRobustPerceptron(budget=2, class_weight={0: 2.0, 1: 1.0})
    by_hand = DeletionRobustPerceptron(budget=2)
    cw.partial_fit(Xtr, ytr, classes=[0, 1])
    by_hand.partial_fit(Xtr, ytr, classes=[0, 1], sample_weight=np.where(ytr == 0, 2.0, 1.0))
    np.testing.assert_array_equal(cw.coef_, by_hand.coef_)
    with pytest.raises(ValueError, match="class_weight='balanced' needs the class frequencies"):
        DeletionRobustPerceptron(class_weight="balanced").partial_fit(Xtr, ytr, classes=[0, 1])
    with pytest.raises(ValueError, match="zero for every row of the batch"):
        DeletionRobustPerceptron(class_weight={0: 0.0, 1: 0.0}).partial_fit(Xtr, ytr,
                                                                            classes=[0, 1])


# -- absent features (NaN) -------------------------------------------------------------------

_ESTIMATORS = [lambda **kw: DeletionRobustLP(budget=2, random_state=0, **kw),
               lambda **kw: DeletionRobustPerceptron(budget=2, random_state=0, **kw)]


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["lp", "perceptron"])
def test_nan_is_a_zero_contribution(cancer, make):
    Xtr, ytr, Xte, _ = cancer
    est = make().fit(Xtr, ytr)
    holes = np.random.default_rng(5).random(Xte.shape) < 0.2
    X_nan = np.where(holes, np.nan, Xte)
    X_zero = np.where(holes, 0.0, Xte)
    np.testing.assert_array_equal(est.decision_function(X_nan), est.decision_function(X_zero))
    np.testing.assert_array_equal(est.predict(X_nan), est.predict(X_zero))
    # at fit time too
    train_holes = np.random.default_rng(6).random(Xtr.shape) < 0.1
    a = make().fit(np.where(train_holes, np.nan, Xtr), ytr)
    b = make().fit(np.where(train_holes, 0.0, Xtr), ytr)
    np.testing.assert_array_equal(a.coef_, b.coef_)


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["lp", "perceptron"])
def test_nan_through_a_scaler_is_the_training_mean(cancer, make):
    Xtr, ytr, Xte, _ = cancer
    pipe = make_pipeline(StandardScaler(), make()).fit(Xtr, ytr)
    holes = np.random.default_rng(7).random(Xte.shape) < 0.2
    mean = pipe[0].mean_
    X_mean = np.where(holes, mean[None, :], Xte)
    np.testing.assert_allclose(pipe.decision_function(np.where(holes, np.nan, Xte)),
                               pipe.decision_function(X_mean), atol=1e-12)


@pytest.mark.parametrize("make", _ESTIMATORS, ids=["lp", "perceptron"])
def test_nan_policy_raise(cancer, make):
    Xtr, ytr, Xte, _ = cancer
    est = make(nan_policy="raise").fit(Xtr, ytr)
    X_nan = Xte.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.predict(X_nan)
    X_nan = Xtr.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        make(nan_policy="raise").fit(X_nan, ytr)
    assert not est.__sklearn_tags__().input_tags.allow_nan
    assert make().__sklearn_tags__().input_tags.allow_nan


def test_perceptron_partial_fit_and_robust_loss_read_nan_as_absent(cancer):
    Xtr, ytr, _, _ = cancer
    holes = np.random.default_rng(8).random(Xtr.shape) < 0.2
    a = DeletionRobustPerceptron(budget=2).partial_fit(np.where(holes, np.nan, Xtr), ytr,
                                                       classes=[0, 1])
    b = DeletionRobustPerceptron(budget=2).partial_fit(np.where(holes, 0.0, Xtr), ytr,
                                                       classes=[0, 1])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.robust_loss(np.where(holes, np.nan, Xtr), ytr),
                                  a.robust_loss(np.where(holes, 0.0, Xtr), ytr))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        DeletionRobustPerceptron(nan_policy="raise").partial_fit(
            np.where(holes, np.nan, Xtr), ytr, classes=[0, 1])
