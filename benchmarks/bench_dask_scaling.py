"""Scaling benchmark of issue 17, point 6: larger-than-memory training on dask, and time and
memory against n and d. Run by hand (minutes to hours), never by the test suite.

Part (a), ``--part a``: a dense float32 data set of at least 1.5x this machine's memory on disk
as zarr (no compression), ``x_nj = z_nj * s_nj`` with ``z ~ N(0, 1)`` and ``s ~ Bernoulli(0.5)``
(half the entries zero, so dropout has something to do), labels ``y_n ~ Bernoulli(sigmoid(
w*^T x_n + b*))`` from a fixed logistic model, generated chunk by chunk with ``dask.array.random``
(fixed seed) straight to zarr. On a ``distributed.LocalCluster`` (2 worker processes, 1 thread
each, memory limit well below the data) reading the zarr store:

* ``--steps generate``: write the data set (skipped when a complete one is there);
* ``--steps plain``: the time of one plain dask pass: ``X.sum(axis=0)`` and ``X.T @ (X @ v)``;
* ``--steps slice``: the coefficients of the dask fit against the in-memory fit on the first
  ``--slice-rows`` rows (read from the same store), at the default ``tol`` and at ``tol=1e-10``;
* ``--steps full``: ``DropoutLogisticRegression`` and ``DropoutSVC`` (defaults) on all rows.

Passes are counted by wrapping :meth:`robustclf._blockwise.RowBlocks.reduce` in this process
(the library is not edited): every call is one pass over the data. Each pass is classified by
the chunk function it runs (surrogate start, full value/gradient/Hessian, step = full pass with
line-search candidates, objective only, gradient only). Peak memory of every worker process is
sampled with psutil from a background thread (``--sample-interval`` seconds). A fit that is
still running after ``--budget-min`` minutes is stopped before its next pass and reported with
the passes it made.

Part (b), ``--part b``: fit time and peak extra memory (``ru_maxrss`` of a fresh subprocess minus
its resident size before the fit; the data are generated in the subprocess) of every linear
estimator at its defaults beside scikit-learn's ``LinearSVC`` and ``LogisticRegression``, for
dense d = 100 and n = 1e4 ... 1e7, and for sparse CSR data with 1e5 rows, ~50 non-zeros a row
and d = 1e2 ... 1e6. Each fit has ``--timeout`` seconds; a size is skipped for an estimator after
a timeout or a failure at a smaller size, or when the previous size's time projects beyond the
timeout (x10 along n, x2 along d).

Part (c), ``--part c``: dask-ml's ``LogisticRegression`` (dask_glm's ADMM by default) beside
``DropoutLogisticRegression`` at its defaults and at ``q=0`` on the same dask data: the first
``--c-rows`` rows of the part (a) store and in-memory-sized synthetic sets held as dask arrays;
fit time and held-out accuracy.

Every part writes ``<results>/<part>.json``; ``--summary`` (or the end of every part) turns all
results present into ``<results>/summary.md``.

Usage::

    nice python benchmarks/bench_dask_scaling.py --part a --steps generate,plain,slice,full
    nice python benchmarks/bench_dask_scaling.py --part b [--timeout 300] [--max-n 1e7]
    nice python benchmarks/bench_dask_scaling.py --part c [--c-rows 10000000]
    python benchmarks/bench_dask_scaling.py --summary
    python benchmarks/bench_dask_scaling.py --delete-data
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import psutil  # noqa: E402

GiB = 2**30
MiB = 2**20
DEFAULT_DIR = Path("/work/scratch_dask")
SEED = 17

# ---------------------------------------------------------------------------------------------
# common helpers


def machine() -> dict:
    vm = psutil.virtual_memory()
    du = shutil.disk_usage("/work")
    return dict(date=datetime.date.today().isoformat(), cpus=os.cpu_count(),
                ram_gib=round(vm.total / GiB, 1),
                swap_gib=round(psutil.swap_memory().total / GiB, 1),
                disk_free_gb=round(du.free / 1e9, 1), python=platform.python_version(),
                load=os.getloadavg())


def code_version() -> dict:
    """The commit the run used and whether the blockwise solver files differ from it."""
    root = Path(__file__).resolve().parents[1]

    def git(*cmd):
        return subprocess.run(["git", "-C", str(root), *cmd], capture_output=True,
                              text=True).stdout.strip()

    files = ["src/robustclf/_blockwise", "src/robustclf/linear/_dropout_blockwise.py"]
    return dict(commit=git("rev-parse", "--short", "HEAD"),
                solver_files_modified=bool(git("status", "--porcelain", "--", *files)))


def versions() -> dict:
    import dask
    import distributed
    import sklearn
    import zarr

    out = dict(code_version(), numpy=np.__version__, dask=dask.__version__,
               distributed=distributed.__version__, zarr=zarr.__version__,
               sklearn=sklearn.__version__)
    with contextlib.suppress(ImportError):
        import dask_ml

        out["dask_ml"] = dask_ml.__version__
    return out


def load_results(results: Path, part: str) -> dict:
    path = results / f"{part}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def save_results(results: Path, part: str, data: dict) -> None:
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{part}.json").write_text(json.dumps(data, indent=1, default=_jsonable))


def _jsonable(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def model_parameters(d: int, seed: int = SEED, margin_sd: float = 3.0, density: float = 0.5):
    """``w*`` and ``b*`` of the logistic model: ``w*^T x`` has standard deviation ``margin_sd``
    when a fraction ``density`` of the N(0, 1) features are non-zero."""
    rng = np.random.default_rng([seed, d])
    w = rng.standard_normal(d)
    w *= margin_sd / np.sqrt(density * (w @ w))
    return w, 0.5


def fmt_s(t) -> str:
    if t is None:
        return "–"
    if isinstance(t, str):
        return t
    return f"{t:.3g} s" if t < 100 else f"{t:.0f} s"


def fmt_mb(b) -> str:
    if b is None:
        return "–"
    return f"{b / MiB:.0f} MB" if b < 10 * GiB else f"{b / GiB:.1f} GiB"


# ---------------------------------------------------------------------------------------------
# pass counting and memory sampling (part a, c)


class BudgetExceeded(Exception):
    """Raised by the pass counter before a pass that would start after the time budget."""


class PassCounter:
    """Counts the passes of a blockwise fit by wrapping ``RowBlocks.reduce`` and ``collect``.

    Every call is one pass over the data; it is classified by the chunk function it evaluates.
    With ``budget`` seconds, a pass that would start after the budget raises
    :class:`BudgetExceeded` instead.
    """

    def __init__(self, budget: float | None = None, pids=()):
        self.budget = budget
        self.passes: list[dict] = []
        self.t0 = None
        self.procs = [psutil.Process(pid) for pid in pids]

    def cpu_seconds(self) -> float:
        """User + system CPU time of the watched processes (the workers) so far."""
        total = 0.0
        for proc in self.procs:
            with contextlib.suppress(psutil.Error):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    @staticmethod
    def kind(func, args) -> str:
        name = getattr(func, "__name__", str(func))
        if name == "_full_pass":
            # args: theta, candidates, chunk, loss, final_loss, plan, true_loss
            if args[1] is not None:
                return "step (gradient, Hessian, 8 line-search values)"
            if args[4] is not None:
                return "start (gradient, Hessian, scale)"
            return "re-evaluation (gradient, Hessian)"
        return {"_surrogate_pass": "surrogate start (Gram)",
                "values": "objective only (history)",
                "_gradient_pass": "value and gradient (L-BFGS)",
                "_logistic_chunk_terms": "value and gradient (MCF-logistic)"}.get(name, name)

    def __enter__(self):
        from robustclf._blockwise import RowBlocks, StatefulRowChunks

        self._orig = {(RowBlocks, "reduce"): RowBlocks.reduce,
                      (RowBlocks, "collect"): RowBlocks.collect,
                      (StatefulRowChunks, "run"): StatefulRowChunks.run}
        counter = self
        self.t0 = time.perf_counter()

        def wrap(cls, method_name):
            orig = self._orig[cls, method_name]

            def wrapped(blocks, func, *args, **kwargs):
                start = time.perf_counter()
                if counter.budget is not None and start - counter.t0 > counter.budget:
                    raise BudgetExceeded
                cpu = counter.cpu_seconds()
                out = orig(blocks, func, *args, **kwargs)
                reads = kwargs.get("data", True)
                kind = counter.kind(func, args)
                if method_name == "run":       # RoLR's passes over chunks with a state
                    kind = f"RoLR {kind}" + ("" if reads is True else f" (reads {reads or 'state'}"
                                                                        " only)")
                counter.passes.append(dict(kind=kind, method=method_name,
                                           reads_X=reads is True, start=start - counter.t0,
                                           seconds=time.perf_counter() - start,
                                           worker_cpu_seconds=counter.cpu_seconds() - cpu,
                                           load=os.getloadavg()[0]))
                return out
            return wrapped

        for cls, method_name in self._orig:
            setattr(cls, method_name, wrap(cls, method_name))
        return self

    def __exit__(self, *exc):
        for (cls, method_name), orig in self._orig.items():
            setattr(cls, method_name, orig)
        return False

    def summary(self) -> dict:
        kinds: dict[str, list[float]] = {}
        cpu: dict[str, list[float]] = {}
        for p in self.passes:
            kinds.setdefault(p["kind"], []).append(p["seconds"])
            cpu.setdefault(p["kind"], []).append(p.get("worker_cpu_seconds", np.nan))
        secs = [p["seconds"] for p in self.passes]
        return dict(n_passes=len(self.passes),
                    n_passes_reading_X=sum(p["reads_X"] for p in self.passes),
                    pass_seconds_total=float(sum(secs)),
                    pass_seconds_mean=float(np.mean(secs)) if secs else None,
                    pass_seconds_median=float(np.median(secs)) if secs else None,
                    by_kind={k: dict(count=len(v), mean_s=float(np.mean(v)),
                                     mean_cpu_s=float(np.mean(cpu[k])))
                             for k, v in kinds.items()},
                    passes=self.passes)


class MemorySampler(threading.Thread):
    """Peak resident memory of some processes (the cluster's workers), sampled with psutil."""

    def __init__(self, pids: dict, interval: float = 0.5):
        super().__init__(daemon=True)
        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.interval = interval
        self.peak = dict.fromkeys(self.procs, 0)
        self.min_available = psutil.virtual_memory().available
        self._stop_event = threading.Event()

    def run(self):
        while not self._stop_event.is_set():
            for name, proc in self.procs.items():
                with contextlib.suppress(psutil.Error):
                    self.peak[name] = max(self.peak[name], proc.memory_info().rss)
            self.min_available = min(self.min_available, psutil.virtual_memory().available)
            self._stop_event.wait(self.interval)

    def stop(self) -> dict:
        self._stop_event.set()
        self.join()
        return dict(peak_rss=self.peak, peak_rss_max=max(self.peak.values()),
                    min_system_available=self.min_available)


@contextlib.contextmanager
def measured(client, interval):
    """Wall time, load average and the workers' (and this process's) peak memory of a block."""
    pids = {f"worker {i}": pid for i, pid in enumerate(client.run(os.getpid).values())}
    pids["client"] = os.getpid()
    sampler = MemorySampler(pids, interval)
    workers = PassCounter(pids=[pid for name, pid in pids.items() if name != "client"])
    out = dict(load_before=os.getloadavg(), worker_pids=list(pids.values())[:-1])
    sampler.start()
    cpu0 = workers.cpu_seconds()
    t0 = time.perf_counter()
    try:
        yield out
    finally:
        out["seconds"] = time.perf_counter() - t0
        out["worker_cpu_seconds"] = workers.cpu_seconds() - cpu0
        mem = sampler.stop()
        out["load_after"] = os.getloadavg()
        out["peak_worker_rss"] = max(v for k, v in mem["peak_rss"].items() if k != "client")
        out["peak_client_rss"] = mem["peak_rss"]["client"]
        out["min_system_available"] = mem["min_system_available"]


def start_cluster(args):
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(logging.ERROR)
    local = args.data_dir / "dask-worker-space"
    local.mkdir(parents=True, exist_ok=True)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           memory_limit=args.memory_limit, dashboard_address=None,
                           local_directory=str(local))
    return cluster, Client(cluster)


