"""One benchmark table (``robustclf benchmark``): every model, every data set, every threat.

Every registered classifier (the library's robust methods and the practitioner baselines) is
run on every named data set (:data:`robustclf.datasets.DATASETS`; the shared-data ones when
their files are found) under five threats, each at a few levels:

* ``random_deletion``: a random fraction of each test row's features deleted (absent, NaN);
* ``group_deletion``: whole feature groups deleted at random (pixel blocks, encodings, label
  copies), on the data sets that have groups;
* ``greedy``: the greedy deleting adversary with a value budget, white-box
  (:class:`~robustclf.corruption.GreedyDeletion`) for linear models, black-box
  (:class:`~robustclf.corruption.BlackBoxGreedyDeletion`) for the others;
* ``worst_case``: the exact (certified) worst case of the same budgets, linear models only
  (:func:`~robustclf.evaluation.fitted_certified_curve`);
* ``training_outliers``: outliers labelled against a clean logistic model
  (:func:`~robustclf.corruption.inject_outliers`) appended to the training rows, binary data only.

Model selection is the demo's (:mod:`._protocol`): each model's registry ``param_grid`` is
searched on the training rows with the same inner folds, scored under the threat at its middle
level (:func:`~robustclf.evaluation.make_corruption_scorer`; accuracy on the contaminated folds
for outliers), then refitted on all training rows. Errors are scored on disjoint chunks of the
test rows, so that every number has a paired interval. :func:`run_benchmark` returns the tidy
frame; :func:`benchmark_table` the method x threat table with ranks; :func:`robust_vs_baseline`
the best library method against the best baseline per threat and data set;
:func:`write_benchmark` the markdown page with its CSV and plots.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.linear_model import LogisticRegression
from tqdm import tqdm

from .._registry import estimator_entries
from ..corruption import (
    BlackBoxGreedyDeletion,
    GreedyDeletion,
    GroupDeletion,
    RandomDeletion,
    inject_outliers,
)
from ..datasets import DATASETS, load_split
from ..evaluation import make_corruption_scorer
from ._base import CellStore
from ._protocol import certify_chunks, inner_cv, score_chunks, select_and_fit

__all__ = ["BENCHMARK_THREATS", "MODES", "contaminate", "run_benchmark", "benchmark_table",
           "robust_vs_baseline", "write_benchmark"]

#: Threat names, in the table's column order.
BENCHMARK_THREATS = ("clean", "random_deletion", "group_deletion", "greedy", "worst_case",
                     "training_outliers")


@dataclass(frozen=True)
class Mode:
    """How much a benchmark run does.

    Attributes
    ----------
    datasets : tuple of str
        Data sets run (shared-data ones are skipped when their files are absent).
    n_splits : int
        Train/test splits (seeds ``random_state + i``); the chunks of every split are pooled.
    max_train, max_test : int
        Rows kept per split (stratified subsample) to bound the cost on large data sets.
    inner_folds : int
        Folds of the inner grid search.
    grid_values : int or None
        Values kept per grid parameter (None: all). With 1, each model keeps its registry
        setting and is fitted once (no selection).
    skip : tuple of str
        Estimators left out (the slowest, in the fast mode).
    max_queries : int
        Query allowance per row of the black-box greedy attack.
    """

    datasets: tuple[str, ...]
    n_splits: int
    max_train: int
    max_test: int
    inner_folds: int
    grid_values: int | None
    skip: tuple[str, ...] = ()
    max_queries: int = 200


#: The three run sizes: ``fast`` for the tests, ``medium`` and ``full`` by hand.
MODES = {
    "fast": Mode(("label_copies",), 1, 200, 200, 2, 1, skip=("fdrop",), max_queries=50),
    "medium": Mode(("digits", "threshold", "label_copies", "spambase"), 1, 600, 600, 3, 2),
    "full": Mode(("digits", "threshold", "label_copies", "spambase", "mnist47"), 3, 2000, 2000,
                 3, None),
}


def _blocks(side: int, size: int) -> list[np.ndarray]:
    index = np.arange(side * side).reshape(side, side)
    return [index[r:r + size, c:c + size].ravel()
            for r in range(0, side, size) for c in range(0, side, size)]


def _groups(name: str, split) -> list[np.ndarray] | None:
    """The data set's natural groups; pixel blocks for images (2x2 on digits, 4x4 on MNIST)."""
    if split.groups is not None:
        return split.groups
    if name == "digits":
        return _blocks(8, 2)
    if name == "mnist47":
        return _blocks(28, 4)
    return None


