"""Shared pieces of the Chen et al. (2014) experiments: the compared estimators and a timed fit."""

from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from ..linear import DropoutLogisticRegression, DropoutSVC, FDROPClassifier, MCFClassifier

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
    """
    if name == "Hinge-L2 (LinearSVC)":
        return LinearSVC(loss="hinge", C=c, max_iter=20_000, random_state=0)
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


UNCORRUPTED = ("Hinge-L2 (LinearSVC)", "LogisticRegression")
MARGINALISED = ("MCF-Quadratic", "MCF-Logistic", "Dropout-SVM (bound)", "Dropout-SVM (gaussian)",
                "Dropout-Logistic (bound)", "Dropout-Logistic (gaussian)")


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
