"""RoLR: the dual accelerated-gradient solver against the SOCP reference, in one run.

For N in {1e4, 1e5} and p in {20, 100}: wall time of both solvers, their ratio, the cosine between
the two directions and the relative objective gap (trimmed sum, Eq. 2). For N = 1e6 the dual
solver alone, with its peak memory (tracemalloc) relative to the data.

Data: x ~ N(0, I), y = sign(<beta*, x> + 0.5 v), 10 % of the rows replaced by outliers of matched
norm labelled against beta*, and n = 0.9 N rows in the trimmed sum.

Issue 14 cases (``--issue``):

* the 3,300 x 2,100 instance with non-negative |N(0, 1)| features and 300 outliers
  (``RobustLogisticRegression(n_outliers=300, fit_intercept=False)`` at its defaults) against
  the plain-numpy oracle of ``robustclf._oracles.rolr`` at relative gap 1e-10: cosine to the
  optimum, relative objective gap, iterations, time, warnings;
* a 180,000 x 20,000 sparse text-like problem (Zipf word counts) at the defaults: time,
  iterations, whether the model is constant, held-out accuracy;
* ``bench_cases()`` of the oracle module (digits, Amazon books).

Usage: python benchmarks/bench_rolr.py [--quick] [--no-socp] [--issue] [--threads K]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from robustclf._oracles import rolr as rolr_oracle
from robustclf.linear._rolr_solvers import solve_dual, solve_socp
from robustclf.linear.rolr import RobustLogisticRegression


def make_problem(N: int, p: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal(p)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((N, p))
    y = np.where(X @ beta + 0.5 * rng.standard_normal(N) > 0, 1.0, -1.0)
    n1 = N // 10
    y[:n1] = -np.sign(X[:n1] @ beta)          # outliers: labelled against beta*, same norms
    return X, y, N - n1


def run_pair(N: int, p: int, socp: bool) -> dict:
    X, y, n = make_problem(N, p)
    t0 = time.perf_counter()
    dual = solve_dual(X, y, n)
    t_dual = time.perf_counter() - t0
    row = dict(N=N, p=p, dual_s=t_dual, dual_iter=dual.n_iter, collapsed=dual.collapsed)
    if socp:
        t0 = time.perf_counter()
        ref = solve_socp(X, y, n)
        t_socp = time.perf_counter() - t0
        cos = float(dual.coef @ ref.coef / (np.linalg.norm(dual.coef) * np.linalg.norm(ref.coef)))
        gap = (ref.objective - dual.objective) / abs(ref.objective)
        row.update(socp_s=t_socp, ratio=t_socp / t_dual, one_minus_cosine=1.0 - cos,
                   rel_objective_gap=gap)
    return row


def run_large(N: int, p: int) -> dict:
    X, y, n = make_problem(N, p)
    data_bytes = X.nbytes
    tracemalloc.start()
    t0 = time.perf_counter()
    dual = solve_dual(X, y, n)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return dict(N=N, p=p, dual_s=elapsed, dual_iter=dual.n_iter,
                extra_peak_over_data=peak / data_bytes, converged=dual.converged)


def _fit_recording(params, X, y):
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = RobustLogisticRegression(**params).fit(X, y)
    return est, time.perf_counter() - t0, [str(w.message)[:90] for w in caught]


def run_issue_instance() -> dict:
    X, y, _ = rolr_oracle.issue_instance()
    params = dict(n_outliers=300, fit_intercept=False)
    est, elapsed, caught = _fit_recording(params, X, y)
    oracle = rolr_oracle.oracle_fit(X, y, method="numpy", **params)
    w, w_star = est.coef_.ravel(), oracle["coef"].ravel()
    cosine = float(w @ w_star / (np.linalg.norm(w) * np.linalg.norm(w_star)))
    gap = float((oracle["objective"][0] - est.objective_[0]) / oracle["objective"][0])
    return dict(case="issue 3300x2100 |N(0,1)|", seconds=elapsed, n_iter=int(est.n_iter_[0]),
                cosine=cosine, rel_objective_gap=gap, oracle_s=oracle["time"],
                warnings=len(caught))


def run_text_like(n_rows: int = 180_000, n_cols: int = 20_000) -> dict:
    X, y = rolr_oracle.sparse_text_like(n_rows + 10_000, n_cols, seed=3)
    est, elapsed, caught = _fit_recording({}, X[:n_rows], y[:n_rows])
    acc = float(np.mean(est.predict(X[n_rows:]) == y[n_rows:]))
    return dict(case=f"sparse text-like {n_rows}x{n_cols}", seconds=elapsed,
                n_iter=int(est.n_iter_[0]), constant=bool(np.all(est.coef_ == 0)),
                held_out_accuracy=acc, warnings=len(caught))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e4 only, no 1e6 run")
    parser.add_argument("--no-socp", action="store_true", help="skip the conic reference")
    parser.add_argument("--issue", action="store_true",
                        help="only the issue-14 cases (2,100 features; 180k x 20k; oracles)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS threads (default 1: threaded BLAS thrashes on a busy machine)")
    args = parser.parse_args()
    with threadpool_limits(args.threads):
        _run(args)


def _print(row: dict) -> None:
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in row.items()), flush=True)


def _run(args) -> None:
    if args.issue:
        _print(run_issue_instance())
        _print(run_text_like())
        for row in rolr_oracle.bench_cases():
            _print(row)
        return
    sizes = [10_000] if args.quick else [10_000, 100_000]
    for p in (20, 100):
        for N in sizes:
            row = run_pair(N, p, socp=not args.no_socp)
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()), flush=True)
    if not args.quick:
        for p in (20, 100):
            row = run_large(1_000_000, p)
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                           for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
