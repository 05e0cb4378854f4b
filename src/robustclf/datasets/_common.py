"""Small helpers shared by the generators."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = ["RandomState", "gaussian_with_margin"]

#: what every ``random_state`` argument accepts (a legacy ``RandomState`` works too)
RandomState = int | np.random.Generator | None


def gaussian_with_margin(rng: np.random.Generator, n_samples: int, directions: np.ndarray,
                         margin: float) -> tuple[np.ndarray, np.ndarray]:
    """Standard Gaussian points conditioned on ``|u . x| >= margin``, sampled exactly.

    For a unit vector ``u``, ``x ~ N(0, I)`` splits into the independent parts ``z = u . x ~
    N(0, 1)`` and ``x - z u``. Conditioning on ``|z| >= margin`` therefore only changes ``z``,
    which is drawn from the two-sided truncated normal by inverting its CDF. This is the same
    distribution rejection sampling (draw, discard points with ``|u . x| < margin``) produces,
    without a loop and for any margin.

    Parameters
    ----------
    rng : numpy Generator
    n_samples : int
    directions : ndarray of shape (n_features,) or (n_samples, n_features)
        Unit vector(s) ``u`` (one per row when 2-D; entries of absent features may be 0).
    margin : float
        Non-negative; 0 gives plain Gaussian points.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    z : ndarray of shape (n_samples,)
        The signed distance ``u . x`` of each point from the hyperplane ``u . x = 0``.
    """
    n_features = directions.shape[-1]
    g = rng.standard_normal((n_samples, n_features))
    projection = g @ directions if directions.ndim == 1 else np.einsum("ij,ij->i", g, directions)
    tail = ndtr(-margin)  # P(z >= margin) for z ~ N(0, 1)
    if not tail > 0:
        raise ValueError(f"margin={margin:g} is too large: no Gaussian point is that far from "
                         "the hyperplane in double precision (use a margin below ~35).")
    q = (1.0 - rng.random(n_samples)) * tail  # uniform on (0, tail]
    z = -ndtri(q) * np.where(rng.random(n_samples) < 0.5, -1.0, 1.0)
    u = directions if directions.ndim == 2 else directions[None, :]
    X = g + (z - projection)[:, None] * u
    return X, z
