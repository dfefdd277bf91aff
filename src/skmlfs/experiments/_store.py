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
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["ResultStore"]

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
    created        REAL NOT NULL
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
    created        REAL NOT NULL
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
    "info",  # JSON or NULL: tuned parameters, search histories (added by issue #14)
)
_INSERT_CELL = (
    f"INSERT OR REPLACE INTO cells ({', '.join(_CELL_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_CELL_COLUMNS))})"
)


_PARAMS_HASH = re.compile(r"@[0-9a-f]{12}$")  # see MetricRef.key


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), allow_nan=True)


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
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"results database {self.path} does not exist.")
            self._conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, timeout=60, isolation_level=None
            )
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: transactions are opened explicitly (BEGIN IMMEDIATE) so each
            # cell is exactly one transaction.
            self._conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
            self._conn.executescript(_SCHEMA)
            cols = {r[1] for r in self._conn.execute("PRAGMA table_info(cells)")}
            if "info" not in cols:  # stores written before issue #14: add the column
                self._conn.execute("ALTER TABLE cells ADD COLUMN info TEXT")
            if self.get_meta("schema_version") is None:
                self.set_meta("schema_version", str(SCHEMA_VERSION))
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
        info = r.get("info")
        r["info"] = None if not info else (info if isinstance(info, str) else _dumps(info))
        r["ranking_reused"] = int(bool(r["ranking_reused"]))
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
    ) -> None:
        scores_json = None if scores is None else _dumps([float(s) for s in np.ravel(scores)])
        self._tx(
            "INSERT OR REPLACE INTO rankings (ranking_id, dataset, split, method, selector, "
            "k_requested, ranking, scores, selection_time, versions, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                ranking_id, dataset, int(split), method,
                selector if isinstance(selector, str) else _dumps(selector),
                int(k_requested), _dumps([int(f) for f in np.ravel(ranking)]), scores_json,
                float(selection_time),
                versions if isinstance(versions, str) else _dumps(versions), time.time(),
            ),
        )

    def get_ranking(self, ranking_id: str) -> dict | None:
        row = self._conn.execute(
            "SELECT ranking, scores, selection_time, k_requested FROM rankings "
            "WHERE ranking_id = ?",
            (ranking_id,),
        ).fetchone()
        if row is None:
            return None
        return {
            "ranking": np.asarray(json.loads(row[0]), dtype=np.intp),
            "scores": None if row[1] is None else np.asarray(json.loads(row[1]), dtype=float),
            "selection_time": float(row[2]),
            "k_requested": int(row[3]),
        }

    def rankings(self) -> dict[str, dict]:
        """All cached rankings (id → as :meth:`get_ranking`)."""
        out = {}
        for rid, rk, sc, t, k in self._conn.execute(
            "SELECT ranking_id, ranking, scores, selection_time, k_requested FROM rankings"
        ):
            out[rid] = {
                "ranking": np.asarray(json.loads(rk), dtype=np.intp),
                "scores": None if sc is None else np.asarray(json.loads(sc), dtype=float),
                "selection_time": float(t),
                "k_requested": int(k),
            }
        return out

    # ------------------------------------------------------------------ failures
    def add_failure(self, task_id: str, dataset: str, split: int, method: str, error: str):
        self._tx(
            "INSERT INTO failures (task_id, dataset, split, method, error, created) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (task_id, dataset, int(split), method, error, time.time()),
        )

    def failures(self):
        import pandas as pd

        return pd.read_sql_query("SELECT * FROM failures ORDER BY id", self._conn)

    # ------------------------------------------------------------------ export
    def to_frame(self, *, cell_ids: Iterable[str] | None = None):
        """All cells as a DataFrame: one row per cell, one column per metric.

        Columns: ``dataset, split, method, k, n_selected, learner``, the metric columns,
        ``selection_time, fit_time, predict_time, features`` (list of int), then
        ``cell_id, protocol, seed, selector, learner_spec, n_train, n_test, ranking_id,
        ranking_reused, versions, created``. Rows are sorted by dataset, method, k,
        learner, split. ``cell_ids`` restricts to those cells.
        """
        import pandas as pd

        have = {r[1] for r in self._conn.execute("PRAGMA table_info(cells)")}
        cols = [c for c in _CELL_COLUMNS if c in have]  # a read-only pre-#14 store: no info
        rows = self._conn.execute(f"SELECT {', '.join(cols)} FROM cells").fetchall()
        if cell_ids is not None:
            keep = set(cell_ids)
            rows = [r for r in rows if r[0] in keep]
        df = pd.DataFrame(rows, columns=cols)
        if "info" in df:
            df["info"] = [json.loads(i) if isinstance(i, str) else None for i in df["info"]]
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
        if "info" in df:  # nested, heterogeneous: JSON text in both formats
            df["info"] = [_dumps(i) if isinstance(i, dict) else None for i in df["info"]]
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
