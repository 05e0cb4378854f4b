"""Tests of RobustnessCurveDisplay."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from _corruption_doubles import ZeroColumns
from sklearn.datasets import make_classification
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression

from robustclf.evaluation import RobustnessCurveDisplay, robustness_curve, summarize_curve

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    return X[:80], y[:80], X[80:], y[80:]


def _frame(n_repeats=3):
    """A synthetic curve frame: two estimators, three levels, noisy repeats."""
    rng = np.random.default_rng(0)
    rows = [
        {"estimator": name, "corruption": "ZeroColumns", "level_name": "n", "level": level,
         "repeat": r, "error": base + 0.1 * level + 0.02 * rng.standard_normal()}
        for name, base in (("robust", 0.1), ("plain", 0.2))
        for r in range(n_repeats)
        for level in (0, 1, 2)
    ]
    return pd.DataFrame(rows)


def test_importing_evaluation_does_not_import_matplotlib():
    code = ("import sys, robustclf.evaluation; "
            "sys.exit('matplotlib' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_from_frame_draws_one_line_and_band_per_estimator():
    frame = _frame()
    display = RobustnessCurveDisplay.from_frame(frame)
    assert isinstance(display.ax_, matplotlib.axes.Axes)
    assert display.figure_ is display.ax_.figure
    assert [line.get_label() for line in display.lines_] == ["robust", "plain"]
    assert all(band is not None for band in display.bands_)
    assert display.bounds_ == [None, None]
    summary = summarize_curve(frame)
    for line, name in zip(display.lines_, ("robust", "plain"), strict=True):
        expected = summary[summary["estimator"] == name]
        np.testing.assert_allclose(line.get_xdata(), expected["level"])
        np.testing.assert_allclose(line.get_ydata(), expected["mean"])
    legend = display.ax_.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["robust", "plain"]
    assert display.ax_.get_xlabel() == "n (ZeroColumns)"
    assert display.ax_.get_ylabel() == "test error"


def _band_height(band):
    (path,) = band.get_paths()
    ys = path.vertices[:, 1]
    return ys.max() - ys.min()


def test_band_kinds():
    frame = _frame(n_repeats=4)
    std = RobustnessCurveDisplay.from_frame(frame, band="std")
    sem = RobustnessCurveDisplay.from_frame(frame, band="sem")
    none = RobustnessCurveDisplay.from_frame(frame, band=None)
    assert _band_height(sem.bands_[0]) < _band_height(std.bands_[0])
    assert none.bands_ == [None, None]
    assert len(none.ax_.collections) == 0


def test_no_band_for_a_single_repeat():
    display = RobustnessCurveDisplay.from_frame(_frame(n_repeats=1))
    assert display.bands_ == [None, None]


def test_bounds_are_drawn_as_hatched_bands():
    # a certified worst-case frame: one row per (estimator, level), bounds around the error
    frame = pd.DataFrame({
        "estimator": ["svm"] * 3 + ["lp"] * 3, "level": [0, 1, 2] * 2,
        "error": [0.1, 0.2, 0.4, 0.1, 0.15, 0.2],
        "error_lower": [0.1, 0.15, 0.3, 0.1, 0.1, 0.15],
        "error_upper": [0.1, 0.25, 0.5, 0.1, 0.2, 0.3],
    })
    display = RobustnessCurveDisplay(frame, ylabel="certified error", title="worst case").plot()
    assert display.bands_ == [None, None]
    assert all(b is not None and b.get_hatch() for b in display.bounds_)
    ys = display.bounds_[0].get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(0.1) and ys.max() == pytest.approx(0.5)
    assert display.ax_.get_ylabel() == "certified error"
    assert display.ax_.get_title() == "worst case"
    assert display.ax_.get_xlabel() == "corruption level"


def test_several_corruptions_get_separate_lines():
    frame = pd.concat([_frame().assign(corruption="A"), _frame().assign(corruption="B")])
    display = RobustnessCurveDisplay.from_frame(frame)
    assert [line.get_label() for line in display.lines_] == [
        "robust (A)", "plain (A)", "robust (B)", "plain (B)"]


def test_plot_on_given_axes_with_line_kwargs():
    _, ax = plt.subplots()
    display = RobustnessCurveDisplay(_frame(), xlabel="deleted features").plot(
        ax=ax, linestyle="--", marker="s")
    assert display.ax_ is ax
    assert all(line.get_linestyle() == "--" and line.get_marker() == "s"
               for line in display.lines_)
    assert ax.get_xlabel() == "deleted features"


def test_from_estimators(data):
    display = RobustnessCurveDisplay.from_estimators(
        {"lr": LogisticRegression(), "dummy": DummyClassifier()}, *data,
        corruption=ZeroColumns(), levels=[0, 2, 5], n_repeats=2, random_state=0, band="sem")
    expected = robustness_curve(
        {"lr": LogisticRegression(), "dummy": DummyClassifier()}, *data,
        corruption=ZeroColumns(), levels=[0, 2, 5], n_repeats=2, random_state=0)
    pd.testing.assert_series_equal(display.frame["error"], expected["error"])
    assert [line.get_label() for line in display.lines_] == ["lr", "dummy"]


def test_bad_band_and_frame():
    with pytest.raises(ValueError, match="band must be"):
        RobustnessCurveDisplay(_frame()).plot(band="ci")
    with pytest.raises(ValueError, match="missing the column"):
        RobustnessCurveDisplay(_frame().drop(columns="error")).plot()
