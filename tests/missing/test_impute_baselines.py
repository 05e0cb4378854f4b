"""Imputation baselines of Chechik et al. (2007), §4."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

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


@parametrize_with_checks([GaussianMixtureImputer(n_components=2, random_state=0),
                          GroupMissingIndicator()])
def test_transformers_pass_sklearn_checks(estimator, check):
    check(estimator)