def _subsample(X, y, n: int, seed: int):
    if len(y) <= n:
        return X, y
    from sklearn.model_selection import train_test_split

    X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=seed)
    return X, y


def _levels(threat: str, n_groups: int, values) -> list:
    """Levels of a threat (the first is the middle one the models are selected at)."""
    if threat == "random_deletion":
        return [0.5, 0.25, 0.75]
    if threat == "group_deletion":
        counts = sorted({max(1, round(n_groups * f)) for f in (0.25, 0.5, 0.75)})
        return [counts[len(counts) // 2]] + [c for i, c in enumerate(counts)
                                             if i != len(counts) // 2]
    top = float(np.max(values)) if values is not None else 1.0
    return [2 * top, top, 4 * top] if top > 1 else [2.0, 1.0, 4.0]


def _configure(entry, estimator, grid, split, groups, values, mode: Mode):
    """Data-specific settings: FeatureBoost's groups, the deletion models' feature values and
    a budget grid in the data's value units; the grid cut to the mode's size."""
    if mode.grid_values is not None:
        grid = {k: list(v)[:mode.grid_values] for k, v in grid.items()}
    if entry.name == "featureboost" and groups is not None:
        estimator = estimator.set_params(groups=groups)
    if values is not None and entry.name in ("deletion_lp", "deletion_perceptron"):
        top = float(np.max(values))
        estimator = estimator.set_params(feature_values=values, budget=top)
        if "budget" in grid:
            grid = {**grid, "budget": [top, 2 * top][:len(grid["budget"])]}
    if all(len(v) <= 1 for v in grid.values()):   # nothing to choose: fit the setting given
        estimator = estimator.set_params(**{k: v[0] for k, v in grid.items()})
        grid = {}
    return estimator, grid


def _select(entries, X, y, scorer, split, groups, values, mode, seed, n_jobs=None):
    cv = inner_cv(seed, n_splits=mode.inner_folds)
    out = []
    for e in entries:
        estimator, grid = _configure(e, e.factory(), e.param_grid, split, groups, values, mode)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # solver notes are not the benchmark's subject
            out.append(select_and_fit(e.name, estimator, grid, X, y, scorer=scorer, cv=cv,
                                      n_jobs=n_jobs))
    return out


def _tag(frame, dataset, threat, split_index, n_chunks=5):
    frame = frame.copy()
    frame["repeat"] = split_index * n_chunks + frame["repeat"]
    frame.insert(0, "threat", threat)
    frame.insert(0, "dataset", dataset)
    return frame


def _run_split(name, split, entries, mode, seed, split_index, cell=None, n_jobs=None):
    """All threats on one split of one data set: one cell per threat (``cell(key, compute)``,
    a :class:`~._base.CellStore`, keeps each finished one)."""
    cell = CellStore() if cell is None else cell
    groups = _groups(name, split)
    values = split.feature_values
    X_tr, y_tr = _subsample(split.X_train, split.y_train, mode.max_train, seed)
    X_te, y_te = _subsample(split.X_test, split.y_test, mode.max_test, seed)
    linear = {e.name for e in entries if e.linear}

    def threat_cell(threat):
        frames = []
        levels = _levels(threat, len(groups) if groups else 0, values)
        if threat == "random_deletion":
            corruption = RandomDeletion(fraction=0.0)
        elif threat == "group_deletion":
            corruption = GroupDeletion(groups, k=0)
        else:
            vals = "uniform" if values is None else values
            corruption = BlackBoxGreedyDeletion(feature_values=vals,
                                                max_queries=mode.max_queries)
        scorer = make_corruption_scorer(corruption, levels[0], random_state=seed)
        selected = _select(entries, X_tr, y_tr, scorer, split, groups, values, mode, seed,
                           n_jobs)
        # the clean level is scored once, with the random-deletion selection ("clean")
        levels = [0.0] + sorted(levels) if threat == "random_deletion" else sorted(levels)
        if threat != "greedy":
            frame = score_chunks(selected, X_te, y_te, corruption=corruption, levels=levels,
                                 random_state=seed)
            if threat == "random_deletion":
                frames.append(_tag(frame[frame["level"] == 0], name, "clean", split_index))
                frame = frame[frame["level"] != 0]
            frames.append(_tag(frame, name, threat, split_index))
            return pd.concat(frames, ignore_index=True)
        lin = [s for s in selected if s.name in linear]
        other = [s for s in selected if s.name not in linear]
        white = GreedyDeletion(feature_values=corruption.feature_values)
        greedy = pd.concat([
            score_chunks(lin, X_te, y_te, corruption=white, levels=levels, random_state=seed),
            score_chunks(other, X_te, y_te, corruption=corruption, levels=levels,
                         random_state=seed)], ignore_index=True)
        greedy["corruption"] = "greedy"
        frames.append(_tag(greedy, name, "greedy", split_index))
        worst = certify_chunks(lin, X_te, y_te, budgets=levels,
                               feature_values=corruption.feature_values, random_state=seed)
        frames.append(_tag(worst, name, "worst_case", split_index))
        return pd.concat(frames, ignore_index=True)

    threats = ["random_deletion", "greedy"] + (["group_deletion"] if groups else [])
    frames = [cell(f"{name}-split{split_index}-{threat}", lambda t=threat: threat_cell(t))
              for threat in threats]
    if np.unique(y_tr).size == 2:
        frames.append(cell(f"{name}-split{split_index}-training_outliers", lambda: _tag(
            _outliers(name, X_tr, y_tr, X_te, y_te, entries, split, groups, values, mode,
                      seed, n_jobs), name, "training_outliers", split_index)))
    return frames


def contaminate(X, y, outlier_ratio, random_state, contaminator=None):
    """The benchmark's training-outlier threat: ``X, y`` followed by outliers uniform in
    [-10 s, 10 s] (s: the training entries' standard deviation, the paper's 10 on
    unit-variance data), labelled against ``contaminator`` (default: a logistic regression
    fitted to ``X, y``). Returns the contaminated ``(X, y)``."""
    if contaminator is None:
        contaminator = LogisticRegression(max_iter=2_000).fit(X, y)
    X_c, y_c, _ = inject_outliers(X, y, contaminator, outlier_ratio=outlier_ratio,
                                  scale=10.0 * float(np.std(X)), random_state=random_state)
    return X_c, y_c


def _outliers(name, X_tr, y_tr, X_te, y_te, entries, split, groups, values, mode, seed,
              n_jobs=None):
    """The training-outlier threat (:func:`contaminate`) at ratios 0.1 and 0.2."""
    contaminator = LogisticRegression(max_iter=2_000).fit(X_tr, y_tr)
    frames = []
    for ratio in (0.1, 0.2):
        X_c, y_c = contaminate(X_tr, y_tr, ratio, seed, contaminator)
        selected = _select(entries, X_c, y_c, "accuracy", split, groups, values, mode, seed,
                           n_jobs)
        frame = score_chunks(selected, X_te, y_te, corruption=RandomDeletion(fraction=0.0),
                             levels=[0.0], random_state=seed)
        frames.append(frame.assign(level=ratio, level_name="outlier_ratio",
                                   corruption="inject_outliers"))
    return pd.concat(frames, ignore_index=True)


def _available(name: str, data_dir) -> bool:
    try:
        load_split(name, random_state=0, data_dir=data_dir)
    except (FileNotFoundError, OSError, ValueError):
        return False
    return True


def run_benchmark(*, mode: str = "full", random_state: int = 0, data_dir=None,
                  progress: bool | None = None, cells=None, n_jobs=None) -> pd.DataFrame:
    """Run every registered classifier on every data set under every threat.

    Parameters
    ----------
    mode : {"fast", "medium", "full"}, default="full"
        Run size (:data:`MODES`): ``fast`` (one small data set, no selection; the tests),
        ``medium`` (the bundled data and spambase, one split of at most 600 training and 600
        test rows, the first two values of each grid parameter) or ``full``.
    random_state : int, default=0
        Seed of the splits (``random_state + i``), inner folds and corruptions.
    data_dir : path, default=None
        Folder of the shared data sets; data sets whose files are absent are skipped.
    progress : bool or None, default=None
        tqdm bar over (data set, split); by default only on a terminal.
    cells : path or CellStore, default=None
        Where the finished cells (one threat on one split of one data set) are kept, one CSV
        each: a rerun after an interruption reads them back instead of computing them again,
        and returns the frame an uninterrupted run returns. The folder must be specific to
        ``mode`` and ``random_state``. None keeps nothing.
    n_jobs : int, default=None
        joblib workers of each grid search (over its grid points and inner folds). The errors
        do not depend on it; ``select_seconds`` is the search's wall-clock time.

    Returns
    -------
    frame : pandas.DataFrame
        One row per (dataset, threat, estimator, level, repeat) with ``error``,
        ``fit_seconds`` (the refit on all training rows), ``select_seconds`` (the grid search)
        and ``predict_seconds``; ``repeat`` numbers the test chunks of every split.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}.")
    spec = MODES[mode]
    entries = [e for e in estimator_entries() if e.name not in spec.skip]
    names = [n for n in spec.datasets if not DATASETS[n][1] or _available(n, data_dir)]
    jobs = [(n, i) for n in names for i in range(spec.n_splits)]
    cells = cells if isinstance(cells, CellStore) else CellStore(cells)
    n_computed, n_reused = len(cells.computed), len(cells.reused)
    frames = []
    for name, i in tqdm(jobs, disable=None if progress is None else not progress,
                        desc="benchmark"):
        split = load_split(name, random_state=random_state + i, data_dir=data_dir)
        frames.extend(_run_split(name, split, entries, spec, random_state + i, i, cells,
                                 n_jobs))
    frame = pd.concat(frames, ignore_index=True)
    frame.attrs["mode"] = mode
    frame.attrs["datasets"] = names
    frame.attrs["cells_computed"] = len(cells.computed) - n_computed
    frame.attrs["cells_reused"] = len(cells.reused) - n_reused
    return frame


def _t_interval(values: np.ndarray) -> tuple[float, float]:
    n = values.size
    if n < 2:
        return float("nan"), float("nan")
    half = stats.t.ppf(0.975, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return float(values.mean() - half), float(values.mean() + half)


def benchmark_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Method x threat summary: mean error (95 % interval), mean rank, and the overall rank.

    For each threat, a method's error is averaged over the data sets and levels it was run on,
    per ``repeat`` (test chunk), and the interval is a Student-t interval over the repeats.
    Its rank is its mean rank among the methods run in the same (data set, level) cell (rank 1:
    lowest error; ties share the mean rank). ``worst_case`` ranks the linear models only. The
    ``overall rank`` orders the methods by their mean rank over the threats they were run on.
    """
    cells = frame.groupby(["threat", "dataset", "level", "estimator"])["error"].mean()
    ranks = cells.groupby(["threat", "dataset", "level"]).rank(method="average")
    mean_rank = ranks.groupby(["estimator", "threat"]).mean()
    per_repeat = frame.groupby(["estimator", "threat", "repeat"])["error"].mean()
    rows = []
    for (est, threat), values in per_repeat.groupby(["estimator", "threat"]):
        low, high = _t_interval(values.to_numpy())
        rows.append({"estimator": est, "threat": threat, "error": float(values.mean()),
                     "ci_low": low, "ci_high": high, "rank": float(mean_rank[(est, threat)])})
    long = pd.DataFrame(rows)
    overall = long.groupby("estimator")["rank"].mean().rank(method="min")
    long["overall_rank"] = long["estimator"].map(overall)
    return long


def _wide(long: pd.DataFrame) -> pd.DataFrame:
    """The long table as one row per method, one cell per threat: error [interval] (rank)."""
    def cell(r):
        ci = "" if np.isnan(r["ci_low"]) else f" [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        return f"{r['error']:.3f}{ci} (r {r['rank']:.1f})"

    wide = long.assign(cell=long.apply(cell, axis=1)).pivot(index="estimator", columns="threat",
                                                            values="cell")
    wide = wide[[t for t in BENCHMARK_THREATS if t in wide.columns]].fillna("—")
    order = long.drop_duplicates("estimator").set_index("estimator")["overall_rank"]
    wide.insert(0, "overall rank", order.reindex(wide.index).astype(int))
    return wide.sort_values("overall rank")


def robust_vs_baseline(frame: pd.DataFrame) -> pd.DataFrame:
    """Per threat and data set: the best library method against the best baseline.

    "Best" is the lowest mean error over the cell's levels and test chunks, among the
    registry's robust methods (``robust=True``) and among the baselines, each picked on the same
    test chunks (so each side is flattered by its own selection alike). ``difference`` is the
    robust method's error minus the baseline's, averaged over the levels per test chunk (the
    chunks share their corruption draws), with a 95 % Student-t interval over the chunks;
    ``winner`` names the side whose interval excludes 0, or ``tie``.
    """
    robust = {e.name for e in estimator_entries(available=False) if e.robust}
    rows = []
    for threat in [t for t in BENCHMARK_THREATS if t in set(frame["threat"])]:
        for dataset, cell in frame[frame["threat"] == threat].groupby("dataset", sort=True):
            means = cell.groupby("estimator")["error"].mean()
            mine, theirs = means[means.index.isin(robust)], means[~means.index.isin(robust)]
            if mine.empty or theirs.empty:
                continue
            best_r, best_b = mine.idxmin(), theirs.idxmin()
            per_chunk = cell.groupby(["estimator", "repeat"])["error"].mean()
            diff = (per_chunk[best_r] - per_chunk[best_b]).dropna().to_numpy()
            low, high = _t_interval(diff)
            winner = best_r if high < 0 else best_b if low > 0 else "tie"
            rows.append({"threat": threat, "dataset": dataset, "robust": best_r,
                         "robust_error": float(mine.min()), "baseline": best_b,
                         "baseline_error": float(theirs.min()), "difference": float(diff.mean()),
                         "ci_low": low, "ci_high": high, "winner": winner})
    return pd.DataFrame(rows, columns=["threat", "dataset", "robust", "robust_error",
                                       "baseline", "baseline_error", "difference", "ci_low",
                                       "ci_high", "winner"])


def _duel_table(duels: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "threat": duels["threat"], "data set": duels["dataset"],
        "best library method": [f"`{r}` {e:.3f}" for r, e in zip(duels["robust"],
                                                                   duels["robust_error"],
                                                                   strict=True)],
        "best baseline": [f"`{b}` {e:.3f}" for b, e in zip(duels["baseline"],
                                                           duels["baseline_error"],
                                                           strict=True)],
        "difference [95 %]": [f"{d:+.3f} [{lo:+.3f}, {hi:+.3f}]" for d, lo, hi in
                              zip(duels["difference"], duels["ci_low"], duels["ci_high"],
                                  strict=True)],
        "better": [w if w == "tie" else f"`{w}`" for w in duels["winner"]]}).set_index("threat")


def _timing(frame: pd.DataFrame) -> pd.DataFrame:
    scored = frame[frame["threat"] != "worst_case"]
    per_fit = scored.drop_duplicates(["dataset", "threat", "estimator", "repeat"])
    times = per_fit.groupby("estimator")[["fit_seconds", "select_seconds"]].mean()
    times["predict_seconds"] = scored.groupby("estimator")["predict_seconds"].mean()
    return times.map(lambda v: f"{v:.3f}")


def _plot(frame: pd.DataFrame, threat: str, path: Path) -> None:
    import matplotlib

    from ..report import save_figure

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    rows = frame[frame["threat"] == threat]
    table = rows.groupby(["estimator", "dataset"])["error"].mean().unstack("dataset")
    order = rows.groupby("estimator")["error"].mean().sort_values().index
    table = table.reindex(order)
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(table) + 1.6))
    height = 0.8 / max(1, table.shape[1])
    for j, dataset in enumerate(table.columns):
        ax.barh(np.arange(len(table)) + j * height, table[dataset], height=height,
                label=dataset)
    ax.set_yticks(np.arange(len(table)) + 0.4 - height / 2, table.index)
    ax.invert_yaxis()
    ax.set_xlabel("mean error over the threat's levels")
    ax.set_title(f"benchmark: {threat}")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    save_figure(fig, path, dpi=100)


