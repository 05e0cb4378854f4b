"""RobustLogisticRegression: RoLR (Feng, Xu, Mannor & Yan, NIPS 2014, Algorithm 1)."""

from __future__ import annotations

import math
import warnings
from dataclasses import replace

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import expit
from sklearn.utils.validation import check_is_fitted

from .._blockwise import StatefulRowChunks, blockwise_method
from .._validation import (
    check_bool,
    check_fraction,
    check_max_iter,
    check_nonnegative,
    check_option,
    check_positive,
)
from . import _rolr_blockwise as blockwise
from ._base import (
    LinearClassifierBase,
    absent_as_zero,
    warn_if_not_converged,
)
from ._rolr_offset import _OFFSET_MAX_ITER, _OFFSET_TOL, OffsetFit, fit_offset, fit_offset_terms
from ._rolr_solvers import (
    SOLVERS,
    _Design,
    centred_row_norms,
    column_medians,
    fill_absent,
    has_absent,
    trimmed_weights,
    weighted_medians,
)

__all__ = ["RobustLogisticRegression", "fit_offset", "OffsetFit"]

_DEFAULT_FRACTION = 0.1
_AUTO_FACTOR = 3.0


class RobustLogisticRegression(LinearClassifierBase):
    """Robust logistic regression by trimmed correlation (RoLR, Feng et al. 2014).

    Of the ``N = n + n1`` training rows, up to ``n1`` may be arbitrary outliers (corrupted
    covariates, wrong labels). RoLR (Algorithm 1) first removes rows of implausible magnitude,
    ``||x_i|| >= T``, then estimates the direction of the logistic model by maximising the sum of
    the ``n`` smallest correlations (Eq. 2)::

        beta_hat = argmax_{||beta||_2 <= 1}  sum_{i=1}^{n} [y <beta, x>]_(i).

    Binary problems use ``y`` in {-1, +1}; more classes are handled one-vs-rest.

    Eq. (2) is solved on the rows ``z_i = (x_i - m) / S`` (``m = 0`` without ``fit_intercept``),
    where ``S`` (stored as ``x_scale_``) is the median norm of the centred rows kept by the
    preprocessing. Hence the fit is scale-equivariant: multiplying ``X`` by ``s > 0`` divides
    ``coef_`` by ``s`` and changes nothing else (``intercept_``, ``scale_``, ``objective_``,
    ``inlier_mask_``, predictions and probabilities), for every ``threshold`` except a fixed
    float or ``"paper"``, which are absolute. Dense and sparse ``X`` give the same model.

    With ``fit_intercept=True`` (the default) the fit has two stages (see ``fit_intercept``):
    Eq. (2) for the direction ``beta_hat`` of the median-centred, scaled rows, then a logistic
    fit of slope and offset on the one-dimensional projections ``t_i = <beta_hat, z_i>``.

    Parameters
    ----------
    n_outliers : int, default=None
        Upper bound ``n1`` on the number of outliers among the training rows. Give at most one of
        ``n_outliers`` and ``outlier_fraction``; with neither, ``outlier_fraction=0.1``. With row
        weights (``sample_weight`` or ``class_weight``) it is an amount of weight, a row of
        weight k counting as k rows (see Notes, *Row weights*); it must be less than the total
        weight.
    outlier_fraction : float in [0, 1), default=None
        ``n1 = ceil(outlier_fraction * N)``. With row weights ``N`` is the total weight ``W``:
        ``n1 = ceil(outlier_fraction * W)`` when every weight is an integer (the weights count
        copies, so this is the rule of the repeated rows), ``outlier_fraction * W`` otherwise
        (real weights, e.g. ``class_weight="balanced"`` or weights summing to 1, have no unit
        to round to; the fit is then unchanged when all weights are multiplied by a constant).
    threshold : {"auto", "paper"}, float > 0 or None, default="auto"
        Preprocessing threshold ``T``: rows whose centred norm ``||x_i - m||`` is ``>= T`` are
        removed before the fit.

        * ``"auto"`` (the default since issue 14; it was ``None``): ``T = 3 median_i ||x_i - m||``
          (the mean norm if the median is 0, e.g. more than half of the rows empty).
          The median is robust to fewer than half outlying rows and makes ``T`` scale-equivariant.
          The factor 3 is the paper's own threshold at its §6 setting, where
          ``4 sqrt(log p + log n) = 12.6`` for ``n = 1000``, ``p = 20`` and authentic rows have
          median norm ``sqrt(p) = 4.5`` (ratio 2.8): on §6's simulation it removes every
          outlier (norms near ``10 sqrt(p / 3) = 26``) and no authentic row, so RoLR does not
          collapse at lambda = 0.2 (without preprocessing it does); for Gaussian rows it
          removes almost no authentic row once ``p >= 3``.
        * ``"paper"``: Algorithm 1's ``T = 4 sqrt(log p / n + log n / n)``, stated for samples
          scaled by ``1 / sqrt(n)`` (Definition 1), applied on raw data as
          ``sqrt(n) T = 4 sqrt(log p + log n)`` (``n = N - n1``). It assumes standardised
          features and, being a bound on one projection rather than on the norm, removes
          authentic rows once ``p`` nears ``16 log(p n)``.
        * a float: ``T`` on the centred raw scale; ``None``: no preprocessing.

        A warning is raised when more than ``n1`` rows are removed (``n_outliers`` too small, or
        authentic rows removed).
    fit_intercept : bool, default=True
        Fit an intercept, in two stages (changed on 25 Nov 2026, see Notes):

        1. ``X`` (dense or sparse, the latter implicitly, without densifying) is centred at the
           coordinate-wise median ``m`` of the rows kept (robust to fewer than half outliers;
           the paper's model has zero-mean ``x``) and Eq. (2) is solved for the unit direction
           ``beta_hat`` of the rows ``z_i = (x_i - m) / S``, *without* a constant column;
        2. the labels of the kept rows are fitted by a logistic model on the projections
           ``t_i = <beta_hat, z_i>``: slope ``a >= 0`` and offset ``b`` minimise
           ``sum_i log(1 + exp(-y_i (a t_i + b)))`` (plus a ridge ``1e-6 N_kept (a^2 + b^2) / 2``
           that keeps them finite when the projections separate the classes), by Newton's
           method stopping on the gradient (``fit_offset``).

        Then ``coef_ = a beta_hat / S`` and ``intercept_ = b - coef_ @ m``, so that
        ``decision_function(x) = a t(x) + b`` is the fitted log-odds and ``predict_proba`` its
        sigmoid (``scale_ = 1``). Scaling ``X`` by ``s`` leaves ``t``, ``a`` and ``b`` unchanged.
        ``False`` is the paper's estimator: no centring, ``coef_ * S`` is the unit ``beta_hat``.
    intercept_scaling : float, default="deprecated"
        Deprecated on 25 Nov 2026, has no effect (a ``DeprecationWarning`` is raised when it is
        given): the intercept is no longer a constant column inside the unit ball of Eq. (2).
        Remove the argument.
    solver : {"dual", "socp"}, default="dual"
        ``"dual"``: accelerated projected gradient on the dual ``min ||A^T t||`` over the capped
        simplex with a duality-gap stopping rule (dense or sparse ``X``). ``"socp"``: Eq. (3)
        (with ``nu`` free, see Notes) through cvxpy + Clarabel (``pip install robustclf[conic]``).
    tol : float > 0, default=1e-6
        Relative duality gap at which the dual solver stops: the trimmed sum of ``coef_`` is
        certified within ``tol`` (relative) of the optimum of Eq. (2), and the cosine between
        the fitted and the optimal direction is at least ``1 - tol`` (in practice far closer:
        the trimmed sum is not smooth, so its gap is first order in the direction's error).
        The last decade of the gap is the slow part of the solve: on a 180,000 x 20,000 sparse
        text-like problem ``tol=1e-6`` takes 4,600 iterations and ``1e-7`` more than 10,000.
    max_iter : int, default=10000
        Iteration limit of the solver; reaching it raises a ``ConvergenceWarning`` with the
        relative duality gap reached.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, as in scikit-learn: ``{label: weight}``, or ``"balanced"`` for
        ``N / (n_classes * n_c)``; every row's weight is multiplied by its class's (see
        ``sample_weight`` in :meth:`fit` and Notes, *Row weights*). ``None``: all classes 1.
    nan_policy : {"absent", "raise"}, default="absent"
        ``"absent"``: NaN in ``X`` means that the feature is absent from that row and contributes
        nothing. At prediction time (as for every linear model of the library) its term
        ``coef_j x_j`` is dropped, i.e. it is read as 0; through a ``StandardScaler`` pipeline
        that is the training mean. At fit time it contributes nothing *to Eq. (2)*: RoLR solves
        Eq. (2) on the centred rows ``z_i = (x_i - m) / S``, and an absent entry gets
        ``z_ij = 0`` (no term in the row's correlation ``y <beta, z>`` and in its norm), i.e.
        it is put at the centre ``m_j``, which is the median of the *observed* entries of
        feature ``j``; without ``fit_intercept`` there is no centre and this is 0, the same as
        at prediction. See Notes, *Absent features at fit time*. ``"raise"``: NaN in ``X`` is
        an error at fit and prediction time.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        With ``fit_intercept=True``: ``a beta_hat / x_scale_``, the direction of Eq. (2) times
        the slope ``a >= 0`` of the logistic fit (so ``coef_ @ x + intercept_`` is the fitted
        log-odds; ``coef_ / ||coef_||`` is still RoLR's direction, in raw units). Zero for a
        collapsed problem, or where that slope is 0 (a warning is raised). With
        ``fit_intercept=False``: ``beta_hat / x_scale_`` (``coef_ / ||coef_||`` is the paper's
        unit ``beta_hat``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        ``b - coef_ @ m`` with ``fit_intercept=True``; 0 without, except for a collapsed
        problem, where it is the log-odds of its positive class among the kept rows (so the
        model predicts the majority class there).
    scale_ : ndarray of shape (1,) or (n_classes,)
        Slope ``s`` of ``predict_proba = sigmoid(s * decision_function)``. With
        ``fit_intercept=True`` it is 1 (the slope is in ``coef_``). With ``fit_intercept=False``
        it is a 1-D maximum-likelihood fit on the rows kept by preprocessing, one slope shared
        by all one-vs-rest columns (fitted on all of them at once), so that ``predict_proba``
        and ``predict`` agree: RoLR estimates the direction of ``beta*`` only (Eq. 2 is
        invariant to its scale).
    inlier_mask_ : ndarray of bool of shape (n_samples,) or (n_classes, n_samples)
        True for the rows RoLR keeps as inliers: rows that pass the preprocessing threshold and
        lie in the trimmed set at the optimum, i.e. the ``n`` rows with the smallest
        correlations ``y <beta_hat, x>`` that Eq. (2) sums (ties broken by row order). The
        ``n1`` rows of largest correlation are trimmed (False), as are the rows removed by the
        threshold. Outliers whose labels contradict the model have small correlations and stay
        in the trimmed set: RoLR bounds their influence instead of removing them. All kept rows
        are True for a collapsed problem. With row weights a row is True when any part of its
        weight is in the trimmed sum; rows of weight 0 are False. A dask array chunked like
        ``X`` (computed, kept by dask) when the model was fitted on a dask collection.
    threshold_ : float or None
        The threshold ``T`` applied on the centred raw scale.
    x_scale_ : float
        ``S``, the median centred norm of the kept rows (weighted median with row weights).
    n_outliers_ : int or float
        The resolved bound ``n1`` (a float for real-valued row weights, see
        ``outlier_fraction``).
    objective_, dual_objective_ : ndarray of shape (1,) or (n_classes,)
        Trimmed sum (Eq. 2) of the unit direction ``beta_hat`` on the scaled rows ``z_i`` and
        the dual upper bound; their difference is the duality gap.
    n_iter_ : ndarray of int of shape (1,) or (n_classes,)
    n_features_in_ : int

    Notes
    -----
    *Isotropic covariates are assumed.* Eq. (2) maximises a correlation, not a likelihood, and
    the paper's analysis (Lemma 4, hence Theorems 1-2) and its §6 take authentic rows with
    covariance ``sigma_x^2 I``: only then is ``E y <b, x>`` proportional to ``<b, beta*>``. For
    Gaussian rows with covariance ``Sigma``, Stein's lemma makes ``E y x`` proportional to
    ``Sigma beta*``, so RoLR estimates the direction of ``Sigma beta*``, not of ``beta*`` --
    without any outlier and with any number of rows (standardising the features does not
    help: it changes variances, not correlations). Measured (``robustclf reproduce
    rolr-correlated``: §6 with AR(1) covariates ``Sigma_jk = rho^|j - k|``, lambda = 0.5,
    ``n = 1000``, ``p = 20``, 10 draws), mean cosine to ``beta*`` with logistic labels at
    ``rho`` = 0 / 0.3 / 0.5 / 0.7 / 0.9: RoLR 0.944 / 0.879 / 0.782 / 0.631 / 0.428, close to
    the population limit ``cos(Sigma beta*, beta*)`` 1 / 0.924 / 0.803 / 0.639 / 0.417, against
    0.951 / 0.947 / 0.931 / 0.896 / 0.784 for logistic regression after a robust-covariance
    (MinCovDet) outlier filter; test error with sign labels 0.161 / 0.186 / 0.208 / 0.218 /
    0.212 against 0.161 / 0.151 / 0.148 / 0.143 / 0.148. Whiten correlated features before the
    fit -- e.g. by a robust scatter estimate (``sklearn.covariance.MinCovDet``), mapping
    ``coef_`` back: cosine 0.949 / 0.944 / 0.929 / 0.892 / 0.774 -- or fit a likelihood model
    after a robust outlier filter.

    *Eq. (3) as printed.* Eq. (3) is the exact dual of the relaxation the paper writes before
    it, ``min_t sum_i t_i y_i <beta, x_i>`` over ``{0 <= t_i <= 1, sum_i t_i <= n}``, and that
    relaxation is the slip: the convex hull of ``{t in {0, 1}^N, sum_i t_i = n}`` keeps the
    equality. With ``<= n``, ``t = 0`` is feasible, the inner minimum is
    ``sum_{i <= n} min([y <beta, x>]_(i), 0) <= 0`` for every ``beta``, the optimal value is 0
    and ``beta = 0`` is always a maximiser (the others, if any, satisfy
    ``y_i <beta, x_i> >= 0`` on every row, outliers included). The multiplier ``nu`` of the
    equality is free: Eq. (2) is Eq. (3) without ``nu >= 0``, which the ``"socp"`` solver
    solves (with the unit-ball constraint a second-order cone program, not a linear program).

    The trimmed set keeps the ``n`` *smallest* correlations, so outliers whose labels contradict
    the model stay in it: once the (kept) outliers outweigh the authentic rows' lower tail, the
    trimmed sum is negative in every direction and the maximiser is ``beta = 0``. The problem is
    declared *collapsed* only when the duality gap certifies it: a feasible dual point shows
    that the optimal trimmed sum is at most ``tol`` times its largest possible magnitude (the
    sum of the ``n`` largest row norms). A warning is then raised and that problem predicts its
    majority class (ties: ``classes_[0]``). A solve that stops at ``max_iter`` without either
    certificate keeps its best direction and raises a ``ConvergenceWarning``.

    The number of rows in the trimmed sum is ``n = min(N - n1, N_kept)``: Algorithm 1 assumes
    that preprocessing removes outliers only.

    *Why the intercept is not a coordinate of Eq. (2).* The paper's model has no intercept.
    Appending a constant column ``c`` to the rows and maximising the trimmed correlation over
    the unit ball of ``(beta, b)`` (this estimator until 25 Nov 2026) does not estimate a
    decision threshold: Eq. (2) maximises a sum of correlations ``y_i (<beta, z_i> + c b)``, so
    the constant's coefficient is driven by the class imbalance ``c sum_i y_i``, not by where
    the classes separate. When the trimmed sum covers every kept row (no outliers left) the
    optimum is ``(beta, b) ~ (sum_i y_i z_i, c sum_i y_i)`` and the decision value is
    ``sum_i y_i <z_i, z> + c^2 (n_+ - n_-)``: on standardised spambase (39 % spam) that model
    predicted the majority class almost everywhere (test error 0.382 with ``c = 1`` on rows of
    median norm 1, 0.146 with the weight of the raw rows, 0.109 without intercept). Eq. (2)
    now gives the direction only (robust to the outliers, as in the paper), and the offset is
    the maximum-likelihood offset of the logistic model along that direction, a two-parameter
    fit (Platt scaling on the robust direction). It is fitted on every row kept by the
    preprocessing, the rows the direction is estimated from; outliers that pass the threshold
    can bias it, but only through two parameters, and the slope is constrained to ``a >= 0`` so
    that the calibration cannot reverse RoLR's direction. Each one-vs-rest problem gets its own
    ``(a, b)``: the decision values are then log-odds on a common scale, and the shared
    ``scale_ = 1`` keeps ``argmax(predict_proba) = predict``. A collapsed problem has
    ``t = 0``, hence ``a = 0`` and ``b`` the (ridge-)log-odds of its positive class, so it
    predicts its majority class.

    *Dask collections.* ``fit`` accepts a dask array (dense or with scipy.sparse chunks) or
    DataFrame chunked along rows, with labels and weights as dask or in-memory vectors, and
    trains without loading it: the dual solver keeps its row weights (the dual iterates ``t``)
    and every other row-level value chunked with the data, and computes the preprocessing's
    medians, the trimmed sums and the projections exactly by passes over the chunks (about
    two per dual iteration; see ``_fit_ovr_blockwise``). The result is the in-memory fit of
    the same rows (same iterations; coefficients within 1e-13 relative measured at the
    defaults); ``inlier_mask_`` is then a dask array chunked like ``X``, and ``predict``,
    ``decision_function``, ``predict_proba`` and ``predict_log_proba`` of a dask array are
    lazy dask arrays. ``solver="socp"`` runs in memory only.

    *Row weights.* ``fit(X, y, sample_weight)`` (times ``class_weight``) follows scikit-learn's
    meaning: a row of integer weight k gives the same model as k copies of the row, weight 0 the
    same as removing it. Every step is the weighted form of the unweighted one, chosen so that
    this holds exactly:

    * the trimmed sum of Eq. (2) sums the smallest correlations up to the total weight
      ``n = W - n1`` (``W``: the total weight; a fraction of a row's copies may be trimmed):
      the capped simplex of the dual becomes ``{0 <= t_i <= w_i, sum t_i = n}``, and the dual
      solver runs the iteration of the repeated rows (the same iterates up to rounding and,
      when there are more features than rows, the Lanczos estimate of the step; see
      ``robustclf.linear._rolr_solvers``);
    * ``n_outliers`` and ``outlier_fraction`` count weight (see there);
    * the centre ``m`` (coordinate-wise median), the ``"auto"`` threshold (3 times the median
      row norm, or the mean) and the scale ``S`` are *weighted* medians and means -- the
      statistics of the repeated rows (for an even total weight the two middle values are
      averaged, as ``np.median`` does); the removed amount compared with ``n1`` is a weight,
      and ``"paper"`` uses ``n = W - n1``;
    * the offset fit weights each row's logistic loss (its ridge and stopping rule use ``W``
      for the number of rows), as does the slope ``scale_`` without ``fit_intercept``, and a
      collapsed problem's log-odds use the classes' total weights.

    Rows of weight 0 are removed before anything else. Without weights (or with all weights 1)
    the computation is the unweighted one, unchanged.

    *Absent features at fit time.* The library's linear models read NaN at prediction time as
    a raw 0 (``coef_j x_j`` dropped). Reading NaN as a raw 0 at fit time too would put an absent
    entry at ``-m_j / S`` in the centred rows that Eq. (2) correlates with the labels: every
    absent entry then adds ``-y_i m_j / S`` to the correlation, a component along the median
    ``m`` weighted by the class balance of the rows with absent entries, which the direction
    of Eq. (2) (no intercept) cannot absorb. Measured with NaN at random (MCAR) in training and
    test rows at the same rate, predictions with the absent terms dropped, mean test error
    over 2-3 seeds: digits (pixels / 16, 1,200 training rows) 0.152 (centred zero) vs 0.175
    (raw zero) at 10 % absent, 0.265 vs 0.520 at 30 %; spambase (raw) 0.320 vs 0.316 at 10 %,
    0.340 vs 0.394 at 30 %; through a ``StandardScaler`` pipeline, where the raw zero is the
    training mean and close to the median, both choices agree within 0.006 (spambase 0.095 vs
    0.100 at 10 %, 0.118 vs 0.120 at 30 %; a Gaussian simulation 0.301 vs 0.300). On raw
    Gaussian features of mean 3 (``p = 20``, logistic labels, 3 seeds) the two are also close
    (0.331 vs 0.328 at 10 %, 0.406 vs 0.410 at 30 %), the raw zero being far from the
    data there whichever way the model was fitted. Hence absence at fit time is the centred
    zero, which is RoLR's own meaning of "contributes nothing". At prediction time the fitted
    model stays the linear function ``X @ coef_.T + intercept_`` of every linear model of the
    library, with the absent terms dropped: the decision value of a row with absent feature
    ``j`` is its centred-zero value minus ``coef_j m_j``; standardise (pipeline) when that
    offset matters. The measurements: ``benchmarks/bench_rolr_absent.py``.

    References
    ----------
    .. [1] J. Feng, H. Xu, S. Mannor and S. Yan. Robust logistic regression and classification.
       NIPS 2014, Algorithm 1 and Eqs. (2)-(3).

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.datasets import make_contaminated_logistic
    >>> from robustclf.linear.rolr import RobustLogisticRegression
    >>> X, y, beta, _ = make_contaminated_logistic(500, 5, random_state=0)
    >>> clf = RobustLogisticRegression(n_outliers=0, fit_intercept=False).fit(X, y)
    >>> direction = clf.coef_.ravel() / np.linalg.norm(clf.coef_)
    >>> bool(direction @ beta > 0.9)
    True
    """

    _fit_reads_absent = True     # NaN at fit: zero in the centred space of Eq. (2)

    def __init__(self, *, n_outliers=None, outlier_fraction=None, threshold="auto",
                 fit_intercept=True, intercept_scaling="deprecated", solver="dual", tol=1e-6,
                 max_iter=10_000,
                 class_weight=None, nan_policy="absent"):
        self.n_outliers = n_outliers
        self.outlier_fraction = outlier_fraction
        self.threshold = threshold
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.nan_policy = nan_policy

    def _resolve_n_outliers(self, n_rows: int, weights: np.ndarray | None = None):
        """``n1``: a number of rows, or with ``weights`` an amount of weight (see Notes)."""
        if weights is None:
            return self._n_outliers(n_rows)
        return self._n_outliers(n_rows, float(weights.sum()),
                                bool(np.array_equal(weights, np.round(weights))))

    def _n_outliers(self, n_rows: int, total: float | None = None, integral: bool = True):
        """``n1`` from the number of rows, or with row weights from their ``total`` and whether
        they are all integers."""
        weights = total
        if self.n_outliers is not None and self.outlier_fraction is not None:
            raise ValueError("give at most one of n_outliers and outlier_fraction, got "
                             f"n_outliers={self.n_outliers!r}, "
                             f"outlier_fraction={self.outlier_fraction!r}.")
        total = n_rows if total is None else total
        if self.n_outliers is not None:
            n1 = check_nonnegative(self.n_outliers, "n_outliers", integer=True)
            if n1 >= total:
                if weights is None:
                    raise ValueError(f"n_outliers must be less than the number of samples "
                                     f"({n_rows}), got {n1}.")
                raise ValueError(f"n_outliers must be less than the total sample weight "
                                 f"({total:g}), got {n1}: with sample_weight (or class_weight) "
                                 "n_outliers is an amount of weight, a row of weight k counting "
                                 "as k rows.")
            return n1
        fraction = _DEFAULT_FRACTION if self.outlier_fraction is None else check_fraction(
            self.outlier_fraction, "outlier_fraction")
        if fraction >= 1.0:
            raise ValueError(f"outlier_fraction must be < 1, got {fraction}.")
        if weights is not None and not integral:
            return fraction * total             # real weights: that fraction of the weight
        return min(math.ceil(fraction * total - 1e-9), round(total) - 1)

    def _check_params(self) -> None:
        if not (isinstance(self.intercept_scaling, str)
                and self.intercept_scaling == "deprecated"):   # stacklevel: the caller of fit
            warnings.warn("intercept_scaling is deprecated since 25 Nov 2026 and has no effect: "
                          "the intercept is no longer a constant column inside the unit ball of "
                          "Eq. (2) but the offset of a logistic fit on the RoLR projections "
                          "(see fit_intercept). Remove the argument; it will be removed in a "
                          "future release.", DeprecationWarning, stacklevel=3)
        check_option(self.solver, "solver", tuple(SOLVERS))
        check_bool(self.fit_intercept, "fit_intercept")
        check_positive(self.tol, "tol")
        check_max_iter(self.max_iter)
        if isinstance(self.threshold, str):
            check_option(self.threshold, "threshold", ("auto", "paper"))
        elif self.threshold is not None:
            check_positive(self.threshold, "threshold")

    def _threshold(self, robust_scale, n_features: int, n_authentic: float) -> float | None:
        """The threshold ``T`` on the raw scale of the centred row norms (see ``threshold``);
        ``robust_scale()`` gives their :func:`_robust_scale` (called for ``"auto"`` only)."""
        if self.threshold is None:
            return None
        if self.threshold == "auto":
            return _AUTO_FACTOR * robust_scale()
        if self.threshold == "paper":
            return 4.0 * math.sqrt(math.log(n_features) + math.log(max(n_authentic, 1)))
        return float(self.threshold)

    def _check_removed(self, T: float, n_kept: int, removed, n1, weighted: bool,
                       stacklevel: int) -> None:
        """Error when the threshold removes every row, warning when it removes more than
        ``n1`` (``removed``: rows, or weight with row weights)."""
        if n_kept == 0:
            raise ValueError(f"threshold {T:g} removes every row (all ||x|| >= T); "
                             "standardise X or set a larger threshold.")
        if removed > n1:
            hint = (" (threshold='paper' assumes standardised features and p well below "
                    "16 log(p n))" if self.threshold == "paper" else "")
            what = f"rows of weight {removed:g}" if weighted else f"{removed} rows"
            warnings.warn(f"the preprocessing threshold T = {T:g} removed {what}, "
                          f"more than the n_outliers = {n1:g} bound: either n_outliers is "
                          f"too small or the threshold removes authentic rows{hint}.",
                          UserWarning, stacklevel=stacklevel + 1)

    def _preprocess(self, X, n1, weights=None):
        """Algorithm 1's preprocessing: centre, threshold, centre again, scale.

        With row ``weights`` the medians and the mean are weighted (a row of weight k counts
        as k rows) and the removed amount is a weight. Absent (NaN) entries are excluded from
        the medians and put at the centre, so that they are 0 in the centred rows (see
        ``nan_policy``). Returns the kept rows (absent entries at the final centre), their mask,
        the centre (or None), the scale ``S`` and the threshold.
        """
        N, p = X.shape
        total = N if weights is None else float(weights.sum())
        absent = has_absent(X)
        if absent and not self.fit_intercept:       # the centre is 0
            X, absent = absent_as_zero(X), False
        center = column_medians(X, weights) if self.fit_intercept else None
        Xk = fill_absent(X, center) if absent else X
        norms = centred_row_norms(Xk, center)
        T = self._threshold(lambda: _robust_scale(norms, weights), p, total - n1)
        keep = np.ones(N, dtype=bool)
        kept_weights = weights
        if T is not None:
            keep = norms < T
            removed = N - int(keep.sum()) if weights is None else float(weights[~keep].sum())
            self._check_removed(T, int(keep.sum()), removed, n1, weights is not None,
                                stacklevel=5)
            if not keep.all():
                kept_weights = None if weights is None else weights[keep]
                Xk = X[keep]
                if center is not None:
                    center = column_medians(Xk, kept_weights)
                if absent:
                    Xk = fill_absent(Xk, center)
                norms = centred_row_norms(Xk, center)
        return Xk, keep, center, _robust_scale(norms, kept_weights), T

    def _fit_ovr(self, X, Y, sample_weight=None):
        """Drop the rows of weight 0 (exactly as if removed), then :meth:`_fit_rows`."""
        present = None
        if sample_weight is not None and not sample_weight.all():
            present = sample_weight > 0
            X, Y, sample_weight = X[present], Y[present], sample_weight[present]
        coef, intercept = self._fit_rows(X, Y, sample_weight)
        if present is not None:                     # rows of weight 0 are not inliers
            mask = np.zeros(self.inlier_mask_.shape[:-1] + present.shape, dtype=bool)
            mask[..., present] = self.inlier_mask_
            self.inlier_mask_ = mask
        return coef, intercept

    def _fit_rows(self, X, Y, w):
        """Preprocess (Algorithm 1), solve Eq. (2) for each ±1 column of ``Y``, then calibrate.

        ``w``: positive row weights or None.
        """
        N, p = X.shape
        n1 = self._resolve_n_outliers(N, w)
        Xk, keep, center, S, T = self._preprocess(X, n1, w)
        wk = None if w is None else w[keep]
        if w is None:
            n_trim = min(N - n1, Xk.shape[0])
        else:
            n_trim = min(float(w.sum()) - n1, float(wk.sum()))
        solve = SOLVERS[self.solver]
        directions, results, masks, projections = [], [], [], []
        for yk in Y[keep].T:
            res = solve(Xk, yk, n_trim, intercept_scaling=None, center=center, scale=S,
                        tol=float(self.tol), max_iter=int(self.max_iter), sample_weight=wk)
            beta = np.zeros(p) if res.collapsed else res.coef
            t = _Design(Xk, np.ones(Xk.shape[0]), None, center, S).matvec(beta)
            mask = keep.copy()
            if not res.collapsed:
                mask[keep] = _trimmed_set(yk * t, n_trim, wk)
            directions.append(beta)
            projections.append(t)
            masks.append(mask)
            results.append(res)
        self._warn_solver(results, n_trim)
        Yk = Y[keep]
        if self.fit_intercept:
            fits = [fit_offset(t, yk) if wk is None else fit_offset(t, yk, wk)
                    for t, yk in zip(projections, Yk.T, strict=True)]
            coef, intercept = self._calibrate(directions, fits, center, S)
            self.scale_ = np.ones(len(results))
        else:
            coef = np.array(directions) / S
            intercept = np.array([_majority_log_odds(yk, wk) if r.collapsed else 0.0
                                  for r, yk in zip(results, Yk.T, strict=True)])
            # one slope shared by all one-vs-rest columns keeps argmax(proba) = argmax(decision)
            scores = [np.full(yk.size, b) if r.collapsed else t
                      for r, b, yk, t in zip(results, intercept, Yk.T, projections,
                                                     strict=True)]
            self.scale_ = np.full(len(results), _fit_scale(
                np.concatenate(scores), np.concatenate(list(Yk.T)),
                None if wk is None else np.tile(wk, len(results))))
        self._store(results, masks[0] if len(masks) == 1 else np.array(masks), T, S, n1)
        return coef, intercept

    def _store(self, results, inlier_mask, T, S, n1) -> None:
        """The fitted attributes shared by the in-memory and the blockwise fit."""
        self.inlier_mask_ = inlier_mask
        self.threshold_ = T
        self.x_scale_ = S
        self.n_outliers_ = n1
        self.objective_ = np.array([r.objective for r in results])
        self.dual_objective_ = np.array([r.dual_objective for r in results])
        self.n_iter_ = np.array([r.n_iter for r in results])

    def _fit_ovr_blockwise(self, data, reader):
        """Fit on the row chunks of a dask collection: the in-memory fit, pass by pass.

        Every step of :meth:`_fit_rows` runs on the chunks where they are (see
        :mod:`robustclf.linear._rolr_blockwise`): row-level values (norms, dual
        iterates, projections, the inlier mask) stay in per-chunk states and only
        ``n_features``-sized vectors, scalars and small summaries reach the client. Medians and
        the other order statistics are exact, so the fit is the in-memory one up to the
        rounding of sums taken in another order.

        Passes over ``X`` (the other passes read the labels or the small states only):

        * one for the row weights, if any (labels and weights only);
        * the column medians: one pass when every chunk can send its values (at most
          ``2^20 / (2 n_features n_chunks)`` per column and chunk), about three otherwise;
        * one for the centred row norms; if the threshold removes rows, the medians of the
          kept rows and their norms again;
        * one for the step size (``n_features <= MAX_GRAM_FEATURES``; beyond, one per Lanczos
          product);
        * per binary problem: one to start, two per dual iteration (``A u`` with the trimmed
          sum and the projection shift, then ``A^T t``; one more after a backtracking step),
          one less in the last;
        * one for the projections on the fitted directions.

        E.g. 2 x (iterations) + 6 for an unweighted binary fit whose threshold removes rows,
        with chunks small enough to send their column values. The order statistics of the
        states (the median row norm, the bound of the collapse test, the trimmed set and,
        rarely, the trimmed sum or the projection shift whose starting guess failed) and the
        Newton steps of the offset fit cost a pass over the states each.
        """
        if self.solver != "dual":
            raise ValueError(f"solver={self.solver!r} runs in memory only (the conic solver "
                             "needs the whole matrix); on a dask collection use solver='dual' "
                             "(the same optimum, to tol).")
        chunks = StatefulRowChunks(data)
        N, p = data.shape
        fit_b = bool(self.fit_intercept)
        spec = blockwise.BlockSpec(reader, weighted=False, fit_intercept=fit_b)
        total, integral = N, True
        if data.sample_weight is not None or reader.class_multipliers is not None:
            stats = blockwise.weight_statistics(chunks, reader)
            if stats["weighted"]:
                spec = replace(spec, weighted=True)
                N, total, integral = stats["n_rows"], stats["total"], stats["integral"]
        weighted = spec.weighted
        n1 = self._n_outliers(N, total if weighted else None, integral)

        # Algorithm 1's preprocessing: centre, threshold, centre again, scale
        center = blockwise.column_medians_blockwise(chunks, spec, p, False) if fit_b else None
        spec = replace(spec, center=center)
        blockwise.row_norms_blockwise(chunks, spec, "norm1")
        scales = {}

        def scale():
            if "norm1" not in scales:
                scales["norm1"] = blockwise.robust_scale_blockwise(chunks, "norm1")
            return scales["norm1"]

        T = self._threshold(scale, p, total - n1)
        key = "norm1"
        if T is not None:
            n_kept, n_removed, _, removed_w = blockwise.apply_threshold_blockwise(chunks, T)
            self._check_removed(T, int(n_kept), removed_w if weighted else int(n_removed), n1,
                                weighted, stacklevel=4)
            if n_removed:
                if fit_b:
                    center = blockwise.column_medians_blockwise(chunks, spec, p, True)
                    spec = replace(spec, center=center)
                blockwise.row_norms_blockwise(chunks, spec, "norm2")
                key = "norm2"
                scales[key] = blockwise.robust_scale_blockwise(chunks, key)
        S = scales[key] if key in scales else scale()
        spec = replace(spec, scale=S)
        n_kept, kept_total, positive = blockwise.kept_totals(chunks)
        n_trim = min(total - n1, kept_total) if weighted else min(N - n1, n_kept)

        # Eq. (2) for every binary problem, by the dual iteration on the chunks
        bound = -blockwise.select_blockwise(chunks, ("norm", key, S, True), n_trim).trimmed_sum
        lip = blockwise.lipschitz_blockwise(chunks, spec, p)
        n_columns = 1 if reader.classes.size == 2 else reader.classes.size
        results = [blockwise.solve_dual_blockwise(chunks, spec, k, n_trim, kept_total, p, bound,
                                                  lip, float(self.tol), int(self.max_iter))
                   for k in range(n_columns)]
        directions = [np.zeros(p) if r.collapsed else r.coef for r in results]
        blockwise.projections_blockwise(chunks, spec, directions)
        self._warn_solver(results, n_trim)
        if fit_b:
            fits = [fit_offset_terms(blockwise.offset_terms_blockwise(chunks, k), kept_total)
                    for k in range(n_columns)]
            coef, intercept = self._calibrate(directions, fits, center, S)
            self.scale_ = np.ones(n_columns)
        else:
            coef = np.array(directions) / S
            intercept = np.array([_log_odds(positive[k], kept_total) if r.collapsed else 0.0
                                  for k, r in enumerate(results)])
            constants = [b if r.collapsed else None
                         for b, r in zip(intercept, results, strict=True)]

            def loss(slope):
                return blockwise.scale_loss_blockwise(chunks, constants, slope)[0]

            top = blockwise.scale_loss_blockwise(chunks, constants, 0.0)[1]
            self.scale_ = np.full(n_columns, _fit_slope(loss, top))
        searches = [None if r.collapsed else
                    blockwise.select_blockwise(chunks, ("margin", k), n_trim)
                    for k, r in enumerate(results)]
        mask = blockwise.inlier_mask_blockwise(chunks, searches, n_trim)
        self._store(results, mask[0] if n_columns == 1 else mask, T, S, n1)
        return coef, intercept

    def _warn_solver(self, results, n_trim) -> None:
        """``ConvergenceWarning`` if a solve did not converge, ``UserWarning`` for collapses."""
        gaps = np.array([_relative_gap(r) for r in results])
        warn_if_not_converged(self, np.array([r.converged for r in results]), self.max_iter,
                              measure=gaps, measure_name="relative duality gap",
                              tol=float(self.tol))
        collapsed = [k for k, r in enumerate(results) if r.collapsed]
        if collapsed:
            terms = (f"{n_trim} smallest terms" if isinstance(n_trim, (int, np.integer))
                     else f"smallest terms up to the weight {n_trim:g}")
            warnings.warn(f"RoLR collapsed to beta = 0 in {len(collapsed)} of {len(results)} "
                          f"binary problem(s): the optimal trimmed correlation of the {terms} "
                          "is at most tol times its largest possible value "
                          "(certified by the duality gap): too many outliers kept, or "
                          "n_outliers too small. The model predicts the majority class there.",
                          UserWarning, stacklevel=5)

    def _calibrate(self, directions, offset_fits, center, S):
        """``coef = a beta_hat / S`` and ``intercept = b - coef @ center`` per problem, from the
        :class:`OffsetFit` of each (:func:`fit_offset` on ``t_i = <beta_hat, z_i>``), and the
        warnings of the offset fits.
        """
        p = directions[0].size
        coef, intercept, fits = np.zeros((len(directions), p)), np.zeros(len(directions)), []
        for k, (beta, fit) in enumerate(zip(directions, offset_fits, strict=True)):
            coef[k] = fit.slope * beta / S
            intercept[k] = fit.offset - coef[k] @ center
            fits.append((fit, bool(np.any(beta))))
        warn_if_not_converged(self, np.array([f.converged for f, _ in fits]), _OFFSET_MAX_ITER,
                              measure=np.array([f.gradient for f, _ in fits]),
                              measure_name="gradient norm of the offset fit (per row)",
                              tol=_OFFSET_TOL, reason="the logistic fit of the offset stopped")
        flat = sum(1 for f, directed in fits if directed and f.slope == 0.0)
        if flat:
            warnings.warn(f"in {flat} of {len(fits)} binary problem(s) the logistic fit of the "
                          "labels on the RoLR projections has slope 0 (the direction is not "
                          "positively associated with the labels of the kept rows): those "
                          "problems predict a constant, their majority class.",
                          UserWarning, stacklevel=5)
        return coef, intercept

    @blockwise_method("columns")
    def predict_proba(self, X):
        """``sigmoid(scale_ * decision_function(X))`` per class (normalised for one-vs-rest).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            A dask array or DataFrame gives a lazy dask array, computed chunk by chunk.

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

    @blockwise_method("columns")
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba` (lazy, chunk by chunk, on a dask array)."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))


def _fit_scale(z: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The slope ``s >= 0`` maximising the likelihood ``sum w_i log sigmoid(s y_i z_i)``.

    ``z`` is the decision value ``<beta, x>`` of each row; the likelihood is concave in ``s`` so a
    bounded scalar search finds the maximum (capped where the rows are separable). Without
    ``weights`` every ``w_i`` is 1.
    """
    margins = y * z
    top = float(np.max(np.abs(margins))) if margins.size else 0.0

    def loss(s: float) -> float:
        losses = np.logaddexp(0.0, -s * margins)
        return float(losses.sum() if weights is None else weights @ losses)

    return _fit_slope(loss, top)


