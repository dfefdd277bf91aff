"""The RLEFS protocol (Li, Hu & Gao 2022, §5.1) through the experiment engine (#14).

A tiny subset of ``experiments/rlefs_paper.toml`` (flags' Mulan train/test split, budgets
1..3, a 2-fold inner CV, small grids) runs through ``run_experiment``; every cell must equal
a straightforward computation written here: min-max scaling on the training part,
RLEFS's parameters and the SVM's C searched jointly by coordinate search (strict
improvement, sweeps to a fixed point) for BR + SVM and separately for BR + 3-NN, criterion
(Macro-F1 + Micro-F1)/2, C re-tuned per budget on the selected columns (ascending order),
PPT+MI on the raw data, RALM-FS refitted per budget.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import KFold
from sklearn.multiclass import OneVsRestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import LinearSVC

from skmlfs.datasets import load
from skmlfs.experiments import (
    ExperimentSpec,
    FractionalOnly,
    MinMaxScale,
    ResultStore,
    SpecError,
    run_experiment,
)
from skmlfs.metrics import macro_f1, micro_f1
from skmlfs.model_selection import MeanScorer
from skmlfs.selection import PPTMI, RALMFS, RLEFS

C_GRID = [0.1, 1.0, 10.0]
RLEFS_GRID = {"alpha": [0.1, 0.5], "lambda_": [0.1, 0.5]}
START = {"alpha": 0.5, "lambda_": 0.5}


def _spec(flags_train, flags_test, **extra) -> ExperimentSpec:
    mean = ["macro_f1", "micro_f1"]
    return ExperimentSpec.from_dict({
        "name": "rlefs_tiny", "seed": 0, "n_features_to_select": "5%..15%",  # d = 19: k = 1, 2, 3
        "metrics": ["macro_f1", "micro_f1"], "protocol": "train_test",
        "discretizer": {"method": "skmlfs.experiments:MinMaxScale"},
        "datasets": [{"name": "flags", "train": str(flags_train), "test": str(flags_test)}],
        "learners": {
            "svm": {"method": "sklearn.multiclass:OneVsRestClassifier",
                    "estimator": {"method": "sklearn.svm:LinearSVC", "C": 1.0,
                                  "max_iter": 1000, "random_state": 0},
                    "tune": {"estimator__C": C_GRID}, "inner_cv": 2, "scoring": mean},
            "knn": {"method": "sklearn.neighbors:KNeighborsClassifier", "n_neighbors": 3},
        },
        "selectors": {
            "RLEFS": {"method": "rlefs", "random_state": 0, "max_iter": 30,
                      "tune": RLEFS_GRID, "tune_with": "learner", "inner_cv": 2,
                      "scoring": mean, "tune_search": "coordinate", "tune_start": START,
                      "feature_order": "index"},
            "PPTMI": {"method": "ppt_mi", "preprocess": "none", "feature_order": "index",
                      "discretizer": {"method": "skmlfs.experiments:FractionalOnly",
                                      "discretizer": {"method": "equal_frequency",
                                                      "n_bins": 3}}},
            "RALMFS": {"method": "ralmfs", "random_state": 0, "max_iter": 30,
                       "feature_order": "index"},
        },
        **extra,
    })


# ------------------------------------------------------------------ the reference
def _svm(C):
    return OneVsRestClassifier(LinearSVC(C=C, max_iter=1000, random_state=0))


def _fit_predict(clf, A, Y, B):
    return np.asarray(clf.fit(A, Y).predict(B))


def _crit(Y, P):
    return np.mean([macro_f1(Y, P, zero_division=0), micro_f1(Y, P, zero_division=0)])


def _reference(Xtr, Ytr, Xte, Yte):
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    rng = np.where(hi - lo > 0, hi - lo, 1.0)
    Xs, Xts = (Xtr - lo) / rng, np.clip((Xte - lo) / rng, 0.0, 1.0)
    ks, kmax = [1, 2, 3], 3
    folds = list(KFold(2, shuffle=True, random_state=0).split(Xs))

    def cv(p, learner):  # mean over the folds of the criterion on the validation part
        out = []
        for tr, va in folds:
            sel = RLEFS(n_features_to_select=kmax, random_state=0, max_iter=30,
                        alpha=p["alpha"], lambda_=p["lambda_"]).fit(Xs[tr], Ytr[tr])
            f = list(np.sort(sel.selection_order_[:kmax]))
            clf = _svm(p["C"]) if learner == "svm" else KNeighborsClassifier(3)
            out.append(_crit(Ytr[va], _fit_predict(clf, Xs[tr][:, f], Ytr[tr], Xs[va][:, f])))
        return np.mean(out)

    def coordinate(learner):
        axes = list(RLEFS_GRID.items()) + ([("C", C_GRID)] if learner == "svm" else [])
        p = {**START, **({"C": 1.0} if learner == "svm" else {})}
        cur = cv(p, learner)
        while True:
            changed = False
            for name, values in axes:
                for v in values:
                    s = cv({**p, name: v}, learner)
                    if s > cur + 1e-12:
                        p, cur, changed = {**p, name: v}, s, True
            if not changed:
                return p

    def tune_C(f):
        means = [np.mean([_crit(Ytr[va], _fit_predict(_svm(C), Xs[tr][:, f], Ytr[tr],
                                                       Xs[va][:, f])) for tr, va in folds])
                 for C in C_GRID]
        return C_GRID[int(np.argmax(means))]

    def evaluate(feats, learner):
        out = {}
        for k, f in feats.items():
            clf = _svm(tune_C(f)) if learner == "svm" else KNeighborsClassifier(3)
            P = _fit_predict(clf, Xs[:, f], Ytr, Xts[:, f])
            out[k] = (macro_f1(Yte, P, zero_division=0), micro_f1(Yte, P, zero_division=0), f)
        return out

    ref, chosen = {}, {}
    for learner in ("svm", "knn"):
        p = coordinate(learner)
        chosen[learner] = p
        sel = RLEFS(n_features_to_select=kmax, random_state=0, max_iter=30,
                    alpha=p["alpha"], lambda_=p["lambda_"]).fit(Xs, Ytr)
        ref[("RLEFS", learner)] = evaluate(
            {k: list(np.sort(sel.selection_order_[:k])) for k in ks}, learner)
        # flags is integer-valued: PPT+MI counts the raw codes (no discretization)
        r = PPTMI(n_features_to_select=kmax, discretizer=None).fit(Xtr, Ytr).selection_order_
        ref[("PPTMI", learner)] = evaluate({k: list(np.sort(r[:k])) for k in ks}, learner)
        ref[("RALMFS", learner)] = evaluate({
            k: list(RALMFS(n_features_to_select=k, random_state=0, max_iter=30)
                    .fit(Xs, Ytr).get_support(indices=True)) for k in ks}, learner)
    return ref, chosen


@pytest.mark.paper
def test_rlefs_protocol_cells_equal_a_straightforward_computation(dataset_path, tmp_path):
    tr = dataset_path("mulan/flags/flags-train.arff")
    te = dataset_path("mulan/flags/flags-test.arff")
    xml = dataset_path("mulan/flags/flags.xml")
    spec = _spec(tr, te)
    db = tmp_path / "r.db"
    s1 = run_experiment(spec, db, verbose=False, progress=False)
    assert s1.n_failed_tasks == 0 and s1.n_computed == 3 * 3 * 2
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    a, b = load(tr, labels=xml), load(te, labels=xml)
    Xtr, Xte = np.asarray(a.X, dtype=float), np.asarray(b.X, dtype=float)
    Ytr, Yte = np.asarray(a.Y, dtype=np.uint8), np.asarray(b.Y, dtype=np.uint8)
    ref, chosen = _reference(Xtr, Ytr, Xte, Yte)
    assert len(df) == 18
    for _, row in df.iterrows():
        ma, mi, f = ref[(row["method"], row["learner"])][row["k"]]
        assert sorted(row["features"]) == [int(i) for i in f], (row["method"], row["k"])
        assert row["macro_f1"] == ma and row["micro_f1"] == mi, (row["method"], row["k"])
        if row["method"] == "RLEFS":  # the joint choice is stored with the cell
            best = row["info"]["selector"]["best_params"]
            want = chosen[row["learner"]]
            assert best == {"alpha": want["alpha"], "lambda_": want["lambda_"],
                            **({"estimator__C": want["C"]} if "C" in want else {})}
    # the optimiser's objective per iteration (Fig. 7) is stored with the cells and drawn
    from skmlfs.experiments._objectives import objective_curves, plot_objectives

    lo, rng = Xtr.min(0), np.where(np.ptp(Xtr, 0) > 0, np.ptp(Xtr, 0), 1.0)
    t = objective_curves(df)
    for learner, p in chosen.items():
        obj = RLEFS(n_features_to_select=3, random_state=0, max_iter=30, alpha=p["alpha"],
                    lambda_=p["lambda_"]).fit((Xtr - lo) / rng, Ytr).objective_
        got = t[(t.method == "RLEFS") & (t.learner == learner)].sort_values("iteration")
        assert got["objective"].tolist() == obj.tolist()
    assert set(t.method) == {"RLEFS", "RALMFS"}
    files = plot_objectives(df, tmp_path / "fig")
    assert [f.name for f in files] == ["objective_flags.png"] and files[0].stat().st_size > 0
    # resumable: the same run again computes nothing
    s2 = run_experiment(spec, db, verbose=False, progress=False)
    assert s2.n_computed == 0 and s2.n_cached == 18


def test_tune_budget_largest_and_by_dataset(dataset_path, tmp_path):
    """C tuned once, on the largest budget's features, and reused at every budget (RLEFS's
    enron protocol), switched on for one data set by ``by_dataset``."""
    tr = dataset_path("mulan/flags/flags-train.arff")
    te = dataset_path("mulan/flags/flags-test.arff")
    xml = dataset_path("mulan/flags/flags.xml")
    spec = _spec(tr, te)
    svm = dict(spec.learners[0].params)
    d = {
        "name": "t", "seed": 0, "n_features_to_select": "5%..15%", "metrics": ["macro_f1"],
        "protocol": "train_test", "discretizer": {"method": "skmlfs.experiments:MinMaxScale"},
        "datasets": [{"name": "flags", "train": str(tr), "test": str(te)}],
        "selectors": {"PPTMI": {"method": "ppt_mi", "preprocess": "none",
                                "discretizer": None, "feature_order": "index"}},
        "learners": {"svm": {"method": spec.learners[0].method, **svm,
                             "tune": {"estimator__C": C_GRID}, "inner_cv": 2,
                             "scoring": ["macro_f1", "micro_f1"],
                             "by_dataset": {"flags": {"tune_budget": "largest"}}}},
    }
    run_experiment(ExperimentSpec.from_dict(d), tmp_path / "l.db", verbose=False,
                   progress=False)
    with ResultStore(tmp_path / "l.db", readonly=True) as st:
        df = st.to_frame().sort_values("k")
    a, b = load(tr, labels=xml), load(te, labels=xml)
    Xtr, Xte = np.asarray(a.X, dtype=float), np.asarray(b.X, dtype=float)
    Ytr, Yte = np.asarray(a.Y, dtype=np.uint8), np.asarray(b.Y, dtype=np.uint8)
    lo, rng = Xtr.min(0), np.where(np.ptp(Xtr, 0) > 0, np.ptp(Xtr, 0), 1.0)
    Xs, Xts = (Xtr - lo) / rng, np.clip((Xte - lo) / rng, 0, 1)
    r = PPTMI(n_features_to_select=3, discretizer=None).fit(Xtr, Ytr).selection_order_
    folds = list(KFold(2, shuffle=True, random_state=0).split(Xs))
    f3 = list(np.sort(r[:3]))
    means = [np.mean([_crit(Ytr[va], _fit_predict(_svm(C), Xs[t][:, f3], Ytr[t],
                                                   Xs[va][:, f3])) for t, va in folds])
             for C in C_GRID]
    C = C_GRID[int(np.argmax(means))]
    for _, row in df.iterrows():
        f = list(np.sort(r[: row["k"]]))
        P = _fit_predict(_svm(C), Xs[:, f], Ytr, Xts[:, f])
        assert row["macro_f1"] == macro_f1(Yte, P, zero_division=0)
        assert row["info"]["learner"]["best_params"] == {"estimator__C": C}
        assert row["info"]["learner"]["tuned_at_k"] == 3


def test_pieces_and_errors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    Y = (rng.random((30, 3)) < 0.4).astype(int)
    s = MinMaxScale().fit(X[:20])
    T = s.transform(X[20:])
    assert T.min() >= 0 and T.max() <= 1
    lo, hi = X[:20].min(0), X[:20].max(0)
    np.testing.assert_array_equal(s.transform(X[:20]), (X[:20] - lo) / (hi - lo))
    import scipy.sparse as sp

    Xp = sp.random(20, 5, density=0.3, random_state=0, format="csr")
    Sp = MinMaxScale().fit(Xp).transform(Xp)
    assert sp.issparse(Sp)
    hi = Xp.toarray().max(0)  # non-negative: lo = 0; a multiplication by 1 / range
    np.testing.assert_array_equal(Sp.toarray(), Xp.toarray() * (1.0 / np.where(hi > 0, hi, 1)))
    # test values above the training maximum are clipped as on the dense path, sparsity kept
    Xt = Xp.copy()
    Xt.data = Xt.data * 3.0
    St = MinMaxScale().fit(Xp).transform(Xt)
    assert sp.issparse(St) and St.max() <= 1.0
    dense = MinMaxScale().fit(Xp.toarray()).transform(Xt.toarray())
    np.testing.assert_allclose(St.toarray(), dense, rtol=1e-15, atol=0)
    # integer-valued data is left as it is; fractional data is discretized
    from skmlfs.discretize import EqualFrequencyDiscretizer

    Xi = rng.integers(0, 4, size=(30, 3))
    assert FractionalOnly(EqualFrequencyDiscretizer(n_bins=3)).fit(Xi, Y).transform(Xi) is Xi
    d = FractionalOnly(EqualFrequencyDiscretizer(n_bins=3)).fit(X, Y).transform(X)
    np.testing.assert_array_equal(d, EqualFrequencyDiscretizer(n_bins=3).fit(X, Y).transform(X))
    # the mean of two metrics (greater is better)
    clf = KNeighborsClassifier(3).fit(X, Y)
    P = clf.predict(X)
    assert MeanScorer([{"metric": "macro_f1"}, {"metric": "micro_f1"}])(clf, X, Y) == \
        np.mean([macro_f1(Y, P), micro_f1(Y, P)])
    base = {"datasets": ["skmlfs.datasets:make_multilabel_discrete"], "selectors": {}}
    for body, msg in (
        ({"method": "mdmr", "budgets": "each"}, "budgets"),
        ({"method": "mdmr", "feature_order": "random"}, "feature_order"),
        ({"method": "mdmr", "by_dataset": {"x": {"k": 1}}}, "by_dataset.x"),
        ({"method": "mdmr", "tune": {"variant": ["lin2015"]}, "tune_with": "learner",
          "scoring": ["macro_f1", "nope"]}, r"scoring\[1\]"),
    ):
        with pytest.raises(SpecError, match=msg):
            ExperimentSpec.from_dict({**base, "selectors": {"m": body},
                                      "datasets": [{"generator": base["datasets"][0]}]})


def test_the_paper_file_is_an_engine_experiment(datasets_dir, monkeypatch):
    from pathlib import Path

    from skmlfs.experiments import load_experiment

    monkeypatch.setenv("MLFS_DATASETS", str(datasets_dir))
    spec = load_experiment(Path(__file__).resolve().parents[2] / "experiments"
                           / "rlefs_paper.toml")
    names = [m.name for m in spec.selectors]
    assert names[:9] == ["PPTMI", "PPTCHI", "MIFS", "MDMR", "MDMR-lin2015", "LRFS", "RALMFS",
                         "RLEFS", "ALL"]
    kinds = {t["kind"].rsplit(":", 1)[-1]: t for t in spec.report["section"]}
    # every feature and the former MDMR reading are reference rows, not compared
    assert kinds["ReferenceMethods"]["methods"] == ["ALL", "MDMR-lin2015"]
    mdmr = {m.name: m for m in spec.selectors[:5]}
    assert "variant" not in mdmr["MDMR"].params  # the library's default reading
    assert mdmr["MDMR-lin2015"].params["variant"] == "lin2015"
    sens = [m for m in spec.selectors[9:] if m.options.get("sensitivity")]
    seeds = [m for m in spec.selectors[9:] if "seed_offset" in m.options]
    assert len(sens) == 4 * 7 and len(seeds) == 2 * 5
    assert len(sens) + len(seeds) == len(spec.selectors) - 9
    # the former script's initialisation seeds 0-4 (experiment seed 0), one learner each
    assert sorted(m.options["seed_offset"] for m in seeds) == sorted([0, 1, 2, 3, 4] * 2)
    assert sorted(tuple(m.options["learners"]) for m in seeds) == (
        [("BR-3NN",)] * 5 + [("BR-SVM",)] * 5)
    assert set(kinds["SeedRobustness"]["methods"]) == {"RLEFS-seeds-SVM", "RLEFS-seeds-3NN"}
    rlefs = spec.selectors[7]
    assert rlefs.tuning["tune_with"] == "learner" and rlefs.tuning["search"] == "coordinate"
    assert rlefs.options["by_dataset"]["flags"]["tuning"].get("search", "grid") == "grid"
    assert [m.name for m in spec.learners] == ["BR-SVM", "BR-3NN"]
    assert spec.learners[0].options["by_dataset"]["enron"]["tuning"]["budget"] == "largest"


@pytest.mark.subprocess
def test_benchmark_reduced_run_by_datasets_and_selectors(tmp_path):
    import subprocess

    from _subproc import mlfs

    gen = "skmlfs.datasets:make_multilabel_discrete"
    p = tmp_path / "small.toml"
    p.write_text(f"""
