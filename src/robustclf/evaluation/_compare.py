"""Paired differences between estimators of a curve frame, with confidence intervals.

Two estimators of one :func:`~robustclf.evaluation.robustness_curve` frame are scored on the same
corrupted test matrix at every (repeat, level) (the corruption seed is shared), so their
difference is paired: its spread over repeats is much smaller than the spread of either error,
and a comparison should report the mean difference with its confidence interval, never two bare
means.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["paired_differences"]

_PAIR_KEYS = ("corruption", "level_name", "level", "repeat")


def paired_differences(frame: pd.DataFrame, reference: str, *, value: str | None = None,
                       confidence: float = 0.95) -> pd.DataFrame:
    """Mean difference ``estimator - reference`` per (estimator, level), with a t interval.

    Rows are paired on the frame's ``corruption``, ``level_name``, ``level`` and ``repeat``
    columns (those present): the repeat (or fold) index identifies the shared corruption draw.

    Parameters
    ----------
    frame : pandas.DataFrame
        A tidy curve frame (``estimator``, ``level``, ``repeat`` and the ``value`` column), as
        returned by :func:`~robustclf.evaluation.robustness_curve`.
    reference : str
        The estimator every other one is compared with (for example the baseline).
    value : str, default=None
        The column to compare: ``"error"`` when present, otherwise ``"score"``.
    confidence : float in (0, 1), default=0.95
        Level of the two-sided Student-t interval of the mean paired difference.

    Returns
    -------
    differences : pandas.DataFrame
        One row per (other estimator, level) in order of appearance, with the grouping columns,
        ``reference``, ``mean`` (mean of ``estimator - reference``), ``ci_low``, ``ci_high``
        (NaN with a single pair), ``sem`` and ``n_pairs``. For an error, a negative difference
        whose interval excludes 0 means the estimator is better than the reference.

    Examples
    --------
    >>> import pandas as pd
    >>> from robustclf.evaluation import paired_differences
    >>> frame = pd.DataFrame({"estimator": ["a"] * 3 + ["b"] * 3, "level": 0.5,
    ...                       "repeat": [0, 1, 2] * 2, "error": [.30, .32, .31, .25, .28, .26]})
    >>> d = paired_differences(frame, "a")
    >>> d[["estimator", "mean", "n_pairs"]].round(3).to_dict("records")
    [{'estimator': 'b', 'mean': -0.047, 'n_pairs': 3}]
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if value is None:
        value = "error" if "error" in frame.columns else "score"
    missing = [c for c in ("estimator", "level", "repeat", value) if c not in frame.columns]
    if missing:
        raise ValueError(f"frame is missing the column(s) {missing}; it has {list(frame.columns)}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")
    names = list(dict.fromkeys(frame["estimator"]))
    if reference not in names:
        raise ValueError(f"reference {reference!r} is not an estimator of the frame; it has "
                         f"{names}.")
    keys = [c for c in _PAIR_KEYS if c in frame.columns]
    base = frame[frame["estimator"] == reference].set_index(keys)[value]
    if base.index.has_duplicates:
        raise ValueError(f"the frame has several rows of {reference!r} per {keys}: cannot pair.")
    group_keys = [k for k in keys if k != "repeat"]
    out = []
    for name in names:
        if name == reference:
            continue
        other = frame[frame["estimator"] == name].set_index(keys)[value]
        diff = (other - base.reindex(other.index)).dropna().rename("diff").reset_index()
        for group, rows in diff.groupby(group_keys, sort=False, dropna=False):
            d = rows["diff"].to_numpy(dtype=float)
            mean, n = float(d.mean()), d.size
            sem = float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan
            half = float(stats.t.ppf(0.5 + confidence / 2, n - 1) * sem) if n > 1 else np.nan
            group = group if isinstance(group, tuple) else (group,)
            out.append({**dict(zip(group_keys, group, strict=True)), "estimator": name,
                        "reference": reference, "mean": mean, "ci_low": mean - half,
                        "ci_high": mean + half, "sem": sem, "n_pairs": n})
    columns = [*group_keys, "estimator", "reference", "mean", "ci_low", "ci_high", "sem",
               "n_pairs"]
    return pd.DataFrame(out, columns=columns)
