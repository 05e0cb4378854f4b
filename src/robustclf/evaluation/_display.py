"""Plot robustness curves: mean test error against corruption level, one line per estimator.

matplotlib is imported inside :meth:`RobustnessCurveDisplay.plot` only, so that importing
:mod:`robustclf.evaluation` (and the CLI's non-plotting commands) stays free of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._curve import robustness_curve, summarize_curve

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..corruption import Corruption

__all__ = ["RobustnessCurveDisplay"]

_BANDS = ("std", "sem", None)
_BOUNDS = ("error_lower", "error_upper")


class RobustnessCurveDisplay:
    """Robustness curve visualisation: test error against corruption level.

    Draws, for each estimator, the mean error over repeats at every level, with a shaded band of
    one standard deviation (or standard error) around it. Frames that carry ``error_lower`` and
    ``error_upper`` columns (for example certified worst-case bounds) get a hatched band between
    the bounds as well. Any tidy frame with ``estimator``, ``level`` and ``error`` columns can be
    shown; when it holds several corruptions (a ``corruption`` column), each (estimator,
    corruption) pair gets its own line.

    Create it with :meth:`from_estimators` (compute and plot) or :meth:`from_frame` (plot a
    frame computed earlier, e.g. read back from CSV). All parameters are stored as attributes.

    Parameters
    ----------
    frame : pandas.DataFrame
        Tidy results, as returned by :func:`~robustclf.evaluation.robustness_curve`.
    xlabel : str, default=None
        Label of the x axis; by default the swept parameter (``level_name`` column) and the
        corruption, or ``"corruption level"``.
    ylabel : str, default=None
        Label of the y axis; ``"test error"`` by default.
    title : str, default=None
        Title of the axes; none by default.

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes with the curves.
    figure_ : matplotlib Figure
        Figure containing the axes.
    lines_ : list of matplotlib Line2D
        The mean-error line of each estimator, in order of first appearance in ``frame``.
    bands_ : list of matplotlib PolyCollection or None
        The spread band of each line; ``None`` where ``band=None`` or the spread is undefined
        (a single repeat).
    bounds_ : list of matplotlib PolyCollection or None
        The hatched ``error_lower``–``error_upper`` band of each line; ``None`` when the frame
        has no such columns.

    See Also
    --------
    robustness_curve : Compute the frame.
    summarize_curve : The statistics the lines and bands show.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from robustclf.corruption import RandomDeletion  # doctest: +SKIP
    >>> X, y = make_classification(n_samples=200, random_state=0)
    >>> display = RobustnessCurveDisplay.from_estimators(  # doctest: +SKIP
    ...     {"logistic": LogisticRegression()}, X[:100], y[:100], X[100:], y[100:],
    ...     corruption=RandomDeletion(fraction=0.0), levels=[0.0, 0.25, 0.5],
    ...     n_repeats=5, random_state=0)
    """

    def __init__(self, frame: pd.DataFrame, *, xlabel: str | None = None,
                 ylabel: str | None = None, title: str | None = None):
        self.frame = frame
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.title = title

    def plot(self, ax: Axes | None = None, *, band: str | None = "std",
             band_kw: dict | None = None, bounds_kw: dict | None = None,
             **kwargs) -> RobustnessCurveDisplay:
        """Plot the curves.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is created when ``None``.
        band : {"std", "sem"} or None, default="std"
            Half-width of the shaded band around each mean: the standard deviation over
            repeats, the standard error of the mean, or no band.
        band_kw : dict, default=None
            Extra keyword arguments for the band's ``fill_between``.
        bounds_kw : dict, default=None
            Extra keyword arguments for the ``fill_between`` of the ``error_lower`` –
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
        summary = summarize_curve(self.frame)
        has_bounds = all(c in self.frame.columns for c in _BOUNDS)
        if has_bounds:
            keys = [c for c in summary.columns if c not in ("mean", "std", "sem", "count")]
            bounds = (self.frame.groupby(keys, sort=False, dropna=False)[list(_BOUNDS)]
                      .mean().reset_index())
            summary = summary.merge(bounds, on=keys, how="left", sort=False)

        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        several = "corruption" in summary.columns and summary["corruption"].nunique() > 1
        by = ["estimator", "corruption"] if several else ["estimator"]
        line_kw = {"marker": "o", "markersize": 4, **kwargs}

        self.lines_, self.bands_, self.bounds_ = [], [], []
        for key, group in summary.groupby(by, sort=False, dropna=False):
            group = _sorted_by_level(group)
            label = f"{key[0]} ({key[1]})" if several else str(key[0])
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
        ax.set_ylabel(self.ylabel if self.ylabel is not None else "test error")
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
                   **kwargs) -> RobustnessCurveDisplay:
        """Plot a tidy frame computed earlier.

        Parameters
        ----------
        frame : pandas.DataFrame
            Tidy results with ``estimator``, ``level`` and ``error`` columns, as returned by
            :func:`~robustclf.evaluation.robustness_curve`, optionally with ``error_lower`` and
            ``error_upper``.
        ax : matplotlib Axes, default=None
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
        """
        display = cls(frame, xlabel=xlabel, ylabel=ylabel, title=title)
        return display.plot(ax=ax, band=band, **kwargs)

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
        """Compute robustness curves with :func:`robustness_curve` and plot them.

        Parameters
        ----------
        estimators, X_train, y_train, X_test, y_test
            See :func:`~robustclf.evaluation.robustness_curve`.
        corruption, levels, n_repeats, cv, random_state, n_jobs, progress
            See :func:`~robustclf.evaluation.robustness_curve`.
        ax : matplotlib Axes, default=None
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
            levels=levels, n_repeats=n_repeats, cv=cv, random_state=random_state,
            n_jobs=n_jobs, progress=progress,
        )
        return cls.from_frame(frame, ax=ax, band=band, xlabel=xlabel, ylabel=ylabel,
                              title=title, **kwargs)


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
