"""The FeatureBoost reproductions in fast mode: registered, tidy, and honest about their frames."""

import numpy as np
import pandas as pd
import pytest

from robustclf.datasets import get_data_home
from robustclf.experiments import get_experiment
from robustclf.experiments.featureboost import LEARN, improvement_frame


def test_experiments_are_registered():
    for name in ("featureboost-threshold", "featureboost-votes"):
        assert get_experiment(name).paper.startswith("J. O'Sullivan")


def test_improvement_is_learn_error_minus_method_error_in_points():
    raw = pd.DataFrame({
        "learner": "DT", "kind": "features", "level": 0.4, "repeat": [0, 0, 1, 1],
        "estimator": [LEARN, "FeatureBoost"] * 2, "error": [0.2, 0.05, 0.1, 0.15],
        "fit_seconds": 0.0, "predict_seconds": 0.0})
    out = improvement_frame(raw)
    assert list(out["estimator"]) == ["FeatureBoost"] * 2
    np.testing.assert_allclose(out["error"], [15.0, -5.0])


def test_threshold_fast_mode():
    result = get_experiment("featureboost-threshold").run(fast=True, random_state=0, n_jobs=1,
                                                         data_dir=None)
    names = {c.name for c in result.curves}
    assert "threshold_dt_features_improvement" in names
    assert "threshold_dt_groups_improvement" in names
    for curve in result.curves:
        frame = curve.frame
        assert {"estimator", "level", "repeat", "error"} <= set(frame.columns)
        assert set(frame["repeat"]) == {0, 1} and curve.spread == "sem"
        assert curve.paper is None  # the paper gives figures only
    dt = next(c.frame for c in result.curves if c.name == "threshold_dt_features_improvement")
    assert {"FeatureBoost", "MIXTURE", "AdaBoost", "AdaBoost (depth 3)",
            "FeatureBoost (groups)"} == set(dt["estimator"])
    # no corruption, no difference for the deterministic AdaBoost-over-a-tree == the tree
    clean = dt[(dt["level"] == 0) & (dt["estimator"] == "AdaBoost")]
    assert (clean["error"] == 0).all()


def test_votes_fast_mode():
    try:
        get_data_home()
        from robustclf.datasets import load_votes
        load_votes()
    except (FileNotFoundError, OSError, ValueError):
        pytest.skip("house_votes_84 is not available")
    result = get_experiment("featureboost-votes").run(fast=True, random_state=0, n_jobs=1,
                                                      data_dir=None)
    assert {c.name for c in result.curves} >= {"votes_dt_features_improvement",
                                               "votes_knn_features_improvement"}
