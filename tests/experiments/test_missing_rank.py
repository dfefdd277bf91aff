"""What a method without a value on a data set gets in the ranks (``[report]
missing_rank``): ``"drop"`` leaves the data set out (complete blocks), ``"last"`` keeps it
with the missing methods sharing the last ranks. Checked against a straightforward ranking,
through the report and the CLI, and in the experiment files' validation."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from _user_selector import REFUSING_MODULE
from scipy.stats import rankdata

from skmlfs.experiments import ExperimentSpec, run_experiment
from skmlfs.experiments._parts import parts_from_dict
from skmlfs.experiments._spec import SpecError, load_experiment
from skmlfs.experiments.report import metric_tables, write_report
from skmlfs.experiments.report._grid import rank_note

GEN = "skmlfs.datasets:make_multilabel_discrete"


def _frame(values: np.ndarray, metric: str = "hamming_loss") -> pd.DataFrame:
    """Two splits per (data set, method) with the given means; NaN: no cell at all."""
    rows = []
    for i, ds in enumerate(f"d{i}" for i in range(values.shape[0])):
        for j in range(values.shape[1]):
            if np.isnan(values[i, j]):
                continue
            for split, off in ((0, -0.0001), (1, 0.0001)):
                rows.append({"dataset": ds, "method": f"m{j}", "learner": "L",
                             "split": split, "k": 2, metric: values[i, j] + off})
    return pd.DataFrame(rows)


def _reference_last(values: np.ndarray, greater_is_better: bool) -> np.ndarray:
    """Per row: the present methods ranked among themselves (ties averaged), the missing
    ones sharing the positions after them; rows without any value dropped."""
    out = []
    for row in values:
        present = ~np.isnan(row)
        if not present.any():
            continue
        r = np.empty(row.size)
        r[present] = rankdata(-row[present] if greater_is_better else row[present])
        n_p, n_m = present.sum(), (~present).sum()
        r[~present] = n_p + (n_m + 1) / 2.0  # mean of positions n_p + 1 … n_p + n_m
        out.append(r)
    return np.asarray(out)


@pytest.mark.parametrize("metric,gib", [("hamming_loss", False), ("average_precision", True)])
@pytest.mark.parametrize("seed", range(8))
def test_last_matches_a_straightforward_ranking(metric, gib, seed):
    rng = np.random.default_rng(seed)
    vals = np.round(rng.uniform(0.1, 0.9, size=(7, 5)), 2)  # rounded: ties happen
    vals[rng.random(vals.shape) < 0.2] = np.nan
    vals[3] = np.nan if seed % 2 else vals[3]  # a data set without any value, sometimes
    (t,) = metric_tables(_frame(vals, metric), metrics=[metric], missing_rank="last")
    ref = _reference_last(np.round(vals, 3), gib)
    np.testing.assert_allclose(t.ranks.to_numpy(), ref)
    np.testing.assert_allclose(t.avg_ranks.to_numpy(), ref.mean(axis=0))
    # Friedman's statistic from those ranks (Demšar 2006, Eq. 1)
    n, k = ref.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ref.mean(axis=0) ** 2) - k * (k + 1) ** 2 / 4)
    assert t.friedman.n_datasets == n
    np.testing.assert_allclose(t.friedman.chi2, chi2)


def test_drop_keeps_the_complete_blocks():
    vals = np.array([[0.1, 0.2, 0.3], [0.1, 0.2, np.nan], [0.3, 0.2, 0.1]])
    (drop,) = metric_tables(_frame(vals), metrics=["hamming_loss"])
    (last,) = metric_tables(_frame(vals), metrics=["hamming_loss"], missing_rank="last")
    assert list(drop.ranks.index) == ["d0", "d2"]
    np.testing.assert_array_equal(drop.avg_ranks.to_numpy(), [2.0, 2.0, 2.0])
    assert list(last.ranks.index) == ["d0", "d1", "d2"]
    np.testing.assert_allclose(last.avg_ranks.to_numpy(), [5 / 3, 2.0, 7 / 3])
    assert rank_note(drop) == ("Ranks over the 2 data sets where every method has a value; "
                               "left out: d1 (no m2).")
    assert rank_note(last) == ("Ranks over 3 data sets; a method without a value shares the "
                               "last ranks there: d1 (no m2).")


def test_notes_name_rows_without_any_value_and_stay_silent_when_complete():
    vals = np.array([[0.1, 0.2], [0.5, 0.5], [0.2, np.nan], [0.3, 0.1]])
    df = _frame(vals)
    df.loc[df["dataset"] == "d1", "hamming_loss"] = np.nan  # cells, but no value
    (t,) = metric_tables(df, metrics=["hamming_loss"], missing_rank="last")
    assert rank_note(t) == (
        "Ranks over 3 data sets; a method without a value shares the last ranks there: "
        "d2 (no m1); left out (no value at all): d1.")
    full = np.array([[0.1, 0.2], [0.3, 0.1]])
    for policy in ("drop", "last"):
        (t,) = metric_tables(_frame(full), metrics=["hamming_loss"], missing_rank=policy)
        assert rank_note(t) == ""


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="missing_rank must be one of"):
        metric_tables(_frame(np.ones((2, 2))), metrics=["hamming_loss"], missing_rank="first")


def _one_grid(report: dict) -> dict:
    return {
        "name": "gaps", "seed": 1, "n_features_to_select": [2, 3],
        "metrics": ["hamming_loss", "ranking_loss"],
        "selectors": ["mi_rank", "random",
                      {"name": "picky", "method": "picky_selectors:Picky"}],
        "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [
            {"name": "small", "generator": GEN,
             "params": {"n_samples": 60, "n_features": 6, "random_state": 1}},
            {"name": "wide", "generator": GEN,
             "params": {"n_samples": 60, "n_features": 12, "random_state": 2}},
            {"name": "mid", "generator": GEN,
             "params": {"n_samples": 60, "n_features": 8, "random_state": 3}},
        ],
        "report": report,
    }


GAPS_TOML = f"""
name = "gaps"
seed = 1
n_features_to_select = [2, 3]
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["mi_rank", "random", {{ name = "picky", method = "picky_selectors:Picky" }}]

