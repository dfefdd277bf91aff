"""The number of keys of the experiment-file language that docs/experiment_file.md states
is the count of the spec's own key tables (and of the generic report sections' options)."""

from __future__ import annotations

import re
from pathlib import Path

from skmlfs.experiments import _build, _parts, _spec
from skmlfs.experiments._registry import SECTIONS, resolve_section

DOC = Path(__file__).resolve().parents[2] / "docs" / "experiment_file.md"


def _key_tables() -> dict[str, set[str]]:
    sections = {"kind"}.union(*(set(resolve_section(k).OPTIONS) for k in SECTIONS))
    return {
        "top": set(_spec._TOP_KEYS), "report": set(_spec._REPORT_KEYS),
        "dataset": set(_spec._DATASET_KEYS), "protocol": set(_spec._PROTOCOL_KEYS),
        "method tuning": set(_build._TUNING_KEYS), "method options": set(_build.OPTION_KEYS),
        "part": set(_parts.PART_KEYS), "part best": set(_parts._BEST_KEYS),
        "part share": set(_parts._SHARE_KEYS), "parts report": set(_parts.REPORT_KEYS),
        "report section": sections,
    }


def test_documented_key_count_is_the_spec_count():
    text = DOC.read_text(encoding="utf-8")
    stated = int(re.search(r"The language has \*\*(\d+) keys\*\*", text).group(1))
    assert stated == sum(len(v) for v in _key_tables().values())


def test_paper_options_are_not_keys_of_the_core_schema():
    """A key that serves one paper is an option of that paper's section, not of
    ``[report]``."""
    from skmlfs.experiments.report import papers

    report = _key_tables()["report"]
    assert not report & {"choose", "pairs", "paper", "optimised", "over_budgets",
                         "reference", "versus", "seeds", "records", "ablation"}
    assert {"FoldOptimised", "ChosenParameter", "SeedRobustness"} <= set(papers.__all__)
    assert not any(":" in k or "papers" in v for k, v in SECTIONS.items())
