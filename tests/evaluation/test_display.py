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


# -- fitted estimators: from_estimator and from_certified_estimator ---------------------------


class NoRefit(LogisticRegression):
    """A logistic regression fitted once by ``fit_once``; ``fit`` raises."""

    def fit(self, X, y, sample_weight=None):
        raise AssertionError("fit must not be called on a fitted model")

    def fit_once(self, X, y):
        return super().fit(X, y)


@pytest.fixture(scope="module")
def no_refit(data):
    return NoRefit().fit_once(data[0], data[1])


def test_from_estimator_never_refits(data, no_refit):
    from robustclf.evaluation import fitted_robustness_curve

    display = RobustnessCurveDisplay.from_estimator(
        no_refit, data[2], data[3], corruption=ZeroColumns(), levels=[0, 2, 5], n_repeats=2,
        random_state=0)
    expected = fitted_robustness_curve(no_refit, data[2], data[3], corruption=ZeroColumns(),
                                       levels=[0, 2, 5], n_repeats=2, random_state=0)
    pd.testing.assert_series_equal(display.frame["error"], expected["error"])
    assert [line.get_label() for line in display.lines_] == ["NoRefit"]
    assert display.ax_.get_ylabel() == "test error"
    np.testing.assert_allclose(display.lines_[0].get_xdata(), [0, 2, 5])


def test_from_estimator_overlays_models_on_one_axes(data, no_refit):
    other = DummyClassifier().fit(data[0], data[1])
    first = RobustnessCurveDisplay.from_estimator(
        no_refit, data[2], data[3], corruption=ZeroColumns(), levels=[0, 2], name="mine")
    second = RobustnessCurveDisplay.from_estimator(
        other, data[2], data[3], corruption=ZeroColumns(), levels=[0, 2], ax=first.ax_)
    assert second.ax_ is first.ax_
    legend = second.ax_.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["mine", "DummyClassifier"]


@pytest.mark.parametrize(("scoring", "ylabel"),
                         [("balanced_accuracy", "balanced accuracy"),
                          ("neg_log_loss", "neg log loss"), ("error", "test error")])
def test_from_estimator_scoring_sets_the_y_label(data, no_refit, scoring, ylabel):
    display = RobustnessCurveDisplay.from_estimator(
        no_refit, data[2], data[3], corruption=ZeroColumns(), levels=[0, 3], scoring=scoring)
    assert display.ax_.get_ylabel() == ylabel
    column = "error" if scoring == "error" else "score"
    np.testing.assert_allclose(display.lines_[0].get_ydata(), display.frame[column])


def test_from_estimator_rejects_bad_name_and_unfitted(data, no_refit):
    with pytest.raises(ValueError, match="name must be"):
        RobustnessCurveDisplay.from_estimator(no_refit, data[2], data[3],
                                              corruption=ZeroColumns(), levels=[0], name=3)
    with pytest.raises(ValueError, match="not fitted"):
        RobustnessCurveDisplay.from_estimator(LogisticRegression(), data[2], data[3],
                                              corruption=ZeroColumns(), levels=[0])


def test_from_certified_estimator(data, no_refit):
    from robustclf.certify import certified_error

    display = RobustnessCurveDisplay.from_certified_estimator(
        no_refit, data[2], data[3], budgets=[0, 1, 2], name="lr", fill=0.0)
    assert display.ax_.get_ylabel() == "certified error"
    assert display.ax_.get_xlabel() == "budget (certified)"
    assert display.bands_ == [None] and display.bounds_[0] is not None
    expected = [certified_error(no_refit, data[2], data[3], b, fill=0.0).error for b in (0, 1, 2)]
    np.testing.assert_allclose(display.lines_[0].get_ydata(), expected)


def test_from_estimators_with_scoring_and_a_mixed_scoring_frame(data):
    kwargs = dict(corruption=ZeroColumns(), levels=[0, 2], random_state=0)
    display = RobustnessCurveDisplay.from_estimators(
        {"lr": LogisticRegression()}, *data, scoring="roc_auc", **kwargs)
    assert display.ax_.get_ylabel() == "roc auc"
    auc = display.frame
    f1 = robustness_curve({"lr": LogisticRegression()}, *data, scoring="f1", **kwargs)
    both = RobustnessCurveDisplay.from_frame(pd.concat([auc, f1]))
    assert [line.get_label() for line in both.lines_] == ["lr (roc_auc)", "lr (f1)"]
    assert both.ax_.get_ylabel() == "score"


def test_plot_another_value_column():
    frame = _frame().assign(fit_seconds=1.0)
    display = RobustnessCurveDisplay(frame, value="fit_seconds").plot()
    assert display.ax_.get_ylabel() == "fit seconds"
    np.testing.assert_allclose(display.lines_[0].get_ydata(), 1.0)


# -- the target: a fitted pipeline on a DataFrame with a categorical column -----------


def _categorical_frame(n, rng):
    color = rng.choice(["red", "green", "blue"], size=n)
    X = pd.DataFrame({
        "color": pd.Categorical(color),
        "size": rng.normal(size=n),
        "weight": rng.normal(size=n),
    })
    y = ((color == "red") ^ (X["size"].to_numpy() > 0)).astype(int)
    return X, y


def test_from_estimator_on_a_fitted_categorical_pipeline_never_calls_fit(monkeypatch):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import Pipeline, make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    from robustclf.corruption import RandomDeletion

    rng = np.random.default_rng(0)
    X_train, y_train = _categorical_frame(300, rng)
    X_test, y_test = _categorical_frame(200, rng)
    encode = ColumnTransformer(
        [("color", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=np.nan),
          ["color"])], remainder="passthrough")
    model = make_pipeline(encode, HistGradientBoostingClassifier(
        categorical_features=[0], max_iter=30, random_state=0)).fit(X_train, y_train)

    def no_fit(*args, **kwargs):
        raise AssertionError("fit must not be called on a fitted model")

    for cls in (Pipeline, ColumnTransformer, OrdinalEncoder, HistGradientBoostingClassifier):
        for method in ("fit", "fit_transform", "fit_predict"):
            if hasattr(cls, method):
                monkeypatch.setattr(cls, method, no_fit)

    display = RobustnessCurveDisplay.from_estimator(
        model, X_test, y_test, corruption=RandomDeletion(fraction=0.0, fill=np.nan),
        levels=[0.0, 0.3, 0.6], n_repeats=2, random_state=0)
    assert [line.get_label() for line in display.lines_] == ["HistGradientBoostingClassifier"]
    errors = summarize_curve(display.frame).set_index("level")["mean"]
    assert errors[0.0] < 0.1  # the clean model is nearly perfect on this rule
    assert errors[0.6] > errors[0.0]  # deleting features (the colour too) hurts it
