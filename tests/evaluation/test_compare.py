"""Paired differences of a curve frame against a reference estimator."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from robustclf.evaluation import paired_differences


def _frame():
    rng = np.random.default_rng(0)
    rows = []
    for level in (0.0, 0.5):
        for repeat in range(6):
            shared = rng.normal(0.3, 0.05)          # the draw both models see
            rows += [("base", level, repeat, shared), ("robust", level, repeat,
                                                        shared - 0.02 + rng.normal(0, 0.003))]
    return pd.DataFrame(rows, columns=["estimator", "level", "repeat", "error"])


def test_pairs_on_repeat_and_level_and_matches_a_paired_t_interval():
    frame = _frame()
    d = paired_differences(frame, "base")
    assert list(d["estimator"]) == ["robust", "robust"] and list(d["level"]) == [0.0, 0.5]
    for _, row in d.iterrows():
        a = frame[(frame.estimator == "robust") & (frame.level == row.level)].error.to_numpy()
        b = frame[(frame.estimator == "base") & (frame.level == row.level)].error.to_numpy()
        low, high = stats.t.interval(0.95, a.size - 1, loc=(a - b).mean(),
                                     scale=stats.sem(a - b))
        assert row["mean"] == pytest.approx((a - b).mean())
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high))
        assert row.ci_high < 0          # paired: the shared draw's noise cancels
    # unpaired, the same means would not be separated: the spread of each error is larger
    assert frame.groupby("estimator").error.std().min() > 5 * d["sem"].max()


def test_score_column_single_pair_and_errors():
    frame = _frame().rename(columns={"error": "score"}).query("repeat == 0")
    d = paired_differences(frame, "robust")
    assert d["n_pairs"].eq(1).all() and d["ci_low"].isna().all()
    with pytest.raises(ValueError, match="reference 'x' is not an estimator"):
        paired_differences(frame, "x")
    with pytest.raises(ValueError, match="missing the column"):
        paired_differences(frame.drop(columns="repeat"), "base")
    with pytest.raises(ValueError, match="confidence"):
        paired_differences(frame, "base", confidence=1.5)
    with pytest.raises(ValueError, match="cannot pair"):
        paired_differences(pd.concat([frame, frame]), "base")
