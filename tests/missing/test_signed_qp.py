"""The sign-constrained box QP behind GeometricMarginSVC, cold and warm-started (_signed_qp)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf.datasets import make_structurally_missing
from robustclf.missing import _signed_qp as sq
from robustclf.missing._geometric_solver import fit_binary
from robustclf.missing.kernels import masked_kernel, missingness_patterns


def _problem(n, seed, kernel="linear"):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 5))
    y = np.where(X @ rng.standard_normal(5) + 0.7 * rng.standard_normal(n) > 0, 1.0, -1.0)
    K = X @ X.T if kernel == "linear" else (X @ X.T / 5 + 1.0) ** 2
    s = rng.uniform(0.6, 1.0, n)
    return X, K, y, s


def _forms(s, C=1.0):
    """(d, m, u) of the two bias readings: Eq. (6) in gamma, Eq. (7) in delta = s gamma."""
    one = np.ones_like(s)
    return {"scaled": (one, s, C / s), "unscaled": (1.0 / s, one, C * one)}


def _kkt_violation(K, d, y, m, u, g, b):
    """Largest violation of the KKT conditions of (QP) at (g, b), and of feasibility."""
    G = d[:, None] * K * d
    margin = y * (G @ g + b)
    yg = y * g
    at_zero = yg <= 1e-9 * u
    at_top = yg >= u * (1 - 1e-9)
    free = ~at_zero & ~at_top
    viol = np.concatenate([np.maximum(m - margin, 0.0)[at_zero],
                           np.maximum(margin - m, 0.0)[at_top],
                           np.abs(margin - m)[free]])
    feasibility = max(-yg.min(), (yg - u).max(), abs(g.sum()))
    return viol.max(initial=0.0), feasibility


def _cold(K, d, y, m, u, tol):
    return sq.solve_cold(d[:, None] * K * d, y, m, u, tol)


def _warm_or_cold(K, d, y, m, u, tol, g0, b0):
    """solve_warm, or the cold solve its caller makes when the start does not help."""
    out = sq.solve_warm(K, d, y, m, u, tol, g0, b0)
    return (*_cold(K, d, y, m, u, tol), 0) if out is None else out


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_warm_start_from_a_nearby_problem_matches_the_cold_solve(bias, kernel):
    X, K, y, s = _problem(300, seed=0, kernel=kernel)
    rng = np.random.default_rng(1)
    s_prev = np.clip(s * rng.uniform(0.95, 1.05, s.size), 0.5, 1.0)
    d0, m0, u0 = _forms(s_prev)[bias]
    g_prev, b_prev = _cold(K, d0, y, m0, u0, 1e-8)
    d, m, u = _forms(s)[bias]
    coef_prev = g_prev * d0  # the expansion coefficients carry over between problems
    g, b, rounds = sq.solve_warm(K, d, y, m, u, 1e-8, coef_prev / d, b_prev)
    assert rounds >= 1  # the reduced solve was used, not the cold fallback
    viol, feas = _kkt_violation(K, d, y, m, u, g, b)
    assert viol < 1e-6 and feas < 1e-8
    g_ref, b_ref = _cold(K, d, y, m, u, 1e-8)
    Q = d[:, None] * K * d
    obj = 0.5 * g @ Q @ g - (m * y) @ g
    obj_ref = 0.5 * g_ref @ Q @ g_ref - (m * y) @ g_ref
    assert obj == pytest.approx(obj_ref, rel=1e-7)
    if kernel == "linear":  # w is unique (the QP is strictly convex in w)
        np.testing.assert_allclose(X.T @ (d * g), X.T @ (d * g_ref), atol=1e-4)
        assert b == pytest.approx(b_ref, abs=1e-4)


@pytest.mark.parametrize("start", ["zero", "garbage", "ordinary svm"])
def test_warm_start_from_any_point_meets_the_kkt_conditions(start):
    """A bad start costs time (more rounds or the cold fallback), never optimality."""
    X, K, y, s = _problem(200, seed=2)
    d, m, u = _forms(s)["scaled"]
    rng = np.random.default_rng(3)
    if start == "zero":
        g0, b0 = np.zeros_like(s), 0.0
    elif start == "garbage":  # wrong signs, outside the box, sum not 0
        g0, b0 = 5.0 * rng.standard_normal(s.size), 3.0
    else:
        g0, b0 = _cold(K, np.ones_like(s), y, np.ones_like(s), np.ones_like(s), 1e-6)
    g, b, _ = _warm_or_cold(K, d, y, m, u, 1e-6, g0, b0)
    viol, feas = _kkt_violation(K, d, y, m, u, g, b)
    assert viol < 1e-5 and feas < 1e-8


def test_pinned_row_carries_a_nonzero_sum():
    X, K, y, s = _problem(60, seed=4)
    u = 1.0 / s
    lin = s * y
    r = 0.3 * float(u[y > 0].sum())
    g, b = sq._svr_solve(K, y, lin, u, r, 1e-8)
    assert g.sum() == pytest.approx(r, abs=1e-8)
    assert np.all(y * g >= 0) and np.all(y * g <= u * (1 + 1e-12))
    # KKT of min 1/2 g'Kg - lin'g s.t. box, sum g = r, with multiplier b
    margin = y * (K @ g + b)
    free = (y * g > 1e-9) & (y * g < u * (1 - 1e-9))
    assert free.any()
    np.testing.assert_allclose(margin[free], s[free], atol=1e-6)


def test_infeasible_sum_is_reported_not_approximated():
    X, K, y, s = _problem(40, seed=5)
    u = np.ones_like(s)
    too_much = float(u[y > 0].sum()) + 1.0
    assert sq._svr_solve(K, y, s * y, u, too_much, 1e-6) is None
    assert sq._svr_solve(K, y, s * y, u, -float(u[y < 0].sum()) - 1.0, 1e-6) is None


@settings(max_examples=25, deadline=None)
@given(n=st.integers(8, 60), seed=st.integers(0, 10_000), bias=st.sampled_from(["scaled",
                                                                                "unscaled"]),
       C=st.floats(0.05, 20.0), start_scale=st.floats(0.0, 3.0))
def test_warm_solve_is_optimal_for_any_start(n, seed, bias, C, start_scale):
    X, K, y, s = _problem(n, seed)
    if np.unique(y).size < 2:
        y[0] = -y[0]
    d, m, u = _forms(s, C)[bias]
    rng = np.random.default_rng(seed)
    g0 = start_scale * C * rng.standard_normal(n)
    g, b, _ = _warm_or_cold(K, d, y, m, u, 1e-7, g0, float(rng.standard_normal()))
    viol, feas = _kkt_violation(K, d, y, m, u, g, b)
    assert feas < 1e-8 * max(C, 1.0)
    # as optimal as a cold solve, whose accuracy is bounded by libsvm's float32 kernel cache
    viol_cold, _ = _kkt_violation(K, d, y, m, u, *_cold(K, d, y, m, u, 1e-7))
    assert viol <= 2.0 * viol_cold + 1e-6


@pytest.mark.parametrize("bias", ["scaled", "unscaled"])
@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_warm_started_iterations_match_cold_ones(bias, kernel):
    X, y = make_structurally_missing(300, n_blocks=4, block_size=3, noise_std=0.3,
                                     random_state=6)
    y = np.where(y == y.max(), 1.0, -1.0)
    M = ~np.isnan(X)
    X0 = np.where(M, X, 0.0)
    params = dict(kernel=kernel, degree=2, gamma=1.0 / (X.shape[1] * X0.var()), coef0=1.0)
    K = masked_kernel(X0, M, X0, M, **params)
    patterns, inverse = missingness_patterns(M)
    runs = {warm: fit_binary(K, y, X0, M, patterns, inverse, C=1.0, max_iter=4, bias=bias,
                             tol=0.0, kernel_params=params, warm_start=warm)[0]
            for warm in (True, False)}
    for a, b in zip(runs[True], runs[False], strict=True):
        assert a.objective == pytest.approx(b.objective, rel=2e-3)
        np.testing.assert_allclose(a.fit_scalings, b.fit_scalings, atol=5e-3)


def test_large_change_of_the_scalings_solves_cold(monkeypatch):
    """Beyond _MAX_BAND the previous iterate is not used; within it, it is."""
    from robustclf.missing import _geometric_solver as gs

    X, K, y, s = _problem(80, seed=7)
    calls = []
    monkeypatch.setattr(gs, "solve_warm", lambda *a, **k: calls.append(a) or sq.solve_warm(*a))
    coef, b = _cold(K, np.ones_like(s), y, np.ones_like(s), np.ones_like(s), 1e-6)
    start = (coef, b, K @ coef, np.ones_like(s))
    small = np.full_like(s, 0.8)  # band 0.2 + 0.25
    gs._svm_step(K, y, small, 1.0, "scaled", 1e-6, start=start)
    assert len(calls) == 1
    tiny = s.copy()
    tiny[0] = 0.3  # 1 / 0.3 - 1 > _MAX_BAND
    gs._svm_step(K, y, tiny, 1.0, "scaled", 1e-6, start=start)
    assert len(calls) == 1


def test_room_for_the_pinned_row_is_optional():
    X, K, y, s = _problem(50, seed=8)
    u, lin = 1.0 / s, s * y
    padded = np.pad(K, ((0, 1), (0, 1)), constant_values=7.0)  # junk in the spare slot
    for r in (0.0, 0.2 * float(u[y > 0].sum())):
        g_a, b_a = sq._svr_solve(K, y, lin, u, r, 1e-8)
        g_b, b_b = sq._svr_solve(padded.copy(), y, lin, u, r, 1e-8)
        np.testing.assert_allclose(g_b, g_a, atol=1e-10)
        assert b_b == pytest.approx(b_a, abs=1e-10)
