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
    model_selection                        (selection, learners, metrics and below)
    experiments                            (every library package)
    cli                                    (everything)

Inside ``experiments`` the engine has layers of its own (:data:`ENGINE_LAYERS`): the
registry, the spec, the store, execution, the planner, the run and the report, each module
importing only its own or lower layers. No module imports a private module or name of
another subpackage (:data:`PRIVATE_EXCEPTIONS`, empty, would list exceptions), and function-level
imports are only for the heavy optional dependencies (:data:`LAZY_OK`), in the command
line as everywhere: its parser modules import the standard library only and its work
(``skmlfs.cli._run``) is imported by name in one place, ``skmlfs.cli._dispatch``.

In particular ``learners → selection → info / neighbors / discretize``, never back, and
``info``, ``neighbors``, ``discretize`` import none of selection, learners, experiments
or cli.
"""

from __future__ import annotations

import ast
import sys
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
    """``skmlfs.<package>._x`` or ``skmlfs.<package>.<sub>._x`` (a private module or name
    of a subpackage, at any depth: ``skmlfs.experiments.report._grid`` is as private as
    ``skmlfs.experiments._store``)."""
    parts = target.split(".")
    return _layer(target) is not None and any(p.startswith("_") for p in parts[2:])


#: Imports of another subpackage's private module still allowed, each with its reason
#: (none today); every import across subpackages goes through public names
#: (``from ..selection import label_specific_select``, never ``..selection._mlfs``).
PRIVATE_EXCEPTIONS: dict[tuple[str, str], str] = {}


def _resolve_module(target: str) -> str:
    """The module part of a dotted import target (``skmlfs.a._b.name`` -> ``skmlfs.a._b``)."""
    parts = target.split(".")
    while len(parts) > 2:
        p = SRC.parent.joinpath(*parts)
        if p.with_suffix(".py").is_file() or (p / "__init__.py").is_file():
            break
        parts.pop()
    return ".".join(parts)


def test_no_private_imports_across_packages():
    bad = []
    for path, line, mod, src, target in _all_imports():
        if _layer(target) == src or not _private_target(target):
            continue
        if (mod, _resolve_module(target)) not in PRIVATE_EXCEPTIONS:
            bad.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    assert not bad, "private imports across packages:\n" + "\n".join(bad)


def test_the_private_exceptions_are_still_needed():
    used = {(mod, _resolve_module(t)) for _p, _l, mod, _s, t in _all_imports()}
    stale = sorted(set(PRIVATE_EXCEPTIONS) - used)
    assert not stale, f"drop these from PRIVATE_EXCEPTIONS: {stale}"


# --------------------------------------------------------------------------- the engine
#: The layers of the experiment engine, lowest first: a module of ``skmlfs.experiments``
#: imports modules of its own layer or lower ones only. The report (the ``report``
#: subpackage) is the top: it may import every engine module, and none imports it (the
#: package's ``__init__``, which gathers the public names, is no layer).
ENGINE_LAYERS: list[tuple[str, set[str]]] = [
    ("helpers", {"_registry", "_warnings", "_histories", "_objectives", "_sensitivity"}),
    ("spec", {"_build", "_spec", "_parts"}),  # method tables, the experiment file(s)
    ("store", {"_store"}),                   # results and the cell schema
    ("method options", {"_tuning"}),
    ("execution", {"_graphs", "_execute"}),  # what a worker runs; never the store
    ("backends", {"_backends"}),
    ("planner", {"_planner"}),               # spec x store -> tasks
    ("run", {"_runner", "_parts_run"}),     # plan -> execute -> store
    ("report", {"report"}),
]

#: Engine modules that reach a higher layer by name at run time
#: (``importlib.import_module("skmlfs.experiments....")``, which no import statement
#: shows), each with its reason. The registry's ``"module:Class"`` strings of methods and
#: report sections are looked up the same way but are data, not listed here.
ENGINE_DYNAMIC_UPWARD: dict[tuple[str, str], str] = {}


def _engine_module(dotted: str) -> str | None:
    parts = dotted.split(".")
    if parts[:2] != ["skmlfs", "experiments"] or len(parts) < 3:
        return None
    return parts[2]


def _engine_rank(name: str) -> int:
    for i, (_label, mods) in enumerate(ENGINE_LAYERS):
        if name in mods:
            return i
    raise AssertionError(f"declare the engine layer of skmlfs.experiments.{name}")


def _engine_names() -> set[str]:
    pkg = SRC / "experiments"
    names = {p.stem for p in pkg.glob("_*.py") if p.stem != "__init__"}
    return names | {p.name for p in pkg.iterdir() if (p / "__init__.py").is_file()}


def test_every_engine_module_has_a_layer():
    names = _engine_names()
    for n in names:
        _engine_rank(n)
    declared = set().union(*(mods for _label, mods in ENGINE_LAYERS))
    assert not declared - names, f"drop from ENGINE_LAYERS: {sorted(declared - names)}"


def test_engine_imports_run_one_way():
    bad = []
    for path, line, mod, _src, target in _all_imports():
        a, b = _engine_module(mod), _engine_module(target)
        if a is None or b is None or a == b:
            continue
        if _engine_rank(b) > _engine_rank(a):
            la, lb = ENGINE_LAYERS[_engine_rank(a)][0], ENGINE_LAYERS[_engine_rank(b)][0]
            bad.append(f"{path.relative_to(SRC.parent)}:{line}: {a} ({la}) imports {b} ({lb})")
    assert not bad, "imports up the engine's layers:\n" + "\n".join(bad)


def _dynamic_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, target)`` of every ``import_module("skmlfs....")`` with a literal name."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if (isinstance(node, ast.Call) and node.args
                and (getattr(node.func, "attr", None) == "import_module"
                     or getattr(node.func, "id", None) == "import_module")
                and isinstance(node.args[0], ast.Constant)
                and str(node.args[0].value).startswith("skmlfs.")):
            out.append((node.lineno, node.args[0].value))
    return out


def test_the_report_is_the_top_of_the_engine():
    assert ENGINE_LAYERS[-1] == ("report", {"report"})
    # the report imports the engine below it (the scan sees the subpackage's modules) ...
    report_uses = {_engine_module(t) for _p, _l, mod, _s, t in _all_imports()
                   if _engine_module(mod) == "report"}
    assert {"_registry", "_spec", "_store", "_parts"} <= report_uses, report_uses
    # ... and nothing of the engine imports the report: no import statement at all, and
    # a look-up by name only where ENGINE_DYNAMIC_UPWARD says why
    up = [f"{path.relative_to(SRC.parent)}:{line} imports {t}"
          for path, line, mod, _s, t in _all_imports()
          if _engine_module(t) == "report" and _engine_module(mod) not in (None, "report")]
    assert not up, "the engine imports the report:\n" + "\n".join(up)
    dynamic, bad = set(), []
    for path in sorted((SRC / "experiments").glob("_*.py")):
        a = _engine_module(_module_name(path))
        for line, t in _dynamic_imports(path):
            b = _engine_module(t)
            if b is None or a == b or _engine_rank(b) <= _engine_rank(a):
                continue
            dynamic.add((a, b))
            if (a, b) not in ENGINE_DYNAMIC_UPWARD:
                bad.append(f"{path.relative_to(SRC.parent)}:{line} looks up {t}")
    assert not bad, "run-time imports up the engine's layers:\n" + "\n".join(bad)
    stale = sorted(set(ENGINE_DYNAMIC_UPWARD) - dynamic)
    assert not stale, f"drop these from ENGINE_DYNAMIC_UPWARD: {stale}"


def test_model_selection_sits_between_the_estimators_and_the_engine():
    ms = ALLOWED["model_selection"]
    assert {"selection", "learners", "metrics"} <= ms
    assert not ms & {"experiments", "cli", "datasets"}
    assert "model_selection" in ALLOWED["experiments"]
    assert all("model_selection" not in ALLOWED[k]
               for k in ("info", "neighbors", "discretize", "selection", "learners", "metrics"))


# --------------------------------------------------------------------------- lazy imports
#: What a function may import: the heavy optional dependencies, the plots (matplotlib),
#: the platform-specific lock modules and the thread-pool / worker tools loaded in a
#: worker only.
LAZY_OK = ("pandas", "matplotlib", "dask", "distributed", "pyarrow", "numba", "clarabel",
           "scipy.io", "tqdm", "fcntl", "msvcrt", "pytest", "cloudpickle", "threadpoolctl",
           "joblib.externals.loky", "ctypes", "skmlfs.plots",
           "skmlfs.info._numba_kernels", "skmlfs.neighbors._numba_kernels")

def _function_level_imports(path: Path):
    mod = _module_name(path)
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    seen: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for sub in ast.walk(node):
            if id(sub) in seen:
                continue
            seen.add(id(sub))
            if isinstance(sub, ast.Import):
                for a in sub.names:
                    yield sub.lineno, a.name
            elif isinstance(sub, ast.ImportFrom):
                if sub.level:
                    base = pkg[: len(pkg) - (sub.level - 1)]
                    if sub.module:
                        yield sub.lineno, ".".join([*base, sub.module])
                    else:
                        for a in sub.names:
                            yield sub.lineno, ".".join([*base, a.name])
                else:
                    yield sub.lineno, sub.module or ""


def test_function_level_imports_are_for_heavy_optional_dependencies_only():
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        for line, target in _function_level_imports(path):
            if any(target == ok or target.startswith(ok + ".") for ok in LAZY_OK):
                continue
            bad.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    assert not bad, "import these at module level:\n" + "\n".join(bad)


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


# --------------------------------------------------------------------------- command line
#: The modules of ``skmlfs.cli`` that build the parser (everything but the ``_run``
#: package, which does the work): they import the standard library, the package root
#: (``__version__``) and each other only, so that ``mlfs --help`` imports no library.
CLI_PARSER_SIDE = "skmlfs.cli"
CLI_RUN_SIDE = "skmlfs.cli._run"


def _top_level_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, absolute target)`` of every import in ``path``, relative ones resolved."""
    mod = _module_name(path)
    pkg = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(pkg[: len(pkg) - (node.level - 1)])
                if node.module:
                    out.append((node.lineno, f"{base}.{node.module}"))
                else:
                    out += [(node.lineno, f"{base}.{a.name}") for a in node.names]
            else:
                out.append((node.lineno, node.module or ""))
    return out


