"""The section contract of the report: one number format, one rule for a metric's
direction, sections named by short name or ``"module:Class"`` and checked when the
experiment file is read."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from skmlfs.experiments import ExperimentSpec, SpecError
from skmlfs.experiments._registry import SECTIONS, resolve_section
from skmlfs.experiments.report import (
    NumberFormat,
    Rendered,
    ReportSection,
    format_number,
    greater_is_better,
    write_report,
)
from skmlfs.metrics import METRICS


class Marker(ReportSection):
    """A section of a user's own: a line with the compared data sets and a number in the
    report's format, and the methods of ``drop`` taken out of the compared tables."""

    OPTIONS = {"value": "a number to print", "drop": "methods left out of the tables"}
    REQUIRED = ("value",)

    def check(self, metrics):
        if not isinstance(self.options["value"], float):
            raise self.fail("value", "a number.")

    def prepare(self, frame, state):
        return frame[~frame["method"].isin(self.options.get("drop", []))]

    def render(self, ctx):
        return Rendered([f"MARKER {ctx.fmt(self.options['value'])} on "
                         f"{', '.join(sorted(ctx.frame['dataset'].unique()))}\n"])


def _cells() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [{"dataset": f"d{d}", "split": s, "method": m, "k": 5, "learner": "mlnb",
             "selection_time": 0.01, "fit_time": 0.01, "predict_time": 0.01,
             "hamming_loss": float(rng.uniform(0.1, 0.3))}
            for m in ("A", "B", "C") for d in range(3) for s in range(3)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("x, d, lead, want", [
    (0.12345, 3, True, "0.123"), (0.12345, 3, False, ".123"), (12.5, 1, False, "12.5"),
    (float("nan"), 3, True, "–"), (None, 2, True, "–"), (math.inf, 2, True, "–"),
])
def test_one_number_format(x, d, lead, want):
    assert format_number(x, d, leading_zero=lead) == want
    assert NumberFormat(d, lead)(x) == want


def test_one_rule_for_a_metric_direction():
    for name, spec in METRICS.items():
        assert greater_is_better(name) is spec.greater_is_better
    assert greater_is_better("f1_micro") is True  # scikit-learn's name of micro_f1
    # a metric the experiment named: the direction the run stored for it
    meta = {"metric:acc": json.dumps({"metric": "multilabel_accuracy",
                                      "greater_is_better": True})}
    assert greater_is_better("acc", meta) is True
    assert greater_is_better("fit_time") is False
    with pytest.raises(ValueError, match="cannot tell whether higher 'nope' is better"):
        greater_is_better("nope")


def test_every_short_name_is_a_section_class():
    for name in SECTIONS:
        assert issubclass(resolve_section(name), ReportSection)
    with pytest.raises(ValueError, match="did you mean 'stability'"):
        resolve_section("stabilty")
    with pytest.raises(ValueError, match="not a ReportSection"):
        resolve_section("skmlfs.metrics:hamming_loss")


def test_a_section_of_ones_own_is_checked_with_the_file_and_renders(tmp_path):
    base = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"]}
    kind = f"{__name__}:Marker"
    with pytest.raises(SpecError, match=r"exp\.toml: report\.section\[0\]\.colour: unknown"):
        ExperimentSpec.from_dict({**base, "report": {"section": [
            {"kind": kind, "value": 0.5, "colour": "red"}]}}, source="exp.toml")
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.value: missing"):
        ExperimentSpec.from_dict({**base, "report": {"section": [{"kind": kind}]}})
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.value: a number"):
        ExperimentSpec.from_dict({**base, "report": {"section": [
            {"kind": kind, "value": "x"}]}})
    section = Marker({"value": 0.25, "drop": ["C"]})
    write_report(_cells(), tmp_path, figures=False, formats=["md"], decimals=2,
                 sections=[section])
    text = (tmp_path / "README.md").read_text()
    assert "MARKER 0.25 on d0, d1, d2" in text
    # after the metric tables, before the run time; C left out of the compared tables
    assert text.index("## hamming loss") < text.index("MARKER") < text.index(
        "## Selection time")
    table = text[text.index("## hamming loss"):text.index("MARKER")]
    assert "| Dataset | A | B |" in table and " C " not in table


def test_a_declared_generic_section_replaces_the_default_one(tmp_path):
    """``kind = "metrics"`` with ``paired_tests = false``: the tables once, in their place,
    without the paired tests; the default prints them."""
    from skmlfs.experiments.report import build_sections

    cells = _cells()
    write_report(cells, tmp_path / "a", figures=False, formats=["md"])
    assert "Paired t-tests over the splits" in (tmp_path / "a" / "README.md").read_text()
    secs = build_sections([{"kind": "metrics", "paired_tests": False}])
    write_report(cells, tmp_path / "b", figures=False, formats=["md"], sections=secs)
    text = (tmp_path / "b" / "README.md").read_text()
    assert text.count("## hamming loss") == 1 and "Paired t-tests" not in text
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.curves: true or false"):
        build_sections([{"kind": "metrics", "curves": "no"}])
