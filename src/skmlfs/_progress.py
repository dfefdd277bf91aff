"""Progress of long work, one rule for every command and estimator.

*Where* progress goes (:func:`progress_mode`): a bar on a terminal; on a pipe or a file a
plain line every few seconds (``$MLFS_PROGRESS_INTERVAL``, default 10 s), nothing at all
for work shorter than that; nothing with ``quiet`` (``-q``). :func:`progress_bar` gives the
object for a count of items (cells, splits) in that mode. The time left is the time so far
scaled by the work left over the work done: one unit per item, or the relative work each
``update`` names (``work=``) when items differ in cost (an experiment's cells on data sets
of very different sizes, the largest first).

*Inside* one fit, estimators with a ``verbose`` parameter (scikit-learn's convention: int,
default 0) report their steps — greedy picks, solver iterations, wrapper evaluations —
through :func:`report_step`; :class:`~skmlfs.selection._base.BaseSelector` opens the
reporter of the estimator being fitted (:func:`fit_progress`), so the loops themselves
need only the one call::

    for i in range(k):
        ...
        report_step(i + 1, k, "feature", objective=score)

``verbose=0`` prints nothing (the call costs one context-variable lookup); ``1`` prints a
line on stderr every few seconds (a fit shorter than that prints nothing); ``2`` or more
prints every step. The command line sets ``verbose=1`` when progress is on, and inside
:func:`progress_style` ``"bar"`` (a terminal) the steps drive a tqdm bar instead.
A new selector opts in with ``verbose`` in its ``__init__`` and ``_parameter_constraints``
(``"verbose": ["verbose"]``) and ``report_step`` calls in its loops.

*A time limit* (:func:`time_limit`, the experiment engine's ``time_limit`` key) is checked
at the same calls, whatever ``verbose``: past the limit, or as soon as the steps reported so
far project the loop to more than :data:`PROJECTION_FACTOR` times the limit (once a tenth of
the limit has passed), :func:`report_step` raises :class:`TimeLimitExceeded`. The check is
cooperative: work between two reported steps is not interrupted.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, Literal, TextIO

__all__ = [
    "PROJECTION_FACTOR",
    "ProgressMode",
    "TimeLimitExceeded",
    "check_time",
    "fit_progress",
    "progress_bar",
    "progress_mode",
    "progress_style",
    "report_step",
    "time_limit",
]

ProgressMode = Literal["bar", "lines", "off"]

_DEFAULT_INTERVAL = 10.0


def line_interval() -> float:
    """Seconds between two progress lines on a pipe (``$MLFS_PROGRESS_INTERVAL``, 10)."""
    try:
        return max(0.0, float(os.environ.get("MLFS_PROGRESS_INTERVAL", _DEFAULT_INTERVAL)))
    except ValueError:
        return _DEFAULT_INTERVAL


def progress_mode(quiet: bool | None = False, stream: TextIO | None = None) -> ProgressMode:
    """``"off"`` when ``quiet``; else ``"bar"`` when ``stream`` (default stderr) is a
    terminal, ``"lines"`` otherwise."""
    if quiet:
        return "off"
    stream = sys.stderr if stream is None else stream
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a file
        tty = False
    return "bar" if tty else "lines"


def _fmt_seconds(s: float) -> str:
    if s < 60:
        return f"{s:.1f} s"
    m, s = divmod(int(s), 60)
    return f"{m} min {s:02d} s" if m < 60 else f"{m // 60} h {m % 60:02d} min"


class _Work:
    """Items done of ``total`` and the work they stand for, for the time left."""

    def __init__(self, total: int | None, work: float | None) -> None:
        self.total = total
        self.work = float(total or 0) if work is None else float(work)
        self.n, self.done = 0, 0.0

    def add(self, n: int, work: float | None) -> None:
        self.n += n
        self.done += n if work is None else float(work)

    def left(self, elapsed: float) -> float | None:
        """Seconds left at the rate so far (None: nothing done yet, or all done)."""
        if not self.total or not self.n or self.n >= self.total or self.done <= 0:
            return None
        return elapsed / self.done * max(0.0, self.work - self.done)


class _Lines:
    """``tqdm``'s ``update``/``close`` as a plain line every ``interval`` seconds."""

    def __init__(self, total: int | None, desc: str, unit: str, stream: TextIO,
                 interval: float, work: float | None = None) -> None:
        self.total, self.desc, self.unit, self.stream = total, desc, unit, stream
        self.interval = interval
        self.w = _Work(total, work)
        self.t0 = self.last = time.perf_counter()
        self.printed = False

    @property
    def n(self) -> int:
        return self.w.n

    def _line(self, now: float) -> None:
        elapsed = now - self.t0
        if self.total:
            pct = 100.0 * self.n / self.total
            eta = self.w.left(elapsed)
            rest = f", about {_fmt_seconds(eta)} left" if eta is not None else ""
            text = (f"{self.desc}: {self.n}/{self.total} {self.unit}s ({pct:.0f} %) in "
                    f"{_fmt_seconds(elapsed)}{rest}")
        else:
            text = f"{self.desc}: {self.n} {self.unit}s in {_fmt_seconds(elapsed)}"
        print(text, file=self.stream, flush=True)
        self.last, self.printed = now, True

    def update(self, n: int = 1, work: float | None = None) -> None:
        self.w.add(n, work)
        now = time.perf_counter()
        if now - self.last >= self.interval:
            self._line(now)

    def close(self) -> None:
        if self.printed:  # where it ended; a run short enough to print nothing stays silent
            self._line(time.perf_counter())
            self.printed = False


