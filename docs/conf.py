"""Sphinx configuration of the robustclf documentation site.

Build (from the repository root, with the ``docs`` extra installed)::

    .venv/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

With ``ROBUSTCLF_PLOT_GALLERY=False`` in the environment the gallery's examples are not run
(what ``tests/test_docs.py`` does); the full build runs every example and fails on any error in
it. The build needs no network: other projects' objects resolve through the inventories in
``docs/_inventories``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import robustclf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

project = "robustclf"
author = "the robustclf developers"
copyright = "2026, the robustclf developers"  # noqa: A001
release = robustclf.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# -- cross-references: every one must resolve -------------------------------------------------
nitpicky = True

# Other projects' objects resolve through small inventories committed in docs/_inventories/
# (written by docs/_inventories/make_inventories.py): the build machine and CI have no network,
# and a local inventory makes every build resolve the same links. The links point to the
# projects' online documentation.
_INV = Path(__file__).resolve().parent / "_inventories"
intersphinx_mapping = {
    name: (url, str(_INV / f"{name}.inv"))
    for name, url in {
        "python": "https://docs.python.org/3/",
        "numpy": "https://numpy.org/doc/stable/",
        "scipy": "https://docs.scipy.org/doc/scipy/",
        "sklearn": "https://scikit-learn.org/stable/",
        "pandas": "https://pandas.pydata.org/docs/",
        "dask": "https://docs.dask.org/en/stable/",
        "matplotlib": "https://matplotlib.org/stable/",
        "joblib": "https://joblib.readthedocs.io/en/stable/",
    }.items()
}

# -- API pages ----------------------------------------------------------------------------------
autosummary_generate = True
# (no "inherited-members" default: Sphinx 9 then drops a class's own methods; the class
# template lists the scikit-learn bases whose members are not repeated on every page)
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_xref_param_type = True
# The words of numpydoc type descriptions that are not objects: the grammar of "ndarray of shape
# (n_samples, n_features)", "int, default=5", "{'a', 'b'}" and the names of array dimensions.
# This is the only place where a word of a docstring is exempt from cross-referencing; a name of
# an object must resolve (no nitpick_ignore).
numpydoc_xref_ignore = {
    # grammar
    "of", "or", "to", "shape", "optional", "in",
    # ... and of scikit-learn's docstrings that the API pages inherit ("estimator instance",
    # "ndarray of str objects")
    "instance", "objects",
    # array dimensions
    "n_samples", "n_features", "n_classes", "n_columns", "n_blocks", "n_copies", "n_estimators",
    "n_fit", "n_iterations", "n_outliers", "n_problems", "n_reference", "n_subtypes", "n_test",
    "n_units", "n_values",
}
numpydoc_xref_aliases = {
    # numpydoc's own links, keeping the docstring's word ("array-like", not "array_like";
    # "callable", not "callable()")
    "array-like": ":term:`array-like <numpy:array_like>`",
    "callable": ":func:`callable <python:callable>`",
    # other projects' objects by their usual short names
    "ndarray": "numpy.ndarray",
    "Generator": "numpy.random.Generator",
    "RandomState": "numpy.random.RandomState",
    "DataFrame": "pandas.DataFrame",
    "Series": "pandas.Series",
    "BaseEstimator": "sklearn.base.BaseEstimator",
    "Bunch": "sklearn.utils.Bunch",
    "MetadataRequest": "sklearn.utils.metadata_routing.MetadataRequest",
    "estimator": ":term:`estimator <sklearn:estimator>`",
    "classifier": ":term:`classifier <sklearn:classifier>`",
    "transformer": ":term:`transformer <sklearn:transformer>`",
    "scorer": ":term:`scorer <sklearn:scorer>`",
    "Axes": "matplotlib.axes.Axes",
    "Figure": "matplotlib.figure.Figure",
    "Line2D": "matplotlib.lines.Line2D",
    "path-like": ":term:`path-like <python:path-like object>`",
    "sparse matrix": ":mod:`sparse matrix <scipy.sparse>`",
    "dask array": "dask.array.Array",
    "dask DataFrame": "dask.dataframe.DataFrame",
    "dask Series": "dask.dataframe.Series",
    # this library's objects where a docstring names them by their short names
    "NoiseModel": "robustclf.noise.NoiseModel",
    "Corruption": "robustclf.corruption.Corruption",
    "DatasetSplit": "robustclf.datasets.DatasetSplit",
}

# -- markdown pages (the reproduction reports, the semantics table, ...) -------------------------
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# -- gallery ----------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reference_url": {"robustclf": None},
    "doc_module": ("robustclf",),
    "backreferences_dir": "api/backreferences",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "plot_gallery": os.environ.get("ROBUSTCLF_PLOT_GALLERY", "True"),
}
if sphinx_gallery_conf["plot_gallery"] in ("False", "0"):
    # the user guide shows the gallery's figures, which exist only when the examples run; the
    # full build (the default) still fails on any image that is missing
    suppress_warnings = ["image.not_readable"]

# -- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "robustclf"
html_theme_options = {
    "github_url": None,
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path: list[str] = []


# -- constants ------------------------------------------------------------------------------------
def _constant_doc(app, what, name, obj, options, lines):
    """Document a constant by the ``#:`` comment (or string) that follows it where it is defined.

    A constant re-exported by a package has no comment in the package's ``__init__``; autodoc
    would show the docstring of the value's type (``tuple``'s, ``str``'s) instead.
    """
    if what != "data":
        return
    from sphinx.pycode import ModuleAnalyzer

    package, _, attr = name.rpartition(".")
    candidates = [package] + sorted(m for m in sys.modules if m.startswith(package + "."))
    for modname in candidates:
        module = sys.modules.get(modname)
        if module is None or getattr(module, attr, None) is not obj:
            continue
        comment = ModuleAnalyzer.for_module(modname).find_attr_docs().get(("", attr))
        if comment:
            lines[:] = list(comment)
            return
    raise ValueError(f"constant {name} has no '#:' comment where it is defined")


def setup(app):
    app.connect("autodoc-process-docstring", _constant_doc, priority=400)
