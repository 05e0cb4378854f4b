"""Command line: ``robustclf demo | list | curve | certify | reproduce | benchmark``.

A thin layer: it parses arguments, calls the public functions (experiments, robustness curves,
reports) and prints where the results went. No computation lives here.

Failures end with one line on stderr, ``robustclf <command>: error: ...``, and an exit code:
2 for a usage error (a bad flag or value, a missing, unreadable or unsuitable input file or
output folder), 1 for a run that failed, 130 for an interrupted one; ``--debug`` shows the
traceback instead. ``python -m robustclf`` is the same command.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import os
import pickle
import shutil
import sys
import warnings
import zlib
from dataclasses import dataclass
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning

__all__ = ["main"]

_MAX_SEED = 2**32 - 1

_OUTPUT_HELP = ("An existing OUTPUT that holds a previous run's report is never overwritten: "
                "the run writes beside it, into the first free OUTPUT-2, OUTPUT-3, ..., "
                "unless --force is given.")


class _UsageError(Exception):
    """A bad flag, value, input file or output folder: exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with the library's one-line errors (``robustclf <command>: error: ...``)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"the seed must be an integer, got {text!r}") from None
    if not 0 <= value <= _MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"the seed must be an integer in [0, {_MAX_SEED}], got {value}")
    return value


def _n_jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-zero integer (-1: all cores), got {text!r}")
    return value


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0:
            raise argparse.ArgumentTypeError(
                f"expected a positive {'integer' if kind is int else 'number'}, got {text!r}")
        return value
    parse.__name__ = f"positive {kind.__name__}"
    return parse


