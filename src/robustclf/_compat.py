"""The one place where robustclf imports private or version-dependent third-party names."""

from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils.validation import validate_data

__all__ = ["LinearClassifierMixin", "validate_data", "persistent_highs", "gmres"]


def persistent_highs():
    """HiGHS's solver class, kept alive across solves (``None`` when unavailable).

    scipy's ``linprog`` builds a new HiGHS model at every call; the solver object keeps the
    model and its basis, so rows can be added and the LP re-solved by warm-started dual simplex.
    scipy >= 1.15 bundles it under a private name; we use that rather than adding ``highspy``
    (the same object, packaged separately) as a dependency.
    """
    try:
        from scipy.optimize._highspy._core import _Highs
    except ImportError:  # pragma: no cover - scipy < 1.15
        return None
    return _Highs


def gmres(A, b, *, rtol, restart, maxiter):
    """scipy's GMRES with a relative tolerance (``rtol``; called ``tol`` before scipy 1.12)."""
    from scipy.sparse.linalg import gmres as _gmres

    try:
        return _gmres(A, b, rtol=rtol, atol=0.0, restart=restart, maxiter=maxiter)
    except TypeError:  # pragma: no cover - scipy < 1.12
        return _gmres(A, b, tol=rtol, atol=0.0, restart=restart, maxiter=maxiter)
