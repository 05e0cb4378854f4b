"""The certificate and the linear adversaries delete what the model really sees (issue 16).

A deletion writes ``fill`` into the raw row: NaN (absent, the default) or a number (0.0: the
papers' raw zero). For every model kind the library reads exactly -- its linear models bare and
behind scalers, scikit-learn models behind an imputer -- the margins the adversary computes after
deleting a set S must be the margins the model's own ``decision_function`` gives on the
corrupted matrix, and the certified error must be the brute-force worst case over every
admissible deletion, evaluated through the real model. Models that would be misread are refused.
"""

from functools import cache
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.compose import make_column_transformer
from sklearn.frozen import FrozenEstimator
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, MinMaxScaler, PolynomialFeatures, StandardScaler

from robustclf._affine import affine_model
from robustclf.certify import certified_error, contrast_contributions, worst_case_margin
from robustclf.corruption import GreedyDeletion, OptimalDeletion, model_margins
from robustclf.linear import DeletionRobustLP, DropoutSVC

N_FEATURES = 4

_LIBRARY = {"dropout": lambda: DropoutSVC(), "lp": lambda: DeletionRobustLP(budget=1)}
_SCALERS = {"bare": None, "standard": StandardScaler, "minmax": MinMaxScaler,
            "maxabs": MaxAbsScaler}
#: every model kind read exactly: the library's linear models (NaN read as absent) bare and
#: behind each scaler, and scikit-learn's logistic regression behind imputers (NaN imputed)
KINDS = [f"{model}+{scaler}" for model in _LIBRARY for scaler in _SCALERS] + [
    "lr+mean_imputer+standard", "lr+constant_imputer+standard", "lr+standard+median_imputer",
    "dropout+median_imputer+minmax",
]
FILLS = [np.nan, 0.0, 2.5]


def _make(kind):
    parts = kind.split("+")
    steps = []
    for part in parts[1:]:
        if part.endswith("_imputer"):
            strategy = part.removesuffix("_imputer")
            steps.append(SimpleImputer(strategy=strategy, fill_value=1.5))
        elif _SCALERS[part] is not None:
            steps.append(_SCALERS[part]())
    final = LogisticRegression() if parts[0] == "lr" else _LIBRARY[parts[0]]()
    return make_pipeline(*steps, final) if steps else final


def _training_data(n_classes, seed=0):
    """Features with means far from zero, so that absent (a mean or an imputed value) and a raw
    zero are different deletions."""
    rng = np.random.default_rng(seed)
    X = rng.normal(loc=[2.0, -1.0, 0.5, 3.0], scale=[1.0, 2.0, 0.5, 1.5], size=(90, N_FEATURES))
    score = X @ [1.0, -0.5, 2.0, 0.3] + rng.normal(scale=0.5, size=90)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@cache
def fitted(kind, n_classes):
    return _make(kind).fit(*_training_data(n_classes))


def _corrupt(X, mask, fill):
    out = X.copy()
    out[mask] = fill
    return out


def _adversary_margins(model, X, y, mask, fill):
    """The margins the certificate's contributions predict after deleting ``mask``."""
    aff = affine_model(model, fill)
    return np.min([margins - np.sum(contributions * mask, axis=1)
                   for margins, contributions in contrast_contributions(aff, X, y)], axis=0)


def _brute_force_worst(model, X, y, budget, values, fill):
    """The worst true-class margin over every deletion of value <= budget, by the model."""
    worst = np.full(X.shape[0], np.inf)
    for subset in product((False, True), repeat=X.shape[1]):
        subset = np.array(subset)
        if values[subset].sum() <= budget * (1 + 1e-12) + 1e-12:
            mask = np.broadcast_to(subset, X.shape)
            worst = np.minimum(worst, model_margins(model, _corrupt(X, mask, fill), y))
    return worst


@st.composite
def problems(draw):
    kind = draw(st.sampled_from(KINDS))
    n_classes = draw(st.sampled_from([2, 3]))
    fill = draw(st.sampled_from(FILLS))
    m = draw(st.integers(1, 6))
    entries = st.one_of(st.just(0.0), st.floats(-4.0, 6.0, allow_subnormal=False))
    X = draw(hnp.arrays(np.float64, (m, N_FEATURES), elements=entries))
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=m, max_size=m)))
    return fitted(kind, n_classes), X, y, fill


