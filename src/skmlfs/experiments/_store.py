"""The results store: one SQLite file (stdlib :mod:`sqlite3`) that loses nothing.

Guarantees
----------
* **One transaction per cell.** A cell is one row of ``cells`` holding every value of the
  cell (all metrics, selected features, times, versions); it is written by a single
  ``INSERT`` inside its own transaction, so after a crash (``kill -9``) a cell is either
  entirely present or absent — never half-written.
* **Resume.** Cells are keyed by a deterministic id (hash of dataset, protocol, split,
  selector and its parameters, k, learner and its parameters, seed). A rerun skips the ids
  present, so nothing is recomputed, lost or duplicated; changing the experiment adds only
  the new cells (``INSERT OR REPLACE`` only rewrites a cell that lacked a newly requested
  metric, or held it with other parameters: a metric with parameters is stored under
  ``name@<hash of the metric and its parameters>``).
* **Rankings** are cached per (dataset, split, selector) in their own table, so a rerun
  with new budgets or learners does not select again.
* WAL journal with ``synchronous=NORMAL``: a committed transaction survives the death of
  the process (it is in the WAL file); only an operating-system crash or power loss can
  drop the last commits (``synchronous="FULL"`` closes that gap at an fsync per cell).
  Readers (``mlfs report`` during a run) never block the writer.
* **One writer.** :meth:`ResultStore.writer_lock` (taken by
  :func:`~skmlfs.experiments.run_experiment` for the whole run) holds an exclusive OS lock
  (``flock``) on the sidecar file ``<store>.lock``; a second run on the same store stops at
  once with ``store busy: <path> is being written by pid N`` instead of computing every
  missing cell a second time. The operating system releases the lock when its owner dies,
  even by ``kill -9``, so a crashed run never leaves a stale lock behind. The lock file
  itself stays (deleting it would let two processes lock two different files).
* **A file that is not a store is never touched.** An existing file is first opened
  read-only and checked (SQLite header, ``PRAGMA quick_check``, the ``cells`` table): a text
  file, a truncated or corrupted database, or another program's SQLite file raises
  :class:`StoreError` naming the file and the problem, and is left byte-for-byte as it was.
  A 0-byte file is refused too (it is not a store: it may be the remains of a failed copy,
  and taking it as a new store would hide that); a new store is created under a temporary
  name and moved into place when its schema is written, so no run of ours ever leaves a
  0-byte store behind.
* **Extensible cells.** The optional ``info`` column holds a JSON object of per-cell data
  beyond the fixed columns (e.g. chosen hyper-parameters, a search history); stores written
  before it existed gain the column when opened for writing.
* **Merge.** :meth:`ResultStore.merge` adds another store's rows in one transaction
  (``mlfs merge``): stores computed apart become one, a cell in both is kept once.
* **Run log.** The ``runs`` table has one row per :func:`~skmlfs.experiments.run_experiment`
  call that computed a cell or met a failed task (wall time, counts, backend, whether it
  was interrupted); it is never part of a cell. Older stores gain the table when opened
  for writing; a run killed by ``SIGKILL`` cannot write its row.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import json
import lzma
import os
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

__all__ = ["ResultStore", "StoreBusyError", "StoreError"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cells (
    cell_id        TEXT PRIMARY KEY,
    dataset        TEXT NOT NULL,
    split          INTEGER NOT NULL,
    protocol       TEXT NOT NULL,
    method         TEXT NOT NULL,
    selector       TEXT NOT NULL,
    k              INTEGER NOT NULL,
    n_selected     INTEGER NOT NULL,
    learner        TEXT NOT NULL,
    learner_spec   TEXT NOT NULL,
    seed           INTEGER,
    metrics        TEXT NOT NULL,
    features       TEXT NOT NULL,
    selection_time REAL NOT NULL,
    fit_time       REAL NOT NULL,
    predict_time   REAL NOT NULL,
    n_train        INTEGER NOT NULL,
    n_test         INTEGER NOT NULL,
    ranking_id     TEXT NOT NULL,
    ranking_reused INTEGER NOT NULL,
    versions       TEXT NOT NULL,
    created        REAL NOT NULL,
    info           TEXT
);
CREATE TABLE IF NOT EXISTS rankings (
    ranking_id     TEXT PRIMARY KEY,
    dataset        TEXT NOT NULL,
    split          INTEGER NOT NULL,
    method         TEXT NOT NULL,
    selector       TEXT NOT NULL,
    k_requested    INTEGER NOT NULL,
    ranking        TEXT NOT NULL,
    scores         TEXT,
    selection_time REAL NOT NULL,
    versions       TEXT NOT NULL,
    created        REAL NOT NULL,
    info           TEXT
);
CREATE TABLE IF NOT EXISTS tasks (
    task_id      TEXT PRIMARY KEY,
    dataset      TEXT NOT NULL,
    split        INTEGER NOT NULL,
    method       TEXT NOT NULL,
    peak_rss_mb  REAL,
    created      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    experiment   TEXT NOT NULL,
    started      TEXT NOT NULL,
    seconds      REAL NOT NULL,
    n_computed   INTEGER NOT NULL,
    n_cached     INTEGER NOT NULL,
    n_failed     INTEGER NOT NULL,
    backend      TEXT NOT NULL,
    interrupted  INTEGER NOT NULL,
    version      TEXT,
    warnings     TEXT
);
CREATE TABLE IF NOT EXISTS failures (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id  TEXT NOT NULL,
    dataset  TEXT NOT NULL,
    split    INTEGER NOT NULL,
    method   TEXT NOT NULL,
    error    TEXT NOT NULL,
    created  REAL NOT NULL
);
"""

