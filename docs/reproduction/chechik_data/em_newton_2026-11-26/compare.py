"""The new `em` rows against the previous ones (em_stop_2026-11-26: the history-only stop; cells
moved), and geometric - em / zero - em
paired differences (95 % t intervals over the folds) for every part rerun. Run from this
folder after run_em.py; writes compare.csv."""
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences

HERE = Path(__file__).parent
D = HERE.parent
PARTS = {  # stem: (previous em rows, geometric rows, zero rows)
    "votes": ("em_stop_2026-11-26/votes_em.csv",) + ("votes_2026-11-26/votes.csv",) * 2,
    "breast_cancer": ("em_stop_2026-11-26/breast_cancer_em.csv",
                      "mcar_geometric_2026-11-26/breast_cancer_geometric.csv",
                      "mcar_2026-11-25/mcar_breast_cancer.csv"),
    "spambase": ("em_stop_2026-11-26/spambase_em.csv",
                 "mcar_geometric_2026-11-26/spambase_geometric.csv",
                 "mcar_2026-11-25/mcar_spambase.csv"),
    "structural_synthetic": ("em_stop_2026-11-26/structural_synthetic_em.csv",
                             "structural_2026-11-26/structural_synthetic_geometric.csv",
                             "full_2026-11-22/chechik-structural/structural_synthetic.csv"),
    "structural_subtypes": ("em_stop_2026-11-26/structural_subtypes_em.csv",
                            "structural_2026-11-26/structural_subtypes_geometric.csv",
                            "full_2026-11-22/chechik-structural/structural_subtypes.csv"),
}
rows = []
for stem, (old_path, geo_path, zero_path) in PARTS.items():
    path = HERE / f"{stem}_em.csv"
    if not path.exists():
        continue
    new = pd.read_csv(path)
    old = pd.read_csv(D / old_path)
    old = old[old.estimator == "em"]
    key = ["level", "repeat"]
    moved = (new.set_index(key).error - old.set_index(key).error).abs()
    print(f"{stem}: em cells moved {int((moved > 1e-12).sum())} of {len(moved)}, "
          f"largest {moved.max():.4f}; refit {old.fit_seconds.mean():.2f} s -> "
          f"{new.fit_seconds.mean():.2f} s")
    others = []
    for p in {geo_path, zero_path}:
        if (D / p).exists():
            frame = pd.read_csv(D / p)
            others.append(frame[frame.estimator.isin(["geometric", "zero"])])
    frame = pd.concat([new, *others]).drop_duplicates(["estimator", "level", "repeat"])
    for est in ("geometric", "zero"):
        if est not in set(frame.estimator):
            continue
        d = paired_differences(frame[frame.estimator.isin([est, "em"])], "em", value="error")
        rows += [(stem, est, r.level, r.mean, r.ci_low, r.ci_high) for r in d.itertuples()]
    means = pd.concat([new.assign(version="new"), old.assign(version="old")])
    print(means.groupby(["level", "version"]).error.mean().unstack().round(4).to_string())
out = pd.DataFrame(rows, columns=["part", "estimator_minus_em", "level", "mean", "ci_low",
                                  "ci_high"])
out.to_csv(HERE / "compare.csv", index=False)
print(out.round(4).to_string(index=False))