# ---------------------------------------------------------------------------------------------
# part (a): the larger-than-memory data set


def store_path(args) -> Path:
    return args.data_dir / "scaling.zarr"


def generate(args, client) -> dict:
    """Write ``X`` (float32) and ``y`` (int8) to a zarr group chunk by chunk."""
    import dask.array as da
    import zarr

    path = store_path(args)
    n, d, rows = args.rows, args.features, args.chunk_rows
    with contextlib.suppress(Exception):
        group = zarr.open_group(str(path), mode="r")
        if group.attrs.get("complete") and tuple(group["X"].shape) == (n, d):
            print(f"data set present: {path} {group['X'].shape}")
            return dict(group.attrs)
    size = n * d * 4
    free = shutil.disk_usage(args.data_dir).free
    if free - size < args.keep_free_gb * 1e9:
        raise SystemExit(f"{size / 1e9:.1f} GB would leave less than {args.keep_free_gb} GB free "
                         f"on {args.data_dir} ({free / 1e9:.1f} GB free); reduce --rows.")
    if path.exists():
        shutil.rmtree(path)
    group = zarr.open_group(str(path), mode="w")
    zX = group.create_array("X", shape=(n, d), chunks=(rows, d), dtype="float32",
                            compressors=None)
    zy = group.create_array("y", shape=(n,), chunks=(rows,), dtype="int8", compressors=None)
    w, b = model_parameters(d)
    rng = da.random.default_rng(SEED)
    Z = rng.standard_normal((n, d), chunks=(rows, d), dtype=np.float32)
    keep = rng.random((n, d), chunks=(rows, d), dtype=np.float32) < 0.5
    X = da.where(keep, Z, np.float32(0.0))
    U = rng.random(n, chunks=rows)

    def labels(xb, ub):
        p = 1.0 / (1.0 + np.exp(-(xb.astype(np.float64) @ w + b)))
        return (ub[:, 0] < p).astype(np.int8)

    y = da.map_blocks(labels, X, U[:, None], drop_axis=1, dtype=np.int8)
    with measured(client, args.sample_interval) as m:
        da.store([X, y], [zX, zy], lock=False)
    attrs = dict(rows=n, features=d, chunk_rows=rows, seed=SEED, density=0.5, w_true=w.tolist(),
                 b_true=b, bytes_X=size, generate_seconds=m["seconds"], complete=True)
    group.attrs.update(attrs)
    print(f"wrote {path}: {n} x {d} float32 = {size / GiB:.1f} GiB in {m['seconds']:.0f} s")
    return attrs


