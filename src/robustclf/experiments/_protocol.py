"""The fair protocol shared by the demo and the benchmark.

Every model of a comparison is trained on the same rows and gets its hyper-parameters by the
same rule: a grid search (its registry ``param_grid``) on the training rows, with the same inner
folds and the library's corruption scorer at the threat's design level, then a refit on all
training rows (:func:`select_and_fit`). The fitted models are scored on the test rows split
into disjoint chunks (:func:`score_chunks`): each chunk is one ``repeat`` with its own
corruption draw, so the paired differences of :func:`robustclf.evaluation.paired_differences`
have an interval even for deterministic attacks. :func:`verdict` says in words where a
baseline wins.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from ..evaluation import fitted_certified_curve, fitted_robustness_curve, paired_differences
from ..report import markdown_table

__all__ = ["Selected", "inner_cv", "select_and_fit", "score_chunks", "certify_chunks",
           "best_baseline", "verdict"]


@dataclass
class Selected:
    """A model chosen by :func:`select_and_fit` and refitted on all training rows."""

    name: str
    model: object
    params: dict
    select_seconds: float
    fit_seconds: float


def inner_cv(random_state: int, n_splits: int = 3) -> StratifiedKFold:
    """The inner folds every model of a comparison is selected on (same seed, same folds)."""
    return StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)


def select_and_fit(name, estimator, param_grid, X, y, *, scorer, cv, n_jobs=None) -> Selected:
    """Grid-search ``param_grid`` with ``scorer`` on ``cv``, then refit on all of ``X``.

    An empty grid fits ``estimator`` as it is (no selection). ``fit_seconds`` is the time of the
    final fit on all rows, ``select_seconds`` the wall-clock time of the search without it
    (``n_jobs`` joblib workers over the grid points and folds, as in ``GridSearchCV``).
    """
    start = time.perf_counter()
    if not param_grid:
        model = clone(estimator).fit(X, y)
        return Selected(name, model, {}, 0.0, time.perf_counter() - start)
    search = GridSearchCV(estimator, param_grid, scoring=scorer, cv=cv, refit=True,
                          error_score="raise", n_jobs=n_jobs)
    search.fit(X, y)
    total = time.perf_counter() - start
    return Selected(name, search.best_estimator_, dict(search.best_params_),
                    total - search.refit_time_, search.refit_time_)


def _chunks(y, n_chunks: int, random_state: int):
    """Disjoint stratified chunks of the test rows (fewer when a class is too small)."""
    counts = np.unique(y, return_counts=True)[1]
    k = int(max(2, min(n_chunks, counts.min())))
    return [test for _, test in StratifiedKFold(k, shuffle=True,
                                                random_state=random_state).split(y, y)]


def _stamp(frame: pd.DataFrame, selected: list[Selected], chunk: int) -> pd.DataFrame:
    times = {s.name: s for s in selected}
    frame = frame.copy()
    frame["repeat"] = chunk
    frame["fit_seconds"] = frame["estimator"].map(lambda n: times[n].fit_seconds)
    frame["select_seconds"] = frame["estimator"].map(lambda n: times[n].select_seconds)
    return frame


def score_chunks(selected: list[Selected], X_test, y_test, *, corruption, levels,
                 n_chunks: int = 5, random_state: int = 0) -> pd.DataFrame:
    """Curve frame of the fitted models, one ``repeat`` per disjoint chunk of the test rows.

    Each chunk gets its own corruption draw, shared by all models (a paired comparison).
    """
    y_test = np.asarray(y_test)
    frames = []
    for i, rows in enumerate(_chunks(y_test, n_chunks, random_state)):
        frame = fitted_robustness_curve({s.name: s.model for s in selected}, X_test[rows],
                                        y_test[rows], corruption=corruption, levels=levels,
                                        random_state=random_state + i, progress=False)
        frames.append(_stamp(frame, selected, i))
    return pd.concat(frames, ignore_index=True)


def certify_chunks(selected: list[Selected], X_test, y_test, *, budgets, feature_values,
                   n_chunks: int = 5, random_state: int = 0, fill=np.nan) -> pd.DataFrame:
    """Certified worst-case error of fitted linear models, one ``repeat`` per test chunk."""
    y_test = np.asarray(y_test)
    frames = []
    for i, rows in enumerate(_chunks(y_test, n_chunks, random_state)):
        frame = fitted_certified_curve({s.name: s.model for s in selected}, X_test[rows],
                                       y_test[rows], budgets=budgets,
                                       feature_values=feature_values, fill=fill)
        frames.append(_stamp(frame, selected, i))
    return pd.concat(frames, ignore_index=True)


def best_baseline(frame: pd.DataFrame, baselines) -> str:
    """The baseline with the lowest mean error over the corrupted levels (all if only one)."""
    rows = frame[frame["estimator"].isin(list(baselines))]
    corrupted = rows[rows["level"] != rows["level"].min()]
    rows = corrupted if len(corrupted) else rows
    return str(rows.groupby("estimator")["error"].mean().idxmin())


def _interval(row) -> str:
    if np.isnan(row["ci_low"]):
        return f"{row['mean']:+.3f}"
    return f"{row['mean']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]"


def verdict(frame: pd.DataFrame, robust, baselines, *, what: str = "error") -> str:
    """Markdown: paired differences of each robust model against the best baseline, in words.

    A difference counts only when its 95 % interval excludes zero; otherwise the two are called
    indistinguishable at that level.
    """
    robust = [r for r in robust if r in set(frame["estimator"])]
    baselines = [b for b in baselines if b in set(frame["estimator"])]
    if not robust or not baselines:
        return ""
    best = best_baseline(frame, baselines)
    diffs = paired_differences(frame, best)
    diffs = diffs[diffs["estimator"].isin(robust)]
    cells = diffs.assign(cell=diffs.apply(_interval, axis=1)).pivot(
        index="estimator", columns="level", values="cell").reindex(robust)
    cells.columns = [f"{c:g}" if isinstance(c, (int, float, np.number)) else str(c)
                     for c in cells.columns]
    cells.index.name = f"{what} − {best}"
    lines = [f"**Best baseline here: `{best}`** (lowest mean {what} over the corrupted levels). "
             f"Paired difference of each robust model's {what} minus `{best}`'s, mean and 95 % "
             "interval over the test chunks (negative: the robust model is better):", "",
             markdown_table(cells), ""]
    for name in robust:
        rows = diffs[diffs["estimator"] == name]
        better = rows[rows["ci_high"] < 0]["level"].tolist()
        worse = rows[rows["ci_low"] > 0]["level"].tolist()
        ties = [lv for lv in rows["level"] if lv not in better and lv not in worse]
        parts = []
        if worse:
            parts.append(f"**the baseline `{best}` wins** at {_levels(worse)}")
        if better:
            parts.append(f"`{name}` wins at {_levels(better)}")
        if ties:
            parts.append(f"no clear difference at {_levels(ties)}")
        lines.append(f"- `{name}`: " + "; ".join(parts) + ".")
    return "\n".join(lines)


def _levels(levels) -> str:
    return "level " + ", ".join(f"{lv:g}" if isinstance(lv, (int, float, np.number)) else str(lv)
                                for lv in levels)
