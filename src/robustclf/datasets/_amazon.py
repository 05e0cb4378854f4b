"""Loader for the Blitzer et al. (2007) multi-domain Amazon sentiment data, ``processed_acl``."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils import Bunch

from ._paths import DATA_ENV_VAR, get_data_home, read_bytes

__all__ = ["load_amazon_reviews", "parse_processed_acl"]

PathLike = str | os.PathLike | None

_SUBDIR = "amazon_sentiment_processed_acl"
_FILES = ("positive.review", "negative.review")
_LABEL_FEATURE = "#label#"
_LABELS = {"negative": 0, "positive": 1}


def parse_processed_acl(text: str, *, source: str = "<text>"):
    """Parse ``processed_acl`` text into (row index, feature name, count) triples and labels.

    Format: one review per line, space-separated ``feature:count`` tokens (unigrams and bigrams,
    bigrams joined with ``_``; a feature may itself contain ``:``, so each token is split at its
    *last* colon), with one ``#label#:positive`` or ``#label#:negative`` token per line
    (conventionally the last). Blank lines are skipped.

    Parameters
    ----------
    text : str
        The file's content.
    source : str, default="<text>"
        Name used in error messages.

    Returns
    -------
    rows : ndarray of int
        The line (review) index of each feature token.
    names : list of str
        The feature of each token.
    counts : ndarray of numpy.int64
        The count of each token.
    labels : ndarray of int of shape (n_reviews,)
        1 = positive, 0 = negative.

    Raises
    ------
    ValueError
        If a line lacks a label or has two, a label is not positive/negative, or a count is not
        an integer.

    Examples
    --------
    >>> from robustclf.datasets import parse_processed_acl
    >>> text = "great:2 good_read:1 #label#:positive\\nboring:1 #label#:negative\\n"
    >>> rows, names, counts, labels = parse_processed_acl(text)
    >>> rows, names
    (array([0, 0, 1]), ['great', 'good_read', 'boring'])
    >>> counts, labels
    (array([2, 1, 1]), array([1, 0]))
    """
    tokens: list[str] = []
    lengths: list[int] = []
    for line in text.splitlines():
        parts = line.split()
        if parts:
            tokens.extend(parts)
            lengths.append(len(parts))
    n_reviews = len(lengths)
    split = [t.rpartition(":") for t in tokens]
    names = np.array([s[0] for s in split], dtype=object)
    values = np.array([s[2] for s in split], dtype=object)
    rows = np.repeat(np.arange(n_reviews), lengths)
    is_label = names == _LABEL_FEATURE
    per_row = np.bincount(rows[is_label], minlength=n_reviews)
    if np.any(per_row != 1):
        line = int(np.flatnonzero(per_row != 1)[0])
        raise ValueError(f"{source}: review {line + 1} has {per_row[line]} '#label#:' tokens, "
                         "expected exactly one.")
    label_values = pd.Series(values[is_label]).map(_LABELS)
    if label_values.isna().any():
        bad = sorted(set(values[is_label][label_values.isna().to_numpy()]))
        raise ValueError(f"{source}: labels must be 'positive' or 'negative', found {bad}.")
    labels = np.empty(n_reviews, dtype=np.int64)
    labels[rows[is_label]] = label_values.to_numpy(dtype=np.int64)
    keep = ~is_label
    count_strings = values[keep].astype(str)
    bad = ~np.char.isdigit(count_strings) | (names[keep] == "")
    if bad.any():
        token = tokens[int(np.flatnonzero(keep)[np.flatnonzero(bad)[0]])]
        raise ValueError(f"{source}: token {token!r} is not of the form feature:count.")
    counts = count_strings.astype(np.int64)
    return rows[keep], names[keep].tolist(), counts, labels


def _domain_folder(domain: str, path, data_dir) -> Path:
    if path is not None:
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise FileNotFoundError(f"path={str(path)!r} is not an existing folder.")
        return folder
    home = get_data_home(data_dir)
    looked = []
    if home is not None:
        for folder in (home / _SUBDIR / domain, home / domain):
            if any((folder / (n + s)).is_file() for n in _FILES for s in ("", ".gz")):
                return folder
            looked.append(folder)
    available = ""
    if home is not None and (home / _SUBDIR).is_dir():
        domains = sorted(p.name for p in (home / _SUBDIR).iterdir() if p.is_dir())
        available = f" Domains available there: {domains}."
    where = ", ".join(str(p) for p in looked) or "(no data folder configured)"
    raise FileNotFoundError(
        f"Could not find the Amazon reviews of domain={domain!r} (looked in {where}).{available} "
        f"Set the {DATA_ENV_VAR} environment variable to the folder holding '{_SUBDIR}/', or "
        "pass data_dir=..., or pass path=... pointing at the domain's folder."
    )


def load_amazon_reviews(domain: str = "books", path: PathLike = None, data_dir: PathLike = None,
                        *, vocabulary: Sequence[str] | None = None, min_df: int = 1,
                        return_X_y: bool = False) -> Bunch | tuple:
    """Load one domain of the Blitzer et al. (2007) Amazon sentiment data as bag-of-words counts.

    Files: ``amazon_sentiment_processed_acl/<domain>/positive.review`` and ``negative.review``
    (plain or ``.gz``) in the ``processed_acl`` format (see :func:`parse_processed_acl`): one
    review per line as ``feature:count`` tokens and a ``#label#:positive|negative`` token. Each
    shared domain (books, kitchen) has 1000 positive and 1000 negative reviews. The unlabeled
    file is not read.

    Parameters
    ----------
    domain : str, default="books"
        Sub-folder name, e.g. ``"books"`` or ``"kitchen"``.
    path : str or path-like, default=None
        The domain's folder itself (overrides ``domain`` and ``data_dir``).
    data_dir : str or path-like, default=None
        Folder holding ``amazon_sentiment_processed_acl/`` (or that folder itself); defaults to
        the ``ROBUSTCLF_DATA`` environment variable.
    vocabulary : sequence of str, default=None
        Fixed column order, e.g. another domain's ``feature_names``, so that two domains share
        columns; features not in it are dropped. By default the vocabulary is every feature of
        this domain, sorted.
    min_df : int, default=1
        Keep only features present in at least ``min_df`` reviews (only without ``vocabulary``).
    return_X_y : bool, default=False
        Return ``(X, y)`` instead of a Bunch (the vocabulary is then lost).

    Returns
    -------
    data : Bunch
        With ``data`` (scipy.sparse CSR, float64 counts, positive reviews first),
        ``target`` (1 = positive, 0 = negative), ``feature_names`` (the vocabulary, object
        array), ``target_names``, ``DESCR``, ``filename`` (the domain folder).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from robustclf.datasets import load_amazon_reviews
    >>> with tempfile.TemporaryDirectory() as folder:  # stand-ins for the two review files
    ...     _ = (Path(folder) / "positive.review").write_text("great:2 bad_book:1 #label#:positive")
    ...     _ = (Path(folder) / "negative.review").write_text("boring:1 #label#:negative")
    ...     reviews = load_amazon_reviews(path=folder)
    >>> reviews.feature_names
    array(['bad_book', 'boring', 'great'], dtype=object)
    >>> reviews.data.toarray(), reviews.target
    (array([[1., 0., 2.],
           [0., 1., 0.]]), array([1, 0]))
    """
    if not isinstance(domain, str) or not domain or os.sep in domain:
        raise ValueError(f"domain must be a folder name such as 'books', got {domain!r}.")
    if isinstance(min_df, bool) or not isinstance(min_df, (int, np.integer)) or min_df < 1:
        raise ValueError(f"min_df must be a positive integer, got {min_df!r}.")
    if vocabulary is not None and min_df != 1:
        raise ValueError("min_df applies only when vocabulary is None; filter the vocabulary "
                         "itself instead.")
    folder = _domain_folder(domain, path, data_dir)
    rows, names, counts, labels, offset = [], [], [], [], 0
    for name in _FILES:
        file = next((folder / (name + s) for s in ("", ".gz") if (folder / (name + s)).is_file()),
                    None)
        if file is None:
            raise FileNotFoundError(f"{folder}: missing {name} (plain or .gz).")
        r, n, c, lab = parse_processed_acl(read_bytes(file).decode("utf-8", errors="replace"),
                                           source=str(file))
        rows.append(r + offset)
        names.extend(n)
        counts.append(c)
        labels.append(lab)
        offset += lab.size
    rows, counts, y = np.concatenate(rows), np.concatenate(counts), np.concatenate(labels)
    if vocabulary is None:
        cols, vocab = pd.factorize(pd.Series(names, dtype=object), sort=True)
        vocab = np.asarray(vocab, dtype=object)
    else:
        vocab = np.asarray(list(vocabulary), dtype=object)
        index = pd.Index(vocab)
        if not index.is_unique:
            raise ValueError("vocabulary must not repeat a feature name.")
        cols = index.get_indexer(pd.Series(names, dtype=object))
        known = cols >= 0
        rows, cols, counts = rows[known], cols[known], counts[known]
    X = sp.csr_matrix((counts.astype(np.float64), (rows, cols)), shape=(y.size, vocab.size))
    X.sum_duplicates()
    if min_df > 1:
        df = np.bincount(X.indices, minlength=X.shape[1])
        kept = np.flatnonzero(df >= min_df)
        X, vocab = X[:, kept].tocsr(), vocab[kept]
    if return_X_y:
        return X, y
    return Bunch(
        data=X, target=y, feature_names=vocab, target_names=np.array(["negative", "positive"],
                                                                      dtype=object),
        DESCR=f"Amazon product reviews, domain {domain!r} (Blitzer, Dredze & Pereira 2007, "
              "processed_acl): unigram and bigram counts; target 1 = positive.",
        filename=str(folder),
    )