def _fit_slope(loss, top: float) -> float:
    """:func:`_fit_scale` given the loss as a function of the slope (in memory, or summed over
    the row chunks of a dask fit) and the largest ``|y_i z_i|``."""
    if top == 0.0:
        return 0.0
    upper = 50.0 / top
    result = minimize_scalar(loss, bounds=(0.0, upper), method="bounded",
                             options={"xatol": 1e-8 * upper})
    return float(result.x)


def _robust_scale(norms: np.ndarray, weights: np.ndarray | None = None) -> float:
    """``S``: the median of the centred row norms (their mean if that is 0; 1 if all are 0).

    With ``weights`` the weighted median and mean (a row of weight k counts as k rows).
    """
    if weights is None:
        candidates = (np.median(norms), np.mean(norms))
    else:
        candidates = (weighted_medians(norms, weights), np.average(norms, weights=weights))
    for value in candidates:
        if value > 0 and np.isfinite(value):
            return float(value)
    return 1.0


def _trimmed_set(margins: np.ndarray, n, weights: np.ndarray | None = None) -> np.ndarray:
    """Mask of the ``n`` smallest ``margins`` (the rows inside the trimmed sum of Eq. 2).

    With ``weights``, ``n`` is a weight and a row is inside when any of its weight is in the
    weighted trimmed sum (the row where the weight ``n`` is reached is partly inside).
    """
    if weights is not None:
        return trimmed_weights(margins, n, weights) > 0
    inside = np.zeros(margins.size, dtype=bool)
    if n >= margins.size:
        inside[:] = True
    else:
        inside[np.argsort(margins, kind="stable")[:n]] = True
    return inside


def _majority_log_odds(y: np.ndarray, weights: np.ndarray | None = None) -> float:
    """``log((n_+ + 1/2) / (n_- + 1/2))``: the constant decision value of a collapsed problem.

    With ``weights``, ``n_+`` and ``n_-`` are the total weights of the two classes.
    """
    if weights is not None:
        return _log_odds(float(weights[y > 0].sum()), float(weights.sum()))
    return _log_odds(float(np.count_nonzero(y > 0)), float(y.size))


def _log_odds(positive: float, total: float) -> float:
    """:func:`_majority_log_odds` from the positive and the total weight (or count)."""
    return math.log((positive + 0.5) / (total - positive + 0.5))


def _relative_gap(res) -> float:
    """``(D - max(P, 0)) / D`` of a solver result (0 for a certified collapse)."""
    if res.collapsed or res.dual_objective <= 0:
        return 0.0
    return (res.dual_objective - max(res.objective, 0.0)) / res.dual_objective