def _parse_param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param must look like name=value, got {text!r}")
    name, value = text.split("=", 1)
    if value.strip().lower() in ("nan", "np.nan"):
        return name, float("nan")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def _build_parser() -> argparse.ArgumentParser:
    debug = _Parser(add_help=False)
    debug.add_argument("--debug", action="store_true",
                       help="on an error, show the traceback instead of the one-line message")
    parser = _Parser(
        prog="robustclf",
        description="Classifiers robust to missing and corrupted features: demo, curves and "
                    "paper reproductions.",
        epilog="Exit codes: 0 done, 1 the run failed, 2 usage error (bad flag or value, "
               "unreadable input, unusable output folder), 130 interrupted.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name, **kwargs):
        return sub.add_parser(name, parents=[debug], **kwargs)

    def output(p, default_output, what="report.md, CSV and PNG",
               force="overwrite the report of a previous run in --output"):
        p.add_argument("--output", type=Path, default=Path(default_output),
                       help=f"folder for {what} (default: {default_output}). {_OUTPUT_HELP}")
        p.add_argument("--force", action="store_true", help=force)

    def common(p, default_output, **kwargs):
        output(p, default_output, **kwargs)
        p.add_argument("--seed", type=_seed, default=0,
                       help=f"random seed, an integer in [0, {_MAX_SEED}] (default: 0)")
        p.add_argument("--n-jobs", type=_n_jobs, default=None,
                       help="parallel jobs (joblib; -1: all cores)")
        p.add_argument("--data-dir", type=Path, default=None,
                       help="folder of the public datasets (default: $ROBUSTCLF_DATA)")
        p.add_argument("--no-progress", action="store_true", help="hide progress bars")

    demo = command("demo", help="the main job: how models collapse under deletion")
    common(demo, "robustclf-report")
    demo.add_argument("--fast", action="store_true", help="fewer levels, one repeat")

    command("list", help="estimators, corruptions, datasets and experiments")

    curve = command(
        "curve", help="a robustness curve: a bundled dataset or your file, registry "
                      "estimators or your saved models")
    common(curve, "robustclf-curve")
    _data_and_models(curve)
    curve.add_argument("--corruption", required=True, help="a corruption name")
    curve.add_argument("--levels", required=True, nargs="+", type=float,
                       help="corruption levels: fractions in [0, 1], or counts k / budgets "
                            "(levels above 1 sweep the count k where the corruption has one)")
    curve.add_argument("--param", action="append", default=[], type=_parse_param,
                       help="extra corruption parameter name=value, e.g. among='nonzero' or "
                            "groups=[['a','b'],['c']] (groups by column name for --data)")
    curve.add_argument("--scoring", default=None,
                       help="metric recorded at each level: error (default) or a "
                            "scikit-learn scorer name such as balanced_accuracy, roc_auc")
    curve.add_argument("--repeats", type=_positive(int), default=3,
                       help="repeats (default: 3)")

    certify = command(
        "certify", help="the certified worst-case error of linear models against a deletion "
                        "budget")
    common(certify, "robustclf-certify")
    _data_and_models(certify)
    certify.add_argument("--budgets", required=True, nargs="+", type=float,
                         help="deletion budgets N, in units of feature value")
    certify.add_argument("--feature-values", default=None, choices=("uniform", "mutual_info"),
                         help="value of each feature: uniform, or mutual_info (with the label, "
                              "on the training rows; on the scored rows if only --model is "
                              "given); default: the dataset's own values, else uniform")
    certify.add_argument("--fill", default="nan", choices=("nan", "0"),
                         help="what a deleted feature becomes: nan (absent, default: each "
                              "model handles it per its method; a model that cannot take NaN "
                              "needs an imputer in its pipeline) or 0 (the papers' raw zero)")
    certify.add_argument("--time-limit", type=_positive(float), default=None,
                         help="seconds of exact solving per budget (default: 30)")

    bench = command(
        "benchmark", help="every classifier on every data set under every threat: one table",
        description="Every classifier on every data set under every threat: one table. Each "
                    "finished cell (one threat on one split of one data set) is kept in "
                    "OUTPUT/benchmark_data/cells/MODE-seedSEED/ as a CSV: an interrupted run, "
                    "rerun with the same command, resumes where it stopped and computes only "
                    "the missing cells.")
    output(bench, "robustclf-benchmark", what="benchmark.md and benchmark_data/",
           force="overwrite the page of a previous run in --output and recompute every "
                 "cell, also those kept from an interrupted run")
    bench.add_argument("--seed", type=_seed, default=0,
                       help=f"random seed, an integer in [0, {_MAX_SEED}] (default: 0)")
    bench.add_argument("--data-dir", type=Path, default=None,
                       help="folder of the public datasets (default: $ROBUSTCLF_DATA)")
    bench.add_argument("--n-jobs", type=_n_jobs, default=None,
                       help="parallel jobs of each grid search (joblib; -1: all cores)")
    bench.add_argument("--no-progress", action="store_true", help="hide progress bars")
    size = bench.add_mutually_exclusive_group()
    size.add_argument("--fast", action="store_const", const="fast", dest="mode",
                      help="one small data set, no selection (the tests)")
    size.add_argument("--medium", action="store_const", const="medium", dest="mode",
                      help="the bundled data and spambase, one split of <= 600 rows")
    bench.set_defaults(mode="full")

    reproduce = command(
        "reproduce", help="run a paper reproduction",
        description="Run a paper reproduction. Each finished cell (one fold, repeat or grid "
                    "point) is kept in OUTPUT/NAME/cells/MODE-seedSEED/: an interrupted run, "
                    "rerun with the same command, resumes where it stopped and computes only "
                    "the missing cells.")
    reproduce.add_argument("name", help="experiment name (see `robustclf list`)")
    common(reproduce, "robustclf-results",
           force="overwrite the report of a previous run in --output and recompute every "
                 "cell, also those kept from an interrupted run")
    reproduce.add_argument("--fast", action="store_true", help="the quick mode used in tests")
    parser.commands = sub.choices   # each command's parser, for its own error messages
    return parser


def _data_and_models(p) -> None:
    """The arguments naming the data (bundled or a file) and the models (registry or saved)."""
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--dataset", help="a bundled dataset name (see `robustclf list`)")
    source.add_argument("--data", type=Path,
                        help="your table: a .csv, .tsv or .parquet file with a header row")
    p.add_argument("--target", help="the label column of --data")
    p.add_argument("--model", action="append", type=Path, default=[],
                   help="a fitted model saved with joblib.dump, evaluated as it is (never "
                        "refitted); repeat for several")
    p.add_argument("--estimator", action="append", default=None,
                   help="a registry estimator name, fitted here; repeat for several (default: "
                        "all, unless --model is given)")
    p.add_argument("--test-size", type=float, default=0.3,
                   help="with --data and --estimator: the held-out fraction of rows every "
                        "model is scored on (default: 0.3)")


def _progress(args) -> bool | None:
    return False if args.no_progress else None


def _output_dir(args, folder: Path, report: str) -> Path:
    """The folder this run writes into; checked before any computation.

    ``folder`` itself, unless it holds ``report`` from a previous run and ``--force`` is not
    given: then the first ``folder-2``, ``folder-3``, ... that holds no report (said on
    stderr). A ``--output`` that is a file, or lies inside one, is a usage error.
    """
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        inside = "" if existing == args.output else f" lies inside {str(existing)!r}, which"
        raise _UsageError(f"--output {str(args.output)!r}{inside} is an existing file, not a "
                          "folder; give a folder path.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise _UsageError(f"--output {str(args.output)!r}: cannot write into "
                          f"{str(existing)!r} (permission denied).")
    if args.force or not (folder / report).exists():
        return folder
    for i in itertools.count(2):
        beside = folder.with_name(f"{folder.name}-{i}")
        if not beside.exists() or (beside.is_dir() and not (beside / report).exists()):
            print(f"{folder} holds the report of a previous run ({report}); writing to "
                  f"{beside} instead (--force overwrites it).", file=sys.stderr)
            return beside


def _read_input(what: str, load, *args, **kwargs):
    """``load(*args, **kwargs)``; a file that cannot be read (corrupt archive, truncated
    pickle, permission) becomes a usage error naming ``what``."""
    try:
        return load(*args, **kwargs)
    except FileNotFoundError:
        raise
    except (OSError, EOFError, zlib.error, pickle.UnpicklingError, UnicodeDecodeError) as exc:
        raise _UsageError(f"{what} is not readable ({type(exc).__name__}: {exc}).") from exc


def _cmd_demo(args) -> int:
    from .experiments import run_demo
    from .report import write_experiment

    output = _output_dir(args, args.output, "report.md")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        warnings.simplefilter("always", UserWarning)
        result = run_demo(fast=args.fast, random_state=args.seed, n_jobs=args.n_jobs,
                          progress=_progress(args), data_dir=args.data_dir)
    for w in caught:   # other warnings are shown as usual
        if not issubclass(w.category, (ConvergenceWarning, UserWarning)):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)})
    model_notes = sorted({str(w.message) for w in caught
                          if issubclass(w.category, UserWarning)
                          and not issubclass(w.category, ConvergenceWarning)})
    appendix = []
    # one section of the report each, instead of one warning per fit on the terminal
    if notes:
        appendix.append("## Solver notes\n\nSome fits stopped before their optimality "
                        "criterion (scikit-learn's ConvergenceWarning):\n\n"
                        + "".join(f"* {note}\n" for note in notes))
    if model_notes:
        appendix.append("## Model notes\n\nWhat the models said of their fits (UserWarning), "
                        "in the grid searches (settings the validation may have rejected) and in "
                        "the refits of the chosen settings:\n\n"
                        + "".join(f"* {note}\n" for note in model_notes))
    path = write_experiment(result, output, appendix=appendix)
    if notes:
        print(f"{len(notes)} distinct solver warning(s): see 'Solver notes' in the report")
    if model_notes:
        print(f"{len(model_notes)} distinct model note(s): see 'Model notes' in the report")
    print(f"report written to {path.resolve()}")
    return 0


