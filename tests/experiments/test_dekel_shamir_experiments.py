"""Fast modes of the Dekel & Shamir experiments (the full runs are made by hand)."""

import numpy as np
import pytest

from robustclf.experiments import get_experiment
from robustclf.experiments.dekel_shamir import scale_features

_COLUMNS = {"estimator", "level", "repeat", "error"}


def _data_available(name):
    from robustclf.datasets import load_mnist, load_spambase

    try:
        (load_spambase if name == "spambase" else load_mnist)()
    except (FileNotFoundError, OSError):
        return False
    return True


def _check(result):
    assert result.curves
    for curve in result.curves:
        assert _COLUMNS <= set(curve.frame.columns)
        assert curve.frame["error"].between(0, 1).all()
        assert len(curve.frame) > 0


def test_sanity_fast_lp_survives_deleting_both_copies():
    result = get_experiment("dekel-sanity").run(fast=True, random_state=0, n_jobs=None,
                                                data_dir=None)
    _check(result)
    frame = result.curves[0].frame
    mean = frame.groupby(["estimator", "level"]).error.mean()
    lp = [name for name in frame.estimator.unique() if name.startswith("LP")][0]
    assert mean[(lp, 1)] == 0.0  # one copy left: still perfect
    assert mean[(lp, 2)] < 0.35  # both deleted: the real features carry it (paper: 0.22)
    assert result.curves[0].paper is not None


@pytest.mark.skipif(not (_data_available("spambase") and _data_available("mnist")),
                    reason="spambase / MNIST not found (set ROBUSTCLF_DATA)")
@pytest.mark.parametrize("name", ["dekel-random-deletion", "dekel-greedy"])
def test_real_data_experiments_fast(name):
    _check(get_experiment(name).run(fast=True, random_state=0, n_jobs=None, data_dir=None))


def test_scale_features_keeps_zeros_and_maps_to_unit_interval():
    X = np.array([[0.0, 5.0], [2.0, 0.0], [4.0, 10.0]])
    (Xs,) = scale_features(X)
    np.testing.assert_allclose(Xs.max(axis=0), 1.0)
    assert np.array_equal(Xs == 0, X == 0)
    Xl, Xo = scale_features(X, [X[:1]], log=True)
    np.testing.assert_allclose(Xo, Xl[:1])
    assert np.array_equal(Xl == 0, X == 0)
