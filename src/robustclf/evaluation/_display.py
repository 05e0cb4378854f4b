"""Plot robustness curves: mean test error (or score) against corruption level, one line per
estimator.

Following scikit-learn's Display convention, :meth:`RobustnessCurveDisplay.from_estimator`
plots the curve of one *fitted* estimator (never refitted),
:meth:`~RobustnessCurveDisplay.from_estimators` fits and compares several, and
:meth:`~RobustnessCurveDisplay.from_frame` plots a frame computed earlier. matplotlib is
imported inside :meth:`RobustnessCurveDisplay.plot` only, so that importing
:mod:`robustclf.evaluation` (and the CLI's non-plotting commands) stays free of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._certified import fitted_certified_curve
from ._curve import curve_value, robustness_curve, summarize_curve
from ._fitted import fitted_robustness_curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..corruption import Corruption

__all__ = ["RobustnessCurveDisplay"]

_BANDS = ("std", "sem", None)
_BOUNDS = ("error_lower", "error_upper")


class RobustnessCurveDisplay:
    """Robustness curve visualisation: test error (or score) against corruption level.

    Draws, for each estimator, the mean over repeats of the frame's value column at every level
    (``error`` by default, ``score`` for frames computed with another ``scoring``), with a shaded
    band of one standard deviation (or standard error) around it. Frames that carry
    ``error_lower`` and ``error_upper`` columns (for example certified worst-case bounds) get a
    hatched band between the bounds as well. Any tidy frame with ``estimator``, ``level`` and a
    value column can be shown; when it holds several corruptions (a ``corruption`` column) or
    several scorings (a ``scoring`` column), each combination gets its own line.

    Create it with :meth:`from_estimator` (the curve of one fitted model, never refitted),
    :meth:`from_certified_estimator` (the certified worst case of one fitted linear model),
    :meth:`from_estimators` (fit and compare several) or :meth:`from_frame` (plot a frame
    computed earlier, e.g. read back from CSV). Several fitted models go on one figure by
    passing the same ``ax`` to successive :meth:`from_estimator` calls. All parameters are
    stored as attributes.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy results, as returned by :func:`~robustclf.evaluation.robustness_curve`.
    xlabel : str, default=None
        Label of the x axis; by default the swept parameter (``level_name`` column) and the
        corruption, or ``"corruption level"``.
    ylabel : str, default=None
        Label of the y axis; by default ``"test error"`` (``"certified error"`` for a certified
        frame), the scorer's name for a scored frame (``"balanced accuracy"``), else the value
        column's name.
    title : str, default=None
        Title of the axes; none by default.
    value : str, default=None
        The column to plot; ``None`` means ``error`` when the frame has it, else ``score``.

    Attributes
    ----------
    ax_ : matplotlib.axes.Axes
        Axes with the curves.
    figure_ : matplotlib.figure.Figure
        Figure containing the axes.
    lines_ : list of matplotlib.lines.Line2D
        The mean line of each estimator, in order of first appearance in ``frame``.
    bands_ : list of matplotlib.collections.PolyCollection or None
        The spread band of each line; ``None`` where ``band=None`` or the spread is undefined
        (a single repeat).
    bounds_ : list of matplotlib.collections.PolyCollection or None
        The hatched ``error_lower``-``error_upper`` band of each line; ``None`` when the frame
        has no such columns or another value is plotted.

    See Also
    --------
    robustness_curve : Compute the frame (fitting the estimators).
    fitted_robustness_curve : Compute the frame of fitted estimators.
    summarize_curve : The statistics the lines and bands show.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import RandomDeletion
    >>> from robustclf.evaluation import RobustnessCurveDisplay
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> model = LogisticRegression().fit(X[:100], y[:100])
    >>> display = RobustnessCurveDisplay.from_estimator(
    ...     model, X[100:], y[100:], corruption=RandomDeletion(fraction=0.0, fill=0.0),
    ...     levels=[0.0, 0.25, 0.5], scoring="balanced_accuracy", n_repeats=3, random_state=0)
    >>> display.ax_.get_ylabel()
    'balanced accuracy'
    >>> [line.get_label() for line in display.lines_]
    ['LogisticRegression']
    """

    def __init__(self, frame: pd.DataFrame, *, xlabel: str | None = None,
                 ylabel: str | None = None, title: str | None = None,
                 value: str | None = None):
        self.frame = frame
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.title = title
        self.value = value

    def plot(self, ax: Axes | None = None, *, band: str | None = "std",
             band_kw: dict | None = None, bounds_kw: dict | None = None,
             **kwargs) -> RobustnessCurveDisplay:
        """Plot the curves.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        band : {"std", "sem"} or None, default="std"
            Half-width of the shaded band around each mean: the standard deviation over
            repeats, the standard error of the mean, or no band.
        band_kw : dict, default=None
            Extra keyword arguments for the band's ``fill_between``.
        bounds_kw : dict, default=None
            Extra keyword arguments for the ``fill_between`` of the ``error_lower`` -
            ``error_upper`` band.
        **kwargs : dict
            Extra keyword arguments for the mean lines' ``ax.plot`` (e.g. ``marker``,
            ``linestyle``).

        Returns
        -------
        display : RobustnessCurveDisplay
            ``self``, with ``ax_``, ``figure_``, ``lines_``, ``bands_`` and ``bounds_`` set.
        """
        if band not in _BANDS:
            raise ValueError(f"band must be 'std', 'sem' or None, got {band!r}.")
        value = curve_value(self.frame, self.value)
        summary = summarize_curve(self.frame, value=value)
        has_bounds = value == "error" and all(c in self.frame.columns for c in _BOUNDS)
        if has_bounds:
            keys = [c for c in summary.columns if c not in ("mean", "std", "sem", "count")]
            bounds = (self.frame.groupby(keys, sort=False, dropna=False)[list(_BOUNDS)]
                      .mean().reset_index())
            summary = summary.merge(bounds, on=keys, how="left", sort=False)

        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        several = [c for c in ("corruption", "scoring")
                   if c in summary.columns and summary[c].nunique() > 1]
        by = ["estimator", *several]
        line_kw = {"marker": "o", "markersize": 4, **kwargs}

        self.lines_, self.bands_, self.bounds_ = [], [], []
        for key, group in summary.groupby(by, sort=False, dropna=False):
            group = _sorted_by_level(group)
            label = f"{key[0]} ({', '.join(map(str, key[1:]))})" if several else str(key[0])
            x, mean = group["level"].to_numpy(), group["mean"].to_numpy(dtype=float)
            (line,) = ax.plot(x, mean, label=label, **line_kw)
            color = line.get_color()
            width = group[band].to_numpy(dtype=float) if band is not None else None
            if width is not None and np.isfinite(width).any():
                self.bands_.append(ax.fill_between(
                    x, mean - width, mean + width,
                    **{"color": color, "alpha": 0.2, "linewidth": 0, **(band_kw or {})}))
            else:
                self.bands_.append(None)
            if has_bounds:
                self.bounds_.append(ax.fill_between(
                    x, group["error_lower"].to_numpy(dtype=float),
                    group["error_upper"].to_numpy(dtype=float),
                    **{"facecolor": "none", "edgecolor": color, "hatch": "///",
                       "alpha": 0.5, "linewidth": 0, **(bounds_kw or {})}))
            else:
                self.bounds_.append(None)
            self.lines_.append(line)

        ax.set_xlabel(self.xlabel if self.xlabel is not None else _default_xlabel(self.frame))
        ax.set_ylabel(self.ylabel if self.ylabel is not None
                      else _default_ylabel(self.frame, value))
        if self.title is not None:
            ax.set_title(self.title)
        ax.grid(True, alpha=0.3)
        ax.legend()
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, *, ax: Axes | None = None,
                   band: str | None = "std", xlabel: str | None = None,
                   ylabel: str | None = None, title: str | None = None,
                   value: str | None = None, **kwargs) -> RobustnessCurveDisplay:
        """Plot a tidy frame computed earlier.

        Parameters
        ----------
        frame : pandas.DataFrame
            Tidy results with ``estimator``, ``level`` and a value column (``error`` or
            ``score``), as returned by :func:`~robustclf.evaluation.robustness_curve`,
            optionally with ``error_lower`` and ``error_upper``.
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        band : {"std", "sem"} or None, default="std"
            Half-width of the shaded band around each mean (see :meth:`plot`).
        xlabel, ylabel, title : str, default=None
            Axis labels and title (see the class parameters).
        value : str, default=None
            The column to plot (see the class parameters).
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : RobustnessCurveDisplay
        """
        display = cls(frame, xlabel=xlabel, ylabel=ylabel, title=title, value=value)
        return display.plot(ax=ax, band=band, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        corruption: Corruption | Callable[[Any], Corruption],
        levels,
        scoring=None,
        n_repeats: int = 1,
        random_state=None,
        n_jobs: int | None = None,
        progress: bool | None = None,
        name: str | None = None,
        ax: Axes | None = None,
        band: str | None = "std",
        xlabel: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        **kwargs,
    ) -> RobustnessCurveDisplay:
        """Plot the robustness curve of one fitted estimator or pipeline, without refitting it.

        The curve is computed by :func:`~robustclf.evaluation.fitted_robustness_curve`: the
        estimator's ``fit`` is never called and it is not cloned, and ``X`` reaches the
        corruption and ``estimator.predict`` in the container it came in (a DataFrame stays a
        DataFrame). To compare several fitted models, call this once per model with the same
        ``ax``.

        Parameters
        ----------
        estimator : estimator
            The fitted classifier (or Pipeline) to evaluate.
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Clean evaluation data, corrupted at each level.
        y : array-like of shape (n_samples,)
            True labels.
        corruption, levels, scoring, n_repeats, random_state, n_jobs, progress
            See :func:`~robustclf.evaluation.fitted_robustness_curve`.
        name : str, default=None
            Legend label of the curve (the ``estimator`` column); by default the estimator's
            class name (a Pipeline's final step's).
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        band : {"std", "sem"} or None, default="std"
            Half-width of the shaded band around the mean over repeats (see :meth:`plot`).
        xlabel, ylabel, title : str, default=None
            Axis labels and title (see the class parameters).
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : RobustnessCurveDisplay
            The display; its ``frame`` attribute holds the computed results.
        """
        frame = fitted_robustness_curve(
            _one_estimator(estimator, name), X, y, corruption=corruption, levels=levels,
            n_repeats=n_repeats, scoring=scoring, random_state=random_state, n_jobs=n_jobs,
            progress=progress,
        )
        return cls.from_frame(frame, ax=ax, band=band, xlabel=xlabel, ylabel=ylabel,
                              title=title, **kwargs)

    @classmethod
    def from_certified_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        budgets,
        feature_values="uniform",
        exact: bool | str = "auto",
        time_limit: float | None = None,
        fill: float = np.nan,
        name: str | None = None,
        ax: Axes | None = None,
        xlabel: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        **kwargs,
    ) -> RobustnessCurveDisplay:
        """Plot the certified worst-case error of one fitted linear model against the budget.

        The curve is computed by :func:`~robustclf.evaluation.fitted_certified_curve`, without
        refitting: at each deletion budget, the error an omniscient adversary deleting features
        of total value at most the budget can force, with a hatched band between what the
        greedy attack forces and the relaxation's certified bound (the two meet, and the band
        vanishes, when the certificate is exact).

        Parameters
        ----------
        estimator : classifier
            A fitted linear classifier or Pipeline, anything
            :func:`robustclf.certify.certified_error` accepts: ``coef_``, ``intercept_`` and
            ``classes_``, optionally behind affine scalers in a Pipeline.
        X : {array-like, DataFrame} of shape (n_samples, n_features)
            Clean evaluation data (finite numeric values).
        y : array-like of shape (n_samples,)
            True labels.
        budgets, feature_values, exact, time_limit
            See :func:`~robustclf.evaluation.fitted_certified_curve`.
        fill : float, default=np.nan
            What a deletion writes: ``np.nan`` certifies against absent entries, handled as
            the model handles NaN (a scikit-learn model needs an imputer in its pipeline);
            ``0.0`` against raw zeros (the papers' protocol). See
            :func:`~robustclf.evaluation.fitted_certified_curve`.
        name : str, default=None
            Legend label; by default the estimator's class name (a Pipeline's final step's).
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        xlabel, ylabel, title : str, default=None
            Axis labels (by default ``"budget (certified)"`` and ``"certified error"``) and
            title.
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : RobustnessCurveDisplay

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.datasets import make_classification
        >>> from sklearn.svm import LinearSVC
        >>> from robustclf.evaluation import RobustnessCurveDisplay
        >>> X, y = make_classification(n_samples=200, n_features=8, random_state=0)
        >>> model = LinearSVC().fit(X[:100], y[:100])
        >>> display = RobustnessCurveDisplay.from_certified_estimator(
        ...     model, X[100:], y[100:], budgets=[0, 1, 2, 3], fill=0.0, name="svm")
        >>> display.ax_.get_ylabel(), display.lines_[0].get_label()
        ('certified error', 'svm')
        """
        frame = fitted_certified_curve(_one_estimator(estimator, name), X, y, budgets=budgets,
                                       feature_values=feature_values, exact=exact,
                                       time_limit=time_limit, fill=fill)
        return cls.from_frame(frame, ax=ax, band=None, xlabel=xlabel, ylabel=ylabel,
                              title=title, **kwargs)

    @classmethod
    def from_estimators(
        cls,
        estimators,
        X_train,
        y_train,
        X_test=None,
        y_test=None,
        *,
        corruption: Corruption | Callable[[Any], Corruption],
        levels,
        n_repeats: int = 1,
        cv=None,
        scoring=None,
        random_state=None,
        n_jobs: int | None = None,
        progress: bool | None = None,
        ax: Axes | None = None,
        band: str | None = "std",
        xlabel: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
        **kwargs,
    ) -> RobustnessCurveDisplay:
        """Fit estimators and plot their robustness curves (see :func:`robustness_curve`).

        The estimators are cloned and fitted once per repeat or fold; for models that are
        already fitted use :meth:`from_estimator`.

        Parameters
        ----------
        estimators, X_train, y_train, X_test, y_test
            See :func:`~robustclf.evaluation.robustness_curve`.
        corruption, levels, n_repeats, cv, scoring, random_state, n_jobs, progress
            See :func:`~robustclf.evaluation.robustness_curve`.
        ax : matplotlib.axes.Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        band : {"std", "sem"} or None, default="std"
            Half-width of the shaded band around each mean (see :meth:`plot`).
        xlabel, ylabel, title : str, default=None
            Axis labels and title (see the class parameters).
        **kwargs : dict
            Passed to :meth:`plot`.

        Returns
        -------
        display : RobustnessCurveDisplay
            The display; its ``frame`` attribute holds the computed results.
        """
        frame = robustness_curve(
            estimators, X_train, y_train, X_test, y_test, corruption=corruption,
            levels=levels, n_repeats=n_repeats, cv=cv, scoring=scoring,
            random_state=random_state, n_jobs=n_jobs, progress=progress,
        )
        return cls.from_frame(frame, ax=ax, band=band, xlabel=xlabel, ylabel=ylabel,
                              title=title, **kwargs)


def _one_estimator(estimator, name):
    """The estimators argument of the curve functions for one estimator, named if asked."""
    if name is None:
        return estimator
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string or None, got {name!r}.")
    return {name: estimator}


def _sorted_by_level(group: pd.DataFrame) -> pd.DataFrame:
    """Rows in increasing level, so that lines do not zigzag; unsortable levels keep order."""
    try:
        return group.sort_values("level", kind="stable")
    except TypeError:
        return group


def _default_xlabel(frame: pd.DataFrame) -> str:
    """``"<level_name> (<corruption>)"`` when the frame names one swept parameter."""
    names = _single_value(frame, "level_name")
    if not names:
        return "corruption level"
    corruption = _single_value(frame, "corruption")
    return f"{names} ({corruption})" if corruption else names


def _single_value(frame: pd.DataFrame, column: str) -> str:
    if column not in frame.columns:
        return ""
    values = frame[column].dropna().unique()
    return str(values[0]) if len(values) == 1 and str(values[0]) else ""


def _default_ylabel(frame: pd.DataFrame, value: str) -> str:
    """``test error``, ``certified error``, the scorer's name, or the value column's name."""
    if value == "error":
        return "certified error" if _single_value(frame, "corruption") == "certified" \
            else "test error"
    if value == "score":
        scoring = _single_value(frame, "scoring")
        return scoring.replace("_", " ") if scoring else "score"
    return value.replace("_", " ")
