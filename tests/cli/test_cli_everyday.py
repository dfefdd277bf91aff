"""Everyday use of ``mlfs`` (issue #24): reducing new data without labels, one rule for
what a learner receives (the CLI equals its Python equivalent cell for cell), output paths
checked before any work, every value validated, readable output."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from skmlfs.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _table(tmp_path: Path, n: int = 60, d: int = 6, seed: int = 0) -> Path:
    """A CSV with features f0..f5 and labels y_a, y_b (y depends on f0, f1)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(d)])
    df["y_a"] = (X[:, 0] > 0).astype(int)
    df["y_b"] = (X[:, 1] > 0).astype(int)
    p = tmp_path / "train.csv"
    df.to_csv(p, index=False)
    return p


def _no_work(monkeypatch) -> list:
    """Record (and skip) every fit and evaluation the commands would start."""
    import skmlfs.cli._run.evaluate as evaluate_cmd
    import skmlfs.cli._run.select as select_cmd
    import skmlfs.cli._run.transform as transform_cmd

    calls: list = []

    def work(*a, **k):
        calls.append(1)
        raise AssertionError("the work started before the output was checked")

    for mod, name in ((select_cmd, "fit_selector"), (transform_cmd, "fit_selector"),
                      (evaluate_cmd, "evaluate")):
        monkeypatch.setattr(mod, name, work)
    return calls


# --------------------------------------------------------------------------- §2 one rule


@pytest.mark.parametrize("learner", ["br", "mlnb"])
def test_evaluate_equals_its_python_pipeline_cell_for_cell(capsys, tmp_path, dataset_path,
                                                           learner):
    """``mlfs evaluate DATA --methods scls --learner L -k 10`` is, split for split,
    ``make_pipeline(SCLS(n_features_to_select=10), L(random_state=seed))`` fitted on the
    training part and scored on the test part (docs/user_guide.md#what-a-learner-receives);
    scikit-learn's metric names are accepted as aliases of ours."""
    from skmlfs.datasets import load
    from skmlfs.experiments import ProtocolSpec
    from skmlfs.learners import MLNB, BinaryRelevance
    from skmlfs.metrics import hamming_loss, micro_f1, ranking_loss
    from skmlfs.selection import SCLS

    path = dataset_path("mulan/emotions/emotions.arff")
    out = tmp_path / "r.csv"
    code, _, err = run(capsys, "evaluate", path, "--methods", "scls", "--learner", learner,
                       "-k", 10, "--repeats", 3, "--metrics", "f1_micro,hamming_loss,"
                       "label_ranking_loss", "--quiet", "--out", out)
    assert code == 0, err
    got = pd.read_csv(out).sort_values("split")
    assert list(got["split"]) == [0, 1, 2]
    ds = load(path)
    splits = ProtocolSpec(kind="holdout", repeats=3, test_size=0.2).splits(ds, len(ds.Y), 0)
    make_learner = {"br": lambda: BinaryRelevance(random_state=0), "mlnb": MLNB}[learner]
    for i, (tr, te) in enumerate(splits):
        pipe = make_pipeline(SCLS(n_features_to_select=10), make_learner())
        pipe.fit(ds.X[tr], ds.Y[tr])
        pred, score = pipe.predict(ds.X[te]), pipe.predict_proba(ds.X[te])
        row = got.iloc[i]
        np.testing.assert_allclose(
            [row["micro_f1"], row["hamming_loss"], row["ranking_loss"]],
            [micro_f1(ds.Y[te], pred), hamming_loss(ds.Y[te], pred),
             ranking_loss(ds.Y[te], score)], rtol=1e-12, atol=0)


