"""Tests of skmlfs.plots: PNG output, sizes, orientation and the CD-diagram groups."""

from __future__ import annotations

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from skmlfs.plots import cd_diagram, metric_curves, runtime_bars
from skmlfs.stats import cd_groups, critical_difference

RANKS = {"Proposed": 1.04, "AMI": 4.00, "MDMR": 2.96, "MLCFS": 2.52, "PPT+RF": 4.48}


def png_shape(path):
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    return mpimg.imread(path).shape


def expected_pixels(fig):
    w, h = fig.get_size_inches() * fig.dpi
    return int(round(h)), int(round(w))


def texts(fig):
    return {t.get_text(): t for ax in fig.axes for t in ax.texts}


def bars(fig):
    """The thick group bars of a CD diagram."""
    return [ln for ln in fig.axes[0].lines if ln.get_linewidth() >= 3]


def test_cd_diagram_writes_png_of_figure_size(tmp_path):
    path = tmp_path / "cd.png"
    fig = cd_diagram(RANKS, cd=1.117, path=path, title="Ranking loss", width=6.0, dpi=100)
    assert path.stat().st_size > 1000
    assert fig.get_size_inches()[0] == pytest.approx(6.0)  # short names: width kept
    assert png_shape(path)[:2] == expected_pixels(fig)
    assert png_shape(path)[1] == 600


def test_cd_diagram_best_on_the_right_and_labels():
    fig = cd_diagram(RANKS, cd=1.117, show_ranks=True)
    t = texts(fig)
    assert "Proposed (1.04)" in t and "PPT+RF (4.48)" in t and "CD = 1.117" in t
    # Rank axis: 1 on the right of 5; the best method is named on the right side.
    assert t["1"].get_position()[0] > t["5"].get_position()[0]
    assert t["Proposed (1.04)"].get_ha() == "left"
    assert t["PPT+RF (4.48)"].get_ha() == "right"
    assert t["Proposed (1.04)"].get_position()[0] > t["PPT+RF (4.48)"].get_position()[0]
    # Names on the same side never share a row.
    ys = [tx.get_position()[1] for tx in t.values() if tx.get_ha() == "left"]
    assert len(set(ys)) == len(ys)


def test_cd_diagram_draws_one_bar_per_group():
    cd = critical_difference(5, 25)  # Nemenyi, 1.220
    fig = cd_diagram(RANKS, cd=cd)
    groups = cd_groups(RANKS, cd)
    assert groups == [("MLCFS", "MDMR"), ("MDMR", "AMI"), ("AMI", "PPT+RF")]
    assert len(bars(fig)) == len(groups)
    assert bars(cd_diagram(RANKS, cd=cd, cliques=None)) == []
    assert len(bars(cd_diagram(RANKS, cd=cd, cliques=[["AMI", "PPT+RF"]]))) == 1


def test_cd_diagram_control_mode():
    # SCLS Fig. 1, Hamming loss: MLCFS (2.20) is within CD = 1.117 of the proposed method (1.12).
    ranks = {"Proposed": 1.12, "AMI": 4.52, "MDMR": 3.40, "MLCFS": 2.20, "PPT+RF": 3.76}
    fig = cd_diagram(ranks, cd=1.117, control="Proposed")
    assert len(bars(fig)) == 1
    (bar,) = bars(fig)
    xs = sorted(bar.get_xdata())
    t = texts(fig)
    assert t["Proposed (1.12)"].get_fontweight() == "bold"
    # The bar spans from MLCFS to the proposed method (plus a small overhang).
    assert xs[1] - xs[0] == pytest.approx((2.20 - 1.12) / (5 - 1) * _axis_length(fig) + 0.1)


def _axis_length(fig):
    # The axis is the first line: a horizontal segment between ranks k and 1.
    ln = fig.axes[0].lines[0]
    return abs(np.diff(ln.get_xdata())[0])


def test_cd_diagram_accepts_names_ranks_tuple_and_grows_for_long_names():
    names = [f"a-rather-long-method-name-{i}" for i in range(10)]
    fig = cd_diagram((names, np.linspace(1, 10, 10)), cd=2.0, width=4.0)
    assert fig.get_size_inches()[0] > 4.0
    assert _axis_length(fig) >= 0.032 * 10 * 9 - 1e-9


def test_cd_diagram_errors(tmp_path):
    with pytest.raises(ValueError, match="positive"):
        cd_diagram(RANKS, cd=0)
    with pytest.raises(ValueError, match="not one of"):
        cd_diagram(RANKS, cd=1.0, control="SCLS")
    with pytest.raises(ValueError, match="unknown"):
        cd_diagram(RANKS, cd=1.0, cliques=[["AMI", "SCLS"]])
    with pytest.raises(TypeError, match="mapping"):
        cd_diagram([1.0, 2.0], cd=1.0)
    with pytest.raises(ValueError, match="PNG"):
        cd_diagram(RANKS, cd=1.0, path=tmp_path / "cd.pdf")


