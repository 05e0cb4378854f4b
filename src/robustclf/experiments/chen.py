"""Chen, Zhu, Chen & Zhang (AAAI 2014), dropout training for SVMs: Figures 1-3.

* ``dropout-mnist-nightmare`` (Figure 3): MNIST, test error against the fraction of pixels
  deleted at random at test time. Every model is fitted once per grid point (q, c) on the training
  rows; the deletion level only changes which grid point is chosen. Two protocols: the paper's
  (q and c chosen per deletion level on a validation set carrying the same deletion) and the
  user's (chosen once on clean validation data). Two hinge-L2 baselines, which differ only in
  the bias: the paper's, with a free bias (libsvm), and scikit-learn's ``LinearSVC``, whose
  bias is penalised. Every dropout model is compared with each of them by paired differences
  over the deletion draws (:func:`paired_versus_baselines`).
* ``dropout-amazon-explicit`` (Figure 2) and ``dropout-amazon-q`` (Figure 1): see
  :mod:`robustclf.experiments._chen_amazon`.

The paper prints figures only for these three experiments (its one table is CIFAR-10, which we do
not have), so ``CurveResult.paper`` is None and the claims are quoted in each introduction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import delayed

from ..corruption import RandomDeletion
from ..datasets import load_mnist
from ..evaluation import paired_differences
from ._base import (
    CurveResult,
    Experiment,
    ExperimentResult,
    active_cells,
    register_experiment,
)
from ._chen_amazon import run_amazon_explicit, run_amazon_q
from ._chen_common import (
    BASELINES,
    COLUMNS,
    MARGINALISED,
    MAX_SEED,
    PAPER,
    UNCORRUPTED,
    errors,
    make_estimator,
    timed_fit,
)

__all__ = ["run_mnist_nightmare", "run_amazon_explicit", "run_amazon_q", "select_per_level",
           "paired_versus_baselines"]

#: Training rows of the full mode: all 60,000 but the validation rows (the paper trains on all
#: 60,000). Every grid point of 8 models is fitted (160 fits: about an hour on two idle cores),
#: plus 20 FDROP points (30-60 s each at 59,000 rows, loaded machine).
MNIST_VALIDATION = 1_000
MNIST_FULL_TRAIN = 60_000 - MNIST_VALIDATION
#: Independent deletion draws per level (of validation and test rows) in the full mode.
MNIST_REPEATS = 3


def _grid(fast: bool) -> tuple[list[float], list[float]]:
    if fast:
        return [0.5], [0.1]
    return [0.1, 0.3, 0.5, 0.7, 0.9], [0.001, 0.01, 0.1, 1.0, 10.0]


def _fdrop_budgets(fast: bool) -> list[float]:
    """FDROP's grid of K (pixels its adversary deletes per training row; an MNIST row has
    about 150 non-zero pixels). K rides in the ``q`` slot of a task and in the q column.

    At K = 50 the optimum of every one-vs-rest problem on MNIST is already the constant
    classifier (test error 0.90) and at K = 10 half of them are, so the grid reaches down to
    K = 1, where FDROP is close to the plain SVM."""
    return [10.0] if fast else [1.0, 3.0, 10.0, 30.0]


def _fit_point(name, q, c, X, y, val_sets, test_sets):
    model, fit_seconds = timed_fit(make_estimator(name, q, c), X, y)
    val, _ = errors(model, val_sets)
    test, predict_seconds = errors(model, test_sets)
    return name, q, c, fit_seconds, predict_seconds / len(test_sets), val, test


def select_per_level(points: pd.DataFrame, levels, *, per_level: bool,
                     repeats: int = 1) -> pd.DataFrame:
    """Choose one grid point per estimator, level and deletion draw from validation errors.

    Parameters
    ----------
    points : pandas.DataFrame
        One row per (estimator, q, C) with array columns ``val`` and ``test`` (errors at each
        level and draw, index ``level_index * repeats + draw``) and ``fit_seconds``,
        ``predict_seconds``.
    levels : sequence of float
        The deletion levels, in the order of the arrays.
    per_level : bool
        True: the paper's protocol, the grid point with the lowest validation error at each
        level and draw (validation carries the same deletion). False: the point with the lowest
        error on clean validation data (``levels[0]`` must be 0; averaged over the draws), used
        at every level.
    repeats : int, default=1
        Deletion draws per level.

    Returns
    -------
    pandas.DataFrame
        Tidy rows (estimator, level, repeat, error, q, C, ...); ties go to the first grid point.
    """
    rows = []
    for name, part in points.groupby("estimator", sort=False):
        val = np.stack(part["val"].to_numpy())  # (points, levels * repeats)
        test = np.stack(part["test"].to_numpy())
        clean = val[:, :repeats].mean(axis=1).argmin()
        chosen = val.argmin(axis=0) if per_level else np.full(val.shape[1], clean)
        for j in range(val.shape[1]):
            row = part.iloc[chosen[j]]
            rows.append((name, "RandomDeletion", "fraction", levels[j // repeats], j % repeats,
                         float(test[chosen[j], j]), row["fit_seconds"], row["predict_seconds"],
                         row["q"], row["C"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def paired_versus_baselines(frame: pd.DataFrame, *, baselines=BASELINES,
                            confidence: float = 0.95) -> pd.DataFrame:
    """Paired differences in test error of every dropout model against each baseline, per level.

    Parameters
    ----------
    frame : pandas.DataFrame
        A curve of :func:`select_per_level` (estimator, level, repeat, error, ...).
    baselines : sequence of str, default=BASELINES
        The reference estimators: the paper's free-bias hinge-L2 SVM and ``LinearSVC``.
    confidence : float in (0, 1), default=0.95
        Level of the Student-t interval.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`robustclf.evaluation.paired_differences` (``mean`` is the dropout
        model's error minus the baseline's, paired on the deletion draw: the same validation
        and test rows with the same pixels deleted; ``ci_low``, ``ci_high`` its interval), for
        every estimator whose name starts with ``"Dropout-"`` against every baseline present
        in ``frame``, baselines in the given order. A negative difference whose interval
        excludes 0 means the dropout model has the lower error. The interval covers the
        variation over deletion draws only; the test images are the same in every draw.
    """
    models = [n for n in dict.fromkeys(frame["estimator"]) if str(n).startswith("Dropout-")]
    parts = []
    for base in baselines:
        if base not in set(frame["estimator"]):
            continue
        sub = frame[frame["estimator"].isin([base, *models])]
        parts.append(paired_differences(sub, base, value="error", confidence=confidence))
    if not parts:
        raise ValueError(f"none of the baselines {list(baselines)} is in the frame; it has "
                         f"{list(dict.fromkeys(frame['estimator']))}.")
    return pd.concat(parts, ignore_index=True)


def _paired_curve(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-draw differences ``model - baseline`` as a tidy curve (estimator ``"A − B"``)."""
    keys = ["corruption", "level_name", "level", "repeat"]
    wide = frame.pivot_table(index=keys, columns="estimator", values="error")
    models = [n for n in dict.fromkeys(frame["estimator"]) if str(n).startswith("Dropout-")]
    parts = [(wide[m] - wide[b]).rename("error").reset_index().assign(estimator=f"{m} − {b}")
             for b in BASELINES if b in wide for m in models]
    return pd.concat(parts, ignore_index=True)[["estimator", *keys, "error"]]


