"""The measurements behind every estimator's default settings (issue 15, item 4).

Part ``dropout``: DropoutSVC, DropoutLogisticRegression and MCFClassifier over a grid of
objective (or loss) x q x C on four ordinary data sets -- digits (pixels / 16), breast cancer
Wisconsin (scores / 10), spambase (each feature over its maximum) and votes (``?`` absent) --
five stratified 50/50 splits, test rows with 0 %, 25 % and 50 % of their entries deleted at
random (NaN; draws seeded ``100 * split + draw``, three per level). Baselines: ``LinearSVC()``
and ``LogisticRegression()`` behind a zero imputer (an absent entry reads as 0, as in the
library's linear models). The rule that picks the default: among the settings whose mean clean
error is within 2 points of the best setting's on every data set, the smallest worst-case regret
(error averaged over the three levels minus the best setting's on that data set, maximised over
the data sets); ties within half a point go to the smaller C, then to the faster fit (for
MCFClassifier only the default quadratic loss competes). Printed: the best settings by
the rule, the chosen default beside the old one and the baseline per data set, and the paired
differences (default - baseline, Student-t 95 % interval over the 15 split x draw pairs,
:func:`robustclf.evaluation.paired_differences`).

Part ``featureboost``: FeatureBoost with 5-40 experts on digits (clean, 25 % random deletion,
a one-pixel black-box greedy attack on the soft vote) beside a tree and a forest; THRESHOLD
with and without the encodings as ``groups`` under whole-encoding deletion.

Part ``deletion``: DeletionRobustLP and DeletionRobustPerceptron with budgets 0-4 (and the LP
with mutual-information values) against ``LinearSVC()``: clean, 25 % random deletion and the
exact worst case of 1, 2 and 4 deleted features (complete test rows).

Data: ``--data-dir`` or ROBUSTCLF_DATA; data sets that are absent are skipped with a note.
Runtime on one core: dropout about 15 min, featureboost 2 min, deletion 5 min.

Usage: python benchmarks/bench_defaults_quality.py [--parts dropout featureboost deletion]
       [--splits 5] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from robustclf.corruption import RandomDeletion
from robustclf.evaluation import paired_differences

LEVELS = (0.0, 0.25, 0.5)
N_DRAWS = 3
BASE_GRID = list(itertools.product((0.0, 0.05, 0.1, 0.2, 0.3, 0.5), (0.1, 1.0, 10.0)))
SVC_EXTRA = list(itertools.product((0.2, 0.25, 0.3, 0.4), (3.0, 10.0, 30.0, 100.0)))
MCF_GRID = list(itertools.product((0.0, 0.05, 0.1, 0.2, 0.3, 0.5), (1.0, 10.0, 100.0)))
# (estimator, objective parameter name, its values, grid, baseline, old default, new default)
DROPOUT_STUDIES = {
    "DropoutSVC": ("objective", ("bound", "gaussian"), BASE_GRID + SVC_EXTRA, "LinearSVC",
                   ("bound", 0.5, 1.0), ("gaussian", 0.2, 10.0)),
    "DropoutLogisticRegression": ("objective", ("bound", "gaussian"), BASE_GRID,
                                  "LogisticRegression", ("bound", 0.5, 1.0), ("bound", 0.1, 10.0)),
    "MCFClassifier": ("loss", ("quadratic", "logistic"), MCF_GRID, "LinearSVC",
                      ("quadratic", 0.5, 1.0), ("quadratic", 0.2, 1.0)),
}


def _zero_imputed(model):
    return make_pipeline(SimpleImputer(strategy="constant", fill_value=0.0,
                                       keep_empty_features=True), model)


def datasets(data_dir):
    """(name, X, y) of the four data sets, scaled as the defaults assume; absent ones skipped."""
    from robustclf.datasets import load_breast_cancer_wisconsin, load_spambase, load_votes

    X, y = load_digits(return_X_y=True)
    yield "digits", X / 16.0, y
    shared = [("breast", load_breast_cancer_wisconsin, lambda X: X / 10.0),
              ("spambase", load_spambase,
               lambda X: X / np.maximum(np.nanmax(X, axis=0), 1e-12)),
              ("votes", load_votes, lambda X: X)]
    for name, loader, scale in shared:
        try:
            X, y = loader(data_dir=data_dir, return_X_y=True)
        except (FileNotFoundError, OSError):
            print(f"({name} not found: skipped)")
            continue
        yield name, scale(X), y


def _test_sets(Xte, split):
    out = {0.0: [Xte]}
    for level in LEVELS[1:]:
        out[level] = [RandomDeletion(fraction=level).corrupt(Xte, random_state=100 * split + d)
                      for d in range(N_DRAWS)]
    return out


def _errors(rows, key, model, tests, yte, name, split, fit_s):
    for level, Xs in tests.items():
        for draw, X in enumerate(Xs):
            rows.append(dict(data=name, split=split, estimator=_fmt(key), objective=key[0],
                             q=key[1], C=key[2], level=level,
                             repeat=split * N_DRAWS + draw, fit_s=fit_s,
                             error=float(np.mean(model.predict(X) != yte))))


def dropout_frame(study, data_dir, n_splits):
    """Tidy errors of every grid setting and of the baseline."""
    from robustclf.linear import DropoutLogisticRegression, DropoutSVC
    from robustclf.linear.mcf import MCFClassifier

    cls = {"DropoutSVC": DropoutSVC, "DropoutLogisticRegression": DropoutLogisticRegression,
           "MCFClassifier": MCFClassifier}[study]
    param, objectives, grid, baseline, _, _ = DROPOUT_STUDIES[study]
    rows = []
    for name, X, y in datasets(data_dir):
        for split in range(n_splits):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y,
                                                  random_state=split)
            tests = _test_sets(Xte, split)
            models = {("baseline", 0.0, 0.0): _zero_imputed(
                LinearSVC() if baseline == "LinearSVC" else LogisticRegression(max_iter=5000))}
            for objective, (q, C) in itertools.product(objectives, grid):
                models[(objective, q, C)] = cls(q=q, C=C, **{param: objective})
            for key, model in models.items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(Xtr, ytr)
                _errors(rows, key, model, tests, yte, name, split, time.perf_counter() - start)
        print(f"  {study}: {name} done", flush=True)
    return pd.DataFrame(rows)


def choose(frame, within=None):
    """The rule: clean error within 2 points of the best on every data set, then the smallest
    worst-case regret of the error averaged over the levels; ties within 0.005 go to the
    smaller C, then to the faster fit. ``within``: only that objective (loss) competes."""
    grid = frame[frame.objective != "baseline"]
    if within is not None:
        grid = grid[grid.objective == within]
    mean = grid.groupby(["objective", "q", "C", "data", "level"]).error.mean().unstack("level")
    clean_gap = mean[0.0] - mean[0.0].groupby("data").transform("min")
    avg = mean.mean(axis=1)
    regret = (avg - avg.groupby("data").transform("min")).unstack("data").dropna()
    table = pd.DataFrame({"max_regret": regret.max(axis=1),
                          "worst_data": regret.idxmax(axis=1),
                          "clean_ok": (clean_gap <= 0.02).unstack("data").all(axis=1)})
    table = pd.concat([table, regret], axis=1)
    ok = table[table.clean_ok].sort_values("max_regret")
    best = ok.max_regret.min()
    tied = ok[ok.max_regret <= best + 0.005]
    fit_s = grid.groupby(["objective", "q", "C"]).fit_s.mean()
    chosen = min(tied.index, key=lambda k: (k[2], fit_s[k]))
    return table, chosen


def _fmt(key):
    return "baseline" if key[0] == "baseline" else f"{key[0]}, q={key[1]:g}, C={key[2]:g}"


def report_dropout(study, frame):
    _, _, _, baseline, old, new = DROPOUT_STUDIES[study]
    # MCF: the default loss stays quadratic (the logistic one is 20-40 times slower)
    table, chosen = choose(frame, within="quadratic" if study == "MCFClassifier" else None)
    print(f"\n### {study}\n")
    print("Settings passing the clean-error test, by worst-case regret (points of error "
          "averaged over 0/25/50 % deleted):\n")
    shown = table[table.clean_ok].sort_values("max_regret").head(8)
    data_cols = [c for c in shown.columns if c not in ("max_regret", "worst_data", "clean_ok")]
    print("| setting | worst regret | " + " | ".join(data_cols) + " |")
    print("|---|---|" + "---|" * len(data_cols))
    for key, row in shown.iterrows():
        print(f"| {_fmt(key)} | {100 * row.max_regret:.1f} ({row.worst_data}) | "
              + " | ".join(f"{100 * row[c]:.1f}" for c in data_cols) + " |")
    print(f"\nRule's choice: {_fmt(chosen)}; default: {_fmt(new)}"
          f"{'' if chosen == new else '  <-- differs'}\n")
    mean = frame.groupby(["data", "estimator", "level"]).error.mean().unstack("level")
    print(f"| data | new default ({_fmt(new)}) | old ({_fmt(old)}) | {baseline}() |")
    print("|---|---|---|---|")
    for name in frame.data.unique():
        cells = [" / ".join(f"{v:.3f}" for v in mean.loc[(name, _fmt(key))])
                 for key in (new, old, ("baseline", 0.0, 0.0))]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nPaired differences, default - baseline (error; mean [95 % CI] over split x draw):\n")
    print("| data | 0 % | 25 % | 50 % |")
    print("|---|---|---|---|")
    for name, part in frame.groupby("data", sort=False):
        sub = part[part.estimator.isin([_fmt(new), "baseline"])]
        diff = paired_differences(sub, "baseline").set_index("level")
        print(f"| {name} | " + " | ".join(
            f"{d['mean']:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
            for _, d in diff.sort_index().iterrows()) + " |")
    times = frame.groupby("objective").fit_s.mean()
    print("\nMean fit time (s) by objective/loss: "
          + ", ".join(f"{k} {v:.3f}" for k, v in times.items()))


def part_dropout(data_dir, n_splits):
    print("## Dropout and MCF defaults\n")
    for study in DROPOUT_STUDIES:
        report_dropout(study, dropout_frame(study, data_dir, n_splits))


def part_featureboost(n_splits):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    from robustclf.corruption import BlackBoxGreedyDeletion, GroupDeletion
    from robustclf.datasets import load_split
    from robustclf.ensemble import FeatureBoostClassifier

    print("\n## FeatureBoost\n")
    print("Digits / 16 (300 test rows per split): error clean, with 25 % of the pixels deleted "
          "at random (NaN, 3 draws) and under a one-pixel black-box greedy deletion of the "
          "soft vote's probability (the default hard vote has no margin to attack: n/a).\n")
    print("| model | split | clean | 25 % random | greedy, 1 pixel | fit s |")
    print("|---|---|---|---|---|---|")
    X, y = load_digits(return_X_y=True)
    for split in range(min(n_splits, 2)):
        Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.5, stratify=y,
                                              random_state=split)
        Xte, yte = Xte[:300], yte[:300]
        models = {"tree": DecisionTreeClassifier(random_state=split),
                  "forest (100 trees)": RandomForestClassifier(100, random_state=split,
                                                               n_jobs=1)}
        for T in (5, 10, 20, 40):
            models[f"FeatureBoost, {T} experts"] = FeatureBoostClassifier(
                n_estimators=T, random_state=split)
        models["FeatureBoost, 20 experts, soft vote"] = FeatureBoostClassifier(
            voting="soft", random_state=split)
        for name, model in models.items():
            start = time.perf_counter()
            model.fit(Xtr, ytr)
            fit_s = time.perf_counter() - start
            clean = np.mean(model.predict(Xte) != yte)
            rand = np.mean([np.mean(model.predict(RandomDeletion(fraction=0.25).corrupt(
                Xte, random_state=s)) != yte) for s in range(3)])
            greedy = "n/a"
            if hasattr(model, "predict_proba"):
                attacked = BlackBoxGreedyDeletion(budget=1, response="predict_proba").corrupt(
                    Xte, yte, model=model, random_state=0)
                greedy = f"{np.mean(model.predict(attacked) != yte):.3f}"
            print(f"| {name} | {split} | {clean:.3f} | {rand:.3f} | {greedy} | "
                  f"{fit_s:.1f} |", flush=True)
    print("\nTHRESHOLD (300 train / 1,000 test rows): error with k of the 5 encodings of every "
          "test row deleted (NaN).\n")
    print("| model | seed | k = 1 | k = 2 | k = 4 |")
    print("|---|---|---|---|---|")
    for seed in range(3):
        s = load_split("threshold", random_state=seed)
        models = {"forest (100 trees)": RandomForestClassifier(100, random_state=seed, n_jobs=1),
                  "FeatureBoost()": FeatureBoostClassifier(random_state=seed),
                  "FeatureBoost(groups=encodings)": FeatureBoostClassifier(groups=s.groups,
                                                                           random_state=seed)}
        for name, model in models.items():
            model.fit(s.X_train, s.y_train)
            errs = [np.mean(model.predict(GroupDeletion(groups=s.groups, k=k).corrupt(
                s.X_test, random_state=seed)) != s.y_test) for k in (1, 2, 4)]
            print(f"| {name} | {seed} | " + " | ".join(f"{e:.3f}" for e in errs) + " |",
                  flush=True)


def part_deletion(data_dir, n_splits):
    from robustclf.corruption import OptimalDeletion
    from robustclf.linear import DeletionRobustLP, DeletionRobustPerceptron

    print("\n## DeletionRobustLP and DeletionRobustPerceptron: budget and feature values\n")
    print("Error clean, with 25 % of the entries deleted at random (3 draws) and under the "
          "exact worst case of 1 / 2 / 4 deleted features (unit values; complete test rows "
          "only). Spambase and digits: the first 1,000 training rows.\n")
    print("| data | split | model | clean | 25 % random | worst 1 | worst 2 | worst 4 | fit s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, X, y in datasets(data_dir):
        for split in range(min(n_splits, 2)):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, stratify=y,
                                                  random_state=split)
            Xtr, ytr = Xtr[:1000], ytr[:1000]
            models = {"LinearSVC()": _zero_imputed(LinearSVC())}
            for budget in (0, 1, 2, 4):
                models[f"LP, budget {budget}"] = DeletionRobustLP(budget=budget)
            models["LP, budget 1, mutual_info"] = DeletionRobustLP(budget=1,
                                                                   feature_values="mutual_info")
            for budget in (0, 1, 2, 4):
                models[f"Perceptron, budget {budget}"] = DeletionRobustPerceptron(
                    budget=budget, random_state=split)
            full = ~np.isnan(Xte).any(axis=1)
            for label, model in models.items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(Xtr, ytr)
                fit_s = time.perf_counter() - start
                clean = np.mean(model.predict(Xte) != yte)
                rand = np.mean([np.mean(model.predict(RandomDeletion(fraction=0.25).corrupt(
                    Xte, random_state=s)) != yte) for s in range(3)])
                worst = [np.mean(model.predict(OptimalDeletion(budget=n).corrupt(
                    Xte[full], yte[full], model=model)) != yte[full]) for n in (1, 2, 4)]
                print(f"| {name} | {split} | {label} | {clean:.3f} | {rand:.3f} | "
                      + " | ".join(f"{w:.3f}" for w in worst) + f" | {fit_s:.1f} |",
                      flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["dropout", "featureboost", "deletion"],
                        choices=["dropout", "featureboost", "deletion"])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    if "dropout" in args.parts:
        part_dropout(args.data_dir, args.splits)
    if "featureboost" in args.parts:
        part_featureboost(args.splits)
    if "deletion" in args.parts:
        part_deletion(args.data_dir, args.splits)


if __name__ == "__main__":
    main()
