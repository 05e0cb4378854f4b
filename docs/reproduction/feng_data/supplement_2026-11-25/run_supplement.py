"""Supplement to the 25 Nov 2026 rerun of the Feng et al. reproductions (docs/reproduction/feng.md).

Same data, splits, seeds and outliers as ``robustclf reproduce rolr-spambase | rolr-simulation |
rolr-matched-outliers`` (seed 0, full mode), with RoLR variants the experiments do not run:

* ``intercept_scaling = 1/S``: the constant column weighted as before the rewrite (1 on the raw,
  centred scale; ``S = x_scale_`` is the median centred row norm) -- checks that the change of the
  spambase numbers comes from the intercept's weight and not from the solver;
* ``fit_intercept=False``;
* the default threshold ``"auto"`` with ``n_outliers = n1``;
* ``RobustLogisticRegression()`` with no argument at all (threshold "auto", intercept,
  ``outlier_fraction = 0.1``).

Run from the repository root (about 1 minute on one core)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 ROBUSTCLF_DATA=/work/shared/data \
        .venv/bin/python docs/reproduction/feng_data/supplement_2026-11-25/run_supplement.py
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from robustclf._validation import check_generator
from robustclf.corruption import inject_outliers
from robustclf.datasets import load_spambase, make_contaminated_logistic
from robustclf.linear._rolr_solvers import centred_row_norms, column_medians
from robustclf.linear.rolr import RobustLogisticRegression as RoLR

HERE = Path(__file__).resolve().parent


def _fit(model, X, y):
    """Fit, recording (not raising) the collapse / threshold / convergence warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X, y)
    return dict(
        collapsed=bool(np.all(model.coef_ == 0)),
        removed=(0 if model.threshold_ is None
                 else int(np.count_nonzero(_removed_mask(model, X)))),
        threshold=model.threshold_,
        not_converged=any(issubclass(w.category, ConvergenceWarning) for w in caught),
        n_iter=int(np.max(model.n_iter_)),
    )


def _removed_mask(model, X):
    """Rows removed by the preprocessing threshold (centred norm >= threshold_)."""
    # inlier_mask_ is False for removed and for trimmed rows; recompute the removed ones.
    center = column_medians(X) if model.fit_intercept else None
    return centred_row_norms(X, center) >= model.threshold_


def _rolr_variants(n1: int, *, intercept: bool):
    """(name, factory) pairs; a factory gets the S of a first fit for the 1/S variant."""
    base = dict(fit_intercept=intercept)
    variants = [
        ("RoLR paper threshold", lambda S: RoLR(n_outliers=n1, threshold="paper", **base)),
        ("RoLR no preprocessing", lambda S: RoLR(n_outliers=n1, threshold=None, **base)),
        ("RoLR auto threshold (default)", lambda S: RoLR(n_outliers=n1, **base)),
        ("RoLR() all defaults", lambda S: RoLR()),
    ]
    if intercept:
        variants += [
            ("RoLR paper threshold, intercept_scaling=1/S (old weight)",
             lambda S: RoLR(n_outliers=n1, threshold="paper", intercept_scaling=1.0 / S)),
            ("RoLR no preprocessing, intercept_scaling=1/S (old weight)",
             lambda S: RoLR(n_outliers=n1, threshold=None, intercept_scaling=1.0 / S)),
            ("RoLR paper threshold, fit_intercept=False",
             lambda S: RoLR(n_outliers=n1, threshold="paper", fit_intercept=False)),
        ]
    return variants


def _run_variants(X, y, n1, *, intercept, error_fn, extra):
    rows = []
    for name, make in _rolr_variants(n1, intercept=intercept):
        S = 1.0
        if "1/S" in name:
            first = make(1.0)
            first.set_params(intercept_scaling=1.0)
            _fit(first, X, y)
            S = first.x_scale_
        model = make(S)
        info = _fit(model, X, y)
        rows.append(dict(estimator=name, error=error_fn(model), **info, **extra))
    return rows


def spambase(data_dir, random_state=0):
    X, y = load_spambase(data_dir=data_dir, return_X_y=True)
    levels, repeats = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8], 5
    seeds = check_generator(random_state).integers(0, 2**31 - 1, size=repeats)
    rows = []
    for level in levels:
        for r in range(repeats):
            seed = int(seeds[r])
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y,
                                                      random_state=seed)
            scaler = StandardScaler().fit(X_tr)
            X_tr, X_te = scaler.transform(X_tr), scaler.transform(X_te)
            y_pm, y_te = np.where(y_tr == 1, 1, -1), np.where(y_te == 1, 1, -1)
            clean = LogisticRegression(max_iter=2_000).fit(X_tr, y_pm)
            X_c, y_c, out = inject_outliers(X_tr, y_pm, clean, outlier_ratio=level, scale=10.0,
                                            random_state=seed)
            rows += _run_variants(
                X_c, y_c, int(out.sum()), intercept=True,
                error_fn=lambda m, X_te=X_te, y_te=y_te: float(np.mean(m.predict(X_te) != y_te)),
                extra=dict(level=level, repeat=r, n_outliers=int(out.sum())))
    return pd.DataFrame(rows)


