"""Command line: ``robustclf demo | list | curve | reproduce``.

A thin layer: it parses arguments, calls the public functions (experiments, robustness curves,
reports) and prints where the results went. No computation lives here.
"""

from __future__ import annotations

import argparse
import ast
import sys
import warnings
from pathlib import Path

from sklearn.exceptions import ConvergenceWarning

__all__ = ["main"]


def _parse_param(text: str) -> tuple[str, object]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"--param must look like name=value, got {text!r}")
    name, value = text.split("=", 1)
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="robustclf",
        description="Classifiers robust to missing and corrupted features: demo, curves and "
                    "paper reproductions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p, default_output):
        p.add_argument("--output", type=Path, default=Path(default_output),
                       help=f"folder for report.md, CSV and PNG (default: {default_output})")
        p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
        p.add_argument("--n-jobs", type=int, default=None, help="parallel jobs (joblib)")
        p.add_argument("--data-dir", type=Path, default=None,
                       help="folder of the public datasets (default: $ROBUSTCLF_DATA)")
        p.add_argument("--no-progress", action="store_true", help="hide progress bars")

    demo = sub.add_parser("demo", help="the main job: how models collapse under deletion")
    common(demo, "robustclf-report")
    demo.add_argument("--fast", action="store_true", help="fewer levels, one repeat")

    sub.add_parser("list", help="estimators, corruptions, datasets and experiments")

    curve = sub.add_parser("curve", help="one robustness curve from the command line")
    common(curve, "robustclf-curve")
    curve.add_argument("--dataset", required=True, help="a dataset name (see `robustclf list`)")
    curve.add_argument("--corruption", required=True, help="a corruption name")
    curve.add_argument("--levels", required=True, nargs="+", type=float,
                       help="corruption levels: fractions in [0, 1], or counts k / budgets "
                            "(levels above 1 sweep the count k where the corruption has one)")
    curve.add_argument("--estimator", action="append", default=None,
                       help="an estimator name; repeat for several (default: all)")
    curve.add_argument("--param", action="append", default=[], type=_parse_param,
                       help="extra corruption parameter name=value, e.g. among='nonzero'")
    curve.add_argument("--repeats", type=int, default=3, help="repeats (default: 3)")

    reproduce = sub.add_parser("reproduce", help="run a paper reproduction")
    reproduce.add_argument("name", help="experiment name (see `robustclf list`)")
    common(reproduce, "robustclf-results")
    reproduce.add_argument("--fast", action="store_true", help="the quick mode used in tests")
    return parser


def _progress(args) -> bool | None:
    return False if args.no_progress else None


def _cmd_demo(args) -> int:
    from .experiments import run_demo
    from .report import write_experiment

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        result = run_demo(fast=args.fast, random_state=args.seed, n_jobs=args.n_jobs,
                          progress=_progress(args), data_dir=args.data_dir)
    path = write_experiment(result, args.output)
    for w in caught:   # other warnings are shown as usual
        if not issubclass(w.category, ConvergenceWarning):
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    notes = sorted({str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)})
    if notes:   # one section of the report instead of one warning per fit on the terminal
        with path.open("a", encoding="utf-8") as report:
            report.write("\n## Solver notes\n\nSome fits stopped before their optimality "
                         "criterion (scikit-learn's ConvergenceWarning):\n\n"
                         + "".join(f"* {note}\n" for note in notes))
        print(f"{len(notes)} distinct solver warning(s): see 'Solver notes' in the report")
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


def _cmd_curve(args) -> int:
    from ._registry import estimator_entries, make_estimator
    from .corruption import make_corruption
    from .datasets import load_split
    from .evaluation import robustness_curve
    from .report import curve_table, markdown_table, write_curve

    split = load_split(args.dataset, random_state=args.seed, data_dir=args.data_dir)
    params = dict(args.param)
    if args.corruption == "group_deletion":
        params.setdefault("groups", split.groups)
        if params["groups"] is None:
            raise ValueError(f"dataset {args.dataset!r} has no feature groups; pass groups.")
    valued = ("greedy", "optimal", "black_box_greedy")  # the adversaries that pay feature values
    if args.corruption in valued and split.feature_values is not None:
        params.setdefault("feature_values", split.feature_values)
    corruption = make_corruption(args.corruption, **params)
    # levels above 1 cannot be fractions: sweep the count k instead, when the corruption has one
    if "k" in corruption.level_params and max(args.levels) > 1 and "fraction" not in params:
        corruption = make_corruption(args.corruption, **{**params, "k": 0})
    levels = [int(v) if float(v).is_integer() and corruption.level_name != "fraction" else v
              for v in args.levels]
    names = args.estimator or [e.name for e in estimator_entries()]
    frame = robustness_curve({n: make_estimator(n) for n in names}, split.X_train,
                             split.y_train, split.X_test, split.y_test, corruption=corruption,
                             levels=levels, n_repeats=args.repeats, random_state=args.seed,
                             n_jobs=args.n_jobs, progress=_progress(args))
    name = f"{args.dataset}_{args.corruption}"
    write_curve(frame, args.output, name, title=f"{args.dataset}: {args.corruption}",
                xlabel=corruption.level_name)
    print(markdown_table(curve_table(frame)))
    print(f"\nCSV and plot written to {args.output.resolve() / name}.{{csv,png}}")
    return 0


def _cmd_reproduce(args) -> int:
    from .experiments import get_experiment
    from .report import write_experiment

    experiment = get_experiment(args.name)
    result = experiment.run(fast=args.fast, random_state=args.seed, n_jobs=args.n_jobs,
                            data_dir=args.data_dir)
    path = write_experiment(result, args.output / experiment.name)
    print(f"report written to {path.resolve()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``robustclf`` command."""
    args = _build_parser().parse_args(argv)
    handler = {"demo": _cmd_demo, "list": _cmd_list, "curve": _cmd_curve,
               "reproduce": _cmd_reproduce}[args.command]
    try:
        return handler(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"robustclf {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
