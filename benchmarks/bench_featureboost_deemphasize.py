"""FeatureBoost: the K that DEEMPHASIZE chooses, nested (the library) against Table 4 literally.

Run: ``python benchmarks/bench_featureboost_deemphasize.py [--fits 3] [--repeats 10]``.

DEEMPHASIZE (Table 4) raises K until the previous hypothesis's marginalised error reaches
``((T - t) eps_{t-1} + t eps_fm) / T``. Two readings of the scan over K:

* **nested** (:func:`robustclf.ensemble._sampling.deemphasize`, what ``FeatureBoostClassifier``
  does): one ordering of the units and one donor per (example, unit) are drawn once, and the
  rows for K are those for K - 1 with one more unit resampled (common random numbers);
* **fresh** (Table 4 as printed): every K calls MARGINALIZE anew, with new examples, a new
  draw of K units without replacement from p and new donors.

For a single K both estimates have the same distribution; the scan stops at the *first* K
whose estimate reaches the threshold, and that first-passage point is not the same: with a
fresh estimate per K, any K whose estimate lands above the threshold by chance stops the scan.

Protocol (the reproduction's THRESHOLD setting): 100 training rows (215 features), unpruned
trees, T = 20, S = 500 (``marginal_samples``), ``--fits`` fits of ``FeatureBoostClassifier``
(seeds 0, 1, ...). In every round t >= 2 of a fit, the arguments of the library's DEEMPHASIZE
call (previous hypothesis, p, eps_{t-1}, eps_fm, K bounds) are kept, and both readings are run
``--repeats`` times on them with independent random streams (the fit itself is not disturbed).
Prints, per round t, the threshold, the mean (and range) of K under each reading and the share
of scans that end at the bound K = floor(0.9 N). Then (``--error-trials``, default 20) the
effect on the model: per THRESHOLD draw (100 training and 300 test rows, the reproduction's
``make_data``), one fit with each reading (same seed), test error with 0, 40 and 60 % of
each test row's features resampled (``MarginalResampling``, the same corrupted matrix for
both), mean paired difference +- SE.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from robustclf.corruption import MarginalResampling
from robustclf.datasets import make_threshold
from robustclf.ensemble import FeatureBoostClassifier
from robustclf.ensemble import featureboost as fb_module
from robustclf.ensemble._sampling import RowSampler, deemphasize, draw_ranks, marginal_error


def fresh_deemphasize(X, y, predict, columns, unit_of, p, *, previous_error, full_error, t,
                      n_estimators, n_samples, k_min, k_max, rng, sampler=None):
    """Table 4 literally: a fresh MARGINALIZE (Table 3) for every K; returns K."""
    threshold = ((n_estimators - t) * previous_error + t * full_error) / n_estimators
    sample = RowSampler(X.shape[0]) if sampler is None else sampler
    n_units = p.shape[0]
    for k in range(k_min, k_max):
        rows = sample(rng, n_samples)
        donors = sample(rng, (n_samples, n_units))
        ranks = draw_ranks(p, n_samples, rng)
        if marginal_error(X, y, predict, columns, unit_of, ranks, donors, rows, [k])[0] \
                >= threshold:
            return k
    return k_max


def fresh_removal(X, y, predict, columns, unit_of, p, *, rng, **kw):
    """``deemphasize``'s contract (removed units, K) with the fresh scan over K."""
    k = fresh_deemphasize(X, y, predict, columns, unit_of, p, rng=rng, **kw)
    return np.flatnonzero(draw_ranks(p, 1, rng)[0] < k), k


