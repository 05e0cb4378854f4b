"""The new `em` rows against the previous ones (cells moved), and geometric - em / zero - em
paired differences (95 % t intervals over the folds) for every part rerun. Run from this
folder after run_em.py; writes compare.csv. ``--new DIR``: DIR's em rows against this
folder's."""
import sys
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences

HERE = Path(__file__).parent
D = HERE.parent
PARTS = {  # stem: (previous em rows, geometric rows, zero rows)
    "votes": ("votes_2026-11-26/votes.csv",) * 2 + ("votes_2026-11-26/votes.csv",),
    "breast_cancer": ("mcar_em_2026-11-26/breast_cancer_em.csv",
                      "mcar_geometric_2026-11-26/breast_cancer_geometric.csv",
                      "mcar_2026-11-25/mcar_breast_cancer.csv"),
    "spambase": ("mcar_em_2026-11-26/spambase_em.csv",
                 "mcar_geometric_2026-11-26/spambase_geometric.csv",
                 "mcar_2026-11-25/mcar_spambase.csv"),
    "structural_synthetic": ("structural_2026-11-26/structural_synthetic_em.csv",
                             "structural_2026-11-26/structural_synthetic_geometric.csv",
                             "full_2026-11-22/chechik-structural/structural_synthetic.csv"),
    "structural_subtypes": ("structural_2026-11-26/structural_subtypes_em.csv",
                            "structural_2026-11-26/structural_subtypes_geometric.csv",
                            "full_2026-11-22/chechik-structural/structural_subtypes.csv"),
}
if sys.argv[1:2] == ["--new"]:  # (added 26 Nov 2026, evening) python compare.py --new DIR:
    # DIR's em rows against this folder's, compare.csv into DIR
    HERE = Path(sys.argv[2]).resolve()
    PARTS = {stem: (f"em_stop_2026-11-26/{stem}_em.csv", *paths[1:])
             for stem, paths in PARTS.items()}
    PARTS["votes"] = ("em_stop_2026-11-26/votes_em.csv", *PARTS["votes"][1:])
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
    for p in dict.fromkeys([geo_path, zero_path]):  # (in order: the newer geometric rows first)
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
