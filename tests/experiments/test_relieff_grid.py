"""experiments/relieff_ml_paper.toml through the engine (issue #14): the per-fold values
of straightforward loops written here (same folds, same ReliefF-ML seeds), neighbour
graphs shared by the cells of a fold without changing a value, and the report's
k-choice views, paper values and Wilcoxon pairs."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import wilcoxon

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment
from skmlfs.experiments._graphs import NeighbourGraphs, fit_predict
from skmlfs.learners import DMLkNN, MLCWkNN, MLkNN
from skmlfs.metrics import hamming_loss, multilabel_accuracy, one_error, ranking_loss
from skmlfs.model_selection import WeightedLearner, iterative_stratification
from skmlfs.selection import ReliefFML

REPO = Path(__file__).resolve().parents[2]
PAPER = REPO / "experiments" / "relieff_ml_paper.toml"
P = "skmlfs.experiments.report.papers:"


def _reduced(names, folds, grid, learners=None) -> dict:
    d = tomllib.loads(PAPER.read_text())
    d["datasets"] = [x for x in d["datasets"] if x["name"] in names]
    d["protocol"] = {**d["protocol"], "k": folds}
    d["learners"] = {n: {**t, "variants": {p: grid for p in t["variants"]}}
                     for n, t in d["learners"].items() if n in (learners or [])
                     or (learners is None and "seed_offset" not in t["variants"])}
    d["report"]["section"] = [t for t in d["report"]["section"]  # no seed runs
                              if not t["kind"].endswith(":SeedRobustness")]
    return d


def _report_section(report, cls: str) -> dict:
    """The one ``[[report.section]]`` table of the paper section class ``cls``."""
    (t,) = [t for t in report["section"] if t["kind"] == P + cls]
    return t


def _metrics(Yte, pred, proba) -> dict:
    return {
        "hamming_loss": hamming_loss(Yte, pred),
        "multilabel_accuracy": multilabel_accuracy(Yte, pred, convention="mulan"),
        "one_error": one_error(Yte, proba, convention="plcfs", tie_rule="lower_index"),
        "ranking_loss": ranking_loss(Yte, proba, convention="plcfs"),
    }


def test_paper_file_is_an_engine_experiment():
    d = tomllib.loads(PAPER.read_text())
    spec = ExperimentSpec.from_dict(d, source=str(PAPER))
    assert "script" not in d.get("experiment", {})
    assert len(spec.learners) == 18 + 15 and len(spec.datasets) == 10
    # the sampling-seed runs: fold f of seed r samples with 2013 + 1000 r + f (r = 1..5),
    # the former script's seeds
    seeds = [m for m in spec.learners if "seed_offset" in m.options]
    assert sorted({m.options["seed_offset"] for m in seeds}) == [1000, 2000, 3000, 4000, 5000]
    assert all(m.build(random_state=2013 + 4).weighter.random_state
               == 2013 + m.options["seed_offset"] + 4 for m in seeds)
    choose = _report_section(spec.report, "ChosenParameter")
    assert choose["criterion"] == "hamming_loss"
    assert set(choose["paper"]["hamming_loss"]) == {x.name for x in spec.datasets}


@pytest.mark.paper
@pytest.mark.parametrize("name", ["emotions", "genbase"])
def test_engine_cells_equal_straightforward_loops(name, datasets_dir, tmp_path):
    """Every learner, plain and -WF, k in {5, 10}, 3 folds: the engine's cells (shared
    neighbour graphs) equal each learner fitted with its own HEOM search; genbase's
    protein identifier (nominal, 32 values) is categorical, its binary nominal attributes
    numeric 0/1."""
    import scipy.sparse as sp

    from skmlfs.datasets import load_name

    spec = ExperimentSpec.from_dict(_reduced([name], 3, [5, 10]), source="reduced")
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    assert len(df) == 3 * 12
    ds = load_name(name)
    X = sp.csr_matrix(ds.X, dtype=float) if sp.issparse(ds.X) else np.asarray(ds.X, float)
    Y = ds.Y
    cat = [j for j, (t, c) in enumerate(zip(ds.feature_types, ds.categories, strict=True))
           if t == "nominal" and len(c) > 2] or None
    assert (cat is not None) == (name == "genbase")
    fold = iterative_stratification(Y, 3, 2013)
    classes = {"ML-kNN": (MLkNN, {"s": 1.0}), "DML-kNN": (DMLkNN, {"s": 1.0, "delta": 6}),
               "MLC-WkNN": (MLCWkNN, {"reg": 1e-3})}
    for f in range(3):
        tr, te = fold != f, fold == f
        for k in (5, 10):
            w = ReliefFML(k=k, s=1.0, random_state=2013 + f, categorical_features=cat)
            w = w.fit(X[tr], Y[tr]).weights_
            for name, (cls, params) in classes.items():
                for suffix, fw in (("", None), ("-WF", w)):
                    est = cls(k=k, metric="heom", feature_weights=fw,
                              categorical_features=cat, **params)
                    est.fit(X[tr], Y[tr])
                    ref = _metrics(Y[te], est.predict(X[te]), est.predict_proba(X[te]))
                    row = df[(df.split == f) & (df.learner == f"{name}{suffix}[k={k}]")]
                    assert len(row) == 1
                    for m, v in ref.items():
                        assert row.iloc[0][m] == v, (name + suffix, k, f, m)


@pytest.mark.parametrize("metric", ["heom", "euclidean"])
def test_shared_graphs_equal_each_learners_own_search(metric):
    """fit_predict with a task's graph cache: the same predictions and confidences as the
    learners' own searches, with categorical features, duplicates and weights; one plain
    graph serves every k and the -WF learners of one k share a weighted graph."""
    rng = np.random.default_rng(31)
    X = (rng.random((150, 12)) < 0.3).astype(float)
    X[:, :3] = rng.normal(size=(150, 3))
    X[:, 3:5] = rng.integers(0, 4, size=(150, 2))  # nominal with 4 values
    X[5] = X[9]
    Y = (rng.random((150, 4)) < 0.35).astype(np.uint8)
    Y[:, 0] |= (X[:, 0] > 0.5).astype(np.uint8)
    tr, te = np.arange(110), np.arange(110, 150)
    cat = [3, 4]
    learners = []
    for k in (3, 6):
        for cls in (MLkNN, DMLkNN):
            plain = cls(k=k, metric=metric, categorical_features=cat)
            wf = WeightedLearner(ReliefFML(k=k, random_state=0, categorical_features=cat),
                                 cls(k=k, metric=metric, categorical_features=cat))
            learners += [plain, wf]
        learners.append(MLCWkNN(k=k, metric=metric, categorical_features=cat))
    graphs = NeighbourGraphs.for_learners(learners)
    assert graphs is not None and graphs.k_max == 6
    feats = np.arange(X.shape[1])
    for est in learners:
        from sklearn.base import clone

        ref = clone(est).fit(X[tr], Y[tr])
        pred, proba, _, _ = fit_predict(est, X[tr], Y[tr], X[te], {"pred", "score"},
                                        graphs, feats)
        np.testing.assert_array_equal(pred, ref.predict(X[te]))
        np.testing.assert_array_equal(proba, ref.predict_proba(X[te]))
    # one plain graph (k = 6 serves k = 3) and one weighted graph per k
    assert graphs.n_built == 3


@pytest.mark.paper
def test_report_views_k_choice_paper_values_and_wilcoxon(datasets_dir, tmp_path):
    """The report's 'tuned' k is the argmin of the fold-mean Hamming loss (ties → smaller
    k), its cells the stored fold values, and Table 5's p-values those of the signed-rank
    test on the per-dataset means."""
    from skmlfs.experiments import write_report

    d = _reduced(["emotions", "yeast", "genbase"], 2, [5, 10],
                 learners=["ML-kNN", "ML-kNN-WF"])
    choose = _report_section(d["report"], "ChosenParameter")
    choose["pairs"] = [["ML-kNN-WF", "ML-kNN"]]
    choose["views"] = {"paper": ["ML-kNN-WF"]}
    spec = ExperimentSpec.from_dict(d, source="reduced")
    db = tmp_path / "r.db"
    run_experiment(spec, db, verbose=False, progress=False)
    files = write_report(db, tmp_path / "rep", figures=False, experiment=spec.name,
                         columns="learners", decimals=4, alpha=0.01)
    assert tmp_path / "rep" / "results.json" in files
    with ResultStore(db) as st:
        df = st.to_frame()
    res = json.loads((tmp_path / "rep" / "results.json").read_text())["results"]
    means = {}
    for ds in ("emotions", "yeast", "genbase"):
        for base in ("ML-kNN", "ML-kNN-WF"):
            hl = {k: df[(df.dataset == ds) & (df.learner == f"{base}[k={k}]")]
                  ["hamming_loss"].mean() for k in (5, 10)}
            best = min((v, k) for k, v in hl.items())[1]
            assert res[ds]["chosen"][base] == str(best)
            vals = res[ds]["values"][f"{base}[k={best}]"]["hamming_loss"]
            assert vals == df[(df.dataset == ds) & (df.learner == f"{base}[k={best}]")
                              ].sort_values("split")["hamming_loss"].tolist()
            means[(ds, base)] = hl[best]
    text = (tmp_path / "rep" / "README.md").read_text()
    assert "### View: tuned" in text and "### View: paper" in text
    assert "| *paper* | 0.1963 | 0.1812 |" in text  # emotions, Table 1 of the paper
    x = [means[(ds, "ML-kNN-WF")] for ds in ("emotions", "yeast", "genbase")]
    y = [means[(ds, "ML-kNN")] for ds in ("emotions", "yeast", "genbase")]
    line = next(ln for ln in text[text.index("### View: tuned"):].splitlines()
                if ln.startswith("| ML-kNN-WF vs ML-kNN | hamming_loss |"))
    p_scipy = float(wilcoxon(x, y, zero_method="zsplit").pvalue)
    assert line.split("|")[9].strip() == f"{p_scipy:.3g}"
    wins = sum(a < b for a, b in zip(x, y, strict=True))
    assert line.split("|")[3].strip() == str(wins)


def test_shared_graphs_leave_an_invalid_k_to_the_learner():
    rng = np.random.default_rng(0)
    X, Y = rng.random((40, 5)), (rng.random((40, 3)) < 0.4).astype(int)
    graphs = NeighbourGraphs.for_learners([MLkNN(k=3), MLkNN(k=60)])
    assert graphs.k_max == 60
    with pytest.raises(ValueError, match="k=60 must be smaller than the number of training"):
        fit_predict(MLkNN(k=60), X[:30], Y[:30], X[30:], {"pred"}, graphs, np.arange(5))


CHOOSE = {"kind": P + "ChosenParameter", "parameter": "k", "criterion": "hamming_loss",
          "fixed": 10}


@pytest.mark.parametrize("change, key", [
    ({**CHOOSE, "criterion": "hamming"}, "criterion"),
    ({**CHOOSE, "pairs": [["a"]]}, "pairs"),
    ({**CHOOSE, "paper": {"columns": ["a", "b"], "hamming_loss": {"emotions": [0.1]}}},
     "paper.hamming_loss.emotions"),
    ({**CHOOSE, "tuning": 1}, "tuning"),
    ({"kind": P + "Ablation", "method": "m", "parameter": "p", "reference": "r"}, "metric"),
    ({"kind": P + "Choose"}, "kind"),
])
def test_report_section_errors_name_the_key(change, key):
    """A paper section is checked when the file is read: the error names the file, the
    section and its option."""
    from skmlfs.experiments import SpecError

    d = {"selectors": ["all"], "datasets": ["emotions"], "metrics": ["hamming_loss"],
         "report": {"section": [{"kind": "stability"}, change]}}
    with pytest.raises(SpecError, match=rf"<dict>: report\.section\[1\]\.{re.escape(key)}"):
        ExperimentSpec.from_dict(d)


def test_multivalued_nominal_keeps_the_nominal_attributes_with_more_than_two_values():
    from skmlfs.experiments._build import build_method
    from skmlfs.experiments._execute import nominal_columns

    class DS:
        feature_types = ["numeric", "nominal", "nominal", "nominal"]
        categories = [None, ["a", "b"], ["x", "y", "z"], ["0", "1"]]

    cols = nominal_columns(DS())
    assert tuple(cols) == (1, 2, 3) and cols.multivalued == (2,)
    est = build_method("mlknn", {"categorical_features": "multivalued_nominal"}, nominal=cols)
    assert est.categorical_features == [2]
    est = build_method("mlknn", {"categorical_features": "nominal"}, nominal=cols)
    assert est.categorical_features == [1, 2, 3]
    # positions among selected features (ranking [2, 0, 3]): nominal 2 -> 0, 3 -> 2
    pos = cols.positions(np.array([2, 0, 3]))
    assert tuple(pos) == (0, 2) and pos.multivalued == (0,)
    import pickle

    back = pickle.loads(pickle.dumps(cols))
    assert tuple(back) == (1, 2, 3) and back.multivalued == (2,)
