"""Warnings of a run, counted by kind and summarised once at its end.

Every task records the warnings its cells raised (``TaskResult.warning_counts``: message
-> how many times). A long grid repeats the same warning with other numbers in it (``a
budget of 40 features is larger than the 6 available`` for every budget and split), so
the run groups them by *kind*: the category and the message with every number replaced
by ``#``. The summary line of a kind gives how many times it was raised, in how many tasks,
and its first message as an example; the same summary goes into the run log
(``runs.warnings``, JSON).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["WarningTally", "warning_kind"]

# integers, decimals and floats in scientific notation (1e+300, 0.25, -3, 2.5e-07)
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w])")


def warning_kind(message: str) -> str:
    """The kind of a warning message: its numbers replaced by ``#``."""
    return _NUMBER.sub("#", message)


@dataclass
class _Kind:
    count: int = 0
    tasks: int = 0
    example: str = ""
    messages: set[str] = field(default_factory=set)


class WarningTally:
    """Counts warnings of many tasks by kind (see the module notes)."""

    def __init__(self) -> None:
        self._kinds: dict[str, _Kind] = {}

    def add(self, counts: Mapping[str, int] | Iterable[str]) -> None:
        """Add one task's warnings: ``{message: times}`` (or distinct messages, once each)."""
        if not isinstance(counts, Mapping):
            counts = dict.fromkeys(counts, 1)
        seen: set[str] = set()
        for msg, n in counts.items():
            kind = warning_kind(msg)
            k = self._kinds.setdefault(kind, _Kind(example=msg))
            k.count += int(n)
            k.messages.add(msg)
            if kind not in seen:
                k.tasks += 1
                seen.add(kind)

    def __len__(self) -> int:
        return len(self._kinds)

    @property
    def total(self) -> int:
        return sum(k.count for k in self._kinds.values())

    def messages(self) -> list[str]:
        """Every distinct message, sorted."""
        return sorted(m for k in self._kinds.values() for m in k.messages)

    def kinds(self) -> list[dict]:
        """One record per kind, most frequent first: ``kind, count, tasks, example,
        variants`` (distinct messages of the kind)."""
        out = [
            {"kind": kind, "count": k.count, "tasks": k.tasks, "example": k.example,
             "variants": len(k.messages)}
            for kind, k in self._kinds.items()
        ]
        return sorted(out, key=lambda r: (-r["count"], r["kind"]))

    def lines(self) -> list[str]:
        """The summary: one line per kind (``message`` alone when it was raised once)."""
        out = []
        for r in self.kinds():
            text = r["example"]
            if r["count"] > 1:
                where = f"in {r['tasks']} tasks" if r["tasks"] > 1 else "in 1 task"
                n = r["variants"] - 1
                more = f"; {n} other message{'s' if n > 1 else ''} of this kind" if n else ""
                text += f" [{r['count']} times {where}{more}]"
            out.append(text)
        return out

    def to_json(self) -> str | None:
        """The kinds as JSON for the run log, or None without warnings."""
        return json.dumps(self.kinds(), sort_keys=True) if self._kinds else None
