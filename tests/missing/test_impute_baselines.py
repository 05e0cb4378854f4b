"""Imputation baselines of Chechik et al. (2007), §4."""

import copy
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC

from robustclf.datasets import make_structurally_missing
from robustclf.missing import (
    GaussianMixtureImputer,
    GroupMissingIndicator,
    make_imputation_baseline,
)
from robustclf.missing.impute import BASELINES


def test_group_indicator_detects_blocks_and_unseen_features():
    X, _, blocks = make_structurally_missing(200, n_blocks=3, block_size=2,
                                             missing_prob=[0.5, 0.5, 0.0], random_state=0,
                                             return_blocks=True)
    ind = GroupMissingIndicator().fit(X)
    found = sorted(tuple(g) for g in ind.groups_[:-1])
    assert found == sorted(tuple(b) for b in blocks[:2])
    np.testing.assert_array_equal(ind.unseen_features_, blocks[2])
    flags = ind.transform(X)
    assert flags.shape == (200, 3)
    np.testing.assert_array_equal(flags[:, 2], 0.0)  # never absent in training
    X_test = X[:5].copy()
    X_test[0, blocks[2][0]] = np.nan  # absent only at test time
    assert ind.transform(X_test)[0, 2] == 1.0


def test_gaussian_mixture_imputer_fills_only_absent_entries():
    rng = np.random.default_rng(0)
    centers = np.array([[5.0, 5.0, 5.0], [-5.0, -5.0, -5.0]])
    X = centers[rng.integers(0, 2, 300)] + 0.3 * rng.standard_normal((300, 3))
    X_miss = X.copy()
    X_miss[rng.random(X.shape) < 0.2] = np.nan
    X_miss[np.isnan(X_miss).all(axis=1), 0] = X[np.isnan(X_miss).all(axis=1), 0]
    imp = GaussianMixtureImputer(n_components=2, random_state=0)
    filled = imp.fit_transform(X_miss)
    obs = ~np.isnan(X_miss)
    np.testing.assert_array_equal(filled[obs], X_miss[obs])
    # the posterior picks the right cluster from the observed coordinates
    assert np.abs(filled[~obs] - X[~obs]).mean() < 1.0
    np.testing.assert_allclose(imp.transform(X_miss), filled)


def test_gaussian_mixture_imputer_em_never_lowers_the_observed_likelihood():
    """Each round is an EM step on the observed entries: the observed-data log-likelihood
    never decreases (the earlier refit-and-refill rounds could cycle)."""
    rng = np.random.default_rng(1)
    centers = rng.normal(scale=3.0, size=(4, 6))
    X = centers[rng.integers(0, 4, 400)] + rng.standard_normal((400, 6))
    X[rng.random(X.shape) < 0.3] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 0.0
    lls = []
    for rounds in range(1, 12):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            imp = GaussianMixtureImputer(4, max_iter=rounds, tol=1e-12, random_state=0).fit(X)
        lls.append(imp.log_likelihood_)
    assert np.all(np.diff(lls) >= -1e-8 * np.abs(lls[1:]))
    assert lls[-1] > lls[0]


@pytest.mark.parametrize("name", BASELINES)
def test_baselines_are_pipelines_that_classify(name):
    X, y = make_structurally_missing(150, n_blocks=3, block_size=2, noise_std=0.2,
                                     random_state=1)
    pipe = make_imputation_baseline(name, SVC(kernel="linear"), n_neighbors=3, n_components=3,
                                    random_state=0)
    assert cross_val_score(pipe, X, y, cv=3).mean() > 0.6


def test_unknown_baseline_names_the_parameter():
    with pytest.raises(ValueError, match="name"):
        make_imputation_baseline("median", SVC())

# scikit-learn's common checks of both transformers: tests/test_common.py (_UNREGISTERED)


# -- feature names and set_output (issue 16) -----------------------------------------------------
def _blocks_frame():
    pd = pytest.importorskip("pandas")
    X, _ = make_structurally_missing(60, n_blocks=3, block_size=2,
                                     missing_prob=[0.5, 0.5, 0.0], random_state=0)
    return pd.DataFrame(X, columns=list("abcdef"), index=np.arange(100, 160))


def test_group_indicator_names_its_flags_by_group():
    frame = _blocks_frame()
    ind = GroupMissingIndicator().fit(frame)
    np.testing.assert_array_equal(ind.get_feature_names_out(),
                                  ["missing_a+b", "missing_c+d", "missing_any_of_unseen"])
    np.testing.assert_array_equal(GroupMissingIndicator().fit(frame.to_numpy())
                                  .get_feature_names_out(),
                                  ["missing_x0+x1", "missing_x2+x3", "missing_any_of_unseen"])
    with pytest.raises(ValueError, match="input_features is not equal to feature_names_in_"):
        ind.get_feature_names_out(list("uvwxyz"))


def test_group_indicator_names_a_large_group_by_its_first_feature():
    X = np.ones((4, 6))
    X[::2] = np.nan  # every feature absent in the same rows: one group of 6
    assert GroupMissingIndicator().fit(X).get_feature_names_out().tolist() == [
        "missing_x0+5_more"]