_CELL_COLUMNS = (
    "cell_id", "dataset", "split", "protocol", "method", "selector", "k", "n_selected",
    "learner", "learner_spec", "seed", "metrics", "features", "selection_time", "fit_time",
    "predict_time", "n_train", "n_test", "ranking_id", "ranking_reused", "versions", "created",
    "info",
)
_INSERT_CELL = (
    f"INSERT OR REPLACE INTO cells ({', '.join(_CELL_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_CELL_COLUMNS))})"
)


_PARAMS_HASH = re.compile(r"@[0-9a-f]{12}$")  # see MetricRef.key


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), allow_nan=True)


class StoreError(ValueError):
    """The results store cannot be used: the message names the file and what is wrong."""


class StoreBusyError(StoreError):
    """Another live process is writing the same results store."""


_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_existing(path: Path) -> None:
    """Raise :class:`StoreError` unless ``path`` is a readable results store.

    Reads only: the header bytes, then a read-only SQLite connection (``mode=ro``) running
    ``PRAGMA quick_check`` (every page of every table and index) and looking for the
    ``cells`` table. A file that fails is never opened for writing.
    """
    size = path.stat().st_size
    if size == 0:
        raise StoreError(
            f"{path}: empty file (0 bytes), not a results store; delete it to start a new "
            "store there, or choose another file."
        )
    with open(path, "rb") as fh:
        head = fh.read(100)
    if not head.startswith(_SQLITE_MAGIC):
        if _SQLITE_MAGIC.startswith(head):
            what = f"truncated to {size} bytes (an SQLite header needs 100)"
        else:
            what = f"not an SQLite database (it starts with {head[:16]!r})"
        raise StoreError(f"{path}: {what}; the file was left untouched.")
    if len(head) < 100:
        raise StoreError(
            f"{path}: truncated to {size} bytes (an SQLite header needs 100); the file was "
            "left untouched."
        )
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    n_pages = int.from_bytes(head[28:32], "big")
    if page >= 512 and n_pages and size < page * n_pages and not _has_wal(path):
        raise StoreError(
            f"{path}: truncated: {size} bytes but its header declares {n_pages} pages of "
            f"{page} bytes ({n_pages * page} bytes); the file was left untouched."
        )
    # No -wal file: no writer is active and nothing is pending, so the file is read as
    # immutable (SQLite then creates no -wal/-shm side files beside a file it may reject).
    wal = path.with_name(path.name + "-wal")
    flags = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    try:
        con = sqlite3.connect(f"file:{path}?{flags}", uri=True, timeout=60)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened as an SQLite database ({exc}).") from None
    try:
        rows = [r[0] for r in con.execute("PRAGMA quick_check(5)")]
        if rows != ["ok"]:
            raise StoreError(
                f"{path}: corrupted SQLite database ({'; '.join(map(str, rows))}); the file "
                "was left untouched."
            )
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path}: corrupted or unreadable SQLite database ({exc}); the file was left "
            "untouched."
        ) from None
    finally:
        con.close()
    if tables and not {"meta", "cells"} <= tables:
        raise StoreError(
            f"{path}: an SQLite database but not a scikit-mlfs results store (no "
            f"'meta'/'cells' table; it has {sorted(tables)[:5]}); the file was left untouched."
        )


