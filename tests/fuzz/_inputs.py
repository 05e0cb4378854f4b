"""The input families of the fuzzing harness, as hypothesis strategies, and its settings.

Every family is a strategy drawing a :class:`Inputs` (training ``X``, ``y``, test ``X_test``)
of a small random size from a drawn seed: the family fixes *what* is odd about the data (NaN,
an empty matrix, string labels, a read-only array...), hypothesis draws the sizes and values.
The labels follow a linear rule, so clean data are linearly separable and both classes occur
(except in ``one_class``).

Settings. The fuzz tests use the profile named by ``ROBUSTCLF_FUZZ_PROFILE``: ``fuzz``
(default, a few examples per case, derandomized so that CI is deterministic) or ``long``
(250 examples per case, fresh random examples, for runs by hand)::

    ROBUSTCLF_FUZZ_PROFILE=long OMP_NUM_THREADS=1 .venv/bin/python -m pytest tests/fuzz -q

The profiles are applied by decorating each fuzz test (``@FUZZ``), not loaded globally, so they
never change the settings of the rest of the test suite (``tests/conftest.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

settings.register_profile(  # no shrinking: a failure is reported at once, on small data anyway
    "fuzz", max_examples=2, deadline=None, derandomize=True, database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])
settings.register_profile(
    "long", max_examples=250, deadline=None, derandomize=False, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])
#: The settings every fuzz test runs under (``ROBUSTCLF_FUZZ_PROFILE``, default ``fuzz``).
FUZZ = settings.get_profile(os.environ.get("ROBUSTCLF_FUZZ_PROFILE", "fuzz"))

_WEIGHTS = np.array([1.0, -2.0, 0.5, 1.5, -1.0, 0.7, -0.3, 1.1])


@dataclass
class Inputs:
    """One drawn input: what to fit on and what to predict on.

    Attributes
    ----------
    X, y : training data (any container the family produces) and labels.
    X_test : test rows, of the same container and columns as ``X`` unless the family says
        otherwise (``dataframe_reordered``).
    X_test_aligned : ``X_test`` with the columns in their training order (for a family that
        reorders them), else None.
    """

    X: object
    y: object
    X_test: object
    X_test_aligned: object = None
    meta: dict = field(default_factory=dict)


def _base(seed, n_rows, n_features, *, labels=(0, 1)):
    """Gaussian rows and labels from a linear rule, both classes present."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    scores = X @ _WEIGHTS[:n_features]
    if len(labels) == 2:
        index = (scores > np.median(scores)).astype(int) if n_rows else np.zeros(0, int)
        if n_rows >= 2 and index.min() == index.max():
            index[0] = 1 - index[0]
    else:  # classes by score terciles
        index = np.searchsorted(np.quantile(scores, [1 / 3, 2 / 3]), scores)
    y = np.asarray(labels, dtype=object if isinstance(labels[0], str) else None)[index]
    X_test = rng.normal(size=(max(n_rows // 2, 3), n_features))
    return X, y, X_test


_sizes = st.tuples(st.integers(0, 2**32 - 1), st.integers(12, 30), st.integers(2, 6))


@st.composite
def _family(draw, build):
    seed, n_rows, n_features = draw(_sizes)
    return build(np.random.default_rng(seed), *_base(seed, n_rows, n_features))


def _with_nan(rng, X, fraction=0.2, whole_row=False):
    X = X.copy()
    X[rng.random(X.shape) < fraction] = np.nan
    if whole_row:
        X[0] = np.nan
    return X


def _read_only(*arrays):
    for a in arrays:
        a.flags.writeable = False
    return arrays


def _frames(rng, X, y, X_test):
    columns = [f"f{j}" for j in range(X.shape[1])]
    test = pd.DataFrame(X_test, columns=columns)
    return Inputs(pd.DataFrame(X, columns=columns), y, test[columns[::-1]], X_test_aligned=test)


def _sub(labels):
    """Relabel the 0/1 labels as ``labels``."""
    table = np.asarray(labels, dtype=object if isinstance(labels[0], str) else None)
    return lambda rng, X, y, X_test: Inputs(X, table[y.astype(int)], X_test)


def _constant(rng, X, y, X_test):
    X, X_test = X.copy(), X_test.copy()
    X[:, 0] = X_test[:, 0] = 3.0
    return Inputs(X, y, X_test)


def _three_class(rng, X, y, X_test):
    return Inputs(*_base(int(rng.integers(2**32)), X.shape[0], X.shape[1], labels=(0, 1, 2)))


# -- the families: name -> builder(rng, X, y, X_test) -> Inputs ----------------------------------
_BUILDERS = {
    "clean": lambda rng, X, y, T: Inputs(X, y, T),
    "nan_fit": lambda rng, X, y, T: Inputs(_with_nan(rng, X), y, T),
    "nan_predict": lambda rng, X, y, T: Inputs(X, y, _with_nan(rng, T, 0.3, whole_row=True)),
    "inf_fit": lambda rng, X, y, T: Inputs(np.where(np.arange(X.size).reshape(X.shape) == 1,
                                                    np.inf, X), y, T),
    "empty": lambda rng, X, y, T: Inputs(X[:0], y[:0], T),
    "one_row": lambda rng, X, y, T: Inputs(X[:1], y[:1], T),
    "one_feature": lambda rng, X, y, T: Inputs(X[:, :1], (X[:, 0] > 0).astype(int), T[:, :1]),
    "one_class": lambda rng, X, y, T: Inputs(X, np.ones_like(y), T),
    "str_labels": _sub(("a", "b")),
    "pm1_labels": _sub((-1, 1)),
    "bool_labels": _sub((False, True)),
    "three_class": _three_class,
    "constant_column": _constant,
    "huge": lambda rng, X, y, T: Inputs(X * 1e200, y, T * 1e200),
    "tiny": lambda rng, X, y, T: Inputs(X * 1e-200, y, T * 1e-200),
    "int_dtype": lambda rng, X, y, T: Inputs(np.round(3 * X).astype(np.int64), y,
                                             np.round(3 * T).astype(np.int64)),
    "float32": lambda rng, X, y, T: Inputs(X.astype(np.float32), y, T.astype(np.float32)),
    "object_numeric": lambda rng, X, y, T: Inputs(X.astype(object), y, T.astype(object)),
    "complex": lambda rng, X, y, T: Inputs(X + 1j * X, y, T + 1j * T),
    "dataframe_reordered": _frames,
    "sparse_csr": lambda rng, X, y, T: Inputs(sp.csr_matrix(np.where(np.abs(X) < 0.7, 0, X)), y,
                                              sp.csr_matrix(np.where(np.abs(T) < 0.7, 0, T))),
    "non_contiguous": lambda rng, X, y, T: Inputs(np.repeat(X, 2, axis=1)[:, ::2], y,
                                                  np.repeat(T, 2, axis=1)[:, ::2]),
    "read_only": lambda rng, X, y, T: Inputs(*_read_only(X.copy(), y.copy(), T.copy())),
}

#: name -> strategy of :class:`Inputs`.
FAMILIES = {name: _family(build) for name, build in _BUILDERS.items()}

#: Families whose data are valid: every estimator must fit them and predict correctly.
VALID = frozenset({"clean", "nan_predict", "str_labels", "pm1_labels", "bool_labels",
                   "int_dtype", "float32", "object_numeric", "non_contiguous", "read_only",
                   "constant_column", "one_feature"})
#: Families whose data are invalid: every estimator must refuse them with a clear error.
INVALID = frozenset({"empty", "complex", "inf_fit"})


def copy_of(data):
    """A deep copy of an input, to check later that it was not modified."""
    if data is None or isinstance(data, (pd.DataFrame, pd.Series)) or sp.issparse(data):
        return None if data is None else data.copy()
    return np.array(data, copy=True)


def unchanged(before, after) -> bool:
    """Whether ``after`` holds exactly the data ``before`` held (NaN equal to NaN)."""
    if before is None:
        return after is None
    if isinstance(before, pd.DataFrame):
        return before.equals(after) and list(before.columns) == list(after.columns)
    if sp.issparse(before):
        return (before.format == after.format and before.shape == after.shape
                and np.array_equal(before.toarray(), after.toarray(), equal_nan=True))
    a, b = np.asarray(before), np.asarray(after)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    return bool((a == b).all()) if a.dtype != object else a.tolist() == b.tolist()


#: Exceptions that are a clear answer to a bad input (NotFittedError is a ValueError).
CLEAR_ERRORS = (ValueError, TypeError)
#: ValueErrors that are not clear answers: an error from deep inside a solver.
_OBSCURE = (np.linalg.LinAlgError, FloatingPointError, ZeroDivisionError, IndexError)
#: Words a message may use to name the part of the input it refuses.
_INPUT_WORDS = ("X", "y", "X_train", "y_train", "X_test", "y_test", "sample_weight", "class",
                "classes", "label", "labels", "feature", "features", "column", "columns",
                "feature names", "reference", "sample", "samples", "row", "rows")


def clear_error_problem(exc: BaseException, params=()) -> str | None:
    """Why ``exc`` is not a clear error (None when it is): a ValueError or TypeError, not
    raised from deep inside (LinAlgError...), whose message names the input or parameter."""
    if not isinstance(exc, CLEAR_ERRORS) or isinstance(exc, _OBSCURE):
        return f"obscure {type(exc).__name__}: {exc}"
    message = str(exc)
    words = "|".join(sorted({*_INPUT_WORDS, *params}, key=len, reverse=True))
    if not re.search(rf"(?<![A-Za-z_])({words})(?![A-Za-z_])", message):
        return f"{type(exc).__name__} naming no input or parameter: {message[:300]}"
    return None
