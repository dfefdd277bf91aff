"""The one number format of every report: scores, seconds and wall times as printed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["MISSING", "NumberFormat", "format_number", "format_seconds", "format_wall"]

#: what a report prints for a value that does not exist (no cell, NaN, infinite)
MISSING = "–"


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def format_number(x: Any, decimals: int = 3, *, leading_zero: bool = True) -> str:
    """A score as every report prints it: ``decimals`` fixed decimals, :data:`MISSING`
    when there is no finite value.

    Parameters
    ----------
    x : float or None
    decimals : int, default=3
    leading_zero : bool, default=True
        ``False`` prints ``.123`` for ``0.123`` (the style of papers whose scores all lie
        in [0, 1], e.g. the OCC paper's tables).

    Returns
    -------
    str
    """
    if not _finite(x):
        return MISSING
    s = f"{float(x):.{decimals}f}"
    return s if leading_zero else s.replace("0.", ".", 1)


def format_seconds(x: Any) -> str:
    """A run time in seconds: three significant digits (``0.0123``, ``12.3``, ``1.23e+03``)."""
    return f"{float(x):.3g}" if _finite(x) else MISSING


def format_wall(s: float) -> str:
    """A wall time: seconds below 2 minutes, minutes below 2 hours, else hours."""
    if s < 120:
        return f"{s:.3g} s"
    return f"{s / 60:.1f} min" if s < 7200 else f"{s / 3600:.1f} h"


@dataclass(frozen=True)
class NumberFormat:
    """How a report prints its scores: the ``decimals`` of ``[report]`` and the
    ``leading_zero`` style; :meth:`__call__` is :func:`format_number` with them."""

    decimals: int = 3
    leading_zero: bool = True

    def __call__(self, x: Any, decimals: int | None = None) -> str:
        return format_number(x, self.decimals if decimals is None else decimals,
                             leading_zero=self.leading_zero)