def _lock_file(fh) -> None:
    """Exclusive, non-blocking OS lock on an open file (``OSError`` when held elsewhere)."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        fh.seek(0)
        msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        return
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


def _has_wal(path: Path) -> bool:
    wal = path.with_name(path.name + "-wal")
    return wal.exists() and wal.stat().st_size > 0


def _create_new(path: Path) -> None:
    """Create an empty store at ``path`` atomically: the schema is written to a temporary
    file beside it, which is then linked into place (fails if ``path`` appeared meanwhile,
    in which case that file is checked like any existing one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
    try:
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)
            con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
        finally:
            con.close()  # checkpoints and removes the temporary -wal/-shm files
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: used (and checked) as an existing store
        except OSError:  # a file system without hard links: rename (may replace a racer's)
            os.replace(tmp, path)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{tmp}{suffix}")


class ResultStore:
    """Append-only SQLite store of benchmark cells (see the module docstring).

    Parameters
    ----------
    path : str or PathLike
        Database file; created (with its folder) if missing.
    synchronous : {"NORMAL", "FULL"}, default="NORMAL"
        SQLite durability level (``NORMAL`` survives process death, ``FULL`` also power
        loss).
    readonly : bool, default=False
        Open an existing database for reading only (``mlfs report``).
    """

    def __init__(self, path: str | os.PathLike, *, synchronous: str = "NORMAL",
                 readonly: bool = False):
        self.path = Path(path)
        if synchronous.upper() not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous must be 'NORMAL' or 'FULL'; got {synchronous!r}.")
        self._conn = None
        self._lock_fh = None
        self._lock_depth = 0
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"results database {self.path} does not exist.")
            _check_existing(self.path)
            self._conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, timeout=60, isolation_level=None
            )
        else:
            if self.path.exists():
                _check_existing(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                _create_new(self.path)
                _check_existing(self.path)
            # Autocommit mode: transactions are opened explicitly (BEGIN IMMEDIATE) so each
            # cell is exactly one transaction.
            self._conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.executescript(_SCHEMA)
            cols = {r[1] for r in self._conn.execute("PRAGMA table_info(cells)")}
            if "info" not in cols:  # a store written before the column existed
                self._conn.execute("ALTER TABLE cells ADD COLUMN info TEXT")
            rk_cols = {r[1] for r in self._conn.execute("PRAGMA table_info(rankings)")}
            if "info" not in rk_cols:  # rankings stored before the selector's info was kept
                self._conn.execute("ALTER TABLE rankings ADD COLUMN info TEXT")
            run_cols = {r[1] for r in self._conn.execute("PRAGMA table_info(runs)")}
            if "warnings" not in run_cols:  # a run log written before warnings were kept
                self._conn.execute("ALTER TABLE runs ADD COLUMN warnings TEXT")
            if self.get_meta("schema_version") is None:
                self.set_meta("schema_version", str(SCHEMA_VERSION))
        self._cell_columns = tuple(
            r[1] for r in self._conn.execute("PRAGMA table_info(cells)")
            if r[1] in _CELL_COLUMNS
        )
        v = self.get_meta("schema_version")
        if v is not None and int(v) != SCHEMA_VERSION:
            raise ValueError(
                f"{self.path}: results schema version {v}, this scikit-mlfs reads version "
                f"{SCHEMA_VERSION}."
            )

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._release_lock(force=True)

    # ------------------------------------------------------------------ one writer
    @property
    def lock_path(self) -> Path:
        """The sidecar file ``<store>.lock`` holding the writer's OS lock."""
        return self.path.with_name(self.path.name + ".lock")

    @contextlib.contextmanager
    def writer_lock(self):
        """Hold the store's exclusive writer lock for the ``with`` block (re-entrant).

        Raises
        ------
        StoreBusyError
            Another live process holds it: ``store busy: <path> is being written by pid N``.
        """
        self._acquire_lock()
        try:
            yield self
        finally:
            self._release_lock()

    def _acquire_lock(self) -> None:
        if self._lock_depth:
            self._lock_depth += 1
            return
        fh = open(self.lock_path, "a+")  # noqa: SIM115 — held until _release_lock
        try:
            _lock_file(fh)
        except OSError:
            fh.seek(0)
            owner = fh.read().strip() or "?"
            fh.close()
            raise StoreBusyError(
                f"store busy: {self.path} is being written by pid {owner} (wait for it to "
                "finish, or stop it; its finished cells are kept)."
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n")
        fh.flush()
        self._lock_fh, self._lock_depth = fh, 1

    def _release_lock(self, force: bool = False) -> None:
        if not self._lock_depth:
            return
        self._lock_depth = 0 if force else self._lock_depth - 1
        if self._lock_depth == 0 and self._lock_fh is not None:
            with contextlib.suppress(OSError):
                self._lock_fh.seek(0)
                self._lock_fh.truncate()
            self._lock_fh.close()  # closing the descriptor releases the OS lock
            self._lock_fh = None

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _tx(self, sql: str, params: Iterable = ()) -> None:
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute(sql, tuple(params))
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")

    # ------------------------------------------------------------------ meta
    def set_meta(self, key: str, value: str) -> None:
        self._tx("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def get_meta(self, key: str) -> str | None:
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        except sqlite3.OperationalError:
            return None
        return None if row is None else row[0]

    # ------------------------------------------------------------------ cells
    def add_cell(self, record: Mapping[str, Any]) -> None:
        """Write one finished cell in its own transaction.

        ``record`` holds the columns of the ``cells`` table; ``metrics`` (dict),
        ``features`` (int sequence), ``selector``/``learner_spec``/``versions`` (dicts or
        JSON text) are serialised here.
        """
        r = dict(record)
        r["metrics"] = _dumps({k: float(v) for k, v in r["metrics"].items()})
        r["features"] = _dumps([int(f) for f in np.asarray(r["features"]).ravel()])
        for key in ("selector", "learner_spec", "versions"):
            if not isinstance(r[key], str):
                r[key] = _dumps(r[key])
        r.setdefault("created", time.time())
        r["ranking_reused"] = int(bool(r["ranking_reused"]))
        info = r.get("info")
        r["info"] = None if not info else info if isinstance(info, str) else _dumps(info)
        self._tx(_INSERT_CELL, (r[c] for c in _CELL_COLUMNS))

    def done_cells(self, metrics: Iterable[str] | None = None) -> set[str]:
        """Ids of the stored cells (that hold every metric key in ``metrics``, see
        :meth:`MetricRef.key <skmlfs.experiments.MetricRef.key>`)."""
        if metrics is None:
            return {r[0] for r in self._conn.execute("SELECT cell_id FROM cells")}
        need = set(metrics)
        return {
            cid
            for cid, m in self._conn.execute("SELECT cell_id, metrics FROM cells")
            if need.issubset(json.loads(m))
        }

    def n_cells(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0])

    # ------------------------------------------------------------------ rankings
    def add_ranking(
        self, ranking_id: str, *, dataset: str, split: int, method: str, selector: Any,
        k_requested: int, ranking: Any, scores: Any, selection_time: float, versions: Any,
        info: Mapping[str, Any] | None = None,
    ) -> None:
        """Store a selector's ranking for reuse; ``info`` is what the fitted selector reports
        (``fitted_info``: a search's chosen parameters, inner scores, history), kept so that a
        cell computed later from this ranking (a resumed run) records the same info."""
        scores_json = None if scores is None else _dumps([float(s) for s in np.ravel(scores)])
        self._tx(
            "INSERT OR REPLACE INTO rankings (ranking_id, dataset, split, method, selector, "
            "k_requested, ranking, scores, selection_time, versions, created, info) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ranking_id, dataset, int(split), method,
                selector if isinstance(selector, str) else _dumps(selector),
                int(k_requested), _dumps([int(f) for f in np.ravel(ranking)]), scores_json,
                float(selection_time),
                versions if isinstance(versions, str) else _dumps(versions), time.time(),
                _dumps(dict(info)) if info else None,
            ),
        )

    def _ranking_rows(self, where: str = "", args: tuple = ()) -> Any:
        # a store opened read-only may predate the info column (it is added on write)
        cols = {r[1] for r in self._conn.execute("PRAGMA table_info(rankings)")}
        info = "info" if "info" in cols else "NULL"
        return self._conn.execute(
            f"SELECT ranking_id, ranking, scores, selection_time, k_requested, {info} "
            f"FROM rankings {where}", args)

    @staticmethod
    def _ranking_dict(rk: str, sc: str | None, t: float, k: int, info: str | None) -> dict:
        return {
            "ranking": np.asarray(json.loads(rk), dtype=np.intp),
            "scores": None if sc is None else np.asarray(json.loads(sc), dtype=float),
            "selection_time": float(t),
            "k_requested": int(k),
            "info": json.loads(info) if info else {},
        }

    def get_ranking(self, ranking_id: str) -> dict | None:
        row = self._ranking_rows("WHERE ranking_id = ?", (ranking_id,)).fetchone()
        return None if row is None else self._ranking_dict(*row[1:])

    def rankings(self) -> dict[str, dict]:
        """All cached rankings (id → as :meth:`get_ranking`)."""
        return {row[0]: self._ranking_dict(*row[1:]) for row in self._ranking_rows()}

    # ------------------------------------------------------------------ task resources
    def add_task_stats(self, task_id: str, dataset: str, split: int, method: str,
                       peak_rss_mb: float | None) -> None:
        """Record what a task used (peak resident memory of its process during the task,
        MB); not part of any cell, so a store without it reports "not recorded". A task
        finished over several runs (resumed) keeps the largest of their peaks."""
        self._tx(
            "INSERT INTO tasks (task_id, dataset, split, method, peak_rss_mb, created) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (task_id) DO UPDATE SET "
            "peak_rss_mb = max(coalesce(peak_rss_mb, excluded.peak_rss_mb), "
            "coalesce(excluded.peak_rss_mb, peak_rss_mb)), created = excluded.created",
            (task_id, dataset, int(split), method, peak_rss_mb, time.time()),
        )

    def task_stats(self):
        """The recorded task resources as a DataFrame (empty for older stores)."""
        return self._table("SELECT * FROM tasks", ["task_id", "dataset", "split", "method",
                                                   "peak_rss_mb", "created"])

    # ------------------------------------------------------------------ run log
    def add_run(self, experiment: str, *, started: float, seconds: float, n_computed: int,
                n_cached: int, n_failed: int, backend: str, interrupted: bool,
                version: str | None = None, warnings: str | None = None) -> None:
        """Record one run of an experiment (``started``: epoch seconds, stored as UTC
        ISO 8601; ``seconds``: its wall time; ``n_failed``: failed tasks; ``warnings``: the
        run's warnings counted by kind, JSON, see ``skmlfs.experiments._warnings``). Not
        part of any cell."""
        start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
        self._tx(
            "INSERT INTO runs (experiment, started, seconds, n_computed, n_cached, n_failed, "
            "backend, interrupted, version, warnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (experiment, start, float(seconds), int(n_computed), int(n_cached), int(n_failed),
             backend, int(bool(interrupted)), version, warnings),
        )

    def runs(self):
        """The run log as a DataFrame in the order of the runs (empty for older stores)."""
        df = self._table("SELECT * FROM runs ORDER BY id",
                         ["id", "experiment", "started", "seconds", "n_computed", "n_cached",
                          "n_failed", "backend", "interrupted", "version", "warnings"])
        return df.assign(interrupted=df["interrupted"].astype(bool))

    def _table(self, sql: str, columns: list[str]):
        """``sql`` read as a DataFrame; an empty one with ``columns`` from a store older
        than the table (opened read-only, so it never gained it)."""
        import pandas as pd

        try:
            return pd.read_sql_query(sql, self._conn)
        except (sqlite3.Error, pd.errors.DatabaseError):
            return pd.DataFrame(columns=columns)

    # ------------------------------------------------------------------ failures
    def add_failure(self, task_id: str, dataset: str, split: int, method: str, error: str):
        self._tx(
            "INSERT INTO failures (task_id, dataset, split, method, error, created) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (task_id, dataset, int(split), method, error, time.time()),
        )

    _STOPPED = "stopped_at_limit:"

    def add_stopped(self, key: str, time_limit: float, dataset: str, method: str) -> None:
        """Record that a time limit of ``time_limit`` seconds stopped method ``method`` on
        data set ``dataset`` (``key``: :func:`skmlfs.experiments._execute.method_on_data`).
        Kept in ``meta``: the schema is unchanged, older readers ignore it."""
        self.set_meta(self._STOPPED + key, _dumps(
            {"time_limit": float(time_limit), "dataset": dataset, "method": method}))

    def stopped(self) -> dict[str, dict]:
        """Key -> ``{"time_limit", "dataset", "method"}`` of every method a time limit has
        stopped on a data set (the largest limit that did)."""
        try:
            rows = self._conn.execute(
                "SELECT key, value FROM meta WHERE key LIKE ?", (self._STOPPED + "%",)
            ).fetchall()
        except sqlite3.OperationalError:
            return {}
        return {k[len(self._STOPPED):]: json.loads(v) for k, v in rows}

    def failures(self):
        import pandas as pd

        return pd.read_sql_query("SELECT * FROM failures ORDER BY id", self._conn)

    # ------------------------------------------------------------------ merge
    def merge(self, source: str | os.PathLike) -> dict[str, int]:
        """Add the results of another store (e.g. computed on another machine) to this one.

        Every table is merged in one transaction, so an interrupted merge adds nothing.
        A cell or ranking already here is kept as it is (a resumed run would not recompute
        it either); the count of those whose stored values differ from the source's (e.g.
        last digits from another processor's BLAS) is returned, so that the caller can say
        so. Task resources keep the larger peak; the run log and the failures gain the
        source's rows not already here; ``meta`` gains the keys it lacks (the plan of the
        last run is this store's until the experiment is run again on the merged store,
        which computes nothing that is stored and records the plan of its file).

        Parameters
        ----------
        source : str or PathLike
            A results store (checked like any existing store and opened read-only; never
            modified). It must not be this store.

        Returns
        -------
        dict
            ``cells``, ``rankings``: rows added; ``cells_kept``, ``rankings_kept``: rows in
            both stores (this store's kept); ``cells_differ``, ``rankings_differ``: those of
            them whose values differ; ``runs``, ``failures``, ``tasks``, ``meta``: rows
            added.
        """
        src = Path(source)
        if not src.exists():
            raise FileNotFoundError(f"results database {src} does not exist.")
        if src.resolve() == self.path.resolve():
            raise StoreError(f"{src}: cannot merge a results store into itself.")
        _check_existing(src)
        with self.writer_lock():
            return self._merge_checked(src)

    def _merge_checked(self, src: Path) -> dict[str, int]:
        c = self._conn
        wal = src.with_name(src.name + "-wal")
        flags = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
        c.execute("ATTACH DATABASE ? AS src", (f"file:{quote(str(src.resolve()))}?{flags}",))
        try:
            attached = {r[1]: r[2] for r in c.execute("PRAGMA database_list")}.get("src")
            if not attached or Path(attached).resolve() != src.resolve():
                # an SQLite built without URI file names takes the URI as a file name
                raise StoreError(f"{src}: could not be opened read-only for merging.")
            version = c.execute(
                "SELECT value FROM src.meta WHERE key = 'schema_version'").fetchone()
            if version is not None and int(version[0]) != SCHEMA_VERSION:
                raise StoreError(
                    f"{src}: results schema version {version[0]}, this store has version "
                    f"{SCHEMA_VERSION}; it was not merged."
                )
            tables = {r[0] for r in c.execute(
                "SELECT name FROM src.sqlite_master WHERE type = 'table'")}
            c.execute("BEGIN IMMEDIATE")
            try:
                out = self._merge_tables(tables)
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
        finally:
            c.execute("DETACH DATABASE src")
        return out

    def _merge_tables(self, tables: set[str]) -> dict[str, int]:
        c = self._conn

        def common(table: str) -> list[str]:
            here = [r[1] for r in c.execute(f"PRAGMA main.table_info({table})")]
            there = {r[1] for r in c.execute(f"PRAGMA src.table_info({table})")}
            return [col for col in here if col in there]

        def changes() -> int:
            return int(c.execute("SELECT changes()").fetchone()[0])

        out: dict[str, int] = {}
        for table, key, compare in (("cells", "cell_id", ("metrics", "features")),
                                    ("rankings", "ranking_id", ("ranking", "scores"))):
            out[table], out[f"{table}_kept"], out[f"{table}_differ"] = 0, 0, 0
            if table not in tables:
                continue
            differ = " OR ".join(f"a.{col} IS NOT b.{col}" for col in compare)
            out[f"{table}_kept"], out[f"{table}_differ"] = (int(v or 0) for v in c.execute(
                f"SELECT COUNT(*), SUM({differ}) FROM src.{table} AS b "
                f"JOIN main.{table} AS a USING ({key})").fetchone())
            cols = ", ".join(common(table))
            c.execute(f"INSERT OR IGNORE INTO main.{table} ({cols}) "
                      f"SELECT {cols} FROM src.{table}")
            out[table] = changes()
        out["tasks"] = 0
        if "tasks" in tables:
            before = c.execute("SELECT COUNT(*) FROM main.tasks").fetchone()[0]
            c.execute(
                "INSERT INTO main.tasks (task_id, dataset, split, method, peak_rss_mb, "
                "created) SELECT task_id, dataset, split, method, peak_rss_mb, created "
                # "WHERE true": SQLite's upsert after a SELECT needs it to parse ON CONFLICT
                "FROM src.tasks WHERE true ON CONFLICT (task_id) DO UPDATE SET "
                "peak_rss_mb = max(coalesce(peak_rss_mb, excluded.peak_rss_mb), "
                "coalesce(excluded.peak_rss_mb, peak_rss_mb))"
            )
            out["tasks"] = c.execute("SELECT COUNT(*) FROM main.tasks").fetchone()[0] - before
        # run log and failures have no natural key: a row is new unless an equal one is here
        for table, same in (("runs", ("experiment", "started", "seconds", "n_computed")),
                            ("failures", ("task_id", "error", "created"))):
            out[table] = 0
            if table not in tables:
                continue
            cols = ", ".join(col for col in common(table) if col != "id")
            match = " AND ".join(f"a.{col} IS b.{col}" for col in same)
            c.execute(
                f"INSERT INTO main.{table} ({cols}) SELECT {cols} FROM src.{table} AS b "
                f"WHERE NOT EXISTS (SELECT 1 FROM main.{table} AS a WHERE {match}) "
                f"ORDER BY b.id"
            )
            out[table] = changes()
        c.execute("INSERT OR IGNORE INTO main.meta (key, value) SELECT key, value FROM src.meta")
        out["meta"] = changes()
        return out

    # ------------------------------------------------------------------ export
    def to_frame(self, *, cell_ids: Iterable[str] | None = None):
        """All cells as a DataFrame: one row per cell, one column per metric.

        Columns: ``dataset, split, method, k, n_selected, learner``, the metric columns,
        ``selection_time, fit_time, predict_time, features`` (list of int), then
        ``cell_id, protocol, seed, selector, learner_spec, n_train, n_test, ranking_id,
        ranking_reused, versions, created, info`` (``info``: the cell's optional JSON
        object as a dict, or ``None``). Rows are sorted by dataset, method, k,
        learner, split. ``cell_ids`` restricts to those cells.
        """
        import pandas as pd

        cols = self._cell_columns  # a read-only store of an older version may lack "info"
        rows = self._conn.execute(f"SELECT {', '.join(cols)} FROM cells").fetchall()
        if cell_ids is not None:
            keep = set(cell_ids)
            rows = [r for r in rows if r[0] in keep]
        df = pd.DataFrame(rows, columns=list(cols))
        if "info" not in df:
            df["info"] = None
        df["info"] = [json.loads(e) if isinstance(e, str) else None for e in df["info"]]
        # a metric with parameters is stored as "name@<hash of its parameters>"
        metrics = [
            {_PARAMS_HASH.sub("", k): v for k, v in json.loads(m).items()} for m in df["metrics"]
        ]
        names: list[str] = []
        for m in metrics:
            for k in m:
                if k not in names:
                    names.append(k)
        mdf = pd.DataFrame(
            {n: [m.get(n, np.nan) for m in metrics] for n in names}, index=df.index, dtype=float
        )
        df["features"] = [json.loads(f) for f in df["features"]]
        df["ranking_reused"] = df["ranking_reused"].astype(bool)
        front = ["dataset", "split", "method", "k", "n_selected", "learner"]
        times = ["selection_time", "fit_time", "predict_time", "features"]
        rest = [c for c in df.columns if c not in front + times + ["metrics"]]
        out = pd.concat([df[front], mdf, df[times + rest]], axis=1)
        return out.sort_values(["dataset", "method", "k", "learner", "split"]).reset_index(
            drop=True
        )

    def export(self, path: str | os.PathLike, *, format: str | None = None) -> Path:
        """Write every cell to ``path`` as CSV or Parquet (by ``format`` or the suffix).

        In CSV the ``features`` column is a JSON list. Parquet needs ``pyarrow`` (or
        ``fastparquet``).
        """
        p = Path(path)
        fmt = (format or p.suffix.lstrip(".")).lower()
        df = self.to_frame()
        df["info"] = [_dumps(e) if isinstance(e, dict) else None for e in df["info"]]
        if fmt == "csv":
            df = df.assign(features=[_dumps(f) for f in df["features"]])
            p.parent.mkdir(parents=True, exist_ok=True)
            df.to_csv(p, index=False)
        elif fmt in ("parquet", "pq"):
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                df.to_parquet(p, index=False)
            except ImportError as exc:
                raise ValueError(
                    f"Parquet export needs pyarrow or fastparquet ({exc}); "
                    "pip install pyarrow, or export to .csv."
                ) from None
        else:
            raise ValueError(f"unknown export format {fmt!r}; use .csv or .parquet.")
        return p


