"""Fast modes of the Chechik et al. (2007) experiments."""

import re

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

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
    assert all("estimator − geometric" in c.intro for c in result.curves)
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
    for curve in result.curves:   # every method against the geometric margin, with intervals
        assert "Paired differences, estimator − geometric" in curve.intro
        assert "hgb-nan" in curve.intro.split("Paired differences")[1]


def test_hgb_baseline_leaves_absent_entries_to_its_splits():
    from sklearn.ensemble import HistGradientBoostingClassifier

    full, fast = method_grids(fast=False)["hgb-nan"], method_grids(fast=True)["hgb-nan"]
    assert all(isinstance(m, HistGradientBoostingClassifier) for m in full + fast)
    assert {(m.learning_rate, m.max_leaf_nodes) for m in full} == {
        (0.05, 7), (0.05, 31), (0.1, 7), (0.1, 31)}
    assert len(fast) == 1


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


# ------------------------------------------------------------------------------------------
# Fair protocol (issue 15)
# ------------------------------------------------------------------------------------------

def test_fair_fast_runs_every_method_and_the_bayes_error():
    from robustclf.experiments.chechik import fair_grids

    result = get_experiment("chechik-fair").run(fast=True, random_state=0, n_jobs=1,
                                                data_dir=None)
    (curve,) = result.curves
    frame = curve.frame
    assert tuple(frame.columns) == CURVE_COLUMNS
    assert set(frame.estimator) == set(fair_grids(fast=True)) | {"bayes"}
    assert frame.error.between(0, 1).all()
    assert frame.groupby("estimator").size().eq(2).all()  # 2 repeats of one setting
    # the Bayes error is an expectation, strictly inside (0, 0.5)
    bayes = frame[frame.estimator == "bayes"].error
    assert bayes.between(0.0, 0.5, inclusive="neither").all()
    # the report gives paired differences against the zero-fill SVM, not only means
    assert "estimator − zero" in curve.intro
    assert re.search(r"geometric [+-]\d+\.\d \[[+-]", curve.intro)
    assert "Fair protocol" in result.preamble


def test_fair_grids_give_geometric_the_zero_fill_grid_and_its_iterations():
    from robustclf.experiments.chechik import fair_grids

    grids = fair_grids(fast=False)
    geometric, grid = grids["geometric"]
    assert grid["C"] == grids["zero"][1]["svc__C"]
    assert 0 in grid["max_iter"] and max(grid["max_iter"]) >= 5
    assert geometric.early_stopping is False
    # the paper's way: the iterate chosen by early stopping inside the fit, C by the inner CV
    paper, paper_grid = grids["geometric-es"]
    assert paper.early_stopping is True and paper.max_iter == 5 and set(paper_grid) == {"C"}
    # every imputed SVM keeps a free intercept (libsvm SVC) and the same C grid
    for name in ("zero", "mean", "zero+indicators"):
        pipe, g = grids[name]
        assert type(pipe[-1]).__name__ == "SVC" and g == grids["zero"][1]
    assert grids["zero+indicators"][0][0].add_indicator is True


class _Recorder(ClassifierMixin, BaseEstimator):
    """Majority-class classifier that records how many rows every fit sees."""

    seen = []

    def __init__(self, tag=0):
        self.tag = tag

    def fit(self, X, y):
        _Recorder.seen.append((self.tag, X.shape[0]))
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.majority_)


def test_fair_comparison_same_splits_and_refit_on_all_training_rows():
    from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison

    _Recorder.seen = []
    grids = {"a": (_Recorder(), {"tag": [1, 2]}), "b": (_Recorder(), {"tag": [3]})}
    frame = fair_comparison({2: FAIR_SETTINGS[2]}, n_train=60, n_test=40, n_repeats=1,
                            grids=grids, inner_folds=3, random_state=0, n_jobs=1)
    sizes = [n for _, n in _Recorder.seen]
    # 2 candidates x 3 folds + refit for "a", 1 x 3 + refit for "b"; refits see all 60 rows
    assert len(sizes) == 6 + 1 + 3 + 1
    assert sizes.count(60) == 2 and all(n == 40 for n in sizes if n != 60)
    assert set(frame.estimator) == {"a", "b", "bayes"}
    assert frame.loc[frame.estimator == "a", "best_params"].iloc[0].startswith("{'tag'")


