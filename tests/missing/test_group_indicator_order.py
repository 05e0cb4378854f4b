"""Issue 19: GroupMissingIndicator's output columns are in a documented, deterministic order.

Groups were numbered by ``np.unique`` over their missingness patterns: the flag columns came in
the lexicographic order of the patterns, which changes with the order of the training rows.
They are now in the order of each group's first feature, the never-absent group last.
"""

import numpy as np
import pandas as pd

from robustclf import GroupMissingIndicator

NAN = np.nan
X = np.array([[NAN, 1.0, 2.0, 3.0, NAN],
              [0.0, 1.0, NAN, 3.0, 4.0],
              [0.0, NAN, NAN, 3.0, 4.0],
              [0.0, NAN, NAN, 3.0, 4.0]])


def test_groups_follow_their_first_feature():
    # patterns: x0 & x4 absent in row 0, x2 in rows 1-3, x1 in rows 2-3 (lexicographic order of
    # the patterns gave x1, x2, x0+x4)
    ind = GroupMissingIndicator().fit(X)
    assert [g.tolist() for g in ind.groups_] == [[0, 4], [1], [2], [3]]
    assert ind.get_feature_names_out().tolist() == [
        "missing_x0+x4", "missing_x1", "missing_x2", "missing_any_of_unseen"]
    flags = ind.transform(X)
    assert flags[:, 0].tolist() == [1, 0, 0, 0] and flags[:, 2].tolist() == [0, 1, 1, 1]


def test_order_does_not_depend_on_the_row_order():
    rng = np.random.default_rng(0)
    ref = GroupMissingIndicator().fit(X)
    for _ in range(5):
        rows = rng.permutation(X.shape[0])
        ind = GroupMissingIndicator().fit(X[rows])
        assert [g.tolist() for g in ind.groups_] == [g.tolist() for g in ref.groups_]
        np.testing.assert_array_equal(ind.transform(X), ref.transform(X))


def test_pandas_output_names_match_columns():
    frame = pd.DataFrame(X, columns=["e", "d", "c", "b", "a"])
    out = GroupMissingIndicator().set_output(transform="pandas").fit(frame).transform(frame)
    assert list(out.columns) == ["missing_e+a", "missing_d", "missing_c",
                                 "missing_any_of_unseen"]
    assert out["missing_d"].tolist() == [0, 0, 1, 1]