name = "small"
n_features_to_select = [2, 3]
selectors = ["mi_rank", "mdmr"]
metrics = ["hamming_loss"]
protocol = {{ kind = "holdout", repeats = 2 }}
[[datasets]]
name = "a"
generator = "{gen}"
params = {{ n_samples = 60, n_features = 8, n_labels = 3, random_state = 0 }}
[[datasets]]
name = "b"
generator = "{gen}"
params = {{ n_samples = 60, n_features = 8, n_labels = 3, random_state = 1 }}
""")
    db = tmp_path / "s.db"
    subprocess.run(mlfs("benchmark", p, "--db", db, "--quiet", "--no-report", "--datasets",
                        "b", "--selectors", "mdmr"), check=True, cwd=tmp_path)
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    assert set(df.dataset) == {"b"} and set(df.method) == {"mdmr"} and len(df) == 2 * 2
    bad = subprocess.run(mlfs("benchmark", p, "--db", db, "--quiet", "--selectors", "nope"),
                         cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode != 0 and "--selectors" in bad.stderr and "mi_rank" in bad.stderr


def test_sensitivity_study_cells_and_figure(tmp_path):
    """variants + sensitivity + datasets / n_features / learners options: cells only where
    declared, left out of the tables, drawn as a figure (RLEFS Fig. 6)."""
    from skmlfs.experiments import write_report

    gen = "skmlfs.datasets:make_multilabel_discrete"
    spec = ExperimentSpec.from_dict({
        "name": "sens", "n_features_to_select": [2, 4], "metrics": ["macro_f1", "micro_f1"],
        "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [{"name": "a", "generator": gen, "params": {"n_samples": 80,
                      "n_features": 10, "n_labels": 3, "random_state": 0}},
                     {"name": "b", "generator": gen, "params": {"n_samples": 80,
                      "n_features": 10, "n_labels": 3, "random_state": 1}}],
        "learners": {"knn": {"method": "sklearn.neighbors:KNeighborsClassifier",
                             "n_neighbors": 3}, "nb": "mlnb"},
        "selectors": {"mdmr": "mdmr", "mi_rank": "mi_rank",
                      "r": {"method": "rlefs", "random_state": 0, "max_iter": 5,
                            "variants": {"alpha": [0.1, 0.5]}, "sensitivity": "alpha",
                            "datasets": ["b"], "n_features_to_select": "30%", "learners": ["knn"],
                            "feature_order": "index"}},
    })
    db = tmp_path / "s.db"
    run_experiment(spec, db, verbose=False, progress=False)
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    s = df[df.method.str.startswith("r[")]
    assert set(s.method) == {"r[alpha=0.1]", "r[alpha=0.5]"}
    assert set(s.dataset) == {"b"} and set(s.learner) == {"knn"} and set(s.k) == {3}
    assert len(s) == 2 * 2  # 2 variants x 2 splits
    assert len(df) == len(s) + 2 * 2 * 2 * 2 * 2  # datasets x splits x selectors x k x learners
    files = write_report(db, tmp_path / "rep", formats=("md",))
    names = {f.name for f in files}
    assert {"sensitivity_b_knn.png"} <= names
    table = (tmp_path / "rep" / "tables" / "macro_f1_knn.md").read_text()
    assert "alpha" not in table and "mdmr" in table


def test_selector_fits_are_shared_between_searches_of_one_process():
    """A selector tuned with each learner fits every (fold, setting) once per process."""
    from sklearn.model_selection import KFold as KF

    from skmlfs.model_selection import _search

    rng = np.random.default_rng(3)
    X = rng.random((60, 8))
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    folds = list(KF(2, shuffle=True, random_state=0).split(X))
    sc = MeanScorer([{"metric": "macro_f1"}, {"metric": "micro_f1"}])
    sel = RLEFS(n_features_to_select=3, random_state=0, max_iter=5)
    _search._SETS_CACHE.clear()
    a = _search.search_selector(sel, KNeighborsClassifier(3), {"alpha": [0.1, 0.5]}, {}, sc,
                                folds, X, Y, n_features=3)
    n = len(_search._SETS_CACHE)
    assert n == 2 * 2  # folds x settings
    b = _search.search_selector(sel, _svm(1.0), {"alpha": [0.1, 0.5]},
                                {"estimator__C": [0.1, 1.0]}, sc, folds, X, Y, n_features=3)
    assert len(_search._SETS_CACHE) == n  # no new selector fit
    assert a["n_sets"] == b["n_sets"]
    # and the same sets as fresh fits
    for tr, _ in folds:
        for alpha in (0.1, 0.5):
            fresh = RLEFS(n_features_to_select=3, random_state=0, max_iter=5,
                          alpha=alpha).fit(X[tr], Y[tr]).selection_order_[:3]
            assert tuple(int(i) for i in np.sort(fresh)) in set(_search._SETS_CACHE.values())
