"""Axes and protocols of the experiment model beyond k (issue #14 §1): training-size
fractions, per-split estimator seeds, nested/linked variants, separate train/test files,
nominal columns, and the messages for files written for a reproduction script."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.experiments import ExperimentSpec, ResultStore, SpecError, run_experiment
from skmlfs.learners import MLkNN
from skmlfs.metrics import hamming_loss
from skmlfs.model_selection import holdout_splits, subsample_train
from skmlfs.selection import ReliefFML

REPO = Path(__file__).resolve().parents[2]
GEN = {"name": "toy", "generator": "skmlfs.datasets:make_multilabel_discrete",
       "params": {"n_samples": 100, "n_features": 10, "n_labels": 3, "random_state": 1}}


def _data():
    ds = make_multilabel_discrete(n_samples=100, n_features=10, n_labels=3, random_state=1)
    return np.asarray(ds.X), np.asarray(ds.Y)


def test_subsample_train_is_nested_and_keeps_test():
    s = holdout_splits(100, 1, 0.2, random_state=0)[0]
    parts = [subsample_train(s, f, (0, 0)) for f in (0.25, 0.5, 1.0)]
    assert [p.train.size for p in parts] == [20, 40, 80]
    assert set(parts[0].train) <= set(parts[1].train) <= set(parts[2].train) == set(s.train)
    assert all(np.array_equal(p.test, s.test) for p in parts)


def test_train_fractions_axis_runs_as_datasets(tmp_path):
    spec = ExperimentSpec.from_dict({
        "selectors": ["mi_rank"], "n_features_to_select": 4, "learners": ["mlnb"],
        "datasets": [GEN],
        "train_fractions": [0.3, 1.0], "protocol": {"kind": "holdout", "repeats": 2},
    })
    assert [d.name for d in spec.datasets] == ["toy (train 0.3)", "toy"]
    small = spec.protocol_of(spec.datasets[0])
    assert small.train_fraction == 0.3 and small.identity()["train_fraction"] == 0.3
    assert "train_fraction" not in spec.protocol_of(spec.datasets[1]).identity()
    run_experiment(spec, tmp_path / "f.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "f.db") as st:
        df = st.to_frame()
    n_train = df.groupby("dataset")["n_train"].first().to_dict()
    assert n_train == {"toy (train 0.3)": 24, "toy": 80}
    for bad in ([0.0], [0.5, 0.5], 1.5):
        with pytest.raises(SpecError, match="train_fractions"):
            ExperimentSpec.from_dict({"selectors": ["all"], "datasets": [GEN],
                                      "train_fractions": bad})


def test_estimator_seed_per_split_and_linked_nested_variants(tmp_path):
    spec = ExperimentSpec.from_dict({
        "selectors": ["all"], "datasets": [GEN], "seed": 40, "discretizer": "none",
        "estimator_seed": "seed+split", "metrics": ["hamming_loss"],
        "protocol": {"kind": "kfold", "k": 3},
        "learners": {"wf": {"method": "weighted",
                            "weighter": {"method": "relieff_ml"},
                            "learner": {"method": "mlknn"},
                            "variants": {"weighter__k+learner__k": [3, 6]}}},
    })
    assert [m.name for m in spec.learners] == ["wf[k=3]", "wf[k=6]"]
    assert spec.learners[1].params["weighter"]["k"] == 6
    assert spec.learners[1].params["learner"]["k"] == 6
    run_experiment(spec, tmp_path / "s.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "s.db") as st:
        df = st.to_frame()
    X, Y = _data()
    splits = spec.protocol.splits((X, Y), 100, 40)
    for _, row in df.iterrows():
        s, k = splits[row["split"]], int(row["learner"][5])
        Xtr, Xte = (X[i][:, np.arange(10)] for i in (s.train, s.test))  # the cells' layout
        w = ReliefFML(k=k, random_state=40 + row["split"]).fit(Xtr, Y[s.train]).weights_
        ref = MLkNN(k=k, feature_weights=w).fit(Xtr, Y[s.train])
        assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], ref.predict(Xte)))
    with pytest.raises(SpecError, match="estimator_seed"):
        ExperimentSpec.from_dict({"selectors": ["all"], "datasets": [GEN],
                                  "estimator_seed": "split"})
    with pytest.raises(SpecError, match="not a nested method table"):
        ExperimentSpec.from_dict({"selectors": ["all"], "datasets": [GEN], "learners": {
            "m": {"method": "mlknn", "variants": {"x__k": [1]}}}})


def test_separate_train_test_files(dataset_path, tmp_path):
    dataset_path("mulan/flags/flags-train.arff")
    spec = ExperimentSpec.from_dict({
        "selectors": ["all"], "learners": ["mlnb"], "metrics": ["hamming_loss"],
        "datasets": [{"train": "mulan/flags/flags-train.arff",
                      "test": "mulan/flags/flags-test.arff"}],
    })
    ds = spec.datasets[0]
    assert ds.name == "flags" and spec.protocol_of(ds).kind == "train_test"
    run_experiment(spec, tmp_path / "tt.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "tt.db") as st:
        df = st.to_frame()
    assert len(df) == 1 and (df.n_train.iloc[0], df.n_test.iloc[0]) == (129, 65)
    with pytest.raises(SpecError, match="both 'train' and 'test'"):
        ExperimentSpec.from_dict({"selectors": ["all"],
                                  "datasets": [{"train": "mulan/flags/flags-train.arff"}]})


def test_nominal_placeholder_maps_to_selected_positions():
    spec = ExperimentSpec.from_dict({"selectors": ["all"], "datasets": [GEN], "learners": {
        "m": {"method": "mlknn", "categorical_features": "nominal"}}})
    assert spec.learners[0].build(nominal_columns=[2, 5]).categorical_features == [2, 5]
    assert spec.learners[0].build().categorical_features is None
    from skmlfs.experiments import MetricRef
    from skmlfs.experiments._execute import CellSpec, _evaluate_cell
    from skmlfs.metrics import ranking_loss

    X, Y = _data()
    ranking = np.array([7, 2, 5, 0])  # nominal columns 2 and 5 sit at positions 1 and 2
    mets = (MetricRef("ranking_loss", "ranking_loss"),)
    got = _evaluate_cell(CellSpec("a", 4, spec.learners[0]), ranking, X[:80], Y[:80],
                         X[80:], Y[80:], mets, 0, nominal_columns=[2, 5])
    A, B = X[:80][:, ranking], X[80:][:, ranking]
    ref = MLkNN(categorical_features=[1, 2]).fit(A, Y[:80])
    assert got.metrics["ranking_loss"] == pytest.approx(
        ranking_loss(Y[80:], ref.predict_proba(B)))
    numeric = MLkNN().fit(A, Y[:80])  # the mapping matters: overlap is not |a - b|
    assert not np.allclose(numeric.predict_proba(B), ref.predict_proba(B))


def test_report_compares_learners(tmp_path):
    from skmlfs.experiments import write_report

    spec = ExperimentSpec.from_dict({
        "selectors": ["all"], "datasets": [GEN, {**GEN, "name": "toy2",
                                                 "params": {**GEN["params"], "random_state": 2}}],
        "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 2},
        "learners": {"knn": {"method": "mlknn", "variants": {"k": [9, 3]}}, "nb": "mlnb"},
        "report": {"columns": "learners", "control": "nb"},
    })
    db = tmp_path / "l.db"
    run_experiment(spec, db, verbose=False, progress=False)
    write_report(db, tmp_path / "rep", figures=False, experiment=spec.name,
                 columns="learners", control="nb")
    head = (tmp_path / "rep" / "tables" / "hamming_loss.md").read_text().splitlines()[2]
    assert [c.strip() for c in head.split("|")[2:-1]] == ["knn[k=9]", "knn[k=3]", "nb"]
    with ResultStore(db) as st:
        df = st.to_frame()
    csv = (tmp_path / "rep" / "tables" / "hamming_loss.csv").read_text().splitlines()
    row = dict(zip(csv[0].split(","), csv[1].split(","), strict=True))
    want = df[(df.dataset == row["dataset"]) & (df.learner == "nb")].hamming_loss.mean()
    assert float(row["nb_mean"]) == pytest.approx(want, rel=1e-5)
    with pytest.raises(SpecError, match="report.control"):
        ExperimentSpec.from_dict({"selectors": ["all"], "datasets": [GEN],
                                  "report": {"columns": "learners", "control": "x"}})


def test_documented_experiment_example_is_valid(datasets_dir):
    text = (REPO / "docs" / "experiment_file.md").read_text()
    block = text.split("## Chains, tuning and variants")[1].split("```toml")[1].split("```")[0]
    spec = ExperimentSpec.from_dict(tomllib.loads(block), source="docs/experiment_file.md")
    assert [d.name for d in spec.datasets] == [
        "scene (train 0.25)", "scene (train 0.5)", "scene"]
    assert spec.protocol_of(spec.datasets[2]).kind == "train_test"
    for m in spec.learners + spec.selectors:
        m.build(random_state=0, n_features_to_select=5)


def test_scaling_as_the_per_split_transformer(tmp_path):
    from sklearn.preprocessing import MinMaxScaler

    from skmlfs.experiments._execute import prepare_split

    spec = ExperimentSpec.from_dict({
        "selectors": ["all"], "datasets": [GEN], "learners": ["mlknn"],
        "discretizer": {"method": "sklearn.preprocessing:MinMaxScaler"},
        "protocol": {"kind": "holdout", "repeats": 1}, "metrics": ["hamming_loss"],
    })
    X, Y = _data()
    s = spec.protocol.splits((X, Y), 100, 0)[0]
    Xtr, _, Xte, _, _ = prepare_split(X, Y, s.train, s.test, spec.datasets[0].discretizer)
    sc = MinMaxScaler().fit(X[s.train])  # fitted on the training part only
    np.testing.assert_allclose(Xtr, sc.transform(X[s.train]))
    np.testing.assert_allclose(Xte, sc.transform(X[s.test]))
