"""RoLR with absent (NaN) features at fit time: the centred zero against the raw zero (issue 16).

``RobustLogisticRegression`` reads NaN at fit time as a zero of the *centred* rows of Eq. (2)
(the entry is put at the median of the observed entries); the alternative is the raw zero that
the library's linear models use at prediction time. Both models predict with the absent terms
dropped (``coef_j x_j`` = 0). For each data set, NaN is put at random (MCAR) at the same rate in
the training and the test rows, and the mean test error over the seeds is reported for

* ``centred``: ``fit(X_train_with_nan)`` (the estimator's behaviour);
* ``raw``: ``fit(nan_to_num(X_train_with_nan))`` (raw zero at fit), or through a
  ``StandardScaler`` pipeline the training mean filled in (what the scaler's zero is);
* ``clean``: fitted on the complete training rows.

Data: digits (scikit-learn, pixels / 16, 1,200 training rows, 2 seeds), spambase raw and
standardised (2,300 training rows, 2 seeds; skipped without ``ROBUSTCLF_DATA``), and a Gaussian
simulation with feature means 3 (``p = 20``, 1,500 training rows, logistic labels, 3 seeds).

Usage: python benchmarks/bench_rolr_absent.py [--rates 0.1 0.3]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf._oracles.rolr import digits_split
from robustclf.linear.rolr import RobustLogisticRegression


def _mcar(X, rate, rng):
    X = X.copy()
    X[rng.random(X.shape) < rate] = np.nan
    return X


def compare(X, y, X_test, y_test, rate, seeds, scaler=False):
    """Mean test errors ``{"centred", "raw", "clean"}`` over ``seeds``."""
    errors = {"centred": [], "raw": [], "clean": []}

    def make():
        model = RobustLogisticRegression()
        return make_pipeline(StandardScaler(), model) if scaler else model

    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        X_nan, X_test_nan = _mcar(X, rate, rng), _mcar(X_test, rate, rng)
        raw_fill = np.nanmean(X_nan, axis=0) if scaler else 0.0
        models = {"centred": make().fit(X_nan, y),
                  "raw": make().fit(np.where(np.isnan(X_nan), raw_fill, X_nan), y),
                  "clean": make().fit(X, y)}
        for name, model in models.items():
            errors[name].append(np.mean(model.predict(X_test_nan) != y_test))
    return {name: float(np.mean(values)) for name, values in errors.items()}


def data_sets():
    """``(name, X, y, X_test, y_test, seeds, scaler)`` for each case."""
    rng = np.random.default_rng(0)
    p = 20
    beta = rng.standard_normal(p)
    X = 3.0 + rng.standard_normal((3000, p))
    y = (rng.random(3000) < 1 / (1 + np.exp(-2 * (X - 3) @ beta / np.sqrt(p)))).astype(int)
    for scaler in (False, True):
        yield "gaussian, mean 3", X[:1500], y[:1500], X[1500:], y[1500:], 3, scaler
    X, y, X_test, y_test = digits_split()
    yield "digits", X, y, X_test, y_test, 2, False
    try:
        from robustclf.datasets import load_spambase

        X, y = load_spambase(return_X_y=True)
    except (FileNotFoundError, OSError) as exc:
        print(f"spambase skipped: {exc}")
        return
    order = np.random.default_rng(0).permutation(y.size)
    X, y = np.asarray(X)[order], np.asarray(y)[order]
    for scaler in (False, True):
        yield "spambase", X[:2300], y[:2300], X[2300:], y[2300:], 2, scaler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[0.1, 0.3])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| data | scaler | absent | centred zero | raw zero | clean fit |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, X, y, X_test, y_test, seeds, scaler in data_sets():
        for rate in args.rates:
            err = compare(X, y, X_test, y_test, rate, seeds, scaler)
            print(f"| {name} | {'yes' if scaler else 'no'} | {rate:.0%} | {err['centred']:.4f} "
                  f"| {err['raw']:.4f} | {err['clean']:.4f} |")


if __name__ == "__main__":
    main()