class _Bar:
    """A tqdm bar counting items, its time left from the work (tqdm's own estimate counts
    items, as if each cost the same)."""

    def __init__(self, total: int | None, desc: str, unit: str, stream: TextIO,
                 work: float | None) -> None:
        from tqdm.auto import tqdm

        self.w = _Work(total, work)
        self.t0 = time.perf_counter()
        self.bar = tqdm(total=total, desc=desc, unit=unit, dynamic_ncols=True, leave=True,
                        file=stream, bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} "
                        "[{elapsed}{postfix}]")

    def update(self, n: int = 1, work: float | None = None) -> None:
        self.w.add(n, work)
        eta = self.w.left(time.perf_counter() - self.t0)
        if eta is not None:
            self.bar.set_postfix_str(f"about {_fmt_seconds(eta)} left", refresh=False)
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


class _Off:
    def update(self, n: int = 1, work: float | None = None) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(total: int | None, desc: str, mode: ProgressMode | bool | None = None, *,
                 unit: str = "cell", stream: TextIO | None = None,
                 work: float | None = None) -> Any:
    """An object with ``update(n, work=None)`` and ``close()`` showing the progress of
    ``total`` items.

    ``mode``: ``"bar"`` (tqdm), ``"lines"``, ``"off"``; ``None`` or ``True``:
    :func:`progress_mode` of ``stream``; ``False``: ``"off"``. ``work``: the relative work
    of all ``total`` items, when each ``update`` names the work of its items; the time left
    is then estimated from the work done, not the items.
    """
    stream = sys.stderr if stream is None else stream
    if mode is None or mode is True:
        mode = progress_mode(False, stream)
    elif mode is False:
        mode = "off"
    if mode == "bar":
        return _Bar(total, desc, unit, stream, work)
    if mode == "lines":
        return _Lines(total, desc, unit, stream, line_interval(), work)
    return _Off()


# --------------------------------------------------------------------------- inside a fit
class _Reporter:
    """Steps of one estimator's fit on stderr (see the module notes): plain lines, or a
    tqdm bar per kind of step when the caller asked for bars (:func:`progress_style`)."""

    def __init__(self, name: str, level: int, style: ProgressMode = "lines",
                 stream: TextIO | None = None) -> None:
        self.name, self.level, self.style = name, level, style
        self.stream = sys.stderr if stream is None else stream
        self.t0 = self.last = time.perf_counter()
        self.interval = min(line_interval(), 2.0)  # a fit is watched more closely
        self.printed = False
        self.bar: Any = None
        self.bar_what: str | None = None
        self.pending: str | None = None

    def _bar_step(self, done: int, total: int | None, what: str, values: dict) -> None:
        if self.bar is None or what != self.bar_what:
            if self.bar is not None:
                self.bar.close()
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=f"{self.name} {what}s", unit=what.split()[-1],
                            dynamic_ncols=True, leave=False, file=self.stream)
            self.bar_what = what
        if values:
            self.bar.set_postfix({k: (f"{v:.6g}" if isinstance(v, float) else v)
                                  for k, v in values.items()}, refresh=False)
        self.bar.update(max(0, done - self.bar.n))

    def step(self, done: int, total: int | None, what: str, values: dict) -> None:
        if self.style == "bar":
            self._bar_step(done, total, what, values)
            return
        now = time.perf_counter()
        parts = [f"{what} {done}" + (f"/{total}" if total is not None else "")]
        for key, v in values.items():
            parts.append(f"{key}={v:.6g}" if isinstance(v, float) else f"{key}={v}")
        parts.append(_fmt_seconds(now - self.t0))
        line = f"[{self.name}] " + ", ".join(parts)
        final = total is not None and done >= total
        # verbose=1: a line every few seconds, the last step only after earlier lines (a
        # short fit stays silent); verbose>=2: every step
        if self.level >= 2 or now - self.last >= self.interval or (final and self.printed):
            print(line, file=self.stream, flush=True)
            self.last, self.printed, self.pending = now, True, None
        else:
            self.pending = line

    def done(self) -> None:
        if self.bar is not None:
            self.bar.close()
            return
        if self.printed:
            if self.pending is not None:  # where it ended
                print(self.pending, file=self.stream, flush=True)
            print(f"[{self.name}] fit done in {_fmt_seconds(time.perf_counter() - self.t0)}",
                  file=self.stream, flush=True)


