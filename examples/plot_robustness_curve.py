"""
=====================================================
Robustness curves of your own models, compared fairly
=====================================================

A robustness curve plots a fitted model's test error against how much of each test row is
lost. Any scikit-learn classifier or pipeline can be measured as it is, never refitted, with
:meth:`~robustclf.evaluation.RobustnessCurveDisplay.from_estimator`; passing the same ``ax``
puts several models on one figure.

Two models scored with the same ``random_state`` see the *same* corrupted test rows, so their
difference is paired: :func:`~robustclf.evaluation.paired_differences` reports it with a
confidence interval, which is how a comparison should be read (not as two bare means).
"""

# %%
# Two models fitted the usual way
# -------------------------------
# The breast-cancer table has 30 columns: ten measurements of a cell nucleus (radius, texture,
# ...), each summarised three ways (``mean``, ``error`` and ``worst``). We fit a gradient
# boosting model, which routes missing values natively, and a logistic regression pipeline,
# which needs an imputer to accept them (here the training mean).
import matplotlib.pyplot as plt
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf.corruption import GroupDeletion, RandomDeletion
from robustclf.evaluation import RobustnessCurveDisplay, paired_differences, summarize_curve

data = load_breast_cancer(as_frame=True)
X, y = data.data, data.target
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                    random_state=0)

models = {
    "gradient boosting": HistGradientBoostingClassifier(random_state=0),
    "logistic regression": make_pipeline(SimpleImputer(), StandardScaler(),
                                         LogisticRegression()),
}
for model in models.values():
    model.fit(X_train, y_train)

# %%
# Two ways of losing features
# ---------------------------
# :class:`~robustclf.corruption.RandomDeletion` deletes a fraction of each test row's features,
# chosen at random; :class:`~robustclf.corruption.GroupDeletion` deletes the same fraction of
# the ten *measurements*, all three statistics of a measurement at once (one failing
# instrument). A deleted entry becomes ``NaN``, an absent value, which each model handles its
# own way. Groups may be given by column name because ``X`` is a DataFrame.
measurements = [name.removeprefix("mean ") for name in X.columns if name.startswith("mean ")]
groups = [[f"mean {m}", f"{m} error", f"worst {m}"] for m in measurements]
corruptions = {
    "random deletion": RandomDeletion(fraction=0.0),
    "group deletion (whole measurements)": GroupDeletion(groups, fraction=0.0),
}
levels = [0.0, 0.2, 0.4, 0.6, 0.8]

# %%
# One curve per model, both on one axis
# -------------------------------------
# Each call scores one fitted model on the test rows corrupted at every level, 20 independent
# deletion draws per level; the band is one standard deviation over the draws. The same
# ``random_state`` in every call gives every model the same draws.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
frames = []
for ax, (title, corruption) in zip(axes, corruptions.items(), strict=True):
    for name, model in models.items():
        display = RobustnessCurveDisplay.from_estimator(
            model, X_test, y_test, corruption=corruption, levels=levels, n_repeats=20,
            random_state=0, name=name, ax=ax, xlabel="fraction of features deleted",
            title=title)
        frames.append(display.frame)
fig.tight_layout()

# %%
# Every display keeps its results in ``display.frame``, a tidy DataFrame with the columns
# :data:`~robustclf.evaluation.CURVE_COLUMNS`: one row per (estimator, repeat, level).
# :func:`~robustclf.evaluation.summarize_curve` reduces it to the mean error (and its spread)
# per estimator and level, the numbers the lines show.
frame = pd.concat(frames, ignore_index=True)
print(frame.head(3).to_string())
summary = summarize_curve(frame)
print(summary.pivot_table(index=["corruption", "level"], columns="estimator", values="mean",
                          sort=False).round(3).to_string())

# %%
# Paired differences with confidence intervals
# --------------------------------------------
# For each corruption and level: the mean over the 20 draws of (logistic regression error -
# gradient boosting error) on the same corrupted rows, with a 95 % Student-t interval. A
# negative difference whose interval excludes 0 means the logistic pipeline makes fewer errors.
differences = paired_differences(frame, reference="gradient boosting")
columns = ["corruption", "level", "mean", "ci_low", "ci_high", "n_pairs"]
print(differences[columns].round(3).to_string(index=False))

# %%
# The logistic pipeline makes fewer errors than gradient boosting at every level of both
# corruptions, and every interval excludes 0 (at level 0 there is no deletion, so the 20
# "draws" are identical and the interval has width 0). The two corruptions do not rank the same
# way for both models, though: the logistic pipeline loses more when whole measurements
# disappear than when the same number of scattered columns does (the three statistics of a
# measurement are correlated, so a column deleted alone is partly made up for by the other two,
# while a group deletion leaves nothing of the measurement); gradient boosting does not. A
# curve under one kind of loss does not predict the other: measure the corruption your data
# will meet.
plt.show()
