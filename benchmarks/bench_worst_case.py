"""The adversary's knapsack (robustclf._worst_case): bounds and exact solves against HiGHS per row.

The adversary's problem per row is the 0/1 knapsack (K) ``max g.delta s.t. v.delta <= N``
(Dekel & Shamir, Eq. 2). On synthetic gains this script times, for all rows at once,

* the fractional relaxation (Eq. 7, by sorting) and the greedy attack (an upper and a lower bound),
* the exact solve (:func:`exact_knapsack_deletion`: reduced-cost fixing, block-diagonal HiGHS MILPs
  on the rows the bounds leave open),

against one ``scipy.optimize.linprog`` / ``milp`` call per row on a sample of rows, checks that
both give the same optima, and prints the per-row speed ratios. With ``--cases`` it also prints
:func:`robustclf._oracles.worst_case.bench_cases` (spambase of issue 14, digits): the certified
error at its defaults, the exact margins of every row, and the independent oracle.

Usage: python benchmarks/bench_worst_case.py [--rows 2000] [--features 57] [--sample 200] [--cases]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from robustclf._worst_case import (
    exact_knapsack_deletion,
    greedy_knapsack_deletion,
    knapsack_deletion,
)


def lp_gain(gains_row: np.ndarray, values: np.ndarray, budget: float) -> float:
    """max g.delta s.t. v.delta <= N, 0 <= delta <= 1, by HiGHS."""
    res = linprog(-gains_row, A_ub=values[None, :], b_ub=[budget], bounds=(0, 1), method="highs")
    if res.status != 0:
        raise RuntimeError(res.message)
    return -res.fun


def milp_gain(gains_row: np.ndarray, values: np.ndarray, budget: float) -> float:
    """max g.delta s.t. v.delta <= N, delta in {0, 1}^n, by HiGHS on the whole row."""
    res = milp(-gains_row, integrality=np.ones(values.size), bounds=Bounds(0, 1),
               constraints=LinearConstraint(values[None, :], -np.inf, budget),
               options={"mip_rel_gap": 0.0})
    if res.status != 0:
        raise RuntimeError(res.message)
    return -res.fun


def _timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--features", type=int, default=57)
    parser.add_argument("--sample", type=int, default=200, help="rows solved one by one")
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--cases", action="store_true", help="also print the bench cases")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    gains = rng.normal(size=(args.rows, args.features))
    values = rng.uniform(0.2, 2.0, size=args.features)
    relaxed, t_relaxed = _timed(knapsack_deletion, gains, values, args.budget)
    (greedy, _), t_greedy = _timed(greedy_knapsack_deletion, gains, values, args.budget)
    exact, t_exact = _timed(exact_knapsack_deletion, gains, values, args.budget)
    sample = rng.choice(args.rows, size=min(args.sample, args.rows), replace=False)
    lp, t_lp = _timed(lambda: np.array([lp_gain(gains[i], values, args.budget) for i in sample]))
    ip, t_ip = _timed(lambda: np.array([milp_gain(gains[i], values, args.budget)
                                        for i in sample]))

    n_open = int(np.sum(relaxed.relaxed_gain - greedy > 1e-10 * np.abs(gains).sum(axis=1)))
    print(f"rows={args.rows} features={args.features} budget={args.budget}")
    print(f"relaxation (sort), all rows : {t_relaxed:.4f} s")
    print(f"greedy attack, all rows     : {t_greedy:.4f} s")
    print(f"exact (fixing, enum., MILP): {t_exact:.3f} s, {n_open} rows open after the bounds,"
          f" all solved: {bool(exact.solved.all())}")
    print(f"HiGHS LP per row, {sample.size} rows  : {t_lp:.3f} s, max |diff| = "
          f"{np.max(np.abs(lp - relaxed.relaxed_gain[sample])):.1e}")
    print(f"HiGHS MILP per row, {sample.size} rows: {t_ip:.3f} s, max |diff| = "
          f"{np.max(np.abs(ip - exact.gain[sample])):.1e}")
    per_row_ip, per_row_exact = t_ip / sample.size, t_exact / args.rows
    print(f"exact speed-up per row (MILP per row / library) = {per_row_ip / per_row_exact:.1f}x")
    print(f"mean gains: greedy {greedy.mean():.4f} <= exact {exact.gain.mean():.4f} <= relaxed "
          f"{relaxed.relaxed_gain.mean():.4f}")
    if args.cases:
        from robustclf._oracles.worst_case import bench_cases

        for case in bench_cases():
            print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in case.items()})


if __name__ == "__main__":
    main()
