"""Fast modes of the Chechik et al. (2007) experiments."""

import numpy as np
import pytest

from robustclf.datasets import get_data_home
from robustclf.evaluation import CURVE_COLUMNS
from robustclf.experiments import get_experiment
from robustclf.experiments.chechik import cross_validated_errors, method_grids


def _data_available(*names):
    try:
        home = get_data_home()
    except Exception:  # noqa: BLE001 - any failure to locate the data means "absent"
        return False
    return home is not None and all((home / n).exists() for n in names)


def _check(result, methods):
    assert result.curves
    for curve in result.curves:
        assert tuple(curve.frame.columns) == CURVE_COLUMNS
        assert set(curve.frame.estimator) == set(methods)
        assert curve.frame.error.between(0, 1).all()
        assert curve.spread == "sem"


def test_structural_fast():
    result = get_experiment("chechik-structural").run(fast=True, random_state=0, n_jobs=1,
                                                      data_dir=None)
    _check(result, method_grids(fast=True))
    names = [c.name for c in result.curves]
    assert names == ["structural_synthetic", "structural_subtypes"]
    assert set(result.curves[1].frame.level) == {1}


def test_method_grids_imputer_cs_only_shrink_knn_and_em():
    full = method_grids(fast=False)
    reduced = method_grids(fast=False, imputer_Cs=[1.0])
    assert (len(full["knn"]), len(full["em"])) == (12, 15)
    assert (len(reduced["knn"]), len(reduced["em"])) == (4, 5)
    assert {k: len(v) for k, v in full.items() if k not in ("knn", "em")} == \
        {k: len(v) for k, v in reduced.items() if k not in ("knn", "em")}
    assert {p[-1][-1].C for p in reduced["knn"] + reduced["em"]} == {1.0}
    # every baseline SVC has an iteration cap (libsvm's default never stops on some folds)
    from robustclf.experiments.chechik import SVC_MAX_ITER
    assert {p[-1][-1].max_iter for name in ("zero", "mean", "flags", "knn", "em")
            for p in full[name]} == {SVC_MAX_ITER}


@pytest.mark.parametrize("name, files", [
    ("chechik-mcar", ("spambase", "breast_cancer_wisconsin_original")),
    ("chechik-votes", ("house_votes_84",)),
])
def test_real_data_fast(name, files):
    if not _data_available(*files):
        pytest.skip("public datasets not found (set ROBUSTCLF_DATA)")
    result = get_experiment(name).run(fast=True, random_state=0, n_jobs=1, data_dir=None)
    _check(result, method_grids(fast=True))


def test_cross_validated_errors_selects_and_is_deterministic():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 3))
    y = (X[:, 0] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    grids = {k: v for k, v in method_grids(fast=True).items() if k in ("zero", "geometric")}
    a = cross_validated_errors([(0.2, X, y)], grids, corruption="c", level_name="l",
                               n_folds=2, random_state=0)
    b = cross_validated_errors([(0.2, X, y)], grids, corruption="c", level_name="l",
                               n_folds=2, random_state=0)
    assert len(a) == 4
    np.testing.assert_array_equal(a.error, b.error)


def test_cached_grids_impute_once_per_k_and_give_the_same_errors(monkeypatch):
    from sklearn.impute import KNNImputer

    from robustclf.experiments.chechik import cached_method_grids

    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    X[rng.random(X.shape) < 0.2] = np.nan
    calls = []
    original = KNNImputer.fit_transform

    def counting(self, X, y=None, **kw):
        calls.append(X.shape[0])
        return original(self, X, y, **kw)

    monkeypatch.setattr(KNNImputer, "fit_transform", counting)
    plain = {"knn": method_grids(fast=False)["knn"][:8]}  # C in {0.1, 1} x K in {3, 5, 10, 20}
    a = cross_validated_errors([(0.2, X, y)], plain, corruption="c", level_name="l",
                               n_folds=2, random_state=0)
    n_plain = len(calls)
    calls.clear()
    with cached_method_grids(fast=False) as grids:
        b = cross_validated_errors([(0.2, X, y)], {"knn": grids["knn"][:8]}, corruption="c",
                                   level_name="l", n_folds=2, random_state=0)
    np.testing.assert_array_equal(a.error, b.error)
    # per fold: 8 candidates on the selection rows (4 imputations when cached) + 1 refit
    assert n_plain == 2 * (8 + 1)
    assert len(calls) == 2 * (4 + 1)
