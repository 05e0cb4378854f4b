"""Write tidy result frames as CSV, PNG and markdown: one path for the demo, curves and papers.

Experiments return pandas DataFrames and never print or write; the CLI hands their frames to
:func:`write_curve` and assembles the returned markdown sections into ``report.md``.

Every file is written through :func:`atomic_path`: into a temporary file of the same folder,
renamed over the target only once complete, so that an interrupted run never leaves a
half-written report, CSV or figure behind.
"""

from __future__ import annotations

import os
import textwrap
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from .evaluation import summarize_curve

__all__ = ["markdown_table", "curve_table", "write_curve", "write_report", "write_experiment",
           "atomic_path", "write_text", "write_csv", "save_figure"]


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path to write ``path`` through; renamed onto ``path`` when the block ends.

    The temporary file lives in the same folder (so that :func:`os.replace` is an atomic
    rename) and keeps the suffix of ``path`` (so that writers choosing a format by extension,
    such as matplotlib's ``savefig``, still do). If the block raises, or is interrupted, the
    temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or path-like
        The file to write; its folder is created if needed.

    Yields
    ------
    tmp : pathlib.Path
        Where to write the content.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.report import atomic_path
    >>> folder = Path(tempfile.mkdtemp())
    >>> with atomic_path(folder / "note.txt") as tmp:
    ...     _ = tmp.write_text("done")
    >>> sorted(p.name for p in folder.iterdir()), (folder / "note.txt").read_text()
    (['note.txt'], 'done')
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.tmp{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_path`); return ``path``."""
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def write_csv(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` (without its index) to the CSV ``path`` atomically; return ``path``."""
    path = Path(path)
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)
    return path


def save_figure(fig, path: str | Path, **kwargs) -> Path:
    """Save the matplotlib figure ``fig`` to ``path`` atomically and close it; return ``path``.

    ``kwargs`` go to :meth:`matplotlib.figure.Figure.savefig` (e.g. ``dpi``).
    """
    import matplotlib.pyplot as plt

    path = Path(path)
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, **kwargs)
    finally:
        plt.close(fig)
    return path


def markdown_table(frame: pd.DataFrame, *, index: bool = True) -> str:
    """A GitHub-flavoured markdown table of ``frame`` (no optional dependency needed)."""
    columns = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for key, row in frame.iterrows():
        cells = ([str(key)] if index else []) + [_cell(v) for v in row.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "" if np.isnan(value) else f"{value:.3f}"
    return str(value)


def curve_table(frame: pd.DataFrame, *, spread: str = "std") -> pd.DataFrame:
    """Estimators as rows, levels as columns, cells ``mean ± spread`` of the error.

    ``spread`` is ``"std"`` (across repeats) or ``"sem"`` (standard error, as the papers use);
    a single repeat shows the mean only.
    """
    if spread not in ("std", "sem"):
        raise ValueError(f"spread must be 'std' or 'sem', got {spread!r}.")
    stats = summarize_curve(frame)

    def fmt(row):
        if row["count"] < 2 or np.isnan(row[spread]):
            return f"{row['mean']:.3f}"
        return f"{row['mean']:.3f} ± {row[spread]:.3f}"

    stats["cell"] = stats.apply(fmt, axis=1)
    table = stats.pivot_table(index="estimator", columns="level", values="cell",
                              aggfunc="first", sort=False)
    table = table.reindex(index=list(dict.fromkeys(stats["estimator"])))
    table.columns = [_level_label(c) for c in table.columns]
    table.index.name = "estimator \\ level"
    return table


def _level_label(level) -> str:
    if isinstance(level, (float, np.floating)) and float(level).is_integer():
        return str(int(level))
    return f"{level:g}" if isinstance(level, (int, float, np.number)) else str(level)


def write_curve(
    frame: pd.DataFrame,
    output_dir: str | Path,
    name: str,
    *,
    title: str,
    xlabel: str,
    ylabel: str = "test error",
    intro: str = "",
    spread: str = "std",
) -> str:
    """Write ``<name>.csv`` and ``<name>.png`` and return the markdown section describing them."""
    from .evaluation import RobustnessCurveDisplay

    output_dir = Path(output_dir)
    write_csv(frame, output_dir / f"{name}.csv")

    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    # long titles are wrapped, not cut off at the figure's edge
    RobustnessCurveDisplay(frame, xlabel=xlabel, ylabel=ylabel,
                           title=textwrap.fill(title, 60)).plot(ax=ax, band=spread)
    fig.tight_layout()
    save_figure(fig, output_dir / f"{name}.png", dpi=110)

    n_repeats = frame["repeat"].nunique() if "repeat" in frame else 1
    parts = [f"## {title}", ""]
    if intro:
        parts += [intro, ""]
    spread_text = ("a single run" if n_repeats == 1 else
                   f"{n_repeats} repeats, mean ± "
                   f"{'standard deviation' if spread == 'std' else 'standard error'}")
    parts += [
        f"![{title}]({name}.png)",
        "",
        f"{ylabel[:1].upper()}{ylabel[1:]} by {xlabel} ({spread_text}). "
        f"Raw results: [`{name}.csv`]({name}.csv).",
        "",
        markdown_table(curve_table(frame, spread=spread)),
        "",
    ]
    return "\n".join(parts)


def write_report(output_dir: str | Path, title: str, sections: Sequence[str],
                 preamble: str = "") -> Path:
    """Assemble markdown sections into ``output_dir/report.md`` and return its path."""
    text = "\n".join([f"# {title}", "", preamble, "", *sections]).rstrip() + "\n"
    return write_text(Path(output_dir) / "report.md", text)


def write_experiment(result, output_dir: str | Path, *, appendix: Sequence[str] = ()) -> Path:
    """Write every curve of an :class:`~robustclf.experiments.ExperimentResult` and its report.

    Each curve gets ``<name>.csv``, ``<name>.png`` and a section of ``report.md``; when the
    experiment carries the paper's reported numbers they are tabulated under ours. The
    markdown sections of ``appendix`` (e.g. solver notes) close the report, which is written
    last, so that a report on disk always has its figures and tables beside it.
    """
    sections = []
    for curve in result.curves:
        section = write_curve(curve.frame, output_dir, curve.name, title=curve.title,
                              xlabel=curve.xlabel, ylabel=curve.ylabel, intro=curve.intro,
                              spread=curve.spread)
        if curve.paper is not None:
            section += "\nThe paper's reported figures:\n\n" + markdown_table(curve.paper) + "\n"
        sections.append(section)
    return write_report(output_dir, result.title, [*sections, *appendix], result.preamble)
