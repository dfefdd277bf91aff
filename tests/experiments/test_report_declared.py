"""Declared report sections (``[[report.section]]``): hand-written text of files beside
the experiment file copied into the generated README, at the start or the end, and read
again at every regeneration (so edits made after a run survive the next report); the
paper's values, reference methods, values over the budgets and selection stability."""

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

# two folds of emotions with ML-kNN: the shared part of the experiments below
EMOTIONS_2FOLD = """
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
"""

TOML = """
name = "inc"
selectors = ["all"]
""" + EMOTIONS_2FOLD + """
[[report.section]]
kind = "include"
file = "notes/first.md"
[[report.section]]
kind = "include"
file = "notes/last.md"
at = "end"
title = "Notes"
"""
P = "skmlfs.experiments.report.papers:"


def _run_and_report(tmp_path, toml: str, name: str):
    """Run the experiment file ``toml`` into ``tmp_path/r.db`` and report it into
    ``tmp_path/rep``; returns (README text, the store's cells, its task table)."""
    from skmlfs.experiments import ResultStore

    (tmp_path / "exp.toml").write_text(toml)
    db = tmp_path / "r.db"
    run_experiment(load_experiment(tmp_path / "exp.toml"), db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False, experiment=name)
    with ResultStore(db) as st:
        cells, stats = st.to_frame(), st.task_stats()
    return (tmp_path / "rep" / "README.md").read_text(), cells, stats


def test_included_text_is_placed_and_reread(datasets_dir, tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "first.md").write_text("FIRST hand-written paragraph.\n")
    (tmp_path / "notes" / "last.md").write_text("LAST hand-written paragraph.\n")
    text = _run_and_report(tmp_path, TOML, "inc")[0]
    db = tmp_path / "r.db"
    first, table, last = (text.index(s) for s in
                          ("FIRST hand-written", "## hamming loss", "LAST hand-written"))
    assert first < table < text.index("## Notes") < last
    # the store keeps the file's place, not its text: an edit shows at the next report
    (tmp_path / "notes" / "first.md").write_text("EDITED paragraph.\n")
    write_report(db, tmp_path / "rep", figures=False, experiment="inc")
    text = (tmp_path / "rep" / "README.md").read_text()
    assert "EDITED paragraph." in text and "FIRST hand-written" not in text


@pytest.mark.parametrize("section, key", [
    ([{"kind": "include", "file": "missing.md"}], "section[0].file"),
    ([{"kind": "include", "file": "x.md", "at": "middle"}], "section[0].at"),
    ([{"kind": "include", "path": "x.md"}], "section[0].path"),
    ([{"kind": "includ", "file": "x.md"}], "section[0].kind"),
    ([{"file": "x.md"}], "section[0].kind"),
    ("x.md", "section"),
])
def test_section_errors_name_the_key(section, key, tmp_path):
    (tmp_path / "x.md").write_text("x")
    d = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"],
         "report": {"section": section}}
    with pytest.raises(SpecError, match=rf"report\.{key.replace('[', '.').replace(']', '.')}"):
        ExperimentSpec.from_dict(d, base_dir=str(tmp_path))


def test_former_report_keys_name_their_section():
    """A key of ``[report]`` that served one paper is now an option of its section: the
    error says which section takes it."""
    d = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"],
         "report": {"over_budgets": True}}
    with pytest.raises(SpecError, match=r"report\.over_budgets: now a report section.*"
                       r"papers:OverBudgets"):
        ExperimentSpec.from_dict(d)


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
[[report.section]]
kind = "skmlfs.experiments.report.papers:PaperValues"
columns = ["other", "all"]
[report.section.values]
ranking_loss = { emotions = [0.5, 0.125], scene = [0.5, 0.375], nowhere = [0.5, 0.5] }
[report.section.values.ml7]
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
    text = _run_and_report(tmp_path, PAPER_TOML, "pap")[0]
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


