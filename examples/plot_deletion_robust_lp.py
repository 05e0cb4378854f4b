"""
=========================================================
Training against a feature-deleting adversary: the LP
=========================================================

A model that puts all its weight on a few features is perfect until those features are
deleted. Dekel & Shamir (2008) train a linear classifier for the threat instead:
:class:`~robustclf.DeletionRobustLP` minimises the hinge loss each training row suffers after
the worst deletion of features of total value ``budget``, while an L-infinity box on the
weights keeps any single feature from dominating. :class:`~robustclf.DeletionRobustPerceptron`
is the paper's online version of the same idea.

This example reruns the paper's sanity check: data whose label is copied into two features, a
standard linear SVM that leans on the copies, and the deletion-robust models that do not.
"""

# %%
# Data with two copies of the label
# ---------------------------------
# :func:`~robustclf.datasets.make_label_copies` draws 1,000 points in 20 dimensions that a
# hyperplane separates, flips 20 % of the labels, and appends two features equal to the
# (noisy) label. The copies predict the training label perfectly; the 20 real features cannot
# do better than the 20 % of flipped labels.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from robustclf import DeletionRobustLP, DeletionRobustPerceptron
from robustclf.corruption import GreedyDeletion
from robustclf.datasets import make_label_copies

X, y = make_label_copies(n_samples=1000, n_features=20, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y,
                                                    random_state=0)
majority = 1 if np.mean(y_train == 1) >= 0.5 else -1
constant_error = np.mean(y_test != majority)
print(f"error of always predicting the training majority class: {constant_error:.3f}")

# %%
# The reference: a linear SVM
# ---------------------------
# The paper's baseline is a hinge-loss linear SVM with a free (unpenalised) bias, as in
# SVMlight: :class:`~sklearn.svm.SVC` with a linear kernel. We also fit it on the 20 real
# features alone: its clean error is what a linear model can still reach once both copies are
# gone.
svm = SVC(kernel="linear").fit(X_train, y_train)
real_only = SVC(kernel="linear").fit(X_train[:, :20], y_train)
real_error = 1 - real_only.score(X_test[:, :20], y_test)
print(f"SVM clean error: {1 - svm.score(X_test, y_test):.3f}")
print(f"SVM on the real features only, clean error: {real_error:.3f}")

# %%
# Deletion-robust models trained for each budget
# ----------------------------------------------
# As in the paper's greedy-adversary experiment, at every budget ``N`` (here a number of
# features: the default ``feature_values="uniform"`` gives every feature value 1) the robust
# models are trained for that budget, then every test row is attacked by
# :class:`~robustclf.corruption.GreedyDeletion`, which deletes the ``N`` features that carry
# most of the row's margin for the model under attack (optimal for unit values). Deleted
# entries are written as raw zeros (``fill=0.0``, the paper's protocol; the SVM does not
# accept ``NaN``, and the library's models read ``NaN`` as 0 anyway). Both robust models run
# at their defaults (box radius ``weight_bound / margin = 10``; one Perceptron pass) with a
# fixed ``random_state``: when the LP has several optimal solutions (as at ``N = 0``, where the
# copies separate the training rows), its randomised warm start decides which one is returned.
budgets = [0, 1, 2, 3, 4, 5, 6]


def greedy_error(model, budget):
    attack = GreedyDeletion(budget=budget, fill=0.0)
    return 1 - model.score(attack.corrupt(X_test, y_test, model=model), y_test)


errors = {"linear SVM": [greedy_error(svm, n) for n in budgets],
          "DeletionRobustLP": [], "DeletionRobustPerceptron": []}
for n in budgets:
    lp = DeletionRobustLP(budget=n, random_state=0).fit(X_train, y_train)
    perceptron = DeletionRobustPerceptron(budget=n, random_state=0).fit(X_train, y_train)
    errors["DeletionRobustLP"].append(greedy_error(lp, n))
    errors["DeletionRobustPerceptron"].append(greedy_error(perceptron, n))
print(f"LP trained for N = {budgets[-1]}: clean error {1 - lp.score(X_test, y_test):.3f}, "
      f"largest |w_j| {np.abs(lp.coef_).max():.3f}, bias {lp.intercept_[0]:.3f}")
for name, curve in errors.items():
    print(f"{name:>24}: " + "  ".join(f"N={n}: {e:.3f}" for n, e in zip(budgets, curve,
                                                                       strict=True)))

# %%
# Where the weight goes
# ---------------------
# The SVM's weight sits on the two copies; the LP trained for ``N = 2`` keeps weight on the
# real features too, because the box caps how much the copies can carry and the training
# adversary deletes them.
lp2 = DeletionRobustLP(budget=2, random_state=0).fit(X_train, y_train)
for name, model in [("linear SVM", svm), ("DeletionRobustLP(budget=2)", lp2)]:
    weights = np.abs(model.coef_.ravel())
    print(f"{name}: share of |w| on the two copies {weights[20:].sum() / weights.sum():.2f}")

# %%
# Error under the greedy adversary
# --------------------------------
# Left: test error against the number of deleted features. Once the attack can delete both
# copies (``N = 2``) the SVM loses far more than the robust models: the LP loses what the real
# features alone cannot recover (it meets the dotted line of the SVM trained without the
# copies), the single-pass Perceptron a little more. Beyond that the adversary deletes real
# features too and every model degrades. Trained for such budgets the LP finds nothing that
# beats its bias against the worst deletion: under attack it sits exactly at the error of
# always predicting the training majority class (dashed line), while the SVM and, from
# ``N = 4``, the Perceptron are driven above that line. (Its weights are then one of many
# optimal solutions, which is why the clean error printed above can still be low.) Right: the
# absolute weights of the SVM and of the LP trained for ``N = 2``, normalised to sum to one.
fig, (ax_error, ax_weights) = plt.subplots(1, 2, figsize=(11, 4))
for (name, curve), marker in zip(errors.items(), "osx", strict=True):
    ax_error.plot(budgets, curve, marker=marker, label=name)
ax_error.axhline(real_error, color="grey", linestyle=":",
                 label="SVM on the real features, clean")
ax_error.axhline(constant_error, color="black", linestyle="--", linewidth=1,
                 label="constant: training majority class")
ax_error.set_xlabel("features deleted by the greedy adversary (N)")
ax_error.set_ylabel("test error")
ax_error.set_ylim(0, 1)
ax_error.set_title("Greedy deletion, models trained for N")
ax_error.legend(loc="upper left")

index = np.arange(X.shape[1])
for offset, (name, model) in zip([-0.2, 0.2], [("linear SVM", svm),
                                                ("DeletionRobustLP(budget=2)", lp2)],
                                 strict=True):
    weights = np.abs(model.coef_.ravel())
    ax_weights.bar(index + offset, weights / weights.sum(), width=0.4, label=name)
ax_weights.set_xticks([0, 5, 10, 15, 20, 21], ["0", "5", "10", "15", "c1", "c2"])
ax_weights.set_xlabel("feature (c1, c2: the two label copies)")
ax_weights.set_ylabel("share of sum |w|")
ax_weights.set_title("Where the weight goes")
ax_weights.legend()
fig.tight_layout()
