"""RoLR on dask: the blockwise fit against the in-memory fit (time, passes, agreement).

Data (``make_problem``): ``N x p`` standard normal rows, labels ``sign(<beta*, x> + 0.5 v)``,
10 % outliers (rows of norm about 3 sqrt(p), labels against ``beta*``), so that the threshold
removes rows and the whole of Algorithm 1 runs (second centring and scale included).

For each setting the script fits ``RobustLogisticRegression(tol=...)`` in memory, then on the
same rows as a dask array (``--chunk`` rows per chunk) under the threaded scheduler and on a
``distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False)`` with the array
persisted on the workers, and reports wall times, dual iterations, passes (all / over ``X``),
the relative difference of the coefficients and whether the predictions agree.

Usage: python benchmarks/bench_rolr_dask.py [--n 20000] [--p 50] [--chunk 2500] [--tol 1e-6]
                                            [--no-cluster]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def make_problem(N: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(p)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((N, p))
    y = np.where(X @ beta + 0.5 * rng.standard_normal(N) > 0, 1, 0)
    outliers = rng.random(N) < 0.1
    X[outliers] = 3.0 * rng.standard_normal((int(outliers.sum()), p))
    y[outliers] = np.where(X[outliers] @ beta > 0, 0, 1)
    return X, y


class PassCounter:
    """Counts the passes of every blockwise fit (all, and those that read ``X``)."""

    def __init__(self):
        from robustclf._blockwise import StatefulRowChunks

        self.module, self.original = StatefulRowChunks, StatefulRowChunks.run
        self.passes = self.data_passes = 0
        counter = self

        def run(chunks, func, *args, **kwargs):
            counter.passes += 1
            counter.data_passes += kwargs.get("data", True) is True
            return counter.original(chunks, func, *args, **kwargs)

        self.module.run = run

    def reset(self):
        self.passes = self.data_passes = 0


def fit_dask(X, y, tol, counter, chunk):
    import dask.array as da

    from robustclf.linear.rolr import RobustLogisticRegression

    Xd = da.from_array(X, chunks=(chunk, X.shape[1])).persist()
    yd = da.from_array(y, chunks=chunk).persist()
    counter.reset()
    t0 = time.perf_counter()
    model = RobustLogisticRegression(tol=tol).fit(Xd, yd)
    seconds = time.perf_counter() - t0
    labels = model.predict(Xd).compute()
    return model, seconds, labels


def report(name, model, seconds, labels, reference, ref_labels, counter):
    rel = np.linalg.norm(model.coef_ - reference.coef_) / np.linalg.norm(reference.coef_)
    print(f"{name:28s} {seconds:8.2f} s  iterations {model.n_iter_[0]:5d}  "
          f"passes {counter.passes:4d} (over X {counter.data_passes:4d})  "
          f"coef rel. diff {rel:.1e}  same predictions {np.array_equal(labels, ref_labels)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--p", type=int, default=50)
    parser.add_argument("--chunk", type=int, default=2_500)
    parser.add_argument("--tol", type=float, nargs="+", default=[1e-6, 1e-10])
    parser.add_argument("--no-cluster", action="store_true")
    args = parser.parse_args()

    import dask

    from robustclf.linear.rolr import RobustLogisticRegression

    X, y = make_problem(args.n, args.p)
    counter = PassCounter()
    print(f"RoLR, {args.n} x {args.p}, 10 % outliers, chunks of {args.chunk} rows")
    optimum = RobustLogisticRegression(tol=1e-12, max_iter=100_000).fit(X, y)
    for tol in args.tol:
        fit = RobustLogisticRegression(tol=tol).fit(X, y)
        rel = np.linalg.norm(fit.coef_ - optimum.coef_) / np.linalg.norm(optimum.coef_)
        print(f"in-memory fit at tol={tol:g} vs tol=1e-12: coefficients {rel:.1e} relative")
    for tol in args.tol:
        t0 = time.perf_counter()
        memory = RobustLogisticRegression(tol=tol).fit(X, y)
        seconds = time.perf_counter() - t0
        ref_labels = memory.predict(X)
        print(f"tol={tol:g}\n{'in memory':28s} {seconds:8.2f} s  iterations "
              f"{memory.n_iter_[0]:5d}")
        with dask.config.set(scheduler="threads"):
            report("dask, threads", *fit_dask(X, y, tol, counter, args.chunk), memory,
                   ref_labels, counter)
        if args.no_cluster:
            continue
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                          dashboard_address=None) as cluster, Client(cluster):
            report("dask, LocalCluster (2 x 1)", *fit_dask(X, y, tol, counter, args.chunk),
                   memory, ref_labels, counter)


if __name__ == "__main__":
    main()
