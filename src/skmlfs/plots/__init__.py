"""Figures written as PNG with matplotlib's Agg canvas (no pyplot state).

:func:`cd_diagram`
    Demšar-style critical difference diagram (best rank on the right, as in SCLS Fig. 1).
:func:`metric_curves`
    A metric against the number or share of selected features, one line per method.
:func:`runtime_bars`
    Run times per method (optionally per dataset), log scale by default.
:func:`new_figure`, :func:`save`
    The figure every plot draws on and the PNG writer they share, public so that a
    report section of one's own (``"module:Class"`` in an experiment file) draws its
    figures the same way.
"""

from ._cd import cd_diagram
from ._common import new_figure, save
from ._curves import metric_curves, runtime_bars

__all__ = ["cd_diagram", "metric_curves", "new_figure", "runtime_bars", "save"]
