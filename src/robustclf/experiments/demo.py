"""The main job (``robustclf demo``): how ordinary models collapse under feature deletion.

On data that needs no download, every registered estimator — the standard baselines and each
robust method of the library — is measured under random deletion, structured (grouped) deletion
and a greedy adversary, and the linear ones are certified against the worst case. Returns frames
only; the CLI writes the report.
"""

from __future__ import annotations

import numpy as np

from .._registry import estimator_entries
from ..corruption import BlackBoxGreedyDeletion, GroupDeletion, RandomDeletion
from ..datasets import load_split
from ..evaluation import certified_curve, robustness_curve
from ._base import CurveResult, ExperimentResult

__all__ = ["run_demo", "digit_blocks"]


def digit_blocks(size: int = 2, side: int = 8) -> list[np.ndarray]:
    """Pixel indices of the ``size`` x ``size`` blocks tiling a ``side`` x ``side`` image."""
    index = np.arange(side * side).reshape(side, side)
    return [index[r:r + size, c:c + size].ravel()
            for r in range(0, side, size) for c in range(0, side, size)]


def run_demo(*, fast: bool = False, random_state: int = 0, n_jobs: int | None = None,
             progress: bool | None = None, data_dir=None) -> ExperimentResult:
    """Run the demo sweeps; ``fast`` uses fewer levels and one repeat (for tests)."""
    entries = estimator_entries()
    estimators = {e.name: e.factory() for e in entries}
    linear = {e.name: e.factory() for e in entries if e.linear}
    repeats = 1 if fast else 3
    common = dict(n_repeats=repeats, random_state=random_state, n_jobs=n_jobs, progress=progress)
    digits = load_split("digits", random_state=random_state)
    d = (digits.X_train, digits.y_train, digits.X_test, digits.y_test)
    curves = []

    fractions = [0.0, 0.3, 0.6, 0.9] if fast else [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8,
                                                   0.9]
    curves.append(CurveResult(
        "digits_random_deletion", "Digits: random deletion", "fraction of pixels deleted",
        robustness_curve(estimators, *d, corruption=RandomDeletion(fraction=0.0),
                         levels=fractions, **common),
        intro=f"{digits.description}. In every test image a random fraction of the 64 pixels is "
              "deleted (independently per image); models are trained on clean images."))

    blocks = digit_blocks()
    counts = [0, 4, 8, 12] if fast else [0, 2, 4, 6, 8, 10, 12]
    curves.append(CurveResult(
        "digits_block_deletion", "Digits: smudges (2x2 pixel blocks deleted)",
        "number of 2x2 blocks deleted (of 16)",
        robustness_curve(estimators, *d, corruption=GroupDeletion(blocks, k=0),
                         levels=counts, **common),
        intro="Structured deletion: whole 2x2 blocks of pixels (a smudge on the scanner) are "
              "deleted, chosen at random per image."))

    budgets = [0, 2, 4] if fast else [0, 1, 2, 3, 4, 6, 8]
    attack = BlackBoxGreedyDeletion(budget=0, max_queries=None if not fast else 200)
    curves.append(CurveResult(
        "digits_greedy_adversary", "Digits: greedy adversary", "pixels deleted by the adversary",
        robustness_curve(estimators, *d, corruption=attack, levels=budgets, n_repeats=1,
                         random_state=random_state, n_jobs=n_jobs, progress=progress),
        intro="A greedy adversary (Dekel & Shamir 2008, §4) queries each model and deletes, one "
              "pixel at a time, the pixel whose deletion lowers the true class's margin most, "
              "up to the budget (model-agnostic, the same attack for every model)."))

    if linear:
        cert_budgets = [0, 2, 4] if fast else [0, 1, 2, 3, 4, 5, 6, 8]
        curves.append(CurveResult(
            "digits_certified", "Digits: certified worst case (linear models)",
            "pixels deleted by an omniscient adversary",
            certified_curve(linear, *d, budgets=cert_budgets, random_state=random_state),
            intro="The exact error an omniscient adversary deleting up to N pixels can force on "
                  "each linear model (one-vs-rest scores; every pairwise margin attacked), "
                  "computed by the sort-based knapsack solver; exact for uniform feature values."))

    threshold = load_split("threshold", random_state=random_state)
    curves.append(CurveResult(
        "threshold_encoding_deletion", "THRESHOLD: whole encodings deleted",
        "number of encodings deleted (of 5)",
        robustness_curve(estimators, threshold.X_train, threshold.y_train, threshold.X_test,
                         threshold.y_test, corruption=GroupDeletion(threshold.groups, k=0),
                         levels=[0, 1, 2, 3, 4], **common),
        intro=f"{threshold.description}. Each test row loses whole encodings chosen at random: "
              "the information is still there, redundantly, in the encodings that remain."))

    copies = load_split("label_copies", random_state=random_state)
    curves.append(CurveResult(
        "label_copies", "Label copies: delete the perfect features", "label copies deleted",
        robustness_curve(estimators, copies.X_train, copies.y_train, copies.X_test,
                         copies.y_test, corruption=GroupDeletion(copies.groups, k=0),
                         levels=[0, 1, 2], **common),
        intro=f"{copies.description}. With both copies deleted, a model that leaned on them "
              "guesses; the best possible error on the real features is about 0.20."))

    preamble = (
        "Every registered estimator (standard baselines and the library's robust methods) is "
        "trained on clean data and tested on corrupted data. Lower is better; the spread is "
        f"over {repeats} repeat(s) (different corruption draws and estimator seeds).\n\n"
        "A deleted feature is given to every model as absent (NaN): each of the library's "
        "estimators handles it per its method (the table in docs/missing_values.md; for the "
        "linear ones its term is dropped), and the baselines that cannot take NaN read it as "
        "0 through an explicit imputer, named below.\n\n"
        "Estimators: " + ", ".join(f"`{e.name}` ({e.description})" for e in entries) + ".")
    return ExperimentResult("robustclf demo: how classifiers degrade when features go missing",
                            preamble, curves)