def test_group_indicator_set_output_pandas_keeps_the_index():
    frame = _blocks_frame()
    out = GroupMissingIndicator().set_output(transform="pandas").fit_transform(frame)
    assert out.columns.tolist() == ["missing_a+b", "missing_c+d", "missing_any_of_unseen"]
    assert out.index.equals(frame.index)
    np.testing.assert_array_equal(out.to_numpy(),
                                  GroupMissingIndicator().fit_transform(frame.to_numpy()))


def test_imputer_set_output_pandas_keeps_columns_and_index():
    frame = _blocks_frame()
    imp = GaussianMixtureImputer(2, random_state=0).set_output(transform="pandas")
    for out in (imp.fit_transform(frame), imp.transform(frame)):
        assert out.columns.tolist() == list("abcdef")
        assert out.index.equals(frame.index)
        assert not out.isna().any().any()
    np.testing.assert_array_equal(imp.get_feature_names_out(), list("abcdef"))


def test_flags_baseline_names_zero_filled_and_flag_columns():
    frame = _blocks_frame()
    union = make_imputation_baseline("flags", SVC())[0].set_output(transform="pandas")
    out = union.fit_transform(frame)
    assert out.columns.tolist() == [f"zero__{c}" for c in "abcdef"] + [
        "flags__missing_a+b", "flags__missing_c+d", "flags__missing_any_of_unseen"]


# -- sample_weight of the EM imputer (issue 16) ---------------------------------------------------
def _clustered(n=150, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[6.0, 6.0, 6.0, 0.0], [-6.0, -6.0, 0.0, 6.0], [0.0, 6.0, -6.0, -6.0]])
    X = centers[rng.integers(0, 3, n)] + 0.5 * rng.standard_normal((n, 4))
    X[rng.random(X.shape) < 0.25] = np.nan
    X[np.isnan(X).all(axis=1), 0] = 0.0
    return X


def test_imputer_em_step_with_weights_is_the_step_on_repeated_rows():
    """From the same mixture, one weighted EM step gives the parameters and log-likelihood of
    the step on repeated rows, to rounding."""
    X = _clustered()
    weights = np.random.default_rng(1).integers(0, 4, size=X.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # one round on purpose
        imp = GaussianMixtureImputer(3, max_iter=1, random_state=0).fit(X)
    weighted, repeated = copy.deepcopy(imp), copy.deepcopy(imp)
    ll_w = weighted._em_step(X, np.isnan(X), weights.astype(float))
    Xr = np.repeat(X, weights, axis=0)
    ll_r = repeated._em_step(Xr, np.isnan(Xr))
    assert ll_w == pytest.approx(ll_r, rel=1e-12)
    for name in ("weights_", "means_", "covariances_"):
        np.testing.assert_allclose(getattr(weighted.mixture_, name),
                                   getattr(repeated.mixture_, name), rtol=1e-10, atol=1e-12)


def test_imputer_weights_equal_repeated_rows_on_separated_clusters():
    X = _clustered()
    weights = np.random.default_rng(2).integers(1, 4, size=X.shape[0])
    weighted = GaussianMixtureImputer(3, tol=1e-10, random_state=0).fit(X, sample_weight=weights)
    repeated = GaussianMixtureImputer(3, tol=1e-10, random_state=0).fit(
        np.repeat(X, weights, axis=0))
    np.testing.assert_allclose(weighted.transform(X), repeated.transform(X), rtol=0, atol=1e-6)
    np.testing.assert_allclose(weighted.fill_, repeated.fill_, rtol=1e-12)
    assert weighted.log_likelihood_ == pytest.approx(repeated.log_likelihood_, rel=1e-8)


def test_imputer_zero_weights_are_removed_rows_and_still_filled():
    X = _clustered()
    weights = np.ones(X.shape[0])
    weights[::3] = 0.0
    imp = GaussianMixtureImputer(3, random_state=0)
    filled = imp.fit_transform(X, sample_weight=weights)
    removed = GaussianMixtureImputer(3, random_state=0).fit(X[weights > 0])
    np.testing.assert_array_equal(imp.transform(X), removed.transform(X))
    np.testing.assert_array_equal(filled, removed.transform(X))  # every row filled
    assert filled.shape == X.shape and not np.isnan(filled).any()


def test_imputer_unit_weights_change_nothing():
    X = _clustered()
    plain = GaussianMixtureImputer(3, random_state=0).fit_transform(X)
    unit = GaussianMixtureImputer(3, random_state=0).fit_transform(
        X, sample_weight=np.ones(X.shape[0]))
    np.testing.assert_allclose(unit, plain, rtol=1e-12, atol=1e-12)


def test_imputer_rejects_all_zero_weights():
    X = _clustered(30)
    with pytest.raises(ValueError, match="Sample weights must contain at least one non-zero"):
        GaussianMixtureImputer(2).fit(X, sample_weight=np.zeros(30))