def test_peak_memory_recorded_per_task_and_reported(datasets_dir, tmp_path):
    """Each task's peak resident memory goes into the store's task table; the report's
    "Peak memory" table and results.json give the largest over a dataset's tasks."""
    import json
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("per-task peak memory needs /proc (Linux)")
    text, cells, stats = _run_and_report(
        tmp_path, PAPER_TOML.replace('name = "pap"', 'name = "mem"')
        + f'[[report.section]]\nkind = "{P}ChosenParameter"\nparameter = "k"\n'
        'criterion = "hamming_loss"\nfixed = 5\n', "mem")
    assert set(stats["task_id"]) == set(cells["ranking_id"])
    assert (stats["peak_rss_mb"] > 1).all()
    res = json.loads((tmp_path / "rep" / "results.json").read_text())["results"]
    mem = _section(text, "## Peak memory")
    for ds in ("emotions", "scene"):
        want = stats.loc[stats["dataset"] == ds, "peak_rss_mb"].max()
        assert res[ds]["peak_rss_mb"] == pytest.approx(want)
        assert f"| {ds} | {want:.0f} |" in mem


def test_tuned_parameters_section_reads_the_cells(datasets_dir, tmp_path):
    """The "Tuned parameters" rows are the stored choices: the selector's setting (tuned
    per learner) with the best mean of its inner scores and their count, and the learner's
    C at each budget."""
    from skmlfs.experiments import ResultStore

    mean = ["macro_f1", "micro_f1"]
    flags = datasets_dir / "mulan" / "flags"
    spec = ExperimentSpec.from_dict({
        "name": "tun", "seed": 0, "n_features_to_select": "5%..10%", "metrics": mean,
        "protocol": "train_test", "discretizer": {"method": "skmlfs.experiments:MinMaxScale"},
        "datasets": [{"name": "flags", "train": str(flags / "flags-train.arff"),
                      "test": str(flags / "flags-test.arff")}],
        "learners": {"svm": {"method": "sklearn.multiclass:OneVsRestClassifier",
                             "estimator": {"method": "sklearn.svm:LinearSVC",
                                           "max_iter": 1000, "random_state": 0},
                             "tune": {"estimator__C": [0.1, 10.0]}, "inner_cv": 2,
                             "scoring": mean}},
        "selectors": {"RLEFS": {"method": "rlefs", "random_state": 0, "max_iter": 20,
                                "tune": {"alpha": [0.1, 0.5]}, "tune_with": "learner",
                                "inner_cv": 2, "scoring": mean}},
    })
    db = tmp_path / "r.db"
    run_experiment(spec, db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False, experiment="tun")
    text = _section((tmp_path / "rep" / "README.md").read_text(), "## Tuned parameters")
    with ResultStore(db) as st:
        df = st.to_frame().sort_values("k")
    top = df.iloc[-1]["info"]["selector"]
    scores = [r["mean"] for r in top["inner_scores"]]
    setting = ", ".join(f"{k.split('__')[-1]} = {v:g}"  # the C of the joint search too
                        for k, v in sorted(top["best_params"].items()))
    cs = [f"{k}: C = {i['learner']['best_params']['estimator__C']:g}"
          for k, i in zip(df["k"], df["info"], strict=True)]
    same = len({c.split(": ", 1)[1] for c in cs}) == 1
    per_k = cs[0].split(": ", 1)[1] if same else "; ".join(cs)
    row = (f"| flags | 0 | RLEFS | svm | {setting} | {max(scores):.4f} | {len(scores)} | "
           f"{per_k} |")
    assert row in text.splitlines()


REF_TOML = """
name = "ref"
n_features_to_select = [3, 6]
""" + EMOTIONS_2FOLD + """
[selectors.MDMR]
method = "mdmr"
[selectors.ALL]
method = "all"
n_features_to_select = "all"
[[report.section]]
kind = "skmlfs.experiments.report.papers:ReferenceMethods"
methods = ["ALL"]
"""


def test_reference_methods_leave_the_compared_tables(datasets_dir, tmp_path):
    """A reference method is not a column of the compared tables; its own table holds
    the mean ± std over the splits of its cells."""
    text, df, _ = _run_and_report(tmp_path, REF_TOML, "ref")
    assert "ALL" not in _section(text, "## hamming loss")
    v = df[df["method"] == "ALL"].sort_values("split")["hamming_loss"].to_numpy()
    assert len(v) == 2
    row = f"| emotions | ALL | {v.mean():.3f} ± {v.std(ddof=1):.3f} |"
    assert row in _section(text, "## Reference methods").splitlines()
    # time per dataset x method: selection once per split, fits and predictions per cell
    m = df[df["method"] == "MDMR"]
    sel = m.groupby("split")["selection_time"].first().sum()
    want = (f"| emotions | MDMR | {sel:.3g} | {m['fit_time'].sum():.3g} | "
            f"{m['predict_time'].sum():.3g} |")
    assert want in _section(text, "## Time per dataset × method").splitlines()


