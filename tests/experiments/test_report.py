"""Report tables: Wilcoxon signed-rank against the control and paired t-test win/tie/loss."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sst

from skmlfs.experiments import metric_tables, wilcoxon_table, win_tie_loss_table, write_report


def _frame(values: dict[str, np.ndarray], metric: str = "hamming_loss") -> pd.DataFrame:
    """Cells of ``values[method][dataset, split]`` in the runner's long format."""
    rows = []
    for method, arr in values.items():
        for d in range(arr.shape[0]):
            for s in range(arr.shape[1]):
                if np.isnan(arr[d, s]):
                    continue
                rows.append({
                    "dataset": f"d{d}", "split": s, "method": method, "k": 5,
                    "learner": "mlnb", "selection_time": 0.01, "fit_time": 0.01,
                    metric: arr[d, s],
                })
    return pd.DataFrame(rows)


def test_hand_worked_control_better_everywhere():
    # 6 datasets, 4 splits; A's Hamming loss is 0.1 below B's on every split, with a
    # growing margin per dataset so the dataset differences have distinct ranks 1..6.
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.3, size=(6, 4))
    margin = 0.01 * np.arange(1, 7)[:, None]
    t = metric_tables(_frame({"A": base, "B": base + margin}), decimals=3)[0]
    w = wilcoxon_table(t, "A")
    row = w.loc["B"]
    # B is better on no dataset: R+ = 0, R- = 1 + ... + 6 = 21; exact two-sided p = 2 / 2**6.
    assert (row["R+"], row["R-"], row["total"], row["T"]) == (0, 21, 21, 0)
    assert row["p"] == pytest.approx(2 / 64)
    assert row["verdict"] == "win"  # T = 0 <= T_crit(6, 0.05) = 0
    wtl = win_tie_loss_table(t)
    # the differences within a dataset are constant up to rounding, so |t| is huge and
    # p ~ 0: A beats B significantly on each of the 6 datasets.
    assert wtl.loc["d0", "A"] == "1/0/0" and wtl.loc["d0", "B"] == "0/0/1"
    assert wtl.loc["Total", "A"] == "6/0/0" and wtl.loc["Total", "B"] == "0/0/6"


def test_win_tie_loss_matches_scipy_paired_ttest():
    rng = np.random.default_rng(1)
    vals = {m: rng.uniform(0.0, 1.0, size=(4, 10)) + shift
            for m, shift in (("A", 0.0), ("B", 0.05), ("C", 0.4))}
    t = metric_tables(_frame(vals, "multilabel_accuracy"))[0]
    wtl = win_tie_loss_table(t, alpha=0.05)
    names = list(vals)
    for d in range(4):
        for i, a in enumerate(names):
            win = tie = loss = 0
            for j, b in enumerate(names):
                if i == j:
                    continue
                res = sst.ttest_rel(vals[a][d], vals[b][d])
                if res.pvalue > 0.05:
                    tie += 1
                elif res.statistic > 0:  # accuracy: higher is better
                    win += 1
                else:
                    loss += 1
            assert wtl.loc[f"d{d}", a] == f"{win}/{tie}/{loss}"


def test_wilcoxon_matches_scipy_without_ties():
    rng = np.random.default_rng(2)
    a = rng.uniform(0.1, 0.2, size=(8, 3))
    b = a + rng.normal(0.0, 0.05, size=(8, 1))
    t = metric_tables(_frame({"A": a, "B": b}), decimals=6)[0]
    row = wilcoxon_table(t, "A").loc["B"]
    da, db = t.mean["A"].round(6).to_numpy(), t.mean["B"].round(6).to_numpy()
    ref = sst.wilcoxon(da, db, method="exact")
    assert row["p"] == pytest.approx(ref.pvalue)
    assert min(row["R+"], row["R-"]) == pytest.approx(ref.statistic)


def test_incomplete_data_and_unknown_control():
    a = np.full((3, 2), 0.2)
    b = a.copy()
    b[1] = np.nan  # B has no result on d1
    t = metric_tables(_frame({"A": a, "B": b}))[0]
    with pytest.raises(ValueError, match="control 'Z'"):
        wilcoxon_table(t, "Z")
    assert wilcoxon_table(t, "A").loc["B", "N"] == 2  # only complete datasets are ranked
    wtl = win_tie_loss_table(t)
    assert "d1" not in wtl.index and list(wtl.index) == ["d0", "d2", "Total"]
    assert wtl.loc["Total", "A"] == "0/2/0"  # equal values: never significant


def test_report_contains_both_sections(tmp_path):
    rng = np.random.default_rng(3)
    base = rng.uniform(0.1, 0.3, size=(5, 4))
    vals = {"A": base, "B": base + 0.02, "C": base + rng.normal(0, 0.02, size=(5, 4))}
    written = write_report(_frame(vals), tmp_path, control="A", figures=False)
    readme = (tmp_path / "README.md").read_text()
    assert "Wilcoxon signed-rank test, A against each method" in readme
    assert "| B | 0/15 | 15 |" in readme  # B worse on all 5 datasets
    assert "Paired t-tests over the splits" in readme and "| **Total** |" in readme
    names = {p.name for p in written}
    assert {"hamming_loss_wilcoxon.csv", "hamming_loss_wtl.csv"} <= names
    csv = pd.read_csv(tmp_path / "tables" / "hamming_loss_wtl.csv", index_col="dataset")
    assert csv.loc["Total", "A"].count("/") == 2


