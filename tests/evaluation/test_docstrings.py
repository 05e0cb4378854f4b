"""The Examples sections of robustclf.evaluation run and print what they show."""

import doctest

import pytest

import robustclf.evaluation as evaluation

pytest.importorskip("matplotlib")

_FINDER = doctest.DocTestFinder(exclude_empty=True)
_NAMES = [name for name in evaluation.__all__ if not name.isupper()]


def _examples(name):
    obj = getattr(evaluation, name)
    return [test for test in _FINDER.find(obj, name, globs={}) if test.examples]


@pytest.mark.parametrize("name", _NAMES)
def test_public_names_have_runnable_examples(name):
    tests = _examples(name)
    assert tests, f"{name} has no Examples section"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in tests:
        assert not any(ex.options.get(doctest.SKIP) for ex in test.examples)
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} example(s) of {name} failed"