def open_store(args):
    import dask.array as da
    import zarr

    path = store_path(args)
    group = zarr.open_group(str(path), mode="r")
    if not group.attrs.get("complete"):
        raise SystemExit(f"{path} is incomplete: run --steps generate first.")
    return da.from_zarr(str(path), component="X"), da.from_zarr(str(path), component="y"), \
        dict(group.attrs)


def plain_passes(args, client, X) -> dict:
    """The cheapest honest passes: a column sum and ``X^T (X v)`` (both read every chunk)."""
    v = np.random.default_rng(0).standard_normal(X.shape[1]).astype(np.float32)
    out = {}
    for name, expr in (("X.sum(axis=0)", lambda: X.sum(axis=0)),
                       ("X.T @ (X @ v)", lambda: X.T @ (X @ v)),
                       ("X.astype(float64).T @ (X @ v)",
                        lambda: X.astype(np.float64).T @ (X.astype(np.float64) @ v))):
        with measured(client, args.sample_interval) as m:
            expr().compute()
        out[name] = m
        print(f"plain pass {name}: {m['seconds']:.1f} s, peak worker "
              f"{m['peak_worker_rss'] / MiB:.0f} MB, load {m['load_after'][0]:.2f}")
    return out


def make_estimator(name: str, **params):
    import robustclf.linear

    return getattr(robustclf.linear, name)(**params)


