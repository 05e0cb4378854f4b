"""Rerun of issue 15 (25 Nov 2026): the Dekel & Shamir experiments stage by stage.

Usage: ``python run_issue15.py STAGE [STAGE ...]`` with stages such as ``sanity``,
``fig1-spambase-R`` (repeat R, fixed grid), ``fig1-mnist47-R``, ``fig1grid-DATASET-R`` (the
{N, 2N} grid, added on 26 Nov 2026), ``fig2-PART-tuned-N`` (PART in
spambase_mi, spambase_uniform; exact LP, tuned on 1/9 of each training fold, FDROP left out),
``fig2-spambase_uniform-tunedfdrop-N`` (FDROP alone, the same folds and tuning rule, added on
26 Nov 2026: FDROP deletes K features, so uniform values only) or
``fig2-mnist47_mi-N`` (2,000 rows, 5 folds, untuned, first-order LP; N = ``default``: the
experiment's own size, 4,000 rows, 10 folds, every budget; N = ``all``: every row). Added on
26 Nov 2026 (evening): ``fig2-PART-log`` (spambase scaled by log1p, every method, N <= 5) and
``fig2-PART-exact`` (the exact LP instead of the bagged one, beside the SVM). Each stage writes its
report, CSV and PNG with :func:`robustclf.report.write_experiment` into
``issue15_2026-11-25/<stage>/`` (``--out DIR``: into ``DIR/<stage>/``). Run with
``OMP_NUM_THREADS=1``.
"""

import sys
import time
from pathlib import Path

from robustclf.experiments.dekel_shamir import run_greedy, run_random_deletion, run_sanity
from robustclf.report import write_experiment

OUT = Path(__file__).parent / "issue15_2026-11-25"
FIXED_GRID = {"spambase": [0, 2, 4, 8, 16], "mnist47": [0, 25, 50, 100, 200]}


def stage(name: str):
    kind, *rest = name.split("-")
    if kind == "sanity":
        return run_sanity(random_state=0)
    if kind in ("fig1", "fig1grid"):  # fig1grid: the {N, 2N} grid (budgets chosen per level)
        dataset, rep = rest
        return run_random_deletion(datasets=[dataset], repeats=[int(rep)],
                                   budgets=FIXED_GRID if kind == "fig1" else None,
                                   random_state=0)
    part, *mode, budget = rest
    if mode == ["tuned"]:
        return run_greedy(parts=[part], budgets={part: [float(budget)]}, tune=True,
                          lp_options={"spambase": {}}, methods=["LP", "Perceptron", "SVM"],
                          random_state=0)
    if mode == ["tunedfdrop"]:
        return run_greedy(parts=[part], budgets={part: [float(budget)]}, tune=True,
                          methods=["FDROP"], random_state=0)
    if budget == "default":  # the experiment's own size: 4,000 rows, 10 folds, every N
        return run_greedy(parts=[part], random_state=0)
    if budget == "log":  # spambase scaled by log1p first, every method (26 Nov 2026, evening)
        return run_greedy(parts=[part], log=True, budgets={part: [0, 1, 2, 3, 4, 5]},
                          random_state=0)
    if budget == "exact":  # the exact LP on the whole training fold, beside the SVM
        return run_greedy(parts=[part], lp_options={"spambase": {}}, methods=["LP", "SVM"],
                          random_state=0)
    if budget == "all":  # MNIST 4 vs 7: every one of its rows, 10 folds, every N
        return run_greedy(parts=[part], max_rows={"mnist47": 10**9}, random_state=0)
    return run_greedy(parts=[part], budgets={part: [float(budget)]}, folds=5,
                      max_rows={"mnist47": 2000}, random_state=0)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--out"]:
        OUT, args = Path(args[1]), args[2:]
    for name in args:
        start = time.perf_counter()
        path = write_experiment(stage(name), OUT / name)
        print(f"{name}: {time.perf_counter() - start:.0f} s -> {path}", flush=True)
