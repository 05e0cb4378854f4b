"""FDROP in the tuned Fig. 2 spambase stages (uniform values): its greedy-attack errors beside
the other methods' (same folds and tuning rule; the stages of 25 and 26 Nov 2026) and the
paired differences FDROP - method (95 % t intervals over the 10 folds). Run from this folder;
prints markdown and writes fdrop_tuned_paired.csv."""
from pathlib import Path

import pandas as pd

from _paired_table import paired_table

from robustclf.evaluation import paired_differences

HERE = Path(__file__).parent
CSV = "fig2_spambase_uniform_tuned_greedy.csv"
frames = []
for day in (HERE, HERE.parent / "issue15_2026-11-25"):
    for stage in sorted(day.glob("fig2-spambase_uniform-tuned*")):
        if (stage / CSV).exists():
            frames.append(pd.read_csv(stage / CSV))
frame = pd.concat(frames).drop_duplicates(["estimator", "level", "repeat"])
levels = sorted(frame.level.unique())
means = frame.groupby(["estimator", "level"]).error.mean().unstack()
print("| method \\ N | " + " | ".join(f"{lv:g}" for lv in levels) + " |")
print("|---" * (len(levels) + 1) + "|")
for est in ["LP", "Perceptron 1 pass", "Perceptron 5 epochs", "SVM", "FDROP"]:
    print(f"| {est} | " + " | ".join(f"{means.loc[est, lv]:.3f}" for lv in levels) + " |")
rows = []
for ref in ["SVM", "LP", "Perceptron 1 pass"]:
    d = paired_differences(frame[frame.estimator.isin(["FDROP", ref])], ref, value="error")
    rows += [dict(reference=ref, level=r.level, mean=r.mean, ci_low=r.ci_low,
                  ci_high=r.ci_high) for r in d.itertuples()]
out = pd.DataFrame(rows)
out.to_csv(HERE / "fdrop_tuned_paired.csv", index=False)
print()
print(paired_table(out, "reference", "FDROP − …", levels))
chosen = frame[frame.estimator == "FDROP"].groupby("level").chosen.agg(
    lambda c: ", ".join(f"{k} ({v})" for k, v in c.value_counts().items()))
print()
print(chosen.to_string())