def _cmd_list(args) -> int:
    from ._registry import estimator_entries
    from .corruption import CORRUPTIONS
    from .datasets import DATASETS
    from .experiments import experiments

    print("estimators:")
    for e in estimator_entries():
        kind = "robust" if e.robust else "baseline"
        print(f"  {e.name:<24} {kind:<9} {e.description}")
    print("corruptions:")
    for name, cls in CORRUPTIONS.items():
        print(f"  {name:<24} {cls.__name__} (level: {cls.level_params[0]})")
    print("datasets:")
    for name, (_, shared) in DATASETS.items():
        print(f"  {name:<24} {'shared data' if shared else 'bundled / generated'}")
    print("experiments (robustclf reproduce NAME):")
    listed = experiments()
    for ex in listed:
        print(f"  {ex.name:<24} {ex.paper}: {ex.description}")
    if not listed:
        print("  (none yet)")
    return 0


@dataclass
class _Models:
    """What the command evaluates: registry estimators to fit, saved models to score as they are.

    ``X_fit``/``y_fit`` train the registry estimators (``None`` when there are none); every
    model is scored on ``X_eval``/``y_eval``: the test split of a bundled dataset, of ``--data``
    when estimators are fitted, or all rows of ``--data`` when only saved models are scored.
    """

    estimators: dict
    fitted: dict
    X_fit: object
    y_fit: object
    X_eval: object
    y_eval: object
    groups: list | None
    feature_values: object
    name: str


