"""Issue 19, point 1: every bad input to an estimator or a corruption gets a clear error.

Each test reproduces one finding of the fuzzing pass (the issue's ``X``, ``y``) and checks the
error now raised: its type and a message naming the input and what was expected.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from robustclf import (
    DeletionRobustLP,
    DropoutLogisticRegression,
    FeatureBoostClassifier,
    GaussianMixtureImputer,
    GroupMissingIndicator,
    MixtureOfExpertsClassifier,
)
from robustclf._discovery import all_estimators
from robustclf._validation import (
    MAX_MAGNITUDE,
    MIN_MAGNITUDE,
    check_deletion_mask,
    check_magnitude,
    check_n_jobs,
)
from robustclf.certify import certified_error
from robustclf.corruption import DeletionCorruption
from robustclf.evaluation import fitted_certified_curve

X = np.random.default_rng(0).normal(size=(50, 5))
y = (X @ [1, -2, 0.5, 1.5, -1] > 0).astype(int)

# estimators that compute nothing with the values of X (only where NaN is): no magnitude check
_VALUE_FREE = {"GroupMissingIndicator"}
_NEEDS_ESTIMATOR = {"WeightResamplingClassifier": LogisticRegression}


def _instance(cls):
    base = _NEEDS_ESTIMATOR.get(cls.__name__)
    return cls(base()) if base is not None else cls()


_FITTED_ON_VALUES = [cls for name, cls in all_estimators() if name not in _VALUE_FREE]


# -- magnitude: one check (robustclf._validation.check_magnitude) in every estimator's fit ------
@pytest.mark.parametrize("cls", _FITTED_ON_VALUES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("scale, words", [(1e300, "too large"), (1e-300, "too small")])
def test_fit_refuses_values_that_overflow_or_underflow(cls, scale, words):
    # before: "operands could not be broadcast" (DeletionRobustLP), Clarabel NumericalError
    # (FDROPClassifier), "array must not contain infs or NaNs" (DropoutSVC, MCFClassifier...),
    # "Input X contains NaN" from an internal overflow (GeometricMarginSVC); at 1e-300 a
    # silent majority-class model or an ArpackError (RobustLogisticRegression)
    with pytest.raises(ValueError, match=rf"^X has values {words} to fit on: the largest "
                       r"magnitude is 3\.11e[+-]300.*StandardScaler"):
        _instance(cls).fit(X * scale, y)


def test_value_free_transformer_accepts_any_magnitude():
    flags = GroupMissingIndicator().fit(np.where(X > 1, np.nan, X * 1e300)).transform(X)
    assert flags.shape[0] == X.shape[0]


def test_check_magnitude_bounds_sparse_nan_and_zeros():
    check_magnitude(np.zeros((3, 2)))                      # all zeros: nothing to scale
    check_magnitude(np.array([[np.nan, MAX_MAGNITUDE]]))   # NaN (absent) is ignored
    check_magnitude(np.array([[MIN_MAGNITUDE, 0.0]]))
    check_magnitude(np.array([[1e-300, 1.0]]))             # a tiny entry beside normal ones
    check_magnitude(np.array([[1e-300]]), lower=False)
    with pytest.raises(ValueError, match="^Z has values too large"):
        check_magnitude(sp.csr_matrix(np.array([[0.0, -1e200]])), "Z")
    with pytest.raises(ValueError, match="too small"):
        check_magnitude(sp.csr_matrix(np.array([[0.0, 1e-200]])))


def test_moderate_scales_still_fit():
    for scale in (1e-6, 1e6):
        assert DropoutLogisticRegression().fit(X * scale, y).score(X * scale, y) > 0.5


def test_partial_fit_checks_every_batch():
    model = DeletionRobustLP(solver="subgradient").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="^X has values too large"):
        model.partial_fit(X * 1e300, y)


def test_dask_fit_checks_every_chunk():
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="^X has values too large"):
        DropoutLogisticRegression().fit(da.from_array(X * 1e300, chunks=25),
                                        da.from_array(y, chunks=25))


def test_cutting_plane_names_the_lp_limit():
    # HiGHS refuses rows with a coefficient above 1e15 and added none of them: the next LP
    # had no rows and the cut update failed with "operands could not be broadcast"
    with pytest.raises(ValueError, match=r"^X has values too large for the cutting-plane LP.*"
                       r"1e15.*StandardScaler"):
        DeletionRobustLP().fit(X * 1e16, y)


# -- hyper-parameters --------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: FeatureBoostClassifier(DecisionTreeClassifier(), n_estimators=2, n_jobs=0),
    lambda: MixtureOfExpertsClassifier(n_estimators=2, n_jobs=0),
    lambda: DeletionRobustLP(n_jobs=0),
], ids=["FeatureBoostClassifier", "MixtureOfExpertsClassifier", "DeletionRobustLP"])
def test_n_jobs_zero_is_refused(make):
    with pytest.raises(ValueError, match=r"^n_jobs must be None or a non-zero integer"):
        make().fit(X, y)


def test_check_n_jobs():
    assert check_n_jobs(None) is None and check_n_jobs(-1) == -1 and check_n_jobs(2) == 2
    for bad in (0, 1.5, "2", True):
        with pytest.raises(ValueError, match="n_jobs"):
            check_n_jobs(bad)


def test_mixture_imputer_refuses_more_components_than_rows():
    # before: silently fitted min(n_components, n_rows) = 50 clusters
    with pytest.raises(ValueError, match=r"^n_components=1000 must be at most the number of "
                       r"rows of X \(50\)"):
        GaussianMixtureImputer(n_components=1000).fit(X)
    weights = np.r_[np.ones(3), np.zeros(47)]
    with pytest.raises(ValueError, match=r"rows of positive weight of X \(3\)"):
        GaussianMixtureImputer(n_components=4).fit(X, sample_weight=weights)
    imputer = GaussianMixtureImputer(n_components=3, random_state=0).fit(X, sample_weight=weights)
    assert imputer.mixture_.n_components == 3


# -- the deletion mask a corruption subclass returns -------------------------------------------
class _RowMask(DeletionCorruption):
    """Returns a 1-D mask: on a square X it would blank whole rows."""

    def __init__(self, fill=np.nan):
        self.fill = fill

    def _deletion_mask(self, X, y, model, rng):
        return np.arange(X.shape[0]) == 0


class _IntegerMask(_RowMask):
    def _deletion_mask(self, X, y, model, rng):
        return np.eye(*X.shape, dtype=int)


@pytest.mark.parametrize("corruption", [_RowMask(), _IntegerMask()], ids=type)
@pytest.mark.parametrize("method", ["corrupt", "deletion_mask", "sparse"])
def test_deletion_mask_of_the_wrong_shape_or_dtype_is_refused(corruption, method):
    square = X[:5]  # n_samples == n_features: X[mask] = fill would blank whole rows
    name = type(corruption).__name__
    pattern = rf"^{name}\._deletion_mask must return a boolean array of X's shape \(5, 5\)"
    with pytest.raises(ValueError, match=pattern):
        if method == "sparse":
            corruption.corrupt(sp.csr_matrix(square))
        else:
            getattr(corruption, method)(square)


def test_check_deletion_mask_accepts_a_boolean_mask():
    mask = np.zeros((2, 3), dtype=bool)
    assert check_deletion_mask(mask, (2, 3), "Owner") is mask


# -- certification of rows with NaN ------------------------------------------------------------
def test_certificate_on_nan_says_what_to_do():
    # before: "use an estimator that accepts NaN as 'absent'", given for such an estimator
    model = DropoutLogisticRegression().fit(X, y)
    holes = X.copy()
    holes[3, 0] = np.nan
    for data in (holes, sp.csr_matrix(holes)):
        with pytest.raises(ValueError, match=r"^X contains NaN in 1 row\(s\) \(first: row 3\); "
                           r"certification needs complete rows.*Impute X first") as info:
            fitted_certified_curve(model, data, y, budgets=[1])
        assert "accepts NaN" not in str(info.value)
        with pytest.raises(ValueError, match="certification needs complete rows"):
            certified_error(model, data, y, 1)