_STYLE: ContextVar[ProgressMode] = ContextVar("skmlfs_progress_style", default="lines")


@contextlib.contextmanager
def progress_style(mode: ProgressMode) -> Iterator[None]:
    """Within the block, verbose fits show their steps as ``mode``: ``"bar"`` (tqdm) or
    ``"lines"`` (the default; ``"off"`` is taken as lines: ``verbose`` decides)."""
    token = _STYLE.set("bar" if mode == "bar" else "lines")
    try:
        yield
    finally:
        _STYLE.reset(token)


_CURRENT: ContextVar[_Reporter | None] = ContextVar("skmlfs_fit_progress", default=None)


@contextlib.contextmanager
def fit_progress(estimator: Any) -> Iterator[None]:
    """Open the step reporter of ``estimator``'s fit (its ``verbose``; none when 0).

    Always sets the current reporter, so that an estimator fitted inside another one
    (a tuned or nested selector) with ``verbose=0`` stays silent.
    """
    level = getattr(estimator, "verbose", 0)
    level = int(level) if isinstance(level, (int, bool)) else 0
    rep = _Reporter(type(estimator).__name__, level, _STYLE.get()) if level > 0 else None
    token = _CURRENT.set(rep)
    try:
        yield
        if rep is not None:
            rep.done()
    finally:
        _CURRENT.reset(token)


def report_step(done: int, total: int | None = None, what: str = "step", *,
                upper_bound: bool = False, **values: Any) -> None:
    """Report a step of the fit in progress (printed only when its estimator is verbose)
    and check the time limit (:func:`time_limit`) if one is set.

    ``upper_bound=True``: ``total`` is a cap the loop may stop well before (``max_iter``
    of an iterative solver), so the time limit does not project the loop to it.
    """
    rep = _CURRENT.get()
    if rep is not None:
        rep.step(int(done), None if total is None else int(total), what, values)
    if _LIMIT.get() is not None:
        check_time(done, None if upper_bound else total, what)


# --------------------------------------------------------------------------- time limit
class TimeLimitExceeded(TimeoutError):
    """Work stopped by :func:`time_limit`: past the limit, or projected far beyond it."""


#: A loop whose reported steps project it to more than this many times the limit stops
#: early (not waiting for the limit: its own rate says it cannot finish).
PROJECTION_FACTOR = 3.0
# ... once this fraction of the limit has passed (early steps may include setup).
_PROJECT_AFTER = 0.1

class _Limit:
    """The limit in force: its start, its length, and where each reported loop began."""

    def __init__(self, seconds: float) -> None:
        self.t0, self.seconds = time.monotonic(), seconds
        # (what, total) -> (time of its first step seen, that step, the last step seen)
        self.loops: dict[tuple[str, int], tuple[float, int, int]] = {}


_LIMIT: ContextVar[_Limit | None] = ContextVar("skmlfs_time_limit", default=None)


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, :func:`report_step` (and :func:`check_time`) raise
    :class:`TimeLimitExceeded` once ``seconds`` have passed, or when a loop's reported
    steps project the work beyond :data:`PROJECTION_FACTOR` × ``seconds``. ``None``: no
    limit (an enclosing one still holds)."""
    if seconds is None:
        yield
        return
    token = _LIMIT.set(_Limit(float(seconds)))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def check_time(done: int | None = None, total: int | None = None, what: str = "step") -> None:
    """Raise :class:`TimeLimitExceeded` if the current :func:`time_limit` is exceeded, or
    if the loop reporting step ``done`` of ``total`` projects the work beyond it: the time
    so far plus the loop's rate since its first reported step times the steps left (a loop
    that starts again, as an inner loop does, is timed from its new start)."""
    lim = _LIMIT.get()
    if lim is None:
        return
    now = time.monotonic()
    elapsed, limit = now - lim.t0, lim.seconds
    if elapsed > limit:
        where = f" ({what} {done} of {total})" if done is not None and total else ""
        raise TimeLimitExceeded(
            f"stopped at the time limit of {_fmt_seconds(limit)}{where}.")
    if done is None or not total:
        return
    key = (what, int(total))
    first = lim.loops.get(key)
    if first is None or done <= first[2]:  # a new loop, or the same loop started again
        lim.loops[key] = (now, int(done), int(done))
        return
    t1, d1, _ = first
    lim.loops[key] = (t1, d1, int(done))
    if elapsed >= _PROJECT_AFTER * limit:
        projected = elapsed + (now - t1) / (done - d1) * (total - done)
        if projected > PROJECTION_FACTOR * limit:
            raise TimeLimitExceeded(
                f"stopped after {_fmt_seconds(elapsed)}: {done} of {total} {what}s done, "
                f"projected {_fmt_seconds(projected)} in all, over {PROJECTION_FACTOR:g} × "
                f"the time limit of {_fmt_seconds(limit)}.")
