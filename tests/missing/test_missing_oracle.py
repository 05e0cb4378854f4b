"""Default fits of the missing-data estimators against independent solves (issue 14).

Oracles in :mod:`robustclf._oracles.missing`: the primal QP of Eq. (6)/(7) for fixed scalings
(cvxpy + Clarabel), the optimal Eq. (4) margin as the root of a min-slack SOCP (Brent), and a
100x tighter run of the imputer.
"""

import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC

from robustclf._oracles import missing as oracle
from robustclf.datasets import make_structurally_missing
from robustclf.missing import (
    GaussianMixtureImputer,
    GeometricMarginSeparableSVC,
    GeometricMarginSVC,
)
from robustclf.missing.impute import _fixed_point_distance

pytest.importorskip("cvxpy")
pytest.importorskip("clarabel")


def _binary(name):
    try:
        return {"votes": oracle.votes_split, "horse_colic": oracle.horse_colic_split}[name]()
    except (FileNotFoundError, OSError):
        pytest.skip(f"{name} is not available (set ROBUSTCLF_DATA)")


def _quiet_fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return model.fit(X, y)


# -- GeometricMarginSVC: the SVM step for fixed scalings ---------------------------------------
@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("dataset", ["votes", "horse_colic"])
def test_every_svm_step_of_the_default_fit_matches_the_primal_qp(dataset, bias):
    """At the default settings each iterate is within 1e-6 (measured: 3e-11 or less; libsvm
    alone stopped 3e-5 to 1.3e-4 above) of the optimum of Eq. (6)/(7) at its own scalings,
    with identical test predictions: every libsvm solve is polished on its support sets."""
    Xtr, ytr, Xte, _ = _binary(dataset)
    model = _quiet_fit(GeometricMarginSVC(bias=bias), Xtr, ytr)
    assert model.kkt_residual_ <= 1e-9
    gaps, sols = oracle.iterate_gaps(model, ytr, bias)
    assert np.all(np.abs(gaps) <= 1e-6)
    for it, (w_o, b_o) in zip(model.iterates_[0], sols, strict=True):
        w = oracle.iterate_weights(model, it)
        np.testing.assert_array_equal(np.sign(oracle.eq7_decision(Xte, w, it.intercept, bias)),
                                      np.sign(oracle.eq7_decision(Xte, w_o, b_o, bias)))


@pytest.mark.parametrize("dataset", ["votes", "horse_colic"])
def test_a_tight_svm_tol_reaches_the_qp_optimum_to_1e6(dataset):
    Xtr, ytr, _, _ = _binary(dataset)
    model = _quiet_fit(GeometricMarginSVC(svm_tol=1e-7, max_iter=2), Xtr, ytr)
    gaps, _ = oracle.iterate_gaps(model, ytr)
    assert np.all(np.abs(gaps) <= 1e-6)


def test_svm_step_on_ten_class_digits_with_absent_quadrants():
    """One-vs-rest on digits (a quadrant structurally absent in 80 % of the rows): iterate 1
    (the first with scalings != 1) of every class against the primal QP; test predictions of
    that iterate identical (test rows scaled, like the training rows of that solve, by the
    restricted norms of iterate 0's w)."""
    Xtr, ytr, Xte, _ = oracle.structural_digits()
    model = _quiet_fit(GeometricMarginSVC(max_iter=1), Xtr, ytr)
    M = ~np.isnan(Xte)
    scores = []
    for k, its in enumerate(model.iterates_):
        it = its[min(1, len(its) - 1)]
        y_k = np.where(ytr == k, 1.0, -1.0)
        w_o, b_o, f_o = oracle.eq6_primal(model.X_fit_, y_k, it.fit_scalings, 1.0)
        f = oracle.eq6_objective(model.X_fit_, y_k, it.fit_scalings, 1.0, "scaled",
                                 oracle.iterate_weights(model, it), it.intercept)
        assert abs(f - f_o) / f_o <= 1e-6
        if len(its) == 1:  # a fixed point at once: iterate 0 is scaled by 1
            s = np.ones(Xte.shape[0])
        else:
            w0 = oracle.iterate_weights(model, its[0])
            s = np.sqrt(M @ (w0 * w0)) / np.linalg.norm(w0)
            s = np.where(s > 1e-12, s, 1.0)
        scores.append((np.where(M, Xte, 0.0) @ w_o + b_o) / s)
    np.testing.assert_array_equal(model._predict_at(Xte, 1), np.argmax(scores, axis=0))