def test_cd_diagram_path_without_suffix(tmp_path):
    cd_diagram(RANKS, cd=1.0, path=tmp_path / "sub" / "cd")
    assert (tmp_path / "sub" / "cd.png").stat().st_size > 0


def test_metric_curves_from_mapping_and_frame(tmp_path):
    x = np.arange(5, 55, 5)
    data = {"SCLS": (x, 0.2 - 0.001 * x, np.full(10, 0.01)), "AMI": (x, 0.22 - 0.0008 * x)}
    path = tmp_path / "curves.png"
    fig = metric_curves(data, "number of selected features", "Hamming loss", path,
                        figsize=(5, 3), dpi=100)  # fmt: skip
    assert png_shape(path)[:2] == (300, 500)
    ax = fig.axes[0]
    assert [ln.get_label() for ln in ax.lines] == ["SCLS", "AMI"]
    assert len(ax.collections) == 1  # one std band: AMI has no std
    np.testing.assert_allclose(ax.lines[0].get_ydata(), 0.2 - 0.001 * x)
    assert ax.get_xlabel() == "number of selected features"

    df = pd.DataFrame({"method": np.repeat(["SCLS", "AMI"], 10), "x": np.tile(x, 2)[::-1],
                       "mean": np.arange(20.0), "std": 0.5})  # fmt: skip
    fig = metric_curves(df, "x", "y", std_band=False)
    ax = fig.axes[0]
    assert len(ax.lines) == 2 and len(ax.collections) == 0
    assert np.all(np.diff(ax.lines[0].get_xdata()) > 0)  # sorted by x


def test_metric_curves_errors():
    with pytest.raises(ValueError, match="lacks the column"):
        metric_curves(pd.DataFrame({"m": [1]}), "x", "y")
    with pytest.raises(ValueError, match="equal length"):
        metric_curves({"A": ([1, 2, 3], [1, 2])}, "x", "y")
    with pytest.raises(ValueError, match="NaN"):
        metric_curves({"A": ([1, 2], [1, np.nan])}, "x", "y")
    with pytest.raises(TypeError):
        metric_curves([1, 2, 3], "x", "y")


def test_runtime_bars(tmp_path):
    path = tmp_path / "t.png"
    fig = runtime_bars({"SCLS": 0.5, "AMI": 3.0, "MDMR": 30.0}, path, dpi=100)
    assert png_shape(path)[:2] == (400, 600)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert [p.get_height() for p in ax.patches] == [0.5, 3.0, 30.0]

    nested = {"SCLS": {"emotions": 0.5, "yeast": 2.0}, "AMI": {"emotions": 3.0, "yeast": 40.0}}
    fig = runtime_bars(nested, log=False)
    ax = fig.axes[0]
    assert ax.get_yscale() == "linear" and len(ax.patches) == 4
    assert [t.get_text() for t in ax.get_xticklabels()] == ["emotions", "yeast"]

    frame = pd.DataFrame(nested)  # datasets as rows, methods as columns
    ax = runtime_bars(frame).axes[0]
    assert sorted(p.get_height() for p in ax.patches) == [0.5, 2.0, 3.0, 40.0]


def test_runtime_bars_errors():
    with pytest.raises(ValueError, match="positive"):
        runtime_bars({"A": 0.0, "B": 1.0})
    with pytest.raises(ValueError, match="expected"):
        runtime_bars({"A": {"x": 1.0}, "B": {"y": 1.0}})
    with pytest.raises(ValueError, match="non-empty"):
        runtime_bars({})
    with pytest.raises(ValueError, match="non-negative"):
        runtime_bars({"A": -1.0}, log=False)


def test_many_curves_keep_the_legend_off_the_axes_and_colours_distinct():
    from skmlfs.plots import metric_curves, runtime_bars

    rng = np.random.default_rng(0)
    data = {f"m{i}": (np.array([1, 2, 3]), rng.random(3), rng.random(3) / 10) for i in range(21)}
    fig = metric_curves(data, "features", "loss")
    fig.canvas.draw()
    ax = fig.axes[0]
    r = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(r).x0 >= ax.get_window_extent(r).x1
    colours = {tuple(ln.get_color()) + (ln.get_linestyle(),) for ln in ax.get_lines()}
    assert len(colours) == 21
    assert not ax.collections  # no std bands among 21 lines
    fig = runtime_bars({m: {"a": 1.0, "b": 2.0} for m in data})
    fig.canvas.draw()
    ax, r = fig.axes[0], fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(r).x0 >= ax.get_window_extent(r).x1
