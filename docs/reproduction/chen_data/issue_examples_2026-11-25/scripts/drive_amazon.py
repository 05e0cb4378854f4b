"""Checkpointing driver for dropout-amazon-q / dropout-amazon-explicit.

Same pieces and seeds as `robustclf reproduce NAME --seed 0` (run_amazon_q / run_amazon_explicit
in robustclf.experiments._chen_amazon); tasks are ordered fold-major (the CLI's order differs,
results do not: every task is deterministic given its fold seed), each finished task is appended
to a JSON-lines checkpoint so that a time-boxed run leaves complete folds and can resume.
"""
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from robustclf.experiments import _chen_amazon as A
from robustclf.experiments._base import CurveResult, ExperimentResult
from robustclf.experiments._chen_common import COLUMNS, MAX_SEED
from robustclf.report import write_experiment

which, out = sys.argv[1], Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
ckpt = Path("/tmp/chen25/ckpt") / f"amazon_{which}_tasks.jsonl"
done = {}
if ckpt.exists():
    for line in ckpt.read_text().splitlines():
        r = json.loads(line)
        done[tuple(r["key"])] = r
s = A._settings(False)
random_state = 0
t0 = time.time()

def log(msg):
    print(f"{time.strftime('%H:%M:%S')} +{time.time() - t0:7.1f}s {msg}", flush=True)

if which == "q":
    levels = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9]
    names = ["Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
             "Dropout-Logistic (gaussian)", "MCF-Quadratic", "MCF-Logistic"]
    data = {}
    for domain in ("books", "kitchen"):
        X, y = A.load_amazon_top(domain, n_features=s["n_features"], n_rows=s["n_rows"],
                                 random_state=random_state)
        folds = A._folds(y, s["n_folds"], random_state)
        seeds = np.random.default_rng(random_state).integers(0, MAX_SEED, size=len(folds))
        data[domain] = (X, y, folds, seeds)
    tasks = [(domain, k, name, q) for k in range(s["n_folds"]) for domain in ("books", "kitchen")
             for name in names for q in levels]
    for i, (domain, k, name, q) in enumerate(tasks):
        key = [domain, k, name, q]
        if tuple(key) in done:
            continue
        X, y, folds, seeds = data[domain]
        tr, te = folds[k]
        ts = time.time()
        res = A._q_task(k, tr, te, X, y, name, q, s["cs"], int(seeds[k]))
        r = dict(key=key, out=[res[0], float(res[1]), int(res[2]), float(res[3]), float(res[4]),
                               float(res[5]), float(res[6]), float(res[7])])
        done[tuple(key)] = r
        with ckpt.open("a") as f:
            f.write(json.dumps(r) + "\n")
        log(f"[{i + 1}/{len(tasks)}] {domain} fold {k} {name} q={q}: err {res[3]:.4f} "
            f"c={res[7]} refit {res[4]:.2f}s task {time.time() - ts:.1f}s")
    curves = []
    for domain in ("books", "kitchen"):
        rows = [tuple(r["out"]) for kk, r in done.items() if kk[0] == domain]
        frame = pd.DataFrame([(n, "dropout", "q", lev, k, e, f, p, q, c)
                              for n, lev, k, e, f, p, q, c in rows], columns=COLUMNS)
        curves.append(CurveResult(
            f"amazon_{domain}_error_vs_q", f"Amazon {domain}: error vs dropout level q",
            "dropout level q", frame, spread="sem",
            intro=(f"{s['n_folds']}-fold stratified cross-validation, c in {s['cs']} chosen "
                   f"per q on a 25 % validation split of each training fold, then refitted.")))
    write_experiment(ExperimentResult("Error vs dropout level on Amazon reviews (Chen et al. "
                                      "2014, Fig. 1), rerun 25 Nov 2026", "", curves), out)
else:
    X, y = A.load_amazon_top("books", n_features=s["n_features"], n_rows=s["n_rows"],
                             random_state=random_state)
    copies = [2 ** k for k in range(9)]
    if len(sys.argv) > 3:   # time-boxed: M up to argv[3] only
        copies = [m for m in copies if m <= int(sys.argv[3])]
        done = {k: r for k, r in done.items() if k[2] <= int(sys.argv[3])}
    folds = A._folds(y, s["n_folds"], random_state)
    seeds = np.random.default_rng(random_state).integers(0, MAX_SEED, size=len(folds))
    methods = [(name, 0) for name in ("Dropout-SVM (bound)", "Dropout-SVM (gaussian)",
                                      "LinearSVC (no corruption)")]
    methods += [(A.EXPLICIT, m) for m in copies]
    tasks = [(k, method, m) for method, m in methods for k in range(s["n_folds"])]  # method-major
    for i, (k, method, m) in enumerate(tasks):
        key = [k, method, m]
        if tuple(key) in done:
            continue
        tr, te = folds[k]
        ts = time.time()
        res = A._explicit_task(k, tr, te, X, y, method, m, s["qs"], s["cs"], int(seeds[k]))
        r = dict(key=key, out=[res[0], int(res[1]), int(res[2]), float(res[3]), float(res[4]),
                               float(res[5]), float(res[6]), float(res[7])])
        done[tuple(key)] = r
        with ckpt.open("a") as f:
            f.write(json.dumps(r) + "\n")
        log(f"[{i + 1}/{len(tasks)}] fold {k} {method} M={m}: err {res[3]:.4f} q={res[6]} "
            f"c={res[7]} refit {res[4]:.2f}s task {time.time() - ts:.1f}s")
    rows = []
    for r in done.values():
        method, m, fold, err, fit_s, pred_s, q, c = r["out"]
        levels = [m] if method == A.EXPLICIT else copies
        rows += [(method, "dropout copies", "n_copies", lev, fold, err, fit_s, pred_s, q, c)
                 for lev in levels]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    curve = CurveResult("amazon_books_explicit_copies", "Amazon books: explicit dropout copies "
                        "vs marginalised (Dropout-SVM)", "number of corrupted copies M", frame,
                        intro="5-fold CV, (q, c) chosen per M and fold, refitted.", spread="sem")
    write_experiment(ExperimentResult("Dropout-SVM vs explicit corruption on Amazon books "
                                      "(Chen et al. 2014, Fig. 2), rerun 25 Nov 2026", "",
                                      [curve]), out)
log("written")