def _cli_parser_files() -> list[Path]:
    return [p for p in sorted((SRC / "cli").rglob("*.py"))
            if not _module_name(p).startswith(CLI_RUN_SIDE)]


def test_the_command_line_parsers_import_the_standard_library_only():
    files = _cli_parser_files()
    assert {p.name for p in files} >= {"__init__.py", "_dispatch.py", "_options.py",
                                       "_select.py", "_messages.py"}
    bad = []
    for path in files:
        for line, target in _top_level_imports(path):
            top = target.split(".")[0]
            ok = (
                top in sys.stdlib_module_names or top == "__future__"
                or target == "skmlfs.__version__"
                or (target.startswith(CLI_PARSER_SIDE + ".")
                    and not target.startswith(CLI_RUN_SIDE))
            )
            if not ok:
                bad.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    assert not bad, ("the parser side of the command line imports the library (put the "
                     "work under skmlfs/cli/_run/):\n" + "\n".join(bad))


def test_the_command_line_imports_by_name_in_one_place():
    """``importlib.import_module`` (the ``"module:function"`` of each command's work, and
    the deferred check of ``-k``) is called in :mod:`skmlfs.cli._dispatch` only."""
    callers = []
    for path in sorted((SRC / "cli").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call) and (
                    getattr(node.func, "attr", None) == "import_module"
                    or getattr(node.func, "id", None) in ("import_module", "__import__")):
                callers.append(_module_name(path))
    assert callers == ["skmlfs.cli._dispatch"], callers
