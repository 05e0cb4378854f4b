"""One epoch of DeletionRobustPerceptron over MNIST 4 vs 7 (target: under 2 s).

Times, in the same run: scikit-learn's ``Perceptron`` for one epoch (the baseline: no adversary,
compiled code), the library's Perceptron at several budgets (the adversary's knapsack solved for
blocks of rows between updates), and a naive transcription that calls the worst-case solver once
per row. Prints seconds, the number of updates, test accuracy and the ratios.

Usage: python benchmarks/bench_deletion_perceptron.py [--budgets 1 10 50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import Perceptron

from robustclf._worst_case import knapsack_deletion
from robustclf.datasets import load_mnist
from robustclf.linear.deletion_perceptron import DeletionRobustPerceptron


def naive_epoch(X, y, budget, margin=1.0, bound=10.0):
    """§3.1 with one knapsack call per row (the loop the estimator avoids); returns w_bar."""
    m, n = X.shape
    s = np.where(y == y.max(), 1.0, -1.0)
    values = np.ones(n)
    penalty = margin * values / (n - budget)
    tau = np.sqrt(n + 1) * bound / np.sqrt(2 * m)
    w, b, w_sum = np.zeros(n), 0.0, np.zeros(n)
    for i in range(m):
        w_sum += w
        a = s[i] * w * X[i] - penalty
        res = knapsack_deletion(a[None, :], values, budget)
        if s[i] * b + a.sum() - res.relaxed_gain[0] < 0:
            w = np.clip(w + s[i] * tau * X[i] * (1.0 - res.fractions[0]), -bound, bound)
            b = min(max(b + s[i] * tau, -bound), bound)
    return w_sum / m


def best_of(repeats, fn):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[1.0, 10.0, 50.0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--naive-budget", type=float, default=10.0)
    args = parser.parse_args()

    X, Xt, y, yt = load_mnist(digits=(4, 7), scale=True, return_X_y=True)
    print(f"MNIST 4 vs 7: {X.shape[0]} x {X.shape[1]} training rows, features in [0, 1]")
    base_t, base = best_of(args.repeats, lambda: Perceptron(max_iter=1, tol=None, shuffle=True,
                                                            random_state=0).fit(X, y))
    print(f"sklearn Perceptron, 1 epoch: {base_t:.3f} s, accuracy {base.score(Xt, yt):.4f}")
    for budget in args.budgets:
        est = DeletionRobustPerceptron(budget=budget, n_epochs=1, random_state=0)
        t, est = best_of(args.repeats, lambda est=est: est.fit(X, y))
        flag = "OK" if t < 2.0 else "over the 2 s target"
        print(f"DeletionRobustPerceptron budget={budget:g}, 1 epoch: {t:.3f} s "
              f"({t / base_t:.0f}x sklearn), {est.n_updates_[0]} updates, "
              f"accuracy {est.score(Xt, yt):.4f}  [{flag}]")
        if budget == args.naive_budget:
            order = np.random.default_rng(0).permutation(X.shape[0])
            Xo, yo = X[order], y[order]
            naive_t, _ = best_of(1, lambda Xo=Xo, yo=yo, k=budget: naive_epoch(Xo, yo, k))
            print(f"  naive one-knapsack-per-row loop, same budget: {naive_t:.3f} s "
                  f"(estimator is {naive_t / t:.1f}x faster)")


if __name__ == "__main__":
    main()
