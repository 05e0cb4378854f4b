"""Measure and plot how classifiers degrade as their test features are corrupted.

:func:`robustness_curve` fits each estimator once per repeat (or fold) and scores it on the test
set corrupted at every level, returning a tidy :class:`pandas.DataFrame`;
:func:`summarize_curve` reduces it to mean, standard deviation and standard error per
(estimator, level); :class:`RobustnessCurveDisplay` plots it (matplotlib is imported only when
plotting). :func:`certified_curve` gives the exact worst-case error of linear models against a
deletion budget in the same format.
"""

from ._certified import certified_curve
from ._curve import CURVE_COLUMNS, robustness_curve, summarize_curve
from ._display import RobustnessCurveDisplay

__all__ = [
    "CURVE_COLUMNS",
    "RobustnessCurveDisplay",
    "certified_curve",
    "robustness_curve",
    "summarize_curve",
]