def test_evaluate_with_a_discretizer_equals_the_pipeline_that_starts_with_it(
        capsys, tmp_path, dataset_path):
    """``--discretizer laim``: discretized once per training part, before selection and
    learning = ``make_pipeline(LAIMDiscretizer(), SCLS(...), BinaryRelevance(...))``."""
    from skmlfs.datasets import load
    from skmlfs.discretize import LAIMDiscretizer
    from skmlfs.experiments import ProtocolSpec
    from skmlfs.learners import BinaryRelevance
    from skmlfs.metrics import micro_f1
    from skmlfs.selection import SCLS

    path = dataset_path("mulan/emotions/emotions.arff")
    out = tmp_path / "r.csv"
    code, stdout, err = run(capsys, "evaluate", path, "--methods", "scls", "--learner", "br",
                            "-k", 10, "--repeats", 2, "--metrics", "micro_f1",
                            "--discretizer", "laim", "--quiet", "--out", out)
    assert code == 0, err
    assert "discretizer laim" in stdout.splitlines()[0]
    got = pd.read_csv(out).sort_values("split")
    ds = load(path)
    splits = ProtocolSpec(kind="holdout", repeats=2, test_size=0.2).splits(ds, len(ds.Y), 0)
    for i, (tr, te) in enumerate(splits):
        pipe = make_pipeline(LAIMDiscretizer(), SCLS(n_features_to_select=10),
                             BinaryRelevance(random_state=0)).fit(ds.X[tr], ds.Y[tr])
        assert got["micro_f1"].iloc[i] == pytest.approx(
            micro_f1(ds.Y[te], pipe.predict(ds.X[te])), rel=1e-12, abs=0)


def test_unknown_discretizer_is_refused_with_a_suggestion(capsys, tmp_path):
    code, out, err = run(capsys, "evaluate", tmp_path / "not-read.csv", "--discretizer",
                         "laimm")
    assert code == 2 and out == ""
    assert "did you mean 'laim'" in err


def test_engine_default_is_no_discretizer_and_paper_files_declare_theirs():
    """The default is "none" (the rule above); the paper reproductions whose learners run on
    discretized data say so in their files, so their cells (and numbers) stay the same."""
    import tomllib

    from skmlfs.experiments import DatasetSpec, evaluate

    assert DatasetSpec(name="x").discretizer == "none"
    import inspect

    assert inspect.signature(evaluate).parameters["discretizer"].default == "none"
    root = Path(__file__).resolve().parents[2] / "experiments"
    for name in ("scls_paper", "scls_curves", "memetic_paper"):
        data = tomllib.loads((root / f"{name}.toml").read_text(encoding="utf-8"))
        assert data.get("discretizer") == "auto", name


# --------------------------------------------------------------------------- §1 new data


@pytest.fixture
def model_and_new(tmp_path, capsys):
    """A selector saved from a labelled table, and new data with the same features and no
    label columns."""
    train = _table(tmp_path)
    model = tmp_path / "m.joblib"
    code, _, err = run(capsys, "select", train, "--label-prefix", "y_", "-k", 3, "--save",
                       model)
    assert code == 0, err
    new = tmp_path / "new.csv"
    pd.read_csv(train).drop(columns=["y_a", "y_b"]).to_csv(new, index=False)
    return train, model, new


def _selected(model: Path) -> list[str]:
    import joblib

    bundle = joblib.load(model)
    return [n for n, s in zip(bundle["feature_names"], bundle["support"], strict=True) if s]


@pytest.mark.parametrize("labels", [[], ["--label-prefix", "y_"], ["--labels", ""],
                                    ["--labels", "y_a,y_b"]])
def test_transform_reduces_new_data_without_labels(capsys, tmp_path, model_and_new, labels):
    """The three ways of saying "no labels" that failed before."""
    _, model, new = model_and_new
    out = tmp_path / "reduced.csv"
    code, _, err = run(capsys, "transform", new, *labels, "--model", model, "--write", out)
    assert code == 0, err
    got = pd.read_csv(out)
    keep = _selected(model)
    assert list(got.columns) == keep
    np.testing.assert_array_equal(got.to_numpy(), pd.read_csv(new)[keep].to_numpy())


def test_transform_carries_the_label_columns_that_are_present(capsys, tmp_path,
                                                              model_and_new):
    train, model, _ = model_and_new
    partial = tmp_path / "partial.csv"
    pd.read_csv(train).drop(columns=["y_b"]).to_csv(partial, index=False)
    for src in (train, partial):
        out = tmp_path / f"r_{src.stem}.csv"
        code, _, err = run(capsys, "transform", src, "--model", model, "--write", out)
        assert code == 0, err
        got, full = pd.read_csv(out), pd.read_csv(src)
        labels = [c for c in ("y_a", "y_b") if c in full]
        assert list(got.columns) == _selected(model) + labels
        np.testing.assert_array_equal(got[labels].to_numpy(), full[labels].to_numpy())


