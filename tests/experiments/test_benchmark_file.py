"""The benchmark experiment files run every selector of the library under both protocols
(one test keeps every part so when a selector is added to the registry); the Lee group's
protocol is a part of the main file whose top level keeps the cells of the one-grid file."""

from __future__ import annotations

import dataclasses
import json
import textwrap
import tomllib
from pathlib import Path

import pytest
from _user_selector import USER_MODULE

from skmlfs.cli import main
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    load_parts,
    run_experiment,
    with_selectors,
)
from skmlfs.experiments._parts_run import part_specs
from skmlfs.experiments._planner import plan_experiment
from skmlfs.experiments._registry import SELECTORS
from skmlfs.experiments._store import part_cells

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "experiments" / "mlfs_benchmark.toml"
QUICK = ROOT / "experiments" / "mlfs_benchmark_quick.toml"
PARTS = [(BENCH, "main"), (BENCH, "lee"), (QUICK, "main"), (QUICK, "lee")]


def _registered_classes() -> dict[str, str]:
    """Class path -> first registered name (aliases share a class)."""
    out: dict[str, str] = {}
    for name, target in SELECTORS.items():
        out.setdefault(target, name)
    return out


def _grid_sections(path: Path) -> dict[str, list[dict]]:
    """part -> the report sections its `grid` section declares."""
    rep = tomllib.loads(path.read_text(encoding="utf-8"))["report"]
    return {s["part"]: s.get("sections", []) for s in rep["section"] if s["kind"] == "grid"}


@pytest.mark.parametrize("path, part", PARTS, ids=[f"{p.stem}-{n}" for p, n in PARTS])
def test_every_registered_selector_is_benchmarked_in_every_part(path, part, datasets_dir):
    spec = load_parts(path).checked[part]
    ran = {f"{c.__module__.rsplit('._', 1)[0]}:{c.__name__}"
           for c in (m.estimator_class() for m in spec.selectors)}
    missing = [n for target, n in _registered_classes().items()
               if f"{target.split(':')[0].rsplit('._', 1)[0]}:{target.split(':')[1]}" not in ran]
    assert not missing, f"{path.name} part {part} does not run the registered selector(s) " \
                        f"{missing}"
    # each part's report: its own stability section and the two references apart
    kinds = {t["kind"].rsplit(":", 1)[-1]: t for t in _grid_sections(path)[part]}
    assert "stability" in kinds and set(kinds["ReferenceMethods"]["methods"]) == {"all",
                                                                                  "random"}


def test_the_two_protocols_are_those_of_the_issue(datasets_dir):
    ep = load_parts(BENCH)
    main_, lee = ep.checked["main"], ep.checked["lee"]
    assert [m.name for m in main_.learners] == ["ML-kNN"]
    assert main_.learners[0].params == {"k": 10, "s": 1.0}
    assert [m.name for m in lee.learners] == ["MLNB"] and lee.learners[0].method == "mlnb"
    assert lee.n_features == ("ceil_sqrt",)
    assert main_.protocol.kind == "kfold" and main_.protocol.k == 5
    assert lee.protocol.kind == "holdout" and lee.protocol.repeats == 10
    mats = [d for d in lee.datasets if d.name.endswith(".mat")]
    assert mats and all(d.protocol.kind == "mat" and d.protocol.n_splits == 10 for d in mats)
    # the report: one full grid per protocol, the Lee part's files in their own folder
    grids = [s for s in ep.report["section"] if s["kind"] == "grid"]
    assert [(s["part"], s.get("folder")) for s in grids] == [("main", None), ("lee", "lee")]


def test_both_parts_cover_every_shared_data_set(datasets_dir):
    ep = load_parts(BENCH)
    names = {ds.name for ds in ep.checked["main"].datasets}
    mulan = {p.name for p in (datasets_dir / "mulan").iterdir() if p.is_dir()}
    mats = {f"{p.stem}.mat" for p in (datasets_dir / "plcfs").glob("*.mat")}
    assert mulan | mats <= names
    assert {ds.name for ds in ep.checked["lee"].datasets} == names
    # the quick variant: its Lee part on some of its small data sets, as the full run
    # splits them (its cells are the full run's)
    quick = load_parts(QUICK)
    q_lee = {ds.name: ds for ds in quick.checked["lee"].datasets}
    assert q_lee and set(q_lee) < {ds.name for ds in quick.checked["main"].datasets}
    full_lee = {ds.name: ds for ds in ep.checked["lee"].datasets}
    assert all(q_lee[n].protocol == full_lee[n].protocol for n in q_lee)
    assert quick.checked["lee"].protocol == ep.checked["lee"].protocol


def _one_grid(path: Path) -> ExperimentSpec:
    """The top level of ``path`` as a one-grid file (no parts, no report): what the
    benchmark file was before the Lee protocol became its part."""
    d = tomllib.loads(path.read_text(encoding="utf-8"))
    d.pop("part")
    d.pop("report")
    return ExperimentSpec.from_dict(d, source=str(path), base_dir=str(path.parent))


