"""A certified upper bound on the optimal geometric margin of Eq. (4), from dual weights.

For row weights ``lambda_i >= 0`` (with ``sum_i lambda_i y_i = 0`` when the bias is free) let
``v = sum_i lambda_i y_i x_i`` (absent entries read as 0). For any ``(w, b)`` whose margin
``gamma_w = min_i y_i (w.x_i + b) / ||w^(i)||`` is positive,

    gamma_w sum_i lambda_i ||w^(i)|| <= sum_i lambda_i y_i (w.x_i + b) = w.v,

and if ``v = sum_i z_i`` with every ``z_i`` supported on row ``i``'s present features, then
``w.v = sum_i w^(i).z_i <= max_i (||z_i|| / lambda_i) sum_i lambda_i ||w^(i)||``. Hence

    gamma* <= U = max_i ||z_i|| / lambda_i

for *every* such ``(lambda, z)``: a certificate that needs no solver's word, only arithmetic.
It is tight at the optimum, where the KKT conditions give ``z_i = gamma* lambda_i u_i`` with
``u_i = w*^(i) / ||w*^(i)||`` on the active rows. Near the optimum (a primal ``w`` with margin
``gamma``) the weights are chosen to make ``r = v - gamma sum_i lambda_i u_i`` small (a
non-negative least-squares problem) and ``r`` is spread back over the rows that observe each
coordinate, so that ``U <= gamma + max_i ||r restricted to row i / D||`` with
``D_j = sum_i lambda_i [j present in row i]``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

#: Rows whose margin ratio is within this relative distance of ``gamma`` carry the weights.
_ACTIVE = 1e-2


def row_margins(coef: np.ndarray, intercept: float, X0: np.ndarray, M: np.ndarray,
                y: np.ndarray) -> np.ndarray:
    """Every row's Eq. (3) margin ``y_i (w.x_i + b) / ||w^(i)||`` (``X0``: absent entries 0,
    ``M``: present). A row whose present features all have weight 0 is at ``+inf`` when
    ``y_i b > 0`` and at ``-inf`` otherwise (it is not separated)."""
    norms = np.sqrt(M.astype(np.float64) @ (coef * coef))
    margins = y * (X0 @ coef + intercept)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(norms > 0, margins / norms, np.where(margins > 0, np.inf, -np.inf))


def dual_margin_bound(X0: np.ndarray, M: np.ndarray, y: np.ndarray, w: np.ndarray,
                      intercept: float, fit_intercept: bool) -> tuple[float, float]:
    """Margin of ``(w, intercept)`` and a certified upper bound on the optimal margin.

    Parameters
    ----------
    X0 : ndarray of shape (n_samples, n_features)
        Rows with absent entries set to 0.
    M : ndarray of bool, shape (n_samples, n_features)
        True where an entry is present.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    w, intercept : ndarray of shape (n_features,), float
        A primal point, ideally near the optimum (the bound is tight there).
    fit_intercept : bool
        Whether the bias is free (then the weights must balance the classes).

    Returns
    -------
    gamma : float
        The Eq. (3) margin of ``(w, intercept)``.
    upper : float
        ``U`` of the module docstring (``inf`` when no certificate could be built); exact up
        to floating-point rounding.
    """
    ratios = row_margins(w, intercept, X0, M, y)
    gamma = float(ratios.min())
    if not (np.isfinite(gamma) and gamma > 0):
        return gamma, np.inf
    rows = np.flatnonzero(ratios <= gamma * (1 + _ACTIVE))
    if fit_intercept and np.unique(y[rows]).size < 2:
        return gamma, np.inf
    Pw = M[rows] * w
    norms = np.linalg.norm(Pw, axis=1, keepdims=True)
    U = np.divide(Pw, norms, out=np.zeros_like(Pw), where=norms > 0)
    A = (y[rows, None] * X0[rows] - gamma * U).T          # columns a_i; want A @ lam = 0
    groups = [y[rows] > 0, y[rows] < 0] if fit_intercept else [np.ones(rows.size, bool)]
    rho = 1e3 * max(1.0, float(np.abs(A).max()))           # weight of the normalisation rows
    lhs = np.vstack([A, *[rho * g.astype(float) for g in groups]])
    rhs = np.concatenate([np.zeros(A.shape[0]), np.full(len(groups), rho / len(groups))])
    lam, _ = nnls(lhs, rhs, maxiter=50 * lhs.shape[1])
    for g in groups:                                       # exact class sums of 1/2 (or 1)
        total = lam[g].sum()
        if not total > 0:
            return gamma, np.inf
        lam[g] /= total * len(groups)
    v = (lam * y[rows]) @ X0[rows]
    Z = gamma * lam[:, None] * U
    D = lam @ M[rows]
    spread = np.divide(v - Z.sum(axis=0), D, out=np.zeros_like(v), where=D > 0)
    Z += lam[:, None] * M[rows] * spread
    support = lam > 0
    upper = float(np.max(np.linalg.norm(Z[support], axis=1) / lam[support]))
    return gamma, max(upper, gamma)
