"""``kind = "grid"``: the full single-grid report of one part inside a multi-part report.

A benchmark with two protocols (two parts) wants, for each, what a one-grid experiment's
report prints: the metric tables with average ranks, Friedman tests and CD diagrams, the
budget curves, the stability, time and memory tables. This section renders exactly that
report (:func:`~skmlfs.experiments.report._single.render_report`, the same code, hence the
same numbers) from the cells of ``part``, under the section's ``title``, with every heading
one level down, and its tables and figures in ``folder`` of the report (links adjusted).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from .._spec import build_sections
from ._section import Rendered, ReportContext, ReportSection
from ._sections import Runs
from ._single import render_report

__all__ = ["PartGrid"]

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,5}) ")
_LINK = re.compile(r"\]\((?![A-Za-z][A-Za-z0-9+.-]*:|/|#)")
_CODE_PATH = re.compile(r"`(tables|figures)/")


def _shift(block: str, folder: str | None) -> str:
    """``block`` with its headings one level down and, with ``folder``, its relative links
    and `tables/...` mentions prefixed by it (code fences left alone)."""
    out, fenced = [], False
    for line in block.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            line = _HEADING.sub(r"#\1 ", line)
            if folder:
                line = _LINK.sub(f"]({folder}/", line)
                line = _CODE_PATH.sub(rf"`{folder}/\1/", line)
        out.append(line)
    return "\n".join(out)


class PartGrid(ReportSection):
    """The single-grid report of one part (tables with ranks, tests, CD diagrams, curves,
    the declared ``sections``, time and memory), its headings one level down."""

    OPTIONS = {
        "part": "the part whose cells are reported",
        "title": "the heading (default: the part's name)",
        "text": "a paragraph under the heading",
        "folder": "subfolder of the report for the part's tables/ and figures/ "
                  "(default: the report folder itself)",
        "sections": "the part's own report sections, as a one-grid file's "
                    "[[report.section]] tables (e.g. stability, include)",
        "summary": "a summary table of average ranks, stability and time first (true)",
    }
    REQUIRED = ("part",)

    def check(self, metrics: set[str] | None) -> None:
        s = self.options
        if not isinstance(s["part"], str):
            raise self.fail("part", "a part name.")
        if self.parts is not None and s["part"] not in self.parts:
            raise self.fail("part", f"unknown part {s['part']!r}; parts: "
                            f"{', '.join(self.parts)}.")
        folder = s.get("folder")
        if folder is not None and (
                not isinstance(folder, str) or not folder
                or PurePosixPath(folder).is_absolute() or ".." in PurePosixPath(folder).parts):
            raise self.fail("folder", "a relative folder name inside the report folder.")
        if not isinstance(s.get("summary", True), bool):
            raise self.fail("summary", "true or false.")
        self._sections({})  # unknown kinds and options: errors now, not at report time

    def _sections(self, ctx_extra: Mapping[str, Any]) -> list[Any]:
        tables = self.options.get("sections", [])
        if isinstance(tables, Mapping):
            tables = [tables]
        if not isinstance(tables, list):
            raise self.fail("sections", "a list of section tables.")
        base = ctx_extra.get("base_dir")
        resolved = []
        for t in tables:
            t = dict(t) if isinstance(t, Mapping) else t
            # an included file is relative to the experiment file, as everywhere
            if isinstance(t, dict) and t.get("kind") == "include" and base is not None:
                t["file"] = str((Path(base) / str(t.get("file", ""))).resolve())
            resolved.append(t)
        if self.options.get("summary", True) and not any(
                isinstance(t, Mapping) and t.get("kind") == "summary" for t in resolved):
            resolved.insert(0, {"kind": "summary"})
        return build_sections(resolved, source=self.source, key=f"{self.key}.sections")

    def render(self, ctx: ReportContext) -> Rendered:
        part = self.options["part"]
        ids = ctx.extra.get("cell_ids", {}).get(part)
        store = ctx.extra.get("store")
        if not ids or store is None:  # say so: a reader of the page must not miss a part
            title = self.options.get("title", f"Part {part}")
            return Rendered([f"## {title}\n", f"_No cells of part `{part}` in the store yet: "
                             f"`mlfs benchmark <file> --parts {part}` computes them._\n"])
        folder = self.options.get("folder")
        out = ctx.out / folder if folder else ctx.out
        done = render_report(
            store, out, figures=ctx.figures, cell_ids=ids,
            experiment=ctx.extra.get("part_names", {}).get(part) or None,
            decimals=ctx.decimals, alpha=ctx.alpha, missing_rank=ctx.missing_rank,
            title=self.options.get("title", f"Part {part}"),
            sections=self._sections(ctx.extra),
            leave_out=(Runs,),  # the multi-part report prints the runs of every part
        )
        md = [_shift(b, folder) for b in done.markdown]
        if self.options.get("text"):
            md.insert(1, self.options["text"].strip() + "\n")
        return Rendered(md, done.files)