_COMPRESSED = {".xz": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}
#: suffixes of the compressed stores :func:`readable_store` reads
COMPRESSED_SUFFIXES = tuple(_COMPRESSED)


@contextlib.contextmanager
def readable_store(path: str | os.PathLike, tmp_dir: str | os.PathLike | None = None):
    """Yield the path of a store to read: ``path`` itself, or for a compressed store
    (``.xz``, ``.gz``, ``.bz2``, as a store is shipped) a decompressed copy in a temporary
    folder (under ``tmp_dir``), deleted afterwards."""
    p = Path(path)
    opener = _COMPRESSED.get(p.suffix.lower())
    if opener is None:
        yield p
        return
    if not p.exists():
        raise FileNotFoundError(f"results database {p} does not exist.")
    with tempfile.TemporaryDirectory(dir=tmp_dir, prefix=".mlfs-merge-") as tmp:
        plain = Path(tmp) / p.stem
        try:
            with opener(p, "rb") as fin, open(plain, "wb") as fout:
                shutil.copyfileobj(fin, fout, 1 << 20)
        except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:  # gzip's are OSErrors
            raise StoreError(f"{p}: cannot be decompressed ({exc}).") from None
        yield plain


#: columns of a cell row that are not metric values (the report tells metrics by it)
_NON_METRIC = {
    "dataset", "split", "method", "k", "n_selected", "learner", "selection_time", "fit_time",
    "predict_time", "features", "cell_id", "protocol", "seed", "selector", "learner_spec",
    "n_train", "n_test", "ranking_id", "ranking_reused", "versions", "created", "info",
    "peak_rss_mb",  # a task resource joined in by the report
}


