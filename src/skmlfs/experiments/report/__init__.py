"""Reports of a results store: one mechanism for every experiment.

A report is a list of sections behind one contract (:class:`ReportSection`): each is
constructed from its options (checked at construction, errors naming the experiment file
and key) and renders from one :class:`ReportContext` (the store's cells, run log and
meta, the output folder, the number format) to Markdown blocks and table/figure files.
The generic sections have short names (:data:`skmlfs.experiments._registry.SECTIONS`); a
paper's own sections (:mod:`skmlfs.experiments.report.papers`) are named by
``"module:Class"`` in the experiment file, as methods are. One number format
(:func:`format_number`) and one rule for a metric's direction
(:func:`greater_is_better`) serve every section; :func:`write_report` writes any store,
single-grid or multi-part.
"""

from ._direction import greater_is_better
from ._format import MISSING, NumberFormat, format_number, format_seconds, format_wall
from ._grid import MetricTable, metric_tables, wilcoxon_table, win_tie_loss_table
from ._multipart import write_parts_report
from ._section import Rendered, ReportContext, ReportSection
from ._stored import build_sections
from ._writer import write_report

__all__ = [
    "MISSING",
    "MetricTable",
    "NumberFormat",
    "Rendered",
    "ReportContext",
    "ReportSection",
    "build_sections",
    "format_number",
    "format_seconds",
    "format_wall",
    "greater_is_better",
    "metric_tables",
    "wilcoxon_table",
    "win_tie_loss_table",
    "write_parts_report",
    "write_report",
]
