"""What the store records of the software behind a cell, and what the report says of it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd

import skmlfs
from skmlfs.experiments._execute import _source_state
from skmlfs.experiments.report._grid import _versions_line


def test_source_state_names_the_checkout_commit():
    """From a git checkout the cells record its commit (and whether src/ has edits): a
    development version number alone does not tell two code states apart."""
    root = Path(skmlfs.__file__).resolve().parents[2]
    got = _source_state()
    if not (root / ".git").exists():
        assert got is None  # an installed package
        return
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert got in (f"git {head}", f"git {head}+changes")


def test_versions_line_counts_cells_and_warns_on_mixed_code():
    a = json.dumps({"skmlfs": "0.1.0", "numpy": "2.4"})
    b = json.dumps({"skmlfs": "0.2.0.dev0", "numpy": "2.4", "source": "git abc"})
    c = json.dumps({"skmlfs": "0.2.0.dev0", "numpy": "2.5", "source": "git abc"})
    one = _versions_line(pd.DataFrame({"versions": [b, b, c]}))
    assert one.startswith("Software: 2 cells: numpy 2.4, skmlfs 0.2.0.dev0, source git abc | "
                          "1 cells: numpy 2.5")
    assert "versions of scikit-mlfs" not in one  # one code state, two numpy versions
    mixed = _versions_line(pd.DataFrame({"versions": [a, b, b, a, a]}))
    assert mixed.startswith("Software: 3 cells: numpy 2.4, skmlfs 0.1.0 | 2 cells: ")
    assert "**The cells come from 2 versions of scikit-mlfs** (0.1.0, 0.2.0.dev0 (git abc))" \
        in mixed
    assert _versions_line(pd.DataFrame({"x": [1]})) == ""