def error_effect(n_trials: int, samples: int) -> None:
    library = fb_module.deemphasize
    levels = (0.0, 0.4, 0.6)
    diffs, errs = [], []
    for trial in range(n_trials):
        X, y, _, thr = make_threshold(100, random_state=trial, return_threshold=True)
        X_test, y_test, _ = make_threshold(300, threshold=thr, random_state=trial + 1)
        tests = [MarginalResampling(fraction=f, reference=X).corrupt(X_test, random_state=trial)
                 for f in levels]
        row = []
        for reading in (library, fresh_removal):
            fb_module.deemphasize = reading
            try:
                model = FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=20,
                                               importance_samples=samples,
                                               marginal_samples=samples,
                                               random_state=trial).fit(X, y)
            finally:
                fb_module.deemphasize = library
            row.append([np.mean(model.predict(Xc) != y_test) for Xc in tests])
        errs.append(row)
        diffs.append(np.subtract(row[1], row[0]))
    errs, diffs = np.asarray(errs), np.asarray(diffs)
    print(f"\nTest error, {n_trials} THRESHOLD draws, 20 experts, S = {samples} "
          f"(fresh - nested, mean +- SE):")
    for j, f in enumerate(levels):
        print(f"  {int(100 * f):2d} % resampled: nested {errs[:, 0, j].mean():.4f}, fresh "
              f"{errs[:, 1, j].mean():.4f}, difference {diffs[:, j].mean():+.4f} +- "
              f"{diffs[:, j].std(ddof=1) / np.sqrt(n_trials):.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fits", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--samples", type=int, default=500)
    parser.add_argument("--error-trials", type=int, default=20)
    args = parser.parse_args()
    records = []  # (fit, t, threshold, k_library, [k nested], [k fresh])
    library = fb_module.deemphasize

    for fit in range(args.fits):
        rng_alt = np.random.default_rng(1000 + fit)

        def recording(*a, _fit=fit, _rng=rng_alt, **kw):
            gone, k = library(*a, **kw)
            kw_alt = {key: v for key, v in kw.items() if key != "rng"}
            nested = [deemphasize(*a, rng=_rng, **kw_alt)[1] for _ in range(args.repeats)]
            fresh = [fresh_deemphasize(*a, rng=_rng, **kw_alt) for _ in range(args.repeats)]
            thr = ((kw["n_estimators"] - kw["t"]) * kw["previous_error"]
                   + kw["t"] * kw["full_error"]) / kw["n_estimators"]
            records.append((_fit, kw["t"], kw["previous_error"], kw["full_error"], thr, k,
                            nested, fresh, kw["k_min"], kw["k_max"]))
            return gone, k

        X, y, _ = make_threshold(100, random_state=fit)
        fb_module.deemphasize = recording
        start = time.perf_counter()
        try:
            FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=20,
                                   importance_samples=args.samples,
                                   marginal_samples=args.samples, random_state=fit).fit(X, y)
        finally:
            fb_module.deemphasize = library
        print(f"fit {fit}: {time.perf_counter() - start:.1f} s", flush=True)

    k_min, k_max = records[0][8], records[0][9]
    print(f"\nTHRESHOLD, 100 rows, 215 features, trees, T = 20, S = {args.samples}; "
          f"K in [{k_min}, {k_max}]; {args.fits} fits x {args.repeats} repeats per round")
    print(" t | eps_prev | eps_fm | threshold | K nested mean [min, max] | "
          "K fresh mean [min, max] | fresh - nested | at the bound: nested, fresh")
    rounds = sorted({r[1] for r in records})
    for t in rounds:
        rs = [r for r in records if r[1] == t]
        nested = np.concatenate([r[6] for r in rs])
        fresh = np.concatenate([r[7] for r in rs])
        print(f"{t:2d} | {np.mean([r[2] for r in rs]):.3f}    | "
              f"{np.mean([r[3] for r in rs]):.3f}  | {np.mean([r[4] for r in rs]):.3f}     | "
              f"{nested.mean():6.1f} [{nested.min():3d}, {nested.max():3d}]        | "
              f"{fresh.mean():6.1f} [{fresh.min():3d}, {fresh.max():3d}]       | "
              f"{fresh.mean() - nested.mean():+6.1f}         | "
              f"{np.mean(nested == k_max):.2f}, {np.mean(fresh == k_max):.2f}")
    for lo, hi in ((2, 7), (8, 14), (15, 20)):
        rs = [r for r in records if lo <= r[1] <= hi]
        nested = np.concatenate([r[6] for r in rs])
        fresh = np.concatenate([r[7] for r in rs])
        diff = np.array([np.mean(r[7]) - np.mean(r[6]) for r in rs])
        print(f"rounds {lo:2d}-{hi:2d}: K nested {nested.mean():6.1f}, fresh {fresh.mean():6.1f}, "
              f"difference {diff.mean():+6.1f} +- {diff.std(ddof=1) / np.sqrt(diff.size):.1f} "
              f"(SE over {diff.size} rounds), rounds at the bound {k_max}: nested "
              f"{np.mean(nested == k_max):.2f}, fresh {np.mean(fresh == k_max):.2f}")
    if args.error_trials:
        error_effect(args.error_trials, args.samples)


if __name__ == "__main__":
    main()
