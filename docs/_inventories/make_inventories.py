"""Write the small intersphinx inventories of the documentation (``docs/_inventories/*.inv``).

The documentation links to the objects of Python, numpy, scipy, scikit-learn, pandas, dask,
matplotlib and joblib. Sphinx finds their addresses in each project's ``objects.inv``, which
``intersphinx`` normally downloads at every build; the build machine and CI have no network,
and a downloaded inventory changes under a build. These files list, instead, the objects, terms
and labels this documentation refers to, each with its address in the project's online
documentation (relative to the base URL given in ``docs/conf.py``), in Sphinx's inventory
format, version 2: four header lines, then zlib-compressed lines
``name domain:role priority uri dispname`` (``$`` in ``uri`` stands for ``name``, ``-`` as
``dispname`` for ``name``).

When a docstring or page refers to an object that is missing here, the build fails (nitpicky);
add the object to ``ENTRIES`` with its real address and run, from the repository root::

    .venv/bin/python docs/_inventories/make_inventories.py

``tests/test_docs.py`` checks that the committed files hold exactly these entries.
"""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _generated(names, *, role, page):
    """Entries of several objects whose addresses follow one pattern (``$`` for the name)."""
    return [(name, role, page) for name in names]


# project -> (title, version of the documentation the addresses were taken from, entries);
# an entry is (name, "domain:role", uri) or (name, "domain:role", uri, dispname).
ENTRIES: dict[str, tuple[str, str, list[tuple]]] = {
    "python": ("Python", "3.13", [
        *_generated(["int", "float", "bool", "object", "complex", "slice", "type"],
                    role="py:class", page="library/functions.html#$"),
        *_generated(["str", "list", "dict", "tuple", "set", "frozenset", "range", "bytes"],
                    role="py:class", page="library/stdtypes.html#$"),
        *_generated(["callable", "len", "isinstance", "repr", "sorted", "zip", "print"],
                    role="py:function", page="library/functions.html#$"),
        *_generated(["None", "True", "False", "NotImplemented", "Ellipsis"],
                    role="py:data", page="library/constants.html#$"),
        *_generated(["Exception", "ValueError", "TypeError", "KeyError", "IndexError",
                     "RuntimeError", "NotImplementedError", "OSError", "FileNotFoundError",
                     "ImportError", "ModuleNotFoundError", "MemoryError", "Warning",
                     "UserWarning", "RuntimeWarning", "DeprecationWarning", "FutureWarning"],
                    role="py:exception", page="library/exceptions.html#$"),
        ("pathlib", "py:module", "library/pathlib.html#module-pathlib"),
        ("pathlib.Path", "py:class", "library/pathlib.html#$"),
        ("os.PathLike", "py:class", "library/os.html#$"),
        ("os.environ", "py:data", "library/os.html#$"),
        ("collections.namedtuple", "py:function", "library/collections.html#$"),
        ("contextlib.contextmanager", "py:function", "library/contextlib.html#$"),
        ("functools.partial", "py:function", "library/functools.html#$"),
        ("warnings.warn", "py:function", "library/warnings.html#$"),
        ("typing.NamedTuple", "py:class", "library/typing.html#$"),
        *_generated(["collections.abc.Callable", "collections.abc.Iterable",
                     "collections.abc.Iterator", "collections.abc.Mapping",
                     "collections.abc.Sequence"],
                    role="py:class", page="library/collections.abc.html#$"),
        *_generated(["sequence", "iterable", "iterator", "generator", "mapping",
                     "file object", "path-like object", "named tuple", "callable"],
                    role="std:term", page="glossary.html#term-$"),
        ("bltin-boolean-values", "std:label", "library/stdtypes.html#boolean-type-bool",
         "Boolean Type - bool"),
        ("typebool", "std:label", "library/stdtypes.html#boolean-type-bool",
         "Boolean Type - bool"),
        ("truth", "std:label", "library/stdtypes.html#truth-value-testing",
         "Truth Value Testing"),
    ]),
    "numpy": ("NumPy", "2.4", [
        ("numpy", "py:module", "reference/index.html#module-numpy"),
        *_generated(["numpy.ndarray", "numpy.dtype", "numpy.memmap"],
                    role="py:class", page="reference/generated/$.html#$"),
        *_generated(["numpy.asarray", "numpy.unique", "numpy.nan_to_num", "numpy.random.rand"],
                    role="py:function", page="reference/generated/$.html#$"),
        *_generated(["numpy.float64", "numpy.float32", "numpy.int64", "numpy.int32",
                     "numpy.intp", "numpy.bool"],
                    role="py:class", page="reference/arrays.scalars.html#$"),
        *_generated(["numpy.nan", "numpy.inf"], role="py:data", page="reference/constants.html#$"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
        ("numpy.random.default_rng", "py:function", "reference/random/generator.html#$"),
        ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
        ("array_like", "std:term", "glossary.html#term-array_like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars",
         "Scalars"),
    ]),
    "scipy": ("SciPy", "1.17", [
        ("scipy.sparse", "py:module", "reference/sparse.html#module-scipy.sparse"),
        *_generated(["scipy.sparse.csr_matrix", "scipy.sparse.csr_array",
                     "scipy.sparse.csc_matrix", "scipy.sparse.csc_array",
                     "scipy.sparse.coo_matrix", "scipy.sparse.spmatrix", "scipy.sparse.sparray",
                     "scipy.optimize.OptimizeResult"],
                    role="py:class", page="reference/generated/$.html#$"),
        *_generated(["scipy.sparse.issparse", "scipy.optimize.linprog", "scipy.optimize.milp",
                     "scipy.optimize.minimize"],
                    role="py:function", page="reference/generated/$.html#$"),
    ]),
    "sklearn": ("scikit-learn", "1.9", [
        *_generated(["sklearn.base.BaseEstimator", "sklearn.base.ClassifierMixin",
                     "sklearn.base.TransformerMixin", "sklearn.svm.SVC", "sklearn.svm.LinearSVC",
                     "sklearn.svm.SVR", "sklearn.linear_model.LogisticRegression",
                     "sklearn.linear_model.Perceptron", "sklearn.linear_model.SGDClassifier",
                     "sklearn.ensemble.AdaBoostClassifier", "sklearn.ensemble.BaggingClassifier",
                     "sklearn.impute.SimpleImputer", "sklearn.impute.MissingIndicator",
                     "sklearn.mixture.GaussianMixture", "sklearn.pipeline.Pipeline",
                     "sklearn.preprocessing.StandardScaler", "sklearn.frozen.FrozenEstimator",
                     "sklearn.model_selection.GridSearchCV",
                     "sklearn.model_selection.StratifiedKFold",
                     "sklearn.model_selection.RepeatedStratifiedKFold",
                     "sklearn.exceptions.ConvergenceWarning", "sklearn.utils.Bunch"],
                    role="py:class", page="modules/generated/$.html#$"),
        *_generated(["sklearn.set_config", "sklearn.base.clone",
                     "sklearn.model_selection.train_test_split",
                     "sklearn.model_selection.cross_validate",
                     "sklearn.model_selection.cross_val_score", "sklearn.model_selection.check_cv",
                     "sklearn.metrics.make_scorer", "sklearn.metrics.get_scorer",
                     "sklearn.metrics.get_scorer_names", "sklearn.datasets.load_breast_cancer",
                     "sklearn.utils.check_random_state",
                     "sklearn.utils.estimator_checks.parametrize_with_checks"],
                    role="py:function", page="modules/generated/$.html#$"),
        *_generated(["estimator", "classifier", "transformer", "meta-estimator", "scorer",
                     "fitted", "random_state", "n_jobs", "sample_weight", "predict_proba",
                     "decision_function", "classes_", "n_features_in_", "feature_names_in_"],
                    role="std:term", page="glossary.html#term-$"),
        ("cv splitter", "std:term", "glossary.html#term-CV-splitter", "CV splitter"),
        ("metadata_routing", "std:label", "metadata_routing.html#metadata-routing",
         "Metadata Routing"),
    ]),
    "pandas": ("pandas", "3.1", [
        *_generated(["pandas.DataFrame", "pandas.Series", "pandas.Index",
                     "pandas.CategoricalDtype"],
                    role="py:class", page="reference/api/$.html#$"),
        *_generated(["pandas.read_csv", "pandas.read_parquet"],
                    role="py:function", page="reference/api/$.html#$"),
    ]),
    "dask": ("Dask", "2026.8", [
        *_generated(["dask.array.Array", "dask.dataframe.DataFrame", "dask.dataframe.Series"],
                    role="py:class", page="generated/$.html#$"),
        *_generated(["dask.array.from_array", "dask.array.from_zarr", "dask.compute",
                     "dask.persist"],
                    role="py:function", page="generated/$.html#$"),
    ]),
    "matplotlib": ("Matplotlib", "3.11", [
        *_generated(["matplotlib.axes.Axes", "matplotlib.figure.Figure",
                     "matplotlib.lines.Line2D", "matplotlib.collections.PolyCollection",
                     "matplotlib.collections.FillBetweenPolyCollection"],
                    role="py:class", page="api/_as_gen/$.html#$"),
        *_generated(["matplotlib.pyplot.subplots", "matplotlib.pyplot.show"],
                    role="py:function", page="api/_as_gen/$.html#$"),
        *_generated(["matplotlib.axes.Axes.plot", "matplotlib.axes.Axes.fill_between",
                     "matplotlib.axes.Axes.errorbar"],
                    role="py:method", page="api/_as_gen/$.html#$"),
    ]),
    "joblib": ("joblib", "1.6", [
        *_generated(["joblib.Parallel", "joblib.Memory"],
                    role="py:class", page="generated/$.html#$"),
        *_generated(["joblib.parallel_config", "joblib.delayed", "joblib.dump", "joblib.load"],
                    role="py:function", page="generated/$.html#$"),
    ]),
}

_PRIORITY = {"std:label": -1, "std:term": -1, "py:module": 0}


def inventory_lines(project: str) -> list[str]:
    """The uncompressed object lines of ``project``'s inventory, sorted."""
    lines = []
    for name, role, page, *dispname in ENTRIES[project][2]:
        # "$" in a page stands for the name; a glossary term's anchor has hyphens for spaces
        uri = page.replace("$", name.replace(" ", "-") if role == "std:term" else name)
        if uri.endswith("#" + name):  # the format's abbreviation of an anchor equal to the name
            uri = uri[: -len(name)] + "$"
        display = dispname[0] if dispname else "-"
        lines.append(f"{name} {role} {_PRIORITY.get(role, 1)} {uri} {display}")
    return sorted(set(lines))


def inventory_bytes(project: str) -> bytes:
    """The whole ``objects.inv`` of ``project``: header and compressed lines."""
    title, version, _ = ENTRIES[project]
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {title}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(line + "\n" for line in inventory_lines(project))
    return header.encode() + zlib.compress(body.encode(), 9)


def main() -> None:
    for project in ENTRIES:
        path = HERE / f"{project}.inv"
        path.write_bytes(inventory_bytes(project))
        print(f"{path.name}: {len(inventory_lines(project))} entries")


if __name__ == "__main__":
    main()
