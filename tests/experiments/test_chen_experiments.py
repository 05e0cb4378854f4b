"""The Chen et al. (2014) reproductions in fast mode: registered, tidy, protocols as documented."""

import numpy as np
import pandas as pd
import pytest

from robustclf.experiments import _chen_common, get_experiment
from robustclf.experiments._chen_common import BASELINES, FreeBiasLinearSVC, make_estimator
from robustclf.experiments.chen import paired_versus_baselines, select_per_level
from robustclf.linear import DropoutSVC

DROPOUT = ("Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
           "Dropout-Logistic (gaussian)")

NAMES = ("dropout-mnist-nightmare", "dropout-amazon-explicit", "dropout-amazon-q")


def _run_or_skip(name):
    try:
        return get_experiment(name).run(fast=True, random_state=0, n_jobs=1, data_dir=None)
    except (FileNotFoundError, OSError) as exc:
        pytest.skip(f"data for {name} is not available: {exc}")


def test_experiments_are_registered():
    for name in NAMES:
        assert get_experiment(name).paper.startswith("N. Chen")


def test_select_per_level_uses_validation_not_test():
    points = pd.DataFrame({
        "estimator": "A", "q": [0.1, 0.5], "C": 1.0, "fit_seconds": 0.0,
        "predict_seconds": 0.0,
        # point 0 is best on clean validation, point 1 at deletion 0.5
        "val": [np.array([0.10, 0.40]), np.array([0.12, 0.30])],
        "test": [np.array([0.11, 0.45]), np.array([0.13, 0.33])]})
    paper = select_per_level(points, [0.0, 0.5], per_level=True)
    np.testing.assert_allclose(paper["error"], [0.11, 0.33])
    np.testing.assert_allclose(paper["q"], [0.1, 0.5])
    clean = select_per_level(points, [0.0, 0.5], per_level=False)
    np.testing.assert_allclose(clean["error"], [0.11, 0.45])
    assert (clean["q"] == 0.1).all()


def test_select_per_level_chooses_per_deletion_draw():
    # arrays are level-major: (level 0, draw 0), (level 0, draw 1), (level 0.5, draw 0), ...
    points = pd.DataFrame({
        "estimator": "A", "q": [0.1, 0.5], "C": 1.0, "fit_seconds": 0.0,
        "predict_seconds": 0.0,
        "val": [np.array([0.10, 0.14, 0.40, 0.20]), np.array([0.12, 0.11, 0.30, 0.35])],
        "test": [np.array([0.11, 0.12, 0.45, 0.25]), np.array([0.13, 0.10, 0.33, 0.36])]})
    paper = select_per_level(points, [0.0, 0.5], per_level=True, repeats=2)
    assert paper["repeat"].tolist() == [0, 1, 0, 1]
    assert paper["level"].tolist() == [0.0, 0.0, 0.5, 0.5]
    np.testing.assert_allclose(paper["error"], [0.11, 0.10, 0.33, 0.25])
    # clean selection averages the clean draws: point 1 (0.115 < 0.12)
    clean = select_per_level(points, [0.0, 0.5], per_level=False, repeats=2)
    np.testing.assert_allclose(clean["error"], [0.13, 0.10, 0.33, 0.36])


def _check_frame(curve):
    frame = curve.frame
    assert {"estimator", "corruption", "level_name", "level", "repeat", "error", "fit_seconds",
            "predict_seconds", "q", "C"} <= set(frame.columns)
    assert frame["error"].between(0, 1).all()
    assert curve.paper is None  # the paper gives figures only for these experiments


def test_paired_versus_baselines_pairs_every_dropout_model_with_each_baseline():
    rng = np.random.default_rng(0)
    names = [*BASELINES, "Dropout-SVM (gaussian)", "MCF-Logistic"]
    frame = pd.DataFrame([(n, lvl, r, rng.uniform(0.1, 0.5)) for n in names
                          for lvl in (0.0, 0.5) for r in range(3)],
                         columns=["estimator", "level", "repeat", "error"])
    d = paired_versus_baselines(frame)
    assert d["reference"].tolist() == [BASELINES[0]] * 2 + [BASELINES[1]] * 2
    assert set(d["estimator"]) == {"Dropout-SVM (gaussian)"}  # MCF is not a dropout model
    err = frame.set_index(["estimator", "level", "repeat"])["error"]
    for row in d.itertuples():
        diff = (err["Dropout-SVM (gaussian)"] - err[row.reference])[row.level]
        assert row.mean == pytest.approx(diff.mean())
        half = 4.302652729911275 * diff.std(ddof=1) / np.sqrt(3)  # t(0.975, 2 df)
        assert row.ci_high - row.mean == pytest.approx(half)
        assert row.n_pairs == 3
    with pytest.raises(ValueError, match="none of the baselines"):
        paired_versus_baselines(frame[~frame["estimator"].isin(BASELINES)])


def test_free_bias_baseline_is_the_papers_svm_and_linearsvc_is_not():
    # The paper's hinge-L2 SVM with an unregularised bias: DropoutSVC(q=0) solves the same
    # problem (libsvm, one-vs-rest), so both give the same classifier; liblinear's LinearSVC
    # penalises its bias and lands elsewhere.
    X, y = _digits()
    free = make_estimator("Hinge-L2 (SVC, free bias)", 0.0, 0.1).fit(X, y)
    ref = DropoutSVC(q=0.0, C=0.1).fit(X, y)
    assert ref.solver_ == "libsvm"
    np.testing.assert_allclose(free.decision_function(X), ref.decision_function(X),
                               atol=2e-3)
    np.testing.assert_array_equal(free.predict(X), ref.predict(X))
    penalised = make_estimator("Hinge-L2 (LinearSVC)", 0.0, 0.1).fit(X, y)
    assert np.abs(penalised.intercept_ - free.intercept_).max() > 0.05


