"""Linear classifiers robust to missing and corrupted features.

Each estimator stores ``coef_``, ``intercept_`` and ``classes_`` and predicts through the shared
plumbing of :mod:`robustclf.linear._base`, so every one of them can be certified
(:mod:`robustclf.certify`) and attacked by the linear greedy adversary.

DeletionRobustLP            Dekel & Shamir (2008) Eq. (4): LP robust to value-budgeted deletion
DeletionRobustPerceptron    Dekel & Shamir (2008) §3: cube-projected Perceptron, averaged
FDROPClassifier             Globerson & Roweis (2006): hinge loss against K deleted features
DropoutSVC                  Chen et al. (2014): hinge loss marginalised over dropout noise
DropoutLogisticRegression   Chen et al. (2014): logistic loss marginalised over dropout noise
MCFClassifier               van der Maaten et al. (2013): marginalised corrupted features
ExplicitCorruptionClassifier  any estimator trained on explicitly corrupted copies
RobustLogisticRegression    Feng et al. (2014): RoLR, trimmed correlation against outliers
"""

from .deletion_lp import DeletionRobustLP
from .deletion_perceptron import DeletionRobustPerceptron
from .dropout import DropoutLogisticRegression, DropoutSVC
from .fdrop import FDROPClassifier
from .mcf import ExplicitCorruptionClassifier, MCFClassifier, explicit_corruption
from .rolr import RobustLogisticRegression

__all__ = [
    "DeletionRobustLP",
    "DeletionRobustPerceptron",
    "DropoutLogisticRegression",
    "DropoutSVC",
    "ExplicitCorruptionClassifier",
    "FDROPClassifier",
    "MCFClassifier",
    "RobustLogisticRegression",
    "explicit_corruption",
]
