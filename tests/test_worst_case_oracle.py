"""The certified worst case against an independent integer program on real data (issue 14).

The oracle (:mod:`robustclf._oracles.worst_case`) solves Dekel & Shamir's Eq. (6) with gamma = 0
in its kept-features form, one HiGHS MILP per (row, other class) over all features, with none of
the library's bounds, reductions or blocks. The library must agree on every row's worst-case
outcome and, where it computes them, on the worst margins. The oracle deletes raw zeros from
bare scikit-learn models, so the library is called with the papers' ``fill=0.0``.
"""

import time

import numpy as np
import pytest

from robustclf._oracles.worst_case import digits_case, milp_worst_margins, spambase_case
from robustclf.certify import certified_error, worst_case_margin
from robustclf.corruption import OptimalDeletion, model_margins
from robustclf.datasets import DATA_ENV_VAR, get_data_home


def _require(subdir):
    home = get_data_home()
    if home is None or not (home / subdir).is_dir():
        pytest.skip(f"shared data '{subdir}' not found (set {DATA_ENV_VAR})")


def _check_against_oracle(model, X, y, values, budget):
    """Default certified error, exact margins and the optimal attack against the oracle."""
    oracle, _ = milp_worst_margins(model, X, y, budget, values)
    result = certified_error(model, X, y, budget, values, fill=0.0)  # the defaults: exact="auto"
    assert result.is_exact
    assert result.error == np.mean(oracle <= 0)
    assert result.lower <= result.error <= result.upper
    wc = worst_case_margin(model, X, y, budget, values, fill=0.0)
    assert wc.exact is not None
    np.testing.assert_allclose(wc.exact, oracle, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(wc.exact <= wc.tolerance, oracle <= 0)
    attacked = OptimalDeletion(budget=budget, feature_values=values, fill=0.0).corrupt(X, y, model)
    np.testing.assert_allclose(model_margins(model, attacked, y), oracle, rtol=1e-6, atol=1e-9)
    return result, oracle


def test_digits_ten_classes_agree_with_the_oracle():
    model, X, y, values, budget = digits_case(n_test=30)
    result, _ = _check_against_oracle(model, X, y, values, budget)
    assert result.lower < result.upper  # the bounds alone do not settle it


@pytest.mark.data
def test_spambase_issue_case_is_exact_and_fast():
    """Issue 14's done-when: the exact value (0.314), checked by the oracle, in under 30 s."""
    _require("spambase")
    model, X, y, values, budget = spambase_case()
    start = time.perf_counter()
    result = certified_error(model, X, y, budget, values, exact=True, fill=0.0)
    seconds = time.perf_counter() - start
    assert result.is_exact and seconds < 30.0
    assert result.error == certified_error(model, X, y, budget, values, fill=0.0).error  # "auto"
    assert result.error == pytest.approx(0.314)
    assert result.upper == pytest.approx(0.339)  # the relaxation's bound of the issue
    assert 0.293 <= result.lower < result.error  # the greedy attack, now skipping what won't fit
    result, _ = _check_against_oracle(model, X, y, values, budget)  # all 1,000 rows


@pytest.mark.data
@pytest.mark.slow
def test_amazon_reviews_with_2500_features_agree_with_the_oracle():
    from sklearn.svm import LinearSVC

    from robustclf.datasets import load_amazon_reviews
    from robustclf.feature_values import mutual_info_values

    _require("amazon_sentiment_processed_acl")
    data = load_amazon_reviews("books", min_df=5)
    X = data.data.toarray()
    top = np.argsort(-(X > 0).sum(axis=0), kind="stable")[:2500]  # the most frequent words
    X = np.log1p(X[:, top])
    y = data.target
    perm = np.random.default_rng(0).permutation(y.size)
    train, test = perm[:1500], perm[1500:1650]
    values = mutual_info_values(X[train], y[train])
    model = LinearSVC(C=0.1).fit(X[train], y[train])
    result, _ = _check_against_oracle(model, X[test], y[test], values, 2.0)
    assert X.shape[1] > 2000 and result.lower < result.upper
