"""Methods as chains, nested tuning, variants and per-cell info (issue #14 §1)."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
from sklearn.model_selection import KFold
from sklearn.pipeline import Pipeline

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.experiments import ExperimentSpec, ResultStore, SpecError, run_experiment
from skmlfs.experiments._build import fitted_info
from skmlfs.learners import BinaryRelevance, MLkNN
from skmlfs.metrics import hamming_loss, ranking_loss
from skmlfs.model_selection import WeightedLearner, metric_scorer
from skmlfs.selection import SCLS, ReliefFML

GEN = {"name": "toy", "generator": "skmlfs.datasets:make_multilabel_discrete",
       "params": {"n_samples": 120, "n_features": 12, "n_labels": 4, "random_state": 3}}


def _data():
    ds = make_multilabel_discrete(n_samples=120, n_features=12, n_labels=4, random_state=3)
    return np.asarray(ds.X), np.asarray(ds.Y)


def test_weighted_learner_is_relieff_weights_in_mlknn():
    X, Y = _data()
    tr, te = np.arange(90), np.arange(90, 120)
    wl = WeightedLearner(ReliefFML(k=5, random_state=0), MLkNN(k=5)).fit(X[tr], Y[tr])
    w = ReliefFML(k=5, random_state=0).fit(X[tr], Y[tr]).weights_
    ref = MLkNN(k=5, feature_weights=w).fit(X[tr], Y[tr])
    np.testing.assert_array_equal(wl.feature_weights_, w)
    np.testing.assert_array_equal(wl.predict(X[te]), ref.predict(X[te]))
    np.testing.assert_allclose(wl.predict_proba(X[te]), ref.predict_proba(X[te]))
    # the weights matter: the plain learner differs
    assert not np.allclose(MLkNN(k=5).fit(X[tr], Y[tr]).predict_proba(X[te]),
                           ref.predict_proba(X[te]))
    with pytest.raises(ValueError, match="no parameter 'feature_weights'"):
        WeightedLearner(ReliefFML(), BinaryRelevance()).fit(X, Y)


def _spec(learners, selectors=("all",), **kw):
    return ExperimentSpec.from_dict(
        {"selectors": list(selectors), "learners": learners, "datasets": [GEN],
         "protocol": {"kind": "holdout", "repeats": 2, "test_size": 0.25},
         "discretizer": "none", "metrics": ["hamming_loss", "ranking_loss"], **kw}
    )


def test_weighted_and_pipeline_from_tables(tmp_path):
    spec = _spec({
        "wf": {"method": "weighted", "weighter": {"method": "relieff_ml", "k": 5},
               "learner": {"method": "mlknn", "k": 5}},
        "scls_br": {"method": "pipeline",
                    "steps": [{"method": "scls", "n_features_to_select": 4},
                              {"method": "br"}]},
    }, seed=7)
    wf = spec.learners[0].build(random_state=7)
    assert isinstance(wf, WeightedLearner) and wf.weighter.random_state == 7  # nested seed
    pipe = spec.learners[1].build(random_state=7)
    assert isinstance(pipe, Pipeline) and [n for n, _ in pipe.steps] == ["scls", "br"]
    summary = run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    assert summary.n_computed == 4
    with ResultStore(tmp_path / "r.db") as st:
        df = st.to_frame()
    X, Y = _data()
    # the cells see X[:, ranking] (a Fortran-ordered copy); ML-kNN's tied neighbour
    # distances round differently on C-ordered data, so the reference uses the same copy
    splits = spec.protocol.splits((X, Y), len(Y), 7)
    for _, row in df.iterrows():
        s = splits[row["split"]]
        if row["learner"] == "wf":
            Xtr, Xte = (X[idx][:, np.arange(X.shape[1])] for idx in (s.train, s.test))
            w = ReliefFML(k=5, random_state=7).fit(Xtr, Y[s.train]).weights_
            ref = MLkNN(k=5, feature_weights=w).fit(Xtr, Y[s.train])
            assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], ref.predict(Xte)))
            assert row["ranking_loss"] == pytest.approx(
                ranking_loss(Y[s.test], ref.predict_proba(Xte)))
            continue
        else:
            feats = SCLS(n_features_to_select=4).fit(X[s.train], Y[s.train]).selection_order_
            ref = Pipeline([("s", SCLS(n_features_to_select=4)),
                            ("b", BinaryRelevance(random_state=7))])
            ref.fit(X[s.train], Y[s.train])
            assert sorted(feats) == sorted(np.flatnonzero(ref[0].get_support()))
        assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], ref.predict(X[s.test])))
        assert row["ranking_loss"] == pytest.approx(
            ranking_loss(Y[s.test], ref.predict_proba(X[s.test])))


def test_nested_tuning_chooses_by_inner_cv_and_stores_the_choice(tmp_path):
    grid = [1, 3, 7]
    spec = _spec({"mlknn": {"method": "mlknn", "tune": {"k": grid}, "inner_cv": 3,
                            "scoring": "hamming_loss"}}, seed=5)
    run_experiment(spec, tmp_path / "t.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "t.db") as st:
        df = st.to_frame()
    X, Y = _data()
    splits = spec.protocol.splits((X, Y), len(Y), 5)
    assert len(df) == 2
    for _, row in df.iterrows():
        s = splits[row["split"]]
        Xtr, Ytr = X[s.train], Y[s.train]
        # reference: the inner folds on the training part only, mean Hamming loss per k
        inner = list(KFold(3, shuffle=True, random_state=5).split(Xtr))
        means = {k: np.mean([hamming_loss(Ytr[b], MLkNN(k=k).fit(Xtr[a], Ytr[a]).predict(Xtr[b]))
                             for a, b in inner]) for k in grid}
        best = min(grid, key=lambda k: (means[k], grid.index(k)))
        info = row["info"]["learner"]
        assert info["best_params"] == {"k": best}
        got = {c["params"]["k"]: -c["mean"] for c in info["inner_scores"]}
        for k in grid:
            assert got[k] == pytest.approx(means[k])
        ref = MLkNN(k=best).fit(Xtr, Ytr)
        assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], ref.predict(X[s.test])))
    # the tuning is part of the cell's identity
    plain = _spec({"mlknn": {"method": "mlknn"}}, seed=5)
    assert plain.learners[0].identity() != spec.learners[0].identity()
    assert "tuning" not in plain.learners[0].identity()  # ids of untuned methods unchanged


def test_tuning_a_pipeline_step_with_iterative_inner_cv():
    spec = _spec({"p": {"method": "pipeline",
                        "steps": [{"method": "mi_rank", "n_features_to_select": 3},
                                  {"method": "mlnb"}],
                        "tune": {"mi_rank__n_features_to_select": [2, 6]},
                        "inner_cv": {"k": 3, "stratification": "iterative"}}})
    est = spec.learners[0].build(random_state=0)
    X, Y = _data()
    est.fit(X, Y)
    info = fitted_info(est)
    assert set(info["best_params"]) == {"mi_rank__n_features_to_select"}
    assert type(est.cv).__name__ == "IterativeStratifiedKFold"
    assert len(info["inner_scores"]) == 2


def test_variants_expand_into_named_methods():
    spec = _spec({"knn": {"method": "mlknn", "variants": {"k": [3, 5], "s": [0.5, 1.0]}}})
    names = [m.name for m in spec.learners]
    assert names == ["knn[k=3,s=0.5]", "knn[k=3,s=1.0]", "knn[k=5,s=0.5]", "knn[k=5,s=1.0]"]
    assert spec.learners[2].params == {"k": 5, "s": 0.5}
    sel = ExperimentSpec.from_dict({"selectors": {"mem": {"method": "memetic", "variants": {
        "metric": ["one_error", "coverage"]}}}, "datasets": [GEN]}).selectors
    assert [m.name for m in sel] == ["mem[metric=one_error]", "mem[metric=coverage]"]


def test_errors_name_the_key():
    with pytest.raises(SpecError, match=r"learners.wf.weighter.kk: ReliefFML has no parameter"):
        _spec({"wf": {"method": "weighted", "weighter": {"method": "relieff_ml", "kk": 5},
                      "learner": {"method": "mlknn"}}})
    with pytest.raises(SpecError, match=r"learners.t.tune.kk: .*did you mean 'k'"):
        _spec({"t": {"method": "mlknn", "tune": {"kk": [1, 2]}}})
    with pytest.raises(SpecError, match=r"learners.p.steps\[1\]: unknown method 'nope'"):
        _spec({"p": {"method": "pipeline", "steps": [{"method": "scls"}, {"method": "nope"}]}})
    with pytest.raises(SpecError, match=r"inner_cv: only meaningful with a 'tune' grid"):
        _spec({"t": {"method": "mlknn", "inner_cv": 3}})
    with pytest.raises(SpecError, match=r"scoring"):
        _spec({"t": {"method": "mlknn", "tune": {"k": [1]}, "scoring": "acuracy"}})


def test_metric_scorer_signs():
    X, Y = _data()
    m = MLkNN(k=3).fit(X, Y)
    assert metric_scorer("hamming_loss")(m, X, Y) == pytest.approx(-hamming_loss(Y, m.predict(X)))
    assert metric_scorer("micro_f1")(m, X, Y) > 0


def test_pre_issue14_store_gains_the_info_column(tmp_path):
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    from skmlfs.experiments._store import _SCHEMA

    con.executescript(_SCHEMA)
    con.execute("ALTER TABLE cells DROP COLUMN info")  # the schema before the column
    con.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    con.commit()
    assert "info" not in {r[1] for r in con.execute("PRAGMA table_info(cells)")}
    con.close()
    spec = _spec({"mlknn": {"method": "mlknn", "tune": {"k": [1, 3]}, "inner_cv": 2}})
    run_experiment(spec, db, verbose=False, progress=False)
    con = sqlite3.connect(db)
    infos = [json.loads(i) for (i,) in con.execute("SELECT info FROM cells")]
    assert len(infos) == 2 and all("best_params" in i["learner"] for i in infos)


def test_one_wrapper_search_per_metric_with_its_history(tmp_path):
    spec = ExperimentSpec.from_dict({
        "selectors": {"mem": {"method": "memetic", "population_size": 6,
                              "max_evaluations": 20,
                              "variants": {"metric": ["multilabel_accuracy", "ranking_loss"]}}},
        "n_features_to_select": 3, "learners": ["mlnb"], "datasets": [GEN], "seed": 1,
        "protocol": {"kind": "holdout", "repeats": 1}, "metrics": ["hamming_loss"],
    })
    run_experiment(spec, tmp_path / "w.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "w.db") as st:
        df = st.to_frame()
    assert sorted(df.method) == ["mem[metric=multilabel_accuracy]", "mem[metric=ranking_loss]"]
    from skmlfs.learners import MLNB  # the registry's default learner of "memetic"
    from skmlfs.selection import MemeticSelector

    X, Y = _data()
    s = spec.protocol.splits((X, Y), len(Y), 1)[0]
    for _, row in df.iterrows():
        metric = row["method"].split("=")[1].rstrip("]")
        hist = row["info"]["selector"]["history"]
        ref = MemeticSelector(MLNB(), n_features_to_select=3, population_size=6, max_evaluations=20,
                              metric=metric, random_state=1).fit(X[s.train], Y[s.train])
        assert hist == [float(v) for v in ref.history_["best_loss"]]
        assert row["info"]["selector"]["n_evaluations"] == ref.n_evaluations_ == len(hist)
        assert all(a >= b for a, b in zip(hist, hist[1:], strict=False))  # best so far
        assert row["features"] == ref.selection_order_[:3].tolist()


def test_search_histories_table_and_convergence_figure(tmp_path):
    from skmlfs.experiments import write_report
    from skmlfs.experiments._histories import search_histories

    spec = ExperimentSpec.from_dict({
        "selectors": {"mem": {"method": "memetic", "population_size": 6,
                              "max_evaluations": 15,
                              "variants": {"metric": ["multilabel_accuracy", "one_error"]}},
                      "scls": "scls"},
        "n_features_to_select": [2, 3], "learners": ["mlnb"], "datasets": [GEN], "seed": 2,
        "protocol": {"kind": "holdout", "repeats": 2}, "metrics": ["hamming_loss"],
    })
    db = tmp_path / "h.db"
    run_experiment(spec, db, verbose=False, progress=False)
    with ResultStore(db) as st:
        df = st.to_frame()
    h = search_histories(df)
    assert set(h["method"]) == {"mem[metric=multilabel_accuracy]", "mem[metric=one_error]"}
    for (meth, split), g in h.groupby(["method", "split"]):
        cell = df[(df.method == meth) & (df.split == split) & (df.k == 2)].iloc[0]
        assert g["best_loss"].tolist() == cell["info"]["selector"]["history"]
        assert g["evaluation"].tolist() == list(range(1, len(g) + 1))
    files = write_report(db, tmp_path / "rep", experiment=spec.name)
    fig = tmp_path / "rep" / "figures" / "convergence_toy.png"
    assert fig in files and fig.stat().st_size > 0
    assert "## Search convergence" in (tmp_path / "rep" / "README.md").read_text()


def test_variants_keep_the_tuning_grid():
    spec = _spec({"t": {"method": "weighted", "weighter": {"method": "relieff_ml"},
                        "learner": {"method": "mlknn"},
                        "variants": {"weighter__k": [3, 6]},
                        "tune": {"learner__k": [1, 5]}, "inner_cv": 2}})
    assert [m.name for m in spec.learners] == ["t[k=3]", "t[k=6]"]
    for m, k in zip(spec.learners, (3, 6), strict=True):
        assert m.tuning["grid"] == {"learner__k": [1, 5]} and "tune" not in m.params
        est = m.build(random_state=0)
        assert type(est).__name__ == "GridSearchCV" and est.estimator.weighter.k == k
    import skmlfs.model_selection as ms

    assert ms.WeightedLearner is WeightedLearner and callable(ms.metric_scorer)


class _CountingReliefF(ReliefFML):
    fits = 0

    def fit(self, X, Y):
        type(self).fits += 1
        return super().fit(X, Y)


def test_weighted_learners_of_one_split_share_a_seeded_weighter_fit():
    from skmlfs.learners import DMLkNN

    X, Y = _data()
    _CountingReliefF.fits = 0
    a = WeightedLearner(_CountingReliefF(k=4, random_state=3), MLkNN(k=4)).fit(X, Y)
    b = WeightedLearner(_CountingReliefF(k=4, random_state=3), DMLkNN(k=4)).fit(X, Y)
    assert _CountingReliefF.fits == 1  # the second learner reuses the fit
    np.testing.assert_array_equal(a.feature_weights_, b.feature_weights_)
    ref = ReliefFML(k=4, random_state=3).fit(X, Y).weights_
    np.testing.assert_array_equal(b.feature_weights_, ref)
    WeightedLearner(_CountingReliefF(k=4, random_state=4), MLkNN(k=4)).fit(X, Y)
    WeightedLearner(_CountingReliefF(k=4, random_state=3), MLkNN(k=4)).fit(X[1:], Y[1:])
    assert _CountingReliefF.fits == 3  # another seed, other data: fitted again
    for _ in range(2):  # unseeded: never cached
        WeightedLearner(_CountingReliefF(k=4), MLkNN(k=4)).fit(X, Y)
    assert _CountingReliefF.fits == 5


def test_tuned_selector_prefixes_of_the_chosen_ranking(tmp_path):
    from sklearn.model_selection import GridSearchCV

    from skmlfs.learners import MLNB
    from skmlfs.selection import MDMR

    spec = ExperimentSpec.from_dict({
        "selectors": {"mdmr_t": {"method": "mdmr",
                                 "tune": {"variant": ["lin2015", "interaction"]},
                                 "inner_cv": 3, "scoring": "ranking_loss",
                                 "tune_with": {"method": "mlnb"}}},
        "n_features_to_select": [2, 5], "learners": ["mlnb"], "datasets": [GEN], "seed": 4,
        "protocol": {"kind": "holdout", "repeats": 2}, "metrics": ["ranking_loss"],
    })
    run_experiment(spec, tmp_path / "s.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "s.db") as st:
        df = st.to_frame()
    X, Y = _data()
    splits = spec.protocol.splits((X, Y), len(Y), 4)
    for split in (0, 1):
        s = splits[split]
        Xtr, Ytr = X[s.train], Y[s.train]
        ref = GridSearchCV(
            Pipeline([("selector", MDMR(n_features_to_select=5)), ("learner", MLNB())]),
            {"selector__variant": ["lin2015", "interaction"]},
            scoring=metric_scorer("ranking_loss"),
            cv=KFold(3, shuffle=True, random_state=4)).fit(Xtr, Ytr)
        best = ref.best_params_["selector__variant"]
        ranking = MDMR(n_features_to_select=5, variant=best).fit(Xtr, Ytr).selection_order_
        rows = df[df.split == split].sort_values("k")
        assert rows.k.tolist() == [2, 5]
        for _, row in rows.iterrows():
            assert row["features"] == ranking[: row["k"]].tolist()
            assert row["info"]["selector"]["best_params"] == {"variant": best}
    with pytest.raises(SpecError, match="tune_with"):
        ExperimentSpec.from_dict({"selectors": {"m": {"method": "mdmr",
                                                      "tune": {"variant": ["lin2015"]}}},
                                  "datasets": [GEN]})
    with pytest.raises(SpecError, match=r"tune_with.kk: MLNB has no parameter"):
        ExperimentSpec.from_dict({"selectors": {"m": {
            "method": "mdmr", "tune": {"variant": ["lin2015"]},
            "tune_with": {"method": "mlnb", "kk": 1}}}, "datasets": [GEN]})


def _coordinate_reference(make, grid, start, X, Y, folds, score):
    """One parameter at a time, sweeps until nothing changes (straightforward loops)."""
    names = list(grid)
    cur = dict(start)

    def cv(setting):
        return np.mean([score(make(**setting).fit(X[a], Y[a]), X[b], Y[b]) for a, b in folds])

    while True:
        changed = False
        for p in names:
            vals = {v: cv({**cur, p: v}) for v in grid[p]}
            best = max(vals.values())
            if vals[cur[p]] < best:
                cur[p] = next(v for v in grid[p] if vals[v] == best)
                changed = True
        if not changed:
            return cur


def test_coordinate_search_matches_a_reference_and_is_stored(tmp_path):
    from skmlfs.model_selection import CoordinateSearchCV

    X, Y = _data()
    grid = {"k": [1, 3, 7, 11], "s": [0.1, 1.0, 3.0]}
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    sc = metric_scorer("ranking_loss")
    cs = CoordinateSearchCV(MLkNN(), grid, scoring=sc,
                            cv=KFold(3, shuffle=True, random_state=0),
                            start={"k": 3, "s": 1.0}).fit(X, Y)
    ref = _coordinate_reference(MLkNN, grid, {"k": 3, "s": 1.0}, X, Y, folds, sc)
    assert cs.best_params_ == ref
    n_eval = len(cs.cv_results_["params"])
    assert cs.n_sweeps_ >= 1 and n_eval <= 4 * 3  # each setting cross-validated once
    assert len({tuple(sorted(p.items())) for p in cs.cv_results_["params"]}) == n_eval
    np.testing.assert_allclose(cs.predict_proba(X), MLkNN(**ref).fit(X, Y).predict_proba(X))
    # in an experiment: tune_search / tune_start keys, the choice stored with the cell
    spec = _spec({"knn": {"method": "mlknn", "tune": grid, "tune_search": "coordinate",
                          "tune_start": {"k": 3, "s": 1.0}, "inner_cv": 3,
                          "scoring": "ranking_loss"}}, seed=0)
    assert type(spec.learners[0].build(random_state=0)).__name__ == "CoordinateSearchCV"
    run_experiment(spec, tmp_path / "c.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "c.db") as st:
        df = st.to_frame()
    assert all(set(i["learner"]["best_params"]) == {"k", "s"} for i in df["info"])
    with pytest.raises(SpecError, match="tune_start.k: 4 is not in the grid"):
        _spec({"knn": {"method": "mlknn", "tune": grid, "tune_search": "coordinate",
                       "tune_start": {"k": 4}}})
    with pytest.raises(SpecError, match="tune_start: only with tune_search"):
        _spec({"knn": {"method": "mlknn", "tune": grid, "tune_start": {"k": 3}}})


def test_export_writes_info_as_json(tmp_path):
    import pandas as pd

    spec = _spec({"mlknn": {"method": "mlknn", "tune": {"k": [1, 3]}, "inner_cv": 2}})
    run_experiment(spec, tmp_path / "e.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "e.db") as st:
        p = st.export(tmp_path / "cells.csv")
    back = pd.read_csv(p)
    assert all(json.loads(i)["learner"]["best_params"]["k"] in (1, 3) for i in back["info"])


def test_learner_evaluates_only_its_selectors(tmp_path):
    """A learner's ``selectors`` option: it evaluates those selectors (and their variants)
    only; the other learners' cells keep their ids (same as without the new learner), and
    its values equal the learner fitted on the selector's features by hand."""
    from skmlfs.experiments._planner import plan_experiment
    from skmlfs.learners import MLNB

    base = {"selectors": {"scls": {"method": "scls"},
                          "rf": {"method": "relieff_ml", "variants": {"k": [3, 5]}}},
            "n_features_to_select": 3, "datasets": [GEN], "seed": 5, "discretizer": "none",
            "protocol": {"kind": "holdout", "repeats": 2, "test_size": 0.25},
            "metrics": ["hamming_loss"]}
    one = ExperimentSpec.from_dict({**base, "learners": ["mlnb"]})
    two = ExperimentSpec.from_dict({**base, "learners": [
        "mlnb", {"name": "nb1", "method": "mlnb", "alpha": 1.0, "selectors": ["rf"]}]})
    with ResultStore(tmp_path / "plan.db") as st:
        ids_one = set(plan_experiment(one, st).cell_ids)
        ids_two = set(plan_experiment(two, st).cell_ids)
    assert ids_one < ids_two and len(ids_two - ids_one) == 2 * 2  # 2 splits x 2 variants
    run_experiment(two, tmp_path / "l.db", verbose=False, progress=False)
    with ResultStore(tmp_path / "l.db") as st:
        df = st.to_frame()
    nb1 = df[df.learner == "nb1"]
    assert sorted(set(nb1.method)) == ["rf[k=3]", "rf[k=5]"]
    assert set(df[df.learner == "mlnb"].method) == {"scls", "rf[k=3]", "rf[k=5]"}
    X, Y = _data()
    splits = two.protocol.splits((X, Y), len(Y), 5)
    for _, row in nb1.iterrows():
        s = splits[int(row["split"])]
        f = np.asarray(row["features"])
        pred = MLNB(alpha=1.0).fit(X[s.train][:, f], Y[s.train]).predict(X[s.test][:, f])
        assert row["hamming_loss"] == pytest.approx(hamming_loss(Y[s.test], pred), abs=1e-12)
    with pytest.raises(SpecError, match=r"learners\.nb1\.selectors"):
        ExperimentSpec.from_dict({**base, "learners": [
            {"name": "nb1", "method": "mlnb", "selectors": ["nope"]}]})
    with pytest.raises(SpecError, match=r"selectors\.scls\.selectors: only for learners"):
        ExperimentSpec.from_dict({**base, "learners": ["mlnb"],
                                  "selectors": {"scls": {"method": "scls",
                                                         "selectors": ["rf"]}}})
