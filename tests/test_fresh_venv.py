"""A new user's first steps, end to end, in a fresh virtual environment.

The README's install command (``pip install -e . && mlfs demo``) in a new venv, then
``mlfs fetch`` of two data sets and the first benchmark of ``docs/benchmark.md`` ("Run it")
on them, with no ``$MLFS_DATASETS``: every command exits 0 and says nothing the user cannot
act on.

Offline: the venv is made with ``--system-site-packages`` (the dependencies are this
interpreter's), this checkout is installed with ``--no-deps --no-build-isolation --no-index``
(the build backend, setuptools and wheel, comes from this interpreter too), and the data
come from a local mirror of the source repository (``$MLFS_DATA_URL``, served from
``$MLFS_DATASETS``).

What counts as a warning the user cannot act on: in stderr, any Python warning (``...:N:
SomethingWarning: ...``), any traceback, and any other line saying ``warning``/``error``
that is not in :data:`ACTIONABLE` (messages that tell the user what to do; none is expected
today). The children run with a fresh ``HOME`` and no ``PYTHONWARNINGS``: the default warning
filters, as a new user has them.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from _mirror import serve_like_the_source, start_server

from skmlfs.datasets import REGISTRY
from skmlfs.datasets._fetch import _verify

pytestmark = [pytest.mark.slow, pytest.mark.venv, pytest.mark.subprocess]

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["flags", "emotions"]
SELECTORS = "scls,mi_rank"
TIMEOUT = 300  # seconds per command: a hang fails the test instead of blocking the suite

#: stderr lines that mention a warning or an error but tell the user what to do (regexes)
ACTIONABLE: list[str] = []

_PY_WARNING = re.compile(r":\d+: \w*Warning\b")
_SUSPECT = re.compile(r"(?i)\bwarn(ing)?s?\b|traceback|\berror\b|\bexception\b")


def _unactionable(stderr: str) -> list[str]:
    """The lines of ``stderr`` that warn or report an error without telling what to do."""
    bad = []
    for line in stderr.splitlines():
        if _PY_WARNING.search(line) or "Traceback" in line:
            bad.append(line)
        elif _SUSPECT.search(line) and not any(re.search(a, line) for a in ACTIONABLE):
            bad.append(line)
    return bad


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    shown = " ".join(map(str, cmd))
    assert proc.returncode == 0, f"{shown} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    bad = _unactionable(proc.stderr)
    assert not bad, f"{shown} warned:\n" + "\n".join(bad)
    return proc


def _readme_install_command() -> list[str]:
    """The README's install-and-run line, split at ``&&``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.DOTALL)
    lines = [ln.strip() for b in blocks for ln in b.splitlines() if "pip install" in ln]
    assert lines, "the README has no pip install command"
    return [part.strip() for part in lines[0].split("&&")]


def test_unactionable_lines_are_recognised():
    assert _unactionable("mlfs_benchmark_quick: 90 cells computed in 3.1 s.\nfrom http://x/") == []
    assert _unactionable("/x/y.py:3: UserWarning: something\n  warnings.warn(msg)") == [
        "/x/y.py:3: UserWarning: something",
        "  warnings.warn(msg)",
    ]
    assert _unactionable("Traceback (most recent call last):") != []
    assert _unactionable("Warning: the cache is stale") != []


def test_fresh_venv_install_demo_fetch_benchmark(tmp_path, datasets_dir):
    # The README's command: "<pip install ...> && mlfs demo".
    install, *after = _readme_install_command()
    assert "mlfs demo" in after, f"the README's install line does not run mlfs demo: {after}"
    words = shlex.split(install)
    assert words[:4] == ["python", "-m", "pip", "install"], install
    targets = [str(ROOT) + w[1:] if w == "." or w.startswith(".[") else w for w in words[4:]]
    assert str(ROOT) in [t.split("[")[0] for t in targets], install  # installs this checkout

    # A fresh user: own HOME, no data folder, no mirror, no path to another copy.
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLFS_", "PYTHON", "MPL"))}
    env |= {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "PIP_NO_INPUT": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }

    env_dir = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", str(env_dir)],
        check=True,
        env=env,
        timeout=TIMEOUT,
        capture_output=True,
    )
    bin_dir = env_dir / "bin"
    python = str(bin_dir / "python")
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    # pip prints its own notices (root user, build isolation) to stderr: its exit code and
    # the import below are the check of this step.
    pip = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            *targets,
        ],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    # (setuptools < 70.1 builds the editable wheel with the `wheel` package: the test extra)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    where = _run([python, "-c", "import skmlfs; print(skmlfs.__file__)"], env, tmp_path)
    imported = Path(where.stdout.strip()).resolve()
    if "-e" in words:  # editable: this checkout's source, not another installed copy
        assert imported == ROOT / "src" / "skmlfs" / "__init__.py", imported
    else:
        assert env_dir.resolve() in imported.parents, imported
    mlfs = str(bin_dir / "mlfs")
    assert Path(mlfs).is_file(), "the install made no mlfs command"

    # && mlfs demo
    for part in after:
        cmd = shlex.split(part)
        assert cmd[0] == "mlfs", part
        demo = _run([mlfs, *cmd[1:]], env, tmp_path)
        assert "SCLS" in demo.stdout and "fewer label errors" in demo.stdout

    # mlfs fetch flags emotions, from a local mirror laid out as the source repository.
    cache = tmp_path / "data"
    server, url, requests = start_server(serve_like_the_source(tmp_path, datasets_dir, NAMES))
    try:
        fetched = _run(
            [mlfs, "fetch", *NAMES],
            env | {"MLFS_DATA_URL": url, "MLFS_DATA_HOME": str(cache)},
            tmp_path,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert sorted(requests) == sorted("/" + rf.path for n in NAMES for rf in REGISTRY[n].files)
    assert "flags: 194 patterns, 19 features, 7 labels" in fetched.stdout
    assert "emotions: 593 patterns, 72 features, 6 labels" in fetched.stdout
    for name in NAMES:
        for rf in REGISTRY[name].files:
            ok, got = _verify(cache / "mulan" / name / rf.local, rf)
            assert ok, (name, rf.local, got)

    # The first benchmark of docs/benchmark.md on the fetched sets, two selectors; its data
    # sets are named "mulan/<name>" and found in the cache (no MLFS_DATASETS, no mirror).
    work = tmp_path / "work"
    work.mkdir()
    bench = _run(
        [
            mlfs,
            "benchmark",
            str(ROOT / "experiments" / "mlfs_benchmark_quick.toml"),
            "-j",
            "2",
            "--datasets",
            ",".join(NAMES),
            "--selectors",
            SELECTORS,
        ],
        env | {"MLFS_DATA_HOME": str(cache)},
        work,
    )
    report = work / "runs" / "mlfs_benchmark_quick" / "README.md"
    assert report.is_file(), bench.stdout + bench.stderr
    text = report.read_text(encoding="utf-8")
    assert "Methods: scls, mi_rank." in text
    for name in NAMES:
        assert re.search(rf"^\| {name} \|", text, flags=re.MULTILINE), name
    assert "cells computed" in bench.stderr
