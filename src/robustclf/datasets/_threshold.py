"""O'Sullivan et al.'s (2000, §5) THRESHOLD domain: one number, encoded five redundant ways."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._validation import check_generator, check_int, check_real
from ._common import RandomState

__all__ = ["make_threshold", "encode_threshold_value", "THRESHOLD_ENCODINGS"]

#: The five encodings of the THRESHOLD value (O'Sullivan et al. 2000), all of them by default.
THRESHOLD_ENCODINGS = ("gray", "peaks", "binary", "unary", "value")
MAX_VALUE = 100
N_BITS = 7  # 2**7 = 128 > 100
N_PEAKS = 100
N_UNARY = 100


def _bits(values: np.ndarray) -> np.ndarray:
    shifts = np.arange(N_BITS - 1, -1, -1)  # most significant bit first
    return ((values[:, None] >> shifts) & 1).astype(np.float64)


def encode_threshold_value(values, encodings: Sequence[str] = THRESHOLD_ENCODINGS, *,
                           peak_width: float = 5.0) -> tuple[np.ndarray, list[np.ndarray]]:
    """Encode integers in 0..100 the ways THRESHOLD does, returning features and groups.

    * ``"gray"``: the 7-bit reflected Gray code ``v ^ (v >> 1)``, most significant bit first
      ("only one feature changes at a time when counting from 0 to 100");
    * ``"peaks"``: 100 features ``exp(-(c_k - v)**2 / (2 peak_width**2))``, a Gaussian centred on
      the value read at 100 evenly spaced positions ``c_k`` from 0 to 100;
    * ``"binary"``: the 7-bit binary code, most significant bit first;
    * ``"unary"``: the thermometer code, ``v`` ones followed by zeros, 100 features;
    * ``"value"``: ``v / 100``, one feature.

    Parameters
    ----------
    values : array-like of int in [0, 100]
    encodings : sequence of str, default=("gray", "peaks", "binary", "unary", "value")
        Which encodings, in which column order; each at most once.
    peak_width : float > 0, default=5.0
        Standard deviation of the peaks code's Gaussian, in value units (the paper does not
        give it).

    Returns
    -------
    X : ndarray of shape (n_values, n_columns)
    groups : list of ndarray of int
        The columns of each encoding, in the order of ``encodings``.

    Examples
    --------
    >>> from robustclf.datasets import encode_threshold_value
    >>> X, groups = encode_threshold_value([0, 37, 100], encodings=("binary", "value"))
    >>> X.shape
    (3, 8)
    >>> X[1, groups[0]]
    array([0., 1., 0., 0., 1., 0., 1.])
    >>> X[:, groups[1]].ravel()
    array([0.  , 0.37, 1.  ])
    """
    values = np.asarray(values)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ValueError("values must be a 1-D array of integers.")
    if values.size and (values.min() < 0 or values.max() > MAX_VALUE):
        raise ValueError(f"values must lie in [0, {MAX_VALUE}].")
    if isinstance(encodings, str) or len(encodings) == 0:
        raise ValueError(f"encodings must be a non-empty sequence of names from "
                         f"{THRESHOLD_ENCODINGS}, got {encodings!r}.")
    unknown = [e for e in encodings if e not in THRESHOLD_ENCODINGS]
    if unknown:
        raise ValueError(f"unknown encoding(s) {unknown}; encodings must be chosen from "
                         f"{THRESHOLD_ENCODINGS}.")
    if len(set(encodings)) != len(encodings):
        raise ValueError(f"encodings must not repeat a name, got {list(encodings)}.")
    peak_width = check_real(peak_width, "peak_width")
    if peak_width <= 0:
        raise ValueError(f"peak_width must be positive, got {peak_width}.")

    values = values.astype(np.int64)
    blocks = []
    for name in encodings:
        if name == "gray":
            blocks.append(_bits(values ^ (values >> 1)))
        elif name == "binary":
            blocks.append(_bits(values))
        elif name == "peaks":
            centres = np.linspace(0.0, MAX_VALUE, N_PEAKS)
            blocks.append(np.exp(-((centres - values[:, None]) ** 2) / (2 * peak_width**2)))
        elif name == "unary":
            blocks.append((np.arange(N_UNARY) < values[:, None]).astype(np.float64))
        else:  # "value"
            blocks.append(values[:, None] / MAX_VALUE)
    edges = np.cumsum([0] + [b.shape[1] for b in blocks])
    groups = [np.arange(a, b, dtype=np.intp) for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return np.hstack(blocks), groups


def make_threshold(n_samples: int = 100, *, encodings: Sequence[str] = THRESHOLD_ENCODINGS,
                   threshold: float | None = None, peak_width: float = 5.0,
                   random_state: RandomState = None, return_threshold: bool = False) -> tuple:
    """O'Sullivan et al.'s (2000, §5) synthetic THRESHOLD problem with redundant encodings.

    "A threshold function is drawn uniformly from the interval [25, 75]. Examples are drawn
    uniformly from [0, 100] and example features are encoded in several ways: with a Gray code,
    a 'peaks' code, a binary code, a unary code, and the value divided by 100." The label is
    ``[v > t]``. Several disjoint groups of features each predict the label on their own, which
    is what FeatureBoost exploits and what grouped corruption attacks.

    Choices where the paper is silent:

    * Values are *integers* 0..100 drawn uniformly (101 values): the Gray, binary and unary
      codes are defined on integers ("counting from 0 to 100"; unary "outputs as many 1's as
      the example value ... to reach 100 features"). The threshold is real, so no value equals
      it.
    * The peaks code uses 100 Gaussians of standard deviation ``peak_width`` (default 5) at
      evenly spaced positions 0..100; binary and Gray codes use 7 bits. See
      :func:`encode_threshold_value`. With all five encodings there are 7 + 100 + 7 + 100 + 1 =
      215 columns.
    * The threshold is drawn *once per call*. **Train and test sets must share it**: draw the
      training set with ``return_threshold=True`` and pass that threshold to the call that
      makes the test set (with another seed), e.g.::

          X, y, groups, t = make_threshold(100, random_state=0, return_threshold=True)
          X_test, y_test, _ = make_threshold(300, threshold=t, random_state=1)

    Parameters
    ----------
    n_samples : int, default=100
        The paper uses 100 training and 300 test examples.
    encodings : sequence of str, default=("gray", "peaks", "binary", "unary", "value")
        The encodings to include, in column order.
    threshold : float, default=None
        The threshold ``t``; drawn uniformly from [25, 75] when None.
    peak_width : float > 0, default=5.0
    random_state : None, int or numpy Generator, default=None
    return_threshold : bool, default=False
        Also return the threshold used.

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns)
    y : ndarray of int of shape (n_samples,)
        ``1`` when the value exceeds the threshold, else ``0``.
    groups : list of ndarray of int
        The columns of each encoding, in the order of ``encodings``; pass them to grouped
        corruptions to delete whole encodings.
    threshold : float
        Only if ``return_threshold``: the threshold used.

    Examples
    --------
    >>> from robustclf.datasets import make_threshold
    >>> X, y, groups, t = make_threshold(100, random_state=0, return_threshold=True)
    >>> X.shape, [len(g) for g in groups]
    ((100, 215), [7, 100, 7, 100, 1])
    >>> X_test, y_test, _ = make_threshold(300, threshold=t, random_state=1)
    >>> X_test.shape, sorted(set(y_test.tolist()))
    ((300, 215), [0, 1])
    """
    n_samples = check_int(n_samples, "n_samples")
    if threshold is not None:
        threshold = check_real(threshold, "threshold")
    rng = check_generator(random_state)
    if threshold is None:
        threshold = float(rng.uniform(25.0, 75.0))
    values = rng.integers(0, MAX_VALUE + 1, size=n_samples)
    X, groups = encode_threshold_value(values, encodings, peak_width=peak_width)
    y = (values > threshold).astype(np.int64)
    return (X, y, groups, threshold) if return_threshold else (X, y, groups)
