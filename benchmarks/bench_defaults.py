"""Every estimator at its default settings against an independent oracle (issue 14).

Part 1 (``--parts 1``): for each estimator, on one or two real data sets, the default fit's
objective gap to an independent solve of the same objective (cvxpy + Clarabel, HiGHS, scipy at
tight tolerance, or an unrelated algorithm; see :mod:`robustclf._oracles`), whether its test
predictions are the oracle's, and its time beside a tightly converged fit and the oracle. The
cases come from the ``bench_cases()`` function of every oracle module.

Part 2 (``--parts 2``): DropoutSVC's solver at its default tolerance and iteration cap on MNIST
(60,000 x 784, 10 classes, pixels in [0, 1]) in issue 14's configuration (``objective="bound"``,
q = 0.5, C = 0.1; the estimator's default model is now the Gaussian objective at q = 0.2, C = 10,
see docs/foundation.md "Defaults") against ``LinearSVC(loss="hinge")`` timed in the same run,
converged (max_iter = 20,000) and at scikit-learn's default iteration cap (1,000); target: time
ratio <= 1.0 at test predictions identical to the optimum's (a float64 Newton solve at tol = 1e-9).

Data: ``--data-dir`` or the ROBUSTCLF_DATA environment variable; the MNIST part is skipped
without the files.

Usage: python benchmarks/bench_defaults.py [--parts 12] [--data-dir DIR] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import importlib
import time
import warnings

import numpy as np

ORACLE_MODULES = ("dropout", "mcf", "rolr", "deletion", "missing", "worst_case")


def part_oracles(data_dir, only):
    print("## Default fits against independent oracles\n")
    print("| estimator | data | objective gap | oracle's predictions | default s | tight s "
          "| oracle s | note |")
    print("|---|---|---|---|---|---|---|---|")
    for name in ORACLE_MODULES:
        if only and name not in only:
            continue
        try:
            module = importlib.import_module(f"robustclf._oracles.{name}")
        except ImportError as exc:
            print(f"| ({name}: oracle module unavailable: {exc}) |||||||")
            continue
        if not hasattr(module, "bench_cases"):
            continue
        for case in module.bench_cases(data_dir):
            gap = case.get("objective_gap")
            gap = "n/a" if gap is None or not np.isfinite(gap) else f"{gap:.1e}"
            print(f"| {case['estimator']} | {case['dataset']} | {gap} "
                  f"| {'yes' if case.get('same_predictions') else 'NO'} "
                  f"| {case.get('time_default', float('nan')):.2f} "
                  f"| {case.get('time_tight', float('nan')):.2f} "
                  f"| {case.get('time_oracle', float('nan')):.2f} | {case.get('note', '')} |",
                  flush=True)


def part_mnist(data_dir):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    from robustclf.datasets import load_mnist
    from robustclf.linear import DropoutSVC
    from robustclf.linear import _dropout_solvers as solvers
    from robustclf.linear._base import ovr_targets
    from robustclf.linear._dropout_losses import HingeBound
    from robustclf.noise import make_noise

    try:
        Xtr, Xte, ytr, yte = load_mnist(data_dir=data_dir, scale=True, return_X_y=True)
    except (FileNotFoundError, OSError):
        print("\n(MNIST not found: part 2 skipped)")
        return
    Xtr = np.asarray(Xtr, dtype=np.float64)
    q, C = 0.5, 0.1
    print(f"\n## MNIST {Xtr.shape[0]} x {Xtr.shape[1]}, 10 classes, q = {q}, C = {C}\n")

    def timed(make):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            t0 = time.perf_counter()
            model = make().fit(Xtr, ytr)
            elapsed = time.perf_counter() - t0
        return model, elapsed, bool(caught)

    dropout, t_dropout, warned = timed(lambda: DropoutSVC(q=q, C=C, objective="bound"))
    classes, Y = ovr_targets(ytr)
    noise = make_noise("dropout", q)
    var = solvers.Variance(*noise._variance_terms(Xtr), Xtr.shape)
    t0 = time.perf_counter()
    tight = solvers.newton(Xtr, Y, var, HingeBound(C), tol=1e-9, max_iter=300)
    t_tight = time.perf_counter() - t0
    optimum = classes[np.argmax(Xte @ tight.coef.T + tight.intercept, axis=1)]
    pred = dropout.predict(Xte)
    ref = np.hstack([tight.coef, tight.intercept[:, None]])
    theta = np.hstack([dropout.coef_, dropout.intercept_[:, None]])
    rel = np.linalg.norm(theta - ref, axis=1) / np.linalg.norm(ref, axis=1)
    svc, t_svc, svc_warned = timed(lambda: LinearSVC(loss="hinge", C=C, max_iter=20_000,
                                                     random_state=0))
    cap, t_cap, cap_warned = timed(lambda: LinearSVC(loss="hinge", C=C, random_state=0))
    print("| model | fit s | test error | note |")
    print("|---|---|---|---|")
    print(f"| DropoutSVC (defaults) | {t_dropout:.1f} | {np.mean(pred != yte):.4f} | Newton steps "
          f"{dropout.n_iter_.min()}-{dropout.n_iter_.max()}, relative gradient <= "
          f"{dropout.optimality_.max():.1e}{', ConvergenceWarning' if warned else ''}; "
          f"predictions equal to the optimum's on {np.mean(pred == optimum):.4f} of the test "
          f"rows; coefficients within {rel.max():.1e} (relative) |")
    print(f"| DropoutSVC optimum (float64, tol=1e-9) | {t_tight:.1f} "
          f"| {np.mean(optimum != yte):.4f} | |")
    print(f"| LinearSVC hinge, max_iter=20000 | {t_svc:.1f} | "
          f"{np.mean(svc.predict(Xte) != yte):.4f} | "
          f"{'ConvergenceWarning' if svc_warned else 'converged'} |")
    print(f"| LinearSVC hinge, default max_iter | {t_cap:.1f} | "
          f"{np.mean(cap.predict(Xte) != yte):.4f} | "
          f"{'ConvergenceWarning' if cap_warned else 'converged'} |")
    print(f"\nratio DropoutSVC / LinearSVC converged: {t_dropout / t_svc:.2f}; "
          f"/ LinearSVC default cap: {t_dropout / t_cap:.2f} (target <= 1.0)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="12")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--only", nargs="*", default=None,
                        help=f"oracle modules of part 1 (of {', '.join(ORACLE_MODULES)})")
    args = parser.parse_args()
    if "1" in args.parts:
        part_oracles(args.data_dir, args.only)
    if "2" in args.parts:
        part_mnist(args.data_dir)


if __name__ == "__main__":
    main()
