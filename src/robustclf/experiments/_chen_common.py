"""Shared pieces of the Chen et al. (2014) experiments: the compared estimators and a timed fit."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from .._convergence import warn_not_converged
from .._validation import validate_data
from ..linear import DropoutLogisticRegression, DropoutSVC, FDROPClassifier, MCFClassifier
from ..missing._geometric_solver import _linear_step

PAPER = ("N. Chen, J. Zhu, J. Chen and B. Zhang. Dropout training for support vector machines. "
         "AAAI 2014.")
MAX_SEED = np.iinfo(np.int32).max
COLUMNS = ["estimator", "corruption", "level_name", "level", "repeat", "error", "fit_seconds",
           "predict_seconds", "q", "C"]


def make_estimator(name: str, q: float, c: float):
    """The estimator called ``name`` at dropout level ``q`` and the paper's scale ``c``.

    ``c`` is the paper's constant: ``||w||^2 + 2c sum hinge`` (LinearSVC's ``C = c``) and
    ``||w||^2 + c sum logloss`` (LogisticRegression's ``C = c / 2``); the marginalised models
    take ``C = c`` in their own documented convention. ``"FDROP"`` (Globerson & Roweis) has no
    dropout level: its ``q`` slot carries the number K of features its adversary deletes per
    training row, and ``1/2 ||w||^2 + C sum robust hinge`` takes ``C = c`` as LinearSVC does;
    it is fitted by the first-order solver (exact solvers are far too slow at MNIST's size).

    The two hinge-L2 baselines solve ``1/2 ||w||^2 + C sum hinge`` with ``C = c`` and differ
    only in the bias. ``"Hinge-L2 (SVC, free bias)"`` is the paper's: the bias is not
    regularised, one-vs-rest over libsvm's exact solver (:class:`FreeBiasLinearSVC`).
    ``"Hinge-L2 (LinearSVC)"`` is what a practitioner runs: liblinear, whose bias is an extra
    constant feature and is penalised like the weights. Its ``max_iter`` is 1,000,000: the old
    cap of 20,000 left it unconverged at ``c >= 1`` on MNIST (24,925 passes at ``c = 1`` on
    10,000 rows); a fit that still stops short warns.
    """
    if name == "Hinge-L2 (LinearSVC)":
        return LinearSVC(loss="hinge", C=c, max_iter=1_000_000, random_state=0)
    if name == "Hinge-L2 (SVC, free bias)":
        return FreeBiasLinearSVC(C=c)
    if name == "LogisticRegression":
        return LogisticRegression(C=c / 2, max_iter=2000)
    if name == "MCF-Quadratic":
        return MCFClassifier(loss="quadratic", q=q, C=c)
    if name == "MCF-Logistic":
        return MCFClassifier(loss="logistic", q=q, C=c, tol=1e-5)
    if name.startswith("Dropout-SVM"):
        return DropoutSVC(q=q, C=c, objective="gaussian" if "gaussian" in name else "bound")
    if name.startswith("Dropout-Logistic"):
        return DropoutLogisticRegression(q=q, C=c,
                                         objective="gaussian" if "gaussian" in name else "bound")
    if name == "FDROP":
        return FDROPClassifier(budget=q, C=c, solver="sgd", random_state=0)
    raise ValueError(f"unknown estimator {name!r}")


UNCORRUPTED = ("Hinge-L2 (SVC, free bias)", "Hinge-L2 (LinearSVC)", "LogisticRegression")
#: The hinge-L2 baselines every dropout model is compared with, pair by pair.
BASELINES = ("Hinge-L2 (SVC, free bias)", "Hinge-L2 (LinearSVC)")
MARGINALISED = ("MCF-Quadratic", "MCF-Logistic", "Dropout-SVM (bound)", "Dropout-SVM (gaussian)",
                "Dropout-Logistic (bound)", "Dropout-Logistic (gaussian)")


#: Up to this many training rows :class:`FreeBiasLinearSVC` hands libsvm the Gram matrix
#: (8 n^2 bytes: 0.8 GB at 10,000 rows); above it the problem is solved in ``w``-space.
GRAM_MAX_ROWS = 20_000


class FreeBiasLinearSVC(ClassifierMixin, BaseEstimator):
    """The hinge-L2 SVM with a free bias, one-vs-rest, solved exactly by libsvm.

    Each class ``k`` against the rest solves ``1/2 ||w||^2 + C sum max(0, 1 - y (w^T x + b))``
    with an unregularised ``b`` (Chen et al.'s "Hinge-L2"; ``LinearSVC`` penalises ``b``), by
    libsvm's SMO on the linear kernel. With at most :data:`GRAM_MAX_ROWS` training rows the
    kernel is the Gram matrix ``X X^T``, computed once by BLAS and shared by the classes (on
    10,000 MNIST rows a class fits 5-10 times faster than with ``SVC(kernel="linear")``,
    whose kernel cache holds a few rows only; same iterations, same optimum). With more rows
    (59,000 MNIST rows: a 28 GB Gram matrix, and hours per class for ``SVC(kernel="linear")``)
    the same dual is solved by the decomposition in ``w``-space of
    :func:`robustclf.missing._geometric_solver._linear_step` (the geometric-margin SVM's first
    iterate, scalings 1: libsvm on blocks of rows, margins from ``X @ w``, libsvm's stopping
    rule with ``tol`` on all rows; memory ``O(n d + block^2)``; 6-40 s per class on 59,000
    MNIST rows at C = 0.01-1). ``duality_gap_`` certifies both paths alike.

    Parameters
    ----------
    C : float > 0, default=1.0
        Weight of the hinge sum, as ``SVC``'s and ``LinearSVC``'s ``C``.
    tol : float > 0, default=1e-3
        libsvm's stopping tolerance on the KKT violation (``SVC``'s default).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (n_classes, n_features)
        ``w`` of each class against the rest (``sum_i alpha_i y_i x_i``).
    intercept_ : ndarray of shape (n_classes,)
    duality_gap_ : ndarray of shape (n_classes,)
        Relative duality gap ``(P - D) / P`` of each binary problem at the returned solution
        (``P`` the primal objective at ``(w, b)``, ``D`` libsvm's dual objective): a
        certificate of optimality independent of libsvm's own criterion.
    n_iter_ : ndarray of shape (n_classes,)
        libsvm's iterations per class (with more than :data:`GRAM_MAX_ROWS` rows: the
        decomposition's reduced solves).
    n_features_in_ : int
    """

    def __init__(self, *, C: float = 1.0, tol: float = 1e-3):
        self.C = C
        self.tol = tol

    def fit(self, X, y):
        """Fit one binary SVM per class (two classes: one problem, class 1 positive)."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        if not (np.isfinite(self.C) and self.C > 0):
            raise ValueError(f"C must be a finite number > 0, got {self.C!r}.")
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(f"y has 1 class ({self.classes_[0]!r}); at least two are needed.")
        gram = X @ X.T if X.shape[0] <= GRAM_MAX_ROWS else None
        positives = self.classes_[1:] if self.classes_.size == 2 else self.classes_
        coef, intercept, gaps, n_iter = [], [], [], []
        for k in positives:
            yk = np.where(y == k, 1.0, -1.0)
            if gram is not None:
                svc = SVC(kernel="precomputed", C=self.C, tol=self.tol).fit(gram, yk)
                dual, support = svc.dual_coef_.ravel(), svc.support_
                b, iters = float(svc.intercept_[0]), int(np.atleast_1d(svc.n_iter_)[0])
            else:
                support, dual, b, iters, capped = _linear_step(
                    X, yk, np.ones(yk.size), float(self.C), "unscaled", float(self.tol))
                if capped:
                    warn_not_converged("FreeBiasLinearSVC", reason=(
                        f"libsvm stopped at its iteration cap in a reduced solve of class {k!r}"))
            w = dual @ X[support]
            primal = 0.5 * w @ w + self.C * np.maximum(0.0, 1.0 - yk * (X @ w + b)).sum()
            dual_objective = np.abs(dual).sum() - 0.5 * w @ w
            coef.append(w)
            intercept.append(b)
            gaps.append((primal - dual_objective) / primal)
            n_iter.append(iters)
        self.coef_, self.intercept_ = np.array(coef), np.array(intercept)
        self.duality_gap_, self.n_iter_ = np.array(gaps), np.array(n_iter)
        return self

    def decision_function(self, X):
        """``X w_k + b_k`` per class (one column for two classes)."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if self.classes_.size == 2 else scores

    def predict(self, X):
        """The class of the largest score (two classes: class 1 where the score is > 0)."""
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[scores.argmax(axis=1)]


def timed_fit(estimator, X, y):
    """Fit a clone of ``estimator`` (convergence warnings silenced); return it and the seconds."""
    est = clone(estimator)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X, y)
    return est, time.perf_counter() - start


def errors(model, evals) -> tuple[np.ndarray, float]:
    """Error rates of ``model`` on each ``(X, y)`` of ``evals`` and the total predict seconds."""
    start = time.perf_counter()
    out = np.array([np.mean(model.predict(X) != y) for X, y in evals])
    return out, time.perf_counter() - start
