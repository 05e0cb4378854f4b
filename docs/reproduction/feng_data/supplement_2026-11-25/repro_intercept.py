"""Minimal reproduction: the intercept of RobustLogisticRegression after the 25 Nov 2026 rewrite.

With ``fit_intercept=True`` the constant column ``intercept_scaling`` (default 1) is appended to
rows scaled to median norm 1. When the trimmed sum covers every kept row (``n_outliers=0``, or
the threshold removed every outlier), Eq. (2) is solved in closed form,
``(beta, b) ~ (sum_i y_i z_i, c sum_i y_i)``, so the decision value is proportional to
``sum_i y_i <z_i, z> + c**2 (n_+ - n_-)``: the class imbalance enters with weight ``c**2``.
Before the rewrite the constant 1 sat beside the raw centred rows, i.e. ``c = 1/S`` in today's
units (``S = x_scale_``, 4.4 on the §6 data, 5.1 on standardised spambase), a weight
``S**2`` (20-26) times smaller. ``intercept_scaling = 1/S`` reproduces the old predictions.

Run from the repository root: ``.venv/bin/python <this file>`` (a few seconds;
``ROBUSTCLF_DATA`` must point to the data folder for the spambase half).
"""

import os
import warnings

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from robustclf._validation import check_generator
from robustclf.datasets import load_spambase, make_contaminated_logistic
from robustclf.linear.rolr import RobustLogisticRegression

warnings.simplefilter("ignore")


def report(name, X, y, X_te, y_te):
    print(f"{name}: n_+ - n_- = {int((y > 0).sum() - (y < 0).sum())} of {y.size}")
    S = RobustLogisticRegression(n_outliers=0).fit(X, y).x_scale_
    for label, params in [("default intercept (c = 1)", {}),
                          ("intercept_scaling = 1/S (old weight)", dict(intercept_scaling=1 / S)),
                          ("fit_intercept=False", dict(fit_intercept=False))]:
        model = RobustLogisticRegression(n_outliers=0, **params).fit(X, y)
        error = np.mean(model.predict(X_te) != y_te)
        print(f"  {label:38s} test error {error:.3f}   S = {S:.2f}")


# §6 clean data (no outliers), the seed of repeat 4 of `robustclf reproduce rolr-simulation`
seed = int(check_generator(0).integers(0, 2**31 - 1, size=10)[4])
X, y, beta, _ = make_contaminated_logistic(1000, 20, task="classification", random_state=seed)
rng = np.random.default_rng(1)
X_te = rng.standard_normal((5000, 20))
y_te = np.where(X_te @ beta + 0.5 * rng.standard_normal(5000) > 0, 1, -1)
report("Feng §6, p = 20, clean", X, y, X_te, y_te)

# spambase, standardised, 70/30 split, no outliers
X, y = load_spambase(data_dir=os.environ.get("ROBUSTCLF_DATA"), return_X_y=True)
X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_tr)
report("spambase, clean", scaler.transform(X_tr), np.where(y_tr == 1, 1, -1),
       scaler.transform(X_te), np.where(y_te == 1, 1, -1))
