"""Old (5df7ab7~1) vs new (HEAD of 25 Nov 2026) per-run errors of the three Feng experiments.

Usage: python compare.py OLD_ROOT NEW_ROOT OUT.csv, where each root holds the folders
rolr-spambase/, rolr-simulation/, rolr-matched-outliers/ written by `robustclf reproduce NAME
--output ROOT --n-jobs 1` (seed 0, full mode). The old results come from the code before the
solver rewrite, run from an export of that commit:

    git archive 5df7ab7~1 src | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old/src python -c "import sys; from robustclf.cli import main; \
        sys.exit(main())" reproduce NAME --output OLD_ROOT --n-jobs 1
"""

import sys

import pandas as pd

CURVES = [("rolr-spambase", "rolr_spambase"),
          ("rolr-simulation", "rolr_simulation_fig2a_parameter_error"),
          ("rolr-simulation", "rolr_simulation_fig2b_test_error"),
          ("rolr-matched-outliers", "rolr_matched_fig2a_parameter_error"),
          ("rolr-matched-outliers", "rolr_matched_fig2b_test_error")]


def main(old_root: str, new_root: str, out_csv: str) -> None:
    frames = []
    for exp, stem in CURVES:
        old = pd.read_csv(f"{old_root}/{exp}/{stem}.csv")
        new = pd.read_csv(f"{new_root}/{exp}/{stem}.csv")
        both = old.merge(new, on=["estimator", "level", "repeat"], suffixes=("_old", "_new"))
        assert len(both) == len(old) == len(new)
        both["diff"] = both.error_new - both.error_old
        summary = both.groupby(["estimator", "level"]).agg(
            old=("error_old", "mean"), new=("error_new", "mean"),
            max_abs_diff=("diff", lambda d: d.abs().max()),
            collapsed_old=("collapsed_old", "sum"), collapsed_new=("collapsed_new", "sum"),
        ).reset_index()
        summary.insert(0, "curve", stem)
        frames.append(summary)
    pd.concat(frames).to_csv(out_csv, index=False, float_format="%.6g")


if __name__ == "__main__":
    main(*sys.argv[1:4])
