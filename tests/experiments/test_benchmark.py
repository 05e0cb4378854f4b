"""The benchmark (fast mode), its table, the shared protocol and the outlier-filter baseline.

The fast benchmark's end-to-end check by default is the CLI's (tests/test_cli.py); the checks
on its frame here run it once more and are marked slow.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustclf._registry import THREATS, estimator_entries, get_entry
from robustclf.experiments._protocol import inner_cv, select_and_fit, verdict
from robustclf.experiments._robust_filter import MCDFilterClassifier
from robustclf.experiments.benchmark import (
    BENCHMARK_THREATS,
    benchmark_table,
    robust_vs_baseline,
    run_benchmark,
    write_benchmark,
)


@pytest.fixture(scope="module")
def fast_frame():
    return run_benchmark(mode="fast", random_state=0, progress=False)


@pytest.mark.slow
def test_fast_benchmark_runs_every_model_under_every_threat(fast_frame):
    names = {e.name for e in estimator_entries()} - {"fdrop"}     # fdrop skipped when fast
    assert set(fast_frame["estimator"]) == names
    assert set(fast_frame["threat"]) == set(BENCHMARK_THREATS)
    assert fast_frame["error"].between(0, 1).all()
    linear = {e.name for e in estimator_entries() if e.linear}
    assert set(fast_frame.loc[fast_frame.threat == "worst_case", "estimator"]) == linear - {"fdrop"}
    # the certified worst case is at least the white-box greedy attack's error, chunk by chunk
    keys = ["estimator", "level", "repeat"]
    greedy = fast_frame[fast_frame.threat == "greedy"].set_index(keys)["error"]
    worst = fast_frame[fast_frame.threat == "worst_case"].set_index(keys)["error"]
    assert (worst >= greedy.reindex(worst.index) - 1e-12).all()


@pytest.mark.slow
def test_benchmark_table_ranks_and_intervals(fast_frame):
    long = benchmark_table(fast_frame)
    assert set(long["threat"]) == set(BENCHMARK_THREATS)
    assert (long["ci_low"] <= long["error"] + 1e-12).all()
    assert (long["error"] <= long["ci_high"] + 1e-12).all()
    n = fast_frame.estimator.nunique()
    assert long["rank"].between(1, n).all()
    assert long.groupby("estimator")["overall_rank"].nunique().eq(1).all()


def test_benchmark_table_on_a_known_frame():
    frame = pd.DataFrame({
        "dataset": "d", "threat": "random_deletion", "level": 0.5,
        "estimator": ["a"] * 3 + ["b"] * 3, "repeat": [0, 1, 2] * 2,
        "error": [0.1, 0.2, 0.3, 0.4, 0.4, 0.4]})
    long = benchmark_table(frame).set_index("estimator")
    assert long.loc["a", "error"] == pytest.approx(0.2)
    assert long.loc["a", "rank"] == 1 and long.loc["b", "rank"] == 2
    half = 4.302653 * 0.1 / np.sqrt(3)        # t(0.975, 2) * sd / sqrt(n)
    assert long.loc["a", "ci_high"] == pytest.approx(0.2 + half, rel=1e-5)
    assert long.loc["b", "ci_low"] == pytest.approx(0.4)


@pytest.mark.slow
def test_write_benchmark_page(fast_frame, tmp_path):
    path = write_benchmark(fast_frame, tmp_path, command="robustclf benchmark --fast")
    text = path.read_text()
    assert path.name == "benchmark.md"
    assert "`robustclf benchmark --fast` (mode `fast`)" in text
    for threat in BENCHMARK_THREATS:
        assert (tmp_path / "benchmark_data" / f"{threat}.png").stat().st_size > 1000
    saved = pd.read_csv(tmp_path / "benchmark_data" / "benchmark.csv")
    assert len(saved) == len(fast_frame)
    assert "| estimator | overall rank | clean |" in text


def test_unknown_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        run_benchmark(mode="huge")


def test_registry_threats_and_grids():
    for entry in estimator_entries(available=False):
        assert entry.threats is None or set(entry.threats) <= set(THREATS)
        params = entry.factory().get_params()
        assert set(entry.param_grid) <= set(params), entry.name
    for name in ("hist_gradient_boosting", "imputed_logistic", "random_forest",
                 "robust_filter_logistic"):
        assert not get_entry(name).robust


def test_select_and_fit_uses_the_scorer_and_refits_on_all_rows():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=120, random_state=0)
    calls = []

    def scorer(estimator, X_val, y_val):
        calls.append(len(y_val))
        return -abs(np.log10(estimator.C) - 1)      # prefers C = 10

    chosen = select_and_fit("lr", LogisticRegression(), {"C": [0.1, 10.0]}, X, y,
                            scorer=scorer, cv=inner_cv(0))
    assert chosen.params == {"C": 10.0}
    assert len(calls) == 6                            # 2 candidates x 3 folds
    assert chosen.model.n_features_in_ == 20 and chosen.fit_seconds > 0
    plain = select_and_fit("lr", LogisticRegression(), {}, X, y, scorer=scorer, cv=inner_cv(0))
    assert plain.params == {} and plain.select_seconds == 0.0


def test_select_and_fit_in_parallel_chooses_and_fits_the_same_model():
    """``robustclf benchmark --n-jobs``: joblib workers over the grid change no number."""
    from robustclf.corruption import RandomDeletion
    from robustclf.datasets import load_split
    from robustclf.evaluation import make_corruption_scorer

    split = load_split("digits", random_state=0)
    X, y = split.X_train[:300], split.y_train[:300]
    entry = get_entry("dropout_svc")
    scorer = make_corruption_scorer(RandomDeletion(fraction=0.0), 0.5, random_state=0)
    chosen = [select_and_fit("dropout_svc", entry.factory(), entry.param_grid, X, y,
                             scorer=scorer, cv=inner_cv(0), n_jobs=n_jobs) for n_jobs in (1, 2)]
    assert chosen[0].params == chosen[1].params
    np.testing.assert_array_equal(chosen[0].model.coef_, chosen[1].model.coef_)


def test_verdict_names_the_winning_baseline():
    frame = pd.DataFrame({
        "estimator": ["base"] * 4 + ["robust"] * 4, "level": [0, 0, 1, 1] * 2,
        "repeat": [0, 1] * 4, "error": [0.1, 0.1, 0.2, 0.21, 0.1, 0.1, 0.4, 0.42]})
    text = verdict(frame, ["robust"], ["base"])
    assert "**Best baseline here: `base`**" in text
    assert "**the baseline `base` wins** at level 1" in text


# -- the robust-covariance filter baseline -----------------------------------------------------

def test_filter_drops_gross_outliers_and_keeps_inputs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(190, 4)), rng.uniform(8, 10, size=(10, 4))])
    y = np.r_[(X[:190, 0] > 0).astype(int), np.zeros(10, dtype=int)]
    X_copy = X.copy()
    model = MCDFilterClassifier(outlier_fraction=0.05, n_components=2, random_state=0).fit(X, y)
    assert not model.inlier_mask_[190:].any()
    assert model.inlier_mask_.sum() == 190
    np.testing.assert_array_equal(X, X_copy)
    assert model.coef_.shape == (1, 4)
    np.testing.assert_array_equal(model.predict(X), model.estimator_.predict(X))
    assert model.covariance_estimator_.location_.shape == (2,)   # on 2 principal components


@settings(max_examples=15, deadline=None)
@given(fraction=st.floats(0.0, 0.4), n=st.integers(30, 60))
def test_filter_drops_the_rounded_fraction(fraction, n):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 3))
    y = np.arange(n) % 2
    model = MCDFilterClassifier(outlier_fraction=fraction, random_state=0).fit(X, y)
    assert (~model.inlier_mask_).sum() == int(np.floor(fraction * n + 0.5))
    kept = model.distances_[model.inlier_mask_]
    dropped = model.distances_[~model.inlier_mask_]
    assert dropped.size == 0 or kept.max() <= dropped.min()


def test_filter_errors():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="NaN"):
        MCDFilterClassifier().fit(X, [0, 1, 0, 1])
    with pytest.raises(ValueError, match="outlier_fraction"):
        MCDFilterClassifier(outlier_fraction=1.5).fit(np.ones((4, 2)), [0, 1, 0, 1])
    with pytest.raises(ValueError, match="at most one"):
        MCDFilterClassifier(n_outliers=1, outlier_fraction=0.1).fit(np.eye(4), [0, 1, 0, 1])


def test_every_grid_starts_with_the_registry_setting():
    """``--fast`` keeps the first value of each grid parameter and ``--medium`` the first two:
    listing the registry's own setting first keeps it in every truncated grid, so that no
    model is run at values it was never given (the dropout grids once left out the default
    C = 10, and the fast run replaced every registry setting by the grid's first value)."""
    from robustclf._registry import estimator_entries

    for entry in estimator_entries(available=False):
        params = entry.factory().get_params()
        for name, values in entry.param_grid.items():
            assert params[name] == list(values)[0], (entry.name, name)
            assert len(set(values)) == len(values), (entry.name, name)


def test_robust_vs_baseline_pairs_the_best_of_each_side_on_the_chunks():
    rng = np.random.default_rng(0)
    rows = []
    for est, shift in [("dropout_svc", 0.0), ("fdrop", 0.3), ("logistic", 0.1),
                       ("random_forest", 0.05)]:
        for level in (1, 2):
            for rep in range(6):
                rows.append({"dataset": "d", "threat": "greedy", "level": level, "repeat": rep,
                             "estimator": est, "error": 0.2 + shift + 0.01 * rep
                             + 0.001 * rng.random()})
    frame = pd.DataFrame(rows)
    duel = robust_vs_baseline(frame).iloc[0]
    assert (duel.robust, duel.baseline) == ("dropout_svc", "random_forest")
    assert duel.difference == pytest.approx(-0.05, abs=2e-3)
    assert duel.ci_high < 0 and duel.winner == "dropout_svc"
    frame.loc[frame.estimator == "random_forest", "error"] -= 0.1   # now the baseline wins
    assert robust_vs_baseline(frame).iloc[0].winner == "random_forest"
    tie = frame.assign(error=np.where(frame.estimator == "random_forest",
                                      frame.error + 0.05 + 0.05 * (frame.repeat % 2 - 0.5),
                                      frame.error))
    assert robust_vs_baseline(tie).iloc[0].winner == "tie"


def test_robust_vs_baseline_without_one_side_is_empty():
    frame = pd.DataFrame({"dataset": "d", "threat": "greedy", "level": 1, "repeat": [0, 1],
                          "estimator": "logistic", "error": [0.1, 0.2]})
    duels = robust_vs_baseline(frame)
    assert duels.empty and "winner" in duels.columns
