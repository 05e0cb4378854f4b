"""
NaN at prediction time, across models
=====================================

A model trained on complete data meets rows with missing entries once deployed: a sensor
dies, a lab test was not ordered. Every estimator of robustclf takes such an entry as
``np.nan`` and gives it the meaning its own method has: a linear model drops the term
``w_j x_j``, the geometric margin measures the row in the subspace of its present features,
FeatureBoost lets the experts that need the absent feature sleep. scikit-learn models need an
imputer in front of them, or a native missing-value mechanism such as
:class:`~sklearn.ensemble.HistGradientBoostingClassifier`'s.

This example fits several models on complete data once, then predicts on test rows with a
growing fraction of their entries set to NaN, and draws each model's error curve. The one
table of what NaN means for each estimator is :doc:`/missing_values`.
"""

# %%
# Complete training data
# ----------------------
# The Wisconsin breast-cancer table bundled with scikit-learn: 30 features, 569 rows, split in
# half (stratified).
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf import DropoutLogisticRegression, FeatureBoostClassifier, GeometricMarginSVC
from robustclf.corruption import RandomDeletion
from robustclf.evaluation import RobustnessCurveDisplay, fitted_robustness_curve

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                    random_state=0)

# %%
# The models, fitted once on complete rows
# ----------------------------------------
# The linear models sit behind a :class:`~sklearn.preprocessing.StandardScaler`, which passes
# NaN through: for them an absent entry then contributes nothing in the *scaled* space, i.e.
# counts as the training mean in raw units. The scikit-learn logistic regression needs an
# explicit imputer (here the training mean, which is the same choice made explicit); the
# histogram gradient boosting routes NaN down the branch its training chose (with no NaN in
# training, the branch with the most samples).
models = {
    "LogisticRegression + mean imputer": make_pipeline(
        StandardScaler(), SimpleImputer(strategy="mean"), LogisticRegression()),
    "HistGradientBoosting (NaN native)": HistGradientBoostingClassifier(random_state=0),
    "DropoutLogisticRegression": make_pipeline(StandardScaler(),
                                               DropoutLogisticRegression(q=0.3)),
    "GeometricMarginSVC": make_pipeline(StandardScaler(), GeometricMarginSVC(C=0.1)),
    "FeatureBoostClassifier (trees)": FeatureBoostClassifier(random_state=0),
}
for model in models.values():
    model.fit(X_train, y_train)

# %%
# Entries deleted at random at prediction time
# --------------------------------------------
# :class:`~robustclf.corruption.RandomDeletion` sets a fraction of each test row's entries to
# NaN (its default ``fill``). :func:`~robustclf.evaluation.fitted_robustness_curve` scores the
# fitted models as they are (never refitted) on the same corrupted rows, five draws per level.
levels = [0.0, 0.2, 0.4, 0.6, 0.8, 0.9]
frame = fitted_robustness_curve(models, X_test, y_test,
                                corruption=RandomDeletion(fraction=0.0), levels=levels,
                                n_repeats=5, random_state=0)
table = frame.groupby(["estimator", "level"])["error"].mean().unstack("level")
print(table.round(3).to_string())

# %%
# Error curves
# ------------
fig, ax = plt.subplots(figsize=(8, 5))
RobustnessCurveDisplay.from_frame(frame, ax=ax,
                                  xlabel="fraction of each test row's entries set to NaN",
                                  title="Models fitted on complete data, NaN at prediction")
ax.legend(fontsize="small")
fig.tight_layout()

# %%
# Reading the curves
# ------------------
# Every model predicts on rows with NaN without a change to its code: none of them needs the
# test rows to be complete. How gracefully it degrades depends on what NaN means for it. The
# three linear models read an absent entry the same way --- as the training mean, through the
# scaler or the imputer --- and their curves stay close together and rise slowly until most
# entries are gone: on these data a linear score built from many correlated measurements
# survives the loss of a good part of them. (The geometric margin, fitted on complete rows,
# is the ordinary SVM; its scaling only matters when absence is present in training, see
# :ref:`sphx_glr_auto_examples_plot_geometric_margin.py`.) Dropout training, which hedges
# against exactly this deletion, changes little here.
#
# The two tree ensembles degrade much faster. Trained without NaN, gradient boosting sends
# every absent entry down the branch that held more training rows, and FeatureBoost's experts
# fall asleep as soon as a split on their path is absent, so that at high deletion few experts
# (or only the fallback on training means) remain. Trees learn what to do with NaN only from
# training rows that have it.
#
# To choose a model for a given level of missingness, score the candidates under that
# corruption in a grid search (:func:`~robustclf.evaluation.make_corruption_scorer`); for the
# rule each estimator applies, see :doc:`/missing_values`.
