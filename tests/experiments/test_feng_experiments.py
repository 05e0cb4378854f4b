"""The RoLR experiments (Feng et al. 2014) in fast mode, and their robust-covariance baseline."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2
from sklearn.covariance import MinCovDet
from sklearn.linear_model import LogisticRegression

from robustclf.datasets import make_contaminated_logistic
from robustclf.evaluation import paired_differences
from robustclf.experiments import get_experiment
from robustclf.experiments._robust_filter import MCDFilterClassifier, filter_mask
from robustclf.linear.rolr import RobustLogisticRegression

_COLUMNS = {"estimator", "level", "repeat", "error"}
_FILTERS = {"MCD filter + LR", "MCD filter (chi2) + LR"}


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
        assert _FILTERS <= set(curve.frame["estimator"])
    fig2a = simulation.curves[0].frame
    assert {"LR", "LR+P", "RoLR", "RoLR (no preprocessing)", "LR (raw coef)"} <= set(
        fig2a["estimator"])


def test_simulation_rolr_beats_lr_once_outliers_are_many(simulation):
    for curve in simulation.curves:
        mean = curve.frame.groupby(["estimator", "level"])["error"].mean()
        assert mean["RoLR", 1.0] < mean["LR", 1.0]


def test_simulation_filter_removes_the_paper_outliers(simulation):
    """§6's outliers (norm ~26) are the n1 most outlying rows for MinCovDet: all removed."""
    frame = simulation.curves[0].frame
    mcd = frame[frame["estimator"] == "MCD filter + LR"]
    assert (mcd["removed_authentic"] == 0).all()
    n1 = np.floor(mcd["level"] * 250 + 0.5).astype(int)
    np.testing.assert_array_equal(mcd["removed_outliers"], n1)


def test_paired_table_is_paired_differences(simulation):
    """The text's paired table holds evaluation.paired_differences' mean and interval."""
    curve = simulation.curves[1]
    diff = paired_differences(curve.frame, "RoLR")
    row = diff[(diff["estimator"] == "LR") & (diff["level"] == 1.0)].iloc[0]
    assert "| LR - RoLR |" in curve.intro
    assert f"{row['mean']:+.3f} [{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]" in curve.intro


def test_simulation_is_reproducible_and_silent(capsys):
    run = get_experiment("rolr-matched-outliers").run
    a = run(fast=True, random_state=3, n_jobs=1, data_dir=None)
    b = run(fast=True, random_state=3, n_jobs=1, data_dir=None)
    for ca, cb in zip(a.curves, b.curves, strict=True):
        assert _COLUMNS <= set(ca.frame.columns)
        np.testing.assert_array_equal(ca.frame["error"], cb.frame["error"])
    assert capsys.readouterr().out == ""


def test_correlated_rho_zero_is_the_simulation_and_limit_is_sigma_beta(simulation):
    result = get_experiment("rolr-correlated").run(fast=True, random_state=0, n_jobs=1,
                                                   data_dir=None)
    reg = result.curves[0].frame
    assert {"RoLR", "RoLR (MCD-whitened)", "Eq. (2) population limit"} <= set(reg["estimator"])
    assert reg["cosine"].between(-1, 1).all()
    # rho = 0 draws the §6 sample of the same seed (lambda = 0.5): RoLR's error is the same
    sim = simulation.curves[0].frame
    ours = reg[(reg["estimator"] == "RoLR") & (reg["level"] == 0.0)]["error"].to_numpy()
    theirs = sim[(sim["estimator"] == "RoLR") & (sim["level"] == 0.5)]["error"].to_numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)
    limit = reg[reg["estimator"] == "Eq. (2) population limit"].set_index(["level", "repeat"])
    np.testing.assert_allclose(limit.loc[0.0, "cosine"], 1.0)
    assert (limit.loc[0.9, "cosine"] < 0.9).all()
    assert "Mean cosine between the fitted direction and beta*" in result.curves[0].intro


def test_rolr_converges_to_sigma_beta_not_beta_under_correlation():
    """The isotropy assumption: on clean AR(1) data RoLR's direction is Sigma beta*."""
    rng = np.random.default_rng(0)
    p, rho = 5, 0.8
    sigma = rho ** np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    beta = np.array([1.0, -1.0, 0.5, 0.0, 0.3])
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((40_000, p)) @ np.linalg.cholesky(sigma).T
    y = np.where(rng.random(len(X)) < 1 / (1 + np.exp(-X @ beta)), 1, -1)
    coef = np.ravel(RobustLogisticRegression(n_outliers=0, threshold=None,
                                             fit_intercept=False).fit(X, y).coef_)
    direction = coef / np.linalg.norm(coef)
    limit = sigma @ beta / np.linalg.norm(sigma @ beta)
    assert direction @ limit > 0.999
    assert direction @ beta == pytest.approx(limit @ beta, abs=0.01)
    assert limit @ beta < 0.9


