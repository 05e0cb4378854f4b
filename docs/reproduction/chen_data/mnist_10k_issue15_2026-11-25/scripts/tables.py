"""Markdown tables for chen.md from the merged rerun outputs. usage: tables.py OUTDIR"""
import sys
from pathlib import Path

import pandas as pd

out = Path(sys.argv[1])
per = pd.read_csv(out / "mnist_nightmare_per_level.csv")
clean = pd.read_csv(out / "mnist_nightmare_clean_selection.csv")
diffs = pd.read_csv(out / "paired_differences.csv")
grid = pd.read_csv(out / "grid_points.csv")
ORDER = ["Hinge-L2 (SVC, free bias)", "Hinge-L2 (LinearSVC)", "Dropout-SVM (bound)",
         "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)", "Dropout-Logistic (gaussian)",
         "LogisticRegression", "MCF-Logistic", "MCF-Quadratic"]
LEVELS = sorted(per["level"].unique())


def means(frame):
    m = frame.groupby(["estimator", "level"])["error"].mean().unstack()
    rows = ["| estimator \\ deleted | " + " | ".join(f"{v:g}" for v in LEVELS) + " |",
            "|---" * (len(LEVELS) + 1) + "|"]
    for n in ORDER:
        if n in m.index:
            rows.append(f"| {n} | " + " | ".join(f"{m.loc[n, v]:.3f}" for v in LEVELS) + " |")
    return "\n".join(rows)


def chosen(frame, names):
    rows = []
    for n in names:
        part = frame[frame["estimator"] == n]
        cells = []
        for v in LEVELS:
            p = part[part["level"] == v]
            qs = "/".join(sorted({f"{x:g}" for x in p["q"]}))
            cs = "/".join(sorted({f"{x:g}" for x in p["C"]}, key=float))
            cells.append(f"{qs}, {cs}" if not n.startswith("Hinge") else cs)
        rows.append(f"| {n} | " + " | ".join(cells) + " |")
    head = ["| chosen (q, c) \\ deleted | " + " | ".join(f"{v:g}" for v in LEVELS) + " |",
            "|---" * (len(LEVELS) + 1) + "|"]
    return "\n".join(head + rows)


def diff_table(protocol, reference, levels=None):
    d = diffs[(diffs["protocol"] == protocol) & (diffs["reference"] == reference)]
    levels = levels or LEVELS
    rows = ["| model − " + reference + " \\ deleted | " + " | ".join(f"{v:g}" for v in levels)
            + " |", "|---" * (len(levels) + 1) + "|"]
    for n in dict.fromkeys(d["estimator"]):
        cells = []
        for v in levels:
            r = d[(d["estimator"] == n) & (d["level"] == v)].iloc[0]
            s = f"{r['mean']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
            if r["ci_high"] < 0:
                s = f"**{s}**"
            cells.append(s)
        rows.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


print("### means, paper's protocol\n")
print(means(per))
print("\n### chosen\n")
print(chosen(per, ORDER[:6]))
print("\n### means, clean selection\n")
print(means(clean))
for ref in ["Hinge-L2 (SVC, free bias)", "Hinge-L2 (LinearSVC)"]:
    print(f"\n### diffs per level vs {ref}\n")
    print(diff_table("per level (paper)", ref))
for ref in ["Hinge-L2 (SVC, free bias)", "Hinge-L2 (LinearSVC)"]:
    print(f"\n### diffs clean selection vs {ref}\n")
    print(diff_table("clean selection", ref, [0.0, 0.3, 0.5, 0.7, 0.9]))
print("\n### baseline grid points\n")
g = grid[grid["estimator"].str.startswith("Hinge")][
    ["estimator", "C", "source", "fit_seconds", "clean_test_error", "test_error_50pct",
     "test_error_70pct", "max_relative_duality_gap", "n_convergence_warnings", "n_iter"]]
print("| " + " | ".join(g.columns) + " |")
print("|---" * len(g.columns) + "|")
for r in g.itertuples(index=False):
    print("| " + " | ".join(str(v) for v in r) + " |")

from robustclf.evaluation import paired_differences  # noqa: E402

print("\n### LinearSVC minus free-bias SVM\n")
for name, frame in [("per level", per), ("clean", clean)]:
    d = paired_differences(frame[frame["estimator"].isin(["Hinge-L2 (SVC, free bias)",
                                                          "Hinge-L2 (LinearSVC)"])],
                           "Hinge-L2 (SVC, free bias)")
    print(name, " | ".join(f"{r.level:g}: {r.mean:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}]"
                           for r in d.itertuples()))