def _models_and_data(args) -> _Models:
    from ._registry import estimator_entries, make_estimator

    if args.data is None and args.target is not None:
        raise ValueError("--target names the label column of --data; give --data too.")
    names = args.estimator if args.estimator is not None else (
        [] if args.model else [e.name for e in estimator_entries()])
    estimators = {n: make_estimator(n) for n in names}
    if args.data is not None:
        X_fit, y_fit, X_eval, y_eval = _split_user_table(args, fit=bool(estimators))
        groups, feature_values, name = None, None, args.data.stem
    else:
        from .datasets import load_split

        split = _read_input(f"dataset {args.dataset!r}", load_split, args.dataset,
                            random_state=args.seed, data_dir=args.data_dir)
        X_fit, y_fit, X_eval, y_eval = split.X_train, split.y_train, split.X_test, split.y_test
        groups, feature_values, name = split.groups, split.feature_values, args.dataset
    fitted = {}
    for path in args.model:
        from .datasets._files import check_model_columns, load_model

        model = _read_input(f"model file {str(path)!r}", load_model, path)
        key = path.stem if path.stem not in estimators and path.stem not in fitted else str(path)
        fitted[key] = (model, check_model_columns(model, _as_frame(X_eval)))
    return _Models(estimators, fitted, X_fit, y_fit, X_eval, y_eval, groups, feature_values,
                   name)


def _split_user_table(args, *, fit: bool):
    """The user's table as (X_fit, y_fit, X_eval, y_eval); all rows are scored if nothing fits."""
    from .datasets import load_table
    from .datasets._files import non_numeric_columns

    if args.target is None:
        raise ValueError("--data needs --target, the name of the label column.")
    X, y = _read_input(f"data file {str(args.data)!r}", load_table, args.data, args.target)
    if not fit:
        return None, None, X, y
    non_numeric = non_numeric_columns(X)
    if non_numeric:
        raise ValueError("registry estimators need numeric columns; non-numeric: "
                         f"{', '.join(non_numeric[:10])}. Encode them, or pass a --model "
                         "pipeline that does.")
    if not 0.0 < args.test_size < 1.0:
        raise ValueError(f"--test-size must be in (0, 1), got {args.test_size}.")
    from sklearn.model_selection import train_test_split

    X_fit, X_eval, y_fit, y_eval = train_test_split(
        X, y, test_size=args.test_size, stratify=y, random_state=args.seed)
    return X_fit, y_fit, X_eval, y_eval


def _as_frame(X):
    import pandas as pd

    return X if isinstance(X, pd.DataFrame) else pd.DataFrame(X)