def fit_on_dask(args, client, name, X, y, budget=None, **params) -> dict:
    """One blockwise fit with its passes and memory; stopped before a pass after ``budget`` s."""
    est = make_estimator(name, **params)
    status = "done"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with measured(client, args.sample_interval) as m, \
                PassCounter(budget, client.run(os.getpid).values()) as counter:
            try:
                est.fit(X, y)
            except BudgetExceeded:
                status = f"stopped by the {budget / 60:.0f}-minute budget"
    out = dict(estimator=name, params=params, status=status, fit_seconds=m["seconds"], **m,
               **counter.summary(), warnings=[str(w.message)[:200] for w in caught])
    if status == "done":
        measure = getattr(est, "optimality_", getattr(est, "gradient_norm_", None))
        out.update(n_iter=np.ravel(est.n_iter_).tolist(), optimality=np.ravel(measure).tolist(),
                   coef=est.coef_.ravel().tolist(), intercept=est.intercept_.tolist(),
                   solver=getattr(est, "solver_", None))
        out["passes_per_iteration"] = (out["n_passes"] - 2) / max(int(est.n_iter_.max()), 1)
    print(f"{name} {params} on {X.shape[0]:,} rows: {status}, {m['seconds']:.0f} s, "
          f"{out['n_passes']} passes (mean {out['pass_seconds_mean'] or 0:.1f} s), "
          f"n_iter {out.get('n_iter')}, peak worker {m['peak_worker_rss'] / MiB:.0f} MB, "
          f"load {m['load_after'][0]:.2f}")
    return out


def relative_difference(a: dict, b: dict) -> float:
    va = np.r_[a["coef"], a["intercept"]]
    vb = np.r_[b["coef"], b["intercept"]]
    return float(np.linalg.norm(va - vb) / np.linalg.norm(vb))


def slice_agreement(args, client, X, y, save=None) -> list[dict]:
    """Dask fit from zarr against the in-memory fit on the first ``--slice-rows`` rows."""
    rows = args.slice_rows
    Xs, ys = X[:rows], y[:rows]
    Xm, ym = Xs.compute(), ys.compute()
    out = []
    for name in args.estimators + args.slice_extra:
        for params in ({}, {"tol": 1e-10}):
            est = make_estimator(name, **params)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t0 = time.perf_counter()
                est.fit(Xm, ym)
                t_mem = time.perf_counter() - t0
            mem = dict(coef=est.coef_.ravel().tolist(), intercept=est.intercept_.tolist(),
                       n_iter=np.ravel(est.n_iter_).tolist(), seconds=t_mem,
                       solver=getattr(est, "solver_", None),
                       warnings=[str(w.message)[:200] for w in caught])
            dsk = fit_on_dask(args, client, name, Xs, ys, budget=args.budget_min * 60,
                              **params)
            row = dict(estimator=name, params=params, rows=rows, in_memory=mem, dask=dsk,
                       rel_coef_diff=relative_difference(dsk, mem)
                       if dsk["status"] == "done" else None)
            print(f"  slice {name} {params}: in memory {t_mem:.1f} s (n_iter {mem['n_iter']}), "
                  f"dask {dsk['fit_seconds']:.1f} s, relative difference "
                  f"{row['rel_coef_diff'] or float('nan'):.2e}")
            out.append(row)
            if save is not None:
                save(out)
    del Xm, ym
    gc.collect()
    return out


def part_a(args) -> None:
    results = load_results(args.results, "a")
    results.setdefault("machine", machine())
    results["versions"] = versions()
    results["settings"] = dict(memory_limit=args.memory_limit, chunk_rows=args.chunk_rows,
                               workers=2, threads_per_worker=1)
    steps = args.steps.split(",")
    cluster, client = start_cluster(args)
    try:
        if "generate" in steps:
            results["data"] = generate(args, client)
            save_results(args.results, "a", results)
        X, y, attrs = open_store(args)
        results["data"] = {k: v for k, v in attrs.items() if k != "w_true"}
        print(f"data: {X.shape} {X.dtype}, {X.nbytes / GiB:.1f} GiB, chunks of "
              f"{X.chunks[0][0]:,} rows ({X.chunks[0][0] * X.shape[1] * 4 / MiB:.0f} MB), "
              f"{X.numblocks[0]} chunks")
        if "plain" in steps:
            results["plain"] = plain_passes(args, client, X)
            save_results(args.results, "a", results)
        if "slice" in steps:       # its own file: a "full" run may be writing a.json
            head = dict(machine=machine(), versions=versions())
            slice_agreement(args, client, X, y,
                            lambda rows: save_results(args.results, "a_slice",
                                                      dict(head, slice=rows)))
        if "full" in steps:
            full = results.setdefault("full", {})
            for name in args.estimators:
                full[name] = fit_on_dask(args, client, name, X, y,
                                         budget=args.budget_min * 60)
                save_results(args.results, "a", results)
    finally:
        client.close()
        cluster.close()
    if {"generate", "plain", "full"} & set(steps):
        save_results(args.results, "a", results)


