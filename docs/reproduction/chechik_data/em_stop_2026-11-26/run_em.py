"""The `em` rows of chechik-votes, chechik-mcar and chechik-structural on the EM imputer that
stops on its estimated distance to the fixed point (commit d9bbfd0), same data, levels, folds,
grids and seeds as the CLI runs; one CSV per (experiment part), into this script's folder.

usage: OMP_NUM_THREADS=1 python -W ignore run_em.py [--out DIR] votes mcar:breast_cancer
       mcar:spambase structural
"""
import sys
import time
from pathlib import Path

from robustclf.datasets import (
    load_breast_cancer_wisconsin,
    load_spambase,
    load_votes,
    make_structurally_missing,
    make_subtype_missing,
)
from robustclf.experiments.chechik import (
    MCAR_LEVELS,
    SUBTYPE_PARTS,
    SUBTYPE_SETTINGS,
    _subsample,
    cached_method_grids,
    cross_validated_errors,
    mcar_corrupt,
)

OUT = Path(__file__).parent


def parts(stage):
    """(file stem, data, corruption, level name) of one stage, as the experiment builds them."""
    if stage == "votes":
        return [("votes", [(0, *load_votes(return_X_y=True))], "none", "dataset")]
    if stage.startswith("mcar:"):
        key = stage.split(":")[1]
        loader = {"spambase": load_spambase, "breast_cancer": load_breast_cancer_wisconsin}[key]
        X, y = _subsample(*loader(return_X_y=True), None, 0)
        data = [(lv, mcar_corrupt(X, lv, i, 0), y) for i, lv in enumerate(MCAR_LEVELS)]
        return [(key, data, "RandomDeletion", "fraction")]
    blocks = [(lv, *make_structurally_missing(1250, n_blocks=6, block_size=3, missing_prob=lv,
                                              noise_std=0.3, random_state=i))
              for i, lv in enumerate([0.2, 0.4, 0.6])]
    subtypes = [(level, *make_subtype_missing(1250, n_subtypes=4, n_blocks=6, block_size=3,
                                              subtype_blocks=SUBTYPE_PARTS, noise_std=0.3,
                                              random_state=10 * level, **kw))
                for level, kw in SUBTYPE_SETTINGS.items()]
    return [("structural_synthetic", blocks, "StructuralAbsence", "missing_prob"),
            ("structural_subtypes", subtypes, "SubtypeAbsence", "setting")]


args = sys.argv[1:]
if args[:1] == ["--out"]:  # (added 26 Nov 2026, evening: the rerun in ../em_newton_2026-11-26/)
    OUT, args = Path(args[1]), args[2:]
for stage in args:
    start = time.perf_counter()
    with cached_method_grids(fast=False, random_state=0) as grids:
        for stem, data, corruption, level_name in parts(stage):
            frame = cross_validated_errors(data, {"em": grids["em"]}, corruption=corruption,
                                           level_name=level_name, n_folds=5, random_state=0,
                                           n_jobs=1)
            frame.to_csv(OUT / f"{stem}_em.csv", index=False)
    print(time.strftime("%H:%M:%S"), f"done {stage} in {time.perf_counter() - start:.0f} s",
          flush=True)
