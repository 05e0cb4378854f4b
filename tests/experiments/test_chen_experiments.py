"""The Chen et al. (2014) reproductions in fast mode: registered, tidy, protocols as documented."""

import numpy as np
import pandas as pd
import pytest

from robustclf.experiments import get_experiment
from robustclf.experiments.chen import select_per_level

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


def test_mnist_nightmare_fast_mode():
    result = _run_or_skip("dropout-mnist-nightmare")
    assert [c.name for c in result.curves] == ["mnist_nightmare_per_level",
                                               "mnist_nightmare_clean_selection"]
    for curve in result.curves:
        _check_frame(curve)
        frame = curve.frame
        assert set(frame["level"]) == {0.0, 0.5}
        assert {"Dropout-SVM (bound)", "Dropout-SVM (gaussian)", "Dropout-Logistic (bound)",
                "Dropout-Logistic (gaussian)", "MCF-Quadratic", "MCF-Logistic",
                "Hinge-L2 (LinearSVC)", "LogisticRegression", "FDROP"} == set(frame["estimator"])
        assert (frame.loc[frame["estimator"] == "LogisticRegression", "q"] == 0).all()
        assert (frame.loc[frame["estimator"] == "FDROP", "q"] == 10).all()  # q holds FDROP's K
        # deleting half the pixels hurts every model
        wide = frame.pivot_table(index="estimator", columns="level", values="error")
        assert (wide[0.5] > wide[0.0]).all()


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
