"""Dekel & Shamir's deletion-robust linear program (ICML 2008, §2, Eq. 4)."""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from .._validation import (
    check_bool,
    check_generator,
    check_int,
    check_max_iter,
    check_n_jobs,
    check_nonnegative,
    check_option,
    check_positive,
)
from ..feature_values import resolve_feature_values
from ._base import (
    LinearClassifierBase,
    warn_if_not_converged,
)
from ._deletion_lp_solvers import SOLVERS, SubgradientStream, choose_solver
from ._deletion_lp_ties import solve_breaking_ties
from ._stream import PartialFitMixin, signed_targets
from ._weights import positive_weight_rows

__all__ = ["DeletionRobustLP"]

_DEFAULT_MAX_ITER = {"cutting_plane": 100, "subgradient": 50}


class DeletionRobustLP(PartialFitMixin, LinearClassifierBase):
    """Linear classifier robust to an adversary deleting features of total value <= N.

    Solves Dekel & Shamir's LP (Eq. 4)::

        min_{w, b, xi, lambda, alpha}  (1 / (m gamma)) sum_i xi_i
        s.t.  P lambda_i - sum_j alpha_ij + y_i b >= -xi_i,
              y_i w_j x_ij - gamma v_j / P >= lambda_i v_j - alpha_ij,
              alpha, lambda, xi >= 0,  ||w||_inf <= C,

    with ``P = V([n]) - N``. Its optimal ``xi_i`` is the robust hinge loss: ``max(0, -theta_i)``
    with ``theta_i`` the value of the fractional knapsack Eq. (7), so the LP requires every
    example to keep margin ``gamma V(J) / P`` on every kept set J the adversary can leave
    (Eq. 3; exact for 0/1 values and integer N, an upper bound within C / gamma otherwise,
    Theorem 1). Deleted features are set to 0 at test time.

    **Row weights** (``fit``'s ``sample_weight`` times ``class_weight``): the objective becomes
    the weighted mean ``(1 / (S gamma)) sum_i s_i xi_i`` with ``S = sum_i s_i``, i.e. the
    slack cost of row i in Eq. (4) is ``s_i / (S gamma)``. An integer weight k gives the LP of k
    copies of the row (same optimum, same ``objective_``), a zero weight the LP without the
    row (such rows are removed before solving), and the certified bounds stay bounds on this
    weighted optimum. With ``chunk_size`` the chunks are drawn from the rows, each keeping its
    weight.

    Eq. (4)'s optimum need not be unique (a polyhedral objective over a box): a feature that
    is 0 in every training row is in no constraint, so any weight is optimal; it gets weight 0
    (HiGHS put such weights at -C, which then decided test rows where the feature is present).
    On separable data (every row keeps margin gamma against every deletion: optimum 0) all
    such weights are optimal, and which one a solver returned decided the model under deletion
    (THRESHOLD: 308-927 of 3,000 predictions on rows with half the features deleted differed
    between three certified optima); ``tie_break="min_l1"`` then returns the optimum of
    smallest ``||w||_1``, which depends far less on the solver (0-72 of 3,000 differ). Ties at a
    positive optimum remain (THRESHOLD split 1, budget 4, optimum 0.0072: 25-58 of those 3,000
    predictions differ): two optimal solutions can differ on test rows (digits, 150 rows,
    N = 8: 3-9 of 300 test predictions differ from HiGHS's interior-point optimum at equal
    objective).

    Parameters
    ----------
    budget : float, default=1.0
        The adversary's value budget N, ``0 <= N < V([n])``. The default, one feature of unit
        value, is the smallest threat that changes the model; set it to the threat you expect
        (with ``feature_values`` in the same units: a budget of 1 under ``"mutual_info"`` is
        not one feature). Measured at the defaults (two stratified 50/50 splits, at most 1,000
        training rows; ``benchmarks/bench_defaults_quality.py``), error clean / under the
        exact worst case of one deleted feature, against ``LinearSVC()``: breast cancer 0.033 /
        0.046 (0.038 / 0.118), spambase 0.090 / 0.174 (0.102 / 0.218), digits 0.065 / 0.182
        (0.039 / 0.298), votes 0.112 / 0.153 (0.048 / 0.446: one vote carries most of the
        signal, and protecting against its deletion costs 6 points of clean error). Budget 2
        costs more clean error (votes 0.143, digits 0.092); budget 4 predicts the majority
        class on votes.
    feature_values : {"uniform", "mutual_info"} or array-like of shape (n_features,), \
default="uniform"
        The values v_j. ``"mutual_info"`` is the paper's heuristic (§4), computed on the
        training data with the full (multi-class) label and normalised to sum to n_features;
        with row weights it is the weighted mutual information (the values of the data with
        every row repeated as often as its weight says;
        :func:`~robustclf.feature_values.mutual_info_values`).
    margin : float, default=1.0
        The margin gamma > 0.
    weight_bound : float, default=10.0
        The box radius C > 0 of ``||w||_inf <= C``. Only ``weight_bound / margin`` matters (the
        LP is invariant to scaling both); at a ratio of about 1 the unpenalised bias wins and the
        model predicts the majority class on typical [0, 1]-scaled data, from 10 on results are
        flat (``papers/NOTES.md``), hence the default ratio 10.
    fit_intercept : bool, default=True
        Fit the free bias b (not bounded, never deleted). If False, b = 0.
    solver : {"auto", "cutting_plane", "lp", "subgradient"}, default="auto"
        ``"auto"`` (``robustclf.linear._deletion_lp_solvers.choose_solver``) is
        ``"cutting_plane"`` for training data (or chunks, with ``chunk_size``) with at most 256
        features and 2,000,000 non-zeros; else ``"lp"`` when rows x features is at most
        200,000 (few rows, many features: 100-400 MNIST rows took 5-61 s per binary problem,
        where the subgradient method's 50 epochs ended at 1.1-4.4 times the optimum); else
        ``"subgradient"``. (Changed in issue 14's thirteenth session: such small wide problems
        went to ``"subgradient"``.) The exact LPs grow with both
        sizes and degrade sharply with the number of features: on a 10,000 x 2,000 CSR matrix of
        density 1 % (``feature_values="mutual_info"``) the cutting planes' first cut LP took 45
        s (HiGHS's interior point) and each re-solve after adding the violated cuts 70-185 s of
        dual simplex (2 rounds in 228 s, certified gap still 0.10), where the subgradient method
        takes 12 s for its 50 epochs and 22 MB (objective within 0.3 % of the cutting planes'
        best point). On separable data (common when n_features >= n_samples) the cut
        LP's value stays 0 round after round, so its bound never rises; after 2 such rounds
        the cutting planes re-solve by interior point without crossover (central solutions of
        the degenerate cut LPs) and promote stubborn examples to Eq. (4)'s own rows, which
        reaches the certified optimum on THRESHOLD (300 x 215, budgets 1-4, three draws) in
        0.0-0.3 s, and with 20 % training outliers (360 x 215) in 2-90 s, where vertex
        solutions had not converged after minutes (more than 25 on one benchmark cell); there
        the full LP takes 18-31 s (``benchmarks/bench_deletion_lp.py --only threshold``).
        Measured below the limits: 25 s at 2,000 x 200 and 81 s at 20,000 x 100
        (dense), spambase 2 s, digits (10 classes, 898 x 64) 2-4 s. (Changed in issue 17: the
        default was ``"cutting_plane"`` for any size.)

        ``"cutting_plane"`` solves Eq. (4) exactly with a small LP over (w, b, xi) and the
        most violated knapsack vertex per example as cuts, kept in one HiGHS model across rounds
        and warm started by 3 subgradient epochs, which end the solve when they reach the
        (certified) optimum 0 (spambase training fold, 4,140 x 57: 2 s against 355 s for
        ``"lp"`` in the same run). ``"lp"`` hands Eq. (4) with its O(mn)
        variables to HiGHS; it is about as fast as the cutting planes when n >> m (e.g. 50-100
        MNIST rows), where the cutting planes switch stubborn examples to Eq. (4)'s own rows.
        ``"subgradient"`` is a first-order method for data too large for an LP: projected
        stochastic subgradient descent with AdaGrad steps on the same objective, restarted every
        10 epochs from the stage's suffix average with the step halved (spambase fold of 4,140
        rows: within 1e-4 relative of the optimum after 40-50 epochs, about 2 s; the accuracy
        per epoch grows with the number of rows: 2e-4 at 2,000 rows, 7e-3 at 300, up to 2 % at
        100 — see ``solve_subgradient`` and docs/reproduction/dekel_shamir.md).
        Its certificate is the ergodic dual of its own subgradients, a valid but loose lower
        bound (O(1 / sqrt(epochs))): it stops when that gap is below ``tol``, which in practice
        it does not reach, so at its defaults it ends with a ``ConvergenceWarning`` giving the
        certified gap reached. Use it knowing that it is approximate.
    chunk_size : int or None, default=None
        If given, the paper's bagging variant: the rows are shuffled and split into chunks of
        about this size, Eq. (4) is solved on each, and the weight vectors and biases are
        averaged.
    tol : float, default=1e-8
        The certified relative optimality gap ``(F - bound) / max(F, 1e-3)`` at which the
        cutting planes (bound: the cut LP's value) and the subgradient method (bound: its
        ergodic dual) stop; the ``"lp"`` solver runs HiGHS to its own optimality tolerances.
        A fit that stops short of ``tol`` (``max_iter``, ``time_limit``, a non-optimal HiGHS
        status) raises a ``ConvergenceWarning`` naming the gap reached.
    max_iter : int or None, default=None
        Cutting-plane rounds (default 100) or subgradient epochs (default 50).
    time_limit : float or None, default=None
        Seconds allowed to each binary problem (and chunk) of the ``"lp"`` solver (passed to
        HiGHS) and of the cutting planes (their HiGHS solves included), and again to the
        ``tie_break`` that may follow (on its limit the solver's optimum is kept, with the
        warning). On the limit the best
        point found is returned with a ``ConvergenceWarning`` and its certified gap; when the
        ``"lp"`` solver's HiGHS stops before finding any point (the usual case), the model is
        the feasible ``w = 0, b = 0`` (constant), with the warning. None: no limit. HiGHS
        does not enforce a limit shorter than its own presolve (a few hundredths of a second
        on 30,000 rows): it then runs the interior point without a limit.
    n_jobs : int or None, default=None
        Parallel jobs (joblib) over classes (one-vs-rest) and chunks.
    random_state : None, int or Generator, default=None
        Shuffles the chunks and the subgradient's mini-batches (also those of the cutting
        planes' warm start). The optimal value does not depend on it, but the solution
        returned can when Eq. (4) has several optima at a positive optimum, or on separable
        data with ``tie_break=None`` (at ``budget=0`` on a stratified half of
        ``make_label_copies(1000, random_state=0)``, seeds 0-5 all reached objective 0 and one
        of them predicted 2 of the other 500 rows differently). Fix it for a reproducible
        model.
    class_weight : dict, "balanced" or None, default=None
        Weights of the classes, scikit-learn's meaning: the slack (robust hinge loss) of every
        row of class ``k`` is multiplied by ``class_weight[k]`` (in every one-vs-rest problem,
        as the row's own ``sample_weight`` is); ``"balanced"`` uses ``n_samples / (n_classes *
        n_k)``; None weights every class one. Combined with ``fit``'s ``sample_weight`` by
        multiplication.
    nan_policy : {"absent", "raise"}, default="absent"
        What NaN in ``X`` means. ``"absent"``: the feature is absent from that row and
        contributes nothing, ``w_j x_j = 0``, at fit and at prediction time (it is read as 0,
        the paper's deletion); behind a ``StandardScaler`` in a pipeline that is the training
        mean. ``"raise"``: NaN is rejected with scikit-learn's usual error.
    tie_break : {"min_l1", "centre"} or None, default="min_l1"
        Which optimum to return when the exact solvers (``"cutting_plane"``, ``"lp"``) certify
        the optimum 0 (separable training data), where every weight vector that keeps margin
        gamma against every deletion is optimal. ``"min_l1"``: the one of smallest
        ``||w||_1`` (a second LP, the robust 1-norm SVM; ``_deletion_lp_ties``), the same
        whichever solver and warm start found the optimum, up to a smaller face of ties
        (THRESHOLD, rows with half the features deleted: 0-72 of 3,000 predictions differ
        between the full LP and the cutting planes from two seeds, against 308-927 with
        ``None``). Its cost on THRESHOLD (300 x 215), whole fits: 0.2-3.6 s at budget 1
        (``None``: 0.0-2.1 s) and 12-17 s at budget 4 (``None``: 0.2-4.6 s); MNIST 4 vs 7
        (``"lp"``), 100 rows at budget 1: 2.7 s (1.2 s), 250 rows at budget 2: 19 s (4.9 s).
        It is a choice among equally optimal models, not a better model: the sparse
        smallest-l1 weights sit between the solvers' points under deletion beyond the
        budget (MNIST, 2,000 test rows with 75 % of the pixels deleted: 100 rows 0.167 against
        0.301 for the full LP's vertex and 0.126 for the cutting planes' central point; 250
        rows 0.183 against 0.194 and 0.135; clean within 1.4 points of both). Its
        objective is within 2e-7 of the optimum (the certificate's accuracy). ``"centre"``:
        the analytic centre of the optimal face (Eq. (4) with hard robust margins and no
        objective, HiGHS's interior point without crossover; ``_deletion_lp_ties``), dense
        weights that do not depend on the solver at all, for one full-LP solve (6 s on
        THRESHOLD, O(mn) memory). Neither wins everywhere: THRESHOLD split 0 trained at budget
        1, certified worst-case error at budgets 1 / 2 / 4 is 0 / 0 / 0.027 with ``"centre"``
        against 0 / 0.139 / 0.455 with ``"min_l1"``, but under random deletion of 25 / 50 / 75
        % of the features 0.069 / 0.318 / 0.455 against 0.069 / 0.267 / 0.427. ``None``: the
        solver's own optimal point. The subgradient method is never followed by it (no
        certified optimum), nor is a positive optimum (a thin optimal face that HiGHS did not
        solve in minutes; see the module). (Added in issue 14's fourteenth session.)

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    feature_values_ : ndarray of shape (n_features,)
        The resolved v_j.
    objective_ : ndarray of shape (n_problems,)
        Eq. (4)'s objective at the solution of each binary problem (per chunk averaged).
    lower_bound_ : ndarray of shape (n_problems,)
        The solver's certified lower bound on Eq. (4)'s optimum (per chunk averaged; ``nan``
        where the ``"lp"`` solver stopped early).
    gap_ : ndarray of shape (n_problems,)
        The certified relative gap ``(objective - lower bound) / max(objective, 1e-3)`` of each
        binary problem (largest over chunks); ``inf`` without a bound.
    n_iter_ : ndarray of shape (n_problems,)
        Solver iterations (HiGHS iterations, cutting-plane rounds or epochs, plus the
        tie-break's cutting-plane rounds when it ran), max over chunks; after
        :meth:`partial_fit`, the number of its calls (passes).
    solver_ : str
        The solver used (``"auto"`` resolved; ``"subgradient"`` after :meth:`partial_fit`).
    n_features_in_ : int

    References
    ----------
    O. Dekel and O. Shamir. Learning to classify with missing and corrupted features. ICML 2008.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from robustclf import DeletionRobustLP
    >>> X, y = make_classification(n_samples=100, n_features=5, random_state=0)
    >>> clf = DeletionRobustLP(budget=1).fit(X, y)
    >>> clf.coef_.shape
    (1, 5)
    >>> round(clf.score(X, y), 2)
    0.87
    """

    def __init__(self, budget=1.0, *, feature_values="uniform", margin=1.0, weight_bound=10.0,
                 fit_intercept=True, solver="auto", chunk_size=None, tol=1e-8,
                 max_iter=None, time_limit=None, n_jobs=None, random_state=None,
                 class_weight=None, nan_policy="absent", tie_break="min_l1"):
        self.budget = budget
        self.feature_values = feature_values
        self.margin = margin
        self.weight_bound = weight_bound
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.chunk_size = chunk_size
        self.tol = tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.class_weight = class_weight
        self.nan_policy = nan_policy
        self.tie_break = tie_break

    def _check_params(self) -> None:
        check_option(self.solver, "solver", ("auto", *SOLVERS))
        check_positive(self.margin, "margin")
        check_positive(self.weight_bound, "weight_bound")
        check_nonnegative(self.tol, "tol")
        check_bool(self.fit_intercept, "fit_intercept")
        if self.chunk_size is not None:
            check_int(self.chunk_size, "chunk_size", minimum=2)
        if self.max_iter is not None:
            check_max_iter(self.max_iter)
        if self.time_limit is not None:
            check_positive(self.time_limit, "time_limit")
        check_n_jobs(self.n_jobs)
        if self.tie_break is not None:
            check_option(self.tie_break, "tie_break", ("min_l1", "centre"))

    def _fit_ovr(self, X, Y, sample_weight=None):
        """Solve Eq. (4) for every one-vs-rest column of ``Y`` (and every chunk)."""
        X, Y, sample_weight = positive_weight_rows(X, Y, sample_weight)
        labels = np.argmax(Y, axis=1) if Y.shape[1] > 1 else Y[:, 0]
        values = resolve_feature_values(self.feature_values, X, labels,  # sparse stays sparse
                                        sample_weight)
        budget = self._checked_budget(values)
        self.feature_values_ = values
        self.__dict__.pop("_stream", None)  # fit forgets an earlier partial_fit stream
        rng = check_generator(self.random_state)
        m = X.shape[0]
        if self.chunk_size is None or self.chunk_size >= m:
            chunks = [np.arange(m)]
        else:
            chunks = np.array_split(rng.permutation(m), int(np.ceil(m / self.chunk_size)))
        solver = self.solver
        if solver == "auto":  # by the size of the problems solved (the largest chunk's)
            solver = choose_solver(X if len(chunks) == 1 else X[chunks[0]])
        self.solver_ = solver
        options = dict(margin=float(self.margin), weight_bound=float(self.weight_bound),
                       fit_intercept=bool(self.fit_intercept), tol=float(self.tol),
                       time_limit=None if self.time_limit is None else float(self.time_limit))
        if self.max_iter is not None:
            options["max_iter"] = int(self.max_iter)
        if solver != "subgradient":  # (its point is no certified optimum)
            options["tie_break"] = self.tie_break
        solve = SOLVERS[solver]
        tasks = [(k, idx) for k in range(Y.shape[1]) for idx in chunks]
        seeds = rng.integers(0, 2**31 - 1, size=len(tasks))  # drawn before dispatch
        results = Parallel(n_jobs=self.n_jobs)(
            delayed(solve_breaking_ties)(
                solve, X[idx], Y[idx, k], values, budget, random_state=int(seed),
                sample_weight=None if sample_weight is None else sample_weight[idx], **options)
            for (k, idx), seed in zip(tasks, seeds, strict=True))
        per = [results[i:i + len(chunks)] for i in range(0, len(results), len(chunks))]
        self.objective_ = np.array([np.mean([r.objective for r in rs]) for rs in per])
        self.n_iter_ = np.array([max(r.n_iter for r in rs) for rs in per])
        self.lower_bound_ = np.array([np.mean([r.lower_bound for r in rs]) for rs in per])
        self.gap_ = np.array([max(r.gap for r in rs) for rs in per])
        reasons = sorted({r.reason for rs in per for r in rs if r.reason is not None})
        warn_if_not_converged(
            self, [all(r.converged for r in rs) for rs in per],
            options.get("max_iter", _DEFAULT_MAX_ITER.get(solver, 0)),
            measure=self.gap_, measure_name="certified relative optimality gap",
            tol=float(self.tol), reason="; ".join(reasons) or None)
        coef = np.array([np.mean([r.coef for r in rs], axis=0) for rs in per])
        intercept = np.array([np.mean([r.intercept for r in rs]) for rs in per])
        return coef, intercept

    def _checked_budget(self, values):
        """``budget`` as a float, checked against the total feature value (P > 0)."""
        budget = check_nonnegative(self.budget, "budget")
        total = float(values.sum())
        if budget >= total:
            raise ValueError(
                f"budget must be less than the total feature value V([n]) = {total:g} of the "
                f"{values.shape[0]} feature(s) (P = V([n]) - N must be > 0), got {budget:g}.")
        return budget

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass of the first-order method over a batch of a stream, in the given row order.

        The steps of ``solver="subgradient"`` (projected stochastic subgradient descent on Eq.
        (4)'s objective, AdaGrad steps, mini-batches of 32 rows taken in the order given),
        continued from the state the previous calls left: the point, the AdaGrad sums and the
        averaged model (``coef_``, ``intercept_``). The first call after :meth:`fit` starts
        from the fitted model (the AdaGrad sums start anew); :meth:`fit` forgets the stream.
        Each call is an ordinary scikit-learn ``partial_fit``, so dask-ml's ``Incremental``
        trains the model on the blocks of a dask array, one block at a time.

        What differs from ``fit(solver="subgradient")``: the whole-set schedule of ``fit`` --
        restarts every 10 epochs from the stage's average with the step halved, the best
        point evaluated on all rows, the certified gap -- needs epochs of known length and
        every row at once, which a stream does not have. The stream keeps a constant base step,
        smaller than ``fit``'s first (0.1 against 0.3), and its model is the polynomial-decay
        average of its iterates (``robustclf.linear._deletion_lp_solvers.SubgradientStream``):
        after 50 passes over spambase it is within 3.3e-4 of the optimum
        (``fit``: 7e-5). Nothing depends on how the rows are cut
        into calls except where mini-batches end: calls of a multiple of 32 rows give bit for
        bit the model of one call on all of them. ``objective_``, ``lower_bound_`` and
        ``gap_`` describe a fit and are removed.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The batch (a sparse matrix is read as CSR, never densified). With
            ``nan_policy="absent"`` NaN marks a feature absent from a row (read as 0).
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; required on the first call (a batch may lack classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative row weights (times a dict ``class_weight``): a row's subgradient is
            multiplied by its weight (scikit-learn's SGD convention). None: all one.

        Returns
        -------
        self : object
            The updated estimator.

        Raises
        ------
        ValueError
            With ``solver="cutting_plane"`` or ``"lp"`` (exact solvers of the LP on the whole
            training set: use ``"auto"`` or ``"subgradient"``); on the first call without
            ``classes``; with ``feature_values="mutual_info"`` before a fit (the values are
            the adversary's prices, computed on the whole training set: compute them once with
            :func:`~robustclf.feature_values.mutual_info_values` on the data or a sample of it
            and pass the array -- values from the first batch would make the model depend on
            how the stream is cut); with ``class_weight="balanced"`` (class frequencies of the
            whole set).
        """
        self._check_params()
        if self.solver not in ("auto", "subgradient"):
            raise ValueError(
                f"partial_fit runs the first-order method; solver={self.solver!r} solves the LP "
                "on the whole training set with fit. Use solver='auto' or 'subgradient'.")
        X, y, classes, weights, first = self._stream_batch(X, y, classes, sample_weight)
        n_problems = 1 if classes.shape[0] == 2 else classes.shape[0]
        if first:
            values = resolve_feature_values(self.feature_values, X)
            budget = self._checked_budget(values)
            self.feature_values_ = values
            self.classes_ = classes
        else:
            budget = self._checked_budget(self.feature_values_)
        stream = self.__dict__.get("_stream")
        if stream is None:  # first call, or first after fit: start from the current model
            start = (np.zeros((n_problems, X.shape[1])), np.zeros(n_problems)) if first \
                else (self.coef_, self.intercept_)
            stream = self._stream = SubgradientStream(*start)
            self.n_iter_ = np.zeros(n_problems, dtype=int)
        stream.partial_pass(X, signed_targets(y, classes), self.feature_values_, budget,
                            float(self.margin), float(self.weight_bound),
                            bool(self.fit_intercept), weights)
        self.coef_ = stream.coef_avg.copy()
        self.intercept_ = stream.intercept_avg.copy()
        self.solver_ = "subgradient"
        self.n_iter_ = self.n_iter_ + 1
        for name in ("objective_", "lower_bound_", "gap_"):  # they describe a fit
            self.__dict__.pop(name, None)
        return self
