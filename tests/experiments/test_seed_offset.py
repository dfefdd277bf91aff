"""Seed sensitivity through the engine (issue #14): the method option ``seed_offset`` and the
report section ``SeedRobustness``."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    SpecError,
    run_experiment,
    write_report,
)
from skmlfs.experiments._planner import plan_experiment
from skmlfs.learners import MLkNN
from skmlfs.metrics import hamming_loss
from skmlfs.selection import ReliefFML

SEEDS_SECTION = "skmlfs.experiments.report.papers:SeedRobustness"
GEN = {"name": "toy", "generator": "skmlfs.datasets:make_multilabel_discrete",
       "params": {"n_samples": 60, "n_features": 8, "n_labels": 3, "random_state": 3}}
PLAIN = {"ML-kNN": {"method": "mlknn", "k": 5},
         "ML-kNN-WF": {"method": "weighted", "weighter": {"method": "relieff_ml", "s": 1.0},
                       "learner": {"method": "mlknn", "s": 1.0},
                       "variants": {"weighter__k+learner__k": [5]}}}
SEEDS = {"method": "weighted", "weighter": {"method": "relieff_ml", "k": 5},
         "learner": {"method": "mlknn", "k": 5}, "variants": {"seed_offset": [1000, 2000]}}


def _spec(learners, selectors=("all",), report=None):
    return ExperimentSpec.from_dict({
        "seed": 2013, "estimator_seed": "seed+split", "selectors": selectors,
        "learners": learners, "datasets": [GEN], "protocol": {"kind": "kfold", "k": 3},
        "discretizer": "none", "metrics": ["hamming_loss"], "report": report or {}})


def _ids(spec, tmp_path):
    with ResultStore(tmp_path / "plan.db") as st:
        plan = plan_experiment(spec, st)
    return {(c.learner.name, t.selector.name, t.split): c.cell_id
            for t in plan.tasks for c in t.cells}


def test_cells_without_seed_offset_keep_their_ids(tmp_path):
    """A method without ``seed_offset`` has the cell ids it had before the option existed
    (computed with the engine of main at 0e71269, the code the stores were filled with),
    also when seed-offset variants join the file."""
    before = {  # (learner, split) -> cell id under main at 0e71269
        ("ML-kNN", 0): "cb8d643a0cf7a5a20af463f8ee8eb4be",
        ("ML-kNN-WF[k=5]", 0): "f4a6fb7a978f958e4653470468577963",
        ("ML-kNN", 2): "fc47aec0cb2ecb6812de85397599684a",
        ("ML-kNN-WF[k=5]", 2): "a0338e980973c6c4b572d5f992fcea5e",
    }
    plain = _ids(_spec(PLAIN), tmp_path)
    both = _ids(_spec({**PLAIN, "ML-kNN-WF-seeds": SEEDS}), tmp_path)
    for (lr, split), cid in before.items():
        assert plain[(lr, "all", split)] == cid
        assert both[(lr, "all", split)] == cid
    new = {v for k, v in both.items() if k[0].startswith("ML-kNN-WF-seeds")}
    assert len(new) == 6 and not new & set(plain.values())


def test_seed_offset_reseeds_nested_estimators_and_selectors(tmp_path):
    """Learner variants: the weighter of split i samples with seed + i + offset; selector
    variants: the ranking is that of the selector seeded likewise."""
    spec = _spec({"ML-kNN-WF-seeds": SEEDS}, selectors={
        "all": {"method": "all"},
        "relieff": {"method": "relieff_ml", "k": 5, "variants": {"seed_offset": [0, 7]},
                    "n_features_to_select": [3],
                    "learners": ["ML-kNN-WF-seeds[seed_offset=1000]"]}})
    assert spec.learners[0].options == {"seed_offset": 1000}
    assert spec.learners[0].build(random_state=5).weighter.random_state == 1005
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    ds = make_multilabel_discrete(n_samples=60, n_features=8, n_labels=3, random_state=3)
    X, Y = np.asarray(ds.X), np.asarray(ds.Y)
    splits = spec.protocol.splits((X, Y), len(Y), 2013)
    learned = df[df.method == "all"]
    assert len(learned) == 6
    for _, row in learned.iterrows():
        s = splits[row["split"]]
        off = int(row["learner"].split("=")[1].rstrip("]"))
        Xtr, Xte = (X[idx][:, np.arange(X.shape[1])] for idx in (s.train, s.test))
        w = ReliefFML(k=5, random_state=2013 + row["split"] + off).fit(Xtr, Y[s.train])
        ref = MLkNN(k=5, feature_weights=w.weights_).fit(Xtr, Y[s.train])
        assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], ref.predict(Xte)))
    ranked = df[df.method.str.startswith("relieff[")]
    assert len(ranked) == 6
    for _, row in ranked.iterrows():
        s = splits[row["split"]]
        off = int(row["method"].split("=")[1].rstrip("]"))
        sel = ReliefFML(k=5, n_features_to_select=3,
                        random_state=2013 + row["split"] + off).fit(X[s.train], Y[s.train])
        assert list(row["features"]) == list(sel.selection_order_[:3])


def test_seed_offset_must_be_an_integer():
    bad = {**SEEDS, "variants": {"seed_offset": [1.5]}}
    with pytest.raises(SpecError, match=r"seed_offset: an integer"):
        _spec({"x": bad})


def test_seeds_view_summarises_the_seed_runs_and_leaves_the_main_tables(tmp_path):
    """``SeedRobustness``: the reference's mean, the mean ± std (ddof 0), min … max over the
    seeds of the per-seed split means, the seeds better than the reference, and for
    selectors the features two seeds share; the seed runs appear nowhere else."""
    report = {"columns": "learners",
              "section": [{"kind": SEEDS_SECTION, "methods": {"ML-kNN-WF-seeds": "ML-kNN"},
                           "metric": "hamming_loss"}]}
    learners = {"ML-kNN": {"method": "mlknn", "k": 5},
                "ML-kNN-WF-seeds": {**SEEDS, "variants": {"seed_offset": [1000, 2000, 3000]}}}
    spec = _spec(learners, report=report)
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    write_report(tmp_path / "r.db", tmp_path / "rep", experiment=spec.name, decimals=4,
                 figures=False)
    text = (tmp_path / "rep" / "README.md").read_text()
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    per_seed = (df[df.learner.str.startswith("ML-kNN-WF-seeds")]
                .groupby("learner")["hamming_loss"].mean().to_numpy())
    plain = df[df.learner == "ML-kNN"]["hamming_loss"].mean()
    sec = text[text.index("## Seed sensitivity: hamming loss"):]
    row = next(ln for ln in sec.splitlines() if ln.startswith("| toy |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[1:5] == ["ML-kNN-WF-seeds", "all", "8", "ML-kNN"]
    assert float(cells[5]) == pytest.approx(plain, abs=5e-5)
    mean, sd = (float(x) for x in cells[6].split("±"))
    assert mean == pytest.approx(per_seed.mean(), abs=5e-5)
    assert sd == pytest.approx(per_seed.std(ddof=0), abs=5e-5)
    lo, hi = (float(x) for x in cells[7].split("…"))
    assert (lo, hi) == (pytest.approx(per_seed.min(), abs=5e-5),
                        pytest.approx(per_seed.max(), abs=5e-5))
    assert cells[8] == f"{int(np.sum(per_seed < plain))} of 3" and cells[9] == "–"
    assert text[: text.index("## Seed sensitivity")].count("seed_offset") == 0


def test_seeds_view_feature_overlap_of_selector_seeds(tmp_path):
    report = {"section": [{"kind": SEEDS_SECTION, "methods": {"relieff-seeds": "relieff"}}]}
    sel = {"method": "relieff_ml", "k": 5, "n_features_to_select": [4]}
    spec = _spec({"ML-kNN": {"method": "mlknn", "k": 5}}, selectors={
        "relieff": sel, "relieff-seeds": {**sel, "variants": {"seed_offset": [1, 2, 3]}}},
        report=report)
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    write_report(tmp_path / "r.db", tmp_path / "rep", experiment=spec.name, figures=False)
    text = (tmp_path / "rep" / "README.md").read_text()
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    seeds = df[df.method.str.startswith("relieff-seeds[")]
    sizes = [len(set(a) & set(b)) for _, g in seeds.groupby("split")
             for a, b in itertools.combinations(g["features"], 2)]
    row = next(ln for ln in text[text.index("## Seed sensitivity"):].splitlines()
               if ln.startswith("| toy |"))
    assert row.split("|")[-2].strip() == (
        f"{np.mean(sizes):.1f} ({min(sizes)}–{max(sizes)}) of 4")


def test_seeds_view_errors_name_the_key():
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.methods"):
        _spec(PLAIN, report={"section": [{"kind": SEEDS_SECTION, "methods": ["ML-kNN-WF"]}]})
    with pytest.raises(SpecError, match=r"report\.section\[0\]\.metric"):
        _spec(PLAIN, report={"section": [{"kind": SEEDS_SECTION, "methods": {"a": "b"},
                                          "metric": "nope"}]})
