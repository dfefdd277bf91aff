"""Sphinx configuration of the scikit-mlfs documentation.

Build (warnings are errors, the gallery examples run)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

``tests/test_docs.py`` runs this build in CI on a copy of ``docs/`` and ``examples/``.
The API pages are generated here from each subpackage's ``__all__``, so a new public
function appears in the reference without editing any page.
"""

from __future__ import annotations

import importlib
import inspect
import os
import string
from pathlib import Path

HERE = Path(__file__).resolve().parent

import skmlfs  # noqa: E402

project = "scikit-mlfs"
author = "the scikit-mlfs developers"
copyright = "the scikit-mlfs developers, BSD-3-Clause"  # noqa: A001
release = version = skmlfs.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "results/**",  # the reproduction reports are read on their own (Markdown + PNG + CSV)
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
]
templates_path = ["_templates"]

# The docstrings write set sizes as |W|, |F|, |L| (patterns, features, labels), which
# reStructuredText reads as substitutions: define every one-letter |X| as itself.
rst_prolog = "\n".join(f".. |{c}| replace:: \\|{c}\\|" for c in string.ascii_letters)
html_theme = "alabaster"
html_static_path: list[str] = []
html_theme_options = {"description": "Multi-label feature selection", "fixed_sidebar": True}

# MyST: $...$ / $$...$$ maths and GitHub-compatible heading anchors (#ml-knn, #laim), so
# the "docs/methods/<page>.md#<anchor>" citations in docstrings work here and on GitHub.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# numpydoc: the docstrings are numpy style; members are listed by autosummary instead.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every example runs during the build
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "show_memory": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
}

# --------------------------------------------------------------------------- API pages
API = [
    ("skmlfs.datasets", "Data sets: loaders, the container, synthetic data"),
    ("skmlfs.selection", "Feature selectors"),
    ("skmlfs.learners", "Multi-label learners"),
    ("skmlfs.discretize", "Discretizers"),
    ("skmlfs.info", "The count engine: entropies and (conditional) mutual information"),
    ("skmlfs.neighbors", "The HEOM distance and nearest-neighbour search"),
    ("skmlfs.metrics", "Evaluation measures"),
    ("skmlfs.stats", "Statistical tests"),
    ("skmlfs.model_selection", "Splits, searches, scorers and meta-estimators"),
    ("skmlfs.experiments", "Experiment files, the benchmark runner and its store"),
    ("skmlfs.experiments.report", "Reports: the section contract, generic sections, number format"),
    ("skmlfs.experiments.report.papers", "Report sections of single papers"),
    ("skmlfs.plots", "Figures"),
    ("skmlfs.utils", "Tools for estimator authors: the multi-label estimator checks"),
]


def _public_names(modname: str) -> list[str]:
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(mod).items() if not n.startswith("_")
                 and (inspect.isclass(obj) or inspect.isfunction(obj))
                 and getattr(obj, "__module__", "").startswith("skmlfs")]
    # constants (dicts, tuples) have no page of their own; they are named in the text
    return sorted(n for n in names
                  if inspect.isclass(getattr(mod, n)) or callable(getattr(mod, n)))


def _write_api_pages() -> None:
    out = HERE / "api"
    out.mkdir(exist_ok=True)
    index = ["API reference", "=============", "",
             "Generated from the docstrings of each subpackage's public names.", "",
             ".. toctree::", "   :maxdepth: 1", ""]
    for modname, title in API:
        short = modname.split(".")[-1]
        index.append(f"   {short}")
        lines = [f"``{modname}``: {title}", "=" * (len(modname) + len(title) + 6), "",
                 f".. currentmodule:: {modname}", "",
                 ".. autosummary::", "   :toctree: generated", "   :nosignatures:", ""]
        lines += [f"   {n}" for n in _public_names(modname)]
        text = "\n".join(lines) + "\n"
        page = out / f"{short}.rst"
        if not page.exists() or page.read_text() != text:  # keep mtimes: no needless rebuilds
            page.write_text(text)
    text = "\n".join(index) + "\n"
    if not (out / "index.rst").exists() or (out / "index.rst").read_text() != text:
        (out / "index.rst").write_text(text)


_write_api_pages()
os.environ.setdefault("MPLBACKEND", "Agg")


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document our own methods only: not scikit-learn's inherited or generated ones
    (``set_fit_request`` & co., ``score``, ``get_params``), whose docstrings cite pages
    of scikit-learn's documentation."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("sklearn"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
