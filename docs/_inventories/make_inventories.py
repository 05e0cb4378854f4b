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
# an entry is (name, "domain:role", uri) or (name, "domain:role", uri, dispname). Listed: what
# the pages and docstrings refer to, what numpydoc links type words to by default ("None",
# "bool", "array-like", ...) and the targets of conf.py's numpydoc_xref_aliases.
ENTRIES: dict[str, tuple[str, str, list[tuple]]] = {
    "python": ("Python", "3.13", [
        *_generated(["int", "float", "object"], role="py:class", page="library/functions.html#$"),
        *_generated(["str", "list", "dict", "tuple"],
                    role="py:class", page="library/stdtypes.html#$"),
        ("callable", "py:function", "library/functions.html#$"),
        *_generated(["None", "True", "False"], role="py:data", page="library/constants.html#$"),
        *_generated(["ValueError", "FileNotFoundError"],
                    role="py:exception", page="library/exceptions.html#$"),
        ("pathlib.Path", "py:class", "library/pathlib.html#$"),
        ("tracemalloc", "py:module", "library/tracemalloc.html#module-tracemalloc"),
        ("collections.namedtuple", "py:function", "library/collections.html#$"),
        ("contextlib.contextmanager", "py:function", "library/contextlib.html#$"),
        *_generated(["sequence", "iterable", "generator", "path-like object"],
                    role="std:term", page="glossary.html#term-$"),
        ("bltin-boolean-values", "std:label", "library/stdtypes.html#boolean-type-bool",
         "Boolean Type - bool"),
    ]),
    "numpy": ("NumPy", "2.4", [
        ("numpy", "py:module", "reference/index.html#module-numpy"),
        *_generated(["numpy.ndarray", "numpy.dtype"],
                    role="py:class", page="reference/generated/$.html#$"),
        ("numpy.int64", "py:class", "reference/arrays.scalars.html#$"),
        *_generated(["numpy.nan", "numpy.inf"], role="py:data", page="reference/constants.html#$"),
        ("numpy.random.Generator", "py:class", "reference/random/generator.html#$"),
        ("numpy.random.RandomState", "py:class", "reference/random/legacy.html#$"),
        ("array_like", "std:term", "glossary.html#term-array_like"),
        ("arrays.scalars", "std:label", "reference/arrays.scalars.html#arrays-scalars",
         "Scalars"),
    ]),
    "scipy": ("SciPy", "1.17", [
        ("scipy.sparse", "py:module", "reference/sparse.html#module-scipy.sparse"),
        ("scipy.sparse.csr_matrix", "py:class", "reference/generated/$.html#$"),
    ]),
    "sklearn": ("scikit-learn", "1.9", [
        *_generated(["sklearn.base.BaseEstimator", "sklearn.svm.SVC", "sklearn.svm.SVR",
                     "sklearn.ensemble.AdaBoostClassifier", "sklearn.ensemble.BaggingClassifier",
                     "sklearn.impute.MissingIndicator", "sklearn.mixture.GaussianMixture",
                     "sklearn.frozen.FrozenEstimator", "sklearn.model_selection.GridSearchCV",
                     "sklearn.model_selection.RepeatedStratifiedKFold",
                     "sklearn.exceptions.ConvergenceWarning", "sklearn.utils.Bunch",
                     "sklearn.utils.metadata_routing.MetadataRequest",
                     "sklearn.svm.LinearSVC", "sklearn.linear_model.LogisticRegression",
                     "sklearn.linear_model.RidgeClassifier", "sklearn.pipeline.Pipeline",
                     "sklearn.preprocessing.StandardScaler", "sklearn.preprocessing.MinMaxScaler",
                     "sklearn.impute.SimpleImputer", "sklearn.impute.KNNImputer",
                     "sklearn.ensemble.HistGradientBoostingClassifier",
                     "sklearn.ensemble.RandomForestClassifier",
                     "sklearn.tree.DecisionTreeClassifier",
                     "sklearn.neighbors.KNeighborsClassifier", "sklearn.covariance.MinCovDet"],
                    role="py:class", page="modules/generated/$.html#$"),
        *_generated(["sklearn.set_config", "sklearn.model_selection.train_test_split",
                     "sklearn.model_selection.cross_validate",
                     "sklearn.model_selection.cross_val_score", "sklearn.model_selection.check_cv",
                     "sklearn.metrics.make_scorer", "sklearn.metrics.get_scorer_names",
                     "sklearn.datasets.load_breast_cancer", "sklearn.datasets.load_digits",
                     "sklearn.datasets.make_classification", "sklearn.pipeline.make_pipeline",
                     "sklearn.pipeline.make_union", "sklearn.metrics.accuracy_score"],
                    role="py:function", page="modules/generated/$.html#$"),
        *_generated(["estimator", "classifier", "transformer", "meta-estimator", "scorer"],
                    role="std:term", page="glossary.html#term-$"),
        ("metadata_routing", "std:label", "metadata_routing.html#metadata-routing",
         "Metadata Routing"),
        ("df_output_transform", "std:label", "modules/df_output_transform.html#df-output-transform",
         "Pandas/Polars Output for Transformers with set_output API"),
        ("sphx_glr_auto_examples_miscellaneous_plot_set_output.py", "std:label",
         "auto_examples/miscellaneous/plot_set_output.html"
         "#sphx-glr-auto-examples-miscellaneous-plot-set-output-py",
         "Introducing the set_output API"),
    ]),
    "pandas": ("pandas", "3.1", [
        *_generated(["pandas.DataFrame", "pandas.Series"],
                    role="py:class", page="reference/api/$.html#$"),
    ]),
    "dask": ("Dask", "2026.8", [
        *_generated(["dask.array.Array", "dask.dataframe.DataFrame", "dask.dataframe.Series"],
                    role="py:class", page="generated/$.html#$"),
        ("dask.compute", "py:function", "api.html#$"),
        ("dask.persist", "py:function", "api.html#$"),
    ]),
    "matplotlib": ("Matplotlib", "3.11", [
        *_generated(["matplotlib.axes.Axes", "matplotlib.figure.Figure",
                     "matplotlib.lines.Line2D", "matplotlib.collections.PolyCollection"],
                    role="py:class", page="api/_as_gen/$.html#$"),
    ]),
    "joblib": ("joblib", "1.6", [
        ("joblib.parallel_config", "py:function", "generated/$.html#$"),
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
