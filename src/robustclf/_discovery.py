"""Find the library's public estimators, corruptions and functions by introspection.

The common tests run scikit-learn's estimator checks over :func:`all_estimators`, and the
fuzzing harness (``tests/fuzz``) runs every object of :func:`all_estimators`,
:func:`all_corruptions` and :func:`public_functions` over its input families, so a new public
class or function is tested as soon as it is exported, without editing a list by hand (the
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

    Examples
    --------
    >>> from robustclf._discovery import all_estimators
    >>> [name for name, _ in all_estimators("transformer")]
    ['GaussianMixtureImputer', 'GroupMissingIndicator']
    """
    if kind is not None and kind not in _KINDS:
        raise ValueError(f"kind must be one of {sorted(_KINDS)} or None, got {kind!r}")
    bases = (_KINDS[kind],) if kind else tuple(_KINDS.values())
    found: dict[str, type] = {}
    for _, _, obj in _exported():
        if (inspect.isclass(obj) and obj.__module__.startswith("robustclf")
                and issubclass(obj, BaseEstimator) and issubclass(obj, bases)
                and not inspect.isabstract(obj)):
            found[obj.__name__] = obj
    return sorted(found.items())


def _is_concrete_corruption(cls) -> bool:
    """Whether ``cls`` implements the hook its base class leaves to subclasses: the deletion
    mask of a :class:`~robustclf.corruption.DeletionCorruption`, the corrupted matrix of any
    other :class:`~robustclf.corruption.Corruption`."""
    from .corruption import Corruption, DeletionCorruption

    if issubclass(cls, DeletionCorruption):
        return cls._deletion_mask is not DeletionCorruption._deletion_mask
    return cls._corrupt is not Corruption._corrupt


def all_corruptions() -> list[tuple[str, type]]:
    """Every concrete public corruption class of robustclf, sorted by name.

    A class counts when a public module exports it, it is defined in robustclf, it subclasses
    :class:`~robustclf.corruption.Corruption` and it implements the hook its base leaves
    to subclasses (so the bases ``Corruption`` and ``DeletionCorruption`` do not count).

    Returns
    -------
    list of (str, type)
        ``(class name, class)`` pairs, each class once.

    Examples
    --------
    >>> from robustclf._discovery import all_corruptions
    >>> [name for name, _ in all_corruptions()][:3]
    ['BlackBoxGreedyDeletion', 'FeatureNoise', 'GreedyDeletion']
    """
    from .corruption import Corruption

    found: dict[str, type] = {}
    for _, _, obj in _exported():
        if (inspect.isclass(obj) and issubclass(obj, Corruption)
                and _is_concrete_corruption(obj)):
            found[obj.__name__] = obj
    return sorted(found.items())


def public_functions(module) -> list[tuple[str, object]]:
    """The public functions a module of robustclf exports, sorted by name.

    Parameters
    ----------
    module : module or str
        A module of robustclf, or its dotted name (e.g. ``"robustclf.certify"``).

    Returns
    -------
    list of (str, function)
        ``(name, function)`` for every name of the module's ``__all__`` (or every public name
        when it has none) that is a plain Python function defined in robustclf; classes and
        constants are left out.

    Examples
    --------
    >>> from robustclf._discovery import public_functions
    >>> [name for name, _ in public_functions("robustclf.certify")]
    ['certified_error', 'worst_case_margin']
    """
    if isinstance(module, str):
        module = importlib.import_module(module)
    return sorted((name, obj) for name, obj in _exports(module)
                  if inspect.isfunction(obj) and obj.__module__.startswith("robustclf"))


def _exports(module):
    """``(name, object)`` for the public names ``module`` exports."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [name for name in vars(module) if not name.startswith("_")]
    for name in names:
        if not name.startswith("_") and hasattr(module, name):
            yield name, getattr(module, name)


def _exported():
    """``(module, name, object)`` for every public name of every public module."""
    for module in _public_modules():
        for name, obj in _exports(module):
            yield module, name, obj
