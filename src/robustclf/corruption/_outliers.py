"""Training-time contamination: outliers labelled against a model (Feng et al. 2014, §6)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._blockwise import is_dask_collection
from .._validation import check_generator, check_labels, check_matrix, check_nonnegative
from ._containers import FrameData, SparseData, is_dataframe
from ._random import _round_half_up

__all__ = ["inject_outliers"]


def inject_outliers(X, y, model, *, n_outliers=None, outlier_ratio=None, scale=10.0,
                    random_state=None):
    """Append outliers that follow the model with the opposite sign (Feng et al. 2014, §6).

    Feng, Xu, Mannor & Yan (2014, §6) contaminate ``n`` authentic samples with ``n1`` outliers
    whose entries are "i.i.d. random variables from uniform distribution [-sigma_o, sigma_o]" and
    whose labels are ``y_o = sign(<-beta, x_o>)``: "outliers follow the model having opposite sign
    as inliers, which according to our experiment, is the most adversarial outlier model". The
    outlier ratio ``lambda = n1 / n`` may exceed 1 (the paper sweeps it from 0 to 1.2).

    Parameters
    ----------
    X : {array-like, DataFrame, sparse matrix} of shape (n_samples, n_features)
        The authentic samples. NaN and infinite values are rejected; a DataFrame must have
        numeric columns only (the outliers are real vectors).
    y : array-like or Series of shape (n_samples,)
        Their labels; ``y_out`` keeps this dtype.
    model : array-like of shape (n_features,) or classifier
        The model the outliers contradict.

        * A coefficient vector ``beta`` (a ``(1, n_features)`` ``coef_`` array is accepted too):
          an outlier ``x`` gets the label opposite to ``sign(x @ beta)``, i.e. ``-1`` when
          ``x @ beta > 0`` and ``+1`` otherwise. A tie ``x @ beta == 0`` (probability zero for
          continuous outliers) thus gets ``+1``, the opposite of the negative class that
          scikit-learn's linear classifiers predict at a zero score. If ``y``'s labels are ``-1``
          and ``+1`` (or a subset of them, in a signed integer or float dtype) the labels are
          ``-1`` / ``+1``; if ``y`` has exactly two other labels, ``-1`` stands for the smaller
          and ``+1`` for the larger (scikit-learn's ``classes_`` order).
        * A fitted binary scikit-learn classifier (anything with ``predict`` and two ``classes_``):
          an outlier gets the class the classifier does *not* predict for it.
    n_outliers : int, default=None
        Number of outliers ``n1``. Give exactly one of ``n_outliers`` and ``outlier_ratio``.
    outlier_ratio : float, default=None
        The paper's ``lambda = n1 / n`` (any non-negative value, e.g. up to 1.2):
        ``n1 = floor(outlier_ratio * n + 1/2)``, the nearest integer with halves rounded up (the
        same rule, and tolerance, as the corruptions' ``fraction``).
    scale : float, default=10.0
        Half-width ``sigma_o`` of the uniform distribution of the outliers' entries; must be
        positive. The paper uses 10.
    random_state : None, int or numpy Generator, default=None
        Seed of the outliers.

    Returns
    -------
    X_out : {ndarray, DataFrame, sparse matrix} of shape (n_samples + n_outliers, n_features)
        The authentic rows first, in their order, then the ``n1`` outliers, in ``X``'s
        container: a float64 ndarray; a DataFrame with ``X``'s columns, a fresh
        ``RangeIndex(n_samples + n1)`` (the authentic rows' labels are not kept, so that the
        outliers never share a label with them) and ``X``'s dtypes where the outliers' real
        values fit them (integer columns become float64); or a float64 sparse matrix of ``X``'s
        format, whose authentic rows keep their sparsity (the outlier rows are dense by nature).
        A model fitted on a DataFrame (or sparse matrix) is queried with the outliers in the
        same container.
    y_out : ndarray or Series of shape (n_samples + n_outliers,)
        ``y`` followed by the outliers' labels, with ``y``'s dtype; a Series (with ``y``'s name
        and ``X_out``'s index) when ``y`` is one.
    is_outlier : ndarray of bool of shape (n_samples + n_outliers,)
        True on the appended outlier rows.

    References
    ----------
    .. [1] J. Feng, H. Xu, S. Mannor and S. Yan. Robust logistic regression and classification.
       NIPS 2014, §3.1 and §6.

    Examples
    --------
    >>> import numpy as np
    >>> from robustclf.corruption import inject_outliers
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 3))
    >>> beta = np.array([1.0, 0.0, 0.0])
    >>> y = np.where(X @ beta > 0, 1, -1)
    >>> X_out, y_out, is_outlier = inject_outliers(X, y, beta, outlier_ratio=0.2, random_state=0)
    >>> X_out.shape, int(is_outlier.sum())
    ((120, 3), 20)
    >>> bool(np.all(y_out[is_outlier] == -np.sign(X_out[is_outlier] @ beta)))
    True
    """
    if is_dask_collection(X) or is_dask_collection(y):
        raise ValueError(
            "inject_outliers takes in-memory X and y (it would read a dask collection whole); "
            "inject the outliers into an in-memory training sample, or build them with "
            "dask.array and da.concatenate them to X.")
    data = _NumericData(X)
    X = data.values
    n_samples, n_features = X.shape
    y_in, y = y, check_labels(y, n_samples)
    n_outliers = _resolve_n_outliers(n_outliers, outlier_ratio, n_samples)
    scale = check_nonnegative(scale, "scale")
    if scale == 0:
        raise ValueError("scale must be positive: outliers at the origin have no side.")
    rng = check_generator(random_state)

    X_outliers = rng.uniform(-scale, scale, size=(n_outliers, n_features))
    labels = _opposite_labels(model, X_outliers, y, data.model_input)
    try:
        cast = labels.astype(y.dtype)
    except (TypeError, ValueError):
        cast = None
    if cast is None or not np.array_equal(cast, labels):
        raise ValueError(
            f"model's labels {np.unique(labels).tolist()} cannot be stored in y's dtype {y.dtype}."
        )
    y_out = np.concatenate([y, cast])
    is_outlier = np.arange(n_samples + n_outliers) >= n_samples
    if data.kind == "array":
        return np.concatenate([X, X_outliers], axis=0), y_out, is_outlier
    if data.kind == "sparse":
        stacked = sp.vstack([X, sp.csr_matrix(X_outliers)], format="csr")
        return data.restore(stacked), y_out, is_outlier
    import pandas as pd

    index = pd.RangeIndex(n_samples + n_outliers)
    X_out = data.restore(np.concatenate([X, X_outliers], axis=0), index=index)
    if isinstance(y_in, pd.Series):
        y_out = pd.Series(y_out, index=index, name=y_in.name)
    return X_out, y_out, is_outlier


class _NumericData:
    """X as inject_outliers reads it: a float64 copy of its values, and how to write back."""

    def __init__(self, X):
        if sp.issparse(X):
            self.kind, self.adaptor = "sparse", SparseData(X)
        elif is_dataframe(X):
            self.kind, self.adaptor = "DataFrame", FrameData(X)
            if self.adaptor.non_numeric:
                names = self.adaptor.column_names(self.adaptor.non_numeric)
                raise ValueError(
                    f"X has non-numeric column(s) {names}; outliers are uniform real vectors, "
                    "so inject_outliers needs numeric columns (encode or drop them first)."
                )
        else:
            self.kind, self.adaptor = "array", None
        values = X if self.adaptor is None else self.adaptor.values
        self.values = check_matrix(values, accept_sparse=True)  # NaN and inf are rejected
        if self.kind == "sparse":
            self.values.sum_duplicates()

    def restore(self, values, **kwargs):
        return self.adaptor.restore(values, **kwargs)

    def model_input(self, X_outliers: np.ndarray):
        """The outliers in the container a model fitted on X expects."""
        if self.kind == "DataFrame":
            import pandas as pd

            return self.adaptor.restore(X_outliers, index=pd.RangeIndex(X_outliers.shape[0]))
        if self.kind == "sparse":
            return self.adaptor.restore(sp.csr_matrix(X_outliers))
        return X_outliers


def _resolve_n_outliers(n_outliers, outlier_ratio, n_samples: int) -> int:
    """``n1`` from exactly one of a count and the ratio ``lambda = n1 / n``."""
    if (n_outliers is None) == (outlier_ratio is None):
        raise ValueError(
            "give exactly one of n_outliers and outlier_ratio, got "
            f"n_outliers={n_outliers!r}, outlier_ratio={outlier_ratio!r}."
        )
    if n_outliers is not None:
        return check_nonnegative(n_outliers, "n_outliers", integer=True)
    ratio = check_nonnegative(outlier_ratio, "outlier_ratio")
    return int(_round_half_up(ratio * n_samples))


def _opposite_labels(model, X_outliers: np.ndarray, y: np.ndarray,
                     model_input=lambda X: X) -> np.ndarray:
    """Labels of the outliers: the opposite of what ``model`` says about them.

    ``model_input`` turns the outliers into the container the model was fitted on.
    """
    n_features = X_outliers.shape[1]
    if hasattr(model, "predict"):
        check_is_fitted(model)
        classes = getattr(model, "classes_", None)
        if classes is None or len(classes) != 2:
            found = "no classes_" if classes is None else f"{len(classes)} classes"
            raise ValueError(
                f"model must be a fitted binary classifier (two classes_), got {found}; "
                "outliers labelled 'the class it does not predict' need exactly two classes."
            )
        n_in = getattr(model, "n_features_in_", n_features)
        if n_in != n_features:
            raise ValueError(
                f"model was fitted on {n_in} features, but X has {n_features}."
            )
        classes = np.asarray(classes)
        if X_outliers.shape[0] == 0:
            return classes[:0]
        predicted = np.asarray(model.predict(model_input(X_outliers)))
        return np.where(predicted == classes[0], classes[1], classes[0])

    try:
        beta = np.asarray(model, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            "model must be a coefficient vector of shape (n_features,) or a fitted binary "
            f"classifier, got {type(model).__name__}."
        ) from None
    if beta.ndim == 2 and beta.shape[0] == 1:
        beta = beta[0]
    if beta.ndim != 1 or beta.shape[0] != n_features:
        raise ValueError(
            f"model given as coefficients must have shape ({n_features},), got {beta.shape}."
        )
    if not np.all(np.isfinite(beta)):
        raise ValueError("model coefficients must be finite.")
    signs = np.where(X_outliers @ beta > 0, -1, 1)  # opposite of the model; a tie gets +1

    classes = np.unique(y)
    if y.dtype.kind in "if" and np.isin(classes, [-1, 1]).all():
        return signs
    if classes.shape[0] == 2:
        return np.where(signs > 0, classes[1], classes[0])
    raise ValueError(
        "with a coefficient vector as model, y must have labels in {-1, +1} or exactly two "
        f"classes, got {classes.shape[0]} classes."
    )
