"""The command line's two halves: parser modules that import the standard library alone,
and the modules of :mod:`skmlfs.cli._run` that do the work, imported when a command runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from _subproc import child_env

from skmlfs.cli import _COMMANDS, build_parser
from skmlfs.cli._dispatch import deferred_type, load

# The child builds the parser, prints the help of mlfs (and its version) and of every
# command and makes one argument error, then reports which modules it imported; last it
# runs the dispatch of `mlfs methods` (a positive control: the same probe must see
# scikit-learn then).
PROBE = """\
import contextlib, io, json, sys
from skmlfs.cli import _COMMANDS, main
from skmlfs.cli._dispatch import load

def exits(argv):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(argv)
        except SystemExit as exc:
            return exc.code
    return None

codes = [exits(["--help"]), exits(["--version"])] + [exits([c, "--help"]) for c in _COMMANDS]
codes.append(exits(["select"]))  # the dataset argument is missing: an argument error
before = sorted(sys.modules)
load(_COMMANDS["methods"].RUN)
print(json.dumps({"codes": codes, "before": before, "after": sorted(sys.modules)}))
"""

HEAVY = ("sklearn", "numpy", "scipy", "pandas", "joblib", "matplotlib", "pyarrow")


def _top(names: list[str]) -> set[str]:
    return {n.split(".")[0] for n in names}


@pytest.mark.subprocess
def test_help_and_argument_errors_import_no_library():
    """``mlfs --help``, ``--version``, ``mlfs COMMAND --help`` and an argument error import
    neither scikit-learn (seconds) nor any other module of the library: the parser modules
    hold the arguments, :mod:`skmlfs.cli._run` the work."""
    res = subprocess.run([sys.executable, "-c", PROBE], env=child_env(), capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["codes"] == [0] * (2 + len(_COMMANDS)) + [2]
    before = out["before"]
    assert not _top(before) & set(HEAVY), sorted(_top(before) & set(HEAVY))
    ours = [m for m in before if m.split(".")[0] == "skmlfs"]
    assert all(m in ("skmlfs", "skmlfs.cli") or m.startswith("skmlfs.cli._") for m in ours)
    assert not [m for m in ours if m.startswith("skmlfs.cli._run")], ours
    # the probe sees the library once a command's work is imported
    after = out["after"]
    assert {"sklearn", "numpy"} <= _top(after)
    assert "skmlfs.cli._run.methods" in after


def test_every_command_names_its_work_in_the_run_package():
    for name, module in _COMMANDS.items():
        assert module.__name__ == f"skmlfs.cli._{name}"
        assert isinstance(module.HELP, str) and module.HELP
        target = module.RUN
        assert target.startswith(f"skmlfs.cli._run.{name}:"), target
        func = load(target)
        assert callable(func) and func.__module__ == f"skmlfs.cli._run.{name}"
    # the parser of each command dispatches to its module (set_defaults of build_parser)
    parser = build_parser()
    args = parser.parse_args(["methods"])
    assert args._run == _COMMANDS["methods"].RUN


def test_load_names_module_and_function():
    assert load("os.path:join") is __import__("os").path.join
    with pytest.raises(ValueError, match="module:function"):
        load("os.path.join")
    with pytest.raises(AttributeError):
        load("os.path:no_such_function")


def test_a_deferred_type_reports_a_bad_value_as_an_argument_error(capsys):
    """The check of ``-k`` is imported when ``-k`` is given; a bad value is still an
    argparse error naming the option, with the budget forms ``-k`` accepts."""
    check = deferred_type("skmlfs.cli._run.common:budget_arg")
    assert check.__name__ == "budget_arg"
    assert check("10%") == "10%"
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["select", "data.arff", "-k", "ten"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument -k/--n-features-to-select/--n-features: cannot read 'ten'" in err
