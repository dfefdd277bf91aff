"""The ``mlfs`` command: demo, info, select, evaluate and its error handling."""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skmlfs.cli import main
from skmlfs.datasets import MissingValuesWarning, load, make_multilabel_discrete
from skmlfs.model_selection import holdout_splits
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
    assert sel.selection_order_.size == k
    assert f"it keeps {k} of 20" in out
    chosen = ", ".join(ds.feature_names[f] for f in sel.selection_order_)
    assert " ".join(out.split()).count(chosen) == 1
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
    k = sel.selection_order_.size
    assert k == math.ceil(math.sqrt(480)) and f"keeps {k} of 300" in out
    for cols, shown in [(slice(None), all_hl), (sel.selection_order_, scls_hl)]:
        pred = MLNB().fit(ds.X[tr][:, cols], ds.Y[tr]).predict(ds.X[te][:, cols])
        assert round(hamming_loss(ds.Y[te], pred), 4) == shown
    # the claims: < 10 % of the features, at least as good as all, clearly better than random
    assert k < 0.1 * 300
    assert scls_hl <= all_hl and rows["the"][1] <= rows["all"][1]
    assert scls_hl < 0.8 * random_hl and rows["the"][2] > rows["random"][2]
    # SCLS finds the features that drive the labels and not their redundant copies
    roles = [ds.feature_names[f].split("_")[0] for f in sel.selection_order_]
    assert roles.count("inf") == sum(n.startswith("inf_") for n in ds.feature_names)
    assert roles.count("red") <= 2
    assert f"It found {roles.count('inf')} of the {roles.count('inf')} informative" in out
    assert "fewer label errors than with all of them" in out and "faster" in out
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


