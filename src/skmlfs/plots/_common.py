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

    Parameters
    ----------
    width, height : float
        Size in inches.
    dpi : float
        Dots per inch, kept by :func:`save`.

    Returns
    -------
    matplotlib.figure.Figure
        An empty figure; add axes with ``fig.add_subplot``.
    """
    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str | os.PathLike[str] | None) -> None:
    """Write ``fig`` as PNG to ``path`` (creating parent directories) if a path is given.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure, written at its own dpi.
    path : str, os.PathLike or None
        Where to write; without a suffix ``.png`` is added. ``None`` writes nothing.

    Raises
    ------
    ValueError
        If ``path`` has a suffix other than ``.png``.
    """
    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() not in ("", ".png"):
        raise ValueError(f"figures are written as PNG; got the path {str(p)!r}.")
    if p.suffix == "":
        p = p.with_suffix(".png")
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, format="png", dpi=fig.dpi)
