"""The RoLR experiments (Feng et al. 2014) in fast mode."""

import numpy as np
import pytest

from robustclf.experiments import get_experiment

_COLUMNS = {"estimator", "level", "repeat", "error"}


@pytest.fixture(scope="module")
def simulation():
    return get_experiment("rolr-simulation").run(fast=True, random_state=0, n_jobs=1,
                                                 data_dir=None)


def test_simulation_frames_and_paper_tables(simulation):
    assert [c.name for c in simulation.curves] == ["rolr_simulation_fig2a_parameter_error",
                                                   "rolr_simulation_fig2b_test_error"]
    for curve in simulation.curves:
        assert _COLUMNS <= set(curve.frame.columns)
        assert curve.paper is not None and "RoLR" in curve.paper.index
        assert np.isfinite(curve.frame["error"]).all()
    fig2a = simulation.curves[0].frame
    assert {"LR", "LR+P", "RoLR", "RoLR (no preprocessing)", "LR (raw coef)"} <= set(
        fig2a["estimator"])


def test_simulation_rolr_beats_lr_once_outliers_are_many(simulation):
    for curve in simulation.curves:
        mean = curve.frame.groupby(["estimator", "level"])["error"].mean()
        assert mean["RoLR", 1.0] < mean["LR", 1.0]


def test_simulation_is_reproducible_and_silent(capsys):
    run = get_experiment("rolr-matched-outliers").run
    a = run(fast=True, random_state=3, n_jobs=1, data_dir=None)
    b = run(fast=True, random_state=3, n_jobs=1, data_dir=None)
    for ca, cb in zip(a.curves, b.curves, strict=True):
        assert _COLUMNS <= set(ca.frame.columns)
        np.testing.assert_array_equal(ca.frame["error"], cb.frame["error"])
    assert capsys.readouterr().out == ""


def test_spambase_fast(tmp_path):
    try:
        result = get_experiment("rolr-spambase").run(fast=True, random_state=0, n_jobs=1,
                                                     data_dir=None)
    except FileNotFoundError:
        pytest.skip("spambase is not available (set ROBUSTCLF_DATA)")
    frame = result.curves[0].frame
    assert _COLUMNS <= set(frame.columns)
    assert {"LR", "RoLR", "modified Huber (SGD)"} <= set(frame["estimator"])
    assert frame["error"].between(0, 1).all()
