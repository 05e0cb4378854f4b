"""Structural absence driven by object subtypes (Chechik et al. 2007, §1 and §4, car landmarks).

Chechik et al. motivate structurally absent features with objects of different *subtypes*: "a
trunk of a car may not be found in a picture of a hatch-back car", so every feature of the trunk
landmark is absent for every hatchback. Their car and metabolic data are not public; this
generator reproduces that structure with every modelling assumption an explicit parameter.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

from .._validation import check_generator, check_int, check_option, check_real
from ._common import RandomState

__all__ = ["make_subtype_missing"]


def _subtype_blocks(subtype_blocks, n_blocks: int, block_prob: float, probs: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """Which blocks each subtype has: given, or each present w.p. ``block_prob``.

    Every subtype has at least one block, and every block belongs to at least one subtype that
    can be drawn (``probs > 0``): otherwise its features would be absent from every row. A
    random table lacking one is completed (a subtype drawn uniformly among the possible ones
    gets the block); a given table lacking one is refused.
    """
    n_subtypes = probs.size
    drawable = probs > 0
    if subtype_blocks is not None:
        table = np.asarray(subtype_blocks)
        if table.shape != (n_subtypes, n_blocks) or table.dtype != bool:
            raise ValueError(f"subtype_blocks must be a boolean array of shape (n_subtypes, "
                             f"n_blocks) = {(n_subtypes, n_blocks)}, got {table.dtype} "
                             f"{table.shape}.")
        if not table.any(axis=1).all():
            raise ValueError("subtype_blocks: every subtype needs at least one block.")
        orphans = np.flatnonzero(~table[drawable].any(axis=0))
        if orphans.size:
            raise ValueError(
                f"subtype_blocks: block(s) {orphans.tolist()} belong to no subtype (of positive "
                "probability in subtype_probs), so their features would be absent from every "
                "row; give every block to at least one subtype.")
        return table.copy()
    table = rng.random((n_subtypes, n_blocks)) < block_prob
    empty = np.flatnonzero(~table.any(axis=1))
    table[empty, rng.integers(0, n_blocks, size=empty.size)] = True
    orphans = np.flatnonzero(~table[drawable].any(axis=0))
    if orphans.size:  # drawn only then: a table without orphans is drawn as before
        table[rng.choice(np.flatnonzero(drawable), size=orphans.size), orphans] = True
    return table


def make_subtype_missing(n_samples: int = 1000, *, n_subtypes: int = 4, n_blocks: int = 6,
                         block_size: int = 3, block_prob: float = 0.5, subtype_blocks=None,
                         subtype_probs=None, coef_similarity: float = 1.0,
                         subtype_shift: float = 0.0, noise: str = "subspace",
                         noise_std: float = 0.3, subtype_threshold: float = 0.0,
                         label_absence: float = 0.0, random_state: RandomState = None,
                         return_subtypes: bool = False, return_coef: bool = False,
                         return_posterior: bool = False) -> tuple:
    """Objects of several subtypes, each with its own set of existing parts (landmark blocks).

    The generative model, every assumption a parameter:

    1. **Parts.** The ``d = n_blocks * block_size`` features form ``n_blocks`` contiguous blocks
       (landmarks). Subtype ``t`` *has* block ``k`` iff ``subtype_blocks[t, k]``; by default
       each entry is ``True`` with probability ``block_prob`` (a subtype drawn without any block
       gets one chosen uniformly, and a block drawn in no subtype goes to one subtype chosen
       uniformly among those of positive probability). An instance's features exist exactly
       on its subtype's blocks; the rest are ``np.nan`` (structurally absent, not unobserved).
       Every block is observed in at least one row: a table in which a block belongs to no
       subtype that can be drawn is refused, and so is a sample in which no row shows some
       block (too few rows for the subtypes that have it: draw more).
    2. **Subtypes.** ``t_i`` is drawn from ``subtype_probs`` (uniform by default).
    3. **Appearance.** Existing features are ``mu_t + N(0, I)``, with a subtype mean
       ``mu_t ~ N(0, subtype_shift**2 I)`` (0: all subtypes look alike where they overlap).
    4. **Label rule.** Subtype ``t`` has a unit weight vector
       ``w_t ∝ sqrt(c) w_0 + sqrt(1 - c) v_t`` (``c = coef_similarity``; ``w_0``, ``v_t``
       normalised Gaussians), so ``c = 1`` is one rule shared by all subtypes. The label
       depends only on the parts that exist: with ``F_t`` the features of subtype ``t`` the
       score is ``r_i = w_t[F_t] . x_i[F_t]``.
    5. **Label noise** (``noise``), ``e_i ~ N(0, noise_std**2)``:

       * ``"subspace"``: ``y_i = sign(r_i / ||w_t[F_t]|| + e_i)`` — noise is measured in the
         instance's own subspace, the same for every subtype (the geometry of §3, Eq. 3);
       * ``"full"``: ``y_i = sign(r_i + e_i)`` — noise is measured in the full space, so a
         subtype with few parts (small ``||w_t[F_t]||``) has noisier labels.

       With ``subtype_threshold > 0`` every subtype also has its own threshold
       ``b_t ~ N(0, subtype_threshold**2)``, subtracted before the sign (``y_i = sign(r_i /
       ||w_t[F_t]|| - b_t + e_i)``, resp. ``sign(r_i - b_t + e_i)``): the rule of each subtype
       lives in its own subspace with its own offset, so the subtypes differ in base rate.
    6. **Label-dependent absence** (``label_absence = q > 0``): after the label is drawn, every
       existing block of a *positive* instance except its subtype's first block is hidden
       (set to NaN) independently with probability ``q``; negative instances keep all their
       parts. Such features existed when the label was drawn (the rule used them), and whether
       they are seen depends on the label: missingness that carries information.

    The thresholds are drawn after the label noise and the hidden blocks after that, so the
    default ``subtype_threshold=0, label_absence=0`` draws exactly what earlier versions drew.

    Parameters
    ----------
    n_samples : int, default=1000
    n_subtypes : int, default=4
    n_blocks : int, default=6
    block_size : int, default=3
        Features per block.
    block_prob : float in (0, 1], default=0.5
        Probability that a subtype has a block (ignored when ``subtype_blocks`` is given).
    subtype_blocks : None or bool array of shape (n_subtypes, n_blocks), default=None
        Explicit part table; every row needs a ``True``, and every column one in a row of
        positive ``subtype_probs``.
    subtype_probs : None or array of shape (n_subtypes,), default=None
        Subtype frequencies (non-negative, normalised to sum 1); uniform if None.
    coef_similarity : float in [0, 1], default=1.0
        How much the subtypes' label rules share (1 = one shared ``w``).
    subtype_shift : float >= 0, default=0.0
        Standard deviation of the subtype means ``mu_t``.
    noise : {"subspace", "full"}, default="subspace"
    noise_std : float >= 0, default=0.3
    subtype_threshold : float >= 0, default=0.0
        Standard deviation of the per-subtype thresholds ``b_t`` (0: every threshold is 0).
    label_absence : float in [0, 1), default=0.0
        Probability that a positive instance's existing block (other than its subtype's first)
        is hidden (0: absence depends on the subtype only).
    random_state : None, int or numpy Generator, default=None
    return_subtypes : bool, default=False
        Also return the subtype of every instance and the part table.
    return_coef : bool, default=False
        Also return the rules ``W`` of shape (n_subtypes, d), rows ``w_t`` (unit norm).
    return_posterior : bool, default=False
        Also return the Bayes posterior ``P(y_i = +1 | x_i)`` given the *observed* row only
        (the subtype is not observed: the posterior sums over the subtypes whose parts and
        hiding are consistent with the row's NaN pattern, weighted by their frequencies and
        the Gaussian density of the observed values; hidden coordinates are integrated out).
        ``mean(minimum(p, 1 - p))`` over a large sample estimates the Bayes error.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        ``n_features = n_blocks * block_size`` columns, NaN where a part does not exist; every
        column has at least one observed entry.
    y : ndarray of shape (n_samples,)
        Labels in {-1, +1}.
    subtypes : ndarray of int of shape (n_samples,)
        Only if ``return_subtypes``: the subtype of every instance.
    subtype_blocks : ndarray of bool of shape (n_subtypes, n_blocks)
        Only if ``return_subtypes``: the part table.
    W : ndarray of shape (n_subtypes, n_features)
        Only if ``return_coef``: the rules ``w_t`` (unit norm), one row per subtype.
    posterior : ndarray of shape (n_samples,)
        Only if ``return_posterior``: ``P(y_i = +1 | x_i)`` given the observed row.

    Raises
    ------
    ValueError
        A parameter out of its range, a block no subtype of positive probability has, or no
        row of the sample showing some block.

    Examples
    --------
    >>> X, y, t, parts = make_subtype_missing(6, n_subtypes=2, n_blocks=2, block_size=1,
    ...     subtype_blocks=[[True, False], [True, True]], random_state=0, return_subtypes=True)
    >>> bool(np.isnan(X[t == 0, 1]).all() and not np.isnan(X[t == 1]).any())
    True
    """
    n_samples = check_int(n_samples, "n_samples")
    n_subtypes = check_int(n_subtypes, "n_subtypes")
    n_blocks = check_int(n_blocks, "n_blocks")
    block_size = check_int(block_size, "block_size")
    block_prob = check_real(block_prob, "block_prob")
    if not 0.0 < block_prob <= 1.0:
        raise ValueError(f"block_prob must be in (0, 1], got {block_prob}.")
    coef_similarity = check_real(coef_similarity, "coef_similarity", minimum=0.0)
    if coef_similarity > 1.0:
        raise ValueError(f"coef_similarity must be in [0, 1], got {coef_similarity}.")
    subtype_shift = check_real(subtype_shift, "subtype_shift", minimum=0.0)
    check_option(noise, "noise", ("subspace", "full"))
    noise_std = check_real(noise_std, "noise_std", minimum=0.0)
    subtype_threshold = check_real(subtype_threshold, "subtype_threshold", minimum=0.0)
    label_absence = check_real(label_absence, "label_absence", minimum=0.0)
    if label_absence >= 1.0:
        raise ValueError(f"label_absence must be in [0, 1), got {label_absence}.")
    if subtype_probs is None:
        probs = np.full(n_subtypes, 1.0 / n_subtypes)
    else:
        probs = np.asarray(subtype_probs, dtype=np.float64)
        if probs.shape != (n_subtypes,) or not np.all(probs >= 0) or probs.sum() <= 0:
            raise ValueError("subtype_probs must be n_subtypes non-negative numbers with a "
                             f"positive sum, got {subtype_probs!r}.")
        probs = probs / probs.sum()
    rng = check_generator(random_state)

    parts = _subtype_blocks(subtype_blocks, n_blocks, block_prob, probs, rng)
    d = n_blocks * block_size
    valid_t = np.repeat(parts, block_size, axis=1)  # (n_subtypes, d)
    shared = rng.standard_normal(d)
    own = rng.standard_normal((n_subtypes, d))
    W = (np.sqrt(coef_similarity) * shared / np.linalg.norm(shared)
         + np.sqrt(1.0 - coef_similarity) * own / np.linalg.norm(own, axis=1, keepdims=True))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    mu = subtype_shift * rng.standard_normal((n_subtypes, d))

    t = rng.choice(n_subtypes, size=n_samples, p=probs)
    valid = valid_t[t]
    X = mu[t] + rng.standard_normal((n_samples, d))
    w_valid = np.where(valid_t, W, 0.0)
    score = np.einsum("ij,ij->i", X, w_valid[t])
    if noise == "subspace":
        score /= np.linalg.norm(w_valid, axis=1)[t]
    score += noise_std * rng.standard_normal(n_samples)
    thresholds = np.zeros(n_subtypes)
    if subtype_threshold > 0:
        thresholds = subtype_threshold * rng.standard_normal(n_subtypes)
        score -= thresholds[t]
    y = np.where(score >= 0, 1, -1).astype(np.int64)
    if label_absence > 0:
        valid = valid & ~np.repeat(_hidden_blocks(parts, t, y, label_absence, rng),
                                   block_size, axis=1)
    X[~valid] = np.nan
    unseen = np.flatnonzero(~valid[:, ::block_size].any(axis=0))
    if unseen.size:
        hidden = " (or label_absence hid it in every row that had it)" if label_absence else ""
        raise ValueError(
            f"no row of the {n_samples} drawn shows block(s) {unseen.tolist()}: no instance of "
            f"a subtype that has it was drawn{hidden}, so its features would be absent from "
            "every row; draw more samples (n_samples) or give the block to a more frequent "
            "subtype.")

    out = [X, y]
    if return_subtypes:
        out += [t, parts]
    if return_coef:
        out.append(W)
    if return_posterior:
        model = dict(parts=parts, probs=probs, W=W, mu=mu, thresholds=thresholds,
                     noise=noise, noise_std=noise_std, label_absence=label_absence,
                     block_size=block_size)
        out.append(_posterior(X, **model))
    return tuple(out)


def _hidden_blocks(parts, t, y, q, rng) -> np.ndarray:
    """Blocks hidden because the label is positive: each existing one but the first, w.p. q."""
    first = np.argmax(parts, axis=1)  # the subtype's first existing block is never hidden
    hide = (rng.random((t.size, parts.shape[1])) < q) & parts[t] & (y == 1)[:, None]
    hide[np.arange(t.size), first[t]] = False
    return hide


def _posterior(X, *, parts, probs, W, mu, thresholds, noise, noise_std, label_absence,
               block_size) -> np.ndarray:
    """Exact ``P(y = +1 | observed row)`` under the generator (one pass per subtype)."""
    observed = ~np.isnan(X)
    seen_blocks = observed[:, ::block_size]
    X0 = np.where(observed, X, 0.0)
    first = np.argmax(parts, axis=1)
    log_pos, log_neg = [], []
    for k in range(parts.shape[0]):
        valid = np.repeat(parts[k], block_size)
        w = np.where(valid, W[k], 0.0)
        scale = np.linalg.norm(w) if noise == "subspace" else 1.0
        hidden = valid & ~observed  # (n, d): coordinates of t's parts not seen
        n_hidden = (parts[k] & ~seen_blocks).sum(axis=1)
        # consistent: nothing outside t's parts is seen, and t's first block is seen
        ok = ~(seen_blocks & ~parts[k]).any(axis=1) & seen_blocks[:, first[k]]
        mean = (X0 @ w + hidden @ (w * mu[k])) / scale - thresholds[k]
        spread = np.sqrt((hidden @ w**2) / scale**2 + noise_std**2)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(spread > 0, mean / np.where(spread > 0, spread, 1.0),
                         np.where(mean >= 0, np.inf, -np.inf))
        log_density = -0.5 * np.where(observed, (X0 - mu[k]) ** 2, 0.0).sum(axis=1)
        base = np.where(ok, np.log(probs[k]) + log_density, -np.inf)
        n_other = parts[k].sum() - 1 - n_hidden
        with np.errstate(divide="ignore"):
            if label_absence > 0:
                hide_pos = n_hidden * np.log(label_absence) + n_other * np.log1p(-label_absence)
            else:
                hide_pos = np.where(n_hidden == 0, 0.0, -np.inf)
            hide_neg = np.where(n_hidden == 0, 0.0, -np.inf)
        log_pos.append(base + norm.logcdf(z) + hide_pos)
        log_neg.append(base + norm.logcdf(-z) + hide_neg)
    pos, neg = logsumexp(np.array(log_pos), axis=0), logsumexp(np.array(log_neg), axis=0)
    return np.exp(pos - np.logaddexp(pos, neg))