@settings(max_examples=25, deadline=None)
@given(problem=problems(), data=st.data())
def test_adversary_margins_are_the_models_margins_on_the_corrupted_matrix(problem, data):
    model, X, y, fill = problem
    mask = data.draw(hnp.arrays(bool, X.shape))
    real = model_margins(model, _corrupt(X, mask, fill), y)
    scale = 1.0 + np.abs(real)
    np.testing.assert_allclose(_adversary_margins(model, X, y, mask, fill) / scale, real / scale,
                               rtol=0, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(problem=problems(), values_kind=st.sampled_from(["uniform", "integer", "real"]),
       data=st.data())
def test_certified_error_is_the_brute_force_worst_case_through_the_model(problem, values_kind,
                                                                         data):
    model, X, y, fill = problem
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    values = {"uniform": np.ones(N_FEATURES),
              "integer": rng.integers(1, 3, N_FEATURES).astype(float),
              "real": np.round(rng.uniform(0.3, 1.5, N_FEATURES), 2)}[values_kind]
    budget = data.draw(st.floats(0.0, float(values.sum())))
    if values_kind != "real":
        budget = float(np.floor(budget))
    truth = _brute_force_worst(model, X, y, budget, values, fill)
    wc = worst_case_margin(model, X, y, budget, values, exact=True, fill=fill)
    scale = 1.0 + np.abs(truth)
    np.testing.assert_allclose(wc.exact / scale, truth / scale, rtol=0, atol=1e-9)
    result = certified_error(model, X, y, budget, values, fill=fill)
    assert result.is_exact
    assert result.error == np.mean(truth <= wc.tolerance)
    # the optimal attack's corrupted matrix really reaches the worst case, and the greedy one
    # the greedy margin, as the model scores them
    optimal = OptimalDeletion(budget=budget, feature_values=values, fill=fill)
    np.testing.assert_allclose(model_margins(model, optimal.corrupt(X, y, model), y) / scale,
                               truth / scale, rtol=0, atol=1e-9)
    greedy = GreedyDeletion(budget=budget, feature_values=values, fill=fill)
    np.testing.assert_allclose(model_margins(model, greedy.corrupt(X, y, model), y),
                               wc.greedy, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", KINDS)
def test_raw_zero_deletion_is_todays_reading(kind):
    """fill=0.0 gives D = 0: the contributions are those of before issue 16, ``y w_j x_j``."""
    aff = affine_model(fitted(kind, 2), 0.0)
    assert aff.deletion_is_raw_zero
    absent = affine_model(fitted(kind, 2), np.nan)
    np.testing.assert_array_equal(absent.coef, aff.coef)
    np.testing.assert_array_equal(absent.intercept, aff.intercept)
    # a mean far from zero (StandardScaler) or an imputed value makes absence differ from zero
    assert absent.deletion_is_raw_zero == (kind.endswith(("+bare", "+maxabs")))


def test_absent_is_the_training_mean_behind_a_standard_scaler():
    model = fitted("dropout+standard", 2)
    X, _ = _training_data(2)
    aff = affine_model(model, np.nan)
    np.testing.assert_allclose(aff.deleted[0], aff.coef[0] * X.mean(axis=0))
    imputer = fitted("lr+constant_imputer+standard", 2)
    aff = affine_model(imputer, np.nan)
    np.testing.assert_allclose(aff.deleted[0], aff.coef[0] * 1.5)  # the constant, in raw units


def test_clipping_min_max_scaler_is_refused():
    """Issue 19: clipping is not affine; the certificate used to read it as if it were."""
    X, y = _training_data(2)
    model = make_pipeline(MinMaxScaler(clip=True), LogisticRegression()).fit(X, y)
    for fill in (0.0, np.nan):
        with pytest.raises(ValueError, match=r"MinMaxScaler\(clip=True\) .* not an affine map"):
            certified_error(model, 3 * X, y, 0, fill=fill)
    with pytest.raises(ValueError, match=r"MinMaxScaler\(clip=True\)"):
        GreedyDeletion(budget=1, fill=0.0).corrupt(3 * X, y, model)


@pytest.mark.parametrize(("model", "match"), [
    (make_pipeline(PolynomialFeatures(), LogisticRegression(max_iter=5000)),
     "cannot read the pipeline step PolynomialFeatures exactly"),
    (make_pipeline(make_column_transformer((StandardScaler(), [0, 1]), remainder="passthrough"),
                   LogisticRegression()), "cannot read the pipeline step ColumnTransformer"),
    (make_pipeline(SimpleImputer(add_indicator=True), LogisticRegression()),
     r"add_indicator=True"),
    (make_pipeline(SimpleImputer(missing_values=0.0), LogisticRegression()),
     r"missing_values=0.0"),
])
def test_steps_that_cannot_be_read_exactly_are_refused(model, match):
    X, y = _training_data(2)
    model.fit(X, y)
    with pytest.raises(ValueError, match=match):
        certified_error(model, X, y, 1, fill=0.0)


def test_models_that_cannot_take_nan_are_refused():
    X, y = _training_data(2)
    message = ("model {} cannot take the absent \\(NaN\\) entries this deletion writes; put an "
               "imputer in its pipeline or use fill=0.0")
    bare = LogisticRegression().fit(X, y)
    strict = make_pipeline(StandardScaler(), DropoutSVC(nan_policy="raise")).fit(X, y)
    for model, name in ((bare, "LogisticRegression"), (strict, "DropoutSVC")):
        with pytest.raises(ValueError, match=message.format(name)):
            certified_error(model, X, y, 1)  # fill=np.nan by default
        with pytest.raises(ValueError, match=message.format(name)):
            GreedyDeletion(budget=1).corrupt(X, y, model)
        certified_error(model, X, y, 1, fill=0.0)  # a raw zero is fine
    with pytest.raises(ValueError, match="fill must be"):
        worst_case_margin(bare, X, y, 1, fill="absent")


def test_a_frozen_pipeline_is_read_through():
    X, y = _training_data(3)
    model = fitted("lr+mean_imputer+standard", 3)
    frozen = FrozenEstimator(model)
    assert certified_error(frozen, X, y, 2).error == certified_error(model, X, y, 2).error


def test_dataframe_input_gives_the_ndarray_attack():
    pd = pytest.importorskip("pandas")
    X, y = _training_data(3)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(N_FEATURES)])
    on_frame = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression()).fit(frame, y)
    on_array = make_pipeline(SimpleImputer(), StandardScaler(), LogisticRegression()).fit(X, y)
    for attack in (GreedyDeletion(budget=2), OptimalDeletion(budget=1.5,
                                                             feature_values=[0.5, 1, 1, 1])):
        out = attack.corrupt(frame, y, on_frame)
        assert isinstance(out, pd.DataFrame)
        np.testing.assert_array_equal(out.to_numpy(), attack.corrupt(X, y, on_array))
        assert np.isnan(out.to_numpy()).any()


@pytest.mark.parametrize("fill", FILLS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_and_fill_agrees_with_the_model(kind, n_classes, fill):
    """Every combination once per run (hypothesis samples them): a random deletion's margins
    and the brute-force worst case, on rows from the training distribution."""
    model = fitted(kind, n_classes)
    X, y = _training_data(n_classes, seed=1)
    X, y = X[:12], y[:12]
    rng = np.random.default_rng(2)
    mask = rng.random(X.shape) < 0.4
    real = model_margins(model, _corrupt(X, mask, fill), y)
    np.testing.assert_allclose(_adversary_margins(model, X, y, mask, fill), real,
                               rtol=1e-9, atol=1e-9)
    values = np.array([1.0, 2.0, 1.0, 1.0])
    truth = _brute_force_worst(model, X, y, 2.0, values, fill)
    wc = worst_case_margin(model, X, y, 2.0, values, exact=True, fill=fill)
    np.testing.assert_allclose(wc.exact, truth, rtol=1e-9, atol=1e-9)
    assert certified_error(model, X, y, 2.0, values, fill=fill).error == np.mean(
        truth <= wc.tolerance)