def _cmd_curve(args) -> int:
    import pandas as pd

    from .corruption import make_corruption
    from .evaluation import fitted_robustness_curve, robustness_curve
    from .report import write_curve

    output = _output_dir(args, args.output, "report.md")
    run = _models_and_data(args)
    params = dict(args.param)
    if args.corruption == "group_deletion":
        params.setdefault("groups", run.groups)
        if params["groups"] is None:
            raise ValueError(f"{run.name!r} has no feature groups; pass --param groups=...")
    valued = ("greedy", "optimal", "black_box_greedy")  # the adversaries that pay feature values
    if args.corruption in valued and run.feature_values is not None:
        params.setdefault("feature_values", run.feature_values)
    corruption = make_corruption(args.corruption, **params)
    # levels above 1 cannot be fractions: sweep the count k instead, when the corruption has one
    if "k" in corruption.level_params and max(args.levels) > 1 and "fraction" not in params:
        corruption = make_corruption(args.corruption, **{**params, "k": 0})
    levels = [int(v) if float(v).is_integer() and corruption.level_name != "fraction" else v
              for v in args.levels]
    scoring = None if args.scoring in (None, "error") else args.scoring
    common = dict(corruption=corruption, levels=levels, scoring=scoring,
                  random_state=args.seed, n_jobs=args.n_jobs, progress=_progress(args))
    frames = []
    if run.estimators:
        frames.append(robustness_curve(run.estimators, run.X_fit, run.y_fit, run.X_eval,
                                       run.y_eval, n_repeats=args.repeats, **common))
    for key, (model, X_model) in run.fitted.items():
        frames.append(fitted_robustness_curve({key: model}, X_model, run.y_eval,
                                              n_repeats=args.repeats, **common))
    frame = pd.concat(frames, ignore_index=True)
    name = f"{run.name}_{args.corruption}"
    ylabel = "test error" if scoring is None else scoring.replace("_", " ")
    title = f"{run.name}: {args.corruption}"
    section = write_curve(frame, output, name, title=title, xlabel=corruption.level_name,
                          ylabel=ylabel)
    return _finish(output, frame, section, title, _models_note(run))


def _models_note(run: _Models) -> str:
    """Which models the report shows and on which rows: the reader must know what was refitted."""
    parts = []
    if run.estimators:
        parts.append("registry estimators fitted here: " + ", ".join(f"`{n}`" for n in
                                                                    run.estimators))
    if run.fitted:
        parts.append("saved models scored as they are (never refitted): "
                     + ", ".join(f"`{n}`" for n in run.fitted))
    rows = f"{len(run.y_eval)} scored rows of {run.name}"
    return f"{'; '.join(parts)}; {rows}."


def _finish(output: Path, frame, section: str, title: str, note: str) -> int:
    """Write report.md beside the CSV and PNG, print the table and where everything went."""
    from .report import curve_table, markdown_table, write_report

    path = write_report(output, title, [section], preamble=note)
    print(markdown_table(curve_table(frame)))
    print(f"\nreport written to {path.resolve()}")
    return 0


def _cmd_certify(args) -> int:
    import numpy as np
    import pandas as pd

    from .evaluation import certified_curve, fitted_certified_curve
    from .report import write_curve

    output = _output_dir(args, args.output, "report.md")
    run = _models_and_data(args)
    budgets = [int(b) if float(b).is_integer() else b for b in args.budgets]
    values = args.feature_values or (
        run.feature_values if run.feature_values is not None else "uniform")
    if values == "mutual_info":
        from .feature_values import mutual_info_values

        X_ref, y_ref = (run.X_fit, run.y_fit) if run.X_fit is not None else (run.X_eval,
                                                                            run.y_eval)
        values = mutual_info_values(np.asarray(X_ref, dtype=np.float64), np.asarray(y_ref))
    common = dict(budgets=budgets, feature_values=values, time_limit=args.time_limit,
                  fill=float(args.fill))
    frames = []
    if run.estimators:
        frames.append(certified_curve(run.estimators, run.X_fit, run.y_fit, run.X_eval,
                                      run.y_eval, random_state=args.seed, **common))
    for key, (model, X_model) in run.fitted.items():
        frames.append(fitted_certified_curve({key: model}, X_model, run.y_eval, **common))
    frame = pd.concat(frames, ignore_index=True)
    name = f"{run.name}_certified"
    title = f"{run.name}: certified worst case against deletion"
    section = write_curve(frame, output, name, xlabel="budget",
                          ylabel="certified worst-case error", title=title)
    return _finish(output, frame, section, title, _models_note(run))