def _only(spec: ExperimentSpec, datasets, selectors=None) -> ExperimentSpec:
    return dataclasses.replace(
        spec, datasets=tuple(d for d in spec.datasets if d.name in datasets),
        selectors=spec.selectors if selectors is None else tuple(
            m for m in spec.selectors if m.name in selectors))


def test_main_part_plans_the_cells_of_the_one_grid_file(datasets_dir, tmp_path):
    """The main part keeps the experiment's name and every cell id: a store of the
    one-grid file is reused cell for cell; the Lee part plans only new cells."""
    one = _one_grid(BENCH)
    ep = load_parts(BENCH)
    with ResultStore(tmp_path / "s.db") as store:
        run_experiment(_only(one, ["flags"], ["mi_rank", "all"]), store, progress=False,
                       verbose=False)
        stored = set(store.to_frame()["cell_id"]) if "cell_id" in store.to_frame() else {
            c for c in json.loads(store.get_meta(f"cells:{one.name}"))}
        assert stored
        (main_,) = part_specs(ep, "main", store, ["flags"])
        (lee,) = part_specs(ep, "lee", store, ["flags"])
        assert main_.name == one.name == "mlfs_benchmark"
        assert lee.name == "mlfs_benchmark.lee"
        plan_main = plan_experiment(main_, store)
        plan_one = plan_experiment(_only(one, ["flags"]), store)
        assert plan_main.cell_ids == plan_one.cell_ids
        assert stored <= set(plan_main.cell_ids)
        assert plan_main.n_pending == len(plan_main.cell_ids) - len(stored)
        plan_lee = plan_experiment(lee, store)
        assert plan_lee.n_pending == len(plan_lee.cell_ids)
        assert not stored & set(plan_lee.cell_ids)
    # cells per part on flags: 5 folds x (one per budget) for main; the Lee part one
    # budget, ceil(sqrt(n)), on each of 10 holdouts for every selector
    n_sel = len(main_.selectors)
    assert len(plan_lee.cell_ids) == 10 * n_sel
    assert len(plan_main.cell_ids) > 5 * n_sel



# the benchmark file's layout in small: a main grid and a Lee-style part, each with its
# full report (the second in a folder of its own)
TWO_PARTS = """
name = "small_bench"
seed = 0
selectors = ["mi_rank", "ami", "all"]
n_features_to_select = [4, 8]
metrics = ["hamming_loss", "ranking_loss"]
learners = [{ name = "ML-kNN", method = "mlknn", k = 10 }]
protocol = { kind = "kfold", k = 2 }
datasets = [{ name = "emotions", load = "emotions" }, { name = "flags", load = "flags" }]

[report]
title = "Small benchmark"

[[report.section]]
kind = "grid"
part = "main"
title = "Main protocol"
sections = [{ kind = "stability" }]

[[report.section]]
kind = "grid"
part = "lee"
folder = "lee"
title = "Lee protocol"
sections = [{ kind = "stability" }]

[[part]]
name = "lee"
n_features_to_select = "ceil_sqrt"
metrics = ["hamming_loss", "normalized_coverage"]
protocol = { kind = "holdout", repeats = 2, test_size = 0.2 }
[part.learners.MLNB]
method = "mlnb"
"""


