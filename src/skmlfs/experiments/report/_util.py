"""Small helpers shared by the report modules."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["_close", "_order"]


def _order(values: Sequence[str], preferred: Sequence[str]) -> list[str]:
    pref = [v for v in preferred if v in set(values)]
    return pref + sorted(v for v in set(values) if v not in set(pref))


def _close(fig) -> None:
    try:
        import matplotlib.pyplot as plt

        plt.close(fig)
    except Exception:  # noqa: BLE001 — Agg figures without pyplot need no closing
        pass
