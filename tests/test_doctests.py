"""Every docstring example of the library runs and prints what it shows.

The examples are the first code a user copies from the API pages, so they run in the default
test run, module by module, and none is skipped. Every public class and function has one.
"""

import doctest
import importlib
import inspect
import pkgutil

import matplotlib
import pytest

import robustclf

matplotlib.use("Agg")

_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
_FINDER = doctest.DocTestFinder(exclude_empty=True)
MODULES = ["robustclf"] + sorted(
    info.name for info in pkgutil.walk_packages(robustclf.__path__, "robustclf."))
PUBLIC_MODULES = ["robustclf", "robustclf.corruption", "robustclf.evaluation", "robustclf.certify",
                  "robustclf.datasets", "robustclf.noise", "robustclf.feature_values"]

# Public objects without an Examples section, each with the reason (none today: even the
# loaders of the shared datasets show themselves on a small stand-in file).
NO_EXAMPLE: dict[str, str] = {}


def _doctests(modname):
    module = importlib.import_module(modname)
    return [test for test in _FINDER.find(module) if test.examples
            # a re-exported object is tested where it is defined
            and test.name.startswith(modname)]


@pytest.mark.parametrize("modname", [m for m in MODULES if _doctests(m)])
def test_docstring_examples_run(modname):
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    for test in _doctests(modname):
        skipped = [ex.source for ex in test.examples if ex.options.get(doctest.SKIP)]
        assert not skipped, f"{test.name} skips {skipped}: make the example runnable"
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {modname} failed"


def _public_objects():
    for modname in PUBLIC_MODULES:
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{modname}.{name}", obj


def _has_examples(obj) -> bool:
    own = [test for test in _FINDER.find(obj, obj.__name__, globs={})
           if test.examples and test.name == obj.__name__]
    return bool(own)


def test_every_public_object_has_an_example():
    missing = sorted(name for name, obj in _public_objects()
                     if name not in NO_EXAMPLE and not _has_examples(obj))
    assert not missing, f"public objects without an Examples section: {missing}"


def test_exemptions_are_current():
    public = dict(_public_objects())
    stale = sorted(name for name in NO_EXAMPLE if name not in public or _has_examples(public[name]))
    assert not stale, f"NO_EXAMPLE lists objects that are gone or have examples now: {stale}"
