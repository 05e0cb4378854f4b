"""Time and extra memory of the certificate on a sparse matrix and on its dense copy (issue 17.3).

The data are a CSR matrix (default 20,000 x 5,000, density 0.2 %, values uniform in [0, 1);
800 MB dense) with labels of a noisy linear rule; ``--rows``/``--features``/``--density``
change it. Two models: ``LinearSVC`` with the papers' raw-zero deletion (``fill=0.0``: only
stored entries can be deleted with effect) and ``SimpleImputer`` + ``StandardScaler(with_mean=
False)`` + ``LinearSVC`` with deletion as absence (``fill=np.nan``: a deleted entry becomes the
imputer's mean, so deleting an implicit zero moves the score too). Each case runs in a fresh
subprocess that builds the data (and, for the dense cases, ``X.toarray()``, not counted),
resets the kernel's high-water mark of its resident memory (``/proc/self/clear_refs``) and
reports the peak resident memory above what it held before the call (``VmHWM - VmRSS``) and
the wall time; the results of the sparse and dense calls are compared (equal certified errors,
margins to 1e-12).

Measured on the project machine (2 cores shared with other jobs, OMP_NUM_THREADS=1), 26 Nov
2026, default data (extra MB: peak resident memory above the held inputs):

==============================  =================  ==================  =======================
case                            sparse             dense               result
==============================  =================  ==================  =======================
svc, uniform, N=3, certified    0.07 s, 12 MB      34.7 s, 7,249 MB    0.8459 exact, equal
svc, mutual info, N=1, cert.    0.23 s, 11 MB      34.1 s, 7,250 MB    0.1948 exact, equal
svc, mutual info, N=1, margins  1.62 s, 14 MB      71.2 s, 9,869 MB    exact, equal
imputed, uniform, N=3, cert.    0.54 s, 13 MB      80.0 s, 7,250 MB    0.8441 exact, equal
imputed, uniform, N=3, margins  0.14 s, 13 MB      37.1 s, 7,250 MB    exact, equal
imputed, mutual info, N=1, c.   34.7 s, 34 MB      96.8 s, 7,250 MB    bracket (time limit)
==============================  =================  ==================  =======================

The last case leaves rows open in both layouts: ``exact="auto"`` gives the exact solver 30 s
and the MILPs over the ~2,500 implicit zeros each row may delete need more; the brackets
([0.2572, 0.2856] sparse, [0.2572, 0.2855] dense) then depend on how far each got in its 30 s.

Usage: python benchmarks/bench_certify_sparse.py [--rows 20000] [--features 5000]
       [--density 0.002] [--only NAME ...] [--sparse-only]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
from _sparse_harness import make_data, measure

#: name -> (model, feature values, budget, function)
CASES = {
    "svc_uniform_b3_certified": ("svc", "uniform", 3, "certified_error"),
    "svc_mi_b1_certified": ("svc", "mutual_info", 1, "certified_error"),
    "svc_mi_b1_margins": ("svc", "mutual_info", 1, "worst_case_margin"),
    "imputed_uniform_b3_certified": ("imputed", "uniform", 3, "certified_error"),
    "imputed_uniform_b3_margins": ("imputed", "uniform", 3, "worst_case_margin"),
    "imputed_mi_b1_certified": ("imputed", "mutual_info", 1, "certified_error"),
}


def run_case(name, layout, args):
    """One case in this process: time, extra memory and the result's summary."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from robustclf import certify
    from robustclf.feature_values import mutual_info_values

    model_name, values, budget, func = CASES[name]
    X, y = make_data(args.rows, args.features, args.density)
    if model_name == "svc":
        model, fill = LinearSVC().fit(X, y), 0.0
    else:
        model = make_pipeline(SimpleImputer(), StandardScaler(with_mean=False),
                              LinearSVC()).fit(X, y)
        fill = np.nan
    if values == "mutual_info":
        values = mutual_info_values(X, y)
    data = X.toarray() if layout == "dense" else X
    del X
    out, seconds, extra = measure(
        lambda: getattr(certify, func)(model, data, y, budget, values, fill=fill))
    if func == "certified_error":
        summary = {"error": out.error, "is_exact": out.is_exact, "bracket": out.bracket}
    else:
        summary = {"exact": out.exact is not None, "lower": out.lower.tolist(),
                   "upper": out.upper.tolist()}
    return {"seconds": seconds, "extra_mb": extra, "summary": summary}


def _describe(summary):
    if "error" in summary:
        return (f"error {summary['error']:.4f} ({'exact' if summary['is_exact'] else 'bracket'}"
                f" {summary['bracket'][0]:.4f}-{summary['bracket'][1]:.4f})")
    return f"exact margins: {summary['exact']}"


def _same(a, b):
    if "error" in a:
        return a == b
    return a["exact"] == b["exact"] and all(
        np.allclose(a[k], b[k], rtol=1e-12, atol=1e-12) for k in ("lower", "upper"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=5_000)
    parser.add_argument("--density", type=float, default=0.002)
    parser.add_argument("--only", nargs="+", default=None, choices=list(CASES))
    parser.add_argument("--sparse-only", action="store_true")
    parser.add_argument("--case", default=None, help=argparse.SUPPRESS)  # child process
    parser.add_argument("--layout", default="sparse", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case is not None:
        print(json.dumps(run_case(args.case, args.layout, args)))
        return
    print(f"{args.rows} x {args.features} CSR, density {args.density:g} "
          f"(dense: {args.rows * args.features * 8 / 1e6:.0f} MB, not counted below)")
    for name in args.only or list(CASES):
        results = {}
        for layout in ["sparse"] + ([] if args.sparse_only else ["dense"]):
            cmd = [sys.executable, __file__, "--case", name, "--layout", layout,
                   "--rows", str(args.rows), "--features", str(args.features),
                   "--density", str(args.density)]
            res = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                            text=True).stdout.strip().splitlines()[-1])
            results[layout] = res
            print(f"{name:30s} {layout:6s} {res['seconds']:8.2f} s {res['extra_mb']:8.0f} MB "
                  f"extra  {_describe(res['summary'])}", flush=True)
        if "dense" in results:
            same = _same(results["sparse"]["summary"], results["dense"]["summary"])
            print(f"{'':30s} sparse result == dense result: {same}", flush=True)


if __name__ == "__main__":
    main()
