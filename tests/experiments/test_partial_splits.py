"""A method with values on only some of a data set's splits (a task failed or was stopped
on the others): its mean averages other test sets than the rest of the row, so the report
shows it marked ``(n/N)`` but neither marks it best, ranks it nor tests it; the paired
t-tests of the other methods keep every split of that data set, and the summary's
stability and time leave it out. Checked against straightforward computations on the
splits every compared method has, and through a real run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _user_selector import REFUSING_MODULE
from scipy.stats import rankdata

from skmlfs.experiments import ExperimentSpec, run_experiment
from skmlfs.experiments.report import (
    metric_tables,
    wilcoxon_table,
    win_tie_loss_table,
    write_report,
)
from skmlfs.experiments.report._grid import rank_note, table_csv, table_markdown
from skmlfs.stats import win_tie_loss

GEN = "skmlfs.datasets:make_multilabel_discrete"
N_SPLITS = 5


def _frame(rng: np.random.Generator, n_ds: int = 4, n_m: int = 4) -> pd.DataFrame:
    rows = []
    for i in range(n_ds):
        for j in range(n_m):
            for split in range(N_SPLITS):
                rows.append({"dataset": f"d{i}", "method": f"m{j}", "learner": "L",
                             "split": split, "k": 2,
                             "hamming_loss": 0.1 + 0.05 * j + 0.01 * rng.random()})
    return pd.DataFrame(rows)


def _drop_splits(df: pd.DataFrame, ds: str, m: str, keep: set[int]) -> pd.DataFrame:
    gone = (df["dataset"] == ds) & (df["method"] == m) & ~df["split"].isin(keep)
    return df[~gone].reset_index(drop=True)


def _means(df: pd.DataFrame) -> pd.DataFrame:
    return df.groupby(["dataset", "method"])["hamming_loss"].mean().unstack("method")


@pytest.mark.parametrize("policy", ["drop", "last"])
@pytest.mark.parametrize("seed", range(4))
def test_a_partial_mean_is_shown_but_counts_as_no_value(policy, seed):
    rng = np.random.default_rng(seed)
    full = _frame(rng)
    # m0 is the best everywhere; on d1 it kept one split: still the lowest mean there
    df = _drop_splits(full, "d1", "m0", {2})
    (t,) = metric_tables(df, metrics=["hamming_loss"], missing_rank=policy)
    assert t.partial.to_numpy().sum() == 1 and bool(t.partial.at["d1", "m0"])
    assert t.split_count("d1", "m0") == "1/5"
    # the same ranks as a table where m0 has no value on d1 at all
    (ref,) = metric_tables(_drop_splits(full, "d1", "m0", set()), metrics=["hamming_loss"],
                           missing_rank=policy)
    pd.testing.assert_frame_equal(t.ranks, ref.ranks)
    pd.testing.assert_series_equal(t.avg_ranks, ref.avg_ranks)
    assert t.friedman.chi2 == pytest.approx(ref.friedman.chi2)
    # ... and straightforwardly: per data set, the rounded means of the compared methods
    vals = _means(df).round(3)
    vals.loc["d1", "m0"] = np.nan
    if policy == "drop":
        vals = vals.dropna()
        expect = np.array([rankdata(r) for r in vals.to_numpy()])
    else:
        vals = vals.fillna(np.inf)  # the missing method last
        expect = np.array([rankdata(r) for r in vals.to_numpy()])
    np.testing.assert_allclose(t.ranks.to_numpy(), expect)
    # shown with its count, not marked best although its mean is the lowest of d1
    assert t.mean.at["d1", "m0"] == pytest.approx(full.query(
        "dataset == 'd1' and method == 'm0' and split == 2")["hamming_loss"].iloc[0])
    assert not t.best.at["d1", "m0"] and t.best.at["d1", "m1"]
    row = next(r for r in table_markdown(t).splitlines() if r.startswith("| d1 |"))
    assert "(1/5)" in row and "**" in row.split("|")[3]
    note = rank_note(t)
    assert "covers n of the data set's N splits" in note and "d1 (m0 1/5)" in note


def test_complete_tables_are_unchanged():
    df = _frame(np.random.default_rng(9))
    (t,) = metric_tables(df, metrics=["hamming_loss"])
    assert not t.partial.to_numpy().any()
    assert rank_note(t) == "" and "(5/5)" not in table_markdown(t)


def test_the_csv_names_partial_means(tmp_path):
    df = _drop_splits(_frame(np.random.default_rng(3)), "d2", "m3", {0, 4})
    (t,) = metric_tables(df, metrics=["hamming_loss"])
    table_csv(t, tmp_path / "t.csv")
    out = pd.read_csv(tmp_path / "t.csv", keep_default_na=False).set_index("dataset")
    assert out.at["d2", "partial"] == "m3:2/5"
    assert (out.drop(index="d2")["partial"] == "").all()


def test_paired_tests_keep_every_split_of_the_other_methods():
    full = _frame(np.random.default_rng(5))
    df = _drop_splits(full, "d3", "m1", {0, 1, 2})
    df = _drop_splits(df, "d0", "m2", set())  # no value at all on d0
    (t,) = metric_tables(df, metrics=["hamming_loss"], missing_rank="last")
    w = win_tie_loss_table(t)
    methods = list(t.mean.columns)
    # every data set stays; the method without a full set of splits sits it out
    assert list(w.index) == ["d0", "d1", "d2", "d3", "Total"]
    assert w.at["d3", "m1"] == "–" and w.at["d0", "m2"] == "–"
    for ds, out in (("d3", "m1"), ("d0", "m2")):
        keep = [m for m in methods if m != out]
        block = full[(full["dataset"] == ds) & full["method"].isin(keep)].pivot(
            index="split", columns="method", values="hamming_loss")[keep]
        ref = win_tie_loss(block.to_numpy().T[:, None, :], False, names=keep,
                           dataset_names=[ds])
        for m, (a, b, c) in zip(keep, ref.totals, strict=True):
            assert w.at[ds, m] == f"{a}/{b}/{c}"
            assert a + b + c == len(keep) - 1
    # the Wilcoxon tests use the data sets where every method has a comparable value
    wil = wilcoxon_table(t, "m0")
    assert set(wil["N"]) == {2}


def _flaky_file() -> ExperimentSpec:
    small, wide = ({"name": name, "generator": GEN,
                    "params": {"n_samples": 60, "n_features": d, "random_state": seed}}
                   for name, d, seed in (("small", 6, 1), ("wide", 12, 2)))
    return ExperimentSpec.from_dict({
        "name": "partial", "seed": 1, "estimator_seed": "seed+split",
        "n_features_to_select": [2, 3], "metrics": ["hamming_loss", "ranking_loss"],
        "selectors": ["mi_rank", "random",
                      {"name": "flaky", "method": "flaky_selectors:Flaky"}],
        "protocol": {"kind": "holdout", "repeats": 3},
        "report": {"missing_rank": "last",
                   "section": [{"kind": "summary"}, {"kind": "stability"}]},
        "datasets": [small, wide],
    })


def test_a_run_with_a_method_failing_on_some_splits(tmp_path, monkeypatch):
    (tmp_path / "flaky_selectors.py").write_text(REFUSING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    db = tmp_path / "r.db"
    s = run_experiment(_flaky_file(), db, verbose=False, progress=False)
    assert s.n_failed_tasks == 1  # flaky on split 0 of "wide"
    write_report(db, tmp_path / "rep", figures=False)
    md = (tmp_path / "rep" / "README.md").read_text()
    assert "(2/3)" in md
    assert "wide (flaky 2/3)" in md
    assert ("a method without a value shares the last ranks there: wide (no flaky)") in md
    assert ("Stability and selection time are means over the data sets where the method "
            "has a value; none on: wide (flaky).") in md
    # the summary's stability of flaky is that of "small" alone (its two splits of "wide"
    # have a stability of their own, left out)
    stab = pd.read_csv(tmp_path / "rep" / "tables" / "stability.csv")
    flaky = stab[stab["method"] == "flaky"].groupby("dataset")["stability"].mean()
    assert set(flaky.index) == {"small", "wide"}
    assert round(flaky["small"], 3) != round(flaky.mean(), 3)  # the test can tell
    summary = md[md.index("| method |"):]
    row = next(r for r in summary.splitlines() if r.startswith("| flaky |")).split("|")
    head = [c.strip() for c in summary.splitlines()[0].split("|")]
    assert float(row[head.index("stability Φ̂")]) == pytest.approx(flaky["small"], abs=5e-4)
    # the stability section agrees with the summary: Φ̂ of flaky on "wide" is shown marked
    # and left out of its mean and ranks (before, the section averaged it in)
    sec = md[md.index("## Selection stability"):]
    sec = sec[:sec.index("\n\n## ")]  # up to the next section
    lines = [r for r in sec.splitlines() if r.startswith("| ")]
    cols = [c.strip() for c in lines[0].split("|")[2:-1]]  # "| dataset | mi_rank | ..."
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]]
            for r in lines[1:]}
    j = cols.index("flaky")
    assert rows["wide"][j] == f"{flaky['wide']:.3f} (2/3)"
    assert float(rows["**mean**"][j]) == pytest.approx(flaky["small"], abs=5e-4)
    per_ds = stab.groupby(["dataset", "method"])["stability"].mean().unstack("method")
    per_ds.loc["wide", "flaky"] = np.nan
    want = per_ds.rank(axis=1, ascending=False).mean(axis=0)  # straightforward ranks
    for m in cols:
        assert float(rows["**average rank**"][cols.index(m)]) == pytest.approx(want[m],
                                                                                abs=5e-4)
    assert "left out of the mean and the ranks" in sec


def test_a_partial_curve_is_labelled_with_its_splits(tmp_path, monkeypatch):
    import skmlfs.plots
    from skmlfs.experiments.report._grid import _figures_for

    rng = np.random.default_rng(5)
    full = pd.concat([_frame(rng).assign(k=k) for k in (2, 3)], ignore_index=True)
    df = _drop_splits(full, "d1", "m0", {2, 3})
    (t,) = metric_tables(df, metrics=["hamming_loss"])
    drawn = {}

    def capture(curves, *args, title, **kwargs):
        drawn[title] = curves.copy()

    monkeypatch.setattr(skmlfs.plots, "metric_curves", capture)
    monkeypatch.setattr(skmlfs.plots, "cd_diagram", lambda *a, **k: None)
    _figures_for(t, df, tmp_path, "hl", None, None)
    assert set(drawn) == {"d0", "d1", "d2", "d3"}
    assert set(drawn["d1"]["method"]) == {"m0 (2/5)", "m1", "m2", "m3"}
    assert set(drawn["d0"]["method"]) == {"m0", "m1", "m2", "m3"}
    point = drawn["d1"].query("method == 'm0 (2/5)' and x == 3")["mean"].iloc[0]
    assert point == pytest.approx(full.query(
        "dataset == 'd1' and method == 'm0' and k == 3 and split in (2, 3)")[
        "hamming_loss"].mean())
