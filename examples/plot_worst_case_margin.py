"""
==============================================================
The worst-case margin of a linear model under feature deletion
==============================================================

For a linear model and a labelled test row, an adversary who may delete any features of total
value at most ``N`` removes the features that contribute most to the margin. The margin left
after the most harmful such deletion is the row's *worst-case margin*; the row is certified
correct when it stays positive. :func:`~robustclf.certify.worst_case_margin` computes it for
every row of a fitted model, with no refitting and no sampling, and
:func:`~robustclf.certify.certified_error` counts the rows it flips: the error an omniscient
deleting adversary forces, which no attack can exceed.

This example takes an ordinary scikit-learn pipeline and watches its margins shrink, and its
certified error grow, as the budget ``N`` grows.
"""

# %%
# An ordinary model
# -----------------
# A logistic regression behind a scaler, with a mean imputer in front so that the pipeline
# accepts absent (``NaN``) entries: a deleted feature is then read as its training mean, and
# the certificate computes exactly what the pipeline would predict.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from robustclf.certify import certified_error, worst_case_margin

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                    random_state=0)
model = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression())
model.fit(X_train, y_train)
print(f"clean test error: {1 - model.score(X_test, y_test):.3f}")

# %%
# Worst-case margins at growing budgets
# -------------------------------------
# With the default ``feature_values="uniform"`` every feature costs 1, so ``N`` counts deleted
# features. For unit values and an integer budget the fractional relaxation of the adversary's
# knapsack is exact (Dekel & Shamir, 2008, Lemma 1), so the margins are exact without any
# combinatorial search (``relaxation_is_exact``). The margin is in the units of the model's
# decision function: ``y * decision_function`` before any deletion.
budgets = [0, 1, 2, 3, 4, 6, 8]
margins = {}
errors = {}
for budget in budgets:
    result = worst_case_margin(model, X_test, y_test, budget)
    margins[budget] = result.margin
    errors[budget] = certified_error(model, X_test, y_test, budget)
    print(f"N = {budget}: median worst-case margin {np.median(result.margin):6.2f}, "
          f"certified error {errors[budget].error:.3f} "
          f"(exact: {errors[budget].is_exact}, relaxation exact: "
          f"{result.relaxation_is_exact})")

# %%
# The margins' distribution shrinks, the certified error grows
# ------------------------------------------------------------
# Left: the distribution of the worst-case margins over the test rows, one box per budget
# (the box spans the middle half of the rows, the whiskers reach up to 1.5 times its height
# beyond it; outliers are not drawn). Rows below the dashed line are misclassified by the
# worst deletion of ``N`` features. Right: the fraction of such rows, the certified error. The
# whole distribution moves down with every feature deleted and the rows near zero cross it
# first, so the certified error climbs from the first deletion on, far above the clean error.
fig, (ax_margin, ax_error) = plt.subplots(1, 2, figsize=(10, 4))
ax_margin.boxplot([margins[b] for b in budgets], positions=budgets, widths=0.6,
                  showfliers=False)
ax_margin.axhline(0.0, color="black", linestyle="--", linewidth=1, label="margin 0")
ax_margin.set_xlabel("budget N (features deleted)")
ax_margin.set_ylabel("worst-case margin of a test row")
ax_margin.set_title("Worst-case margins")
ax_margin.legend()

ax_error.plot(budgets, [errors[b].error for b in budgets], marker="o",
              label="certified (worst-case) error")
ax_error.axhline(1 - model.score(X_test, y_test), color="grey", linestyle=":",
                 label="clean error")
ax_error.set_xlabel("budget N (features deleted)")
ax_error.set_ylabel("test error")
ax_error.set_ylim(0, 1)
ax_error.set_title("Certified error")
ax_error.legend()
fig.tight_layout()

# %%
# Which features does the adversary delete?
# -----------------------------------------
# ``attack_mask`` holds, for every row, a deletion that attains its worst-case margin. At
# ``N = 2`` each row loses at most two of its 30 features, one in 15 on average, yet the same
# few measurements are deleted in a large share of the rows: they carry much of the model's
# margin, and they are where it is fragile.
feature_names = load_breast_cancer().feature_names
attack = worst_case_margin(model, X_test, y_test, 2).attack_mask
counts = attack.sum(axis=0)
print(f"mean share of the rows in which a feature is deleted: {counts.mean() / len(y_test):.0%}")
for j in np.argsort(counts)[::-1][:5]:
    print(f"{feature_names[j]:>22}: deleted in {counts[j] / len(y_test):.0%} of the rows")