def test_info_tiny_file(capsys, tmp_path):
    code, out, _ = run(capsys, "info", tiny(tmp_path))
    assert code == 0
    header, rule, row = out.strip().splitlines()[:3]
    assert header.split() == ["Dataset", "Patterns", "Features", "Type", "Labels",
                              "Cardinality", "Density", "Label", "sets"]
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
    # greedy searches: the score column is the criterion at the step of each pick (#24)
    assert list(table.columns) == ["order", "rank", "feature_index", "feature", "selected",
                                   "criterion_at_pick"]
    table = table.rename(columns={"criterion_at_pick": "score"})
    assert table["selected"].all()  # these methods rank exactly the k they select
    assert table["order"].tolist() == list(range(1, k + 1))
    assert (table["rank"] == 1).all()  # scikit-learn's ranking_: 1 for the selected
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
    np.testing.assert_array_equal(table["feature_index"], ref.selection_order_)
    # the criterion of each step (scores_ is indexed by feature)
    np.testing.assert_allclose(table["score"], ref.step_scores_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(table["score"], ref.scores_[ref.selection_order_], rtol=0,
                               atol=1e-12)
    assert table["feature"].tolist() == [ds.feature_names[i] for i in ref.selection_order_]
    # the printed table is the same ranking
    printed = [line.split()[2] for line in out.strip().splitlines()[1:]]
    assert printed == [str(i) for i in ref.selection_order_]


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
    np.testing.assert_array_equal(table["feature_index"], ref.selection_order_)
    assert table["feature"].iloc[0] == "location"


def test_nominal_columns_and_budget_reach_the_selector(dataset_path):
    """-k reaches the selector as typed ("10%") and the nominal columns as its
    categorical_features; its own fit discretizes ("auto") and gives the ranking of the
    former route (the CLI discretized with the nominal columns passed through, then the
    selector used the codes as they were)."""
    from skmlfs.cli._run.common import make_selector

    ds = load(dataset_path("mulan/birds/birds-train.arff"))
    nominal = np.array([t == "nominal" for t in ds.feature_types])
    sel = make_selector("scls", "10%", ds, 0)
    params = sel.get_params()
    assert params["n_features_to_select"] == "10%"
    assert params["categorical_features"] == [258, 259]
    assert params["discretizer"] == "auto"
    sel.fit(ds.X, ds.Y)
    assert sel.n_features_to_select_ == int(np.ceil(0.1 * ds.X.shape[1]))
    Xd = discretize_features("auto", ds.X, ds.Y, categorical_features=nominal)
    ref = SCLS(n_features_to_select=sel.n_features_to_select_, discretizer=None).fit(Xd, ds.Y)
    np.testing.assert_array_equal(sel.selection_order_, ref.selection_order_)
    np.testing.assert_array_equal(sel.scores_, ref.scores_)


# --------------------------------------------------------------------------- evaluate


def test_evaluate_uses_the_stored_splits_of_a_mat_file(capsys, tmp_path, dataset_path):
    from skmlfs.datasets import load_name
    from skmlfs.experiments import evaluate
    from skmlfs.model_selection import mat_splits

    path = dataset_path("plcfs/genbase.mat")
    out_csv = tmp_path / "r.csv"
    code, out, _ = run(capsys, "evaluate", path, "--methods", "ami", "--repeats", 2,
                       "--label-copies", "keep", "--quiet", "--out", out_csv)
    assert code == 0
    assert "; 2 mat splits;" in out.splitlines()[0]
    ds = load_name("plcfs/genbase", root=path.parents[1], label_copies="keep")
    ref = evaluate(ds, ["ami"], "mlnb", mat_splits(ds, 2), n_features_to_select="ceil_sqrt",
                   metrics=["hamming_loss"], random_state=0, progress=False)
    got = pd.read_csv(out_csv)
    np.testing.assert_array_equal(got["hamming_loss"], ref["hamming_loss"])
    code, out, _ = run(capsys, "evaluate", path, "--methods", "ami", "--protocol", "kfold",
                       "--folds", 3, "--label-copies", "keep", "--quiet")
    assert code == 0 and "; 3 kfold splits;" in out.splitlines()[0]


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


# --------------------------------------------------------------------------- #13: select
# tells the truth and is reproducible


@pytest.mark.parametrize("method, cls_name", [("relieff_ml", "ReliefFML"),
                                              ("rlefs", "RLEFS"),
                                              ("ppt_relieff", "PPTReliefF")])
def test_select_marks_exactly_the_k_selected(capsys, tmp_path, dataset_path, method, cls_name):
    """These methods rank all 72 features of emotions and select 10: the command said
    "selected 72 of 72" and wrote 72 ranks as if all were selected."""
    import skmlfs.selection as selection

    path = dataset_path("mulan/emotions/emotions.arff")
    out_csv = tmp_path / "r.csv"
    code, _, err = run(capsys, "select", path, "--method", method, "-k", 10, "-o", out_csv)
    assert code == 0
    assert f"{method.upper()} selected 10 of 72 features of emotions" in err
    ds = load(path)
    ref = getattr(selection, cls_name)(n_features_to_select=10, random_state=0).fit(ds.X, ds.Y)
    support = ref.get_support()
    table = pd.read_csv(out_csv)
    np.testing.assert_array_equal(table["feature_index"], ref.selection_order_)
    np.testing.assert_array_equal(table["selected"], support[ref.selection_order_])
    assert table["selected"].sum() == support.sum() == 10
    # the selected rows are the head of the ranking
    assert table["selected"].tolist() == [True] * 10 + [False] * (len(table) - 10)
    # scikit-learn's ranking_ of each row: 1 for the selected, then 2, 3, ...
    np.testing.assert_array_equal(table["rank"], ref.ranking_[ref.selection_order_])
    assert table["rank"].tolist() == [1] * 10 + list(range(2, len(table) - 8))


def test_select_memetic_default_budget_is_sqrt(capsys, tmp_path, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    out_csv = tmp_path / "m.csv"
    code, _, err = run(capsys, "select", path, "--method", "memetic", "-o", out_csv)
    assert code == 0, err
    k = math.ceil(math.sqrt(593))  # 25, as the help says
    assert f"MEMETIC selected {k} of 72 features" in err
    assert pd.read_csv(out_csv)["selected"].sum() == k


def test_memetic_n_features_none_is_sqrt_in_python():
    from skmlfs.learners import MLNB
    from skmlfs.selection import MemeticSelector

    ds = make_multilabel_discrete(n_samples=49, n_features=20, n_labels=3, random_state=0)
    sel = MemeticSelector(MLNB(), n_features_to_select=None, population_size=4, max_evaluations=8,
                          random_state=0).fit(ds.X, ds.Y)
    assert sel.get_support().sum() == 7  # ceil(sqrt(49))


def test_select_seed_makes_stochastic_methods_reproducible(capsys, tmp_path, dataset_path):
    from skmlfs.selection import RLEFS

    path = dataset_path("mulan/emotions/emotions.arff")
    tables = {}
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        out = tmp_path / f"{name}.csv"
        code, _, _ = run(capsys, "select", path, "--method", "rlefs", "-k", 10,
                         "--seed", seed, "-o", out)
        assert code == 0
        tables[name] = pd.read_csv(out)
    pd.testing.assert_frame_equal(tables["a"], tables["b"])
    ds = load(path)
    for name, seed in (("a", 3), ("c", 4)):
        ref = RLEFS(n_features_to_select=10, random_state=seed).fit(ds.X, ds.Y)
        np.testing.assert_array_equal(tables[name]["feature_index"], ref.selection_order_)


def test_evaluate_seed_seeds_stochastic_methods(capsys, tmp_path, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    results = []
    for i in range(2):
        out = tmp_path / f"e{i}.csv"
        code, _, _ = run(capsys, "evaluate", path, "--methods", "relieff-ml", "--repeats", 1,
                         "-k", 5, "--seed", 7, "--quiet", "--out", out)
        assert code == 0
        results.append(pd.read_csv(out))
    pd.testing.assert_frame_equal(results[0].drop(columns=_TIMES), results[1].drop(columns=_TIMES))


_TIMES = ["selection_time", "fit_time", "predict_time"]


def test_benchmark_seed_overrides_the_experiment_seed(capsys, tmp_path):
    data = tiny(tmp_path)
    exp = tmp_path / "exp.toml"
    exp.write_text(
        f'name = "seeded"\nseed = 1\nn_features_to_select = 1\nselectors = ["scls"]\n'
        f'[[datasets]]\nname = "tiny"\npath = "{data.as_posix()}"\n'
        '[protocol]\nkind = "holdout"\nrepeats = 2\ntest_size = 0.5\n',
        encoding="utf-8",
    )
    db = tmp_path / "runs.db"
    export = tmp_path / "cells.csv"
    code, _, err = run(capsys, "benchmark", exp, "--db", db, "--seed", 5, "--no-report",
                       "--quiet", "--export", export)
    assert code == 0, err
    cells = pd.read_csv(export)
    assert len(cells) == 2 and set(cells["seed"]) == {5}


@pytest.mark.parametrize("ext", [".csv", ".tsv", ".json", ".parquet"])
def test_select_writes_the_format_its_extension_names(capsys, tmp_path, ext):
    out = tmp_path / f"r{ext}"
    code, _, _ = run(capsys, "select", tiny(tmp_path), "-k", 1, "-o", out)
    assert code == 0
    read = {".csv": pd.read_csv, ".tsv": lambda p: pd.read_csv(p, sep="\t"),
            ".json": pd.read_json, ".parquet": pd.read_parquet}[ext]
    table = read(out)
    assert list(table.columns) == ["order", "rank", "feature_index", "feature", "selected",
                                   "criterion_at_pick"]
    assert len(table) == 1 and table["selected"].tolist() == [True]
    if ext == ".json":
        import json

        assert json.loads(out.read_text())[0]["feature"] == table["feature"][0]


def test_evaluate_writes_json(capsys, tmp_path):
    out = tmp_path / "e.json"
    with pytest.warns(UserWarning, match="no positive example"):  # 2 training patterns
        code, _, _ = run(capsys, "evaluate", tiny(tmp_path), "--methods", "scls",
                         "--repeats", 1, "--test-size", 0.5, "-k", 1, "--quiet", "--out", out)
    assert code == 0
    rows = pd.read_json(out)
    assert len(rows) == 1 and rows["method"][0] == "scls"


@pytest.mark.parametrize("command", ["select", "evaluate"])
def test_unknown_output_extension_is_refused_before_the_work(capsys, tmp_path, command):
    out = tmp_path / "r.xlsx"
    code, stdout, err = run(capsys, command, tmp_path / "not-even-read.arff", "--out", out)
    assert code == 2 and stdout == "" and not out.exists()
    assert "unknown extension '.xlsx'" in err and ".csv, .tsv, .json or .parquet" in err


def test_parquet_without_pyarrow_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # find_spec: not importable
    out = tmp_path / "r.parquet"
    code, _, err = run(capsys, "select", tiny(tmp_path), "-k", 1, "-o", out)
    assert code == 2 and not out.exists()
    assert "Parquet needs pyarrow" in err


# --------------------------------------------------------------------------- #13: one
# set of names

# The README's spellings (Selectors / Learners bullets and examples) -> the class.
README_NAMES = {
    "selector": {
        "SCLS": "SCLS", "AMI": "AMI", "MDMR": "MDMR", "GICS": "GICS", "MLCFS": "MLCFS",
        "PPT+MI": "PPTMI", "ppt-mi": "PPTMI", "PPT+χ²": "PPTCHI",
        "PPT+ReliefF": "PPTReliefF", "LRFS": "LRFS", "ReliefF-ML": "ReliefFML",
        "relieff-ml": "ReliefFML", "RLEFS": "RLEFS", "MIFS": "MIFS", "RALM-FS": "RALMFS",
        "MLFS": "MLFS", "MLMIM": "MLMIM", "MLJMI": "MLJMI", "MLMRMR": "MLMRMR",
        "memetic": "MemeticSelector", "GA": "GeneticSelector", "LLSF": "LLSF",
    },
    "learner": {
        "MLNB": "MLNB", "ML-kNN": "MLkNN", "DML-kNN": "DMLkNN", "MLC-WkNN": "MLCWkNN",
        "Binary Relevance": "BinaryRelevance", "CC": "ClassifierChain",
        "BCC": "BayesianClassifierChain", "kCC": "KDependentChain",
        "PCC": "ProbabilisticClassifierChain", "oCC": "OCC", "LLSF": "LLSFClassifier",
        "MDDM": "MDDMClassifier",
    },
}


@pytest.mark.parametrize("kind", ["selector", "learner"])
def test_every_readme_name_resolves(kind):
    from skmlfs.experiments import resolve

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for spelling, cls_name in README_NAMES[kind].items():
        assert spelling in readme, spelling  # the list above is the README's
        for variant in (spelling, spelling.lower(), spelling.upper(),
                        spelling.replace("-", "_"), spelling.replace(" ", "-")):
            assert resolve(kind, variant).__name__ == cls_name, variant


def test_every_registry_entry_resolves_and_is_described():
    from sklearn.base import BaseEstimator

    from skmlfs.experiments import resolve
    from skmlfs.experiments._registry import ABOUT, ALIASES, normalize_name
    from skmlfs.experiments._registry import REGISTRIES as _KINDS

    for kind, registry in _KINDS.items():
        assert set(ABOUT[kind]) == set(registry), kind  # one description per entry
        normalized = [normalize_name(n) for n in registry]
        assert len(set(normalized)) == len(normalized)  # no two names collide
        assert not set(ALIASES[kind]) & set(normalized)
        assert set(ALIASES[kind].values()) <= set(registry)
        for name in registry:
            cls = resolve(kind, name)
            assert isinstance(cls, type) and issubclass(cls, BaseEstimator), name
            description, paper = ABOUT[kind][name]
            assert description and paper and "\n" not in description + paper


def test_unknown_name_suggests_the_closest(capsys, tmp_path):
    code, _, err = run(capsys, "select", tiny(tmp_path), "--method", "releiff-ml")
    assert code == 2 and "unknown selector 'releiff-ml' (did you mean 'relieff_ml'?)" in err


def test_methods_lists_every_method_with_its_paper(capsys):
    from skmlfs.experiments._registry import ABOUT
    from skmlfs.experiments._registry import REGISTRIES as _KINDS

    code, out, _ = run(capsys, "methods")
    assert code == 0
    lines = out.splitlines()
    for kind, registry in _KINDS.items():
        for name in registry:
            description, paper = ABOUT[kind][name]
            row = [ln for ln in lines if ln.split() and ln.split()[0] == name]
            assert any(description in ln and ln.rstrip().endswith(paper) for ln in row), name
    # the stochastic ones are marked, by their random_state parameter
    from skmlfs.experiments import resolve

    for kind, registry in _KINDS.items():
        for name in registry:
            seeded = "random_state" in inspect.signature(resolve(kind, name)).parameters
            row = next(ln for ln in lines if ln.split() and ln.split()[0] == name
                       and ABOUT[kind][name][0] in ln)
            assert (row.split()[1] == "*") == seeded, name
    code, md, _ = run(capsys, "methods", "learners", "--markdown")
    assert code == 0 and "| `mlknn` | `MLkNN` |" in md and "scls" not in md


def test_readme_deterministic_methods_have_no_seed():
    from skmlfs.experiments import resolve

    for kind, names in {
        "selector": ["scls", "ami", "mdmr", "gics", "mlcfs", "lrfs", "ppt_mi", "ppt_chi",
                     "mlfs", "mlmim", "mljmi", "mlmrmr", "llsf"],
        "learner": ["mlnb", "mlknn", "dmlknn", "mlcwknn"],
        "discretizer": ["laim", "equal_width", "equal_frequency", "mean_std"],
    }.items():
        for name in names:
            assert "random_state" not in resolve(kind, name)().get_params(), name


def test_evaluate_accepts_the_readme_spellings(capsys, dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    code, out, err = run(capsys, "evaluate", path, "--methods", "ReliefF-ML,ppt-mi",
                         "--learner", "ML-kNN", "--repeats", 1, "-k", 5, "--quiet")
    assert code == 0, err
    assert "learner ML-kNN" in out
    rows = [ln.split()[0] for ln in out.strip().splitlines()[4:]]
    assert rows == ["ReliefF-ML", "ppt-mi"]


# --------------------------------------------------------------------------- #13:
# messages written for the command line


def _mlfs(*argv, cwd=None) -> subprocess.CompletedProcess:
    """The real console script (warnings go through Python's own printing)."""
    import skmlfs

    env = dict(os.environ, PYTHONPATH=str(Path(skmlfs.__file__).parents[1]))
    env.pop("PYTHONWARNINGS", None)
    script = "import sys; from skmlfs.cli import main; sys.exit(main())"  # = console script
    return subprocess.run([sys.executable, "-c", script, *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.mark.subprocess
def test_warnings_are_one_clean_line(tmp_path):
    res = _mlfs("select", tiny(tmp_path), "-k", 5)
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert ("warning: n_features_to_select=5 is larger than the number of features (2); "
            "all 2 features are ranked.") in lines
    assert "UserWarning" not in res.stderr and ".py:" not in res.stderr
    assert "warnings.warn" not in res.stderr
    # a warning of a selector fitted by the runner, relayed as "UserWarning: ..." (it was
    # printed "…/_runner.py:498: UserWarning: UserWarning: 1 of the 2 label columns ...")
    res = _mlfs("evaluate", tiny(tmp_path), "--methods", "scls", "--repeats", 1,
                "--test-size", 0.5, "-k", 1, "--quiet")
    assert res.returncode == 0, res.stderr
    assert res.stderr.startswith("warning: 1 of the 2 label columns of Y have no positive "
                                 "example in the 2 training patterns (columns 0)")
    assert len(res.stderr.splitlines()) == 1 and "UserWarning" not in res.stderr


def _copies_mat(tmp_path: Path) -> Path:
    import scipy.io

    rng = np.random.default_rng(0)
    Y = rng.integers(0, 2, size=(30, 3)).astype(float)
    X = np.hstack([rng.integers(0, 3, size=(30, 4)).astype(float), Y])  # labels copied
    p = tmp_path / "copies.mat"
    scipy.io.savemat(p, {"data": X, "answer": Y})
    return p


@pytest.mark.subprocess
def test_label_copies_advice_names_the_flag_and_the_flag_works(tmp_path):
    path = _copies_mat(tmp_path)
    res = _mlfs("info", path)
    assert res.returncode == 0
    warning = [ln for ln in res.stderr.splitlines() if ln.startswith("warning: ")]
    assert len(warning) == 1 and "--label-copies drop" in warning[0]
    assert "label_copies=" not in res.stderr and "LabelCopiesWarning" not in res.stderr
    assert res.stdout.splitlines()[2].split()[1:3] == ["30", "7"]
    res = _mlfs("info", path, "--label-copies", "drop")
    assert res.returncode == 0 and res.stderr == ""
    assert res.stdout.splitlines()[2].split()[1:3] == ["30", "4"]


def test_labels_advice_names_the_flag_and_the_flag_works(capsys, tmp_path):
    path = tmp_path / "nolabels.arff"
    path.write_text(TINY_ARFF.replace("@relation tiny", "@relation nolabels"), encoding="utf-8")
    code, _, err = run(capsys, "info", path)
    assert code == 2
    assert "pass --labels (an XML file, a list of label names or a MEKA count)" in err
    assert "labels=" not in err
    code, out, _ = run(capsys, "info", path, "--labels", "l1,l2")
    assert code == 0 and out.splitlines()[2].split()[:5] == ["nolabels", "4", "2", "mixed",
                                                              "2"]


@pytest.mark.subprocess
def test_missing_values_advice_names_the_flag_and_the_flag_works(tmp_path):
    path = tiny(tmp_path, TINY_ARFF.replace("1.5,y,0,1", "?,y,0,1"))
    res = _mlfs("info", path)
    assert res.returncode == 0
    assert "pass --missing ignore to silence this warning" in res.stderr
    assert "missing=" not in res.stderr
    res = _mlfs("info", path, "--missing", "ignore")
    assert res.returncode == 0 and res.stderr == ""


def test_cli_text_maps_every_python_argument_to_an_existing_flag():
    from skmlfs.cli import build_parser
    from skmlfs.cli._messages import PYTHON_TO_CLI, cli_text, format_warning

    parser = build_parser()
    for command in ("info", "select", "evaluate"):
        sub = parser._subparsers._group_actions[0].choices[command]
        flags = {s for a in sub._actions for s in a.option_strings}
        assert set(PYTHON_TO_CLI.values()) <= flags, command
    assert cli_text("Pass label_copies='drop' to remove them, or label_copies='keep'") == (
        "Pass --label-copies drop to remove them, or --label-copies keep")
    assert cli_text("e.g. labels=['a b', 'c']") == "e.g. --labels a b,c"
    assert cli_text("n_labels=3, --labels x") == "n_labels=3, --labels x"  # left alone
    # the runner relays worker warnings as "Category: message"
    assert format_warning("UserWarning: 2 of the 6 label columns ...") == (
        "warning: 2 of the 6 label columns ...\n")


@pytest.mark.parametrize("command", ["select", "evaluate"])
def test_bad_k_says_what_k_accepts(capsys, tmp_path, command):
    with pytest.raises(SystemExit) as exc:
        main([command, str(tiny(tmp_path)), "-k", "abc"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument -k/--n-features-to-select/--n-features: cannot read 'abc'" in err
    for form in ("'sqrt'", "an int >= 1", "a fraction in (0, 1]", "'P%'"):
        assert form in err
    assert "invalid literal" not in err


def test_select_takes_one_budget(capsys, tmp_path):
    code, _, err = run(capsys, "select", tiny(tmp_path), "-k", "1..2")
    assert code == 2 and "mlfs select takes one budget" in err


@pytest.mark.parametrize("value", [None, 7, "7", 0.07, "0.07", "7%", "all", "round_sqrt",
                                   250, 0.5])
def test_one_budget_parser_for_selectors_experiments_and_cli(capsys, tmp_path, value):
    """resolve_n_features (selectors), parse_n_features (experiment files) and -k (the
    command line) give the same count; 0.07 of 100 features is 7 everywhere."""
    from skmlfs._validation import resolve_n_features
    from skmlfs.cli._run.common import parse_k
    from skmlfs.experiments import parse_n_features, resolve_n_features_grid

    n, d = 593, 100
    spec_value = "ceil_sqrt" if value is None else value
    with pytest.warns(UserWarning) if value == 250 else _nothing():
        py = resolve_n_features(value, n, d)
    grid = resolve_n_features_grid(parse_n_features(spec_value), n, d)
    (budget,) = parse_k(None if value is None else str(value))  # handed to the selector
    cli = resolve_n_features(budget, n, d, warn=False)
    assert grid == [py] and cli == py
    expected = {None: 25, 7: 7, "7": 7, 0.07: 7, "0.07": 7, "7%": 7, "all": 100,
                "round_sqrt": 24, 250: 100, 0.5: 50}[value]
    assert py == expected


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def test_experiment_files_accept_the_same_names(tmp_path):
    from skmlfs.experiments import load_experiment

    data = tiny(tmp_path)
    exp = tmp_path / "names.toml"
    exp.write_text(
        'selectors = ["ReliefF-ML", "ppt-mi", "PPT+ReliefF"]\nlearners = ["ML-kNN", "MLC-WkNN"]\n'
        f'[[datasets]]\nname = "tiny"\npath = "{data.as_posix()}"\n'
        '[protocol]\nkind = "holdout"\nrepeats = 1\n',
        encoding="utf-8",
    )
    spec = load_experiment(exp)
    assert [m.estimator_class().__name__ for m in spec.selectors] == [
        "ReliefFML", "PPTMI", "PPTReliefF"]
    assert [m.estimator_class().__name__ for m in spec.learners] == ["MLkNN", "MLCWkNN"]


def test_docs_methods_table_is_the_registry(capsys):
    """docs/method_names.md is `mlfs methods --markdown`: regenerate it when the registry changes
    (the command is in the file's header)."""
    code, md, _ = run(capsys, "methods", "--markdown")
    assert code == 0
    doc = (Path(__file__).resolve().parents[2] / "docs" / "method_names.md").read_text("utf-8")
    assert doc.endswith(md), "docs/method_names.md is out of date: mlfs methods --markdown"
