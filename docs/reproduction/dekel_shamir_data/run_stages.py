"""The script that produced the Fig. 1 / Fig. 2 numbers of dekel_shamir.md (2026-11-21 run).

It calls the public experiment functions of robustclf.experiments.dekel_shamir in small stages,
each pickled to OUT, so that a time-boxed run keeps what finished; the CSVs next to this file
are the stages merged per figure. Run with ROBUSTCLF_DATA set, e.g.
    python run_stages.py spam:spambase_uniform:3 fig1g:0 mnist10:20

python run_stages.py STAGE [STAGE ...], a stage being
  fig1:REP:LEVEL            Fig. 1 on MNIST 4 vs 7, one repeat, one N
  fig1g:REP                 Fig. 1 on MNIST, one repeat, all N, budgets chosen in a fixed grid
  fig1gs:REP                the same on spambase
  spam:PART:N               Fig. 2 on spambase (PART spambase_uniform / spambase_mi), 10 folds
  spamlog:PART:N            the same with log1p scaling
  spamexact:PART:N          the LP alone, exact (cutting planes), no chunking
  mnist:N                   Fig. 2 on MNIST 4 vs 7 (MI), reduced as MNIST_* below
  mnist10:N                 the same on 4,000 rows with 10 folds
"""
import pickle, sys, time
from pathlib import Path
from robustclf.experiments.dekel_shamir import run_random_deletion, run_greedy

OUT = Path("/tmp/i3exp/out"); OUT.mkdir(parents=True, exist_ok=True)
SPAM_LP = {"chunk_size": 1000}                      # the paper's bagging variant
MNIST_ROWS, MNIST_FOLDS = 2000, 5
MNIST_LP = {"solver": "subgradient"}

def run(stage):
    kind, *args = stage.split(":")
    path = OUT / f"{stage.replace(':', '_')}.pkl"
    if path.exists():
        return
    t = time.perf_counter()
    if kind == "fig1":
        rep, level = map(int, args)
        res = run_random_deletion(datasets=["mnist47"], repeats=[rep],
                                  levels={"mnist47": [level]}, n_jobs=1)
    elif kind == "fig1g":  # one repeat, all levels, a fixed training-budget grid
        rep = int(args[0])
        res = run_random_deletion(datasets=["mnist47"], repeats=[rep], n_jobs=1,
                                  budgets={"mnist47": [0, 25, 50, 100, 200]})
    elif kind == "fig1gs":  # the same on spambase
        rep = int(args[0])
        res = run_random_deletion(datasets=["spambase"], repeats=[rep], n_jobs=1,
                                  budgets={"spambase": [0, 2, 4, 8, 16]})
    elif kind in ("spam", "spamlog"):
        part, b = args[0], int(args[1])
        res = run_greedy(parts=[part], budgets={part: [b]}, n_jobs=1,
                         lp_options={"spambase": SPAM_LP}, log=kind == "spamlog")
    elif kind == "spamexact":  # the LP alone, solved exactly on the whole training fold
        part, b = args[0], int(args[1])
        res = run_greedy(parts=[part], budgets={part: [b]}, n_jobs=1, methods=["LP"],
                         lp_options={"spambase": {}})
    elif kind in ("mnist", "mnist10"):
        b = int(args[0])
        rows, folds = (MNIST_ROWS, MNIST_FOLDS) if kind == "mnist" else (4000, 10)
        res = run_greedy(parts=["mnist47_mi"], budgets={"mnist47_mi": [b]}, folds=folds,
                         max_rows={"mnist47": rows}, n_jobs=1,
                         lp_options={"mnist47": MNIST_LP})
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print(time.strftime("%H:%M:%S"), f"done {stage} in {time.perf_counter() - t:.0f} s", flush=True)

for stage in sys.argv[1:]:
    run(stage)
