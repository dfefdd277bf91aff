"""Imports run one way between the subpackages of ``skmlfs`` (issue #15, point 1).

Every module of ``src/skmlfs`` is parsed with :mod:`ast` — module-level imports and the
ones inside functions alike, absolute (``skmlfs.x``) and relative (``..x``,
``from .. import x``) — and each import of another subpackage is checked against
:data:`ALLOWED`. The layers, lowest first::

    _validation (and the package root)  ← everyone
    info  neighbors  discretize  datasets  metrics  stats  utils
    plots                                  (stats)
    selection                              (info, neighbors, discretize, metrics)
    learners                               (selection and what selection may use)
    experiments                            (every library package)
    cli                                    (everything)

In particular ``learners → selection → info / neighbors / discretize``, never back, and
``info``, ``neighbors``, ``discretize`` import none of selection, learners, experiments
or cli.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "skmlfs"

#: Which subpackages each subpackage may import (besides itself, the package root and
#: ``skmlfs._validation``, the shared input checks every layer uses).
ALLOWED: dict[str, set[str]] = {
    "info": set(),
    "neighbors": set(),
    "discretize": set(),
    "datasets": set(),
    "metrics": set(),
    "stats": set(),
    "utils": set(),
    "plots": {"stats"},
    # metrics: the memetic wrapper's fitness is a multi-label measure
    "selection": {"info", "neighbors", "discretize", "metrics"},
    "learners": {"selection", "info", "neighbors", "discretize"},
    # splits, searches, scorers and meta-estimators: library estimators above the
    # selectors, learners and metrics, below the experiment engine
    "model_selection": {"selection", "learners", "info", "neighbors", "discretize", "metrics"},
    "experiments": {"datasets", "discretize", "info", "neighbors", "selection", "learners",
                    "metrics", "stats", "plots", "model_selection"},
    "cli": {"datasets", "discretize", "info", "neighbors", "selection", "learners",
            "metrics", "stats", "plots", "model_selection", "experiments"},
}

def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """``(line, absolute dotted target)`` of every ``skmlfs`` import in ``path``."""
    mod = _module_name(path)
    # the package a relative import of this file starts from
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - (node.level - 1)]
                if node.module:
                    out.append((node.lineno, ".".join([*base, node.module])))
                else:  # from .. import x: x may be a subpackage or a name of the package
                    out += [(node.lineno, ".".join([*base, a.name])) for a in node.names]
            else:
                out.append((node.lineno, node.module or ""))
    return [(line, t) for line, t in out if t == "skmlfs" or t.startswith("skmlfs.")]


def _layer(dotted: str) -> str | None:
    """The subpackage of a dotted ``skmlfs`` name; ``None`` for the root package and its
    own modules (``__version__``, ``_validation``), which every layer may import."""
    parts = dotted.split(".")
    if len(parts) < 2 or not (SRC / parts[1] / "__init__.py").is_file():
        return None
    return parts[1]


def _all_imports():
    for path in sorted(SRC.rglob("*.py")):
        src = _layer(_module_name(path))
        for line, target in _imports(path):
            yield path, line, _module_name(path), src, target


def test_every_subpackage_has_a_row_in_the_table():
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ALLOWED), "declare the layer of every subpackage in ALLOWED"


def test_the_table_has_no_cycle():
    # a one-way order exists: repeatedly remove the layers that import nothing left
    left = {k: set(v) for k, v in ALLOWED.items()}
    while left:
        free = [k for k, v in left.items() if not v & set(left)]
        assert free, f"cycle among {sorted(left)}"
        for k in free:
            del left[k]


def test_lower_layers_import_none_of_the_upper_ones():
    for low in ("info", "neighbors", "discretize"):
        assert not ALLOWED[low] & {"selection", "learners", "experiments", "cli"}
    assert "learners" not in ALLOWED["selection"]
    assert "selection" in ALLOWED["learners"]


def test_imports_follow_the_layers():
    bad = []
    for path, line, _mod, src, target in _all_imports():
        dst = _layer(target)
        if dst is None or dst == src:
            continue
        if src is None or dst not in ALLOWED[src]:
            bad.append(f"{path.relative_to(SRC.parent)}:{line} ({src or 'root'}) imports "
                       f"{target} ({dst})")
    assert not bad, "imports against the layers:\n" + "\n".join(bad)


def _private_target(target: str) -> bool:
    """``skmlfs.<package>._x`` (a private module or name of a subpackage)."""
    parts = target.split(".")
    return _layer(target) is not None and len(parts) > 2 and parts[2].startswith("_")


#: Packages and modules whose imports of other subpackages go through public names only
#: (``from ..selection import label_specific_select``, never ``..selection._mlfs``). The
#: rest of the tree still has such imports (e.g. the CLI reaching into the runner).
PUBLIC_ONLY = ("skmlfs.neighbors", "skmlfs.discretize", "skmlfs.learners._chains",
               "skmlfs.learners._lazy", "skmlfs.learners._base", "skmlfs.learners",
               "skmlfs.selection._relieff")


def test_no_private_imports_across_packages_here():
    bad = []
    for path, line, mod, src, target in _all_imports():
        owned = mod in PUBLIC_ONLY or mod.startswith(("skmlfs.neighbors.",
                                                      "skmlfs.discretize."))
        if owned and _layer(target) != src and _private_target(target):
            bad.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    assert not bad, "private imports across packages:\n" + "\n".join(bad)


def test_the_parser_sees_relative_and_function_level_imports(tmp_path):
    # the checker itself, on a made-up package: a relative import two levels up, one
    # inside a function, a "from .. import name" of a subpackage and an absolute one
    global SRC
    pkg = tmp_path / "skmlfs"
    for sub in ("info", "selection"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "info" / "_engine.py").write_text(
        "from ..selection._base import x\n"
        "def f():\n    from .. import selection, __version__\n    import skmlfs.selection\n"
    )
    SRC, old = pkg, SRC
    try:
        found = _imports(pkg / "info" / "_engine.py")
        assert [(line, _layer(t)) for line, t in found] == [
            (1, "selection"), (3, "selection"), (3, None), (4, "selection")]
        assert _module_name(pkg / "info" / "_engine.py") == "skmlfs.info._engine"
    finally:
        SRC = old
