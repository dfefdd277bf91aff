"""The ``mlfs`` command: demo, info, select, evaluate and its error handling."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skmlfs.cli import main
from skmlfs.datasets import MissingValuesWarning, load, make_multilabel_discrete
from skmlfs.experiments import holdout_splits
from skmlfs.selection import SCLS
from skmlfs.selection._base import discretize_features

TINY_ARFF = """\
@relation tiny
@attribute a numeric
@attribute b {x,y,z}
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
0.5,x,1,0
1.5,y,0,1
2.5,z,1,1
3.5,x,0,0
"""
TINY_XML = """\
<?xml version="1.0" encoding="utf-8"?>
<labels xmlns="http://mulan.sourceforge.net/labels">
<label name="l1"></label>
<label name="l2"></label>
</labels>
"""


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def tiny(tmp_path: Path, body: str = TINY_ARFF) -> Path:
    p = tmp_path / "tiny.arff"
    p.write_text(body, encoding="utf-8")
    (tmp_path / "tiny.xml").write_text(TINY_XML, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- demo, info


def test_no_command_prints_help(capsys):
    code, out, _ = run(capsys)
    assert code == 0 and "mlfs select" in out and "mlfs evaluate" in out


def _demo_rows(out):
    """The three result rows of the demo's table: label -> (HL, RL, accuracy)."""
    rows = {}
    for line in out.splitlines():
        for key in ("all ", "the ", "at random"):
            if line.startswith("  ") and key in line and line.rstrip().endswith(" ms"):
                values = line.split()[-5:-2]
                rows["random" if key == "at random" else key.strip()] = tuple(map(float, values))
    return rows


def test_demo_selects_what_scls_selects(capsys):
    code, out, _ = run(capsys, "demo", "--samples", 200, "--features", 20, "--labels", 4)
    assert code == 0
    # the same generated data, split and selector, computed here
    ds = make_multilabel_discrete(n_samples=200, n_features=20, n_labels=4, n_informative=4,
                                  n_redundant=2, random_state=0)
    ((train, _),) = holdout_splits(200, repeats=1, test_size=0.2, random_state=0)
    sel = SCLS().fit(ds.X[train], ds.Y[train])
    k = math.ceil(math.sqrt(160))
    assert sel.ranking_.size == k
    assert f"it keeps {k} of 20" in out
    assert " ".join(out.split()).count(", ".join(ds.feature_names[f] for f in sel.ranking_)) == 1
    rows = _demo_rows(out)
    assert set(rows) == {"all", "the", "random"}
    for values in rows.values():  # Hamming loss, ranking loss, accuracy in [0, 1]
        assert all(0.0 <= v <= 1.0 for v in values)


def test_demo_shows_a_clear_gain(capsys, tmp_path):
    """The default demo: far fewer features, better than all of them and than random."""
    from skmlfs.learners import MLNB
    from skmlfs.metrics import hamming_loss

    png = tmp_path / "curve.png"
    code, out, _ = run(capsys, "demo", "--plot", png)
    assert code == 0
    rows = _demo_rows(out)
    all_hl, scls_hl, random_hl = rows["all"][0], rows["the"][0], rows["random"][0]
    # recompute the SCLS and all-features rows here (same data, split, selector, learner)
    ds = make_multilabel_discrete(n_samples=600, n_features=300, n_labels=6, n_informative=16,
                                  n_redundant=8, random_state=0)
    ((tr, te),) = holdout_splits(600, repeats=1, test_size=0.2, random_state=0)
    sel = SCLS().fit(ds.X[tr], ds.Y[tr])
    k = sel.ranking_.size
    assert k == math.ceil(math.sqrt(480)) and f"keeps {k} of 300" in out
    for cols, shown in [(slice(None), all_hl), (sel.ranking_, scls_hl)]:
        pred = MLNB().fit(ds.X[tr][:, cols], ds.Y[tr]).predict(ds.X[te][:, cols])
        assert round(hamming_loss(ds.Y[te], pred), 4) == shown
    # the claims: < 10 % of the features, at least as good as all, clearly better than random
    assert k < 0.1 * 300
    assert scls_hl <= all_hl and rows["the"][1] <= rows["all"][1]
    assert scls_hl < 0.8 * random_hl and rows["the"][2] > rows["random"][2]
    # SCLS finds the features that drive the labels and not their redundant copies
    roles = [ds.feature_names[f].split("_")[0] for f in sel.ranking_]
    assert roles.count("inf") == sum(n.startswith("inf_") for n in ds.feature_names)
    assert roles.count("red") <= 2
    assert f"It found {roles.count('inf')} of the {roles.count('inf')} informative" in out
    assert "fewer label errors than with all of them" in out and "faster" in out
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_info_tiny_file(capsys, tmp_path):
    code, out, _ = run(capsys, "info", tiny(tmp_path))
    assert code == 0
    header, rule, row = out.strip().splitlines()
    assert header.split() == ["Dataset", "|W|", "|F|", "Type", "|L|", "Card.", "Den.",
                              "Distinct"]
    # 4 patterns, 2 features (numeric + nominal), 2 labels; label sets 10, 01, 11, 00
    assert row.split() == ["tiny", "4", "2", "mixed", "2", "1.000", "0.500", "4"]


