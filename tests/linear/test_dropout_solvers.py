"""Solvers of the marginalised objectives: agreement, monotonicity, bounds against Monte Carlo."""

import numpy as np
import pytest
import scipy.sparse as sp

from robustclf.linear import _dropout_solvers as S
from robustclf.linear._dropout_losses import (
    HingeBound,
    HingeGaussian,
    LogisticBound,
    LogisticGaussian,
    QuadraticLoss,
)
from robustclf.noise import DropoutNoise, GaussianNoise


def _problem(n=120, d=6, n_classes=1, seed=0, q=0.5, noise=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    X[rng.random((n, d)) < 0.3] = 0.0
    W = rng.normal(size=(d, max(n_classes, 1)))
    scores = X @ W + 0.5 * rng.normal(size=(n, W.shape[1]))
    if n_classes == 1:
        Y = np.where(scores > 0, 1.0, -1.0)
    else:
        Y = np.where(scores.argmax(axis=1)[:, None] == np.arange(n_classes), 1.0, -1.0)
    noise = DropoutNoise(q) if noise is None else noise
    return X, Y, S.Variance(*noise.variance_terms(X), X.shape), noise


BOUNDS = [HingeBound(0.8, 1.0), LogisticBound(0.8)]
ALL = BOUNDS + [HingeGaussian(0.8, 1.0), LogisticGaussian(0.8)]
def ids(loss):
    return type(loss).__name__


@pytest.mark.parametrize("loss", BOUNDS, ids=ids)
@pytest.mark.parametrize("linear_solver", ["cholesky", "cg"])
def test_irls_objective_is_monotone_non_increasing(loss, linear_solver):
    X, Y, var, _ = _problem(n_classes=3)
    res = S.irls(X, Y, var, loss, tol=1e-10, max_iter=60, linear_solver=linear_solver,
                 theta0=np.zeros((X.shape[1] + 1, 3)))
    for hist in res.objective:
        assert hist.size > 5
        assert np.all(np.diff(hist) <= 1e-10 * hist[1:])


@pytest.mark.parametrize("loss", BOUNDS, ids=ids)
def test_closed_form_and_iterative_irls_agree(loss):
    X, Y, var, _ = _problem(n_classes=3)
    a = S.irls(X, Y, var, loss, tol=1e-10, max_iter=2000, linear_solver="cholesky")
    b = S.irls(X, Y, var, loss, tol=1e-10, max_iter=2000, linear_solver="cg")
    assert a.converged.all() and b.converged.all()
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(b.intercept, a.intercept, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", BOUNDS, ids=ids)
@pytest.mark.parametrize("solver", [S.newton, S.lbfgs], ids=["newton", "lbfgs"])
def test_fast_solvers_reach_the_irls_optimum(loss, solver):
    X, Y, var, _ = _problem(n_classes=3)
    ref = S.irls(X, Y, var, loss, tol=1e-10, max_iter=5000)
    fast = solver(X, Y, var, loss, tol=1e-10, max_iter=500)
    f_ref = np.array([h[-1] for h in ref.objective])
    f_fast = np.array([h[-1] for h in fast.objective])
    np.testing.assert_allclose(f_fast, f_ref, rtol=1e-9)
    np.testing.assert_allclose(fast.coef, ref.coef, rtol=1e-4, atol=1e-6)
    if solver is S.newton:
        assert fast.n_iter.max() < ref.n_iter.max() / 2


@pytest.mark.parametrize("loss", [HingeGaussian(0.8, 1.0), LogisticGaussian(0.8)], ids=ids)
def test_newton_and_lbfgs_agree_on_the_gaussian_objectives(loss):
    X, Y, var, _ = _problem(n_classes=2)
    a = S.newton(X, Y, var, loss, tol=1e-10, max_iter=200)
    b = S.lbfgs(X, Y, var, loss, tol=1e-10, max_iter=2000)
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-4, atol=1e-6)
    with pytest.raises(ValueError, match="IRLS needs a variational bound"):
        S.irls(X, Y, var, loss)


@pytest.mark.parametrize("loss", ALL, ids=ids)
def test_gradient_and_hessian_match_finite_differences(loss):
    X, Y, var, _ = _problem(n=40, d=4, n_classes=2)
    problem = S._Problem(X, Y, var, loss, fit_intercept=True)
    rng = np.random.default_rng(1)
    theta = 0.3 * rng.normal(size=(5, 2))
    f, m, u = problem.evaluate(theta, Y)
    lm, lu, lmm, lmu, luu = loss.derivatives(m, u, Y)
    g = problem.gradient(theta, lm, lu)
    V = rng.normal(size=(5, 2))
    h = 1e-6
    fd = (problem.evaluate(theta + h * V, Y)[0] - problem.evaluate(theta - h * V, Y)[0]) / (2 * h)
    np.testing.assert_allclose((g * V).sum(axis=0), fd, rtol=1e-6)
    Hv = problem.hessian_vector(theta[:4], (lmm, lmu, luu, var.adjoint(lu)), V, np.arange(2))

    def grad_at(t):
        _, mm, uu = problem.evaluate(t, Y)
        return problem.gradient(t, *loss.derivatives(mm, uu, Y, order=1))

    fd_H = (grad_at(theta + h * V) - grad_at(theta - h * V)) / (2 * h)
    rtol = 1e-3 if isinstance(loss, LogisticGaussian) else 1e-5   # Stein-identity Hessian
    np.testing.assert_allclose(Hv, fd_H, rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("loss", ALL + [QuadraticLoss(0.8)], ids=ids)
def test_dense_and_sparse_give_the_same_model(loss):
    X, Y, var, noise = _problem(n_classes=2)
    Xs = sp.csr_matrix(X)
    var_s = S.Variance(*noise.variance_terms(Xs), X.shape)
    solver = S.least_squares if isinstance(loss, QuadraticLoss) else S.newton
    kw = {} if solver is S.least_squares else {"tol": 1e-13}
    a = solver(X, Y, var, loss, **kw)
    b = solver(Xs, Y, var_s, loss, **kw)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(b.intercept, a.intercept, rtol=1e-6, atol=1e-8)


def test_columns_are_solved_independently():
    X, Y, var, _ = _problem(n_classes=3)
    joint = S.newton(X, Y, var, HingeBound(0.8), tol=1e-10)
    for k in range(3):
        alone = S.newton(X, Y[:, [k]], var, HingeBound(0.8), tol=1e-10)
        np.testing.assert_allclose(alone.coef[0], joint.coef[k], rtol=1e-6, atol=1e-8)


def test_least_squares_is_the_closed_form():
    X, Y, var, noise = _problem(n_classes=2)
    res = S.least_squares(X, Y, var, QuadraticLoss(0.8), fit_intercept=True)
    Xb = np.hstack([X, np.ones((X.shape[0], 1))])
    A = 0.8 * (Xb.T @ Xb) + np.diag(np.r_[1.0 + 0.8 * noise.variance(X).sum(axis=0), 0.0])
    theta = np.linalg.solve(A, 0.8 * Xb.T @ Y)
    np.testing.assert_allclose(res.coef, theta[:-1].T, rtol=1e-8)
    np.testing.assert_allclose(res.intercept, theta[-1], rtol=1e-8)


def _monte_carlo_objective(X, y, coef, intercept, noise, family, n_copies=4000, C=0.8, margin=1.0):
    """``||w||^2 + sum_n E[loss]`` averaged over explicit corrupted copies (Eq. 2)."""
    total = 0.0
    copies = noise.sample(np.tile(X, (n_copies, 1)), random_state=0)
    scores = copies @ coef + intercept
    yy = np.tile(y, n_copies)
    if family == "hinge":
        total = 2 * C * np.maximum(0.0, margin - yy * scores).sum() / n_copies
    else:
        total = C * np.logaddexp(0.0, -yy * scores).sum() / n_copies
    return coef @ coef + total


@pytest.mark.parametrize("q", [0.0, 0.3, 0.7])
@pytest.mark.parametrize("family, bound, gauss", [
    ("hinge", HingeBound(0.8, 1.0), HingeGaussian(0.8, 1.0)),
    ("logistic", LogisticBound(0.8), LogisticGaussian(0.8)),
])
def test_bound_above_monte_carlo_and_gaussian_close(q, family, bound, gauss):
    """The bound U exceeds the expected loss estimated from explicit copies (equal at q=0);
    with 60 features the Gaussian objective is close to it."""
    X, Y, var, noise = _problem(n=60, d=60, q=q, seed=3)
    y = Y[:, 0]
    res = S.newton(X, Y, var, bound)   # any w will do; take the bound's minimiser
    coef, b = res.coef[0], res.intercept[0]
    mc = _monte_carlo_objective(X, y, coef, b, noise, family)
    U = S.objective(X, Y, var, bound, res.coef, res.intercept)[0]
    G = S.objective(X, Y, var, gauss, res.coef, res.intercept)[0]
    if q == 0:
        assert U == pytest.approx(mc, rel=1e-7) and G == pytest.approx(mc, rel=1e-7)
    else:
        assert U > mc * 1.01
        assert G == pytest.approx(mc, rel=0.03)


def test_additive_noise_uses_a_constant_variance_without_dense_matrices():
    X, Y, _, _ = _problem(n_classes=2)
    noise = GaussianNoise(0.5)
    var = S.Variance(*noise.variance_terms(sp.csr_matrix(X)), X.shape)
    assert var.entrywise is None and var.constant == pytest.approx(0.25)
    dense = S.Variance(noise.variance(X), 0.0, X.shape)
    W2 = np.random.default_rng(0).random((X.shape[1], 2))
    np.testing.assert_allclose(var.forward(W2), dense.forward(W2))
    Z = np.random.default_rng(1).random((X.shape[0], 2))
    np.testing.assert_allclose(var.adjoint(Z), dense.adjoint(Z))


def test_newton_handles_the_kinked_plain_hinge():
    """q = 0: the bound is the plain hinge; Newton follows a smoothing path to its optimum."""
    X, Y, var, _ = _problem(q=0.0)
    assert var.is_zero()
    ref = S.irls(X, Y, var, HingeBound(0.8), tol=1e-9, max_iter=5000)
    res = S.newton(X, Y, var, HingeBound(0.8), tol=1e-9, max_iter=500)
    assert res.converged.all()
    assert res.objective[0][-1] == pytest.approx(ref.objective[0][-1], rel=1e-9)


def test_solvers_report_non_convergence():
    X, Y, var, _ = _problem()
    for solver in (S.irls, S.newton, S.lbfgs):
        res = solver(X, Y, var, HingeBound(0.8), tol=1e-12, max_iter=1)
        assert not res.converged.all() and res.n_iter.max() == 1


@pytest.mark.parametrize("loss", BOUNDS, ids=ids)
def test_subsampled_float32_newton_reaches_the_full_newton_optimum(loss, monkeypatch):
    """The large-data path (Hessian on a float32 sub-sample, presolve on it) is exercised here
    on small data by lowering its thresholds; the optimum must not move."""
    from robustclf.linear import _dropout_problem as P

    X, Y, var, _ = _problem(n=400, d=8, n_classes=3)
    ref = S.newton(X, Y, var, loss, tol=1e-9, max_iter=500)   # before the patch
    monkeypatch.setattr(P, "_HESSIAN_ROWS", 100)
    monkeypatch.setattr(P, "_FLOAT32_MIN_SIZE", 10)
    problem = S._Problem(X, Y, var, loss, True)
    assert problem.fast.X.dtype == np.float32 and problem.rows.size == 100
    res = S.newton(X, Y, var, loss, tol=1e-9, max_iter=500)
    assert res.converged.all()
    f_ref = np.array([h[-1] for h in ref.objective])
    np.testing.assert_allclose([h[-1] for h in res.objective], f_ref, rtol=1e-10)
    np.testing.assert_allclose(res.coef, ref.coef, rtol=1e-4, atol=1e-6)


def test_newton_reads_large_dense_x_in_float32_without_moving_the_optimum(monkeypatch):
    """Above the size threshold DropoutSVC's Newton path reads X in float32; the objective of the
    result, evaluated in float64, must match the float64 fit (threshold lowered here)."""
    from robustclf.linear import DropoutSVC
    from robustclf.linear import _dropout_problem as P

    X, Y, var, _ = _problem(n=400, d=8, n_classes=3)
    y = Y.argmax(axis=1)
    assert S.newton_precision(X) is X                      # small: unchanged
    ref = DropoutSVC(q=0.3, C=0.8, objective="bound", tol=1e-9).fit(X, y)
    monkeypatch.setattr(P, "_FLOAT32_MIN_SIZE", 10)
    assert S.newton_precision(X).dtype == np.float32
    assert S.newton_precision(sp.csr_matrix(X)).dtype == np.float64   # sparse: unchanged
    X0 = X.copy()
    low = DropoutSVC(q=0.3, C=0.8, objective="bound").fit(X, y)   # float32: default tol
    np.testing.assert_array_equal(X, X0)
    var64 = S.Variance(*DropoutNoise(0.3)._variance_terms(X), X.shape)
    f_low = S.objective(X, Y, var64, HingeBound(0.8), low.coef_, low.intercept_)
    np.testing.assert_allclose(f_low, ref.objective_, rtol=1e-6)
    np.testing.assert_allclose(low.coef_, ref.coef_, rtol=1e-3, atol=1e-4)
    assert not np.array_equal(low.coef_, ref.coef_)         # the float32 path was taken


def test_every_solver_stops_on_the_relative_gradient_norm():
    """converged means ||grad F||_inf <= tol ||grad F(0)||_inf, recomputed here independently
    of the solvers' bookkeeping (finite differences of the objective)."""
    X, Y, var, _ = _problem(n_classes=3)
    loss = HingeBound(0.8)
    problem = S._Problem(X, Y, var, loss, fit_intercept=True)
    h = 1e-6

    def gradient(theta):
        out = np.empty_like(theta)
        for i in range(theta.shape[0]):
            e = np.zeros_like(theta)
            e[i] = h
            up, down = problem.evaluate(theta + e, Y)[0], problem.evaluate(theta - e, Y)[0]
            out[i] = (up - down) / (2 * h)
        return out

    scale = np.abs(gradient(np.zeros((X.shape[1] + 1, 3)))).max(axis=0)
    for solver in (S.newton, S.irls, S.lbfgs):
        res = solver(X, Y, var, loss, tol=1e-5, max_iter=5000)
        assert res.converged.all()
        theta = np.vstack([res.coef.T, res.intercept])
        measure = np.abs(gradient(theta)).max(axis=0) / scale
        np.testing.assert_allclose(measure, res.measure, rtol=1e-3, atol=1e-9)
        assert np.all(measure <= 1e-5 * (1 + 1e-3))


def test_unreachable_tol_is_reported_with_its_reason():
    """Below the floating-point floor (1e-20) every solver says why it stopped."""
    X, Y, var, _ = _problem(n_classes=2)
    res = S.lbfgs(X, Y, var, HingeBound(0.8), tol=1e-20, max_iter=10_000)
    assert not res.converged.any() and set(res.status) == {S.ABNORMAL}
    res = S.newton(X, Y, var, HingeBound(0.8), tol=1e-20, max_iter=10_000)
    assert not res.converged.any() and set(res.status) == {S.NO_DESCENT}
    assert res.n_iter.max() < 10_000
    res = S.irls(X, Y, var, HingeBound(0.8), tol=1e-20, max_iter=20)
    assert set(res.status) == {S.MAX_ITER} and (res.n_iter == 20).all()


def test_newton_reaches_optima_on_the_kink():
    """Random labels: every one-vs-rest optimum is (almost) w = 0 with all negatives exactly
    on the hinge's kink; the default tolerance is reached without a warning."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(30, 3))
    Y = np.where((np.arange(30) % 3)[:, None] == np.arange(3), 1.0, -1.0)
    var = S.Variance(*DropoutNoise(0.5).variance_terms(X), X.shape)
    res = S.newton(X, Y, var, HingeBound(1.0))
    assert res.converged.all(), res.measure
    np.testing.assert_allclose(res.coef, 0.0, atol=1e-5)
