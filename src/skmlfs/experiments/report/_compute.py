"""How long an experiment takes on more workers, from the task times the store measured.

The engine's unit of work is a task: one selector on one split of one data set (its
selections, then the learners' fits and predictions for every budget). Workers take the
next task when they are free, so the wall time of a run on ``W`` workers is close to the
length of a list schedule of the measured task times. We print the schedule that hands
the longest tasks out first to the least busy worker (LPT, Graham 1969: within 4/3 of
the best possible schedule), which is also what a work-stealing Dask scheduler reaches
when the longest tasks are submitted first.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._format import format_wall
from ._util import _order

__all__ = ["lpt_wall_time", "task_times", "workers_section"]

#: the worker counts of the table when a report does not name its own
DEFAULT_WORKERS = (1, 2, 8, 32, 128)


def task_times(df: pd.DataFrame) -> pd.DataFrame:
    """One row per task of the cells ``df``: ``dataset``, ``method``, ``split`` and
    ``seconds`` (its selection, counted once, plus every fit and prediction).

    A task is the cells of one ranking (``ranking_id``): the store keeps the selection
    time of the task on each of its cells, so it is counted once. A ranking reused from
    an earlier run still counts: the table is about the cost of the experiment, not of
    the last resumption.
    """
    cols = ["dataset", "method", "split", "seconds"]
    if df is None or not len(df) or "ranking_id" not in df:
        return pd.DataFrame(columns=cols)
    g = df.groupby("ranking_id", sort=False)
    out = g[["dataset", "method", "split"]].first()
    sel = g["selection_time"].first().fillna(0.0)
    rest = g[["fit_time", "predict_time"]].sum(min_count=1).fillna(0.0).sum(axis=1)
    out["seconds"] = (sel + rest).astype(float)
    return out.reset_index(drop=True)[cols]


def lpt_wall_time(seconds: Sequence[float] | np.ndarray, workers: int) -> float:
    """Length of the longest-processing-time-first list schedule of ``seconds`` on
    ``workers`` identical workers (the busiest worker's total).

    Parameters
    ----------
    seconds : task durations (non-negative)
    workers : number of workers (>= 1)

    Returns
    -------
    float
        At least ``max(seconds)`` and ``sum(seconds) / workers``, at most 4/3 of the
        best schedule's length (Graham's bound for LPT).
    """
    if int(workers) < 1:
        raise ValueError(f"workers must be at least 1; got {workers!r}.")
    t = np.sort(np.asarray(seconds, dtype=float))[::-1]
    if t.size == 0:
        return 0.0
    if np.any(~np.isfinite(t)) or t[-1] < 0:
        raise ValueError("task durations must be finite and non-negative.")
    w = int(workers)
    if w >= t.size:
        return float(t[0])
    loads = [0.0] * w  # a heap of the workers' loads; the least busy takes the next task
    for x in t:
        heapq.heapreplace(loads, loads[0] + float(x))
    return max(loads)


def workers_section(df: pd.DataFrame, ds_pref: Sequence[str] = (),
                    workers: Sequence[int] = DEFAULT_WORKERS,
                    heading: str = "## Time on more workers") -> str:
    """Markdown: the measured task times summed, the longest task, and the wall time
    their LPT schedule takes on each number of ``workers``, for all data sets together
    and for each; '' without timed cells."""
    tasks = task_times(df)
    if not len(tasks):
        return ""
    ws = [int(w) for w in workers]
    head = ("| data set | tasks | task time (sum) | longest task | "
            + " | ".join(f"{w} worker{'s' if w > 1 else ''}" for w in ws) + " |")
    lines = [
        f"{heading}\n",
        "Projected from the task times measured in this store (one task: one method on "
        "one split of one data set, its selection plus its learners' fits and "
        "predictions): the wall time of handing the longest tasks out first to the least "
        "busy worker. A lower bound in practice: loading and splitting the data, the "
        "metrics, scheduling and the report are not counted, and the engine does not "
        "hand out the longest tasks first. The tasks were timed on the machine and load "
        "of the runs below, so the columns scale with its speed; workers beyond the "
        "number of tasks, or past the longest task, do not help.\n",
        head, "|---|" + "---|" * (len(ws) + 3),
    ]

    def row(label: str, t: pd.DataFrame) -> str:
        i = int(np.argmax(t["seconds"].to_numpy()))
        longest = t.iloc[i]
        where = (f"{format_wall(longest['seconds'])} ({longest['method']}"
                 + (f", {longest['dataset']}" if label == "all" else "") + ")")
        return (f"| {label} | {len(t)} | {format_wall(t['seconds'].sum())} | {where} | "
                + " | ".join(format_wall(lpt_wall_time(t["seconds"], w)) for w in ws)
                + " |")

    lines.append(row("all", tasks))
    for ds in _order(tasks["dataset"].unique(), ds_pref):
        lines.append(row(str(ds), tasks[tasks["dataset"] == ds]))
    return "\n".join(lines) + "\n"