def test_info_real_files(capsys, dataset_path):
    code, out, _ = run(capsys, "info", dataset_path("mulan/emotions/emotions.arff"),
                       dataset_path("plcfs/genbase.mat"))
    assert code == 0
    rows = {line.split()[0]: line.split()[1:] for line in out.strip().splitlines()[2:]}
    # Table 1 of the SCLS paper: emotions 593 x 72 numeric, 6 labels, card. 1.869 (1.868
    # here: 1108 / 593 = 1.8685), 27 distinct label sets
    assert rows["emotions"] == ["593", "72", "numeric", "6", "1.868", "0.311", "27"]
    assert rows["genbase"][:4] == ["662", "1185", "nominal", "27"]


# --------------------------------------------------------------------------- select


def _read_ranking(path: Path, n_features: int, k: int) -> pd.DataFrame:
    table = pd.read_csv(path)
    assert list(table.columns) == ["rank", "feature_index", "feature", "score"]
    assert table["rank"].tolist() == list(range(1, k + 1))
    idx = table["feature_index"].to_numpy()
    assert idx.size == k and np.unique(idx).size == k
    assert idx.min() >= 0 and idx.max() < n_features
    return table


def test_select_writes_the_scls_ranking(capsys, tmp_path, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    out_csv = tmp_path / "ranking.csv"
    code, out, err = run(capsys, "select", path, "--method", "scls", "-k", 20, "--out", out_csv)
    assert code == 0
    assert "SCLS selected 20 of 72 features of emotions" in err
    ds = load(path)
    table = _read_ranking(out_csv, 72, 20)
    ref = SCLS(n_features_to_select=20).fit(ds.X, ds.Y)  # numeric: LAIM ("auto")
    np.testing.assert_array_equal(table["feature_index"], ref.ranking_)
    np.testing.assert_allclose(table["score"], ref.scores_, rtol=0, atol=1e-12)
    assert table["feature"].tolist() == [ds.feature_names[i] for i in ref.ranking_]
    # the printed table is the same ranking
    printed = [line.split()[1] for line in out.strip().splitlines()[1:]]
    assert printed == [str(i) for i in ref.ranking_]


def test_select_keeps_nominal_columns(capsys, tmp_path, dataset_path):
    """birds: 258 numeric features, hasSegments {0,1} and the 12-valued nominal location."""
    path = dataset_path("mulan/birds/birds-train.arff")
    out_csv = tmp_path / "birds.csv"
    code, _, _ = run(capsys, "select", path, "-k", 20, "--out", out_csv)
    assert code == 0
    ds = load(path)
    nominal = np.array([t == "nominal" for t in ds.feature_types])
    assert np.flatnonzero(nominal).tolist() == [258, 259] and len(ds.categories[259]) == 12
    table = _read_ranking(out_csv, ds.X.shape[1], 20)
    Xd = discretize_features("auto", ds.X, ds.Y, categorical_features=nominal)
    np.testing.assert_array_equal(Xd[:, 259], ds.X[:, 259])  # the 12 codes, not LAIM bins
    ref = SCLS(n_features_to_select=20, discretizer=None).fit(Xd, ds.Y)
    np.testing.assert_array_equal(table["feature_index"], ref.ranking_)
    assert table["feature"].iloc[0] == "location"


# --------------------------------------------------------------------------- evaluate


def test_evaluate_prints_each_metric(capsys, tmp_path, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    out_csv = tmp_path / "results.csv"
    code, out, _ = run(capsys, "evaluate", path, "--methods", "scls,ami", "--repeats", 2,
                       "--quiet", "--out", out_csv)
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == ("emotions: 593 patterns, 72 features, 6 labels; 2 holdout splits; "
                        "learner mlnb")
    metrics = ["hamming_loss", "ranking_loss", "normalized_coverage"]
    assert lines[1].split() == metrics
    assert lines[2].split() == ["mean", "std"] * 3
    results = pd.read_csv(out_csv)
    assert len(results) == 2 * 2 and set(results["k"]) == {25}  # ceil(sqrt(593))
    rows = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in lines[4:]}
    assert list(rows) == ["scls", "ami"]
    for method, values in rows.items():
        per_split = results[results["method"] == method]
        expected = [f(per_split[m]) for m in metrics for f in (np.mean, lambda s: s.std())]
        np.testing.assert_allclose(values, expected, rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------------- errors


def test_malformed_arff_exits_2_naming_file_and_line(capsys, tmp_path):
    bad = TINY_ARFF.replace("1.5,y,0,1", "1.5,y,0")  # line 8: one value short
    path = tiny(tmp_path, bad)
    for command in ("select", "evaluate", "info"):
        code, out, err = run(capsys, command, path)
        assert code == 2 and out == ""
        assert err.startswith(f"mlfs {command}: error: {path}, line 8:"), err
        assert "\n" not in err.strip()  # one line, no traceback


def test_missing_file_exits_2(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("MLFS_DATASETS", raising=False)
    code, _, err = run(capsys, "select", tmp_path / "nope.arff")
    assert code == 2 and "nope.arff" in err and "is not a file" in err


def test_missing_values_stop_select_and_evaluate_with_a_clear_error(capsys, tmp_path):
    # '?' on line 8 (numeric) and line 9 (nominal)
    body = TINY_ARFF.replace("1.5,y,0,1", "?,y,0,1").replace("2.5,z,1,1", "2.5,?,1,1")
    path = tiny(tmp_path, body)
    for command in ("select", "evaluate"):
        with pytest.warns(MissingValuesWarning):
            code, out, err = run(capsys, command, path)
        assert code == 2 and out == ""
        assert err.strip() == (
            f"mlfs {command}: error: {path}, line 8: 2 missing feature value(s) ('?' or NaN) "
            f"in tiny; mlfs {command} needs complete data: impute or drop the rows or columns "
            "with missing values first."
        )
        assert "Input X contains NaN" not in err
    # info still describes the file, with its missing values
    with pytest.warns(MissingValuesWarning):
        code, out, _ = run(capsys, "info", path)
    assert code == 0 and out.splitlines()[0].split()[-1] == "Missing"
    assert out.splitlines()[2].split()[-1] == "2"


def test_select_k_above_the_number_of_features_warns_and_ranks_all(capsys, tmp_path):
    out_csv = tmp_path / "r.csv"
    with pytest.warns(UserWarning, match=r"n_features_to_select=5 is larger than the number "
                      r"of features \(2\)"):
        code, _, err = run(capsys, "select", tiny(tmp_path), "-k", 5, "--out", out_csv)
    assert code == 0 and "selected 2 of 2 features" in err
    table = _read_ranking(out_csv, 2, 2)
    assert sorted(table["feature"]) == ["a", "b"]