def _describe(spec: Mode | None) -> str:
    if spec is None:
        return "unknown."
    grid = ("each model's registry setting, no selection" if spec.grid_values == 1 else
            "every value of each grid parameter" if spec.grid_values is None else
            f"the first {spec.grid_values} values of each grid parameter")
    skipped = f"; left out: {', '.join(spec.skip)}" if spec.skip else ""
    return (f"{spec.n_splits} train/test split(s), at most {spec.max_train} training and "
            f"{spec.max_test} test rows each (stratified subsample), {spec.inner_folds} inner "
            f"folds, {grid}, black-box greedy attack with at most {spec.max_queries} queries "
            f"per row{skipped}." + ("" if spec == MODES["full"] else
                                    " The full mode adds MNIST 4 vs 7 and runs 3 splits of "
                                    "2,000 rows with the whole grids."))


def write_benchmark(frame: pd.DataFrame, output_dir, *, command: str = "robustclf benchmark",
                    seconds: float | None = None, page: str = "benchmark.md",
                    data_subdir: str = "benchmark_data") -> Path:
    """Write the page (``page``), ``<data_subdir>/benchmark.csv`` and one PNG per threat.

    Every number on the page comes from ``frame``; nothing is typed by hand. Every file is
    written atomically (:func:`robustclf.report.atomic_path`), the page last.
    """
    from ..report import markdown_table, write_csv, write_text

    output_dir = Path(output_dir)
    data = output_dir / data_subdir
    write_csv(frame, data / "benchmark.csv")
    long = benchmark_table(frame)
    write_csv(long, data / "benchmark_table.csv")
    duels = robust_vs_baseline(frame)
    write_csv(duels, data / "robust_vs_baseline.csv")
    figures = []
    for threat in BENCHMARK_THREATS:
        if threat in set(frame["threat"]):
            _plot(frame, threat, data / f"{threat}.png")
            figures.append(f"![{threat}]({data_subdir}/{threat}.png)")
    entries = {e.name: e for e in estimator_entries(available=False)}
    mode = frame.attrs.get("mode", "?")
    datasets = sorted(set(frame["dataset"]))
    levels = (frame.groupby(["dataset", "threat"])["level"]
              .apply(lambda s: ", ".join(f"{v:g}" for v in sorted(set(s))))
              .unstack("threat").reindex(columns=[t for t in BENCHMARK_THREATS
                                                  if t in set(frame["threat"])]).fillna("—"))
    n_repeats = frame.groupby("dataset")["repeat"].nunique().to_dict()
    when = f" in {seconds / 60:.1f} minutes" if seconds is not None else ""
    reused = frame.attrs.get("cells_reused", 0)
    if reused:
        computed = frame.attrs.get("cells_computed", 0)
        when = (f", resumed: its last run computed {computed} of the {computed + reused} cells "
                f"(one threat on one split of one data set each){when}, and the other cells, "
                "with their own timings, were kept from earlier runs of the same command")
    lines = [
        "# Benchmark: every classifier, every data set, every threat",
        "",
        f"Generated by `{command}` (mode `{mode}`){when}; every number below is the "
        "command's own output (raw rows: "
        f"[`{data_subdir}/benchmark.csv`]({data_subdir}/benchmark.csv)). Do not edit by hand: "
        "rerun the command.",
        "",
        "## Protocol",
        "",
        "- **Models**: every registered classifier, the library's robust methods and the "
        "baselines a practitioner would pick (`robustclf list`): "
        + ", ".join(f"`{n}`" for n in sorted(set(frame["estimator"]))) + ".",
        f"- **Data**: {', '.join(datasets)} (test chunks per data set: {n_repeats}).",
        f"- **Run size** (mode `{mode}`): {_describe(MODES.get(mode))}",
        "- **Model selection, the same for every model**: each model's registry grid is "
        "searched on the training rows with the same inner stratified folds, scored under the "
        "threat at its middle level (`make_corruption_scorer`; plain accuracy on the "
        "contaminated folds for training outliers, as a user cannot tell the outliers apart), "
        "and the chosen model is refitted on all training rows. FeatureBoost gets the data's "
        "feature groups, the deletion-robust LP and Perceptron its feature values. The "
        "`clean` column is the random-deletion selection scored without corruption.",
        "- **Threats**: `random_deletion` (fraction of features absent), `group_deletion` "
        "(whole groups: 2x2 pixel blocks on digits, 4x4 on MNIST, THRESHOLD's encodings, the "
        "label copies), `greedy` (value budget; white-box greedy on linear models, black-box "
        "greedy, a heuristic and so only a lower bound on the worst case, on the others), "
        "`worst_case` (the certified exact worst case at the same budgets, linear models "
        "only), `training_outliers` (outliers uniform in [-10 s, 10 s], s the training "
        "entries' standard deviation, labelled against a clean logistic model; binary data "
        "only). Levels per data set:",
        "",
        markdown_table(levels),
        "",
        "- **Intervals**: errors are scored on disjoint stratified chunks of the test rows "
        "(5 per split), each with its own corruption draw shared by all models; a cell's "
        "interval is the 95 % Student-t interval over those chunks of the error averaged over "
        "data sets and levels. It covers test-set and corruption variability, not the "
        "training randomness unless several splits were run.",
        "- **Rank**: a method's mean rank among the methods run in the same (data set, threat, "
        "level) cell (1 = lowest error); `worst_case` ranks linear models only; `overall "
        "rank` orders the methods by their mean rank over the threats they were run on.",
        "",
        "## The table",
        "",
        "Mean error [95 % interval] (mean rank) per threat; — where a method was not run "
        "(non-linear models have no certificate; multi-class data no outlier threat).",
        "",
        markdown_table(_wide(long)),
        "",
        "## Library methods against the baselines",
        "",
        "Per threat and data set, the library method with the lowest mean error against the "
        "baseline with the lowest mean error (both picked on the same test chunks), and the "
        "paired difference of their errors (library minus baseline, averaged over the levels per "
        "test chunk; 95 % t interval over the chunks). `better` names the side whose interval "
        "excludes 0.",
        "",
        markdown_table(_duel_table(duels)) if len(duels) else
        "(None: the run has no library method or no baseline.)",
        "",
        "## Time",
        "",
        "Mean seconds per model: the refit on all training rows (`fit_seconds`), the grid "
        "search before it (`select_seconds`) and scoring one corrupted chunk "
        "(`predict_seconds`).",
        "",
        markdown_table(_timing(frame)),
        "",
        "## Plots",
        "",
        "Mean error per data set (over the threat's levels), methods ordered by their mean.",
        "",
        *figures,
        "",
        "## Models",
        "",
        *[f"- `{n}`: {entries[n].description}." for n in sorted(set(frame["estimator"]))
          if n in entries],
        "",
    ]
    return write_text(output_dir / page, "\n".join(lines))