def simulation(matched: bool, random_state=0):
    n, p, repeats, n_test = 1000, 20, 10, 1000
    levels = [round(0.1 * k, 1) for k in range(13)]
    seeds = check_generator(random_state).integers(0, 2**31 - 1, size=repeats)
    rows = []
    for task in ("regression", "classification"):
        for level in levels:
            for r in range(repeats):
                seed = int(seeds[r])
                X, y, beta, out = make_contaminated_logistic(n, p, outlier_ratio=level, task=task,
                                                             random_state=seed)
                rng = check_generator(seed + 1)
                if matched and out.any():
                    norms = np.linalg.norm(X[~out], axis=1)[rng.integers(0, n, out.sum())]
                    X[out] *= (norms / np.linalg.norm(X[out], axis=1))[:, None]
                X_te = rng.standard_normal((n_test, p))
                y_te = np.where(X_te @ beta + 0.5 * rng.standard_normal(n_test) > 0, 1, -1)

                def error(m, task=task, beta=beta, X_te=X_te, y_te=y_te):
                    if task == "regression":
                        c = np.ravel(m.coef_)
                        norm = np.linalg.norm(c)
                        return float(np.linalg.norm((c / norm if norm > 0 else c) - beta))
                    return float(np.mean(m.predict(X_te) != y_te))

                rows += _run_variants(X, y, int(out.sum()), intercept=False,
                                      error_fn=error,
                                      extra=dict(task=task, level=level, repeat=r,
                                                 n_outliers=int(out.sum())))
    return pd.DataFrame(rows)


def _table(frame, by):
    g = frame.groupby(by + ["estimator", "level"])
    summary = g.agg(error=("error", "mean"), std=("error", "std"), collapsed=("collapsed", "sum"),
                    removed=("removed", "mean"), not_converged=("not_converged", "sum"),
                    max_iter_used=("n_iter", "max")).reset_index()
    return summary


def _markdown(frame: pd.DataFrame) -> str:
    """A pandas frame as a markdown table (without the optional ``tabulate`` dependency)."""
    head = [frame.index.name or ""] + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for idx, row in frame.iterrows():
        lines.append("| " + " | ".join([str(idx)] + [str(v) for v in row]) + " |")
    return "\n".join(lines)


def main():
    data_dir = os.environ.get("ROBUSTCLF_DATA")
    out = {}
    out["spambase"] = spambase(data_dir)
    out["simulation"] = simulation(matched=False)
    out["matched"] = simulation(matched=True)
    lines = ["# Supplement: RoLR variants on the Feng et al. protocols (seed 0, full mode)", "",
             "Produced by `run_supplement.py` in this folder; mean error over the repeats, "
             "`collapsed` and `not_converged` are counts of fits, `removed` the mean number of "
             "rows removed by the threshold.", ""]
    for key, frame in out.items():
        frame.to_csv(HERE / f"{key}_variants.csv", index=False, float_format="%.6g")
    for key, frame in out.items():
        by = [] if key == "spambase" else ["task"]
        summary = _table(frame, by)
        summary.to_csv(HERE / f"{key}_variants_summary.csv", index=False, float_format="%.6g")
        lines += [f"## {key}", ""]
        parts = summary.groupby("task") if by else [("spambase", summary)]
        for name, part in parts:
            lines += [f"### {name}", ""]
            wide = part.pivot(index="estimator", columns="level", values="error")
            coll = part.pivot(index="estimator", columns="level", values="collapsed")
            cells = wide.map(lambda v: f"{v:.3f}").astype(str)
            cells = cells.where(coll == 0, cells + " (c" + coll.astype(int).astype(str) + ")")
            lines += [_markdown(cells), ""]
            rem = part.pivot(index="estimator", columns="level", values="removed")
            lines += ["Rows removed by the threshold (mean):", "", _markdown(rem.round(1)),
                      ""]
    lines += ["(cK): K of the repeats collapsed to beta = 0.", ""]
    (HERE / "report.md").write_text("\n".join(lines))
    print((HERE / "report.md").read_text())


if __name__ == "__main__":
    main()
