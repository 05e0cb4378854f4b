"""GeometricMarginSVC on data whose scalings collapse: fit time against the zero-fill SVM.

Issue 15: when the smallest scaling ``s_i = ||w^(i)|| / ||w||`` shrinks by a constant factor at
every update (to 0.02 and below after five), each SVM solve for fixed scalings is worse
conditioned than the last, and a fit took 10-116 s against 0.02-0.1 s for the zero-fill SVM.
The data: :func:`~robustclf.datasets.make_subtype_missing` with four subtypes that share one
landmark block and own the others, each with its own label rule (``coef_similarity=0``), so
that most of each subtype's rule lives in a subspace no other subtype has. There Eq. (6) barely
depends on the size of a subtype's own weights (its margin in its own subspace does not), the
regulariser shrinks them at every iterate, and the scalings collapse. House votes (if
``ROBUSTCLF_DATA`` holds it) is the control: real data whose scalings stay above 0.3.

For each data set the script measures, in the same run, one zero-fill SVM fit (``SVC`` on the
zero-filled rows, median of 3; its test error) and GeometricMarginSVC fits at every
``min_scaling`` given (0 is the unguarded paper update), both bias readings, and prints the fit
time, its ratio to the zero-fill SVM's, the smallest scaling used, how many training rows the
floor raised (``n_floored_``), whether a fixed point was reached and the test error.

Usage: python benchmarks/bench_geometric_collapse.py [--n 1000] [--max-iter 5] [--C 1 10]
       [--min-scaling 0 0.2] [--seeds 0]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from robustclf.datasets import load_votes, make_subtype_missing
from robustclf.missing import GeometricMarginSVC

#: Four subtypes sharing landmark block 0; every other block belongs to one subtype.
SHARED_ONE = np.array([[1, 1, 0, 0, 0, 0],
                       [1, 0, 1, 1, 0, 0],
                       [1, 0, 0, 0, 1, 1],
                       [1, 0, 0, 0, 0, 1]], dtype=bool)


def collapsing_data(n_train: int, seed: int):
    """Train/test split (``n_train`` rows each) of the collapsing subtype data, standardised."""
    X, y = make_subtype_missing(2 * n_train, n_subtypes=4, n_blocks=6, block_size=3,
                                subtype_blocks=SHARED_ONE, coef_similarity=0.0,
                                noise_std=0.3, random_state=seed)
    return _split(X, y, 0.5, seed)


def _split(X, y, test_size, seed):
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, stratify=y,
                                          random_state=seed)
    scaler = StandardScaler().fit(Xtr)  # NaN-aware: absent entries are ignored and kept
    return scaler.transform(Xtr), ytr, scaler.transform(Xte), yte


def _timed(fit):
    start = time.perf_counter()
    model = fit()
    return model, time.perf_counter() - start


def zero_fill_svm(Xtr, ytr, Xte, yte, C):
    """Median fit time of 3 and the test error of the zero-fill linear SVM."""
    times, model = [], None
    for _ in range(3):
        model, t = _timed(lambda: SVC(kernel="linear", C=C).fit(np.nan_to_num(Xtr), ytr))
        times.append(t)
    return float(np.median(times)), float(np.mean(model.predict(np.nan_to_num(Xte)) != yte))


def run(name, data, Cs, floors, max_iter):
    Xtr, ytr, Xte, yte = data
    for C in Cs:
        t_svm, e_svm = zero_fill_svm(Xtr, ytr, Xte, yte, C)
        print(f"\n{name}: {Xtr.shape[0]} training rows, C={C:g}, max_iter={max_iter}; "
              f"zero-fill SVM fit {t_svm:.3f} s, test error {e_svm:.3f}")
        print("  bias      min_scaling   fit s   ratio  min s used  n_floored  fixed pt  "
              "test error")
        for bias in ("scaled", "unscaled"):
            for floor in floors:
                model = GeometricMarginSVC(C=C, bias=bias, max_iter=max_iter, min_scaling=floor)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    _, t = _timed(lambda m=model: m.fit(Xtr, ytr))
                s_min = min(it.fit_scalings.min() for it in model.iterates_[0])
                error = float(np.mean(model.predict(Xte) != yte))
                print(f"  {bias:9s} {floor:11.2f} {t:7.2f} {t / t_svm:7.0f} {s_min:11.3f} "
                      f"{model.n_floored_:10d} {model.converged_!s:>9s} {error:11.3f}",
                      flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="training rows (collapsing data)")
    parser.add_argument("--max-iter", type=int, default=5)
    parser.add_argument("--C", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--min-scaling", type=float, nargs="+", default=[0.0, 0.2])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    for seed in args.seeds:
        run(f"collapsing subtypes (seed {seed})", collapsing_data(args.n, seed), args.C,
            args.min_scaling, args.max_iter)
    try:
        X, y = load_votes(return_X_y=True)
    except (FileNotFoundError, OSError):
        print("\nhouse votes not found (set ROBUSTCLF_DATA): control skipped")
        return
    run("house votes", _split(X, y, 0.3, 0), args.C, args.min_scaling, args.max_iter)


if __name__ == "__main__":
    main()
