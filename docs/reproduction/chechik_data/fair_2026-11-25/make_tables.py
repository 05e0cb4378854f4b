"""Markdown tables of the fair Chechik comparison from fair.csv (printed to stdout)."""

import ast
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences

here = Path(__file__).parent
frame = pd.read_csv(here / "fair.csv", keep_default_na=False)
order = ["bayes", "zero", "mean", "zero+indicators", "hgb-nan", "per-pattern", "geometric",
         "geometric-es"]
order = [n for n in order if n in set(frame.estimator)]
levels = sorted(frame.level.unique())


def table(rows, fmt):
    head = "| estimator \\ setting | " + " | ".join(str(lv) for lv in levels) + " |"
    lines = [head, "|---" * (len(levels) + 1) + "|"]
    for name in rows:
        cells = [fmt(name, lv) for lv in levels]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


stats = frame.groupby(["estimator", "level"]).error.agg(["mean", "sem"])
print(table(order, lambda n, lv: f"{stats.loc[(n, lv), 'mean']:.3f} ± "
                                 f"{stats.loc[(n, lv), 'sem']:.3f}"))
print()
for ref in ("zero", "geometric"):
    d = paired_differences(frame[frame.estimator != "bayes"], ref).set_index(["estimator",
                                                                                "level"])
    others = [n for n in order if n not in ("bayes", ref)]
    print(f"Paired difference, estimator − {ref} (points of error, 95 % t interval):\n")
    print(table(others, lambda n, lv, d=d: "{:+.1f} [{:+.1f}, {:+.1f}]".format(
        *(100 * d.loc[(n, lv), c] for c in ("mean", "ci_low", "ci_high")))))
    print()
geo = frame[frame.estimator == "geometric"].copy()
geo["iters"] = [ast.literal_eval(p)["max_iter"] for p in geo.best_params]
print("geometric: chosen iteration counts per setting:",
      {int(lv): sorted(g.iters.tolist()) for lv, g in geo.groupby("level")})
secs = frame[frame.estimator != "bayes"].groupby("estimator")[["fit_seconds",
                                                                "search_seconds"]].mean()
print(secs.round(2).to_string())