# ---------------------------------------------------------------------------------------------
# part (b): in-memory time and memory against n and d (one subprocess per fit)

B_ESTIMATORS = ["DropoutSVC", "DropoutLogisticRegression", "MCFClassifier",
                "RobustLogisticRegression", "DeletionRobustLP", "FDROPClassifier",
                "DeletionRobustPerceptron", "LinearSVC", "LogisticRegression"]


def dense_data(n: int, d: int, seed: int = SEED):
    """The part (a) model in memory (float64), generated in blocks (no full-size temporary)."""
    w, b = model_parameters(d)
    X = np.empty((n, d))
    y = np.empty(n, dtype=np.int8)
    block = 20_000
    for i, start in enumerate(range(0, n, block)):
        rng = np.random.default_rng([seed, n, i])
        stop = min(start + block, n)
        xb = X[start:stop]
        rng.standard_normal(out=xb)
        xb *= rng.random(xb.shape) < 0.5
        p = 1.0 / (1.0 + np.exp(-(xb @ w + b)))
        y[start:stop] = rng.random(stop - start) < p
    return X, y


def sparse_data(n: int, d: int, nnz_row: int = 50, seed: int = SEED):
    """CSR with ``min(nnz_row, d / 2)`` uniformly placed N(0, 1) entries a row, labels from a
    logistic model whose margin has standard deviation 3."""
    import scipy.sparse as sp

    rng = np.random.default_rng([seed, n, d])
    k = min(nnz_row, d // 2)
    cols = rng.integers(0, d, size=(n, k))
    cols.sort(axis=1)
    X = sp.csr_matrix((rng.standard_normal(n * k), cols.ravel(), np.arange(0, n * k + 1, k)),
                      shape=(n, d))
    X.sum_duplicates()
    w = rng.standard_normal(d) * 3.0 / np.sqrt(k)
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    y = (rng.random(n) < p).astype(np.int8)
    return X, y


def b_estimator(name: str):
    import sklearn.linear_model as sklm
    import sklearn.svm as sksvm

    import robustclf.linear as rl

    if name == "LinearSVC":
        return sksvm.LinearSVC()
    if name == "LogisticRegression":
        return sklm.LogisticRegression()
    return getattr(rl, name)()


def child(spec: dict) -> dict:
    """One fit of part (b) in this (fresh) process: data, then fit; time and peak memory."""
    if spec["kind"] == "dense":
        X, y = dense_data(spec["n"], spec["d"])
        data_bytes = X.nbytes
    else:
        X, y = sparse_data(spec["n"], spec["d"])
        data_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    est = b_estimator(spec["estimator"])
    gc.collect()
    proc = psutil.Process()
    rss0 = proc.memory_info().rss
    maxrss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    sampler = MemorySampler({"self": os.getpid()}, interval=0.005)
    sampler.start()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - t0
    sampled = sampler.stop()["peak_rss_max"]
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # ru_maxrss is exact when the fit set a new high; else the 5 ms samples bound the peak
    peak = maxrss if maxrss > maxrss0 else sampled
    idx = slice(0, min(X.shape[0], 100_000))
    acc = float((est.predict(X[idx]) == y[idx]).mean())
    n_iter = getattr(est, "n_iter_", None)
    return dict(seconds=seconds, extra_bytes=max(peak - rss0, 0), data_bytes=data_bytes,
                train_accuracy=acc, n_iter=np.ravel(n_iter).tolist() if n_iter is not None
                else None, warnings=sorted({type(w.message).__name__ for w in caught}),
                solver=getattr(est, "solver_", None))


def _child_main(spec: dict, limit: int, conn) -> None:
    """Body of a forked child: cap the address space, fit, send the result (or the error)."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        conn.send(dict(child(spec), status="ok"))
    except MemoryError as exc:
        conn.send(dict(status="memory", error=f"MemoryError: {exc}"[:300]))
    except Exception as exc:  # noqa: BLE001 - reported in the table
        conn.send(dict(status="error", error=f"{type(exc).__name__}: {exc}"[:300]))
    finally:
        conn.close()


def run_child(args, spec: dict) -> dict:
    """One fit in a forked process (the libraries are imported once, by the parent): its
    ``ru_maxrss`` starts at the parent's small resident size. Killed after the timeout (plus
    time to generate the data); its address space is capped (``--child-memory-gib``)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    limit = int(min(args.child_memory_gib * GiB, psutil.virtual_memory().available - 3 * GiB))
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child_main, args=(spec, limit, send))
    t0 = time.perf_counter()
    proc.start()
    send.close()
    out = None
    if recv.poll(args.timeout + args.generate_allowance):
        with contextlib.suppress(EOFError):
            out = recv.recv()
    if proc.is_alive():
        proc.kill()
    proc.join()
    wall = time.perf_counter() - t0
    if out is None:
        if proc.exitcode not in (0, None) and proc.exitcode != -9:
            return dict(status="error", error=f"exit code {proc.exitcode}", wall=wall)
        return dict(status="timeout", wall=wall)
    if out["status"] == "ok" and out["seconds"] > args.timeout:
        out["status"] = "timeout"
    out["wall"] = wall
    return out