def _interval_table(diffs: pd.DataFrame) -> str:
    """Markdown: one row per (model, baseline), one column per level, ``mean [low, high]``."""
    cell = diffs.assign(cell=[f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]" if n > 1 else f"{m:+.3f}"
                              for m, lo, hi, n in zip(diffs["mean"], diffs["ci_low"],
                                                      diffs["ci_high"], diffs["n_pairs"],
                                                      strict=True)],
                        pair=diffs["estimator"] + " − " + diffs["reference"])
    wide = cell.pivot_table(index="pair", columns="level", values="cell", aggfunc="first",
                            sort=False)
    head = "| model − baseline \\ level | " + " | ".join(f"{v:g}" for v in wide.columns) + " |"
    rule = "|---" * (len(wide.columns) + 1) + "|"
    rows = [f"| {pair} | " + " | ".join(row) + " |" for pair, row in wide.iterrows()]
    return "\n".join([head, rule, *rows])


def _mnist_setup(fast: bool, random_state: int, data_dir):
    """Training rows, deleted validation and test sets (level-major, then draw) and a summary."""
    X_all, X_test, y_all, y_test = load_mnist(data_dir=data_dir, scale=True, return_X_y=True)
    rng = np.random.default_rng(random_state)
    n_train, n_val, n_test = (600, 300, 500) if fast else (MNIST_FULL_TRAIN, MNIST_VALIDATION,
                                                          X_test.shape[0])
    repeats = 1 if fast else MNIST_REPEATS
    order = rng.permutation(X_all.shape[0])
    train, val = order[:n_train], order[n_train:n_train + n_val]
    test = np.sort(rng.permutation(X_test.shape[0])[:n_test])
    levels = [0.0, 0.5] if fast else [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    seeds = rng.integers(0, MAX_SEED, size=(len(levels) * repeats, 2))
    fractions = np.repeat(levels, repeats)
    delete = [RandomDeletion(fraction=f, fill=0.0) for f in fractions]   # the paper's zeros
    val_sets = [(d.corrupt(X_all[val], random_state=int(s[0])), y_all[val])
                for d, s in zip(delete, seeds, strict=True)]
    test_sets = [(d.corrupt(X_test[test], random_state=int(s[1])), y_test[test])
                 for d, s in zip(delete, seeds, strict=True)]
    sizes = (n_train, n_val, n_test, repeats)
    return X_all[train], y_all[train], val_sets, test_sets, levels, sizes


def _mnist_tasks(fast: bool) -> list[tuple[str, float, float]]:
    """Grid points ``(name, q, c)``; for ``"FDROP"`` the ``q`` slot is its budget K."""
    qs, cs = _grid(fast)
    tasks = [(name, 0.0, c) for name in UNCORRUPTED for c in cs]
    tasks += [(name, q, c) for name in MARGINALISED for q in qs for c in cs]
    return tasks + [("FDROP", k, c) for k in _fdrop_budgets(fast) for c in cs]


def _mnist_result(points: pd.DataFrame, levels, sizes, fast: bool) -> ExperimentResult:
    n_train, n_val, n_test, repeats = sizes
    qs, cs = _grid(fast)
    grid = (f"q in {qs}, c in {cs} (both hinge-L2 baselines C = c, LogisticRegression "
            f"C = c / 2; the unregularised bias of the dropout models and of the free-bias SVM "
            f"is the paper's, LinearSVC penalises its bias); FDROP: K in "
            f"{_fdrop_budgets(fast)} deleted pixels (reported in column q) and the same c "
            f"(C = c)")
    claim = ("Paper (Fig. 3): Dropout-SVM is the most robust of all, most clearly beyond 50 % "
             "deletion; it beats Hinge-L2 and FDROP from 10 % deletion on; Dropout-Logistic is "
             "slightly better than MCF-Logistic beyond 50 %.")
    per_level = select_per_level(points, levels, per_level=True, repeats=repeats)
    diffs = paired_versus_baselines(per_level)
    curves = [
        CurveResult("mnist_nightmare_per_level", "MNIST, nightmare at test time: q and c chosen "
                    "per deletion level (paper's protocol)", "fraction of pixels deleted",
                    per_level,
                    intro=("q and c chosen per level (and deletion draw) on the validation rows "
                           f"with the same deletion; grid {grid}. Columns q and C of the CSV "
                           "give the choices; for FDROP column q is its budget K, not a "
                           "dropout level. " + claim)),
        CurveResult("mnist_nightmare_clean_selection", "MNIST, nightmare at test time: q and c "
                    "chosen once on clean validation data", "fraction of pixels deleted",
                    select_per_level(points, levels, per_level=False, repeats=repeats),
                    intro=("What a user who does not know the test-time deletion would do: the "
                           "grid point with the lowest clean validation error, used at every "
                           "level.")),
        CurveResult("mnist_nightmare_paired_differences", "MNIST, nightmare at test time: "
                    "dropout model minus hinge-L2 baseline (paper's protocol)",
                    "fraction of pixels deleted", _paired_curve(per_level), spread="sem",
                    ylabel="paired difference in test error (dropout model − baseline)",
                    intro=("Test error of each dropout model minus that of each hinge-L2 "
                           "baseline, both chosen per level and draw as above, paired on the "
                           "deletion draw (the same rows, the same pixels deleted); below 0 the "
                           "dropout model is better. 'Hinge-L2 (SVC, free bias)' is the "
                           "paper's baseline (libsvm, unregularised bias); 'Hinge-L2 "
                           "(LinearSVC)' is liblinear's, whose bias is penalised. Mean "
                           f"difference [{0.95:.0%} Student-t interval over the {repeats} "
                           "draw(s); robustclf.evaluation.paired_differences]:\n\n"
                           + _interval_table(diffs))),
    ]
    preamble = (
        f"MNIST, pixels scaled to [0, 1]; {n_train} training rows drawn at random from the 60,000 "
        f"(the paper trains on all of them), {n_val} validation rows from the remaining "
        f"training rows, {n_test} test rows. At each level a fraction of the 784 pixels of every "
        f"validation and test row is set to 0 (exactly round(f * 784) per row; {repeats} "
        f"independent draw(s) per level, shared by all estimators; the repeat column). "
        f"One-vs-all for every model but LogisticRegression (multinomial). Two hinge-L2 "
        f"baselines: the paper's, with a free (unregularised) bias, solved exactly by libsvm "
        f"(SVC(kernel='linear') one-vs-rest), and scikit-learn's LinearSVC (liblinear, "
        f"max_iter=1,000,000), whose bias is penalised like a weight, as a practitioner runs "
        f"it. FDROP (Globerson & Roweis) is fitted "
        f"approximately, by mini-batch stochastic subgradient (FDROPClassifier(solver='sgd'); "
        f"its exact solvers are far too slow at d = 784 with 10 classes); its parameter is the "
        f"number K of pixels its adversary deletes per training row, reported in column q.")
    return ExperimentResult("Dropout-SVM: nightmare at test time on MNIST (Chen et al. 2014, "
                            "Fig. 3)", preamble, curves)


def run_mnist_nightmare(*, fast: bool = False, random_state: int = 0, n_jobs=None,
                        data_dir=None) -> ExperimentResult:
    """Nightmare at test time on MNIST (Figure 3), both selection protocols, both objectives."""
    X, y, val_sets, test_sets, levels, sizes = _mnist_setup(fast, random_state, data_dir)
    out = active_cells().parallel(
        ((f"{name}-q{q:g}-C{c:g}", delayed(_fit_point)(name, q, c, X, y, val_sets, test_sets))
         for name, q, c in _mnist_tasks(fast)), n_jobs=n_jobs)
    points = pd.DataFrame(out, columns=POINT_COLUMNS)
    return _mnist_result(points, levels, sizes, fast)


POINT_COLUMNS = ["estimator", "q", "C", "fit_seconds", "predict_seconds", "val", "test"]


register_experiment(Experiment(
    "dropout-mnist-nightmare", PAPER,
    "MNIST, random pixel deletion at test time: Dropout-SVM/Logistic vs MCF, FDROP, LinearSVC, LR",
    run_mnist_nightmare))
register_experiment(Experiment(
    "dropout-amazon-explicit", PAPER,
    "Amazon books: LinearSVC on M explicit dropout copies vs Dropout-SVM (M -> infinity)",
    run_amazon_explicit))
register_experiment(Experiment(
    "dropout-amazon-q", PAPER,
    "Amazon books and kitchen: error vs dropout level q for Dropout-SVM/Logistic and MCF",
    run_amazon_q))
