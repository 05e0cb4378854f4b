"""MCF-Logistic against a reference minimiser of its objective written out independently."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from robustclf.linear import MCFClassifier


def _reference_objective(theta, X, s, q, C):
    """``||w||^2 + C sum_n log(1 + exp(-s_n b) prod_d (q + (1 - q) exp(-s_n w_d x_nd / (1 - q))))``
    (van der Maaten et al. 2013, the Jensen bound under dropout), entry by entry."""
    w, b = theta[:-1], theta[-1]
    log_mgf = np.log(q + (1 - q) * np.exp(-s[:, None] * w[None, :] * X / (1 - q))).sum(axis=1)
    return w @ w + C * np.logaddexp(0.0, log_mgf - s * b).sum()


@pytest.mark.parametrize("sparse", [False, True])
def test_logistic_optimum_matches_scipy_on_the_written_out_objective(sparse):
    rng = np.random.default_rng(0)
    # 8-bit-like values (repeated (column, value) pairs) and a few exact zeros
    X = np.round(rng.uniform(0, 1, size=(120, 5)) * (rng.uniform(size=(120, 5)) < 0.7), 2)
    y = rng.integers(0, 3, 120)
    X[y == 1, 0] += 0.5
    X[y == 2, 1] += 0.5
    q, C = 0.4, 2.0
    model = MCFClassifier(loss="logistic", q=q, C=C, tol=1e-7).fit(
        sp.csr_matrix(X) if sparse else X, y)
    for k in range(3):
        s = np.where(y == k, 1.0, -1.0)
        ref = minimize(_reference_objective, np.zeros(6), args=(X, s, q, C), method="BFGS",
                       options={"gtol": 1e-10, "maxiter": 10_000})
        np.testing.assert_allclose(model.coef_[k], ref.x[:-1], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(model.intercept_[k], ref.x[-1], rtol=1e-5, atol=1e-7)
        assert model.objective_[k] == pytest.approx(ref.fun, rel=1e-10)
