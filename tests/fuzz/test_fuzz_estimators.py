"""Fuzzing every public estimator over the input families (issue 19, point 2).

Every class :func:`robustclf._discovery.all_estimators` finds (classifiers and transformers),
built as in the common checks (``tests/_estimator_cases.py``; a class without a case there is
built with its defaults), is fitted on every family of ``tests/fuzz/_inputs.py``. Each outcome
must be either

* a **correct result**: predictions of the test rows' shape with labels from ``classes_``
  (``classes_`` the labels of ``y``), finite decision values and probabilities, a finite
  transform; or
* a **clear error**: a ValueError or TypeError (NotFittedError included) whose message names the
  input or a parameter -- never an IndexError, AttributeError, LinAlgError, ZeroDivisionError
  or FloatingPointError from deep inside, never a silent NaN.

Families of valid data (``_inputs.VALID``: NaN at prediction time, odd labels, dtypes,
non-contiguous and read-only arrays...) must give a correct result; invalid ones
(``_inputs.INVALID``: empty, complex, inf) a clear error. No input is ever modified. On clean
data: a fixed ``random_state`` gives identical predictions, so does a pickle round trip, and
permuting the test rows permutes the predictions.

Behaviour that differs by design is declared once, in :data:`EXPECTED`, with its reason. Run
with more examples by hand (see ``_inputs``)::

    ROBUSTCLF_FUZZ_PROFILE=long OMP_NUM_THREADS=1 .venv/bin/python -m pytest tests/fuzz -q
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given
from sklearn.base import clone, is_classifier

from _estimator_cases import CASES
from robustclf._discovery import all_estimators

from ._inputs import FAMILIES, FUZZ, INVALID, VALID, clear_error_problem, copy_of, unchanged

_BUDGET_IS_EVERYTHING = (
    "by design: the default budget=1 equals the total value of a single feature, so the "
    "adversary may delete every feature and the problem is undefined (ValueError naming budget)")
_NOT_SEPARABLE = (
    "by design the hard-margin SVC refuses data that are not strictly separable (ties from "
    "rounding a constant or integer column), with a ValueError naming X and y")

# (estimator class name, family) -> why the outcome differs from the family's rule. Only
# behaviour by design belongs here, and open bugs in code the harness may not change, marked
# "open bug"; every entry is a strict xfail, so a fix that makes it pass must remove it.
EXPECTED: dict[tuple[str, str], str] = {
    ("DeletionRobustLP", "one_feature"): _BUDGET_IS_EVERYTHING,
    ("DeletionRobustPerceptron", "one_feature"): _BUDGET_IS_EVERYTHING,
    **{("GeometricMarginSeparableSVC", family): _NOT_SEPARABLE
       for family in ("constant_column", "int_dtype")},
}


def _instance(cls):
    """The first instance of ``cls`` in the shared table, else ``cls()`` (a new public class is
    fuzzed with its defaults as soon as it is exported)."""
    return next((clone(est) for est, _ in CASES if type(est) is cls), None) or cls()


ESTIMATORS = [(name, _instance(cls)) for name, cls in all_estimators()]
_IDS = [name for name, _ in ESTIMATORS]


def _quiet(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args)


def _n_rows(X):
    return X.shape[0]


def _check_result(est, X_test, y):
    """Fail unless ``est`` (fitted) gives a correct result on ``X_test``."""
    n = _n_rows(X_test)
    if is_classifier(est):
        pred = _quiet(est.predict, X_test)
        assert np.shape(pred) == (n,), f"predict gave shape {np.shape(pred)}, expected ({n},)"
        assert list(est.classes_) == sorted(set(np.asarray(y).tolist())), (
            f"classes_ {list(est.classes_)} are not the labels of y")
        assert set(np.asarray(pred).tolist()) <= set(est.classes_.tolist()), (
            "predict returned labels outside classes_")
        if hasattr(est, "decision_function"):
            scores = np.asarray(_quiet(est.decision_function, X_test))
            assert scores.shape[0] == n and np.isfinite(scores).all(), (
                "decision_function gave non-finite values")
        if hasattr(est, "predict_proba"):
            proba = np.asarray(_quiet(est.predict_proba, X_test))
            assert np.isfinite(proba).all(), "predict_proba gave non-finite values"
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-6)
        return pred
    out = _quiet(est.transform, X_test)
    out = out.toarray() if sp.issparse(out) else np.asarray(out, dtype=float)
    assert out.shape[0] == n and np.isfinite(out).all(), "transform gave non-finite values"
    return out


def _predictions(est, X):
    return _quiet(est.predict if is_classifier(est) else est.transform, X)


def _scores(est, X):
    """Everything the fitted ``est`` says about ``X``: predictions and, if any, decision values
    and probabilities (for exact comparisons)."""
    out = [np.asarray(_predictions(est, X))]
    for method in ("decision_function", "predict_proba"):
        if hasattr(est, method):
            out.append(np.asarray(_quiet(getattr(est, method), X)))
    return out


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("estimator", [est for _, est in ESTIMATORS], ids=_IDS)
def test_outcome_is_a_result_or_a_clear_error(estimator, family, request):
    name = type(estimator).__name__
    if (name, family) in EXPECTED:
        request.applymarker(pytest.mark.xfail(reason=EXPECTED[name, family], strict=True))
    params = list(estimator.get_params(deep=False))

    @FUZZ
    @given(data=FAMILIES[family])
    def run(data):
        est = clone(estimator)
        before = [copy_of(a) for a in (data.X, data.y, data.X_test)]
        try:
            _quiet(est.fit, data.X, data.y)
        except Exception as exc:  # noqa: BLE001 - every outcome is judged
            problem = clear_error_problem(exc, params)
            assert problem is None, f"fit: {problem}"
            assert family not in VALID, f"fit refused valid input: {exc}"
            return
        finally:
            for label, old, new in zip(("X", "y"), before[:2], (data.X, data.y), strict=True):
                assert unchanged(old, new), f"fit modified {label}"
        assert family not in INVALID, f"fit accepted {family} input silently"
        try:
            result = _check_result(est, data.X_test, data.y)
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001
            problem = clear_error_problem(exc, params)
            assert problem is None, f"predict: {problem}"
            assert family not in VALID, f"predict refused valid input: {exc}"
            return
        finally:
            assert unchanged(before[2], data.X_test), "predict modified X_test"
        if data.X_test_aligned is not None:  # reordered columns: read by name, or refused
            aligned = _predictions(est, data.X_test_aligned)
            np.testing.assert_array_equal(np.asarray(result), np.asarray(aligned),
                                          err_msg="reordered columns read by position")

    run()


def _seeded(estimator):
    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


@pytest.mark.parametrize("estimator", [est for _, est in ESTIMATORS], ids=_IDS)
def test_fit_is_deterministic_and_survives_pickle(estimator):
    @FUZZ
    @given(data=FAMILIES["clean"])
    def run(data):
        first = _quiet(_seeded(estimator).fit, data.X, data.y)
        second = _quiet(_seeded(estimator).fit, data.X, data.y)
        reference = _scores(first, data.X_test)
        for a, b in zip(reference, _scores(second, data.X_test), strict=True):
            np.testing.assert_array_equal(a, b, err_msg="two fits with random_state=0 differ")
        restored = pickle.loads(pickle.dumps(first))
        for a, b in zip(reference, _scores(restored, data.X_test), strict=True):
            np.testing.assert_array_equal(a, b, err_msg="pickle round trip changed the output")

    run()


@pytest.mark.parametrize("estimator", [est for _, est in ESTIMATORS], ids=_IDS)
def test_permuting_test_rows_permutes_predictions(estimator):
    @FUZZ
    @given(data=FAMILIES["nan_predict"])
    def run(data):
        est = _quiet(_seeded(estimator).fit, data.X, data.y)
        perm = np.random.default_rng(0).permutation(_n_rows(data.X_test))
        reference = _scores(est, data.X_test)
        for a, b in zip(reference, _scores(est, data.X_test[perm]), strict=True):
            np.testing.assert_allclose(b, a[perm], rtol=1e-12, atol=1e-12,
                                       err_msg="permuted rows gave other outputs")

    run()


def test_every_expected_failure_names_a_known_case():
    names = {name for name, _ in ESTIMATORS}
    stale = sorted(key for key in EXPECTED if key[0] not in names or key[1] not in FAMILIES)
    assert not stale, f"EXPECTED lists unknown (estimator, family) pairs: {stale}"


@FUZZ
@given(data=FAMILIES["dataframe_reordered"])
def test_harness_families_and_copies_are_what_they_say(data):
    assert isinstance(data.X, pd.DataFrame)
    assert list(data.X_test.columns) == list(data.X.columns)[::-1]
    before = copy_of(data.X)
    data.X.iloc[0, 0] += 1.0  # the mutation check must see a change of one entry
    assert not unchanged(before, data.X)