def _budgets(readme: str, dataset: str) -> str:
    """The 'budgets k' cell of ``dataset`` in the report's Setup table."""
    row = next(line for line in readme.splitlines() if line.startswith(f"| {dataset} |"))
    return row.strip("| ").split(" | ")[-1]


def test_report_defaults_to_the_latest_version_of_the_experiment(tmp_path):
    from skmlfs.cli import main
    from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment

    def spec(n_features):
        return ExperimentSpec.from_dict({
            "name": "v", "seed": 0, "n_features_to_select": n_features,
            "selectors": ["scls", "ami"],
            "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 2},
            "datasets": [{"name": "a", "generator": "skmlfs.datasets:make_multilabel_discrete",
                          "params": {"n_samples": 80, "n_features": 10, "random_state": 0}}],
        })

    db = tmp_path / "r.db"
    run_experiment(spec([2, 4]), db, verbose=False, progress=False)
    latest = run_experiment(spec([3]), db, verbose=False, progress=False)  # edited file
    with ResultStore(db, readonly=True) as st:
        cells = st.to_frame()
    assert sorted(cells.k.unique()) == [2, 3, 4]  # both versions are kept in the store
    write_report(db, tmp_path / "rep", figures=False, formats=["csv"])
    assert _budgets((tmp_path / "rep" / "README.md").read_text(), "a") == "3"
    tab = pd.read_csv(tmp_path / "rep" / "tables" / "hamming_loss.csv", index_col="dataset")
    k3 = cells[cells.cell_id.isin(latest.cell_ids)]
    assert len(k3) == 4 and (k3.k == 3).all()
    for m in ("scls", "ami"):
        assert tab.loc["a", f"{m}_mean"] == pytest.approx(
            k3[k3.method == m].hamming_loss.mean(), abs=1e-6)
    # the old behaviour on request: every cell, budgets of both versions averaged
    assert main(["report", str(db), "--out", str(tmp_path / "all"), "--format", "csv",
                 "--no-figures", "--all-cells"]) == 0
    assert _budgets((tmp_path / "all" / "README.md").read_text(), "a") == "2, 3, 4"
    tab = pd.read_csv(tmp_path / "all" / "tables" / "hamming_loss.csv", index_col="dataset")
    per_split = cells[cells.method == "scls"].groupby("split").hamming_loss.mean()
    assert tab.loc["a", "scls_mean"] == pytest.approx(per_split.mean(), abs=1e-6)


def test_budgets_a_selector_cannot_fill_are_left_out(tmp_path, monkeypatch):
    import skmlfs.plots
    from skmlfs.datasets import make_multilabel_discrete
    from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment

    # 6 usable features and 3 constant ones: the selectors rank at most 6, so budget 8
    # evaluates the same features as a smaller budget would
    ds = make_multilabel_discrete(n_samples=80, n_features=6, n_labels=3, random_state=0)
    X = np.hstack([np.asarray(ds.X, dtype=int), np.zeros((80, 3), dtype=int)])
    Y = np.asarray(ds.Y, dtype=int)
    arff = tmp_path / "toy.arff"
    arff.write_text("\n".join(
        ["@relation 'toy: -C 3'"] + [f"@attribute y{j} {{0,1}}" for j in range(3)]
        + [f"@attribute f{j} numeric" for j in range(9)] + ["@data"]
        + [",".join(map(str, [*Y[i], *X[i]])) for i in range(80)]
    ) + "\n")
    spec = ExperimentSpec.from_dict({
        "name": "short", "seed": 0, "n_features_to_select": [2, 4, 8], "selectors": ["scls", "ami"],
        "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 3},
        "datasets": [{"name": "toy", "path": str(arff)}],
    })
    db = tmp_path / "r.db"
    s = run_experiment(spec, db, verbose=False, progress=False)
    assert any("zero entropy" in w for w in s.warnings)
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    short = df.n_selected < df.k
    assert short[df.k == 8].all() and not short[df.k < 8].any()

    # averages over budgets: per split the mean over k = 2 and 4 only
    t = metric_tables(df)[0]
    ok = df[df.k < 8]
    for m in ("scls", "ami"):
        expected = ok[ok.method == m].groupby("split").hamming_loss.mean().mean()
        assert t.mean.loc["toy", m] == pytest.approx(expected)
        assert t.n.loc["toy", m] == 3
    # an explicit budget is still reported as it is
    t8 = metric_tables(df, k=8)[0]
    assert t8.mean.loc["toy", "scls"] == pytest.approx(
        df[(df.k == 8) & (df.method == "scls")].hamming_loss.mean())

    # curves: only the points the selectors could fill; the report says what was left out
    drawn = []

    def fake_curves(curves, xlabel, ylabel, path, **kw):
        drawn.append((curves.copy(), xlabel))

    monkeypatch.setattr(skmlfs.plots, "metric_curves", fake_curves)
    write_report(db, tmp_path / "rep", formats=["md"])
    (curves, xlabel), = drawn
    assert xlabel == "number of selected features"
    for m in ("scls", "ami"):
        c = curves[curves.method == m]
        assert c.x.tolist() == [2, 4]
        mean4 = ok[(ok.method == m) & (ok.k == 4)].hamming_loss.mean()
        assert c[c.x == 4]["mean"].iloc[0] == pytest.approx(mean4)
    readme = (tmp_path / "rep" / "README.md").read_text()
    assert ("2 budget(s) left out of the curves and of the averages over budgets, because "
            "the selector returned fewer than k features on some split (the point repeats "
            "a smaller budget): toy: scls 1, ami 1.") in readme