def test_spambase_fast(tmp_path):
    try:
        result = get_experiment("rolr-spambase").run(fast=True, random_state=0, n_jobs=1,
                                                     data_dir=None)
    except FileNotFoundError:
        pytest.skip("spambase is not available (set ROBUSTCLF_DATA)")
    frame = result.curves[0].frame
    assert _COLUMNS <= set(frame.columns)
    assert {"LR", "RoLR", "modified Huber (SGD)"} | _FILTERS <= set(frame["estimator"])
    assert frame["error"].between(0, 1).all()
    assert "MCD filter + LR - RoLR" in result.curves[0].intro


# --- the baseline itself ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def contaminated():
    X, y, _, out = make_contaminated_logistic(200, 4, outlier_ratio=0.25, random_state=1)
    return X, y, out


def test_filter_removes_the_n_outliers_largest_robust_distances(contaminated):
    X, y, out = contaminated
    X_before = X.copy()
    clf = MCDFilterClassifier(n_outliers=30, random_state=0).fit(X, y)
    np.testing.assert_array_equal(X, X_before)
    distances = MinCovDet(random_state=0).fit(X).mahalanobis(X)
    np.testing.assert_allclose(clf.distances_, distances)
    assert (~clf.inlier_mask_).sum() == 30
    assert clf.distances_[~clf.inlier_mask_].min() >= clf.distances_[clf.inlier_mask_].max()
    assert clf.threshold_ == clf.distances_[clf.inlier_mask_].max()
    reference = LogisticRegression().fit(X[clf.inlier_mask_], y[clf.inlier_mask_])
    np.testing.assert_allclose(clf.coef_, reference.coef_)
    np.testing.assert_allclose(clf.intercept_, reference.intercept_)
    np.testing.assert_array_equal(clf.predict(X), reference.predict(X))
    np.testing.assert_allclose(clf.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(clf.classes_, [-1, 1])


def test_filter_chi2_rule(contaminated):
    X, y, out = contaminated
    clf = MCDFilterClassifier(LogisticRegression(C=0.5), quantile=0.99, random_state=0).fit(X, y)
    assert clf.threshold_ == pytest.approx(chi2.ppf(0.99, 4))
    np.testing.assert_array_equal(clf.inlier_mask_, clf.distances_ <= clf.threshold_)
    assert not clf.inlier_mask_[out].any()       # the uniform [-10, 10] outliers all go
    assert clf.estimator_.C == 0.5


@pytest.mark.parametrize("params, match", [
    (dict(n_outliers=250), r"n_outliers must be less than the number of samples \(250\)"),
    (dict(n_outliers=-1), "n_outliers must be non-negative"),
    (dict(n_outliers=2.5), "n_outliers must be a non-negative integer"),
    (dict(quantile=1.0), r"quantile must be a real number in \(0, 1\), got 1.0"),
])
def test_filter_bad_parameters(contaminated, params, match):
    X, y, _ = contaminated
    with pytest.raises(ValueError, match=match):
        MCDFilterClassifier(random_state=0, **params).fit(X, y)


def test_filter_chi2_rule_that_removes_everything_is_an_error():
    with pytest.raises(ValueError, match="the chi-square rule removed every row"):
        filter_mask(np.array([50.0, 60.0]), 2)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 100, allow_nan=False), min_size=2, max_size=40),
       st.integers(0, 39))
def test_filter_mask_removes_exactly_n_outliers_of_largest_distance(values, n1):
    distances = np.asarray(values)
    n1 = min(n1, len(distances) - 1)
    keep, threshold = filter_mask(distances, 3, n1)
    assert (~keep).sum() == n1
    assert threshold == distances[keep].max()
    if n1:
        assert distances[~keep].min() >= threshold


def test_filter_falls_back_on_gesvd_when_the_pca_svd_does_not_converge(monkeypatch):
    """LAPACK's gesdd can fail to converge (a benchmark fold of contaminated THRESHOLD); the
    filter then takes the principal components from gesvd: the same distances, the same rows."""
    import robustclf.experiments._robust_filter as robust_filter

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 40))
    X[:10] *= 8.0
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    reference = MCDFilterClassifier(n_outliers=10, n_components=5, random_state=0).fit(X, y)

    class FailingPCA(robust_filter.PCA):
        def fit_transform(self, X, y=None):
            raise np.linalg.LinAlgError("SVD did not converge")

    monkeypatch.setattr(robust_filter, "PCA", FailingPCA)
    fallback = MCDFilterClassifier(n_outliers=10, n_components=5, random_state=0).fit(X, y)
    np.testing.assert_allclose(fallback.distances_, reference.distances_, rtol=1e-8)
    np.testing.assert_array_equal(fallback.inlier_mask_, reference.inlier_mask_)
