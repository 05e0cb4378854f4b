"""Measure and plot how classifiers degrade as their test features are corrupted.

Models you already have: :func:`fitted_robustness_curve` scores fitted estimators (pipelines,
models loaded from disk) on test data corrupted at several levels, never refitting them, and
returns a tidy :class:`pandas.DataFrame`; :func:`fitted_certified_curve` gives the exact
worst-case error of fitted linear models against a deletion budget in the same format;
:meth:`RobustnessCurveDisplay.from_estimator` and
:meth:`RobustnessCurveDisplay.from_certified_estimator` plot them.

Models to compare: :func:`robustness_curve` and :func:`certified_curve` fit each estimator once per
repeat (or fold) and then score it by the same code (``refit=False`` makes them the fitted-model
functions). :func:`summarize_curve` reduces a frame to mean, standard deviation and standard error
per (estimator, level); :class:`RobustnessCurveDisplay` plots it (matplotlib is imported only when
plotting).

Model selection: :func:`make_corruption_scorer` and :func:`make_certified_scorer` build scorers for
:class:`~sklearn.model_selection.GridSearchCV` and :func:`~sklearn.model_selection.cross_validate`
that score a model under a corruption, or under the certified worst case.

Every curve takes ``scoring=``: the error rate by default, or any scikit-learn scorer.
"""

from ._certified import CERTIFIED_COLUMNS, certified_curve, fitted_certified_curve
from ._compare import paired_differences
from ._curve import robustness_curve, summarize_curve
from ._display import RobustnessCurveDisplay
from ._fitted import CURVE_COLUMNS, SCORED_CURVE_COLUMNS, fitted_robustness_curve
from ._scorers import make_certified_scorer, make_corruption_scorer

__all__ = [
    "CERTIFIED_COLUMNS",
    "CURVE_COLUMNS",
    "SCORED_CURVE_COLUMNS",
    "RobustnessCurveDisplay",
    "certified_curve",
    "fitted_certified_curve",
    "fitted_robustness_curve",
    "make_certified_scorer",
    "make_corruption_scorer",
    "paired_differences",
    "robustness_curve",
    "summarize_curve",
]
