"""RobustLogisticRegression: RoLR (Feng, Xu, Mannor & Yan, NIPS 2014, Algorithm 1)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_bool,
    check_fraction,
    check_max_iter,
    check_nonnegative,
    check_option,
    check_positive,
)
from ._base import (
    LinearClassifierBase,
    warn_if_not_converged,
)
from ._rolr_solvers import SOLVERS, _Design

__all__ = ["RobustLogisticRegression"]

_DEFAULT_FRACTION = 0.1


class RobustLogisticRegression(LinearClassifierBase):
    """Robust logistic regression by trimmed correlation (RoLR, Feng et al. 2014).

    Of the ``N = n + n1`` training rows, up to ``n1`` may be arbitrary outliers (corrupted
    covariates, wrong labels). RoLR (Algorithm 1) first removes rows of implausible magnitude,
    ``||x_i|| >= T``, then estimates the direction of the logistic model by maximising the sum of
    the ``n`` smallest correlations (Eq. 2)::

        beta_hat = argmax_{||beta||_2 <= 1}  sum_{i=1}^{n} [y <beta, x>]_(i).

    Binary problems use ``y`` in {-1, +1}; more classes are handled one-vs-rest.

    Parameters
    ----------
    n_outliers : int, default=None
        Upper bound ``n1`` on the number of outliers among the training rows. Give at most one of
        ``n_outliers`` and ``outlier_fraction``; with neither, ``outlier_fraction=0.1``.
    outlier_fraction : float in [0, 1), default=None
        ``n1 = ceil(outlier_fraction * N)``.
    threshold : {"paper"}, float > 0 or None, default=None
        Preprocessing threshold ``T`` (rows with ``||x_i|| >= T`` are removed before the fit).
        ``"paper"`` is Algorithm 1's ``T = 4 sqrt(log p / n + log n / n)``, which the paper states
        for samples scaled by ``1 / sqrt(n)`` (Definition 1); on raw data it is applied as
        ``sqrt(n) T = 4 sqrt(log p + log n)`` (``n = N - n1``). It assumes standardised features
        (unit variance) and, being a bound on one projection rather than on the norm, removes
        authentic rows once ``p`` nears ``16 log(p n)``: a warning says so when more rows than
        ``n1`` are removed. A float sets ``T`` on the (centred, see ``fit_intercept``) raw scale;
        ``None`` disables the preprocessing.
    fit_intercept : bool, default=True
        Fit an intercept. Dense ``X`` is first centred at the coordinate-wise median ``m`` of the
        rows kept (robust to fewer than half outliers; the paper's model has zero-mean ``x``), and
        a constant column ``intercept_scaling`` is appended *inside* the unit ball, so
        ``||(coef, b)|| = 1`` where ``intercept_ = b * intercept_scaling - coef @ m``. Sparse ``X``
        is not centred (that would densify it). ``False`` is the paper's estimator
        (``||coef_|| = 1``).
    intercept_scaling : float > 0, default=1.0
        Value of the constant column.
    solver : {"dual", "socp"}, default="dual"
        ``"dual"``: accelerated projected gradient on the dual ``min ||A^T t||`` over the capped
        simplex with a duality-gap stopping rule (dense or sparse ``X``). ``"socp"``: Eq. (3)
        (with ``nu`` free, see Notes) through cvxpy + Clarabel (``pip install robustclf[conic]``).
    tol : float > 0, default=1e-6
        Relative duality gap at which the dual solver stops.
    max_iter : int, default=10000
        Iteration limit of the solver; reaching it raises a ``ConvergenceWarning``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The estimated direction(s) ``beta_hat``; zero for a collapsed problem.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    scale_ : ndarray of shape (1,) or (n_classes,)
        Slope ``s`` of ``predict_proba = sigmoid(s * decision_function)``, a 1-D maximum-likelihood
        fit on the rows kept by preprocessing: RoLR estimates the direction of ``beta*`` only
        (Eq. 2 is invariant to its scale). One slope shared by all one-vs-rest columns (fitted on
        all of them at once), so that ``predict_proba`` and ``predict`` agree.
    inlier_mask_ : ndarray of bool of shape (n_samples,) or (n_classes, n_samples)
        Rows kept by preprocessing and inside the trimmed set (the ``n`` smallest correlations)
        at the optimum; all kept rows for a collapsed problem.
    threshold_ : float or None
        The threshold ``T`` applied on the raw scale.
    n_outliers_ : int
        The resolved bound ``n1``.
    objective_, dual_objective_ : ndarray of shape (1,) or (n_classes,)
        Trimmed sum at ``coef_`` (Eq. 2) and the dual upper bound; their difference is the gap.
    n_iter_ : ndarray of int of shape (1,) or (n_classes,)
    n_features_in_ : int

    Notes
    -----
    Eq. (3) as printed constrains the multiplier ``nu >= 0``, i.e. ``sum t_i <= n`` instead of
    ``= n``; its optimum is then ``max(0, ...)`` and its maximiser ``beta = 0`` whenever the trimmed
    sum is positive for some direction. We solve Eq. (2), i.e. Eq. (3) with ``nu`` free.

    The trimmed set keeps the ``n`` *smallest* correlations, so outliers whose labels contradict
    the model stay in it: once the (kept) outliers outweigh the authentic rows' lower tail, the
    trimmed sum is negative in every direction and the maximiser is ``beta = 0``. RoLR then
    cannot say anything; a warning is raised and the model predicts a constant.

    The number of rows in the trimmed sum is ``n = min(N - n1, N_kept)``: Algorithm 1 assumes
    that preprocessing removes outliers only.

    References
    ----------
    .. [1] J. Feng, H. Xu, S. Mannor and S. Yan. Robust logistic regression and classification.
       NIPS 2014, Algorithm 1 and Eqs. (2)-(3).

    Examples
    --------
    >>> from robustclf.datasets import make_contaminated_logistic
    >>> from robustclf.linear.rolr import RobustLogisticRegression
    >>> X, y, beta, _ = make_contaminated_logistic(500, 5, random_state=0)
    >>> clf = RobustLogisticRegression(n_outliers=0, fit_intercept=False).fit(X, y)
    >>> bool(clf.coef_.ravel() @ beta > 0.9)
    True
    """

    def __init__(self, *, n_outliers=None, outlier_fraction=None, threshold=None,
                 fit_intercept=True, intercept_scaling=1.0, solver="dual", tol=1e-6,
                 max_iter=10_000):
        self.n_outliers = n_outliers
        self.outlier_fraction = outlier_fraction
        self.threshold = threshold
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter

    def _resolve_n_outliers(self, n_rows: int) -> int:
        if self.n_outliers is not None and self.outlier_fraction is not None:
            raise ValueError("give at most one of n_outliers and outlier_fraction, got "
                             f"n_outliers={self.n_outliers!r}, "
                             f"outlier_fraction={self.outlier_fraction!r}.")
        if self.n_outliers is not None:
            n1 = check_nonnegative(self.n_outliers, "n_outliers", integer=True)
            if n1 >= n_rows:
                raise ValueError(f"n_outliers must be less than the number of samples "
                                 f"({n_rows}), got {n1}.")
            return n1
        fraction = _DEFAULT_FRACTION if self.outlier_fraction is None else check_fraction(
            self.outlier_fraction, "outlier_fraction")
        if fraction >= 1.0:
            raise ValueError(f"outlier_fraction must be < 1, got {fraction}.")
        return min(math.ceil(fraction * n_rows - 1e-9), n_rows - 1)

    def _check_params(self) -> None:
        check_option(self.solver, "solver", tuple(SOLVERS))
        check_bool(self.fit_intercept, "fit_intercept")
        check_positive(self.intercept_scaling, "intercept_scaling")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        if isinstance(self.threshold, str):
            check_option(self.threshold, "threshold", ("paper",))
        elif self.threshold is not None:
            check_positive(self.threshold, "threshold")

    def _threshold(self, n_features: int, n_authentic: int) -> float | None:
        if self.threshold is None:
            return None
        if self.threshold == "paper":
            return 4.0 * math.sqrt(math.log(n_features) + math.log(max(n_authentic, 1)))
        return float(self.threshold)

    def _fit_ovr(self, X, Y):
        """Preprocess (Algorithm 1), then solve Eq. (2) for each ±1 column of ``Y``."""
        N, p = X.shape
        n1 = self._resolve_n_outliers(N)
        center = np.median(X, axis=0) if self.fit_intercept and not sp.issparse(X) else None
        c = float(self.intercept_scaling) if self.fit_intercept else None
        T = self._threshold(p, N - n1)
        keep = np.ones(N, dtype=bool)
        if T is not None:
            keep = _Design(X, np.ones(N), None, center).row_norms() < T
            removed = N - int(keep.sum())
            if removed == N:
                raise ValueError(f"threshold {T:g} removes every row (all ||x|| >= T); "
                                 "standardise X or set a larger threshold.")
            if removed > n1:
                warnings.warn(f"the preprocessing threshold T = {T:g} removed {removed} rows, "
                              f"more than the n_outliers = {n1} bound: it removes authentic "
                              "rows (threshold='paper' assumes standardised features and "
                              "p well below 16 log(p n)).", UserWarning, stacklevel=3)
            if center is not None and removed:
                center = np.median(X[keep], axis=0)
        Xk = X if keep.all() else X[keep]
        n_trim = min(N - n1, Xk.shape[0])
        solve = SOLVERS[self.solver]
        results, masks, scores = [], [], []
        for yk in Y[keep].T:
            res = solve(Xk, yk, n_trim, intercept_scaling=c, center=center, tol=float(self.tol),
                        max_iter=int(self.max_iter))
            margins = _Design(Xk, yk, c, center).matvec(res.coef)
            mask = keep.copy()
            if not res.collapsed and n_trim < margins.size:
                inside = np.zeros(margins.size, dtype=bool)
                inside[np.argpartition(margins, n_trim - 1)[:n_trim]] = True
                mask[keep] = inside
            masks.append(mask)
            scores.append(yk * margins)
            results.append(res)
        warn_if_not_converged(self, np.array([r.converged for r in results]), self.max_iter)
        collapsed = [k for k, r in enumerate(results) if r.collapsed]
        if collapsed:
            warnings.warn(f"RoLR collapsed to beta = 0 in {len(collapsed)} of {len(results)} "
                          f"binary problem(s): the trimmed correlation of the {n_trim} smallest "
                          "terms is non-positive in every direction (too many outliers kept, or "
                          "n_outliers too small); the model predicts a constant there.",
                          UserWarning, stacklevel=3)
        coef = np.array([r.coef[:p] for r in results])
        intercept = np.zeros(len(results))
        if c is not None:
            intercept = np.array([r.coef[-1] * c for r in results])
        if center is not None:
            intercept = intercept - coef @ center
        # one slope shared by all one-vs-rest columns keeps argmax(proba) = argmax(decision)
        self.scale_ = np.full(len(results), _fit_scale(np.concatenate(scores),
                                                        np.concatenate(list(Y[keep].T))))
        self.inlier_mask_ = masks[0] if len(masks) == 1 else np.array(masks)
        self.threshold_ = T
        self.n_outliers_ = n1
        self.objective_ = np.array([r.objective for r in results])
        self.dual_objective_ = np.array([r.dual_objective for r in results])
        self.n_iter_ = np.array([r.n_iter for r in results])
        return coef, intercept

    def predict_proba(self, X):
        """``sigmoid(scale_ * decision_function(X))`` per class (normalised for one-vs-rest).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        if scores.ndim == 1:
            positive = expit(self.scale_[0] * scores)
            return np.column_stack([1.0 - positive, positive])
        prob = expit(scores * self.scale_)
        total = prob.sum(axis=1, keepdims=True)
        return np.divide(prob, total, out=np.full_like(prob, 1.0 / prob.shape[1]),
                         where=total > 0)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def _fit_scale(z: np.ndarray, y: np.ndarray) -> float:
    """The slope ``s >= 0`` maximising the likelihood ``sum log sigmoid(s y_i z_i)``.

    ``z`` is the decision value ``<beta, x>`` of each row; the likelihood is concave in ``s`` so a
    bounded scalar search finds the maximum (capped where the rows are separable).
    """
    margins = y * z
    top = float(np.max(np.abs(margins))) if margins.size else 0.0
    if top == 0.0:
        return 0.0

    def loss(s: float) -> float:
        return float(np.logaddexp(0.0, -s * margins).sum())

    upper = 50.0 / top
    result = minimize_scalar(loss, bounds=(0.0, upper), method="bounded",
                             options={"xatol": 1e-8 * upper})
    return float(result.x)
