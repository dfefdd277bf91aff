"""The section contract: what every part of a report is (generic or a paper's own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from .._registry import SECTIONS
from .._spec import SpecError
from ._format import NumberFormat

__all__ = ["ReportContext", "ReportSection", "Rendered"]


@dataclass
class ReportContext:
    """Everything a section renders from.

    Attributes
    ----------
    frame : DataFrame
        The compared cells (``ResultStore.to_frame``), after every section's
        :meth:`ReportSection.prepare`.
    meta : mapping
        The store's meta table (experiment order, metric descriptions, data set
        statistics, ...).
    runs, failures : DataFrame
        The store's run log and task failures.
    out : Path
        The report folder (``tables/`` and ``figures/`` inside it).
    fmt : NumberFormat
        The one number format of the report.
    figures : bool
        Whether sections draw their PNG figures.
    alpha : float
        Significance level of the tests.
    control : str or None
        The method compared with every other one.
    missing_rank : {"drop", "last"}
        What a method without a value on a data set gets in the ranks
        (:func:`~skmlfs.experiments.report.metric_tables`).
    datasets, methods : list of str
        Row and column order (as the experiment declares them).
    experiments : list of str
        The experiment names the report covers.
    state : dict
        Cells the sections took out of the compared frame in :meth:`~ReportSection.prepare`
        (``"full"``: the frame before any but the seed runs were taken out).
    tables : list
        The metric tables (:class:`~skmlfs.experiments.report.MetricTable`), once made.
    extra : dict
        What a kind of report adds (the multi-part data, the budget ``k``, ...).
    """

    frame: Any
    meta: Mapping[str, str]
    out: Path
    fmt: NumberFormat = field(default_factory=NumberFormat)
    runs: Any = None
    failures: Any = None
    figures: bool = True
    alpha: float = 0.05
    control: str | None = None
    missing_rank: str = "drop"
    datasets: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    experiments: list[str] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    tables: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def decimals(self) -> int:
        return self.fmt.decimals


@dataclass
class Rendered:
    """What a section produced: Markdown blocks (joined by blank lines into README.md) and
    the files it wrote (tables, figures)."""

    markdown: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    def __iadd__(self, other: Rendered) -> Rendered:
        self.markdown += other.markdown
        self.files += other.files
        return self


class ReportSection:
    """One part of a report, constructed from its options and rendered from a context.

    A subclass declares its options (``OPTIONS``: name → one-line description) and the
    required ones (``REQUIRED``); unknown and missing options are errors naming the
    experiment file and the key at construction, before anything runs. :meth:`check`
    validates the values. An experiment file names a section by a short name of the
    registry (``kind = "stability"``) or by ``"module:Class"`` (a paper's own section,
    e.g. ``kind = "skmlfs.experiments.report.papers:ChosenParameter"``), with its options
    beside ``kind``.

    Hooks, all optional: :meth:`prepare` (take cells out of the compared tables),
    :meth:`order_methods` (rename columns before the order is fixed), :meth:`after_table`
    (Markdown printed under each metric table) and :meth:`render`.

    Parameters
    ----------
    options : mapping, optional
        The section's table of the experiment file without ``kind``.
    source : str, default="<report>"
        The experiment file, for error messages.
    key : str, default="report.section"
        Where the section sits in the file (``report.section[2]``), for error messages.
    metrics : collection of str, optional
        The experiment's metric names (checked when given).
    parts : sequence of str, optional
        The part names of a multi-part experiment (checked when given).
    """

    #: option name -> one-line description
    OPTIONS: ClassVar[Mapping[str, str]] = {}
    #: options that must be given
    REQUIRED: ClassVar[Sequence[str]] = ()
    #: order of :meth:`prepare` among the sections (smaller first)
    STAGE: ClassVar[int] = 1

    def __init__(self, options: Mapping[str, Any] | None = None, *, source: str = "<report>",
                 key: str = "report.section", metrics: Any = None,
                 parts: Sequence[str] | None = None):
        self.source = source
        self.parts = list(parts) if parts is not None else None
        self.key = key
        opts = dict(options or {})
        opts.pop("kind", None)
        for k in opts:
            if k not in self.OPTIONS:
                raise self.fail(k, "unknown option of this section; allowed: "
                                + (", ".join(sorted(self.OPTIONS)) or "none") + ".")
        for k in self.REQUIRED:
            if k not in opts:
                raise self.fail(k, "missing (needed by this section).")
        self.options = opts
        self.check(set(metrics) if metrics is not None else None)

    def fail(self, option: str | None, message: str) -> Exception:
        """A :class:`~skmlfs.experiments.SpecError` naming the file and the key."""
        where = f"{self.key}.{option}" if option else self.key
        return SpecError(f"{self.source}: {where}: {message}")

    def check(self, metrics: set[str] | None) -> None:
        """Validate the option values (``metrics``: the experiment's, when known)."""

    def prepare(self, frame: Any, state: dict[str, Any]) -> Any:
        """The compared cells without those this section shows apart (kept in ``state``)."""
        return frame

    def order_methods(self, methods: list[str]) -> list[str]:
        """The column order once :meth:`prepare` renamed methods."""
        return methods

    def after_table(self, table: Any, ctx: ReportContext) -> str | None:
        """Markdown printed under the table of one metric (``None``: nothing, not even
        the blank line of an empty block)."""
        return None

    def render(self, ctx: ReportContext) -> Rendered:
        """The section's Markdown and files."""
        return Rendered()

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": ..., **options}``: what the store keeps to report again later."""
        return {"kind": section_kind(type(self)), **self.options}


def section_kind(cls: type) -> str:
    """The short name of a registered section class, else ``"module:Class"``."""
    path = f"{cls.__module__}:{cls.__qualname__}"
    for name, target in SECTIONS.items():
        if target == path:
            return name
    return path
