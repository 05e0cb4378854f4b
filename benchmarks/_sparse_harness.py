"""What the sparse benchmarks share: their data and how they measure one call.

Imported by ``bench_sparse_deletion.py`` and ``bench_certify_sparse.py`` (run as scripts from
the repository root: their folder is on ``sys.path``).
"""

from __future__ import annotations

import resource
import time
import warnings

import numpy as np
import scipy.sparse as sp


def make_data(rows, features, density, seed=0):
    """CSR matrix with values in [0, 1) and labels of a linear rule with 10 % noise."""
    rng = np.random.default_rng(seed)
    X = sp.random(rows, features, density=density, format="csr", random_state=rng,
                  data_rvs=rng.random)
    score = X @ rng.standard_normal(features)
    y = (score + 0.1 * score.std() * rng.standard_normal(rows) > np.median(score)).astype(int)
    return X, y


def _status_kb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def measure(func):
    """``(result, seconds, extra MB)`` of ``func()`` in this process, warnings silenced.

    The extra memory is the peak resident memory above what the process held before the call:
    the kernel's high-water mark is reset first (``/proc/self/clear_refs``, Linux >= 4.0) and
    ``VmHWM - VmRSS`` reported; elsewhere the process's lifetime ``ru_maxrss`` stands in.
    """
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        before, hwm = _status_kb("VmRSS"), True
    except OSError:
        before, hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, False
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = func()
    seconds = time.perf_counter() - start
    peak = _status_kb("VmHWM") if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out, seconds, (peak - before) / 1024
