"""The main job (``robustclf demo``): the robust methods against what a practitioner would use.

On data that needs no download, each robust method of the library is measured under the threat
it was built for (random deletion for the dropout models, absent feature groups for FeatureBoost
and the geometric-margin SVM, a deleting adversary for the deletion-robust linear models,
training outliers for RoLR), against the baselines a practitioner would pick
(HistGradientBoosting and a random forest with native NaN, a linear model behind mean
imputation with missing indicators, the papers' zero-imputed linear models; a robust-covariance
filter for outliers). Every model gets its hyper-parameters by the same rule, under the
threat (:mod:`._protocol`), and every section ends with the paired differences against the best
baseline, saying in words where the baseline wins. Returns frames only; the CLI writes the report.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._registry import estimator_entries
from ..corruption import (
    BlackBoxGreedyDeletion,
    GreedyDeletion,
    GroupDeletion,
    RandomDeletion,
    inject_outliers,
)
from ..datasets import load_split, make_contaminated_logistic
from ..evaluation import make_corruption_scorer
from ._base import CurveResult, ExperimentResult
from ._protocol import (
    certify_chunks,
    inner_cv,
    score_chunks,
    select_and_fit,
    verdict,
)

__all__ = ["run_demo", "digit_blocks"]


def digit_blocks(size: int = 2, side: int = 8) -> list[np.ndarray]:
    """Pixel indices of the ``size`` x ``size`` blocks tiling a ``side`` x ``side`` image."""
    index = np.arange(side * side).reshape(side, side)
    return [index[r:r + size, c:c + size].ravel()
            for r in range(0, side, size) for c in range(0, side, size)]


def _shrink(split, fast: bool, n: int = 400):
    """``fast``: at most ``n`` training and ``n`` test rows (stratified), for the tests."""
    if not fast:
        return split
    from dataclasses import replace

    from sklearn.model_selection import train_test_split

    def cut(X, y):
        if len(y) <= n:
            return X, y
        X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=0)
        return X, y

    X_train, y_train = cut(split.X_train, split.y_train)
    X_test, y_test = cut(split.X_test, split.y_test)
    return replace(split, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)


def _entries(threat: str, *, fast: bool):
    """The registry entries shown under ``threat``: the methods built for it, every baseline
    meant for it, and (``fast``) FDROP left out, as its exact QP is the slowest fit."""
    return [e for e in estimator_entries()
            if (e.threats is None or threat in e.threats) and not (fast and e.name == "fdrop")]


def _grid(entry, fast: bool) -> dict:
    """The entry's grid; ``fast`` keeps at most two values per parameter."""
    return {k: list(v)[:2] for k, v in entry.param_grid.items()} if fast else entry.param_grid


def _select_all(entries, X, y, scorer, *, fast, random_state, configure=None):
    cv = inner_cv(random_state, n_splits=2 if fast else 3)
    selected = []
    for e in entries:
        estimator, grid = e.factory(), _grid(e, fast)
        if configure is not None:
            estimator, grid = configure(e, estimator, grid)
        selected.append(select_and_fit(e.name, estimator, grid, X, y, scorer=scorer, cv=cv))
    return selected


def _param(key: str, value) -> str:
    short = key.split("__")[-1]
    return f"{short}={value:g}" if isinstance(value, (int, float)) else f"{short}={value}"


def _chosen(selected) -> str:
    parts = [f"`{s.name}` " + ", ".join(_param(k, v) for k, v in s.params.items())
             for s in selected if s.params]
    return "Chosen: " + "; ".join(parts) + "." if parts else ""


def _section(name, title, xlabel, frame, intro, entries, selected, *,
             ylabel="test error") -> CurveResult:
    robust = [e.name for e in entries if e.robust]
    baselines = [e.name for e in entries if not e.robust]
    text = "\n\n".join(t for t in (intro, _chosen(selected),
                                   verdict(frame, robust, baselines)) if t)
    return CurveResult(name, title, xlabel, frame, intro=text, spread="sem", ylabel=ylabel)


def _deletion_section(name, title, xlabel, split, corruption, levels, design, threat, *,
                      fast, random_state, intro, configure=None):
    entries = _entries(threat, fast=fast)
    scorer = make_corruption_scorer(corruption, design, random_state=random_state)
    selected = _select_all(entries, split.X_train, split.y_train, scorer, fast=fast,
                           random_state=random_state, configure=configure)
    frame = score_chunks(selected, split.X_test, split.y_test, corruption=corruption,
                         levels=levels, random_state=random_state)
    intro += (f" Hyper-parameters of every model chosen on the training rows by "
              f"{2 if fast else 3}-fold grid search, scored under this corruption at level "
              f"{design:g}; then refitted on all training rows.")
    return _section(name, title, xlabel, frame, intro, entries, selected)


