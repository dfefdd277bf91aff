"""Helpers of the tests that run ``mlfs`` or Dask in child processes (kill tests, real
clusters): the command line, the child's environment, and the cells a store holds so far."""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import time
from pathlib import Path

import pytest

import skmlfs

#: the source tree under test: children import this copy of the package, not another one
SRC = str(Path(skmlfs.__file__).resolve().parents[1])


def mlfs(*args) -> list[str]:
    """The ``mlfs`` command line run by this interpreter."""
    return [sys.executable, "-c", "import sys; from skmlfs.cli import main; sys.exit(main())",
            *map(str, args)]


def child_env(**extra: str | None) -> dict[str, str]:
    """This process's environment with :data:`SRC` first on ``PYTHONPATH``; ``extra``
    variables set (or removed, when ``None``)."""
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def count(db: Path) -> int:
    """Cells committed in the store ``db`` (0 before it or its schema exists)."""
    if not Path(db).exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # schema not created yet
        return 0


def wait_for_cells(proc, db: Path, at_least: int, timeout: float = 300) -> int:
    """Wait until ``db`` holds ``at_least`` cells while ``proc`` runs; fail otherwise."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        n = count(db)
        if n >= at_least:
            return n
        if proc.poll() is not None:
            pytest.fail(f"benchmark ended (rc={proc.returncode}) before being interrupted")
        time.sleep(0.02)
    pytest.fail("benchmark made no progress")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def created(db: Path) -> dict:
    """``cell_id -> created`` of every cell in the store ``db`` (a recomputed cell gets a
    new time)."""
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT cell_id, created FROM cells"))
    finally:
        con.close()


def reference_run(folder: Path, name: str, experiment: str):
    """Write ``experiment`` to ``folder/<name>.toml``, run it uninterrupted with ``mlfs
    benchmark`` and return ``(file, its cells as a frame)``."""
    import subprocess

    from skmlfs.experiments import ResultStore

    p = Path(folder) / f"{name}.toml"
    p.write_text(experiment)
    ref = Path(folder) / "ref.db"
    subprocess.run(mlfs("benchmark", p, "--db", ref, "--quiet", "--no-report"), check=True,
                   cwd=folder)
    with ResultStore(ref, readonly=True) as st:
        return p, st.to_frame()


def kill_then_resume(spec: Path, db: Path, cwd: Path, thresholds, n_cells: int):
    """Run ``mlfs benchmark spec`` into ``db`` and SIGKILL it once per threshold (after
    that many more cells are stored), checking each time that the kill landed mid-run and
    that no stored cell was rewritten; then run the same command to the end and check that
    no finished cell was recomputed, the store is intact and holds every cell once.
    Returns the cells stored at the last kill and the resumed run's ``CompletedProcess``."""
    import signal
    import subprocess

    before: dict = {}
    n = 0
    for threshold in thresholds:
        proc = subprocess.Popen(mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report"),
                                cwd=cwd)
        wait_for_cells(proc, db, count(db) + threshold)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        n = count(db)
        assert 0 < n < n_cells, "the kill must land mid-run"
        now = created(db)
        assert all(now[c] == t for c, t in before.items())  # nothing rewritten
        before = now
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--no-report"), cwd=cwd,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    after = created(db)
    assert all(after[c] == t for c, t in before.items())  # finished cells not recomputed
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    finally:
        con.close()
    assert len(ids) == len(set(ids)) == n_cells
    return n, res