[protocol]
kind = "holdout"
repeats = 2

[report]
missing_rank = "last"

[[report.section]]
kind = "summary"

[[datasets]]
name = "small"
generator = "{GEN}"
params = {{ n_samples = 60, n_features = 6, random_state = 1 }}

[[datasets]]
name = "wide"
generator = "{GEN}"
params = {{ n_samples = 60, n_features = 12, random_state = 2 }}

[[datasets]]
name = "mid"
generator = "{GEN}"
params = {{ n_samples = 60, n_features = 8, random_state = 3 }}
"""


def test_the_report_follows_the_file_and_the_cli_overrides_it(tmp_path, monkeypatch):
    (tmp_path / "picky_selectors.py").write_text(REFUSING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "gaps.toml").write_text(GAPS_TOML)
    db = tmp_path / "r.db"
    s = run_experiment(load_experiment(tmp_path / "gaps.toml"), db, verbose=False,
                       progress=False)
    assert s.n_failed_tasks == 2  # picky on both splits of "wide"
    write_report(db, tmp_path / "rep", figures=False)
    md = (tmp_path / "rep" / "README.md").read_text()
    assert "over the 3 data set(s) (a method without a value on a data set ranked last" in md
    assert ("Ranks over 3 data sets; a method without a value shares the last ranks there: "
            "wide (no picky).") in md
    assert ("Stability and selection time are means over the data sets where the method has "
            "a value; none on: wide (picky).") in md
    write_report(db, tmp_path / "rep2", figures=False, missing_rank="drop")
    md = (tmp_path / "rep2" / "README.md").read_text()
    assert "over the 2 data set(s) with every method" in md
    assert "Ranks over the 2 data sets where every method has a value; left out: wide" in md

    from skmlfs.cli import main

    assert main(["report", str(db), "--out", str(tmp_path / "rep3"), "--no-figures",
                 "--missing-rank", "drop"]) == 0
    assert "left out: wide (no picky)" in (tmp_path / "rep3" / "README.md").read_text()


def test_experiment_files_check_the_key():
    with pytest.raises(SpecError, match="report.missing_rank: must be 'drop'"):
        ExperimentSpec.from_dict(_one_grid({"missing_rank": "worst"}))
    parts = {
        "name": "p", "seed": 1, "n_features_to_select": [2], "metrics": ["hamming_loss"],
        "selectors": ["mi_rank", "random"], "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [{"name": "s", "generator": GEN,
                      "params": {"n_samples": 40, "n_features": 6, "random_state": 1}}],
        "part": [{"name": "more", "protocol": {"kind": "holdout", "repeats": 3}}],
    }
    assert parts_from_dict({**parts, "report": {"missing_rank": "last"}}).report[
        "missing_rank"] == "last"
    with pytest.raises(SpecError, match="report.missing_rank"):
        parts_from_dict({**parts, "report": {"missing_rank": 1}})


def test_an_experiment_built_in_python_keeps_its_report_options(tmp_path, monkeypatch):
    # a run stores what a later report reads back of [report]; for a spec built in Python
    # it stored only "<dict>", so missing_rank and decimals were silently dropped
    (tmp_path / "picky_selectors.py").write_text(REFUSING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = ExperimentSpec.from_dict(_one_grid({"missing_rank": "last", "decimals": 2}))
    db = tmp_path / "r.db"
    run_experiment(spec, db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False)
    md = (tmp_path / "rep" / "README.md").read_text()
    assert ("a method without a value shares the last ranks there: wide (no picky)") in md
    table = md[md.index("| Dataset | mi_rank"):].split("\n\n")[0]
    cells = re.findall(r"\d+\.\d+ ± \d+\.\d+", table)
    assert cells and all(re.fullmatch(r"\d+\.\d{2} ± \d+\.\d{2}", c) for c in cells)