def _adversarial_sections(digits, *, fast, random_state):
    """Greedy adversary (white-box for linear models, black-box otherwise) and certified worst
    case, with every model selected under the black-box greedy attack at budget 2."""
    entries = _entries("adversarial_deletion", fast=fast)
    queries = 200 if fast else None
    scorer = make_corruption_scorer(BlackBoxGreedyDeletion(budget=2, max_queries=queries),
                                    random_state=random_state)
    selected = _select_all(entries, digits.X_train, digits.y_train, scorer, fast=fast,
                           random_state=random_state)
    linear = [s for s, e in zip(selected, entries, strict=True) if e.linear]
    other = [s for s, e in zip(selected, entries, strict=True) if not e.linear]
    budgets = [0, 2, 4] if fast else [0, 1, 2, 3, 4, 6]
    common = dict(levels=budgets, random_state=random_state)
    frame = pd.concat([
        score_chunks(linear, digits.X_test, digits.y_test, corruption=GreedyDeletion(), **common),
        score_chunks(other, digits.X_test, digits.y_test,
                     corruption=BlackBoxGreedyDeletion(max_queries=queries), **common)],
        ignore_index=True)
    frame["corruption"] = "greedy"   # one threat: pair the white- and black-box attacks
    greedy = _section(
        "digits_greedy_adversary", "Digits: greedy adversary", "pixels deleted by the adversary",
        frame, "A greedy adversary (Dekel & Shamir 2008, §4) deletes, one pixel at a time, the "
        "pixel whose deletion lowers the true class's margin most, up to the budget: read off "
        "the weights for linear models, by querying the model for the others (the same greedy "
        "rule). Every model chosen by grid search under the black-box greedy attack at budget 2 "
        "on the training rows, then refitted. For a linear model this greedy attack reaches "
        "the certified worst case below; for a non-linear model it is a heuristic, so its "
        "error is only a lower bound on that model's worst case: a non-linear baseline that "
        "wins here has not been shown robust to every deletion.", entries, selected)
    cert_budgets = [0, 2, 4] if fast else [0, 1, 2, 3, 4, 6]
    certified = certify_chunks(linear, digits.X_test, digits.y_test, budgets=cert_budgets,
                               feature_values="uniform", random_state=random_state)
    linear_entries = [e for e in entries if e.linear]
    cert = _section(
        "digits_certified", "Digits: certified worst case (linear models)",
        "pixels deleted by an omniscient adversary", certified,
        "The exact error an omniscient adversary deleting up to N pixels can force on each "
        "linear model (one-vs-rest scores; every pairwise margin attacked), by the sort-based "
        "knapsack solver; the same selected models as above. The non-linear baselines have no "
        "certificate: compare them on the greedy attack.", linear_entries, linear,
        ylabel="certified worst-case error")
    return [greedy, cert]


def _outlier_section(*, fast, random_state):
    """RoLR's threat: outliers that follow the model with the opposite sign (Feng et al. §6)."""
    n = 400 if fast else 1000
    X, y, beta, _ = make_contaminated_logistic(n + 2000, 20, random_state=random_state)
    X_train, y_train, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
    ratios = [0.0, 0.1, 0.2] if fast else [0.0, 0.05, 0.1, 0.2, 0.3]
    entries = _entries("training_outliers", fast=fast)
    scorer = "accuracy"   # the validation folds hold outliers too: the user cannot tell them
    frames, chosen = [], {}
    for ratio in ratios:
        X_c, y_c, _ = inject_outliers(X_train, y_train, beta, outlier_ratio=ratio,
                                      random_state=random_state)
        with warnings.catch_warnings():   # RoLR's note when its threshold trims more rows
            warnings.filterwarnings("ignore", message="the preprocessing threshold",
                                    category=UserWarning)
            selected = _select_all(entries, X_c, y_c, scorer, fast=fast,
                                   random_state=random_state)
        chosen[ratio] = selected
        frame = score_chunks(selected, X_test, y_test, corruption=RandomDeletion(fraction=0.0),
                             levels=[0.0], random_state=random_state)
        frames.append(frame.assign(level=ratio, level_name="outlier_ratio",
                                   corruption="inject_outliers"))
    frame = pd.concat(frames, ignore_index=True)
    intro = (f"Feng et al. (2014, §6): {n} training rows x ~ N(0, I_20), y = sign(<beta, x> + "
             "v), plus outliers uniform in [-10, 10]^20 labelled by the opposite model, at "
             "each outlier ratio; tested on 2,000 clean rows. Every model chosen by grid search "
             "(accuracy on inner folds of the contaminated training rows: the user cannot tell "
             "outliers apart), then refitted. " + _chosen(chosen[ratios[-1]]).replace(
                 "Chosen:", f"Chosen at ratio {ratios[-1]:g}:"))
    return _section("training_outliers", "Training outliers (RoLR's threat)",
                    "outlier ratio n1 / n", frame, intro, entries, [])


