"""The documentation build (issue #18): Sphinx, warnings as errors, gallery examples run.

This is the docs build of CI: ``.ci/run`` runs the README's test command, and this test
builds the whole documentation (API reference from the docstrings, the method pages, the
experiment-file schema and the gallery, whose examples are executed) into a temporary
folder with ``-W``: any warning — a broken docstring, a dangling cross-reference, a failing
example — fails the run. Build locally with
``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("plot_*.py"))


@pytest.mark.docs
def test_docs_build_with_warnings_as_errors_and_examples_run(tmp_path):
    src = tmp_path / "docs"
    # a copy, so that the build writes nothing into the repository (generated API
    # pages, gallery output); the reproduction reports are not part of the build
    shutil.copytree(ROOT / "docs", src, ignore=shutil.ignore_patterns(
        "_build", "api", "auto_examples", "generated", "results"))
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    out = tmp_path / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(src), str(out)],
        capture_output=True, text=True, env=env, timeout=1200,
    )
    assert proc.returncode == 0, f"sphinx-build failed:\n{proc.stderr[-6000:]}"

    # the parts the issue asks for are there
    assert (out / "index.html").is_file()
    api = (out / "api" / "generated" / "skmlfs.selection.SCLS.html").read_text()
    assert "n_features_to_select" in api and "ranking_" in api
    for page in ("info", "sparse", "relieff", "chains", "lazy", "memetic", "metrics",
                 "statistics", "discretizers"):
        assert (out / "methods" / f"{page}.html").is_file(), page
    schema = (out / "experiment_file.html").read_text()
    assert "n_features" in schema and "use_discretized" in schema
    assert 4 <= len(EXAMPLES) <= 6
    for name in EXAMPLES:  # every example ran: its page shows its output
        html = (out / "auto_examples" / f"{name}.html").read_text()
        assert "sphx-glr-script-out" in html, f"{name} shows no output"
    for name in ("plot_selection_curves", "plot_relieff_weights_mlknn"):
        assert (out / "_images" / f"sphx_glr_{name}_001.png").is_file(), f"{name}: no figure"


def test_the_schema_page_lists_every_key_of_an_experiment_file():
    from skmlfs.experiments import _spec

    text = (ROOT / "docs" / "experiment_file.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE))
    keys = _spec._TOP_KEYS | _spec._DATASET_KEYS | _spec._PROTOCOL_KEYS | _spec._REPORT_KEYS
    assert keys <= documented, f"undocumented keys: {sorted(keys - documented)}"
