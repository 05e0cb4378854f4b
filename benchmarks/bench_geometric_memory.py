"""GeometricMarginSVC's memory and time against n: the w-space linear solver vs the n x n kernel.

Issue 17, point 4. Before it, every kernel -- the linear one included -- was an ``n x n``
matrix (8 n^2 bytes: 29 GB at MNIST's 60,000 rows). Now the linear kernel beyond
``LINEAR_BLOCK`` rows is solved in ``w``-space (``_geometric_solver._linear_step``): margins
from ``X0 @ w``, reduced libsvm solves on blocks of at most ``LINEAR_BLOCK`` rows, no ``n x n``
array. Each fit runs in its own process, so that its peak resident memory is its own:

* ``kernel``: the former path, the whole kernel (``LINEAR_BLOCK`` raised above n); skipped
  when the kernel alone would not fit in 3/4 of this machine's memory;
* ``w-space``: the default;
* ``LinearSVC``: scikit-learn's liblinear (hinge loss, ``max_iter=20000``) on the zero-filled
  rows, the baseline the ratios are taken against (a different problem: its intercept is
  penalised and it ignores the scalings; it is the cost of one linear SVM fit).

Printed per n: wall and CPU time of ``fit`` (CPU time is the honest one on a shared machine),
peak resident memory above the process's memory after loading the data and the peak of the
fit's numpy allocations (tracemalloc, which does not see libsvm's own), SVM solves and reduced
solves, the largest KKT residual (``kkt_residual_``, at most about ``svm_tol``), and the ratios
to LinearSVC and, where the kernel path ran, the agreement of the two paths (largest
difference of decision values, share of equal test predictions).

Data: MNIST (``ROBUSTCLF_DATA`` or ``--data-dir``; the first n training rows, pixels / 255,
odd against even digits), with structural missingness: in 80 % of the rows one of the four
image quadrants (drawn per row) is absent -- five missingness patterns. Without the data files,
Gaussian data of the same shape with the same quadrant structure.

Measured (26 Nov 2026, 2 shared cores, OMP_NUM_THREADS=1, C=1, max_iter=5; CPU s, peak RSS
of the fit in MB; LinearSVC of the same run in brackets):

* n = 2,000: one path (n <= LINEAR_BLOCK, the 31 MB kernel is formed): 0.9 s, 64 MB
  [LinearSVC 0.5 s, 4 MB].
* n = 10,000: kernel path 13.1 s, 1,070 MB; w-space 37.3 s, 175 MB [LinearSVC 2.1 s, 19 MB];
  decision values within 6.5e-3, 99.95 % of the test predictions equal.
* n = 60,000: kernel path not run (the kernel alone: 27 GB of 23.5); w-space 544 s, 580 MB
  [LinearSVC 12.3 s, 119 MB].

At 60,000 rows the fit reached a fixed point after 3 solves (138, 74 and 51 reduced solves),
KKT residual 4e-4; test error 0.122 (LinearSVC 0.124). The w-space solves cost about 3x the
whole-kernel solves where the kernel fits (libsvm's SMO on the free rows of every block
dominates) and ~45x one LinearSVC fit at 60,000 rows, in a sixth of the memory at 10,000 rows.

Usage: python benchmarks/bench_geometric_memory.py [--n 2000 10000 60000] [--C 1.0]
       [--max-iter 5] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np

N_DEFAULT = (2000, 10_000, 60_000)


def make_data(n: int, data_dir: str | None, seed: int = 0):
    """First ``n`` MNIST training rows (or Gaussian stand-ins), a quadrant absent in 80 %."""
    try:
        from robustclf.datasets import load_mnist

        Xtr, Xte, ytr, yte = load_mnist(data_dir=data_dir, scale=True, return_X_y=True)
        X, y, X_test, y_test, source = Xtr[:n], ytr[:n] % 2, Xte[:2000], yte[:2000] % 2, "mnist"
    except (FileNotFoundError, OSError):
        rng = np.random.default_rng(seed)
        X, X_test = rng.random((n, 784)), rng.random((2000, 784))
        rule = rng.standard_normal(784)
        y, y_test = (X @ rule > np.median(X @ rule)).astype(int), (X_test @ rule > 0).astype(int)
        source = "synthetic"
    rng = np.random.default_rng(seed)
    rows, cols = np.divmod(np.arange(784), 28)
    quadrant = (rows >= 14) * 2 + (cols >= 14)
    out = []
    for A in (X, X_test):
        A = np.array(A, dtype=np.float64)
        absent = rng.random(A.shape[0]) < 0.8
        which = rng.integers(0, 4, A.shape[0])
        A[absent[:, None] & (quadrant[None, :] == which[:, None])] = np.nan
        out.append(A)
    return out[0], y, out[1], y_test, source


def _status_mb(field: str) -> float:
    """``VmRSS`` or ``VmHWM`` (peak) of this process in MB, from /proc (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    raise KeyError(field)


def _reset_peak() -> float:
    """Reset the peak resident memory to the current one (Linux ``clear_refs``); return it."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return _status_mb("VmRSS")
    except OSError:  # no /proc: the peak since the start, a looser measure
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _peak_mb() -> float:
    try:
        return _status_mb("VmHWM")
    except (OSError, KeyError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker(method: str, path: str, C: float, max_iter: int) -> dict:
    """One fit in this process on the data saved at ``path``; returns its measurements."""
    from sklearn.svm import LinearSVC

    from robustclf.missing import GeometricMarginSVC
    from robustclf.missing import _geometric_solver as gs

    with np.load(path) as data:
        X, y, X_test, y_test = (data[k] for k in ("X", "y", "X_test", "y_test"))
        source = str(data["source"])
    n = X.shape[0]
    if method == "LinearSVC":
        model = LinearSVC(C=C, loss="hinge", max_iter=20_000)
        X_fit = np.nan_to_num(X)
    else:
        if method == "kernel":
            gs.LINEAR_BLOCK = n + 1
        model = GeometricMarginSVC(C=C, max_iter=max_iter)
        X_fit = X
    base = _reset_peak()
    tracemalloc.start()
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X_fit, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out = dict(method=method, n=n, source=source, wall=wall, cpu=cpu,
               peak_mb=_peak_mb() - base, traced_mb=traced,
               warnings=[str(w.message)[:120] for w in caught])
    if method == "LinearSVC":
        out["test_error"] = float(np.mean(model.predict(np.nan_to_num(X_test)) != y_test))
    else:
        out.update(n_iter=model.n_iter_, kkt=float(model.kkt_residual_),
                   rounds=[it.rounds for it in model.iterates_[0]],
                   test_error=float(np.mean(model.predict(X_test) != y_test)),
                   scores=model.decision_function(X_test).tolist())
    return out


def _run(method, path, args) -> dict | None:
    cmd = [sys.executable, __file__, "--worker", method, "--data-file", path, "--C",
           str(args.C), "--max-iter", str(args.max_iter)]
    done = subprocess.run(cmd, capture_output=True, text=True,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    if done.returncode != 0:
        print(f"  {method} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=list(N_DEFAULT))
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--max-iter", type=int, default=5)
    parser.add_argument("--data-dir", default=os.environ.get("ROBUSTCLF_DATA"))
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--data-file", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.data_file, args.C, args.max_iter)))
        return
    memory_mb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    print(f"GeometricMarginSVC(C={args.C}, max_iter={args.max_iter}), binary, 784 features, "
          f"a quadrant absent in 80 % of the rows; machine memory {memory_mb / 1024:.1f} GiB; "
          "times in s (wall / CPU); mem in MB: peak RSS of the fit above the loaded rows / "
          "peak of the fit's numpy allocations (tracemalloc; not libsvm's own)")
    for n in args.n:
        X, y, X_test, y_test, source = make_data(n, args.data_dir)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "data.npz")  # the workers load only these n rows
            np.savez(path, X=X, y=y, X_test=X_test, y_test=y_test, source=source)
            del X, X_test
            base = _run("LinearSVC", path, args)
            kernel_mb = 8 * n * n / 2**20
            old = _run("kernel", path, args) if 2 * kernel_mb < 0.75 * memory_mb else None
            new = _run("w-space", path, args)
        if base is None or new is None:
            continue
        print(f"\nn = {n} ({new['source']}); the n x n kernel alone: {kernel_mb:,.0f} MB")
        print(f"  LinearSVC : {base['wall']:7.1f} / {base['cpu']:7.1f}   "
              f"mem {base['peak_mb']:6.0f} / {base['traced_mb']:6.0f}   "
              f"test error {base['test_error']:.3f}")
        for name, r in (("kernel", old), ("w-space", new)):
            if r is None:
                print(f"  {name:10s}: not run (the kernel would take {kernel_mb / 1024:.1f} GiB "
                      f"of {memory_mb / 1024:.1f})")
                continue
            print(f"  {name:10s}: {r['wall']:7.1f} / {r['cpu']:7.1f}   "
                  f"mem {r['peak_mb']:6.0f} / {r['traced_mb']:6.0f}   "
                  f"test error {r['test_error']:.3f}   CPU x LinearSVC "
                  f"{r['cpu'] / base['cpu']:6.1f}   RSS x LinearSVC "
                  f"{r['peak_mb'] / max(base['peak_mb'], 1.0):5.1f}   solves {r['n_iter']}, "
                  f"reduced solves {r['rounds']}, KKT residual {r['kkt']:.1e}"
                  + (f"; warnings: {r['warnings']}" if r["warnings"] else ""))
        if old is not None:
            a, b = np.asarray(old["scores"]), np.asarray(new["scores"])
            print(f"  kernel vs w-space: max |decision difference| {np.abs(a - b).max():.1e}, "
                  f"equal test predictions {np.mean((a > 0) == (b > 0)):.4f}; CPU ratio "
                  f"{new['cpu'] / old['cpu']:.2f}, memory ratio (RSS / traced) "
                  f"{new['peak_mb'] / max(old['peak_mb'], 1.0):.2f} / "
                  f"{new['traced_mb'] / max(old['traced_mb'], 1.0):.2f}")


if __name__ == "__main__":
    main()
