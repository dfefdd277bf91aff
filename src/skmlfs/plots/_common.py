"""Figure creation and saving shared by the plots (Agg canvas, no pyplot state)."""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["new_figure", "save"]


def new_figure(width: float, height: float, dpi: float) -> Figure:
    """A Figure on its own Agg canvas.

    Building the Figure directly (not through ``pyplot``) keeps figures out of
    pyplot's global registry, so batch scripts do not leak memory and the
    user's interactive backend is never switched.
    """
    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str | os.PathLike[str] | None) -> None:
    """Write ``fig`` as PNG to ``path`` (creating parent directories) if a path is given."""
    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() not in ("", ".png"):
        raise ValueError(f"figures are written as PNG; got the path {str(p)!r}.")
    if p.suffix == "":
        p = p.with_suffix(".png")
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, format="png", dpi=fig.dpi)