def _kept_cells(args, cells: Path) -> Path:
    """The folder keeping the finished cells of this run: emptied with ``--force``, else
    resumed from (said on stderr); named in the message if the run is interrupted."""
    if args.force and cells.is_dir():
        shutil.rmtree(cells)
    elif cells.is_dir():
        print(f"resuming: finished cells are read from {cells}", file=sys.stderr)
    args.kept_cells = cells
    return cells


def _cmd_reproduce(args) -> int:
    from .experiments import get_experiment
    from .experiments._base import keeping_cells
    from .report import write_experiment

    experiment = get_experiment(args.name)
    output = _output_dir(args, args.output / experiment.name, "report.md")
    mode = "fast" if args.fast else "full"
    with keeping_cells(_kept_cells(args, output / "cells" / f"{mode}-seed{args.seed}")):
        result = experiment.run(fast=args.fast, random_state=args.seed, n_jobs=args.n_jobs,
                                data_dir=args.data_dir)
    path = write_experiment(result, output)
    print(f"report written to {path.resolve()}")
    return 0


def _cmd_benchmark(args) -> int:
    import time

    from .experiments.benchmark import run_benchmark, write_benchmark

    output = _output_dir(args, args.output, "benchmark.md")
    cells = _kept_cells(args, output / "benchmark_data" / "cells" / f"{args.mode}-seed{args.seed}")
    start = time.perf_counter()
    frame = run_benchmark(mode=args.mode, random_state=args.seed, data_dir=args.data_dir,
                          progress=_progress(args), cells=cells, n_jobs=args.n_jobs)
    flag = "" if args.mode == "full" else f" --{args.mode}"
    seed = "" if args.seed == 0 else f" --seed {args.seed}"
    path = write_benchmark(frame, output, command=f"robustclf benchmark{flag}{seed}",
                           seconds=time.perf_counter() - start)
    print(f"benchmark written to {path.resolve()}")
    return 0


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``robustclf`` command (and of ``python -m robustclf``).

    Returns the exit code: 0 done, 1 the run failed, 2 usage error, 130 interrupted; every
    failure prints one line ``robustclf <command>: error: ...`` on stderr (the traceback with
    ``--debug``). argparse's own usage errors exit with code 2 through :class:`SystemExit`.
    """
    parser = _build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:   # named by the command's parser, as every other usage error
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    handler = {"demo": _cmd_demo, "list": _cmd_list, "curve": _cmd_curve,
               "certify": _cmd_certify, "reproduce": _cmd_reproduce,
               "benchmark": _cmd_benchmark}[args.command]
    prefix = f"robustclf {args.command}: error:"
    try:
        return handler(args)
    except KeyboardInterrupt:
        if args.debug:
            raise
        cells = getattr(args, "kept_cells", None)
        kept = (f"; the finished cells are kept in {cells}: rerun the same command to resume"
                if cells is not None and cells.is_dir() else "")
        print(f"robustclf {args.command}: interrupted; no report was written{kept}.",
              file=sys.stderr)
        return 130
    # ValueError: the library's error for a bad input (data, model, name, parameter value)
    except (_UsageError, ValueError, FileNotFoundError) as exc:
        if args.debug:
            raise
        print(f"{prefix} {_one_line(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - any other failure is a failed run, in one line
        if args.debug:
            raise
        print(f"{prefix} the run failed: {type(exc).__name__}: {_one_line(exc)} (rerun with "
              "--debug for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
