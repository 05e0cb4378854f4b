"""Named train/test splits for the command line and the demo.

``robustclf curve --dataset NAME`` and the demo refer to data by these names. Each entry builds a
split with a fixed protocol; entries marked *shared* read the public files (see
:func:`robustclf.datasets.get_data_home`) and fail with a clear message when they are absent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from .._validation import check_generator
from ._generators import make_label_copies
from ._mnist import load_mnist
from ._threshold import make_threshold
from ._uci import load_spambase

__all__ = ["DatasetSplit", "DATASETS", "load_split"]


@dataclass
class DatasetSplit:
    """A train/test split with what corruptions may need to know about its features.

    Attributes
    ----------
    X_train, y_train, X_test, y_test : ndarray
        Training and test rows and labels.
    groups : list of ndarray of int or None
        Natural feature groups (whole encodings, label copies), for group corruptions.
    feature_values : ndarray or None
        Natural feature values v_j for value-budgeted adversaries (None: uniform).
    description : str
        One line: what the data is and how it was split.

    Examples
    --------
    >>> from robustclf.datasets import load_split
    >>> split = load_split("label_copies", random_state=0)
    >>> split.X_train.shape, split.X_test.shape
    ((500, 22), (500, 22))
    >>> split.groups
    [array([20]), array([21])]
    >>> split.feature_values[-3:]
    array([ 1., 10., 10.])
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    groups: list[np.ndarray] | None = None
    feature_values: np.ndarray | None = None
    description: str = ""


def _split(X, y, test_size, seed):
    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)


def _digits(seed, data_dir):
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = _split(X / 16.0, y, 0.5, seed)
    return DatasetSplit(X_train, y_train, X_test, y_test, description=(
        "scikit-learn's bundled 8x8 digits (1,797 images, 10 classes), pixels scaled to [0, 1], "
        "stratified 50/50 split"))


def _label_copies(seed, data_dir):
    X, y = make_label_copies(1000, random_state=seed)
    X_train, X_test, y_train, y_test = _split(X, y, 0.5, seed)
    values = np.r_[np.ones(20), 10.0, 10.0]
    return DatasetSplit(X_train, y_train, X_test, y_test, groups=[np.array([20]), np.array([21])],
                        feature_values=values, description=(
        "Dekel & Shamir (2008) §4 sanity check: 1,000 separable points in R^20, labels flipped "
        "w.p. 0.2, two copies of the label as features 21-22 (the groups); 50/50 split"))


def _threshold(seed, data_dir):
    rng = check_generator(seed)
    X_train, y_train, groups, t = make_threshold(300, random_state=rng, return_threshold=True)
    X_test, y_test, _ = make_threshold(1000, threshold=t, random_state=rng)
    return DatasetSplit(X_train, y_train, X_test, y_test, groups=groups, description=(
        "O'Sullivan et al. (2000) §5 THRESHOLD: a value in [0, 100] against a threshold, encoded "
        "five ways (Gray, peaks, binary, unary, value/100: the groups); 300 train / 1,000 test"))


def _spambase(seed, data_dir):
    X, y = load_spambase(data_dir=data_dir, return_X_y=True)
    X = X / np.maximum(X.max(axis=0), 1e-12)
    X_train, X_test, y_train, y_test = _split(X, y, 0.5, seed)
    return DatasetSplit(X_train, y_train, X_test, y_test, description=(
        "UCI spambase (shared data; 4,601 e-mails, 57 features), each feature divided by its "
        "maximum, stratified 50/50 split"))


def _mnist47(seed, data_dir):
    X_train, X_test, y_train, y_test = load_mnist(data_dir=data_dir, digits=(4, 7), scale=True,
                                                  return_X_y=True)
    return DatasetSplit(X_train, y_train, X_test, y_test, description=(
        "MNIST digits 4 vs 7 (shared data), pixels scaled to [0, 1], the standard train/test "
        "split"))


#: The splits :func:`load_split` builds: name -> (builder(seed, data_dir) returning a
#: :class:`DatasetSplit`, whether it needs the shared data).
DATASETS: dict[str, tuple[Callable[..., DatasetSplit], bool]] = {
    "digits": (_digits, False),
    "label_copies": (_label_copies, False),
    "threshold": (_threshold, False),
    "spambase": (_spambase, True),
    "mnist47": (_mnist47, True),
}


def load_split(name: str, *, random_state: int = 0, data_dir=None) -> DatasetSplit:
    """Build the named split (see :data:`DATASETS`).

    Examples
    --------
    >>> from robustclf.datasets import DATASETS, load_split
    >>> sorted(DATASETS)
    ['digits', 'label_copies', 'mnist47', 'spambase', 'threshold']
    >>> split = load_split("threshold", random_state=0)
    >>> split.X_train.shape, split.X_test.shape
    ((300, 215), (1000, 215))
    >>> [len(g) for g in split.groups]
    [7, 100, 7, 100, 1]
    """
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(DATASETS)}.")
    builder, _ = DATASETS[name]
    return builder(random_state, data_dir)
