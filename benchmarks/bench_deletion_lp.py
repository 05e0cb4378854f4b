"""Benchmark: exact solvers of Dekel & Shamir's Eq. (4), and the first-order solver.

Run ``python benchmarks/bench_deletion_lp.py [--full] [--mnist-budget S] [--only SECTION]``.
Everything is timed in the same run and reported as ratios (full LP / cutting planes;
first-order objective / exact optimum), so the numbers depend less on how busy the machine is
than absolute times would; the load average is printed beside each timing.

* Exact solve vs m, for n = 57 (spambase, features scaled to [0, 1]) and n = 784 (MNIST 4 vs 7):
  HiGHS on the full LP of Eq. (4) against cutting planes, both to optimality; their optima must
  agree. ``--full`` adds the whole spambase training fold (9/10 of 4,601 rows; the full LP then
  takes ~10 minutes).
* ``--full`` or ``--only first-order``: the first-order solver (restarted AdaGrad subgradient)
  on the spambase fold: its relative objective gap to the exact optimum against epochs and time
  (and against the same method without restarts), and the cutting planes warm started by it.
* THRESHOLD (300 x 215) with 20 % training outliers: the same comparison on a degenerate
  optimum at or near 0 (three draws, budgets 1 and 4).
* ``--only ties``: the tie-break of a zero optimum (``tie_break="min_l1"``) on clean
  THRESHOLD: the estimator's fit time with and without it (ratio), and how many predictions
  on the test rows with half the features deleted differ between the full LP and the cutting
  planes from two seeds, with and without it.
* FDROP (Globerson & Roweis) on MNIST 4 vs 7 rows: its direct QP against its cutting planes
  (supports, whole rows, Kelley cuts alone), and the benchmark's training-outlier cell
  (whole rows there only with ``--full``).
* ``--mnist-budget S``: cutting planes on the whole MNIST 4 vs 7 training set (12,107 x 784)
  for at most S seconds: the best objective, the certified lower bound and their gap.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from robustclf.datasets import load_mnist, load_spambase
from robustclf.experiments.dekel_shamir import scale_features
from robustclf.linear._deletion_lp_solvers import (
    solve_cutting_plane,
    solve_full_lp,
    solve_subgradient,
)


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    res = fn(*args, **kwargs)
    return res, time.perf_counter() - start


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def _data(name: str, m: int | None, seed: int = 0):
    """``m`` random rows (``None``: the spambase training fold, or all MNIST training rows)."""
    if name == "spambase":
        X, y = load_spambase(return_X_y=True)
        X = scale_features(X)[0]
        y = np.where(y == 1, 1.0, -1.0)
        default = int(0.9 * X.shape[0])
    else:
        X, _, y, _ = load_mnist(digits=(4, 7), scale=True, return_X_y=True)
        y = np.where(y == 7, 1.0, -1.0)
        default = X.shape[0]
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    return X[idx[: m if m is not None else default]], y[idx[: m if m is not None else default]]


def exact_vs_m(name: str, sizes, budget: float) -> None:
    print(f"\n{name}: full LP (HiGHS) vs cutting planes, budget N={budget}, C/gamma=10")
    print(f"{'m':>6} {'n':>5} {'full LP s':>10} {'cuts s':>8} {'rounds':>6} {'speed-up':>8} "
          f"{'|obj diff|':>10}  load (1 min) after each")
    for m in sizes:
        X, y = _data(name, m)
        v = np.ones(X.shape[1])
        full, t_full = _timed(solve_full_lp, X, y, v, budget, 1.0, 10.0)
        load_full = _load()
        cut, t_cut = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0, random_state=0)
        print(f"{X.shape[0]:>6} {X.shape[1]:>5} {t_full:>10.2f} {t_cut:>8.2f} {cut.n_iter:>6} "
              f"{t_full / t_cut:>8.1f} {abs(full.lower_bound - cut.objective):>10.2e}  "
              f"{load_full}, {_load()}" + ("" if cut.converged else "  (cuts NOT converged)"),
              flush=True)


def contaminated_threshold(budgets=(1.0, 4.0), draws=(0, 1, 2)) -> None:
    """THRESHOLD (300 x 215) plus 20 % training outliers (the benchmark's contamination): a
    degenerate optimum at or near 0, where vertex solutions of the cut LPs stalled."""
    from robustclf.datasets import load_split
    from robustclf.experiments.benchmark import contaminate

    print("\nTHRESHOLD + 20 % outliers (360 x 215): full LP (HiGHS) vs cutting planes, C/gamma=10")
    print(f"{'draw':>4} {'N':>3} {'full LP s':>10} {'cuts s':>8} {'rounds':>6} {'speed-up':>8} "
          f"{'|obj diff|':>10}  load (1 min) after each")
    for draw in draws:
        split = load_split("threshold", random_state=draw)
        X, y = contaminate(np.asarray(split.X_train, float), np.asarray(split.y_train), 0.2,
                           draw)
        y = np.where(y == 1, 1.0, -1.0)
        v = np.ones(X.shape[1])
        for budget in budgets:
            full, t_full = _timed(solve_full_lp, X, y, v, budget, 1.0, 10.0)
            load_full = _load()
            cut, t_cut = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0,
                                random_state=0)
            print(f"{draw:>4} {budget:>3g} {t_full:>10.2f} {t_cut:>8.2f} {cut.n_iter:>6} "
                  f"{t_full / t_cut:>8.1f} {abs(full.objective - cut.objective):>10.2e}  "
                  f"{load_full}, {_load()}" + ("" if cut.converged else "  (cuts NOT converged)"),
                  flush=True)


def ties(budgets=(1.0, 4.0), splits=(0, 1)) -> None:
    """Clean THRESHOLD (300 x 215, separable at these budgets except split 1 at N = 4)."""
    import warnings

    from robustclf import DeletionRobustLP
    from robustclf.datasets import load_split

    print("\nTHRESHOLD: tie_break='min_l1' against None (fits: full LP, cutting planes seeds 0, 1)")
    print(f"{'split':>5} {'N':>3} {'objective':>10} {'l1 min_l1':>17} {'s min_l1':>11} "
          f"{'s None':>9} {'time ratio':>10} {'differ min_l1':>13} {'differ None':>11}")
    fits = [("lp", 0), ("cutting_plane", 0), ("cutting_plane", 1)]
    for split_seed in splits:
        split = load_split("threshold", random_state=split_seed)
        X = np.asarray(split.X_train, float)
        X_test = np.asarray(split.X_test, float)
        rng = np.random.default_rng(0)
        deleted = np.vstack([X_test * (rng.random(X_test.shape) > 0.5) for _ in range(3)])
        for budget in budgets:
            row = {}
            for tie_break in ("min_l1", None):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")  # a fit short of its optimum is a failure
                    out = [_timed(DeletionRobustLP(budget=budget, solver=solver,
                                                   random_state=seed,
                                                   tie_break=tie_break).fit, X, split.y_train)
                           for solver, seed in fits]
                predictions = [model.predict(deleted) for model, _ in out]
                row[tie_break] = (out, [int((p != predictions[0]).sum())
                                        for p in predictions[1:]])
            tied, untied = row["min_l1"], row[None]
            l1 = [float(np.abs(model.coef_).sum()) for model, _ in tied[0]]
            t_tied = [t for _, t in tied[0]]
            t_untied = [t for _, t in untied[0]]
            print(f"{split_seed:>5} {budget:>3g} {tied[0][0][0].objective_[0]:>10.2e} "
                  f"{min(l1):>8.3f}-{max(l1):<8.3f} {min(t_tied):>5.1f}-{max(t_tied):<5.1f} "
                  f"{min(t_untied):>4.1f}-{max(t_untied):<4.1f} "
                  f"{sum(t_tied) / sum(t_untied):>10.1f} {str(tied[1]):>13} "
                  f"{str(untied[1]):>11}  {_load()}", flush=True)


def first_order(budget: float) -> None:
    X, y = _data("spambase", None)
    v = np.ones(X.shape[1])
    exact, t_exact = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0, random_state=0)
    cold, t_cold = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0, warm_start=0)
    opt = exact.objective
    print(f"\nspambase fold {X.shape}, N={budget}: optimum {opt:.10f} "
          f"(gap to lower bound {opt - exact.lower_bound:.1e})")
    print(f"  cutting planes, warm start 3 subgradient epochs: {t_exact:.2f} s, {exact.n_iter} "
          f"rounds ({_load()})")
    print(f"  cutting planes, cold start (tau = 1 cuts):       {t_cold:.2f} s, {cold.n_iter} "
          f"rounds, relative difference {abs(cold.objective - opt) / opt:.1e} ({_load()})")
    print("  first-order solver (restarted AdaGrad subgradient, stages of 10 epochs, step halved "
          "at each restart) vs the same without restarts; seed 0 unless said:")
    print(f"  {'variant':<32} {'epochs':>6} {'time s':>7} {'/ exact':>7} {'rel. gap':>9}  load")
    runs = [("restarted (default)", e, 0, {}) for e in (3, 10, 20, 30, 40, 50, 60)]
    runs += [("restarted (default)", 50, seed, {}) for seed in (1, 2, 3)]
    runs += [("no restarts (one averaged run)", e, 0, {"stage_epochs": e, "step_decay": 1.0})
             for e in (20, 50)]
    for name, epochs, seed, extra in runs:
        sgd, t_sgd = _timed(solve_subgradient, X, y, v, budget, 1.0, 10.0, max_iter=epochs,
                            tol=0.0, random_state=seed, **extra)
        label = name if seed == 0 else f"{name}, seed {seed}"
        print(f"  {label:<32} {epochs:>6} {t_sgd:>7.2f} {t_sgd / t_exact:>7.2f} "
              f"{(sgd.objective - opt) / opt:>9.2e}  certified gap {sgd.gap:.2e}  {_load()}",
              flush=True)


def mnist_full(budget: float, seconds: float, resolve: str = "auto") -> None:
    X, y = _data("mnist47", None)
    v = np.ones(X.shape[1])
    cut, t_cut = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0, random_state=0,
                        time_limit=seconds, resolve=resolve)
    gap = cut.objective - cut.lower_bound
    print(f"\nMNIST 4 vs 7 training set {X.shape}, N={budget}, re-solves by {resolve}, time "
          f"budget {seconds:.0f} s: "
          f"{t_cut:.1f} s, {cut.n_iter} rounds, converged={cut.converged}, best objective "
          f"{cut.objective:.6f}, lower bound {cut.lower_bound:.6f}, gap {gap:.2e} "
          f"(relative {gap / max(cut.objective, 1e-12):.2e}) ({_load()})", flush=True)


def fdrop(sizes, budget: float = 10.0, contaminated_whole: bool = False) -> None:
    """FDROP (Globerson & Roweis) on MNIST 4 vs 7: the direct QP (GR) against cutting planes
    with (GR) blocks over supports (the default), over whole rows (every feature of positive
    gain, promoted after 3 cuts: the solver before 27 Nov 2026) and Kelley cuts alone; then the
    benchmark's training-outlier cell (2,000 rows and 20 % outliers, K = 4)."""
    from robustclf.experiments.benchmark import contaminate
    from robustclf.linear.fdrop import _solve_cutting_plane, _solve_gr_qp

    def whole(X, y, K):
        return _timed(_solve_cutting_plane, X, y, K, 1.0, True, 1e-6, 100, promote_after=3,
                      support_step=X.shape[1])

    print(f"\nFDROP on mnist47, K={budget}, C=1: direct QP (GR, Clarabel) vs cutting planes")
    print(f"{'m':>6} {'QP s':>8} {'supports s':>10} {'rounds':>6} {'whole rows s':>12} "
          f"{'rounds':>6} {'plain cuts s':>12} {'rounds':>6} {'QP / supp.':>10} "
          f"{'whole / supp.':>13} {'|obj diff| rel':>14}")
    for m in sizes:
        X, y = _data("mnist47", m)
        qp, t_qp = _timed(_solve_gr_qp, X, y, budget, 1.0, True)
        cut, t_cut = _timed(_solve_cutting_plane, X, y, budget, 1.0, True, 1e-6, 100)
        rows, t_rows = whole(X, y, budget)
        if m <= 100:
            plain, t_plain = _timed(_solve_cutting_plane, X, y, budget, 1.0, True, 1e-6, 100,
                                    promote_after=10**9)
            plain_s = f"{t_plain:>12.2f} {plain[3]:>6}"
        else:
            plain_s = f"{'(skipped)':>12} {'':>6}"
        diff = max(abs(cut[2] - qp[2]), abs(rows[2] - qp[2])) / qp[2]
        print(f"{m:>6} {t_qp:>8.2f} {t_cut:>10.2f} {cut[3]:>6} {t_rows:>12.2f} {rows[3]:>6} "
              f"{plain_s} {t_qp / t_cut:>10.1f} {t_rows / t_cut:>13.1f} {diff:>14.1e}  "
              f"{_load()}", flush=True)
    X, y = _data("mnist47", 2000)
    Xc, yc = contaminate(X, y, 0.2, 0)
    print("\nFDROP, the benchmark's training-outlier cell: 2,000 MNIST 4 vs 7 rows and 400 "
          "dense outlier rows, K=4, C=1")
    cut, t_cut = _timed(_solve_cutting_plane, Xc, yc, 4.0, 1.0, True, 1e-6, 100)
    print(f"supports:   {t_cut:.1f} s, {cut[3]} rounds, objective {cut[2]:.6f}, certified gap "
          f"{(cut[2] - cut[5]) / cut[2]:.1e} ({_load()})", flush=True)
    if contaminated_whole:
        rows, t_rows = whole(Xc, yc, 4.0)
        print(f"whole rows: {t_rows:.1f} s, {rows[3]} rounds, objective {rows[2]:.6f}; "
              f"whole / supports {t_rows / t_cut:.1f} ({_load()})", flush=True)
    else:
        print("whole rows: skipped (--full; 118-131 s per master QP once promoted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help="also the whole spambase fold and the first-order comparison")
    parser.add_argument("--mnist-budget", type=float, default=0.0,
                        help="seconds for the cutting planes on the MNIST 4 vs 7 training set")
    parser.add_argument("--only", choices=["spambase", "mnist", "threshold", "first-order",
                                           "mnist-full", "fdrop", "ties"],
                        help="run one section only")
    parser.add_argument("--resolve", choices=["auto", "simplex", "ipm"], default="auto",
                        help="how the MNIST cut LP is re-solved after the first round")
    args = parser.parse_args()
    if args.only in (None, "spambase"):
        exact_vs_m("spambase", [100, 200, 400, 1000, 2000] + ([None] if args.full else []),
                   budget=3.0)
    if args.only in (None, "mnist"):
        exact_vs_m("mnist47", [50, 100], budget=20.0)
    if args.only in (None, "threshold"):
        contaminated_threshold()
    if args.only in (None, "ties"):
        ties()
    if args.only == "first-order" or (args.only is None and args.full):
        first_order(budget=3.0)
    if args.only in (None, "fdrop"):
        fdrop([50, 300], contaminated_whole=args.full)
    if args.only == "mnist-full" or (args.only is None and args.mnist_budget > 0):
        mnist_full(budget=30.0, seconds=args.mnist_budget or 600.0, resolve=args.resolve)


if __name__ == "__main__":
    main()
