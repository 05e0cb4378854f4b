"""GeometricMarginSVC: max-margin classification of incomplete data (Chechik et al. 2007, §3)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .._blockwise import BlockwiseScoreMixin, blockwise_method
from .._convergence import warn_not_converged
from .._validation import (
    check_bool,
    check_fraction,
    check_generator,
    check_int,
    check_option,
    check_real,
    validate_data,
)
from ..linear._base import NAN_POLICIES
from . import _geometric_solver
from ._geometric_solver import decision_binary, fit_binary, pattern_scalings
from .kernels import masked_kernel, missingness_patterns

__all__ = ["GeometricMarginSVC"]


def _scale_gamma(X0: np.ndarray, weights: np.ndarray | None) -> float:
    """``gamma="scale"``: ``1 / (n_features var)`` of all zero-filled entries, rows weighted.

    Computed by blocks of rows (about 2^20 entries each), without an ``n x d`` temporary.
    """
    row_mean = X0.mean(axis=1)
    mean = row_mean.mean() if weights is None else weights @ row_mean / weights.sum()
    step = max(1, 2**20 // max(X0.shape[1], 1))
    row_var = np.concatenate([((X0[i:i + step] - mean) ** 2).mean(axis=1)
                              for i in range(0, X0.shape[0], step)])
    var = row_var.mean() if weights is None else weights @ row_var / weights.sum()
    return 1.0 / (X0.shape[1] * var) if var > 0 else 1.0


class GeometricMarginSVC(BlockwiseScoreMixin, ClassifierMixin, BaseEstimator):
    """SVM whose margin is measured in each instance's own subspace (Chechik et al. 2007).

    NaN in ``X`` means *absent* (structurally missing, not unobserved). The instance margin of
    §3 is ``y_i w^(i).x_i / ||w^(i)||``, with ``w^(i)`` the weights of ``i``'s valid features.
    Writing ``s_i = ||w^(i)|| / ||w||`` (Eq. 5), the non-separable problem is Eq. (6)::

        min 1/2 ||w||^2 + C sum_i xi_i   s.t.  (1/s_i) y_i (w.x_i + b) >= 1 - xi_i,
                                               s_i = ||w^(i)|| / ||w||.

    The iterative algorithm of §3 alternates (1) the SVM for fixed ``s`` — the dual Eq. (7), a
    standard SVM on the missing-aware kernel ``K_ij / (s_i s_j)``, solved by libsvm on a
    precomputed kernel (:class:`~sklearn.svm.SVC`; for the Eq. 6 bias an equivalent
    :class:`~sklearn.svm.SVR` with per-instance margins ``s_i``) — and (2) new scalings from the
    resulting ``w``, computed in kernel form once per missingness pattern
    (``robustclf.missing.kernels.restricted_sq_norms``). An instance is classified by
    Eq. (7), ``sign(sum_j y_j alpha_j K(x_j, x) / (s_j s_x))``, with ``s_x`` computed from its
    own valid features. Which ``w`` gives ``s_x`` the paper leaves open; here every row, new or
    training, is scored by iterate ``t`` with the scalings of the ``w`` of iterate ``t - 1`` --
    the scalings iterate ``t`` was solved with, so that its decision function on the training
    rows is the one its QP optimised -- and with ``s_x = 1`` by iterate 0. Hence iterate 0
    (``max_iter=0``) *is* the ordinary SVM on zero-filled data, decision values included, under
    both bias readings, and without missing values the estimator is that SVM; at a fixed point
    the two ``w`` give the same scalings. (Until 25 Nov 2026 ``s_x`` came from the iterate's own
    ``w``: iterate 0 then divided the SVM's scores by ``s_x(w_0)``, which under
    ``bias="unscaled"`` changed 0.5-2 % of the predictions of the zero-fill SVM.) Multi-class
    problems are one-vs-rest.

    A row with no valid feature that carries weight (all NaN, or ``w^(x) = 0``) has
    ``s_new = 0 / ||w||``; its scaling is taken as 1, as everywhere the ratio is undefined
    (``robustclf.missing._geometric_solver.scalings``). With the linear kernel such a row
    has ``K(x_j, x) = 0``, so its decision value is the intercept alone (both bias readings).
    With the polynomial kernel the constant monomial ``coef0 ** (degree / 2)`` is present in
    every row, so an all-NaN row is scored by that part of ``w`` plus the intercept.

    Parameters
    ----------
    C : float > 0, default=1.0
        Penalty of the slacks in Eq. (6).
    kernel : {"linear", "poly"} or callable, default="linear"
        Missing-aware kernel (``robustclf.missing.kernels``). A callable is called as
        ``kernel(X0, MX, Y0, MY)`` on zero-filled data and validity masks.
    degree : int >= 1, default=2
        Degree of the polynomial kernel ``(gamma <x, y>_F + coef0) ** degree``.
    gamma : float > 0 or "scale", default="scale"
        Polynomial ``gamma``; ``"scale"`` is ``1 / (n_features * var)`` of the zero-filled data.
    coef0 : float >= 0, default=1.0
        Polynomial ``coef0`` (the paper's ``+1``).
    max_iter : int >= 0, default=5
        Number of scaling updates (SVM solves minus one). The paper finds 2-5 best; reaching it
        without a fixed point is the normal outcome and does not warn (see *Convergence* below,
        ``converged_`` and ``fixed_point_residual_``).
    bias : {"scaled", "unscaled"}, default="scaled"
        ``"scaled"``: Eq. (6) as written, the bias inside the scaled constraint. ``"unscaled"``:
        the printed dual Eq. (7), the SVM intercept added after the scaling. See
        ``robustclf.missing._geometric_solver`` for how Eq. (6) is solved with libsvm
        (an epsilon-SVR with per-instance margins; exact, unpenalised bias).
    solver : {"libsvm", "clarabel"}, default="libsvm"
        Solver of the SVM for fixed scalings. ``"libsvm"``: scikit-learn's SVC (Eq. 7 reading,
        and every first iterate) or SVR (Eq. 6 reading) on the precomputed kernel; every later
        solve is warm-started from the previous iterate (fixed rows at their bounds, libsvm on
        the rows near the margin, KKT check on all rows; ``robustclf.missing._signed_qp``),
        with the same optimality conditions as a cold solve.
        ``"clarabel"``: the same dual QP solved by cvxpy with Clarabel (optional extra
        ``conic``; an interior-point reference, much slower for large ``n``).
        *Memory.* With ``"libsvm"`` and the linear kernel, beyond 2,048 training rows
        (``_geometric_solver.LINEAR_BLOCK``) no ``n x n`` kernel is formed: each SVM solve is
        a decomposition in ``w``-space (margins from ``X0 @ w``, libsvm on blocks of at most
        ``max(2048, 3 (n_features + 1))`` rows, capped at 4,096, libsvm's stopping rule with
        ``svm_tol`` on all rows), the scalings are computed from ``w`` itself, and prediction
        is ``X0 @ w``: memory ``O(n_samples n_features)``, not ``O(n_samples^2)`` (MNIST,
        60,000 rows: the kernel alone would take 29 GB). The result is that of the whole-kernel
        solve up to ``svm_tol``. The polynomial and callable kernels form the ``n x n``
        kernel once per fit; prediction computes the kernel against the support vectors only.
    early_stopping : bool, default=False
        Choose the number of scaling updates on validation data, as the paper chooses its
        stopping point, then refit: hold out ``validation_fraction`` of the training rows
        (stratified, drawn with ``random_state``), fit the estimator without early stopping on
        the rest (``max_iter`` updates), score every iterate on the held-out rows
        (``validation_errors_``, weighted by ``sample_weight``), take the iterate with the
        lowest error (the earliest on ties) as ``best_iteration_``, and fit again on *all* the
        training rows with ``max_iter=best_iteration_``. The number of updates is a
        hyper-parameter; the model is never one fitted on the reduced set:
        ``GeometricMarginSVC(early_stopping=True).fit(X, y)`` is the model of
        ``GeometricMarginSVC(max_iter=best_iteration_).fit(X, y)``. Cost: one extra fit on
        ``1 - validation_fraction`` of the rows (with ``max_iter`` updates) besides the final
        one (with ``best_iteration_`` updates).
    validation_fraction : float in (0, 1), default=0.2
    tol : float >= 0, default=1e-4
        Stop early at a fixed point: all scalings change by less than ``tol``.
    svm_tol : float > 0, default=1e-3
        KKT tolerance of libsvm in every SVM solve for fixed scalings (libsvm's ``tol``, also
        the tolerance of the warm start's KKT check on all rows). libsvm's solution is then
        *polished*: on its partition of the rows (at zero, at the bound, free) the QP is a
        linear system, solved in double precision, with active-set steps where a row changes
        side (``robustclf.missing._kkt_polish``); the polished point is kept only when its KKT
        residual is smaller. Measured on house votes and horse colic (linear kernel, C in
        {1, 10}, both bias readings, every iterate against Clarabel on the primal Eq. 6):
        libsvm alone at 1e-3 left the objective 3e-5 to 4e-3 above the optimum of its QP
        (1e-4 typical); polished, every iterate is within 3e-11 (KKT residual below 1e-12) at
        no measurable cost, and on 10-class digits within 1e-6. ``kkt_residual_`` reports the
        largest residual left; the warning threshold stays ``svm_tol`` (or libsvm's rounding
        floor, ``robustclf.missing._geometric_solver.kkt_floor``), for a solve the polish could
        not improve.
    min_scaling : float in [0, 1), default=0.2
        Floor of the scalings: every update sets ``s_i = max(||w^(i)|| / ||w||, min_scaling)``,
        for the training rows and, identically, for the rows scored at prediction; 0 is the
        paper's update. *Why.* Where most of a group's label rule lives in features that few
        other rows have, Eq. (6) hardly depends on the size of those weights (a row's margin
        in its own subspace does not), so the regulariser shrinks them at every iterate and the
        smallest scalings collapse, halving at every update. A row of scaling ``s_i`` enters
        the next SVM solve amplified ``1 / s_i`` times, so each solve is worse conditioned
        than the last: on four subtypes that share one landmark block and own the others, with
        their own rules (``benchmarks/bench_geometric_collapse.py``, 1,000 training rows,
        ``max_iter=5``, linear kernel), the smallest scaling reached 0.017 and a fit took 4-14 s
        at C = 1 and 86-130 s at C = 10, 67-600 times the zero-fill SVM (0.06-0.22 s).
        *What it does.* With the floor at 0.2 (a row's margin is amplified at most 5 times)
        the same fits take 0.8-5.8 s, 12-27 times the zero-fill SVM, i.e. 2-5 SVM fits per
        solve (0.1: 22-97 times; 0.05: 42-478 times). The collapse happened to help on that
        data: test errors 0.216-0.225 unguarded, 0.238-0.242 with the floor, 0.246-0.248 for
        the zero-fill SVM; on a second draw that collapses less (smallest scaling 0.11) the floor
        gave 0.240-0.244 against 0.246-0.248 unguarded. Where scalings stay above the floor
        nothing changes: the linear-kernel fits of the Chechik experiments' synthetic data
        (scalings >= 0.21) never reach it; on house votes it raises one training row of 304
        (test errors unchanged at C = 1 and 10); with the 2nd-order polynomial kernel at most
        3 % of the rows (breast cancer, 50 % MCAR) and 7 % (synthetic blocks, 60 % absent,
        C = 10). Where it binds without a collapse to hundredths it can cost accuracy: with
        a threshold of its own per subtype (``make_subtype_missing(subtype_threshold=1)``,
        400 rows) 0.225-0.230 against 0.214-0.221 unguarded (scalings 0.08-0.16), while with
        an own rule too (scalings below 0.001 unguarded) it gains, 0.247-0.251 against
        0.277-0.287. ``n_floored_`` says how many training rows the floor raised; with a
        binding floor a fixed point is one of the floored update.
    random_state : None, int or Generator, default=None
        Only used for the early-stopping split.
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means, at fit and at prediction. ``"absent"``: the feature is absent
        from that row, handled natively (margins in each row's own subspace, as above).
        ``"raise"``: NaN is an error (scikit-learn's "Input X contains NaN"), for data that
        should be complete.

    Notes
    -----
    **Convergence.** Eq. (6) with the constraint ``s_i = ||w^(i)|| / ||w||`` is not convex, and
    the alternation of §3 is not a descent method: the paper reports that the objective
    oscillates in about 75 % of its runs and chooses the stopping iterate (within 2-5 steps)
    on validation data. What can be certified is therefore (1) every iterate is the optimum of
    the convex QP Eq. (6)/(7) for its own fixed scalings, up to the KKT residual
    ``kkt_residual_`` (about 1e-12 after the polish, at most about ``svm_tol`` after a
    normal libsvm stop the polish could not improve), and (2) the
    returned iterate is a fixed point of the scaling update -- hence a local optimum of
    Eq. (3) -- up to ``fixed_point_residual_ = max_i |s_i(w) - s_i|``; ``converged_`` says
    whether that residual fell below ``tol`` for every one-vs-rest problem (``s_i(w)`` floored
    at ``min_scaling``: with a binding floor, a fixed point of the floored update). Reaching
    ``max_iter`` without a fixed point is the paper's protocol, not a failure: it is reported in
    these attributes but raises no warning (on house votes, linear kernel, the scalings still
    move by 0.1-0.2 after 30 updates; a warning there would fire on nearly every fit). A
    ``ConvergenceWarning`` is raised when the certified part fails: libsvm stops at its
    iteration cap (``max(1e7, 100 n)`` SMO iterations, upstream libsvm's) or an SVM solve's KKT
    residual exceeds ``svm_tol`` (or, for a ``svm_tol`` below about 1e-5, the rounding floor of
    libsvm's single-precision kernel cache, ``robustclf.missing._geometric_solver.kkt_floor``);
    with ``solver="clarabel"``, an ``optimal_inaccurate`` status.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    objective_history_ : ndarray of shape (n_iterations,) or (n_classes, n_iterations)
        For ``n_iterations = n_iter_``, the Eq. (6) objective
        ``1/2 ||w||^2 + C sum_i w_i xi_i`` (``w_i`` the sample weights, 1 by default) of every
        iterate, with ``s`` recomputed from that iterate's ``w`` (one row per one-vs-rest
        problem; padded after a fixed point).
    validation_errors_ : ndarray of shape (n_selection_iter,) or None
        With ``early_stopping``, the validation curve: the (weighted) error on the held-out
        rows of iterate ``t = 0, 1, ...`` of the fit on the other rows (at most
        ``max_iter + 1`` values, fewer if that fit reached a fixed point). None otherwise.
    best_iteration_ : int
        With ``early_stopping``, ``argmin(validation_errors_)``: the number of scaling updates
        chosen, used as ``max_iter`` of the final fit on all rows. Otherwise ``n_iter_ - 1``.
        The model predicts with the last iterate of its (final) fit.
    n_iter_ : int
        SVM solves of the final fit, i.e. iterates (the largest over one-vs-rest problems); at
        most ``max_iter + 1`` (``best_iteration_ + 1`` with early stopping), fewer when a
        fixed point is reached.
    converged_ : bool
        Whether every one-vs-rest problem reached a fixed point (``fixed_point_residual_``
        below ``tol``).
    fixed_point_residual_ : float or ndarray of shape (n_classes,)
        ``max_i |s_i(w) - s_i|`` of the returned iterate of each one-vs-rest problem: how far
        its scalings ``s`` are from those of its own ``w`` (Eq. 5); 0 at a fixed point.
    kkt_residual_ : float
        Largest KKT violation, in margin units, of all the SVM solves of the fit
        (``robustclf.missing._geometric_solver.kkt_residual``).
    n_floored_ : int or ndarray of shape (n_classes,)
        Training rows whose scaling the floor ``min_scaling`` raised in the last SVM solve of
        each one-vs-rest problem (0: the floor did not bind).
    iterates_ : list of list
        Every iterate of every one-vs-rest problem (``n_floored`` per solve), as
        ``robustclf.missing._geometric_solver.BinaryIterate`` records.
    gamma_ : float
    X_fit_, mask_fit_ : ndarray of shape (n_fit, n_features)
        Zero-filled training rows of positive weight (all of them, also with early stopping)
        and their masks.

    References
    ----------
    G. Chechik, G. Heitz, G. Elidan, P. Abbeel and D. Koller. Max-margin classification of
    incomplete data. NIPS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf import GeometricMarginSVC
    >>> from robustclf.datasets import make_structurally_missing
    >>> X, y = make_structurally_missing(100, random_state=0)
    >>> bool(np.isnan(X).any())
    True
    >>> clf = GeometricMarginSVC().fit(X, y)
    >>> clf.classes_
    array([-1,  1])
    >>> round(clf.score(X, y), 2)
    0.87
    """

    def __init__(self, *, C: float = 1.0, kernel: str | Callable = "linear", degree: int = 2,
                 gamma: float | str = "scale", coef0: float = 1.0, max_iter: int = 5,
                 bias: str = "scaled", solver: str = "libsvm", early_stopping: bool = False,
                 validation_fraction: float = 0.2, tol: float = 1e-4, svm_tol: float = 1e-3,
                 min_scaling: float = 0.2, random_state=None, nan_policy: str = "absent"):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.max_iter = max_iter
        self.bias = bias
        self.solver = solver
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.tol = tol
        self.svm_tol = svm_tol
        self.min_scaling = min_scaling
        self.random_state = random_state
        self.nan_policy = nan_policy

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.nan_policy == "absent"
        return tags

    def _finiteness(self):
        return "allow-nan" if self.nan_policy == "absent" else True

    def _check_params(self) -> None:
        if check_real(self.C, "C") <= 0:
            raise ValueError(f"C must be > 0, got {self.C}.")
        if not callable(self.kernel):
            check_option(self.kernel, "kernel", ("linear", "poly"))
        check_int(self.degree, "degree", minimum=1)
        if not (isinstance(self.gamma, str) and self.gamma == "scale"):
            if check_real(self.gamma, "gamma") <= 0:
                raise ValueError(f"gamma must be > 0 or 'scale', got {self.gamma}.")
        check_real(self.coef0, "coef0", minimum=0.0)
        check_int(self.max_iter, "max_iter", minimum=0)
        check_option(self.bias, "bias", ("scaled", "unscaled"))
        check_option(self.solver, "solver", ("libsvm", "clarabel"))
        check_bool(self.early_stopping, "early_stopping")
        check_option(self.nan_policy, "nan_policy", NAN_POLICIES)
        frac = check_fraction(self.validation_fraction, "validation_fraction")
        if not 0.0 < frac < 1.0:
            raise ValueError(f"validation_fraction must be in (0, 1), got {frac}.")
        check_real(self.tol, "tol", minimum=0.0)
        if check_real(self.svm_tol, "svm_tol") <= 0:
            raise ValueError(f"svm_tol must be > 0, got {self.svm_tol}.")
        if not 0.0 <= check_real(self.min_scaling, "min_scaling") < 1.0:
            raise ValueError(f"min_scaling must be in [0, 1), got {self.min_scaling}.")

    def _kernel_params(self) -> dict:
        return dict(kernel=self.kernel, degree=self.degree, gamma=self.gamma_, coef0=self.coef0)

    def fit(self, X, y, sample_weight=None) -> GeometricMarginSVC:
        """Fit by the iterative algorithm of §3 (one-vs-rest for more than two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; never modified. NaN marks absent features (``nan_policy``).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights. Eq. (6) charges ``C sum_i w_i xi_i``: every SVM solve
            bounds row ``i``'s dual coefficient by ``C w_i`` (``C w_i / s_i`` in the Eq. 6
            reading), so an integer weight ``k`` acts as ``k`` copies of the row, as in
            scikit-learn's SVC; ``gamma="scale"`` uses the weighted variance. The scaling
            update does not involve the weights. Rows of weight zero are removed before the
            fit. With ``early_stopping`` the split is drawn among the rows of positive weight,
            the validation error is weighted, and the final fit uses every weighted row.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite=self._finiteness())
        check_classification_targets(y)
        weights = None
        if sample_weight is not None:
            weights = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                           ensure_non_negative=True)
            keep = weights > 0
            X, y, weights = X[keep], y[keep], weights[keep]
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y has only one class among the rows of positive weight "
                             f"({self.classes_!r}); need at least 2.")
        if self.early_stopping:
            errors = self._validation_curve(X, y, y_idx, weights)
            self.best_iteration_ = int(np.argmin(errors))
            self._fit_iterates(X, y_idx, weights, self.best_iteration_)
            self.validation_errors_ = errors
        else:
            self._fit_iterates(X, y_idx, weights, self.max_iter)
            self.best_iteration_ = self.n_iter_ - 1
            self.validation_errors_ = None
        self._report_convergence()
        return self

    def _validation_curve(self, X, y, y_idx, weights) -> np.ndarray:
        """Validation error of every iterate of a fit on the other rows (``early_stopping``).

        The rows of positive weight are split (stratified, seeded by ``random_state``); the
        estimator without early stopping is fitted on the larger part, exactly as
        ``GeometricMarginSVC(max_iter=max_iter, ...).fit`` on those rows would be, and every
        iterate is scored on the held-out part (error weighted by the sample weights).
        """
        seed = int(check_generator(self.random_state).integers(2**31 - 1))
        fit_idx, val_idx = train_test_split(np.arange(X.shape[0]),
                                            test_size=self.validation_fraction,
                                            random_state=seed, stratify=y_idx)
        selection = clone(self).set_params(early_stopping=False)
        selection.fit(X[fit_idx], y[fit_idx],
                      sample_weight=None if weights is None else weights[fit_idx])
        val_weights = None if weights is None else weights[val_idx]
        return np.array([np.average(selection._predict_at(X[val_idx], t) != y[val_idx],
                                    weights=val_weights) for t in range(selection.n_iter_)])

    def _fit_iterates(self, X, y_idx, weights, max_iter: int) -> None:
        """Run the §3 iteration with ``max_iter`` scaling updates on all the given rows."""
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        self.gamma_ = _scale_gamma(X0, weights) if isinstance(self.gamma, str) \
            else float(self.gamma)
        self.X_fit_, self.mask_fit_ = X0, M
        patterns, inverse = missingness_patterns(M)
        # the linear kernel beyond LINEAR_BLOCK rows is solved in w-space, K never formed
        in_w_space = (self.kernel == "linear" and self.solver == "libsvm"
                      and X0.shape[0] > _geometric_solver.LINEAR_BLOCK)
        K = None if in_w_space else masked_kernel(X0, M, X0, M, **self._kernel_params())
        problems = [1] if self.classes_.size == 2 else list(range(self.classes_.size))
        self.iterates_, converged = [], []
        for k in problems:
            y_pm = np.where(y_idx == k, 1.0, -1.0)
            its, conv = fit_binary(K, y_pm, X0, M, patterns, inverse, C=float(self.C),
                                   max_iter=max_iter, bias=self.bias, tol=float(self.tol),
                                   kernel_params=self._kernel_params(), solver=self.solver,
                                   svm_tol=float(self.svm_tol), sample_weight=weights,
                                   min_scaling=float(self.min_scaling))
            self.iterates_.append(its)
            converged.append(conv)
        n_its = max(len(its) for its in self.iterates_)
        self.n_iter_ = n_its
        self.converged_ = all(converged)
        history = np.array([[its[min(t, len(its) - 1)].objective for t in range(n_its)]
                            for its in self.iterates_])
        self.objective_history_ = history[0] if len(problems) == 1 else history
        floored = np.array([its[-1].n_floored for its in self.iterates_])
        self.n_floored_ = int(floored[0]) if floored.size == 1 else floored

    def _report_convergence(self) -> None:
        """Set the residual attributes; warn if an SVM solve was not certified optimal."""
        chosen = [its[min(self.best_iteration_, len(its) - 1)] for its in self.iterates_]
        residual = np.array([it.scaling_change for it in chosen])
        self.fixed_point_residual_ = residual[0] if residual.size == 1 else residual
        solves = [it for its in self.iterates_ for it in its]
        self.kkt_residual_ = max(it.kkt_residual for it in solves)
        capped = sum(it.libsvm_capped for it in solves)
        above = sum(it.kkt_residual > max(self.svm_tol, it.kkt_floor) for it in solves)
        if capped:
            reason = (f"libsvm stopped at its iteration cap in {capped} of {len(solves)} SVM "
                      "solves")
        elif above:
            reason = (f"{above} of {len(solves)} SVM solves for fixed scalings ended above "
                      "their KKT tolerance")
        else:
            return
        warn_not_converged(self, reason=reason, measure_name="KKT residual",
                           measure=self.kkt_residual_, tol=float(self.svm_tol),
                           advice="Scale the data, or lower C.")

    def _scores(self, X: np.ndarray, t: int) -> np.ndarray:
        """One column of Eq. (7) scores per one-vs-rest problem, using iterate ``t``.

        A row is scaled as a training row of its pattern was in iterate ``t``'s solve: by the
        restricted norms of the previous iterate's ``w`` (floored at ``min_scaling``), and by
        1 for iterate 0.
        """
        M = ~np.isnan(X)
        X0 = np.where(M, X, 0.0)
        patterns, inverse = missingness_patterns(M)
        chosen = [its[min(t, len(its) - 1)] for its in self.iterates_]
        if any(it.w is None for it in chosen):  # kernel against the support vectors only
            rows = np.unique(np.concatenate([it.support for it in chosen]))
            K = masked_kernel(X0, M, self.X_fit_[rows], self.mask_fit_[rows],
                              **self._kernel_params())
        cols = []
        for its, it in zip(self.iterates_, chosen, strict=True):
            j = min(t, len(its) - 1)
            previous = its[j - 1] if j > 0 else None
            _, s = pattern_scalings(previous, self.X_fit_, self.mask_fit_, patterns,
                                    self._kernel_params(), float(self.min_scaling))
            score = (X0 @ it.w if it.w is not None
                     else K[:, np.searchsorted(rows, it.support)] @ it.coef)
            cols.append(decision_binary(score, s[inverse], it))
        return np.column_stack(cols)

    def _predict_at(self, X: np.ndarray, t: int) -> np.ndarray:
        scores = self._scores(X, t)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    @blockwise_method("scores")
    def decision_function(self, X) -> np.ndarray:
        """Eq. (7) scores ``(w.x + b) / s_new`` (or ``w.x / s_new + b`` for ``bias="unscaled"``).

        Rows are scored independently, so a dask array or DataFrame ``X`` gives a lazy dask
        array computed chunk by chunk of rows (``robustclf._blockwise.blockwise_method``).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            One score per row for two classes (positive means ``classes_[1]``), else one per
            row and class.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=self._finiteness(),
                          reset=False)
        scores = self._scores(X, self.best_iteration_)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    @blockwise_method("labels")
    def predict(self, X) -> np.ndarray:
        """Class labels by Eq. (7) (argmax of the one-vs-rest scores for several classes).

        A dask array or DataFrame gives a lazy dask array, computed chunk by chunk of rows
        (``robustclf._blockwise.blockwise_method``), as ``decision_function``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=self._finiteness(),
                          reset=False)
        return self._predict_at(X, self.best_iteration_)

