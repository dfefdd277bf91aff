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
    new time); empty before the store or its schema exists."""
    if not Path(db).exists():
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return dict(con.execute("SELECT cell_id, created FROM cells"))
    except sqlite3.Error:  # schema not created yet
        return {}
    finally:
        con.close()
