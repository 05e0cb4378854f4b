"""FeatureBoost: vectorised IMPORTANCE + DEEMPHASIZE against a direct transcription of Tables 2-4.

Run: ``python benchmarks/bench_featureboost.py [--samples 200] [--seed 0]``.

On THRESHOLD (100 training rows, 215 features) with a decision tree, in the same run:

1. IMPORTANCE: Table 2 transcribed line by line (one ``predict`` per sampled example, twice)
   against :func:`robustclf.ensemble._sampling.importance`;
2. DEEMPHASIZE: Table 4's loop over K calling Table 3 (one ``predict`` per sampled example per
   K) against :func:`robustclf.ensemble._sampling.deemphasize` (one ordering per example, rows
   grown incrementally over K);
3. the total fit time of 20 experts with the paper's 500 samples.

The two versions draw their random numbers differently, so their outputs are compared
statistically (z-scores of the differences), not bit for bit.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from robustclf.datasets import make_threshold
from robustclf.ensemble import FeatureBoostClassifier
from robustclf.ensemble._sampling import deemphasize, importance, make_units, unit_of_columns


def direct_importance(X, h, S, rng):
    """Table 2, literally."""
    M, N = X.shape
    c = np.zeros(N)
    for n in range(N):
        for _ in range(S):
            x1 = X[rng.integers(M)].copy()
            v = h.predict(x1[None])[0]
            x2 = X[rng.integers(M)]
            x1[n] = x2[n]
            if h.predict(x1[None])[0] != v:
                c[n] += 1
    return c / S


def direct_marginalize(X, y, p, K, S, h, rng):
    """Table 3 (error against the label, counted once per example after K replacements)."""
    M, N = X.shape
    errors = 0
    for _ in range(S):
        i = rng.integers(M)
        x1 = X[i].copy()
        for f in rng.choice(N, size=K, replace=False, p=p):
            x1[f] = X[rng.integers(M), f]
        errors += h.predict(x1[None])[0] != y[i]
    return errors / S


def direct_deemphasize(X, y, p, t, T, S, eps, h, k_min, k_max, rng):
    """Table 4 with the text's threshold; returns K and the full marginalisation error."""
    N = X.shape[1]
    eps_fm = direct_marginalize(X, y, p, N, S, h, rng)
    eps_m, K = eps, 0
    while (eps_m < ((T - t) * eps + t * eps_fm) / T and K < k_max) or K < k_min:
        K += 1
        eps_m = direct_marginalize(X, y, p, K, S, h, rng)
    return K, eps_fm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200,
                        help="statistical samples S for both versions (paper: 500)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    S = args.samples
    X, y, _ = make_threshold(100, random_state=args.seed)
    N = X.shape[1]
    h = DecisionTreeClassifier(random_state=0).fit(X, y)
    units = make_units(None, N)
    unit_of = unit_of_columns(units, N)
    cols = np.arange(N)

    start = time.perf_counter()
    c_direct = direct_importance(X, h, S, np.random.default_rng(args.seed))
    t_direct = time.perf_counter() - start
    start = time.perf_counter()
    c_fast = importance(X, h.predict, cols, unit_of, N, S, np.random.default_rng(args.seed + 1))
    t_fast = time.perf_counter() - start
    pooled = (c_direct + c_fast) / 2
    se = np.sqrt(np.maximum(2 * pooled * (1 - pooled) / S, 1e-12))
    z = np.where(pooled > 0, (c_direct - c_fast) / se, 0.0)
    print(f"IMPORTANCE (Table 2), {N} features x {S} samples:")
    print(f"  direct {t_direct:8.3f} s   vectorised {t_fast:8.4f} s   "
          f"speed-up {t_direct / t_fast:7.1f}x")
    print(f"  features with non-zero importance: direct {np.count_nonzero(c_direct)}, "
          f"vectorised {np.count_nonzero(c_fast)}; max |z| of the differences "
          f"{np.abs(z).max():.2f} (|z| < 3.5 expected for {N} features)")

    w = np.full(N, 1 / N) + c_fast * 0.5
    p = w / w.sum()
    eps = float(np.mean(h.predict(X) != y))
    k_min, k_max = math.ceil(0.15 * N), math.floor(0.9 * N)
    start = time.perf_counter()
    k_direct, fm_direct = direct_deemphasize(X, y, p, 2, 20, S, eps, h, k_min, k_max,
                                             np.random.default_rng(args.seed))
    t_direct = time.perf_counter() - start
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed + 1)
    fm_fast = FeatureBoostClassifier._full_marginal_error(X, y, h, cols, unit_of, N, S, rng)
    _, k_fast = deemphasize(X, y, h.predict, cols, unit_of, p, previous_error=eps,
                            full_error=fm_fast, t=2, n_estimators=20, n_samples=S,
                            k_min=k_min, k_max=k_max, rng=rng)
    t_fast = time.perf_counter() - start
    print(f"DEEMPHASIZE (Tables 3-4), t = 2 of 20, {S} samples:")
    print(f"  direct {t_direct:8.3f} s   vectorised {t_fast:8.4f} s   "
          f"speed-up {t_direct / t_fast:7.1f}x")
    print(f"  K removed: direct {k_direct}, vectorised {k_fast}; eps_fm: direct "
          f"{fm_direct:.3f}, vectorised {fm_fast:.3f} (SE ~ {math.sqrt(0.25 / S):.3f})")

    times, cpu = [], []
    for seed in range(3):
        Xs, ys, _ = make_threshold(100, random_state=seed)
        start, start_cpu = time.perf_counter(), time.process_time()
        FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=20,
                               random_state=seed).fit(Xs, ys)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"Fit of 20 experts (trees, 500 samples) on THRESHOLD: wall {np.mean(times):.2f} s "
          f"(max {max(times):.2f} s), CPU {np.mean(cpu):.2f} s, mean of 3 draws")


if __name__ == "__main__":
    main()