def _digits(n=300):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:n] / 16.0, y[:n]


def test_free_bias_svc_gram_and_w_space_paths_agree(monkeypatch):
    from robustclf.missing import _geometric_solver

    X, y = _digits(200)
    gram = FreeBiasLinearSVC(C=1.0).fit(X, y)
    # a certificate: P - D >= 0 always; at tol=1e-3 the gap is about 1e-3 relative or less
    assert (gram.duality_gap_ >= -1e-9).all() and gram.duality_gap_.max() < 5e-3
    tight = FreeBiasLinearSVC(C=1.0, tol=1e-6).fit(X, y)
    assert tight.duality_gap_.max() < 1e-5
    # more rows than GRAM_MAX_ROWS: the w-space decomposition, on blocks of 64 rows
    monkeypatch.setattr(_chen_common, "GRAM_MAX_ROWS", 10)
    monkeypatch.setattr(_geometric_solver, "LINEAR_BLOCK", 32)
    direct = FreeBiasLinearSVC(C=1.0).fit(X, y)
    assert (direct.n_iter_ > 1).all()   # several reduced solves per class
    assert (direct.duality_gap_ >= -1e-9).all() and direct.duality_gap_.max() < 5e-3
    np.testing.assert_array_equal(direct.predict(X), gram.predict(X))
    direct_tight = FreeBiasLinearSVC(C=1.0, tol=1e-6).fit(X, y)
    assert direct_tight.duality_gap_.max() < 1e-5
    np.testing.assert_allclose(direct_tight.coef_, tight.coef_, atol=2e-5)
    np.testing.assert_allclose(direct_tight.intercept_, tight.intercept_, atol=2e-5)


def test_free_bias_svc_two_classes_and_bad_input():
    X, y = _digits(200)
    labels = np.where(y == 3, "three", "other")
    clf = FreeBiasLinearSVC(C=0.5).fit(X, labels)
    assert clf.coef_.shape == (1, 64) and clf.decision_function(X).shape == (200,)
    # class 1 ("three") is the positive class, as in scikit-learn
    np.testing.assert_array_equal(clf.predict(X) == "three", clf.decision_function(X) > 0)
    assert clf.score(X, labels) > 0.95
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        FreeBiasLinearSVC(C=0.0).fit(X, y)
    with pytest.raises(ValueError, match="1 class .*at least two"):
        FreeBiasLinearSVC().fit(X, np.zeros(200))
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :10])
    with pytest.raises(ValueError, match="Unknown label type"):
        FreeBiasLinearSVC().fit(X, np.linspace(0, 1, 200))


def test_mnist_nightmare_fast_mode():
    result = _run_or_skip("dropout-mnist-nightmare")
    assert [c.name for c in result.curves] == ["mnist_nightmare_per_level",
                                               "mnist_nightmare_clean_selection",
                                               "mnist_nightmare_paired_differences"]
    for curve in result.curves[:2]:
        _check_frame(curve)
        frame = curve.frame
        assert set(frame["level"]) == {0.0, 0.5}
        assert {*DROPOUT, "MCF-Quadratic", "MCF-Logistic", *BASELINES, "LogisticRegression",
                "FDROP"} == set(frame["estimator"])
        assert (frame.loc[frame["estimator"] == "LogisticRegression", "q"] == 0).all()
        assert (frame.loc[frame["estimator"] == "FDROP", "q"] == 10).all()  # q holds FDROP's K
        # deleting half the pixels hurts every model
        wide = frame.pivot_table(index="estimator", columns="level", values="error")
        assert (wide[0.5] > wide[0.0]).all()
    # the differences curve: every dropout model minus each baseline, draw by draw
    per_level = result.curves[0].frame.set_index(["estimator", "level", "repeat"])["error"]
    diffs = result.curves[2]
    assert diffs.spread == "sem" and diffs.ylabel.startswith("paired difference")
    assert set(diffs.frame["estimator"]) == {f"{m} − {b}" for m in DROPOUT for b in BASELINES}
    for row in diffs.frame.itertuples():
        model, base = row.estimator.split(" − ")
        assert row.error == pytest.approx(per_level[model, row.level, row.repeat]
                                          - per_level[base, row.level, row.repeat])
    assert "| Dropout-SVM (gaussian) − Hinge-L2 (SVC, free bias) |" in diffs.intro


def test_amazon_explicit_fast_mode():
    result = _run_or_skip("dropout-amazon-explicit")
    (curve,) = result.curves
    _check_frame(curve)
    frame = curve.frame
    assert set(frame["level"]) == {1, 2} and set(frame["repeat"]) == {0, 1}
    flat = frame[frame["estimator"] == "Dropout-SVM (bound)"].pivot_table(
        index="repeat", columns="level", values="error")
    np.testing.assert_array_equal(flat[1], flat[2])  # M-free methods are drawn flat


def test_amazon_q_fast_mode():
    result = _run_or_skip("dropout-amazon-q")
    assert [c.name for c in result.curves] == ["amazon_books_error_vs_q",
                                               "amazon_kitchen_error_vs_q"]
    for curve in result.curves:
        _check_frame(curve)
        assert (curve.frame["q"] == curve.frame["level"]).all()
