"""Chen, Zhu, Chen & Zhang (AAAI 2014), dropout training for SVMs: Figures 1-3.

* ``dropout-mnist-nightmare`` (Figure 3): MNIST, test error against the fraction of pixels
  deleted at random at test time. Every model is fitted once per grid point (q, c) on the training
  rows; the deletion level only changes which grid point is chosen. Two protocols: the paper's
  (q and c chosen per deletion level on a validation set carrying the same deletion) and the
  user's (chosen once on clean validation data).
* ``dropout-amazon-explicit`` (Figure 2) and ``dropout-amazon-q`` (Figure 1): see
  :mod:`robustclf.experiments._chen_amazon`.

The paper prints figures only for these three experiments (its one table is CIFAR-10, which we do
not have), so ``CurveResult.paper`` is None and the claims are quoted in each introduction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from ..corruption import RandomDeletion
from ..datasets import load_mnist
from ._base import CurveResult, Experiment, ExperimentResult, register_experiment
from ._chen_amazon import run_amazon_explicit, run_amazon_q
from ._chen_common import (
    COLUMNS,
    MARGINALISED,
    MAX_SEED,
    PAPER,
    UNCORRUPTED,
    errors,
    make_estimator,
    timed_fit,
)

__all__ = ["run_mnist_nightmare", "run_amazon_explicit", "run_amazon_q", "select_per_level"]

#: Training rows of the full mode (of 60,000): a faithful run of every grid point on all rows
#: does not fit in ~30 minutes on two cores (MCF-Logistic alone takes ~2 min per fit at 10k).
MNIST_FULL_TRAIN = 10_000
MNIST_VALIDATION = 1_000


def _grid(fast: bool) -> tuple[list[float], list[float]]:
    if fast:
        return [0.5], [0.1]
    return [0.1, 0.3, 0.5, 0.7, 0.9], [0.01, 0.1, 1.0]


def _fit_point(name, q, c, X, y, val_sets, test_sets):
    model, fit_seconds = timed_fit(make_estimator(name, q, c), X, y)
    val, _ = errors(model, val_sets)
    test, predict_seconds = errors(model, test_sets)
    return name, q, c, fit_seconds, predict_seconds / len(test_sets), val, test


def select_per_level(points: pd.DataFrame, levels, *, per_level: bool) -> pd.DataFrame:
    """Choose one grid point per estimator and level from validation errors.

    Parameters
    ----------
    points : pandas.DataFrame
        One row per (estimator, q, C) with array columns ``val`` and ``test`` (errors at each
        level) and ``fit_seconds``, ``predict_seconds``.
    levels : sequence of float
        The deletion levels, in the order of the arrays.
    per_level : bool
        True: the paper's protocol, the grid point with the lowest validation error at each
        level (validation carries the same deletion). False: the point with the lowest error on
        clean validation data (``levels[0]`` must be 0), used at every level.

    Returns
    -------
    pandas.DataFrame
        Tidy rows (estimator, level, error, q, C, ...); ties go to the first grid point.
    """
    rows = []
    for name, part in points.groupby("estimator", sort=False):
        val = np.stack(part["val"].to_numpy())  # (points, levels)
        test = np.stack(part["test"].to_numpy())
        clean = np.full(len(levels), val[:, 0].argmin())
        chosen = val.argmin(axis=0) if per_level else clean
        for j, level in enumerate(levels):
            row = part.iloc[chosen[j]]
            rows.append((name, "RandomDeletion", "fraction", level, 0, float(test[chosen[j], j]),
                         row["fit_seconds"], row["predict_seconds"], row["q"], row["C"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def run_mnist_nightmare(*, fast: bool = False, random_state: int = 0, n_jobs=None,
                        data_dir=None) -> ExperimentResult:
    """Nightmare at test time on MNIST (Figure 3), both selection protocols, both objectives."""
    X_all, X_test, y_all, y_test = load_mnist(data_dir=data_dir, scale=True, return_X_y=True)
    rng = np.random.default_rng(random_state)
    n_train, n_val, n_test = (600, 300, 500) if fast else (MNIST_FULL_TRAIN, MNIST_VALIDATION,
                                                          X_test.shape[0])
    order = rng.permutation(X_all.shape[0])
    train, val = order[:n_train], order[n_train:n_train + n_val]
    test = np.sort(rng.permutation(X_test.shape[0])[:n_test])
    X, y = X_all[train], y_all[train]
    levels = [0.0, 0.5] if fast else [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    seeds = rng.integers(0, MAX_SEED, size=(len(levels), 2))
    val_sets = [(RandomDeletion(fraction=f).corrupt(X_all[val], random_state=int(s[0])),
                 y_all[val]) for f, s in zip(levels, seeds, strict=True)]
    test_sets = [(RandomDeletion(fraction=f).corrupt(X_test[test], random_state=int(s[1])),
                  y_test[test]) for f, s in zip(levels, seeds, strict=True)]
    qs, cs = _grid(fast)
    tasks = [(name, 0.0, c) for name in UNCORRUPTED for c in cs]
    tasks += [(name, q, c) for name in MARGINALISED for q in qs for c in cs]
    out = Parallel(n_jobs=n_jobs)(delayed(_fit_point)(name, q, c, X, y, val_sets, test_sets)
                                  for name, q, c in tasks)
    points = pd.DataFrame(out, columns=["estimator", "q", "C", "fit_seconds", "predict_seconds",
                                        "val", "test"])
    grid = (f"q in {qs}, c in {cs} (LinearSVC C = c, LogisticRegression C = c / 2; the "
            f"unregularised bias is the paper's)")
    claim = ("Paper (Fig. 3): Dropout-SVM is the most robust of all, most clearly beyond 50 % "
             "deletion; it beats Hinge-L2 and FDROP from 10 % deletion on; Dropout-Logistic is "
             "slightly better than MCF-Logistic beyond 50 %.")
    curves = [
        CurveResult("mnist_nightmare_per_level", "MNIST, nightmare at test time: q and c chosen "
                    "per deletion level (paper's protocol)", "fraction of pixels deleted",
                    select_per_level(points, levels, per_level=True),
                    intro=("q and c chosen per level on the validation rows with the same "
                           f"deletion; grid {grid}. Columns q and C of the CSV give the "
                           "choices. " + claim)),
        CurveResult("mnist_nightmare_clean_selection", "MNIST, nightmare at test time: q and c "
                    "chosen once on clean validation data", "fraction of pixels deleted",
                    select_per_level(points, levels, per_level=False),
                    intro=("What a user who does not know the test-time deletion would do: the "
                           "grid point with the lowest clean validation error, used at every "
                           "level.")),
    ]
    preamble = (
        f"MNIST, pixels scaled to [0, 1]; {n_train} training rows drawn at random from the 60,000 "
        f"(the paper uses all of them), {n_val} validation rows from the remaining training "
        f"rows, {n_test} test rows. At each level a fraction of the 784 pixels of every "
        f"validation and test row is set to 0 (exactly round(f * 784) per row; one draw per "
        f"level, shared by all estimators). One-vs-all for the marginalised models. FDROP is "
        f"left out: its solver is too slow at d = 784, 10 classes.")
    return ExperimentResult("Dropout-SVM: nightmare at test time on MNIST (Chen et al. 2014, "
                            "Fig. 3)", preamble, curves)


register_experiment(Experiment(
    "dropout-mnist-nightmare", PAPER,
    "MNIST, random pixel deletion at test time: Dropout-SVM/Logistic vs MCF, LinearSVC, LR",
    run_mnist_nightmare))
register_experiment(Experiment(
    "dropout-amazon-explicit", PAPER,
    "Amazon books: LinearSVC on M explicit dropout copies vs Dropout-SVM (M -> infinity)",
    run_amazon_explicit))
register_experiment(Experiment(
    "dropout-amazon-q", PAPER,
    "Amazon books and kitchen: error vs dropout level q for Dropout-SVM/Logistic and MCF",
    run_amazon_q))
