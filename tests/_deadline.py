"""Run test cases with a per-case deadline in a forked worker process.

A case that hangs inside C code (LIBLINEAR, a parser) cannot be interrupted by a signal
in the process that runs it, so the cases run in a forked child that reports each result
through a pipe; when a case misses its deadline the parent kills the child, records the
case as a hang and forks a new child for the remaining cases. A child that dies (e.g. a
segfault) is recorded the same way. Forking keeps the imported modules, so starting a
worker costs milliseconds, and neither the function nor the cases need to be picklable
(only the results do).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Sequence
from typing import Any


def _worker(func: Callable[[Any], Any], cases: Sequence[Any], start: int, conn) -> None:
    try:
        for i in range(start, len(cases)):
            t0 = time.perf_counter()
            try:
                result = func(cases[i])
            except BaseException as exc:  # noqa: BLE001 - reported to the parent as a result
                result = ("harness-error", f"{type(exc).__name__}: {exc}")
            conn.send((i, result, time.perf_counter() - t0))
    finally:
        conn.close()
        os._exit(0)  # skip the parent's atexit/pytest machinery inherited by fork


def run_with_deadline(
    func: Callable[[Any], Any], cases: Sequence[Any], timeout: float
) -> list[tuple[Any, float]]:
    """``[(func(case), seconds), ...]``; a hang gives ``(("hang", ...), timeout)``.

    ``func`` must catch what it wants to classify and return a picklable value.
    """
    ctx = mp.get_context("fork")
    out: list[tuple[Any, float] | None] = [None] * len(cases)
    i = 0
    while i < len(cases):
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(func, cases, i, child), daemon=True)
        proc.start()
        child.close()
        while i < len(cases):
            if not parent.poll(timeout):
                proc.kill()
                out[i] = (("hang", f"no result after {timeout:g} s"), timeout)
                i += 1
                break
            try:
                j, result, secs = parent.recv()
            except EOFError:
                out[i] = (("died", f"worker exited with code {proc.exitcode}"), 0.0)
                i += 1
                break
            assert j == i
            out[i] = (result, secs)
            i += 1
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        parent.close()
    return out  # type: ignore[return-value]