# --------------------------------------------------------------------------- multi-part
def part_experiments(store: ResultStore, ep: Any) -> dict[str, list[str]]:
    """Names of the experiments each part of the multi-part experiment ``ep`` (an
    :class:`~skmlfs.experiments.ExperimentParts`) last ran in ``store`` (meta
    ``parts:<name>``).

    A part the store has no record of (a run stopped inside it by a version that recorded
    a part when it ended) gets the experiments the file names for it that have planned
    cells in the store: the part's own and, for a part run per data set, one per data set.
    """
    raw = store.get_meta(f"parts:{ep.name}")
    names = json.loads(raw) if raw else {}
    for part, _ in ep.parts:
        if part not in names:
            every = [ep.spec_name(part)] + [
                ep.spec_name(part, d.name) for d in ep.checked[part].datasets]
            found = [s for s in every if store.get_meta(f"cells:{s}")]
            if found:
                names[part] = found
    return names


def part_cells(store: ResultStore, ep: Any) -> dict[str, list[str]]:
    """Cell ids of each part of the multi-part experiment ``ep`` as last planned in
    ``store``: those of its experiments (:func:`part_experiments`)."""
    out: dict[str, list[str]] = {}
    for part, specs in part_experiments(store, ep).items():
        ids: list[str] = []
        for s in specs:
            v = store.get_meta(f"cells:{s}")
            if v:
                ids.extend(json.loads(v))
        out[part] = ids
    return out
