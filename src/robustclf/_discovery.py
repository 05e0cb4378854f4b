"""Find the library's public estimators by introspection.

The common tests run scikit-learn's estimator checks over :func:`all_estimators`, so a new
public class is checked as soon as it is exported, without editing a list by hand (the
``all_estimators`` idiom of scikit-learn and imbalanced-learn).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin

_KINDS = {"classifier": ClassifierMixin, "transformer": TransformerMixin}


def _public_modules():
    import robustclf

    yield robustclf
    for info in pkgutil.walk_packages(robustclf.__path__, "robustclf."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            yield importlib.import_module(info.name)


def all_estimators(kind: str | None = None) -> list[tuple[str, type]]:
    """Every public estimator class of robustclf, sorted by name.

    A class counts when a public module exports it (its ``__all__``, or any public name when
    the module has none), it is defined in robustclf, it is concrete, and it is a classifier or
    a transformer (corruptions and noise models share ``BaseEstimator``'s parameter handling
    but are not estimators).

    Parameters
    ----------
    kind : {"classifier", "transformer"} or None, default=None
        Keep only classifiers or only transformers; ``None`` keeps both.

    Returns
    -------
    list of (str, type)
        ``(class name, class)`` pairs, each class once.
    """
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"kind must be one of {sorted(_KINDS)} or None, got {kind!r}")
    bases = (_KINDS[kind],) if kind else tuple(_KINDS.values())
    found: dict[str, type] = {}
    for module in _public_modules():
        names = getattr(module, "__all__", None)
        if names is None:
            names = [name for name in vars(module) if not name.startswith("_")]
        for name in names:
            obj = getattr(module, name, None)
            if (inspect.isclass(obj) and not name.startswith("_")
                    and obj.__module__.startswith("robustclf")
                    and issubclass(obj, BaseEstimator) and issubclass(obj, bases)
                    and not inspect.isabstract(obj)):
                found[obj.__name__] = obj
    return sorted(found.items())
