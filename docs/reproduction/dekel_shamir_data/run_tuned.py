"""The script that produced the tuned Fig. 2 numbers of dekel_shamir.md (2026-11-21/22 run).

Fig. 2 on spambase with the paper's tuning on 1/9 of each training fold
(``run_greedy(tune=True)``), the LP solved exactly (cutting planes, no chunking), one stage =
one (part, N) over the 10 folds, each pickled to OUT so that a time-boxed run keeps what
finished. Run with ROBUSTCLF_DATA set, e.g.
    python run_tuned.py spambase_uniform:1 spambase_mi:1

python run_tuned.py STAGE [STAGE ...], a stage being PART:N[:METHOD,METHOD...]
(PART spambase_uniform / spambase_mi; METHODS default LP,Perceptron,SVM).
"""
import pickle
import sys
import time
from pathlib import Path

from robustclf.experiments.dekel_shamir import run_greedy

OUT = Path("/tmp/i3tune/out")
OUT.mkdir(parents=True, exist_ok=True)


def run(stage):
    part, b, *rest = stage.split(":")
    methods = rest[0].split(",") if rest else ["LP", "Perceptron", "SVM"]
    path = OUT / f"{stage.replace(':', '_').replace(',', '-')}.pkl"
    if path.exists():
        return
    t = time.perf_counter()
    res = run_greedy(parts=[part], budgets={part: [int(b)]}, n_jobs=1, methods=methods,
                     lp_options={"spambase": {}}, tune=True)
    with open(path, "wb") as f:
        pickle.dump(res, f)
    print(time.strftime("%H:%M:%S"), f"done {stage} in {time.perf_counter() - t:.0f} s",
          flush=True)


for stage in sys.argv[1:]:
    run(stage)
