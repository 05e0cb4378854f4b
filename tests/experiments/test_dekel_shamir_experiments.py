"""Fast modes of the Dekel & Shamir experiments (the full runs are made by hand)."""

import numpy as np
import pytest

from robustclf.experiments import get_experiment
from robustclf.experiments.dekel_shamir import _repeat_indices, scale_features

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
    # the margin-sensitivity table: every margin, the same draws, both copies deleted
    sens = result.curves[1].frame
    assert result.curves[1].name == "sanity_margin_sensitivity"
    assert set(sens["level"]) == {0.0, 0.25} and set(sens["level_name"]) == {"margin"}
    assert set(sens["repeat"]) == set(frame["repeat"])
    both = frame[(frame["estimator"] == lp) & (frame["level"] == 2)].set_index("repeat").error
    at_025 = sens[(sens["estimator"] == lp) & (sens["level"] == 0.25)].set_index("repeat").error
    np.testing.assert_allclose(at_025.sort_index(), both.sort_index())  # same draw, same model


def test_sanity_margins_parameter_and_split_match_the_catalog():
    from robustclf.datasets import load_split
    from robustclf.experiments.dekel_shamir import _label_copies_split, run_sanity

    d = load_split("label_copies", random_state=7)
    X_train, X_test, y_train, y_test, values, groups = _label_copies_split(7, 0.25)
    np.testing.assert_array_equal(X_train, d.X_train)
    np.testing.assert_array_equal(y_test, d.y_test)
    np.testing.assert_array_equal(values, d.feature_values)
    assert [list(g) for g in groups] == [list(g) for g in d.groups]
    # a larger margin moves every point away from the clean hyperplane
    wide = _label_copies_split(7, 1.0)[0]
    assert not np.allclose(wide, X_train)
    sens = run_sanity(fast=True, margins=[0.5]).curves[1].frame
    assert set(sens["level"]) == {0.5}
    with pytest.raises(ValueError, match="margin"):
        run_sanity(fast=True, margins=[-1.0])


def test_svm_baseline_has_a_free_bias():
    from sklearn.svm import SVC

    from robustclf.experiments.dekel_shamir import _svm

    rng = np.random.default_rng(0)
    X = rng.random((80, 3))
    y = np.where(X[:, 0] + 5.0 > 5.5, 1, -1)  # the bias is far from 0: a penalty would bite
    model = _svm(10.0).fit(X + 5.0, y)
    ref = SVC(kernel="linear", C=10.0).fit(X + 5.0, y)
    np.testing.assert_allclose(model.intercept_, ref.intercept_)
    # shifting the data moves only the bias: the weights are those of the unshifted fit
    np.testing.assert_allclose(model.coef_, _svm(10.0).fit(X, y).coef_, atol=1e-4)  # libsvm tol


def test_paired_table_cells_are_mean_and_interval():
    import pandas as pd

    from robustclf.experiments.dekel_shamir import paired_table

    frame = pd.DataFrame({"estimator": ["SVM"] * 3 + ["LP"] * 3, "level": 1,
                          "repeat": [0, 1, 2] * 2, "error": [.30, .32, .31, .25, .28, .26]})
    table = paired_table(frame)
    assert list(table.index) == ["LP"] and list(table.columns) == ["N = 1"]
    # differences -0.05, -0.04, -0.05: mean -0.0467, sem 0.0033, t(0.975, 2) = 4.303
    assert table.loc["LP", "N = 1"] == "-0.047 [-0.061, -0.032]"
    assert list(paired_table(frame, level_label="margin").columns) == ["margin = 1"]
    assert paired_table(frame, "LP").loc["SVM", "N = 1"] == "+0.047 [+0.032, +0.061]"


_needs_data = pytest.mark.skipif(
    not (_data_available("spambase") and _data_available("mnist")),
    reason="spambase / MNIST not found (set ROBUSTCLF_DATA)")


@_needs_data
def test_random_deletion_fast_runs_the_requested_repeat():
    result = get_experiment("dekel-random-deletion").run(fast=True, random_state=0, n_jobs=None,
                                                         data_dir=None, repeats=[1])
    _check(result)
    frame = result.curves[0].frame
    assert set(frame["repeat"]) == {1}
    assert set(frame["estimator"]) == {"LP", "SVM", "FDROP"}