def test_reference_must_be_a_list_of_names():
    d = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"],
         "report": {"section": [{"kind": P + "ReferenceMethods", "methods": "ALL"}]}}
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.methods"):
        ExperimentSpec.from_dict(d)


def test_over_budgets_summarises_each_method_curve(datasets_dir, tmp_path):
    """``OverBudgets``: per dataset × method the mean and population std over the budgets
    of the split-mean values, the largest budget's value, and the mean over datasets."""
    toml = REF_TOML.replace('name = "ref"', 'name = "ob"').replace(
        'methods = ["ALL"]', f'methods = ["ALL"]\n[[report.section]]\nkind = "{P}OverBudgets"'
    ).replace(
        '[[datasets]]\nname = "emotions"', '[[datasets]]\nname = "scene"\nload = "scene"\n'
        '[[datasets]]\nname = "emotions"')
    text, df, _ = _run_and_report(tmp_path, toml, "ob")
    sec = _section(text, "## hamming loss")
    rows = sec[sec.index("Over the budgets"):].splitlines()
    ds_means = []
    for ds in ("scene", "emotions"):
        m = df[(df["method"] == "MDMR") & (df["dataset"] == ds)]
        per_k = [m.loc[m["k"] == k, "hamming_loss"].mean() for k in (3, 6)]
        ds_means.append(np.mean(per_k))
        assert (f"| {ds} | {np.mean(per_k):.3f} ± {np.std(per_k):.3f} [{per_k[-1]:.3f}] |"
                in rows)
    assert f"| mean | {np.mean(ds_means):.3f} |" in rows


STABILITY_TOML = """
name = "stab"
selectors = ["scls", "mi_rank"]
n_features_to_select = [3, 6]
""" + EMOTIONS_2FOLD.replace("k = 2\n", "k = 3\n") + """
[[report.section]]
kind = "stability"
alpha = 0.1
"""


def test_stability_view_matches_the_library_measures(datasets_dir, tmp_path):
    import pandas as pd

    from skmlfs.metrics import kuncheva_index, nogueira_stability, selection_matrix

    text, cells, _ = _run_and_report(tmp_path, STABILITY_TOML, "stab")
    assert "## Selection stability" in text
    csv = pd.read_csv(tmp_path / "rep" / "tables" / "stability.csv")
    assert len(csv) == 4  # 2 selectors x 2 budgets on emotions (72 features)
    for _, r in csv.iterrows():
        g = cells[(cells["method"] == r["method"]) & (cells["k"] == r["k"])]
        g = g.drop_duplicates("split")
        assert len(g) == r["splits"] == 3
        Z = selection_matrix([np.asarray(f) for f in g["features"]], 72)
        est = nogueira_stability(Z, alpha=0.1)
        assert r["stability"] == pytest.approx(est.stability, abs=1e-5)
        assert r["lower"] == pytest.approx(est.lower, abs=1e-5)
        assert r["kuncheva"] == pytest.approx(kuncheva_index(Z), abs=1e-5)
    # the table: each selector's mean of Φ̂ over the two budgets
    section = text[text.index("## Selection stability"):].splitlines()
    row = next(line for line in section if line.startswith("| emotions |"))
    header = next(line for line in section if line.startswith("| dataset |"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    vals = [c.strip() for c in row.strip("|").split("|")]
    for m in ("scls", "mi_rank"):
        want = csv[csv["method"] == m]["stability"].mean()
        assert float(vals[cols.index(m)]) == pytest.approx(want, abs=6e-4)  # 3 decimals


def test_stability_view_rejects_a_bad_alpha(tmp_path):
    (tmp_path / "exp.toml").write_text(STABILITY_TOML.replace("alpha = 0.1", "alpha = 2"))
    with pytest.raises((SpecError, ValueError), match=r"report\.section\[0\]\.alpha"):
        load_experiment(tmp_path / "exp.toml")
