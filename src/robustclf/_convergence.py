"""One wording for every solver that stops short of its optimality criterion.

Every iterative solver of the library stops on a measure of optimality (a gradient norm, a Newton
decrement, a duality gap, a KKT residual) compared with its ``tol``. When it stops for any other
reason -- the iteration or time limit, a failed line search, an abnormal status of a backend
solver -- it calls :func:`warn_not_converged`, which emits scikit-learn's
:class:`~sklearn.exceptions.ConvergenceWarning` naming the estimator, the reason and the measure
reached, so that a user can judge how far from optimal the model is.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = ["warn_not_converged"]


def warn_not_converged(owner, *, reason: str, measure_name: str | None = None,
                       measure=None, tol: float | None = None, n_failed: int | None = None,
                       n_problems: int | None = None, advice: str | None = None,
                       stacklevel: int = 3) -> None:
    """Emit a ``ConvergenceWarning`` that says why a solver stopped and how far it got.

    Parameters
    ----------
    owner : object or str
        The estimator (its class name is used) or a name.
    reason : str
        Why the solver stopped, e.g. ``"max_iter=100 was reached"`` or
        ``"the line search failed"``.
    measure_name : str or None
        The optimality measure the solver stops on, e.g. ``"relative gradient norm"``.
    measure : float or array-like or None
        Its value(s) at the returned point; the largest is reported.
    tol : float or None
        The value the measure had to reach.
    n_failed, n_problems : int or None
        How many of how many sub-problems (e.g. one-vs-rest columns) did not converge.
    advice : str or None
        What the user can do; default: increase ``max_iter``, or scale the data.
    stacklevel : int, default=3
    """
    name = owner if isinstance(owner, str) else type(owner).__name__
    text = f"{name} did not converge"
    if n_failed is not None and n_problems is not None:
        text += f" for {n_failed} of {n_problems} binary problem(s)"
    text += f": {reason}"
    if measure_name is not None and measure is not None:
        value = np.max(np.asarray(measure, dtype=float))
        text += f"; {measure_name} {value:.3g}"
        if tol is not None:
            text += f" (tol={tol:.3g})"
    text += ". " + (advice or "Increase max_iter, or scale the data.")
    warnings.warn(text, ConvergenceWarning, stacklevel=stacklevel)