def test_no_fixed_point_within_max_iter_is_reported_without_a_warning():
    """The paper's protocol (a few steps, no fixed point expected): attributes, no warning."""
    X, y = make_structurally_missing(200, n_blocks=3, block_size=3, noise_std=0.8,
                                     random_state=3)
    model = _quiet_fit(GeometricMarginSVC(C=10.0, max_iter=1, tol=1e-12), X, y)
    assert not model.converged_
    assert model.fixed_point_residual_ > 1e-12
    assert model.fixed_point_residual_ == model.iterates_[0][-1].scaling_change
    again = _quiet_fit(GeometricMarginSVC(max_iter=50, tol=1e-2), X, y)
    assert again.converged_ and again.fixed_point_residual_ < 1e-2


def test_libsvm_iteration_cap_surfaces_as_a_convergence_warning(monkeypatch):
    from robustclf.missing import _geometric_solver as gs
    from robustclf.missing import _signed_qp as sq

    monkeypatch.setattr(gs, "libsvm_max_iter", lambda n: 3)
    monkeypatch.setattr(sq, "libsvm_max_iter", lambda n: 3)
    X, y = make_structurally_missing(120, n_blocks=2, block_size=2, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"libsvm stopped at its iteration cap in \d+ "
                                                r"of \d+ SVM solves; KKT residual"):
        model = GeometricMarginSVC(max_iter=2).fit(X, y)
    assert any(it.libsvm_capped for it in model.iterates_[0])
    assert model.kkt_residual_ > model.svm_tol


