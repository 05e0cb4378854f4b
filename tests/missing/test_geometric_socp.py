"""The separable case, Eq. (4): SOCP bisection (needs the optional cvxpy + Clarabel)."""

import numpy as np
import pytest

from robustclf.datasets import make_structurally_missing
from robustclf.missing import GeometricMarginSeparableSVC, GeometricMarginSVC, geometric_margin

pytest.importorskip("cvxpy")
pytest.importorskip("clarabel")


def test_socp_margin_is_at_least_the_iterative_margin():
    X, y = make_structurally_missing(60, n_blocks=3, block_size=2, margin=0.5, noise_std=0.0,
                                     random_state=0)
    socp = GeometricMarginSeparableSVC(tol=1e-4).fit(X, y)
    assert socp.margin_ > 0
    assert np.mean(socp.predict(X) == y) == 1.0
    it = GeometricMarginSVC(C=1e3, max_iter=5).fit(X, y)
    for its in it.iterates_[0]:
        w = it.X_fit_[its.support].T @ its.coef
        assert socp.margin_ >= geometric_margin(w, its.intercept, X, y) - 1e-3


def test_socp_rejects_non_separable_data():
    X = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])
    y = np.array([1, -1, 1, -1])
    with pytest.raises(ValueError, match="separable"):
        GeometricMarginSeparableSVC().fit(X, y)