def test_add_selector_joins_every_part_and_report(datasets_dir, tmp_path, monkeypatch):
    (tmp_path / "my_selectors.py").write_text(textwrap.dedent(USER_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    f = tmp_path / "bench.toml"
    f.write_text(TWO_PARTS)
    db, out = tmp_path / "r.db", tmp_path / "rep"
    rc = main(["benchmark", str(f), "--db", str(db), "--out", str(out), "--no-figures", "-q",
               "--add-selector", "mine=my_selectors:LowestVariance"])
    assert rc == 0
    ep = load_parts(f)
    with ResultStore(db, readonly=True) as st:
        ids = part_cells(st, ep)
        main_ = st.to_frame(cell_ids=ids["main"])
        lee = st.to_frame(cell_ids=ids["lee"])
    assert set(main_["method"]) == set(lee["method"]) == {"mi_rank", "ami", "all", "mine"}
    mine = main_[main_["method"] == "mine"]
    assert len(mine) == 2 * 2 * 2  # 2 data sets x 2 folds x 2 budgets
    assert sorted(mine["n_selected"].unique()) == [4, 8]
    assert len(lee[lee["method"] == "mine"]) == 2 * 2  # 2 data sets x 2 holdouts
    assert set(lee["learner"]) == {"MLNB"} and "normalized_coverage" in lee
    # one report: a full grid per part (its headings one level down), the user's method
    # in both; the Lee part's tables in lee/
    text = (out / "README.md").read_text()
    assert text.startswith("# Small benchmark")
    assert "## Main protocol" in text and "## Lee protocol" in text
    assert text.count("### Summary: average ranks over the data sets") == 2
    assert text.count("### Selection stability") == 2
    assert "### normalized coverage ↓" in text and "### ranking loss ↓" in text
    # each part's setup says how that part split the data sets (the same names)
    main_text, lee_text = text.split("## Lee protocol", 1)
    assert "| emotions | 593 | 72 | 6 | 2-fold CV | 2 | 4, 8, 72 |" in main_text
    assert "| emotions | 593 | 72 | 6 | holdout 2 x 80%/20% | 2 | 25, 72 |" in lee_text
    summaries = [s.split("\n\n### ", 1)[0] for s in text.split(
        "### Summary: average ranks over the data sets")[1:]]
    assert all("| mine |" in s and "| mi_rank |" in s for s in summaries)
    assert (out / "tables" / "hamming_loss.csv").is_file()
    assert (out / "lee" / "tables" / "normalized_coverage.csv").is_file()
    assert "`lee/tables/stability.csv`" in text and "`tables/stability.csv`" in text
    # the per-cell CSV: one row per cell of each part, each row named by its method,
    # budget, learner and split, with the store's values
    import numpy as np
    import pandas as pd

    rows = pd.read_csv(out / "results_folds.csv")
    key = ["part", "dataset", "method", "k", "learner", "split"]
    assert not rows.duplicated(key).any()
    assert len(rows) == len(main_) + len(lee)
    got = rows[(rows["part"] == "main") & (rows["method"] == "mine")]
    want = mine.sort_values(["dataset", "k", "split"])
    np.testing.assert_allclose(got.sort_values(["dataset", "k", "split"])["hamming_loss"],
                               want["hamming_loss"], rtol=1e-5)
    assert list(got.sort_values(["dataset", "k", "split"])["n_selected"]) == list(
        want["n_selected"])
    # ... the report again from the store alone: the same text
    out2 = tmp_path / "rep2"
    assert main(["report", str(db), "--out", str(out2), "--no-figures"]) == 0
    again = (out2 / "README.md").read_text()
    assert again.split("\n", 3)[3] == text.split("\n", 3)[3]  # all but the command line


def test_grid_section_prints_the_one_grid_report_of_its_part(datasets_dir, tmp_path):
    """The main part's numbers in the multi-part report are those of the single-grid
    report of the same cells (same tables, byte for byte)."""
    from skmlfs.experiments.report._single import write_report

    f = tmp_path / "bench.toml"
    f.write_text(TWO_PARTS)
    db, out = tmp_path / "r.db", tmp_path / "rep"
    assert main(["benchmark", str(f), "--db", str(db), "--out", str(out), "--no-figures",
                 "-q", "--parts", "main"]) == 0
    single = tmp_path / "single"
    with ResultStore(db, readonly=True) as st:
        ids = part_cells(st, load_parts(f))["main"]
    write_report(db, single, figures=False, cell_ids=ids, experiment="small_bench")
    assert "## Lee protocol\n\n_No cells of part `lee` in the store yet" in (
        out / "README.md").read_text()
    names = sorted(p.name for p in (single / "tables").iterdir())
    assert {"hamming_loss.csv", "ranking_loss.md", "hamming_loss.tex"} <= set(names)
    for name in names:
        assert (out / "tables" / name).read_bytes() == (single / "tables" / name).read_bytes()
    # the README: the same tables, headings one level down
    text = (out / "README.md").read_text()
    for line in (single / "README.md").read_text().splitlines():
        if line.startswith("| emotions |") or line.startswith("| Avg. rank |"):
            assert line in text


def test_with_selectors_refuses_a_taken_name(datasets_dir):
    ep = load_parts(BENCH)
    with pytest.raises(Exception, match="already taken"):
        with_selectors(ep, {"mi_rank": {"method": "my_selectors:LowestVariance"}})
    two = with_selectors(ep, {"mine": {"method": "my_selectors:LowestVariance"}})
    for _, d in two.parts:
        assert d["selectors"][-1] == {"name": "mine", "method": "my_selectors:LowestVariance"}
    assert len(dict(ep.parts)["lee"]["selectors"]) + 1 == len(dict(two.parts)["lee"][
        "selectors"])


def test_selectors_option_keeps_those_of_every_part(datasets_dir, tmp_path, capsys):
    """`--selectors` on a file with parts: a reduced run of every part (the fresh-install
    test runs the quick benchmark so); an unknown name fails before any work."""
    f = tmp_path / "bench.toml"
    f.write_text(TWO_PARTS)
    db = tmp_path / "r.db"
    assert main(["benchmark", str(f), "--db", str(tmp_path / "x.db"), "-q",
                 "--selectors", "mi_rank,nope"]) != 0
    assert "nope" in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()
    assert main(["benchmark", str(f), "--db", str(db), "-q", "--no-report",
                 "--datasets", "flags", "--selectors", "mi_rank"]) == 0
    with ResultStore(db, readonly=True) as st:
        ids = part_cells(st, load_parts(f))
        for part in ("main", "lee"):
            cells = st.to_frame(cell_ids=ids[part])
            assert set(cells["method"]) == {"mi_rank"} and set(cells["dataset"]) == {"flags"}