def test_transform_of_new_data_still_checks_the_features(capsys, tmp_path, model_and_new):
    _, model, new = model_and_new
    swapped = tmp_path / "swapped.csv"
    df = pd.read_csv(new)
    df[["f1", "f0", *df.columns[2:]]].to_csv(swapped, index=False)
    code, _, err = run(capsys, "transform", swapped, "--model", model, "--write",
                       tmp_path / "r.csv")
    assert code == 2 and "do not match" in err and "column 1" in err


def test_empty_labels_are_refused_where_labels_are_needed(capsys, tmp_path):
    code, _, err = run(capsys, "select", _table(tmp_path), "--labels", "")
    assert code == 2 and "--labels is empty" in err and "mlfs transform" in err


def test_transform_o_is_the_deprecated_spelling_of_write(capsys, tmp_path, model_and_new):
    _, model, new = model_and_new
    out = tmp_path / "r.csv"
    with pytest.warns(FutureWarning, match="use --write"):
        code, _, err = run(capsys, "transform", new, "--model", model, "-o", out)
    assert code == 0 and out.exists()
    code, _, err = run(capsys, "transform", new, "--model", model)
    assert code == 2 and "--write FILE" in err


# --------------------------------------------------------------------------- §3 outputs


def _no_pyarrow(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # find_spec: not importable


@pytest.mark.parametrize("argv", [
    ["select", "{data}", "--label-prefix", "y_", "-k", "2", "--write", "{out}"],
    ["transform", "{data}", "--label-prefix", "y_", "-k", "2", "--write", "{out}"],
    ["transform", "{data}", "--model", "{model}", "--write", "{out}"],
    ["evaluate", "{data}", "--label-prefix", "y_", "--out", "{out}"],
])
def test_parquet_outputs_without_pyarrow_fail_before_any_work(capsys, tmp_path, monkeypatch,
                                                              argv):
    data = _table(tmp_path)
    out = tmp_path / "reduced.parquet"
    model = tmp_path / "never-read.joblib"  # not even loaded: the output is checked first
    _no_pyarrow(monkeypatch)
    fit = _no_work(monkeypatch)
    argv = [a.format(data=data, out=out, model=model) for a in argv]
    code, stdout, err = run(capsys, *argv)
    assert code == 2 and not out.exists() and not fit and stdout == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "pip install 'scikit-mlfs[parquet]'" in lines[0]


@pytest.mark.parametrize("command", ["benchmark", "report"])
def test_export_paths_are_checked_before_any_work(capsys, tmp_path, monkeypatch, command):
    target = tmp_path / "never-read.toml" if command == "benchmark" else tmp_path / "x.db"
    code, _, err = run(capsys, command, target, "--export", tmp_path / "cells.xlsx")
    assert code == 2 and "unknown extension '.xlsx'" in err
    _no_pyarrow(monkeypatch)
    code, _, err = run(capsys, command, target, "--export", tmp_path / "cells.parquet")
    assert code == 2 and "scikit-mlfs[parquet]" in err


# --------------------------------------------------------------------------- §4 report


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """A results store with budgets 2 and 3 of scls, ami and mdmr on a generated dataset."""
    from skmlfs.experiments import ExperimentSpec, run_experiment

    tmp = tmp_path_factory.mktemp("store")
    spec = ExperimentSpec.from_dict({
        "name": "tiny",
        "datasets": [{"name": f"gen{i}",
                      "generator": "skmlfs.datasets:make_multilabel_discrete",
                      "params": {"n_samples": 60, "n_features": 8, "n_labels": 3,
                                 "random_state": i}} for i in range(2)],
        "selectors": ["scls", "ami", "mdmr"],
        "learners": ["mlnb"],
        "protocol": {"kind": "holdout", "repeats": 2, "test_size": 0.3},
        "n_features_to_select": [2, 3],
        "metrics": ["hamming_loss"],
    })
    db = tmp / "r.db"
    run_experiment(spec, db, progress=False, verbose=False)
    return db


@pytest.mark.parametrize("argv, message", [
    (["-k", "10"], "-k 10: no cell with k = 10 in the results; their budgets: 2, 3"),
    (["--control", "sclz"], "unknown control method 'sclz' (did you mean 'scls'?)"),
    (["--learner", "mlbn"], "unknown learner 'mlbn' (did you mean 'mlnb'?)"),
    (["--alpha", "5"], "--alpha 5.0: a significance level between 0 and 1"),
])
def test_report_refuses_what_the_results_do_not_have(capsys, tmp_path, small_store, argv,
                                                     message):
    out = tmp_path / "rep"
    code, _, err = run(capsys, "report", small_store, "--out", out, "--no-figures", *argv)
    assert code == 2 and message in err
    assert not (out / "README.md").exists()


def test_report_takes_a_control_in_any_spelling(capsys, tmp_path, small_store):
    texts = []
    for spelling in ("mdmr", "MDMR", None):
        out = tmp_path / f"rep_{spelling}"
        control = ["--control", spelling] if spelling else []
        code, _, err = run(capsys, "report", small_store, "--out", out, "--no-figures",
                           *control, "-k", 3)
        assert code == 0, err
        texts.append((out / "tables" / "hamming_loss.csv").read_text(encoding="utf-8"))
        texts[-1] += (out / "README.md").read_text(encoding="utf-8")
    assert "Bonferroni–Dunn vs mdmr" in texts[0]
    assert texts[0] == texts[1]  # the same report as the registered spelling
    assert texts[0] != texts[2]  # which is not the default one


# --------------------------------------------------------------------------- §6 output


def test_select_prints_the_selected_features_unless_asked_for_all(capsys, tmp_path,
                                                                  dataset_path):
    path = dataset_path("mulan/emotions/emotions.arff")
    out = tmp_path / "r.csv"
    code, stdout, err = run(capsys, "select", path, "-m", "relieff_ml", "-k", 5, "--out", out)
    assert code == 0
    rows = stdout.strip().splitlines()
    assert rows[0].split() == ["order", "rank", "feature_index", "feature", "selected",
                               "weight"]
    assert len(rows) == 1 + 5  # the five selected
    assert len(pd.read_csv(out)) == 72  # the file has the full ranking
    assert "67 more ranked feature(s) not selected: --full-ranking prints them" in err
    assert "weight: the feature's ReliefF weight" in err
    code, stdout, _ = run(capsys, "select", path, "-m", "relieff_ml", "-k", 5,
                          "--full-ranking")
    assert code == 0 and len(stdout.strip().splitlines()) == 1 + 72


def test_every_selector_names_its_scores_and_methods_lists_them(capsys):
    from skmlfs.experiments import SELECTORS, resolve
    from skmlfs.selection import scores_meaning
    from skmlfs.selection._base import GREEDY_SCORES, RANKING_SCORES, BaseSelector

    code, out, _ = run(capsys, "methods", "selectors")
    assert code == 0
    block = out[out.index("Score column of mlfs select"):]
    for name in SELECTORS:
        column, meaning = scores_meaning(resolve("selector", name))
        assert column.isidentifier() and meaning
        assert any(ln.split()[:2] == [name, column] and meaning in ln
                   for ln in block.splitlines() if ln.strip()), name
    # the defaults for a selector that declares nothing
    def greedy_tags(self):
        tags = BaseSelector.__sklearn_tags__(self)
        tags.selector_tags.greedy = True
        return tags

    def fit_nothing(self, X, Y):
        return self

    greedy = type("G", (BaseSelector,), {"__sklearn_tags__": greedy_tags, "_fit": fit_nothing})
    assert scores_meaning(greedy) == GREEDY_SCORES
    assert scores_meaning(type("R", (BaseSelector,), {"_fit": fit_nothing})) == RANKING_SCORES
    assert scores_meaning(object()) == RANKING_SCORES


def test_metric_aliases_are_scikit_learns_quantities():
    """Each alias computes what scikit-learn's function of that name computes (data
    without empty label sets or tied scores, where the conventions agree)."""
    from sklearn import metrics as skm

    from skmlfs.metrics import METRIC_ALIASES, get_metric, metric_name

    rng = np.random.default_rng(3)
    Y = (rng.random((80, 5)) < 0.4).astype(int)
    Y[Y.sum(1) == 0, 0] = 1
    Y[Y.sum(1) == 5, 1] = 0
    P = np.where(rng.random(Y.shape) < 0.85, Y, 1 - Y)
    P[P.sum(1) == 0, 2] = 1
    S = rng.random(Y.shape)
    sk = {
        "f1_micro": lambda: skm.f1_score(Y, P, average="micro"),
        "f1_macro": lambda: skm.f1_score(Y, P, average="macro"),
        "accuracy": lambda: skm.accuracy_score(Y, P),
        "accuracy_score": lambda: skm.accuracy_score(Y, P),
        "jaccard_samples": lambda: skm.jaccard_score(Y, P, average="samples"),
        "label_ranking_loss": lambda: skm.label_ranking_loss(Y, S),
        "label_ranking_average_precision_score":
            lambda: skm.label_ranking_average_precision_score(Y, S),
    }
    assert set(sk) == set(METRIC_ALIASES)
    for alias, ref in sk.items():
        spec = get_metric(alias)
        assert spec is get_metric(metric_name(alias.upper()))
        value = spec.function(Y, P if spec.needs == "pred" else S)
        assert value == pytest.approx(ref(), rel=1e-12), alias
    with pytest.raises(KeyError, match="did you mean 'f1_micro'"):
        get_metric("f1_mikro")


def test_metric_aliases_work_in_experiment_files_and_tuning():
    from skmlfs.experiments import ExperimentSpec
    from skmlfs.experiments._build import parse_tuning

    spec = ExperimentSpec.from_dict({
        "datasets": [{"name": "g", "generator": "skmlfs.datasets:make_multilabel_discrete"}],
        "selectors": ["scls"], "metrics": ["f1_micro", "accuracy"]})
    assert [(m.name, m.metric) for m in spec.metrics] == [
        ("micro_f1", "micro_f1"), ("subset_accuracy", "subset_accuracy")]
    t = parse_tuning({"tune": {"k": [1, 2]}, "scoring": "f1_macro"}, "x")
    assert t["scoring"]["metric"] == "macro_f1"


def test_label_lists_get_a_clear_message():
    from skmlfs.learners import MLNB
    from skmlfs.selection import SCLS

    X = np.random.default_rng(0).integers(0, 3, (6, 4))
    Y = [["a", "b"], ["c"], ["a"], [], ["b", "c"], ["a"]]
    for est in (SCLS(n_features_to_select=2), MLNB()):
        with pytest.raises(ValueError, match="MultiLabelBinarizer"):
            est.fit(X, Y)
    # a list of equal-length 0/1 rows is a label matrix, as before
    SCLS(n_features_to_select=2).fit(X, [[1, 0], [0, 1], [1, 1], [0, 0], [1, 0], [0, 1]])


def test_info_headers_are_words(capsys, tmp_path):
    code, out, _ = run(capsys, "info", _table(tmp_path), "--label-prefix", "y_")
    assert code == 0
    assert out.splitlines()[0].split() == ["Dataset", "Patterns", "Features", "Type",
                                           "Labels", "Cardinality", "Density", "Label",
                                           "sets"]
    from skmlfs.datasets import format_stats, load

    ds = load(_table(tmp_path), label_prefix="y_")
    assert format_stats(ds).splitlines()[0].split()[1] == "|W|"  # the paper's, in Python


@pytest.mark.parametrize("argv", [
    ["select", "{data}", "--label-prefix", "y_", "--out", "{missing}/r.csv"],
    ["select", "{data}", "--label-prefix", "y_", "--save", "{missing}/m.joblib"],
    ["select", "{data}", "--label-prefix", "y_", "--write", "{missing}/r.arff"],
    ["transform", "{data}", "--label-prefix", "y_", "--write", "{missing}/r.csv"],
    ["transform", "{data}", "--label-prefix", "y_", "--write", "r.csv", "--save",
     "{missing}/m.joblib"],
    ["evaluate", "{data}", "--label-prefix", "y_", "--out", "{missing}/r.csv"],
])
def test_outputs_in_a_missing_folder_fail_before_any_work(capsys, tmp_path, monkeypatch,
                                                          argv):
    fit = _no_work(monkeypatch)
    monkeypatch.chdir(tmp_path)
    argv = [a.format(data=_table(tmp_path), missing=tmp_path / "nope") for a in argv]
    code, stdout, err = run(capsys, *argv)
    assert code == 2 and not fit and stdout == ""
    assert "does not exist" in err and len(err.strip().splitlines()) == 1
