"""Chen et al. (2014) on the Amazon reviews: Figure 1 (error vs q) and Figure 2 (explicit copies).

Protocol (the paper trains on 2,000 reviews and tests on ~4,000; the shared data has the 2,000
labelled reviews of each domain only): stratified k-fold cross-validation as the outer loop; in each
outer training fold the hyper-parameters are chosen on a stratified 25 % validation split and the
chosen model is refitted on the whole outer training fold. Features: the 20,000 most frequent
words/bigrams (by document frequency over the domain's 2,000 reviews, as the paper's "20,000
dimensional bag-of-words"), raw counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import delayed
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.svm import LinearSVC

from ..datasets import load_amazon_reviews
from ..linear import ExplicitCorruptionClassifier
from ._base import CurveResult, ExperimentResult, active_cells
from ._chen_common import COLUMNS, MAX_SEED, errors, make_estimator, timed_fit

__all__ = ["run_amazon_explicit", "run_amazon_q", "load_amazon_top"]

N_FEATURES = 20_000
EXPLICIT = "LinearSVC on M dropout copies"


def load_amazon_top(domain: str, *, n_features: int, n_rows: int | None, data_dir=None,
                    random_state: int = 0):
    """One Amazon domain as sparse counts restricted to its ``n_features`` most frequent columns.

    With ``n_rows`` a stratified random subsample of the reviews is kept (fast mode).
    """
    X, y = load_amazon_reviews(domain, data_dir=data_dir, return_X_y=True)
    if n_rows is not None and n_rows < X.shape[0]:
        keep, _ = train_test_split(np.arange(X.shape[0]), train_size=n_rows, stratify=y,
                                   random_state=random_state)
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    cols = np.sort(np.argsort(-df, kind="stable")[:n_features])
    return X[:, cols].tocsr(), y


def _explicit(q: float, c: float, n_copies: int, seed: int):
    # C = c / M: the copies' hinge sum is M times the expected one, so c keeps its meaning.
    return ExplicitCorruptionClassifier(
        LinearSVC(loss="hinge", C=c / n_copies, max_iter=20_000, random_state=0), q=q,
        n_copies=n_copies, random_state=seed)


def _select_refit(make, grid, X, y, X_test, y_test, seed: int):
    """Choose the grid point on a 25 % validation split, refit on (X, y), test error."""
    inner, val = train_test_split(np.arange(X.shape[0]), test_size=0.25, stratify=y,
                                  random_state=seed)
    val_err = [errors(timed_fit(make(*p), X[inner], y[inner])[0], [(X[val], y[val])])[0][0]
               for p in grid]
    best = grid[int(np.argmin(val_err))]
    model, fit_seconds = timed_fit(make(*best), X, y)
    err, predict_seconds = errors(model, [(X_test, y_test)])
    return float(err[0]), fit_seconds, predict_seconds, best


def _folds(y, n_folds: int, random_state: int):
    return list(StratifiedKFold(n_folds, shuffle=True, random_state=random_state).split(
        np.zeros(len(y)), y))


def _settings(fast: bool):
    if fast:
        return dict(n_rows=300, n_features=2000, n_folds=2, qs=[0.5], cs=[0.1])
    return dict(n_rows=None, n_features=N_FEATURES, n_folds=5, qs=[0.1, 0.3, 0.5, 0.7, 0.9],
                cs=[0.01, 0.1, 1.0])


def _explicit_task(fold, train, test, X, y, method, n_copies, qs, cs, seed):
    if method == EXPLICIT:
        grid = [(q, c) for q in qs for c in cs]
        make = lambda q, c: _explicit(q, c, n_copies, seed)  # noqa: E731
    elif method == "LinearSVC (no corruption)":
        grid = [(0.0, c) for c in cs]
        make = lambda q, c: make_estimator("Hinge-L2 (LinearSVC)", q, c)  # noqa: E731
    else:
        grid = [(q, c) for q in qs for c in cs]
        make = lambda q, c: make_estimator(method, q, c)  # noqa: E731
    err, fit_s, pred_s, (q, c) = _select_refit(make, grid, X[train], y[train], X[test], y[test],
                                               seed)
    return method, n_copies, fold, err, fit_s, pred_s, q, c


def run_amazon_explicit(*, fast: bool = False, random_state: int = 0, n_jobs=None,
                        data_dir=None) -> ExperimentResult:
    """Figure 2: LinearSVC on M = 1, 2, 4, ..., 256 explicit dropout copies vs Dropout-SVM."""
    s = _settings(fast)
    X, y = load_amazon_top("books", n_features=s["n_features"], n_rows=s["n_rows"],
                           data_dir=data_dir, random_state=random_state)
    copies = [1, 2] if fast else [2 ** k for k in range(9)]
    folds = _folds(y, s["n_folds"], random_state)
    seeds = np.random.default_rng(random_state).integers(0, MAX_SEED, size=len(folds))
    tasks = [(EXPLICIT, m) for m in copies]
    tasks += [(name, 0) for name in ("Dropout-SVM (bound)", "Dropout-SVM (gaussian)",
                                     "LinearSVC (no corruption)")]
    out = active_cells().parallel(
        ((f"fold{k}-{method}-M{m}",
          delayed(_explicit_task)(k, tr, te, X, y, method, m, s["qs"], s["cs"], int(seeds[k])))
         for k, (tr, te) in enumerate(folds) for method, m in tasks), n_jobs=n_jobs)
    rows = []
    for method, m, fold, err, fit_s, pred_s, q, c in out:
        levels = [m] if method == EXPLICIT else copies  # M-free methods: a flat line
        rows += [(method, "dropout copies", "n_copies", lev, fold, err, fit_s, pred_s, q, c)
                 for lev in levels]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    intro = (f"{s['n_folds']}-fold stratified cross-validation; q in {s['qs']} and c in "
             f"{s['cs']} chosen per M (and per fold) on a 25 % validation split of the training "
             f"fold, then refitted (LinearSVC's C = c / M on the M copies, so that c means the "
             f"same as Dropout-SVM's). Dropout-SVM and the uncorrupted LinearSVC do not depend "
             f"on M and are drawn flat. fit_seconds is the refit of the chosen model. Paper "
             f"(Fig. 2): the error falls as M grows and the best is M -> infinity, Dropout-SVM.")
    curve = CurveResult("amazon_books_explicit_copies", "Amazon books: explicit dropout copies "
                        "vs marginalised (Dropout-SVM)", "number of corrupted copies M", frame,
                        intro=intro, spread="sem")
    preamble = (f"Amazon books reviews ({X.shape[0]} labelled reviews, {X.shape[1]} most "
                f"frequent features, raw counts). ± is the standard error over folds.")
    return ExperimentResult("Dropout-SVM vs explicit corruption on Amazon books (Chen et al. "
                            "2014, Fig. 2)", preamble, [curve])


def _q_task(fold, train, test, X, y, name, q, cs, seed):
    err, fit_s, pred_s, (_, c) = _select_refit(lambda q_, c_: make_estimator(name, q_, c_),
                                               [(q, c) for c in cs], X[train], y[train],
                                               X[test], y[test], seed)
    return name, q, fold, err, fit_s, pred_s, q, c


def run_amazon_q(*, fast: bool = False, random_state: int = 0, n_jobs=None,
                 data_dir=None) -> ExperimentResult:
    """Figure 1: error against the dropout level q on Amazon books and kitchen."""
    s = _settings(fast)
    levels = [0.5] if fast else [0.0, 0.1, 0.3, 0.5, 0.7, 0.9]
    names = ["Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
             "Dropout-Logistic (gaussian)", "MCF-Quadratic", "MCF-Logistic"]
    curves = []
    for domain in ("books", "kitchen"):
        X, y = load_amazon_top(domain, n_features=s["n_features"], n_rows=s["n_rows"],
                               data_dir=data_dir, random_state=random_state)
        folds = _folds(y, s["n_folds"], random_state)
        seeds = np.random.default_rng(random_state).integers(0, MAX_SEED, size=len(folds))
        out = active_cells().parallel(
            ((f"{domain}-fold{k}-{name}-q{q:g}",
              delayed(_q_task)(k, tr, te, X, y, name, q, s["cs"], int(seeds[k])))
             for k, (tr, te) in enumerate(folds) for name in names for q in levels),
            n_jobs=n_jobs)
        frame = pd.DataFrame([(n, "dropout", "q", lev, k, e, f, p, q, c)
                              for n, lev, k, e, f, p, q, c in out], columns=COLUMNS)
        curves.append(CurveResult(
            f"amazon_{domain}_error_vs_q", f"Amazon {domain}: error vs dropout level q",
            "dropout level q", frame, spread="sem",
            intro=(f"{s['n_folds']}-fold stratified cross-validation, c in {s['cs']} chosen "
                   f"per q on a 25 % validation split of each training fold, then refitted. At "
                   f"q = 0 the models are the plain SVM / logistic regression / ridge. Paper "
                   f"(Fig. 1): Dropout-SVM and Dropout-Logistic beat MCF-Quadratic except for "
                   f"q > 0.9 and are comparable to MCF-Logistic (a bit better on kitchen).")))
    preamble = (f"Amazon reviews, books and kitchen ({s['n_rows'] or 2000} labelled reviews "
                f"each, the {s['n_features']} most frequent features, raw counts). ± is the "
                f"standard error over folds.")
    return ExperimentResult("Error vs dropout level on Amazon reviews (Chen et al. 2014, "
                            "Fig. 1)", preamble, curves)