def run_demo(*, fast: bool = False, random_state: int = 0, n_jobs: int | None = None,
             progress: bool | None = None, data_dir=None) -> ExperimentResult:
    """Run the demo; ``fast`` uses fewer levels, 2 inner folds, smaller grids and at most 400
    training and 400 test rows per data set (for tests).

    ``n_jobs``, ``progress`` and ``data_dir`` are accepted for the CLI's uniform interface; the
    demo needs no shared data and runs sequentially.
    """
    digits = _shrink(load_split("digits", random_state=random_state), fast)
    blocks = digit_blocks()
    curves = []
    fractions = [0.0, 0.3, 0.6] if fast else [0.0, 0.1, 0.3, 0.5, 0.7, 0.9]
    curves.append(_deletion_section(
        "digits_random_deletion", "Digits: random deletion", "fraction of pixels deleted",
        digits, RandomDeletion(fraction=0.0), fractions, 0.5, "random_deletion", fast=fast,
        random_state=random_state,
        intro=f"{digits.description}. In every test image a random fraction of the 64 pixels "
              "is deleted (absent, NaN), independently per image."))

    def with_blocks(entry, estimator, grid):
        if entry.name == "featureboost":
            estimator = estimator.set_params(groups=blocks)
        return estimator, grid

    counts = [0, 4, 8] if fast else [0, 2, 4, 6, 8, 10, 12]
    curves.append(_deletion_section(
        "digits_block_deletion", "Digits: smudges (2x2 pixel blocks deleted)",
        "number of 2x2 blocks deleted (of 16)", digits, GroupDeletion(blocks, k=0), counts, 8,
        "group_deletion", fast=fast, random_state=random_state, configure=with_blocks,
        intro="Whole 2x2 blocks of pixels (a smudge on the scanner) are deleted, chosen at "
              "random per image; FeatureBoost is given the blocks as its `groups`."))
    curves.extend(_adversarial_sections(digits, fast=fast, random_state=random_state))

    threshold = _shrink(load_split("threshold", random_state=random_state), fast)

    def with_encodings(entry, estimator, grid):
        if entry.name == "featureboost":
            estimator = estimator.set_params(groups=threshold.groups)
        return estimator, grid

    curves.append(_deletion_section(
        "threshold_encoding_deletion", "THRESHOLD: whole encodings deleted",
        "number of encodings deleted (of 5)", threshold, GroupDeletion(threshold.groups, k=0),
        [0, 1, 2, 3, 4], 2, "group_deletion", fast=fast, random_state=random_state,
        configure=with_encodings,
        intro=f"{threshold.description}. Each test row loses whole encodings chosen at random: "
              "the information is still there, redundantly, in the encodings that remain. "
              "FeatureBoost is given the encodings as its `groups` (O'Sullivan et al.'s setting)."))

    copies = load_split("label_copies", random_state=random_state)

    def with_values(entry, estimator, grid):
        if entry.name == "fdrop":           # its budget counts features: one or both copies
            return estimator.set_params(budget=2.0), {**grid, "budget": [1.0, 2.0]}
        if "budget" in grid:                # valued budget: 10 per copy
            estimator = estimator.set_params(budget=20.0, feature_values=copies.feature_values)
            return estimator, {**grid, "budget": [10.0, 20.0]}
        return estimator, grid

    curves.append(_deletion_section(
        "label_copies", "Label copies: delete the perfect features", "label copies deleted",
        copies, GroupDeletion(copies.groups, k=0), [0, 1, 2], 2, "adversarial_deletion",
        fast=fast, random_state=random_state, configure=with_values,
        intro=f"{copies.description}. The adversary deletes the label copies; with both "
              "gone, a model that leaned on them guesses (the best error on the real features "
              "is about 0.20). The deletion-robust LP and Perceptron are given the data's "
              "feature values (10 per copy) and choose a budget of 10 or 20 (one or both "
              "copies); FDROP, whose budget counts features, chooses 1 or 2."))
    curves.append(_outlier_section(fast=fast, random_state=random_state))

    preamble = (
        "Each robust method of the library is measured under the threat it was built for, "
        "against the baselines a practitioner would pick for the same data. Every model of a "
        "section trains on the same rows and gets its hyper-parameters by the same rule: a grid "
        "search on the training rows (the same inner folds), scored under the section's "
        "corruption with `robustclf.evaluation.make_corruption_scorer`, then a refit on all "
        "training rows. Lower is better. Errors are scored on 5 disjoint chunks of the test "
        "rows (each with its own corruption draw, shared by all models): the table's ± is the "
        "standard error over the chunks, and each section ends with the paired difference "
        "against the best baseline and a 95 % interval (`paired_differences`), saying where "
        "the baseline wins.\n\n"
        "A deleted feature is given to every model as absent (NaN): each of the library's "
        "estimators handles it per its method (docs/missing_values.md); each baseline's way is "
        "named below. `robustclf benchmark` runs every model under every threat.\n\n"
        "Estimators: " + ", ".join(f"`{e.name}` ({e.description})"
                                   for e in estimator_entries()) + ".")
    return ExperimentResult("robustclf demo: the robust methods against a practitioner's "
                            "baselines, each under its own threat", preamble, curves)