def test_clarabel_inaccurate_status_surfaces_as_a_convergence_warning(monkeypatch):
    import cvxpy as cp

    real = cp.Problem.solve

    def inaccurate(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        self._status = "optimal_inaccurate"
        return out

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    X, y = make_structurally_missing(60, n_blocks=2, block_size=2, random_state=0)
    with pytest.warns(ConvergenceWarning, match="Clarabel returned 'optimal_inaccurate'"):
        GeometricMarginSVC(solver="clarabel", max_iter=1).fit(X, y)


def test_svm_tol_must_be_positive():
    X, y = make_structurally_missing(40, n_blocks=2, block_size=2, random_state=0)
    with pytest.raises(ValueError, match="svm_tol must be > 0"):
        GeometricMarginSVC(svm_tol=0.0).fit(X, y)


# -- the separable SOCP --------------------------------------------------------------------------
def _check_socp_against_oracle(a, b):
    Xtr, ytr, Xte, _ = oracle.separable_digits(a, b)
    model = _quiet_fit(GeometricMarginSeparableSVC(), Xtr, ytr)
    gamma, (w, b0) = oracle.max_geometric_margin(Xtr, ytr)
    # the certified bracket holds the independently found optimum, and is narrower than tol
    assert model.margin_ <= gamma * (1 + 1e-9)
    assert model.margin_upper_bound_ >= gamma * (1 - 1e-9)
    assert model.bracket_width_ <= model.tol
    assert (gamma - model.margin_) / gamma <= model.tol
    np.testing.assert_array_equal(
        model.predict(Xte), model.classes_[(oracle.eq7_decision(Xte, w, b0) > 0).astype(int)])
    assert model.n_iter_ >= 2


def test_socp_default_fit_matches_the_min_slack_oracle():
    _check_socp_against_oracle(3, 8)


@pytest.mark.slow
def test_socp_default_fit_matches_the_min_slack_oracle_second_pair():
    _check_socp_against_oracle(4, 9)


def test_socp_reports_max_bisections_with_the_bracket_width():
    Xtr, ytr, _, _ = oracle.separable_digits(3, 8, n_train=80)
    with pytest.warns(ConvergenceWarning, match=r"max_bisections=2 was reached; certified "
                                                r"relative bracket width"):
        model = GeometricMarginSeparableSVC(max_bisections=2).fit(Xtr, ytr)
    assert model.n_iter_ == 3
    assert model.bracket_width_ > model.tol


def test_socp_reports_uncertified_solves(monkeypatch):
    from robustclf.missing import socp

    real = socp._feasible

    def failing(X0, y, patterns, inverse, gamma, fit_intercept):
        if gamma > 0:
            return "solver_error", None
        return real(X0, y, patterns, inverse, gamma, fit_intercept)

    real_slack = socp._min_slack

    def failing_slack(X0, y, patterns, inverse, gamma, fit_intercept):
        if gamma > 0:
            return "solver_error", np.nan, None
        return real_slack(X0, y, patterns, inverse, gamma, fit_intercept)

    monkeypatch.setattr(socp, "_feasible", failing)
    monkeypatch.setattr(socp, "_min_slack", failing_slack)
    Xtr, ytr, _, _ = oracle.separable_digits(3, 8, n_train=80)
    with pytest.warns(ConvergenceWarning, match=r"SOCP solve\(s\) ended without a certificate "
                                                r"\(slack solver_error\)"):
        model = GeometricMarginSeparableSVC().fit(Xtr, ytr)
    assert model.margin_upper_bound_ == pytest.approx(
        2 * np.linalg.norm(np.nan_to_num(Xtr), axis=1).max())


def test_socp_rejects_data_separable_only_with_zero_margin():
    """Two rows of opposite classes on the same point: feasible at gamma = 0 (w = 0 is
    excluded only by the normalisation), but no positive margin."""
    X = np.array([[1.0, 0.0], [1.0, 0.0], [2.0, np.nan], [-1.0, 1.0]])
    y = np.array([1, 0, 1, 0])
    with pytest.raises(ValueError, match="not strictly linearly separable"):
        GeometricMarginSeparableSVC().fit(X, y)


def test_socp_bad_max_bisections():
    Xtr, ytr, _, _ = oracle.separable_digits(3, 8, n_train=40)
    with pytest.raises(ValueError, match="max_bisections must be >= 1"):
        GeometricMarginSeparableSVC(max_bisections=0).fit(Xtr, ytr)


# -- the EM imputer ------------------------------------------------------------------------------
@pytest.mark.parametrize("dataset", ["votes", "horse_colic"])
def test_imputer_default_reaches_its_fixed_point_and_predicts_as_a_tight_run(dataset):
    Xtr, ytr, Xte, _ = _binary(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        default = GaussianMixtureImputer(random_state=0).fit(Xtr)
    assert default.distance_ <= default.tol and 1 < default.n_iter_ < default.max_iter
    tight = oracle.tight_imputation(Xtr)
    assert tight.distance_ <= 1e-5
    pred = [SVC(kernel="linear").fit(imp.transform(Xtr), ytr).predict(imp.transform(Xte))
            for imp in (default, tight)]
    np.testing.assert_array_equal(pred[0], pred[1])


def test_imputer_warns_at_max_iter_with_the_change_reached():
    X, _ = make_classification(150, 6, random_state=0)
    X[np.random.default_rng(0).random(X.shape) < 0.3] = np.nan
    with pytest.warns(ConvergenceWarning, match=r"max_iter=2 rounds were reached; estimated "
                                                r"distance of the imputed values"):
        imp = GaussianMixtureImputer(3, max_iter=2, random_state=0).fit(X)
    assert imp.n_iter_ == 2 and imp.distance_ > imp.tol


@pytest.mark.parametrize("dataset", ["votes", "horse_colic"])
def test_imputer_default_values_are_within_tol_of_the_fixed_point(dataset):
    """The stop bounds the distance to the fixed point, not the last step: a step of 1e-3
    leaves horse colic's values 0.065 standard deviations away (rate about 0.985)."""
    Xtr = _binary(dataset)[0]
    missing = np.isnan(Xtr)
    scale = np.nanstd(Xtr, axis=0)
    default = GaussianMixtureImputer(random_state=0).fit(Xtr)
    limit = GaussianMixtureImputer(tol=1e-9, max_iter=100_000, random_state=0).fit(Xtr)
    gap = np.abs(default.transform(Xtr) - limit.transform(Xtr)) / scale
    assert gap.max(where=missing, initial=0.0) <= 1.5 * default.tol
    assert default.distance_ <= default.tol


@given(rho=st.floats(0.01, 0.999), first=st.floats(1e-6, 1e3), rounds=st.integers(2, 40))
def test_fixed_point_distance_is_exact_on_a_geometric_iteration(rho, first, rounds):
    """x_t = x* + first * rho^t: the steps are first * rho^(t-1) (1 - rho), the distance of
    the last iterate first * rho^t, which the bound returns exactly."""
    changes = [first * rho ** (t - 1) * (1 - rho) for t in range(1, rounds + 1)]
    est_rho, distance = _fixed_point_distance(changes)
    assert est_rho == pytest.approx(rho, rel=1e-9)
    assert distance == pytest.approx(first * rho**rounds, rel=1e-8)


def test_fixed_point_distance_gives_no_bound_without_contraction():
    assert _fixed_point_distance([1.0]) == (pytest.approx(np.nan, nan_ok=True), np.inf)
    assert _fixed_point_distance([1.0, 2.0, 1.5, 1.2]) == (np.inf, np.inf)
    assert _fixed_point_distance([1.0, 0.0]) == (0.0, 0.0)


def test_imputer_without_missing_values_stops_after_one_round():
    X, _ = make_classification(60, 4, random_state=0)
    imp = GaussianMixtureImputer(2, random_state=0).fit(X)
    assert imp.n_iter_ == 1 and imp.change_ == 0.0 and imp.distance_ == 0.0


@pytest.mark.parametrize("params, match", [({"tol": 0.0}, "tol must be > 0"),
                                           ({"max_iter": 0}, "max_iter must be >= 1")])
def test_imputer_bad_parameters(params, match):
    X, _ = make_classification(30, 4, n_informative=2, random_state=0)
    with pytest.raises(ValueError, match=match):
        GaussianMixtureImputer(2, **params).fit(X)
