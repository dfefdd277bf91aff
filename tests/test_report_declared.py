"""``[report] include`` (issue #14): hand-written text of files beside the experiment file
is copied into the generated README, at the start or the end, and read again at every
regeneration (so edits made after a run survive the next report)."""

from __future__ import annotations

import numpy as np
import pytest

from skmlfs.experiments import (
    ExperimentSpec,
    SpecError,
    load_experiment,
    run_experiment,
    write_report,
)

TOML = """
name = "inc"
selectors = ["all"]
metrics = ["hamming_loss"]
[protocol]
kind = "kfold"
k = 2
[learners.mlknn]
method = "mlknn"
k = 5
[[datasets]]
name = "emotions"
load = "emotions"
[report]
include = [{ file = "notes/first.md" }, { file = "notes/last.md", at = "end", title = "Notes" }]
"""


def test_included_text_is_placed_and_reread(datasets_dir, tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "first.md").write_text("FIRST hand-written paragraph.\n")
    (tmp_path / "notes" / "last.md").write_text("LAST hand-written paragraph.\n")
    (tmp_path / "exp.toml").write_text(TOML)
    spec = load_experiment(tmp_path / "exp.toml")
    db = tmp_path / "r.db"
    run_experiment(spec, db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False, experiment="inc")
    text = (tmp_path / "rep" / "README.md").read_text()
    first, table, last = (text.index(s) for s in
                          ("FIRST hand-written", "## hamming loss", "LAST hand-written"))
    assert first < table < text.index("## Notes") < last
    # the store keeps the file's place, not its text: an edit shows at the next report
    (tmp_path / "notes" / "first.md").write_text("EDITED paragraph.\n")
    write_report(db, tmp_path / "rep", figures=False, experiment="inc")
    text = (tmp_path / "rep" / "README.md").read_text()
    assert "EDITED paragraph." in text and "FIRST hand-written" not in text


@pytest.mark.parametrize("include, key", [
    ([{"file": "missing.md"}], "include"),
    ([{"file": "x.md", "at": "middle"}], "include[0].at"),
    ([{"path": "x.md"}], "include[0]"),
    ("x.md", "include"),
])
def test_include_errors_name_the_key(include, key, tmp_path):
    (tmp_path / "x.md").write_text("x")
    d = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"],
         "report": {"include": include}}
    with pytest.raises(SpecError, match=rf"report\.{key.replace('[', '.').replace(']', '.')}"):
        ExperimentSpec.from_dict(d, base_dir=str(tmp_path))


PAPER_TOML = """
name = "pap"
selectors = ["all"]
metrics = ["hamming_loss", "ranking_loss"]
[protocol]
kind = "kfold"
k = 2
[learners.ml5]
method = "mlknn"
k = 5
[learners.ml7]
method = "mlknn"
k = 7
[[datasets]]
name = "emotions"
load = "emotions"
[[datasets]]
name = "scene"
load = "scene"
[report.paper]
columns = ["other", "all"]
ranking_loss = { emotions = [0.5, 0.125], scene = [0.5, 0.375], nowhere = [0.5, 0.5] }
[report.paper.ml7]
hamming_loss = { emotions = [0.5, 0.25] }
"""


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def test_paper_values_beside_each_table(datasets_dir, tmp_path):
    """Per-learner paper tables go under that learner's table, a metric-level one under
    every learner's; only the compared methods and the run's datasets are shown, and the
    mean row is the mean of the shown values."""
    (tmp_path / "exp.toml").write_text(PAPER_TOML)
    spec = load_experiment(tmp_path / "exp.toml")
    db = tmp_path / "r.db"
    run_experiment(spec, db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False, experiment="pap")
    text = (tmp_path / "rep" / "README.md").read_text()
    paper = "The paper's values"
    assert paper not in _section(text, "## hamming loss ↓ — learner ml5")
    hl7 = _section(text, "## hamming loss ↓ — learner ml7")
    assert "| Dataset | all |" in hl7 and "| emotions | 0.250 |" in hl7
    for lr in ("ml5", "ml7"):
        rl = _section(text, f"## ranking loss ↓ — learner {lr}")
        rows = rl[rl.index(paper):].splitlines()
        mean = float(np.mean([0.125, 0.375]))
        assert "| emotions | 0.125 |" in rows and "| scene | 0.375 |" in rows
        assert f"| mean | {mean:.3f} |" in rows
        assert not any("nowhere" in r or "0.500" in r for r in rows)
