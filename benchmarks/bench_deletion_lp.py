"""Benchmark: exact solvers of Dekel & Shamir's Eq. (4), and the first-order solver.

Run ``python benchmarks/bench_deletion_lp.py [--full]``. Everything is timed in the same run and
reported as ratios (full LP / cutting planes; subgradient objective / exact optimum), so the
numbers do not depend on how busy the machine is as much as absolute times would.

* Exact solve vs m, for n = 57 (spambase) and n = 784 (MNIST 4 vs 7): HiGHS on the full LP of
  Eq. (4) against cutting planes, both to optimality; their optima must agree.
* ``--full``: cutting planes on the whole spambase training fold (9/10 of 4,601 rows) and on
  the MNIST 4 vs 7 training set, and the subgradient solver on the spambase fold.
"""

from __future__ import annotations

import argparse
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


def _data(name: str, m: int | None, seed: int = 0):
    if name == "spambase":
        X, y = load_spambase(return_X_y=True)
        X = scale_features(X)[0]
        y = np.where(y == 1, 1.0, -1.0)
    else:
        X, _, y, _ = load_mnist(digits=(4, 7), scale=True, return_X_y=True)
        y = np.where(y == 7, 1.0, -1.0)
    idx = np.random.default_rng(seed).permutation(X.shape[0])
    idx = idx[: m if m is not None else int(0.9 * X.shape[0])]
    return X[idx], y[idx]


def exact_vs_m(name: str, sizes, budget: float) -> None:
    print(f"\n{name}: full LP (HiGHS) vs cutting planes, budget N={budget}, C/gamma=10")
    print(f"{'m':>6} {'n':>5} {'full LP s':>10} {'cuts s':>8} {'rounds':>6} {'speed-up':>8} "
          f"{'|obj diff|':>10}")
    for m in sizes:
        X, y = _data(name, m)
        v = np.ones(X.shape[1])
        full, t_full = _timed(solve_full_lp, X, y, v, budget, 1.0, 10.0)
        cut, t_cut = _timed(solve_cutting_plane, X, y, v, budget, 1.0, 10.0)
        print(f"{m:>6} {X.shape[1]:>5} {t_full:>10.2f} {t_cut:>8.2f} {cut.n_iter:>6} "
              f"{t_full / t_cut:>8.1f} {abs(full.lower_bound - cut.objective):>10.2e}")


def full_size(budget: float) -> None:
    for name, b in (("spambase", budget), ("mnist47", 10 * budget)):
        X, y = _data(name, None)
        v = np.ones(X.shape[1])
        cut, t_cut = _timed(solve_cutting_plane, X, y, v, b, 1.0, 10.0)
        print(f"\n{name} training fold {X.shape}: cutting planes {t_cut:.1f} s, {cut.n_iter} "
              f"rounds, converged={cut.converged}, objective {cut.objective:.6f}, "
              f"gap {cut.objective - cut.lower_bound:.2e}")
        if name == "spambase":
            for epochs in (20, 50, 100):
                sgd, t_sgd = _timed(solve_subgradient, X, y, v, b, 1.0, 10.0, max_iter=epochs,
                                    random_state=0)
                print(f"  subgradient {epochs:>3} epochs: {t_sgd:.1f} s "
                      f"({t_sgd / t_cut:.2f} x cutting planes), objective / optimum = "
                      f"{sgd.objective / cut.objective:.5f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also the full-size solves")
    args = parser.parse_args()
    exact_vs_m("spambase", [100, 200, 400], budget=3.0)
    exact_vs_m("mnist47", [50, 100], budget=20.0)
    if args.full:
        full_size(budget=3.0)


if __name__ == "__main__":
    main()