@_needs_data
def test_greedy_fast_certified_error_bounds_the_greedy_attack():
    result = get_experiment("dekel-greedy").run(fast=True, random_state=0, n_jobs=None,
                                                data_dir=None)
    _check(result)
    curves = {c.name: c.frame for c in result.curves}
    assert set(curves) == {f"fig2_spambase_{v}_{k}" for v in ("uniform", "mi")
                           for k in ("greedy", "certified")}
    for values in ("uniform", "mi"):
        key = ["estimator", "repeat", "level"]
        both = curves[f"fig2_spambase_{values}_greedy"].merge(
            curves[f"fig2_spambase_{values}_certified"], on=key, suffixes=("", "_cert"))
        assert len(both) == len(curves[f"fig2_spambase_{values}_greedy"]) > 0
        assert set(both["repeat"]) == {0, 1}  # every fold is certified, not only the first
        # the certificate is what the greedy attack achieves, or more
        np.testing.assert_allclose(both["error_lower"], both["error"], atol=1e-12)
        assert (both["error_cert"] >= both["error"] - 1e-12).all()
        if values == "uniform":  # 0/1 values, integer N: the greedy attack is optimal
            assert both["is_exact"].all()
            np.testing.assert_allclose(both["error_cert"], both["error"], atol=1e-12)
    assert "FDROP" not in set(curves["fig2_spambase_mi_greedy"]["estimator"])
    # the paper's single-pass Perceptron beside the 5-epoch variant, both paired against the SVM
    assert {"Perceptron 1 pass", "Perceptron 5 epochs"} <= set(curves["fig2_spambase_mi_greedy"]
                                                              ["estimator"])
    intro = {c.name: c.intro for c in result.curves}["fig2_spambase_mi_greedy"]
    assert "| minus SVM | N = 2 |" in intro and "| Perceptron 1 pass | " in intro


def test_greedy_estimators_perceptron_epochs():
    from robustclf.experiments.dekel_shamir import PERCEPTRON_EPOCHS, _greedy_estimators

    est = _greedy_estimators(2.0, np.ones(5), {})
    assert {name: est[name].n_epochs for name in PERCEPTRON_EPOCHS} == {
        "Perceptron 1 pass": 1, "Perceptron 5 epochs": 5}
    assert est["SVM"].get_params()["kernel"] == "linear"


def test_repeat_indices():
    assert _repeat_indices(3) == [0, 1, 2]
    assert _repeat_indices(range(5, 7)) == [5, 6]
    assert _repeat_indices([4, 2, 4]) == [2, 4]


def test_scale_features_keeps_zeros_and_maps_to_unit_interval():
    X = np.array([[0.0, 5.0], [2.0, 0.0], [4.0, 10.0]])
    (Xs,) = scale_features(X)
    np.testing.assert_allclose(Xs.max(axis=0), 1.0)
    assert np.array_equal(Xs == 0, X == 0)
    Xl, Xo = scale_features(X, [X[:1]], log=True)
    np.testing.assert_allclose(Xo, Xl[:1])
    assert np.array_equal(Xl == 0, X == 0)


def test_greedy_tune_holds_out_training_rows_and_picks_the_best_candidate():
    from sklearn.model_selection import StratifiedKFold
    from sklearn.svm import LinearSVC

    from robustclf.experiments.dekel_shamir import _greedy_tune

    rng = np.random.default_rng(0)
    z = rng.random(270)  # six noisy copies of one latent: deleting one feature is survivable
    X = np.clip(z[:, None] + 0.2 * rng.standard_normal((270, 6)), 0, None)
    y = np.where(z > 0.5, 1, -1)
    train, test = next(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    grid = {"C": [1e-6, 10.0]}  # the first is nearly constant: it must lose on held-out rows
    best, held_out, scores = _greedy_tune(LinearSVC(C=1.0), grid, X, y, train, 1.0,
                                          np.ones(6), seed=3)
    assert set(held_out) <= set(train) and not set(held_out) & set(test)
    assert len(held_out) == round(len(train) / 9)
    assert best.C in grid["C"] and best.C == 10.0
    assert scores[repr(best)] == min(scores.values()) < max(scores.values())
    # the split depends on the seed only
    _, again, _ = _greedy_tune(LinearSVC(), grid, X, y, train, 1.0, np.ones(6), seed=3)
    np.testing.assert_array_equal(np.sort(held_out), np.sort(again))


def test_grid_candidates_resolve_twice_the_budget_and_drop_duplicates():
    from robustclf.experiments.dekel_shamir import _grid_candidates
    from robustclf.linear.fdrop import FDROPClassifier

    grid = {"C": [1.0, 0.1], "budget": ["N", "2N"]}
    got = {(c.C, c.budget) for c in _grid_candidates(FDROPClassifier(), grid, 3, 57)}
    assert got == {(1.0, 3), (1.0, 6), (0.1, 3), (0.1, 6)}
    assert len(_grid_candidates(FDROPClassifier(), grid, 0, 57)) == 2  # 2N = N at N = 0


@_needs_data
def test_greedy_fast_tuned_reports_choices_from_the_grid():
    from robustclf.experiments.dekel_shamir import _FAST_TUNE_GRIDS

    result = get_experiment("dekel-greedy").run(fast=True, random_state=0, n_jobs=None,
                                                data_dir=None, parts=["spambase_uniform"],
                                                tune=True)
    _check(result)
    frame = {c.name: c.frame for c in result.curves}["fig2_spambase_uniform_tuned_greedy"]
    assert set(frame["estimator"]) == {"LP", "Perceptron 1 pass", "Perceptron 5 epochs", "SVM",
                                       "FDROP"}
    for name, chosen in zip(frame["estimator"], frame["chosen"], strict=True):
        params = dict(kv.split("=") for kv in chosen.split())
        for key, values in _FAST_TUNE_GRIDS[name.split()[0]].items():
            assert float(params[key]) in values
        assert float(params.get("budget", 2)) == 2  # trained for the attack budget N
    assert frame["tune_error"].between(0, 1).all()
