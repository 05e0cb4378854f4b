"""New geometric rows against the 25 Nov rows; paired differences against zero, em, hgb-nan."""
from pathlib import Path

import pandas as pd

from robustclf.evaluation import paired_differences

D = "/work/main/docs/reproduction/chechik_data"
NEW = Path("/tmp/s11/mcar")
for ds in ("breast_cancer", "spambase"):
    old = pd.read_csv(f"{D}/mcar_2026-11-25/mcar_{ds}.csv")
    em = pd.read_csv(f"{D}/mcar_em_2026-11-26/{ds}_em.csv")
    hgb = pd.read_csv(f"{D}/hgb_2026-11-26/{ds}_hgb-nan.csv")
    new = pd.concat([pd.read_csv(p) for m in ("geometric", "geometric-eq7")
                     if (p := NEW / f"{ds}_{m}.csv").exists()])
    for m in new.estimator.unique():
        o = old[old.estimator == m].set_index(["level", "repeat"]).error
        n = new[new.estimator == m].set_index(["level", "repeat"]).error
        moved = (o - n).abs()
        print(ds, m, "cells moved", int((moved > 1e-12).sum()), "of", len(moved),
              "max", round(moved.max(), 4))
    frame = pd.concat([new, old[old.estimator.isin(["zero", "mean", "flags"])], em, hgb])
    rows = []
    for m in new.estimator.unique():
        for ref in ("zero", "em", "hgb-nan"):
            d = paired_differences(frame[frame.estimator.isin([m, ref])], ref, value="error")
            rows += [(ds, m, ref, r.level, r.mean, r.ci_low, r.ci_high) for r in d.itertuples()]
    out = pd.DataFrame(rows, columns=["data", "estimator", "reference", "level", "mean",
                                      "ci_low", "ci_high"])
    print(new.groupby(["estimator", "level"]).error.agg(["mean", "sem"]).unstack(0).round(3))
    old_rows = old[old.estimator.isin(new.estimator.unique())]
    print("old", old_rows.groupby(["estimator", "level"]).error.mean().unstack(0).round(3))
    out.to_csv(f"/tmp/s11/paired_{ds}.csv", index=False)
    print(out.round(4).to_string(index=False))
