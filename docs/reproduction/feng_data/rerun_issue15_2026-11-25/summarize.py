"""Tables of the issue-15 rerun for feng.md, from the CSVs beside this script.

Writes summary.md: per experiment, mean error per (estimator, level), the paired differences
against RoLR (mean and 95 % Student-t interval over the repeats, robustclf.evaluation.
paired_differences), the rows the MCD filters removed, and whether the estimators that existed
before issue 15 give the same numbers as the committed CSVs of the earlier reruns (bit for bit).

Run from anywhere: python summarize.py (with robustclf importable).
"""

from pathlib import Path

import numpy as np
import pandas as pd

from robustclf.evaluation import paired_differences
from robustclf.report import markdown_table

HERE = Path(__file__).parent
OLD = HERE.parent
FILES = {
    "rolr_simulation_fig2a_parameter_error": "simulation_2026-11-25",
    "rolr_simulation_fig2b_test_error": "simulation_2026-11-25",
    "rolr_matched_fig2a_parameter_error": "matched_outliers_2026-11-25",
    "rolr_matched_fig2b_test_error": "matched_outliers_2026-11-25",
    "rolr_spambase": "intercept_fix_2026-11-25",
    "rolr_correlated_parameter_error": None,
    "rolr_correlated_test_error": None,
}
COMPARED = ["MCD filter + LR", "MCD filter (chi2) + LR", "RoLR (MCD-whitened)", "LR+P", "LR",
            "Eq. (2) population limit"]


def means(frame):
    table = frame.pivot_table(index="estimator", columns="level", values="error", aggfunc="mean",
                              sort=False)
    table.columns = [f"{c:g}" for c in table.columns]
    return table


def paired(frame):
    names = [n for n in COMPARED if n in set(frame["estimator"])]
    diff = paired_differences(frame[frame["estimator"].isin(["RoLR", *names])], "RoLR")
    diff["cell"] = [f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]" for m, lo, hi in
                    zip(diff["mean"], diff["ci_low"], diff["ci_high"], strict=True)]
    table = diff.pivot_table(index="estimator", columns="level", values="cell", aggfunc="first",
                             sort=False).reindex(names)
    table.index = [f"{n} - RoLR" for n in table.index]
    table.columns = [f"{c:g}" for c in table.columns]
    return table


def removed(frame):
    f = frame[frame["estimator"].str.startswith("MCD")]
    if "removed_outliers" not in f:
        return None
    table = f.pivot_table(index="estimator", columns="level",
                          values=["removed_outliers", "removed_authentic"], aggfunc="mean")
    return table.round(1)


def same_as_before(name, frame):
    if FILES[name] is None:
        return "new experiment"
    old = pd.read_csv(OLD / FILES[name] / f"{name}.csv")
    new = frame[frame["estimator"].isin(set(old["estimator"]))].reset_index(drop=True)
    cols = [c for c in old.columns]
    if len(old) != len(new):
        return (f"not comparable with {FILES[name]} (different settings: {len(new)} vs "
                f"{len(old)} rows)")
    equal = old[cols].equals(new[cols])
    worst = np.max(np.abs(old["error"].to_numpy() - new["error"].to_numpy()))
    return f"old estimators identical to {FILES[name]}: {equal} (largest |difference| {worst:g})"


parts = ["# Rerun of 25 Nov 2026 (issue 15): tables per experiment", ""]
for name in FILES:
    path = HERE / f"{name}.csv"
    if not path.exists():
        parts.append(f"## {name}\n\nnot run\n")
        continue
    frame = pd.read_csv(path)
    parts += [f"## {name}", "", same_as_before(name, frame), "",
              "Mean error:", "", markdown_table(means(frame).round(3)), "",
              "Paired differences against RoLR (mean [95 % CI]):", "",
              markdown_table(paired(frame)), ""]
    if "cosine" in frame:
        cos = frame.pivot_table(index="estimator", columns="level", values="cosine",
                                aggfunc="mean", sort=False)
        cos.columns = [f"{c:g}" for c in cos.columns]
        parts += ["Mean cosine to beta*:", "", markdown_table(cos.round(3)), ""]
    rem = removed(frame)
    if rem is not None:
        parts += ["Rows removed by the MCD filters (mean per fit):", "", rem.to_string(), ""]
(HERE / "summary.md").write_text("\n".join(parts), encoding="utf-8")
print("\n".join(parts))
