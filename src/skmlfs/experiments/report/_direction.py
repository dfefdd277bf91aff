"""The one rule for a metric's direction (is a larger value better?)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from ...metrics import get_metric

__all__ = ["greater_is_better"]


def greater_is_better(metric: str, meta: Mapping[str, str] | None = None) -> bool:
    """Whether a larger value of the column ``metric`` is better.

    In this order: the description the run stored for a metric the experiment named
    (``metric:<name>`` in the store's meta: a named metric such as ``{ name = "acc",
    metric = "multilabel_accuracy" }`` takes its registered metric's direction), the
    metric registry :data:`skmlfs.metrics.METRICS` (with its aliases), and run times and
    memory (``*_time``, ``peak_rss_mb``: smaller is better).

    Raises
    ------
    ValueError
        If the column is none of these.
    """
    info = (meta or {}).get(f"metric:{metric}")
    if info is not None:
        return bool(json.loads(info)["greater_is_better"])

    try:
        return bool(get_metric(metric).greater_is_better)
    except KeyError:
        pass
    if metric.endswith("_time") or metric == "peak_rss_mb":
        return False
    raise ValueError(
        f"cannot tell whether higher {metric!r} is better (not a registered metric and not "
        "described in the store)."
    )