def test_fair_comparison_is_deterministic():
    from robustclf.experiments.chechik import FAIR_SETTINGS, fair_comparison, fair_grids

    grids = {k: v for k, v in fair_grids(fast=True).items() if k in ("zero", "per-pattern")}
    kw = dict(n_train=60, n_test=100, n_repeats=2, grids=grids, inner_folds=2, random_state=3)
    a = fair_comparison({5: FAIR_SETTINGS[5]}, **kw)
    b = fair_comparison({5: FAIR_SETTINGS[5]}, **kw)
    np.testing.assert_array_equal(a.error, b.error)


def _patterned(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    group = rng.integers(0, 2, n)
    X[group == 0, 3] = np.nan
    y = np.where(group == 0, X[:, 0] > 0, X[:, 3] > 0).astype(int)
    return X, y, group


def test_per_pattern_svc_fits_one_svm_per_pattern():
    from sklearn.svm import SVC

    from robustclf.experiments.chechik import PerPatternSVC

    X, y, group = _patterned()
    X_before = X.copy()
    model = PerPatternSVC(C=0.5).fit(X, y)
    np.testing.assert_array_equal(X, X_before)
    assert model.patterns_.shape == (2, 4)
    for mask, fitted in zip(model.patterns_, model.models_, strict=True):
        rows = (~np.isnan(X) == mask).all(axis=1)
        ref = SVC(kernel="linear", C=0.5).fit(X[np.ix_(rows, mask)], y[rows])
        np.testing.assert_allclose(fitted.coef_, ref.coef_)
        np.testing.assert_array_equal(model.predict(X[rows]),
                                      ref.predict(X[np.ix_(rows, mask)]))
    # the rule of each pattern is learned: training error is small on both
    assert np.mean(model.predict(X) != y) < 0.05


def test_per_pattern_svc_unseen_pattern_and_single_class_pattern():
    from robustclf.experiments.chechik import PerPatternSVC

    X, y, group = _patterned(1)
    y = np.where(group == 0, 1, y)  # pattern 0 has one class only
    model = PerPatternSVC().fit(X, y)
    assert np.all(model.predict(X[group == 0]) == 1)
    new = X[:5].copy()
    new[:, 1] = np.nan  # a pattern never seen in training: the zero-fill fallback
    np.testing.assert_array_equal(model.predict(new),
                                  model.fallback_.predict(np.nan_to_num(new, nan=0.0)))


def test_per_pattern_svc_bad_input():
    from robustclf.experiments.chechik import PerPatternSVC

    X, y, _ = _patterned()
    with pytest.raises(ValueError, match="C must be positive"):
        PerPatternSVC(C=0.0).fit(X, y)


def test_per_pattern_svc_several_classes():
    from robustclf.experiments.chechik import PerPatternSVC

    X, _, _ = _patterned()
    y = np.arange(len(X)) % 3
    model = PerPatternSVC().fit(X, y)
    assert set(model.predict(X)) <= {0, 1, 2} and model.classes_.tolist() == [0, 1, 2]


def test_per_pattern_svc_all_nan_pattern_predicts_its_majority():
    from robustclf.experiments.chechik import PerPatternSVC

    X, y, _ = _patterned(2)
    X[:40] = np.nan
    y[:40] = np.r_[np.ones(30, dtype=int), np.zeros(10, dtype=int)]
    y[40:] = 0  # the overall majority is 0, the all-NaN pattern's is 1
    model = PerPatternSVC().fit(X, y)
    assert np.all(model.predict(np.full((3, 4), np.nan)) == 1)
