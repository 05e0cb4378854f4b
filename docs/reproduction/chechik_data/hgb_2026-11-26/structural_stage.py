"""chechik-structural, one method (same data, folds, grids and seeds as run_structural)."""
import sys, time
from pathlib import Path
from robustclf.datasets import make_structurally_missing, make_subtype_missing
from robustclf.experiments.chechik import (SUBTYPE_PARTS, SUBTYPE_SETTINGS, cached_method_grids,
                                           cross_validated_errors)
OUT = Path(sys.argv[1])
for method in sys.argv[2:]:
    t = time.perf_counter()
    blocks = [(lv, *make_structurally_missing(1250, n_blocks=6, block_size=3, missing_prob=lv,
                                              noise_std=0.3, random_state=i))
              for i, lv in enumerate([0.2, 0.4, 0.6])]
    subtypes = [(level, *make_subtype_missing(1250, n_subtypes=4, n_blocks=6, block_size=3,
                                              subtype_blocks=SUBTYPE_PARTS, noise_std=0.3,
                                              random_state=10 * level, **kw))
                for level, kw in SUBTYPE_SETTINGS.items()]
    with cached_method_grids(fast=False, random_state=0) as grids:
        for name, data, corr, lvl in (("structural_synthetic", blocks, "StructuralAbsence", "missing_prob"),
                                      ("structural_subtypes", subtypes, "SubtypeAbsence", "setting")):
            frame = cross_validated_errors(data, {method: grids[method]}, corruption=corr,
                                           level_name=lvl, n_folds=5, random_state=0, n_jobs=1)
            frame.to_csv(OUT / f"{name}_{method}.csv", index=False)
    print(time.strftime("%H:%M:%S"), f"done structural:{method} in {time.perf_counter() - t:.0f} s", flush=True)