def part_b(args) -> None:
    import scipy.sparse  # noqa: F401 - imported once, before the children are forked
    import sklearn.linear_model  # noqa: F401
    import sklearn.svm  # noqa: F401

    import robustclf.linear  # noqa: F401

    results = load_results(args.results, "b")
    results["machine"] = machine()
    results["versions"] = versions()
    results["timeout"] = args.timeout
    rows = results.setdefault("rows", [])
    ns = [int(float(v)) for v in args.b_n.split(",") if float(v) <= args.max_n]
    ds = [int(float(v)) for v in args.b_d.split(",")]
    axes = [("dense", [(n, 100) for n in ns], 10.0), ("sparse", [(100_000, d) for d in ds], 2.0)]
    t_start = time.perf_counter()
    for estimator in args.b_estimators.split(","):
        for kind, sizes, growth in axes:
            blocked = None
            prev = None
            for n, d in sizes:
                key = (estimator, kind, n, d)
                old = next((r for r in rows if (r["estimator"], r["kind"], r["n"], r["d"])
                            == key), None)
                if old is not None:
                    prev = old
                    if old["status"] != "ok":
                        blocked = old["status"]
                    continue
                spec = dict(estimator=estimator, kind=kind, n=n, d=d)
                if blocked:
                    res = dict(status="skipped", reason=f"after {blocked} at a smaller size")
                elif prev is not None and prev["status"] == "ok" and \
                        prev["seconds"] * growth > args.timeout:
                    res = dict(status="skipped",
                               reason=f"projected {prev['seconds'] * growth:.0f} s")
                else:
                    load = os.getloadavg()
                    res = run_child(args, spec)
                    res["load"] = load
                row = dict(spec, **res)
                rows.append(row)
                if res["status"] in ("timeout", "memory", "error"):
                    blocked = res["status"]
                if res["status"] != "skipped":
                    prev = row
                print(f"[{(time.perf_counter() - t_start) / 60:5.1f} min] {estimator:26s} "
                      f"{kind:6s} n={n:>9,} d={d:>9,}: {res['status']:8s} "
                      f"{fmt_s(res.get('seconds')):>9s} {fmt_mb(res.get('extra_bytes')):>9s} "
                      f"{res.get('reason', res.get('error', ''))}", flush=True)
                save_results(args.results, "b", results)
    save_results(args.results, "b", results)


# ---------------------------------------------------------------------------------------------
# part (c): dask-ml's logistic regression as the peer


def part_c(args) -> None:
    import dask.array as da
    from dask_ml.linear_model import LogisticRegression as DaskMLLogisticRegression

    results = load_results(args.results, "c")
    results["machine"] = machine()
    results["versions"] = versions()
    cases = results.setdefault("cases", [])
    cluster, client = start_cluster(args)
    try:
        sets = []
        for n in [int(float(v)) for v in args.c_small.split(",") if v]:
            X, y = dense_data(n + 100_000, 100, seed=SEED + 1)
            Xd = da.from_array(X[:n].astype(np.float32), chunks=(min(n, args.chunk_rows), 100))
            yd = da.from_array(y[:n], chunks=(min(n, args.chunk_rows),))
            sets.append((f"in memory {n:,} x 100 (dask array)", Xd, yd,
                         X[n:].astype(np.float32), y[n:]))
        if args.c_rows:
            Xz, yz, _ = open_store(args)
            n = args.c_rows
            sets.append((f"zarr, first {n:,} rows x 100", Xz[:n], yz[:n],
                         Xz[n:n + 1_000_000].compute(), yz[n:n + 1_000_000].compute()))
        for label, Xd, yd, Xt, yt in sets:
            w, b = model_parameters(Xd.shape[1])
            bayes = float(((Xt @ w + b > 0).astype(np.int8) == yt).mean())
            for model in args.c_models.split(","):
                if any(c["data"] == label and c["model"] == model for c in cases):
                    continue
                if model == "dask-ml":
                    est = DaskMLLogisticRegression()
                elif model == "dask-ml-lbfgs":
                    est = DaskMLLogisticRegression(solver="lbfgs")
                elif model == "dropout-default":
                    est = make_estimator("DropoutLogisticRegression")
                else:
                    est = make_estimator("DropoutLogisticRegression", q=0.0)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    with measured(client, args.sample_interval) as m, \
                            PassCounter(pids=client.run(os.getpid).values()) as counter:
                        est.fit(Xd, yd)
                pred = np.asarray(est.predict(Xt))
                acc = float((pred.astype(np.int8) == yt).mean())
                row = dict(data=label, model=model, fit_seconds=m["seconds"],
                           test_accuracy=acc, bayes_accuracy=bayes, **m,
                           n_passes=len(counter.passes) or None,
                           n_iter=np.ravel(getattr(est, "n_iter_", [])).tolist() or None,
                           warnings=sorted({type(w.message).__name__ for w in caught}))
                cases.append(row)
                print(f"{label:40s} {model:16s} {m['seconds']:8.1f} s  acc {acc:.4f} "
                      f"(Bayes {bayes:.4f}) passes {row['n_passes']} peak worker "
                      f"{m['peak_worker_rss'] / MiB:.0f} MB load {m['load_after'][0]:.2f}",
                      flush=True)
                save_results(args.results, "c", results)
    finally:
        client.close()
        cluster.close()
    save_results(args.results, "c", results)


