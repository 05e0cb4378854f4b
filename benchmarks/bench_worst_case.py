"""Sort-based worst case (robustclf._worst_case) against solving each row's LP with HiGHS.

The adversary's relaxed problem (Dekel & Shamir, Eq. 7) is a fractional knapsack per row. This
script times the vectorised sort-based solver on all rows against scipy's ``linprog`` (HiGHS)
on a sample of rows, checks that both give the same optimum, and prints the per-row speed ratio.

Usage: python benchmarks/bench_worst_case.py [--rows 4000] [--features 57] [--lp-rows 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.optimize import linprog

from robustclf._worst_case import knapsack_deletion


def lp_gain(gains_row: np.ndarray, values: np.ndarray, budget: float) -> float:
    """max g.delta s.t. v.delta <= N, 0 <= delta <= 1, by HiGHS."""
    res = linprog(-gains_row, A_ub=values[None, :], b_ub=[budget], bounds=(0, 1), method="highs")
    if res.status != 0:
        raise RuntimeError(res.message)
    return -res.fun


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=4000)
    parser.add_argument("--features", type=int, default=57)
    parser.add_argument("--lp-rows", type=int, default=200)
    parser.add_argument("--budget", type=float, default=5.0)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    gains = rng.normal(size=(args.rows, args.features))
    values = rng.uniform(0.2, 2.0, size=args.features)

    start = time.perf_counter()
    solution = knapsack_deletion(gains, values, args.budget)
    sort_seconds = time.perf_counter() - start

    sample = rng.choice(args.rows, size=min(args.lp_rows, args.rows), replace=False)
    start = time.perf_counter()
    lp = np.array([lp_gain(gains[i], values, args.budget) for i in sample])
    lp_seconds = time.perf_counter() - start

    gap = np.max(np.abs(lp - solution.relaxed_gain[sample]))
    per_row_sort = sort_seconds / args.rows
    per_row_lp = lp_seconds / sample.size
    print(f"rows={args.rows} features={args.features} budget={args.budget}")
    print(f"sort-based, all rows : {sort_seconds:.4f} s ({per_row_sort * 1e6:.2f} us/row)")
    print(f"HiGHS LP, {sample.size} rows : {lp_seconds:.4f} s ({per_row_lp * 1e6:.1f} us/row)")
    print(f"max |optimum difference| = {gap:.2e}")
    print(f"speed-up per row (HiGHS / sort) = {per_row_lp / per_row_sort:.0f}x")


if __name__ == "__main__":
    main()
