"""Figures written as PNG with matplotlib's Agg canvas (no pyplot state).

:func:`cd_diagram`
    Demšar-style critical difference diagram (best rank on the right, as in SCLS Fig. 1).
:func:`metric_curves`
    A metric against the number or share of selected features, one line per method.
:func:`runtime_bars`
    Run times per method (optionally per dataset), log scale by default.
"""

from ._cd import cd_diagram
from ._curves import metric_curves, runtime_bars

__all__ = ["cd_diagram", "metric_curves", "runtime_bars"]
