"""Critical difference diagram (Demšar 2006, Figs. 1–2; SCLS Fig. 1)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from matplotlib.figure import Figure

from ..stats import cd_groups, control_index, ranks_and_names
from ._common import new_figure, save

__all__ = ["cd_diagram"]

# Layout constants in inches: the diagram is laid out in physical units so that
# text never overlaps whatever the number of methods or the figure width.
_PAD = 0.08
_HOOK = 0.15  # horizontal stub from the axis end to a method's name
_ROW = 0.24  # vertical distance between method names
_BAR_STEP = 0.1  # vertical distance between stacked group bars
_MIN_SCALE = 1.5  # minimum length of the rank axis
_MIN_UNIT = 0.032  # minimum length of one rank unit per point of font size (tick labels fit)


def _parse_ranks(
    avg_ranks: Mapping[str, float] | tuple[Sequence[str], Sequence[float]],
) -> tuple[np.ndarray, tuple[str, ...]]:
    if isinstance(avg_ranks, Mapping):
        return ranks_and_names(avg_ranks, None)
    if isinstance(avg_ranks, tuple) and len(avg_ranks) == 2:
        names, ranks = avg_ranks
        return ranks_and_names(ranks, names)
    raise TypeError(
        "avg_ranks must be a mapping name -> average rank or a tuple (names, ranks); "
        f"got {type(avg_ranks).__name__}."
    )


def _text_width(fig: Figure, text: str, **kw: Any) -> float:
    """Rendered width of ``text`` in inches."""
    t = fig.text(0, 0, text, **kw)
    w = t.get_window_extent(renderer=fig.canvas.get_renderer()).width / fig.dpi
    t.remove()
    return w


def cd_diagram(
    avg_ranks: Mapping[str, float] | tuple[Sequence[str], Sequence[float]],
    cd: float,
    path: str | os.PathLike[str] | None = None,
    title: str | None = None,
    cliques: Literal["auto"] | Sequence[Sequence[str]] | None = "auto",
    control: str | None = None,
    *,
    width: float = 6.0,
    dpi: float = 150.0,
    fontsize: float = 10.0,
    show_ranks: bool = True,
) -> Figure:
    """Demšar-style critical difference diagram.

    The rank axis is on top with the best rank on the **right** (as in SCLS
    Fig. 1). Each method hangs from its average rank; the better half is named on
    the right, the worse half on the left. Thick bars join methods that are not
    significantly different, and the length of one CD is drawn above the axis
    (Demšar 2006, Figs. 1–2).

    Parameters
    ----------
    avg_ranks : mapping name -> average rank, or tuple (names, ranks)
        Average ranks, 1 = best (:func:`skmlfs.stats.average_ranks`).
    cd : float
        Critical difference (:func:`skmlfs.stats.critical_difference`).
    path : str or path-like, optional
        Write the figure as PNG there.
    title : str, optional
        Title above the diagram.
    cliques : "auto", sequence of sequences of names, or None, default="auto"
        Groups to join with bars. ``"auto"`` computes them with
        :func:`skmlfs.stats.cd_groups`: maximal groups within CD (Nemenyi), or,
        with ``control``, the control and the methods within CD of it
        (Bonferroni–Dunn). ``None`` draws no bars.
    control : str, optional
        Control method of a Bonferroni–Dunn comparison: its name is set in bold
        and the CD interval above the axis starts at its rank.
    width : float, default=6.0
        Figure width in inches. It grows only if the names leave less than
        ``max(1.5, 0.032 · fontsize · (k − 1))`` inches for the rank axis (room
        for the tick labels).
    dpi : float, default=150
        Resolution of the figure and of the PNG.
    fontsize : float, default=10
    show_ranks : bool, default=True
        Append the average rank to each name, e.g. ``"SCLS (1.04)"``.

    Returns
    -------
    matplotlib.figure.Figure
        Its PNG has ``round(width * dpi)`` × ``round(height * dpi)`` pixels, the
        height following from the number of methods and bars.

    Raises
    ------
    ValueError
        For fewer than 2 methods, NaN ranks, a non-positive ``cd``, unknown names
        in ``control`` or ``cliques``.
    """
    r, names = _parse_ranks(avg_ranks)
    k = r.shape[0]
    cd = float(cd)
    if not np.isfinite(cd) or cd <= 0:
        raise ValueError(f"cd must be a positive number; got {cd!r}.")
    c_idx = control_index(control, names) if control is not None else None
    if isinstance(cliques, str):
        if cliques != "auto":
            raise ValueError(f"cliques must be 'auto', a list of groups or None; got {cliques!r}.")
        groups = cd_groups(r, cd, names=names, control=c_idx)
    elif cliques is None:
        groups = []
    else:
        groups = [tuple(str(m) for m in g) for g in cliques]
        for g in groups:
            unknown = [m for m in g if m not in names]
            if unknown:
                raise ValueError(f"cliques name unknown methods {unknown}; methods: {list(names)}.")
    pos = {n: i for i, n in enumerate(names)}

    lo, hi = 1.0, float(max(k, math.ceil(r.max())))
    labels = [f"{n} ({v:.2f})" if show_ranks else n for n, v in zip(names, r, strict=True)]
    order = np.argsort(r, kind="stable")
    n_right = math.ceil(k / 2)
    right = list(order[:n_right])  # best first: the best hangs at the top row
    left = list(order[n_right:][::-1])  # worst first

    fig = new_figure(width, 1.0, dpi)

    def weight(i: int) -> str:
        return "bold" if i == c_idx else "normal"

    def side_width(idx: list[int]) -> float:
        return max(
            (_text_width(fig, labels[i], fontsize=fontsize, fontweight=weight(i)) for i in idx),
            default=0.0,
        )

    m_left = side_width(left) + _HOOK + 2 * _PAD
    m_right = side_width(right) + _HOOK + 2 * _PAD
    scale = max(width - m_left - m_right, _MIN_SCALE, _MIN_UNIT * fontsize * (hi - lo))
    width = m_left + scale + m_right

    def x(rank: float) -> float:
        return m_left + (hi - rank) / (hi - lo) * scale

    line_h = fontsize / 72.0 * 1.25
    y = _PAD
    y_title = None
    if title:
        y_title = y
        y += 1.5 * line_h
    y_cd_text = y
    y_cd = y + line_h + 0.04
    y_axis = y_cd + 0.12 + line_h + 0.1
    y_bars0 = y_axis + 0.14
    y_rows0 = y_bars0 + len(groups) * _BAR_STEP + 0.1
    n_rows = max(len(left), len(right))
    height = y_rows0 + (n_rows - 1) * _ROW + line_h / 2 + _PAD

    fig.set_size_inches(width, height)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # y in inches from the top
    ax.set_axis_off()
    line = {"color": "black", "linewidth": 1.0, "solid_capstyle": "butt"}

    if y_title is not None:
        ax.text(width / 2, y_title, title, ha="center", va="top", fontsize=fontsize * 1.1)

    # The rank axis with integer and half ticks pointing up, labels above.
    ax.plot([x(lo), x(hi)], [y_axis, y_axis], **line)
    for t in np.arange(lo, hi + 0.25, 0.5):
        tick = 0.1 if float(t).is_integer() else 0.05
        ax.plot([x(t), x(t)], [y_axis, y_axis - tick], **line)
        if float(t).is_integer():
            ax.text(x(t), y_axis - 0.12, f"{int(t)}", ha="center", va="bottom", fontsize=fontsize)

    # One CD, drawn from the control's rank (Bonferroni–Dunn) or from the worst end.
    start = float(r[c_idx]) if c_idx is not None else hi
    end = start + cd if c_idx is not None else start - cd
    a0, a1 = sorted((min(max(start, lo), hi), min(max(end, lo), hi)))
    ax.plot([x(a0), x(a1)], [y_cd, y_cd], color="black", linewidth=1.5, solid_capstyle="butt")
    for e in (a0, a1):
        ax.plot([x(e), x(e)], [y_cd - 0.04, y_cd + 0.04], **line)
    ax.text((x(a0) + x(a1)) / 2, y_cd_text, f"CD = {cd:.3f}", ha="center", va="top",
            fontsize=fontsize)  # fmt: skip

    # Methods: vertical drop from the axis, then a stub to the name.
    for side, idx in (("right", right), ("left", left)):
        for row, i in enumerate(idx):
            yr = y_rows0 + row * _ROW
            xe = x(lo) + _HOOK if side == "right" else x(hi) - _HOOK
            ax.plot([x(r[i]), x(r[i]), xe], [y_axis, yr, yr], **line)
            ax.text(
                xe + (_PAD if side == "right" else -_PAD),
                yr,
                labels[i],
                ha="left" if side == "right" else "right",
                va="center",
                fontsize=fontsize,
                fontweight=weight(i),
            )

    # Group bars, slightly longer than their span so that they read as bars
    # even for methods with (almost) equal ranks.
    for level, g in enumerate(groups):
        gr = [float(r[pos[m]]) for m in g]
        yb = y_bars0 + level * _BAR_STEP
        ax.plot([x(max(gr)) - 0.05, x(min(gr)) + 0.05], [yb, yb], color="black", linewidth=3.5,
                solid_capstyle="butt")  # fmt: skip

    save(fig, path)
    return fig