# ---------------------------------------------------------------------------------------------
# the markdown summary


def summary(args) -> str:
    out = []
    a, b, c = (load_results(args.results, p) for p in "abc")
    a.update(load_results(args.results, "a_slice"))
    if a:
        mach = a["machine"]
        out.append(f"### (a) Larger than memory: {a['data'].get('rows', 0):,} x "
                   f"{a['data'].get('features')} float32 on zarr")
        out.append("")
        data_bytes = a["data"].get("bytes_X", 0)
        out.append(f"Data {data_bytes / GiB:.1f} GiB (machine RAM {mach['ram_gib']} GiB), "
                   f"chunks of {a['data'].get('chunk_rows', 0):,} rows "
                   f"({a['data'].get('chunk_rows', 0) * a['data'].get('features', 0) * 4 / MiB:.0f}"
                   f" MB); LocalCluster 2 workers x 1 thread, memory_limit "
                   f"{a['settings']['memory_limit']}; generated in "
                   f"{a['data'].get('generate_seconds', 0):.0f} s.")
        out.append("")
        plain = a.get("plain", {})
        if plain:
            out.append("| plain dask pass | time | peak worker RSS | load before/after |")
            out.append("|---|---|---|---|")
            for name, m in plain.items():
                out.append(f"| `{name}` | {fmt_s(m['seconds'])} | {fmt_mb(m['peak_worker_rss'])}"
                           f" | {m['load_before'][0]:.1f} / {m['load_after'][0]:.1f} |")
            out.append("")
        ref = plain.get("X.T @ (X @ v)", {}).get("seconds")
        full = a.get("full", {})
        if full:
            out.append("| estimator | status | fit time | passes | iterations | mean pass | "
                       "pass / plain pass | passes per iteration | peak worker RSS | "
                       "peak client RSS | load |")
            out.append("|---|---|---|---|---|---|---|---|---|---|---|")
            for name, r in full.items():
                ratio = (f"{r['pass_seconds_mean'] / ref:.1f}" if ref and r["pass_seconds_mean"]
                         else "–")
                ppi = (f"{r['passes_per_iteration']:.2f}" if r.get("passes_per_iteration")
                       is not None else "–")
                out.append(f"| {name} | {r['status']} | {fmt_s(r['fit_seconds'])} | "
                           f"{r['n_passes']} | {r.get('n_iter', '–')} | "
                           f"{fmt_s(r['pass_seconds_mean'])} | {ratio} | {ppi} | "
                           f"{fmt_mb(r['peak_worker_rss'])} | {fmt_mb(r['peak_client_rss'])} | "
                           f"{r['load_before'][0]:.1f} / {r['load_after'][0]:.1f} |")
            out.append("")
            out.append("Passes by kind (count, mean time):")
            out.append("")
            for name, r in full.items():
                kinds = "; ".join(f"{k}: {v['count']} x {fmt_s(v['mean_s'])}"
                                  for k, v in r["by_kind"].items())
                out.append(f"- {name}: {kinds}")
            out.append("")
        sl = a.get("slice", [])
        if sl:
            out.append(f"Agreement with the in-memory fit on the first "
                       f"{sl[0]['rows']:,} rows (read from the same store):")
            out.append("")
            out.append("| estimator | tol | in memory | dask (LocalCluster) | passes | "
                       "iterations (memory / dask) | passes per iteration | "
                       "relative coefficient difference |")
            out.append("|---|---|---|---|---|---|---|---|")
            for r in sl:
                dk, mem = r["dask"], r["in_memory"]
                ppi = (f"{dk['passes_per_iteration']:.2f}" if dk.get("passes_per_iteration")
                       is not None else "–")
                out.append(f"| {r['estimator']} | {r['params'].get('tol', 1e-6):g} | "
                           f"{fmt_s(mem['seconds'])} | {fmt_s(dk['fit_seconds'])} | "
                           f"{dk['n_passes']} | {mem['n_iter']} / {dk.get('n_iter')} | {ppi} | "
                           f"{r['rel_coef_diff']:.1e} |")
            out.append("")
    if b:
        out.append(f"### (b) In memory: time and peak extra memory (timeout {b['timeout']} s)")
        out.append("")
        rows = b["rows"]
        for kind, axis in (("dense", "n"), ("sparse", "d")):
            sizes = sorted({r[axis] for r in rows if r["kind"] == kind})
            if not sizes:
                continue
            title = ("dense, d = 100, rows n" if kind == "dense"
                     else "sparse CSR, 1e5 rows, ~50 non-zeros a row, features d")
            out.append(f"{title}; each cell: time / peak extra memory "
                       f"(ratio to LogisticRegression's time)")
            out.append("")
            out.append("| estimator | " + " | ".join(f"{axis} = {s:.0e}" for s in sizes) + " |")
            out.append("|---|" + "---|" * len(sizes))
            ref = {r[axis]: r["seconds"] for r in rows if r["kind"] == kind and
                   r["estimator"] == "LogisticRegression" and r["status"] == "ok"}
            for est in dict.fromkeys(r["estimator"] for r in rows):
                cells = []
                for s in sizes:
                    r = next((r for r in rows if r["kind"] == kind and r["estimator"] == est
                              and r[axis] == s), None)
                    if r is None:
                        cells.append("–")
                    elif r["status"] == "ok":
                        ratio = f" ({r['seconds'] / ref[s]:.1f}x)" if s in ref else ""
                        cells.append(f"{fmt_s(r['seconds'])} / {fmt_mb(r['extra_bytes'])}{ratio}")
                    elif r["status"] == "timeout":
                        cells.append(f"> {b['timeout']} s")
                    elif r["status"] == "skipped":
                        cells.append(f"skipped ({r['reason']})")
                    else:
                        cells.append(f"{r['status']}: {r.get('error', '')[:60]}")
                out.append(f"| {est} | " + " | ".join(cells) + " |")
            out.append("")
    if c:
        out.append("### (c) dask-ml's LogisticRegression as the peer (same dask data, "
                   "same cluster)")
        out.append("")
        out.append("| data | model | fit time | passes counted | held-out accuracy | Bayes | "
                   "peak worker RSS | load |")
        out.append("|---|---|---|---|---|---|---|---|")
        for r in c["cases"]:
            out.append(f"| {r['data']} | {r['model']} | {fmt_s(r['fit_seconds'])} | "
                       f"{r['n_passes'] or '–'} | {r['test_accuracy']:.4f} | "
                       f"{r['bayes_accuracy']:.4f} | {fmt_mb(r['peak_worker_rss'])} | "
                       f"{r['load_before'][0]:.1f} / {r['load_after'][0]:.1f} |")
        out.append("")
    text = "\n".join(out)
    args.results.mkdir(parents=True, exist_ok=True)
    (args.results / "summary.md").write_text(text + "\n")
    return text


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=["a", "b", "c"])
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DIR,
                   help="where the zarr store and the workers' spill space go (not the repo)")
    p.add_argument("--results", type=Path, default=None,
                   help="directory of the JSON results and summary.md (default DATA_DIR/results)")
    p.add_argument("--summary", action="store_true", help="only write and print the summary")
    p.add_argument("--delete-data", action="store_true", help="remove the zarr store and exit")
    # part a
    p.add_argument("--steps", default="generate,plain,slice,full")
    p.add_argument("--rows", type=lambda v: int(float(v)), default=97_000_000)
    p.add_argument("--features", type=int, default=100)
    p.add_argument("--chunk-rows", type=int, default=250_000)
    p.add_argument("--memory-limit", default="4GiB")
    p.add_argument("--keep-free-gb", type=float, default=15.0)
    p.add_argument("--slice-rows", type=lambda v: int(float(v)), default=2_000_000)
    p.add_argument("--estimators", default="DropoutLogisticRegression,DropoutSVC",
                   type=lambda v: v.split(","))
    p.add_argument("--slice-extra", default="MCFClassifier,RobustLogisticRegression",
                   type=lambda v: [e for e in v.split(",") if e],
                   help="estimators fitted on the slice only")
    p.add_argument("--budget-min", type=float, default=60.0)
    p.add_argument("--sample-interval", type=float, default=0.5)
    # part b
    p.add_argument("--b-n", default="1e4,1e5,1e6,1e7")
    p.add_argument("--max-n", type=float, default=1e7)
    p.add_argument("--b-d", default="1e2,1e3,1e4,1e5,1e6")
    p.add_argument("--b-estimators", default=",".join(B_ESTIMATORS))
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--child-memory-gib", type=float, default=14.0)
    p.add_argument("--generate-allowance", type=float, default=120.0,
                   help="seconds a part (b) child may spend making its data before the fit")
    # part c
    p.add_argument("--c-rows", type=lambda v: int(float(v)), default=10_000_000)
    p.add_argument("--c-small", default="1e5,1e6")
    p.add_argument("--c-models", default="dask-ml,dask-ml-lbfgs,dropout-default,dropout-q0",
                   help="dask-ml: dask_ml.linear_model.LogisticRegression() (ADMM); "
                        "dask-ml-lbfgs: its solver='lbfgs'; dropout-default: "
                        "DropoutLogisticRegression(); dropout-q0: the same with q=0")
    args = p.parse_args(argv)
    args.results = args.results or args.data_dir / "results"
    if args.delete_data:
        path = store_path(args)
        if path.exists():
            shutil.rmtree(path)
        print(f"removed {path}")
        return
    if args.part == "a":
        part_a(args)
    elif args.part == "b":
        part_b(args)
    elif args.part == "c":
        part_c(args)
    print(summary(args))


if __name__ == "__main__":
    main()
