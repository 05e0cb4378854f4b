"""Issue 19: ``make_subtype_missing`` never returns a block absent from every row.

With random parts (``block_prob=0.5``, 4 subtypes, 6 blocks) a block belonged to no subtype in
about a third of the seeds (``random_state=0``: block 4), so its features were NaN in every row.
"""

import numpy as np
import pytest

from robustclf.datasets import make_subtype_missing


@pytest.mark.parametrize("seed", range(12))
def test_random_parts_give_every_block_to_a_subtype(seed):
    X, _, t, parts = make_subtype_missing(200, random_state=seed, return_subtypes=True)
    assert parts.any(axis=0).all() and parts.any(axis=1).all()
    assert (~np.isnan(X)).any(axis=0).all()


def test_random_parts_only_give_orphan_blocks_to_drawable_subtypes():
    for seed in range(10):
        X, _, t, parts = make_subtype_missing(300, n_subtypes=3, block_prob=0.2,
                                              subtype_probs=[0, 1, 1], random_state=seed,
                                              return_subtypes=True)
        assert parts[1:].any(axis=0).all() and (t > 0).all()
        assert (~np.isnan(X)).any(axis=0).all()


@pytest.mark.parametrize("probs, match", [
    (None, r"block\(s\) \[1\] belong to no subtype"),
    ([0.0, 1.0], r"block\(s\) \[0, 1\] belong to no subtype \(of positive probability"),
])
def test_a_given_table_with_an_orphan_block_is_refused(probs, match):
    table = np.array([[True, False, False], [False, False, True]])
    with pytest.raises(ValueError, match=match):
        make_subtype_missing(50, n_subtypes=2, n_blocks=3, block_size=1,
                             subtype_blocks=table, subtype_probs=probs, random_state=0)


def test_a_sample_missing_a_block_is_refused():
    table = [[True, False], [False, True]]
    with pytest.raises(ValueError, match=r"^no row of the 1 drawn shows block\(s\) \[[01]\].*"
                       r"draw more samples"):
        make_subtype_missing(1, n_subtypes=2, n_blocks=2, block_size=2, subtype_blocks=table,
                             random_state=0)
