"""Synthetic generators of the papers (``make_*``) and loaders of public data files (``load_*``).

Generators
----------
make_label_copies            Dekel & Shamir (2008) §4: noisy separable data + copies of the label
make_threshold               O'Sullivan et al. (2000) §5: THRESHOLD, one value encoded five ways
make_contaminated_logistic   Feng et al. (2014) §6: logistic / sign model + adversarial outliers
make_structurally_missing    Chechik et al. (2007): feature blocks absent by construction (NaN)
make_subtype_missing         Chechik et al. (2007): parts absent per object subtype (NaN)

Loaders
-------
Every loader returns a :class:`sklearn.utils.Bunch` (``data``, ``target``, ``feature_names``,
``target_names``, ``DESCR``, ``filename``), or ``(X, y)`` with ``return_X_y=True``; datasets
with their own test split (MNIST, Horse Colic) add ``data_test`` / ``target_test`` and return
``(X_train, X_test, y_train, y_test)``. Missing values are ``np.nan``.

The library never ships data. Each loader takes ``path`` (the file, or the folder for
multi-file datasets) or ``data_dir`` (the folder holding the dataset folders, laid out as
``spambase/``, ``mnist/``, ``house_votes_84/``, ``amazon_sentiment_processed_acl/<domain>/``,
``hepatitis/``, ``horse_colic/``, ``breast_cancer_wisconsin_original/``). ``data_dir`` defaults
to the ``ROBUSTCLF_DATA`` environment variable and, in a source checkout, to ``../shared/data``
next to the repository (see :func:`get_data_home`). Files may be plain or gzipped.
"""

from ._amazon import load_amazon_reviews, parse_processed_acl
from ._catalog import DATASETS, DatasetSplit, load_split
from ._files import load_table
from ._generators import make_contaminated_logistic, make_label_copies, make_structurally_missing
from ._mnist import load_mnist, read_idx
from ._paths import DATA_ENV_VAR, get_data_home
from ._subtypes import make_subtype_missing
from ._threshold import THRESHOLD_ENCODINGS, encode_threshold_value, make_threshold
from ._uci import (
    load_breast_cancer_wisconsin,
    load_hepatitis,
    load_horse_colic,
    load_spambase,
    load_votes,
)

__all__ = [
    "DATASETS",
    "DatasetSplit",
    "load_split",
    "DATA_ENV_VAR",
    "THRESHOLD_ENCODINGS",
    "encode_threshold_value",
    "get_data_home",
    "load_amazon_reviews",
    "load_breast_cancer_wisconsin",
    "load_hepatitis",
    "load_horse_colic",
    "load_mnist",
    "load_spambase",
    "load_table",
    "load_votes",
    "make_contaminated_logistic",
    "make_label_copies",
    "make_structurally_missing",
    "make_subtype_missing",
    "make_threshold",
    "parse_processed_acl",
    "read_idx",
]
