"""Synthetic data sets of the papers: Dekel & Shamir's label copies, Feng et al.'s contaminated
logistic model and a structurally-missing generator in the spirit of Chechik et al.

O'Sullivan et al.'s THRESHOLD lives in :mod:`._threshold`. Every generator takes one
``random_state`` that is turned into a :class:`numpy.random.Generator` once, and draws whole
arrays at a time (no Python loop over rows).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import expit

from .._validation import check_fraction, check_generator, check_int, check_real
from ..corruption import inject_outliers
from ._common import RandomState, gaussian_with_margin

__all__ = ["make_label_copies", "make_contaminated_logistic", "make_structurally_missing"]


def _unit_vector(rng: np.random.Generator, n_features: int) -> np.ndarray:
    w = rng.standard_normal(n_features)
    return w / np.linalg.norm(w)


def _sign(values: np.ndarray) -> np.ndarray:
    """Labels in {-1, +1}; the measure-zero tie 0 goes to +1."""
    return np.where(values >= 0, 1, -1).astype(np.int64)


def make_label_copies(n_samples: int = 1000, n_features: int = 20, *, flip_prob: float = 0.2,
                      n_copies: int = 2, margin: float = 0.25, random_state: RandomState = None,
                      return_coef: bool = False) -> tuple:
    """Dekel & Shamir's (2008, §4) sanity check: noisy separable data plus copies of the label.

    "1000 linearly separable instances in R^20" receive label noise (each label flipped with
    probability 0.2), then "two copies of the actual label" are appended as features, for 22
    features in all. A classifier that leans on the copies is perfect until they are deleted.

    Choices where the paper is silent (see ``papers/NOTES.md``):

    * A unit vector ``w*`` is drawn uniformly (normalised Gaussian) and points are
      ``x ~ N(0, I)`` *conditioned on* ``|w* . x| >= margin``, so that the clean data is
      separable with geometric margin ``margin`` (with plain Gaussian points even an oracle
      linear SVM on the real features errs ~26 % of the time, against ~20 % Bayes error). The
      conditioning is sampled exactly, equivalent to vectorised rejection sampling.
    * The copied "actual" label is the *noisy* label, the one the learner is trained on, so
      the copies predict the training label perfectly.
    * The clean label is ``sign(w* . x)`` (no bias term).

    Parameters
    ----------
    n_samples : int, default=1000
    n_features : int, default=20
        Number of real features (before the copies).
    flip_prob : float in [0, 1], default=0.2
        Probability that each label is flipped.
    n_copies : int, default=2
        Number of label copies appended (0 gives the plain noisy separable data).
    margin : float, default=0.25
        Minimum distance of every point from the clean hyperplane ``w* . x = 0``.
    random_state : None, int or numpy Generator, default=None
    return_coef : bool, default=False
        Also return ``w*``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features + n_copies)
        The last ``n_copies`` columns equal ``y`` (as floats).
    y : ndarray of shape (n_samples,)
        The noisy labels, in {-1, +1}.
    coef : ndarray of shape (n_features,)
        Only if ``return_coef``: the unit-norm ``w*``; the clean label is
        ``sign(X[:, :n_features] @ coef)``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.datasets import make_label_copies
    >>> X, y = make_label_copies(100, 5, n_copies=2, random_state=0)
    >>> X.shape
    (100, 7)
    >>> bool((X[:, -1] == y).all())
    True
    >>> np.unique(y)
    array([-1,  1])
    """
    n_samples = check_int(n_samples, "n_samples")
    n_features = check_int(n_features, "n_features")
    flip_prob = check_fraction(flip_prob, "flip_prob")
    n_copies = check_int(n_copies, "n_copies", minimum=0)
    margin = check_real(margin, "margin", minimum=0.0)
    rng = check_generator(random_state)

    w = _unit_vector(rng, n_features)
    X, z = gaussian_with_margin(rng, n_samples, w, margin)
    y = _sign(z)
    flipped = rng.random(n_samples) < flip_prob
    y[flipped] = -y[flipped]
    X = np.hstack([X, np.repeat(y[:, None].astype(np.float64), n_copies, axis=1)])
    return (X, y, w) if return_coef else (X, y)


def make_contaminated_logistic(n_samples: int = 1000, n_features: int = 20, *,
                               n_outliers: int | None = None, outlier_ratio: float | None = None,
                               task: str = "classification", noise_std: float = 0.5,
                               outlier_scale: float = 10.0,
                               random_state: RandomState = None) -> tuple:
    """Feng et al.'s (2014, §6) simulation: a logistic or sign model plus adversarial outliers.

    Authentic samples: ``beta* ~ N(0, I)`` normalised to unit norm, ``x ~ N(0, I)``, noise
    ``v ~ N(0, noise_std**2)``, and

    * ``task="classification"`` (§5.1, Eq. 5): ``y = sign(<beta*, x> + v)``;
    * ``task="regression"`` (the paper's logistic-regression task, §3.1, Eq. 1):
      ``P(y = +1) = sigmoid(<beta*, x> + v)``.

    Outliers (``n_1`` of them, ``outlier_ratio = n_1 / n`` as the paper's lambda, which may
    exceed 1; §6 sweeps 0 to 1.2) are made by :func:`robustclf.corruption.inject_outliers`: entries
    uniform in ``[-outlier_scale, outlier_scale]`` and labels ``sign(<-beta*, x>)``, the model
    of opposite sign, "the most adversarial outlier model" according to the paper. They are
    appended after the ``n_samples`` authentic rows, and drawn after them from the same
    generator: for a fixed integer seed the authentic rows do not depend on the number of
    outliers, so a sweep over ``outlier_ratio`` contaminates one and the same clean sample.

    Where the paper is unclear: it writes ``v ~ N(0, sigma_e)`` with ``sigma_e = 0.5`` in §6
    but a variance ``sigma_e^2`` in §3.1; ``noise_std`` is the standard deviation.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of authentic samples ``n``.
    n_features : int, default=20
        Dimension ``p``.
    n_outliers : int, default=None
        Number of outliers ``n_1``. Give at most one of ``n_outliers`` and ``outlier_ratio``;
        with neither, there are no outliers.
    outlier_ratio : float >= 0, default=None
        ``n_1 / n``.
    task : {"classification", "regression"}, default="classification"
    noise_std : float, default=0.5
        Standard deviation ``sigma_e`` of the additive Gaussian noise ``v``.
    outlier_scale : float > 0, default=10.0
        ``sigma_o``: outlier entries are uniform in ``[-sigma_o, sigma_o]``.
    random_state : None, int or numpy Generator, default=None

    Returns
    -------
    X : ndarray of shape (n_samples + n_outliers, n_features)
        The clean rows, then the outliers.
    y : ndarray of shape (n_samples + n_outliers,)
        Labels in {-1, +1}.
    beta_star : ndarray of shape (n_features,)
        The true coefficients, of unit norm.
    is_outlier : ndarray of bool of shape (n_samples + n_outliers,)
        True for the appended outliers.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.datasets import make_contaminated_logistic
    >>> X, y, beta, is_outlier = make_contaminated_logistic(100, 5, n_outliers=10,
    ...                                                     random_state=0)
    >>> X.shape, int(is_outlier.sum())
    ((110, 5), 10)
    >>> bool(is_outlier[-10:].all()), round(float(np.linalg.norm(beta)), 2)
    (True, 1.0)
    >>> np.unique(y)
    array([-1,  1])
    """
    n_samples = check_int(n_samples, "n_samples")
    n_features = check_int(n_features, "n_features")
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression', got {task!r}.")
    if n_outliers is not None and outlier_ratio is not None:
        raise ValueError("give at most one of n_outliers and outlier_ratio, got both.")
    if n_outliers is not None:
        n_outliers = check_int(n_outliers, "n_outliers", minimum=0)
    if outlier_ratio is not None:
        outlier_ratio = check_real(outlier_ratio, "outlier_ratio", minimum=0.0)
    noise_std = check_real(noise_std, "noise_std", minimum=0.0)
    outlier_scale = check_real(outlier_scale, "outlier_scale", minimum=0.0)
    if outlier_scale == 0:
        raise ValueError("outlier_scale must be positive.")
    rng = check_generator(random_state)

    beta = _unit_vector(rng, n_features)
    X = rng.standard_normal((n_samples, n_features))
    score = X @ beta + noise_std * rng.standard_normal(n_samples)
    if task == "classification":
        y = _sign(score)
    else:
        y = np.where(rng.random(n_samples) < expit(score), 1, -1).astype(np.int64)
    if n_outliers is None and outlier_ratio is None:
        return X, y, beta, np.zeros(n_samples, dtype=bool)
    X, y, is_outlier = inject_outliers(X, y, beta, n_outliers=n_outliers,
                                       outlier_ratio=outlier_ratio, scale=outlier_scale,
                                       random_state=rng)
    return X, np.asarray(y).astype(np.int64), beta, np.asarray(is_outlier, dtype=bool)


def _block_sizes(block_size, n_blocks: int) -> np.ndarray:
    if isinstance(block_size, Sequence) or isinstance(block_size, np.ndarray):
        sizes = [check_int(s, "block_size") for s in block_size]
        if len(sizes) != n_blocks:
            raise ValueError(f"block_size must be an int or one size per block ({n_blocks}), "
                             f"got {len(sizes)} sizes.")
        return np.asarray(sizes, dtype=np.intp)
    return np.full(n_blocks, check_int(block_size, "block_size"), dtype=np.intp)


def _missing_probs(missing_prob, n_blocks: int) -> np.ndarray:
    if isinstance(missing_prob, Sequence) or isinstance(missing_prob, np.ndarray):
        probs = np.asarray([check_fraction(p, "missing_prob") for p in missing_prob])
        if probs.shape != (n_blocks,):
            raise ValueError(f"missing_prob must be a float or one probability per block "
                             f"({n_blocks}), got {probs.size}.")
    else:
        probs = np.full(n_blocks, check_fraction(missing_prob, "missing_prob"))
    if np.all(probs >= 1.0):
        raise ValueError("missing_prob must be < 1 for at least one block: every instance "
                         "needs a block to exist.")
    return probs


def make_structurally_missing(n_samples: int = 1000, n_blocks: int = 4,
                              block_size: int | Sequence[int] = 5, *,
                              missing_prob: float | Sequence[float] = 0.5, margin: float = 0.0,
                              noise_std: float = 0.5, random_state: RandomState = None,
                              return_blocks: bool = False, return_coef: bool = False) -> tuple:
    """Instances whose feature blocks are absent by construction (Chechik et al. 2007, §1, §3).

    Chechik et al. classify objects some of whose parts do not exist (a car without a visible
    trunk, an enzyme without a "fork" neighbour): the absent features are undefined, not
    unobserved, and each instance lives in its own subspace. Their data (car landmarks,
    metabolic networks) is not public, so this generator reproduces the structure:

    * The ``d = sum(block_size)`` features form ``n_blocks`` contiguous blocks ("parts").
      Each block of each instance is absent independently with probability ``missing_prob``
      (per block if a sequence). An instance with no block left gets one block, chosen
      uniformly among those with ``missing_prob < 1``, so that every instance has features.
    * A unit vector ``w*`` (normalised Gaussian) is shared by all instances. Instance ``i``
      with valid features ``F_i`` is classified in its own subspace: its *instance margin*
      (§3) is ``rho_i = w*_{F_i} . x_{F_i} / ||w*_{F_i}||``, and ``y_i = sign(rho_i + e_i)``
      with ``e_i ~ N(0, noise_std**2)``: label noise is measured in the instance's own
      subspace, the same for every missingness pattern.
    * Present features are ``N(0, I)`` conditioned on ``|rho_i| >= margin`` (sampled exactly),
      so with ``noise_std=0`` the data is separable with geometric margin ``margin`` in the
      sense of Eq. (3). After zero-filling, the same instance sits only
      ``rho_i ||w*_{F_i}|| / ||w*||`` from the hyperplane: instances with few parts look
      closer to the boundary than they are (Fig. 1), which is what misleads an SVM trained on
      zero- or mean-imputed data (the two coincide in expectation here, as features are centred).
    * Absent features are ``np.nan``. Labels depend only on features that exist.

    Parameters
    ----------
    n_samples : int, default=1000
    n_blocks : int, default=4
    block_size : int or sequence of int, default=5
        Features per block (one size for all, or one per block).
    missing_prob : float or sequence of float in [0, 1], default=0.5
        Probability that a block is absent (one for all, or one per block; 0 = always there).
    margin : float >= 0, default=0.0
        Minimum instance margin ``|rho_i|`` of the clean rule.
    noise_std : float >= 0, default=0.5
        Standard deviation of the noise added to ``rho_i`` before taking the sign (0 = labels
        are exactly the clean rule's).
    random_state : None, int or numpy Generator, default=None
    return_blocks : bool, default=False
        Also return the blocks: a list of column-index arrays, one per block (the format of
        ``groups`` elsewhere in the library; block ``b`` of row ``i`` is absent iff
        ``np.isnan(X[i, blocks[b]]).all()``).
    return_coef : bool, default=False
        Also return ``w*``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        ``n_features = sum(block_size)`` columns, NaN where a block is absent.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    blocks : list of ndarray
        Only if ``return_blocks``: the column indices of each block.
    coef : ndarray of shape (n_features,)
        Only if ``return_coef``: ``w*``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.datasets import make_structurally_missing
    >>> X, y, blocks = make_structurally_missing(100, n_blocks=3, block_size=2,
    ...                                          random_state=0, return_blocks=True)
    >>> X.shape, blocks
    ((100, 6), [array([0, 1]), array([2, 3]), array([4, 5])])
    >>> absent = np.isnan(X[:, blocks[0]])
    >>> bool((absent.all(axis=1) == absent.any(axis=1)).all())
    True
    """
    n_samples = check_int(n_samples, "n_samples")
    n_blocks = check_int(n_blocks, "n_blocks")
    sizes = _block_sizes(block_size, n_blocks)
    probs = _missing_probs(missing_prob, n_blocks)
    margin = check_real(margin, "margin", minimum=0.0)
    noise_std = check_real(noise_std, "noise_std", minimum=0.0)
    rng = check_generator(random_state)

    present = rng.random((n_samples, n_blocks)) >= probs
    empty = np.flatnonzero(~present.any(axis=1))
    eligible = np.flatnonzero(probs < 1.0)
    present[empty, rng.choice(eligible, size=empty.size)] = True
    valid = np.repeat(present, sizes, axis=1)

    w = _unit_vector(rng, int(sizes.sum()))
    directions = np.where(valid, w, 0.0)
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    X, rho = gaussian_with_margin(rng, n_samples, directions, margin)
    y = _sign(rho + noise_std * rng.standard_normal(n_samples))
    X[~valid] = np.nan

    out = [X, y]
    if return_blocks:
        edges = np.concatenate([[0], np.cumsum(sizes)])
        pairs = zip(edges[:-1], edges[1:], strict=True)
        out.append([np.arange(a, b, dtype=np.intp) for a, b in pairs])
    if return_coef:
        out.append(w)
    return tuple(out)
