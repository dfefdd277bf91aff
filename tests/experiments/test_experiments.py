"""Experiment specs, split protocols, the per-cell work, evaluate/summarize and the runner."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from skmlfs.datasets import make_multilabel_discrete
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    SpecError,
    evaluate,
    load_experiment,
    parse_n_features,
    prepare_split,
    resolve,
    resolve_n_features_grid,
    run_experiment,
    summarize,
)
from skmlfs.model_selection import holdout_splits, kfold_splits, mat_splits, train_test_split_of

GEN = "skmlfs.datasets:make_multilabel_discrete"


def small_spec(**over):
    d = {
        "name": "t",
        "seed": 1,
        "n_features_to_select": [2, 4],
        "selectors": ["scls", "ami", "all"],
        "metrics": ["hamming_loss", "ranking_loss"],
        "protocol": {"kind": "holdout", "repeats": 3},
        "datasets": [
            {"name": "a", "generator": GEN,
             "params": {"n_samples": 120, "n_features": 10, "random_state": 0}},
            {"name": "b", "generator": GEN,
             "params": {"n_samples": 90, "n_features": 8, "random_state": 1},
             "protocol": {"kind": "kfold", "k": 3}},
        ],
    }
    d.update(over)
    return ExperimentSpec.from_dict({k: v for k, v in d.items() if v is not None})


# --------------------------------------------------------------------------- n_features
def _plan_ids(spec, tmp_path):
    from skmlfs.experiments._runner import plan_experiment

    with ResultStore(tmp_path / f"{spec.name}-{len(list(tmp_path.iterdir()))}.db") as store:
        plan = plan_experiment(spec, store)
    return plan.cell_ids, [t.k_max for t in plan.tasks]


def test_n_features_is_the_deprecated_name_of_n_features_to_select(tmp_path):
    """The former key still reads (with a FutureWarning) and plans the very same cells;
    a selector's own budgets under either name give the same cell ids (stored results of
    files written with the old key are found again)."""
    new = small_spec(selectors=["scls", {"name": "own", "method": "ami",
                                         "n_features_to_select": "50%"}])
    with pytest.warns(FutureWarning, match="n_features is renamed n_features_to_select"):
        old = small_spec(n_features_to_select=None, n_features=[2, 4],
                         selectors=["scls", {"name": "own", "method": "ami",
                                             "n_features": "50%"}])
    with pytest.warns(FutureWarning, match=r"datasets\[0\]\.n_features is renamed"):
        small_spec(datasets=[{"name": "a", "generator": GEN, "n_features": 3,
                              "params": {"n_samples": 50, "n_features": 6}}])
    ids_new, kmax_new = _plan_ids(new, tmp_path)
    ids_old, kmax_old = _plan_ids(old, tmp_path)
    assert ids_new == ids_old and len(ids_new) == len(set(ids_new)) > 0
    assert kmax_new == kmax_old and 5 in kmax_new  # "50%" of 10 features: the own budget
    with pytest.raises(SpecError, match="former name"):
        small_spec(n_features=[2])


def test_a_budget_grid_is_resolved_by_the_selectors_function():
    """Each budget of a grid is one value a selector takes, counted by the function a
    selector's fit uses (resolve_n_features): the same number of features either way."""
    from skmlfs._validation import resolve_n_features
    from skmlfs.selection import AMI

    budgets = parse_n_features("2%..20%:6%")
    assert budgets == ("2%", "8%", "14%", "20%")
    ds = make_multilabel_discrete(n_samples=60, n_features=50, n_labels=3, random_state=0)
    for b in budgets:
        fitted = AMI(n_features_to_select=b).fit(ds.X, ds.Y).n_features_to_select_
        assert fitted == resolve_n_features(b, 60, 50) == resolve_n_features_grid([b], 60, 50)[0]
    assert resolve_n_features_grid(budgets, 60, 50) == [1, 4, 7, 10]


def test_parse_n_features_forms():
    assert resolve_n_features_grid(parse_n_features("ceil_sqrt"), 593, 72) == [25]
    assert resolve_n_features_grid(parse_n_features("sqrt"), 2417, 103) == [50]
    assert resolve_n_features_grid(parse_n_features("round_sqrt"), 593, 72) == [24]
    # 7 % of 100 features is 7 (float round-off must not make it 8)
    assert resolve_n_features_grid(parse_n_features("7%"), 10, 100) == [7]
    assert resolve_n_features_grid(parse_n_features("1%..5%"), 10, 100) == [1, 2, 3, 4, 5]
    assert resolve_n_features_grid(parse_n_features("1%..20%"), 10, 19) == [1, 2, 3, 4]
    assert resolve_n_features_grid(parse_n_features("5..20:5"), 10, 12) == [5, 10, 12]
    assert resolve_n_features_grid(parse_n_features([3, 0.5, "all"]), 10, 8) == [3, 4, 8]


@pytest.mark.parametrize("bad", [0, -3, 1.5, "abc", "5%..2%", [], True, "3..7:0.5", "1..3%"])
def test_parse_n_features_errors(bad):
    with pytest.raises(SpecError, match="n_features"):
        parse_n_features(bad)


# --------------------------------------------------------------------------- spec errors
@pytest.mark.parametrize(
    "over, key",
    [
        ({"selector": ["scls"]}, "selector"),  # typo: unknown top-level key
        ({"protocol": {"kind": "hold"}}, "protocol.kind"),
        ({"protocol": {"kind": "holdout", "repeats": 0}}, "protocol.repeats"),
        ({"protocol": {"kind": "holdout", "test_size": 1.5}}, "protocol.test_size"),
        ({"selectors": ["sclss"]}, "selectors[0]"),
        ({"selectors": {"m": {"method": "mdmr", "varient": "x"}}}, "selectors.m.varient"),
        ({"selectors": {"s": {"method": "scls", "params": {"n_features_to_select": 3}}}},
         "selectors.s.n_features_to_select"),
        ({"selectors": {"s": {"method": "scls", "n_features_to_select": "1..x"}}},
         "selectors.s.n_features_to_select"),
        ({"learners": ["nb"]}, "learners[0]"),
        ({"metrics": ["hamming"]}, "metrics[0]"),
        ({"n_features_to_select": "lots"}, "n_features_to_select"),
        ({"seed": "x"}, "seed"),
        ({"datasets": [{"name": "a", "path": "x.arff", "generator": GEN}]}, "datasets[0]"),
        ({"datasets": [{"generator": GEN}, {"generator": GEN}]}, "datasets[1].name"),
        ({"datasets": [{"name": "a", "generator": GEN, "bogus": 1}]}, "datasets[0].bogus"),
        ({"report": {"control": "nope"}}, "report.control"),
    ],
)
def test_spec_errors_name_the_key(over, key):
    with pytest.raises(SpecError) as exc:
        small_spec(**over)
    assert f": {key}:" in str(exc.value)


def test_spec_error_suggests_close_key():
    with pytest.raises(SpecError, match="did you mean 'selectors'"):
        small_spec(selector=["scls"])


def test_spec_missing_file_and_bad_toml(tmp_path):
    p = tmp_path / "e.toml"
    p.write_text('selectors = ["scls"]\n[[datasets]]\npath = "nope/missing.arff"\n')
    with pytest.raises(SpecError, match=r"datasets\[0\]\.path"):
        load_experiment(p)
    p.write_text("selectors = [scls\n")
    with pytest.raises(SpecError, match="invalid TOML"):
        load_experiment(p)
    with pytest.raises(FileNotFoundError):
        load_experiment(tmp_path / "absent.toml")


# small_spec() as an experiment file
SMALL_TOML = (
    'name = "t"\nseed = 1\nn_features_to_select = [2, 4]\nselectors = ["scls", "ami", "all"]\n'
    'metrics = ["hamming_loss", "ranking_loss"]\n[protocol]\nkind = "holdout"\nrepeats = 3\n'
    f'[[datasets]]\nname = "a"\ngenerator = "{GEN}"\n'
    "params = { n_samples = 120, n_features = 10, random_state = 0 }\n"
    f'[[datasets]]\nname = "b"\ngenerator = "{GEN}"\n'
    "params = { n_samples = 90, n_features = 8, random_state = 1 }\n"
    'protocol = { kind = "kfold", k = 3 }\n'
)


def test_spec_toml_and_dict_are_equivalent(tmp_path):
    p = tmp_path / "exp.toml"
    p.write_text(SMALL_TOML)
    a, b = load_experiment(p), small_spec()
    assert [d.identity() for d in a.datasets] == [d.identity() for d in b.datasets]
    assert [s.identity() for s in a.selectors] == [s.identity() for s in b.selectors]
    assert a.protocol == b.protocol and a.n_features == b.n_features and a.seed == b.seed


def test_registry_resolves_names_and_paths():
    from skmlfs.selection import SCLS

    assert resolve("selector", "SCLS") is SCLS
    assert resolve("selector", "skmlfs.selection:SCLS") is SCLS
    with pytest.raises(ValueError, match="registered"):
        resolve("selector", "nope")
    with pytest.raises(ValueError, match="no 'Nope'"):
        resolve("selector", "skmlfs.selection:Nope")


# --------------------------------------------------------------------------- protocols
@pytest.mark.parametrize("n", [10, 593, 2417, 662])
def test_holdout_sizes_disjoint_deterministic(n):
    s = holdout_splits(n, repeats=5, test_size=0.2, random_state=7)
    assert len(s) == 5
    for tr, te in s:
        assert te.size == math.floor(0.2 * n) and tr.size == n - math.floor(0.2 * n)
        assert np.intersect1d(tr, te).size == 0
        assert np.array_equal(np.union1d(tr, te), np.arange(n))
        assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
    again = holdout_splits(n, repeats=5, test_size=0.2, random_state=7)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(s, again, strict=True))
    assert not np.array_equal(s[0].test, s[1].test)
    other = holdout_splits(n, repeats=1, test_size=0.2, random_state=8)
    assert not np.array_equal(s[0].test, other[0].test)


def test_kfold_covers_every_pattern_once():
    s = kfold_splits(23, k=5, random_state=0)
    tests = np.concatenate([te for _, te in s])
    assert np.array_equal(np.sort(tests), np.arange(23))
    assert sorted(te.size for _, te in s) == [4, 4, 5, 5, 5]
    for tr, te in s:
        assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 23
    assert all(np.array_equal(a.test, b.test)
               for a, b in zip(s, kfold_splits(23, 5, 0), strict=True))


def test_protocol_argument_errors():
    with pytest.raises(ValueError, match="test_size"):
        holdout_splits(10, 2, 1.0)
    with pytest.raises(ValueError, match="both parts"):
        holdout_splits(3, 2, 0.2)
    with pytest.raises(ValueError, match="folds"):
        kfold_splits(5, 6)
    with pytest.raises(TypeError, match="random_state"):
        holdout_splits(10, 2, 0.2, random_state=np.random.default_rng(0))


def test_mat_splits_from_masks():
    masks = np.array([[1, 0], [1, 1], [0, 1], [1, 0]], dtype=np.uint8)
    s = mat_splits(masks, n_splits=2)
    assert s[0].train.tolist() == [0, 1, 3] and s[0].test.tolist() == [2]
    assert s[1].train.tolist() == [1, 2] and s[1].test.tolist() == [0, 3]
    with pytest.raises(ValueError, match="only 2"):
        mat_splits(masks, n_splits=3)
    with pytest.raises(ValueError, match="no splits"):
        mat_splits(make_multilabel_discrete(n_samples=20, random_state=0))


def test_mat_splits_match_plcfs_sizes(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("plcfs/emotions.mat"))
    s = mat_splits(ds, 10)
    n = len(ds.Y)
    ours = holdout_splits(n, 1, 0.2, random_state=0)[0]
    for tr, te in s:  # the PLCFS rule n - floor(0.2 n) = our holdout's training size
        assert tr.size == ours.train.size == 475 and te.size == ours.test.size == 118
        assert np.array_equal(np.sort(np.concatenate([tr, te])), np.arange(n))


def test_train_test_parts(dataset_path):
    from skmlfs.datasets import load_train_test

    ds = load_train_test(dataset_path("mulan/scene/scene-train.arff"))
    (tr, te), = train_test_split_of(ds)
    assert tr.size == 1211 and te.size == 1196


# --------------------------------------------------------------------------- per-cell work
def test_prepare_split_fits_discretizer_on_training_part_only():
    from skmlfs.discretize import LAIMDiscretizer

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    Y = (rng.random((80, 3)) < 0.4).astype(np.uint8)
    tr, te = holdout_splits(80, 1, 0.25, 0)[0]
    Xtr, Ytr, Xte, Yte, _ = prepare_split(X, Y, tr, te, "auto")
    ref = LAIMDiscretizer().fit(X[tr], Y[tr])
    assert np.array_equal(Xtr, ref.transform(X[tr]))
    assert np.array_equal(Xte, ref.transform(X[te]))
    assert np.array_equal(Ytr, Y[tr]) and np.array_equal(Yte, Y[te])
    # integer-valued data passes through "auto" unchanged
    Xi = rng.integers(0, 3, size=(80, 4))
    Xtr2, *_ = prepare_split(Xi, Y, tr, te, "auto")
    assert np.array_equal(Xtr2, Xi[tr])


def test_prepare_split_auto_is_the_librarys_one_rule():
    """The engine's "auto" is skmlfs.discretize's rule (is_discrete): whole numbers beyond
    2**53 are continuous data and go through LAIM, as in the selectors and MLNB."""
    from skmlfs.discretize import LAIMDiscretizer, is_discrete

    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(80, 3)) * 1e20)  # every value a whole number
    Y = (rng.random((80, 2)) < 0.5).astype(np.uint8)
    tr, te = holdout_splits(80, 1, 0.25, 0)[0]
    assert not is_discrete(X[tr])
    Xtr, _, Xte, _, _ = prepare_split(X, Y, tr, te, "auto")
    ref = LAIMDiscretizer().fit(X[tr], Y[tr])
    assert np.array_equal(Xtr, ref.transform(X[tr]))
    assert np.array_equal(Xte, ref.transform(X[te]))
    # "none" keeps the values, a registered name builds that discretizer
    assert np.array_equal(prepare_split(X, Y, tr, te, "none")[0], X[tr])
    Xw = prepare_split(X, Y, tr, te, {"method": "equal_width", "n_bins": 3})[0]
    assert set(np.unique(Xw)) <= {0, 1, 2}


def test_evaluate_matches_a_straightforward_loop():
    from skmlfs.learners import MLNB
    from skmlfs.metrics import hamming_loss, ranking_loss
    from skmlfs.selection import AMI, SCLS

    ds = make_multilabel_discrete(n_samples=150, n_features=12, random_state=3)
    splits = holdout_splits(150, 3, 0.2, random_state=2)
    res = evaluate(ds, {"scls": SCLS(), "ami": "ami", "all": "all"}, "mlnb", splits,
                   n_features=[2, 5], metrics=["hamming_loss", "ranking_loss"], progress=False)
    assert len(res) == 3 * (2 + 2 + 1)
    assert list(res.columns[:6]) == ["dataset", "split", "method", "k", "n_selected", "learner"]
    for i, (tr, te) in enumerate(splits):
        for name, sel in (("scls", SCLS), ("ami", AMI)):
            full = sel(n_features_to_select=5).fit(ds.X[tr], ds.Y[tr]).selection_order_
            for k in (2, 5):
                f = full[:k]
                clf = MLNB().fit(ds.X[tr][:, f], ds.Y[tr])
                row = res[(res.split == i) & (res.method == name) & (res.k == k)].iloc[0]
                assert row.features == f.tolist()
                assert row.hamming_loss == hamming_loss(ds.Y[te], clf.predict(ds.X[te][:, f]))
                assert row.ranking_loss == ranking_loss(
                    ds.Y[te], clf.predict_proba(ds.X[te][:, f])
                )
        row = res[(res.split == i) & (res.method == "all")].iloc[0]
        assert row.k == 12 and row.features == list(range(12))


def test_evaluate_defaults_and_summarize():
    ds = make_multilabel_discrete(n_samples=100, n_features=15, random_state=0)
    res = evaluate(ds, ["scls", "ami"], progress=False)
    # default: 10 x 80/20 holdout, ceil(sqrt(100)) = 10 features, the SCLS paper's metrics
    assert set(res.k) == {10} and res.split.nunique() == 10
    assert {"hamming_loss", "ranking_loss", "normalized_coverage"} <= set(res.columns)
    s = summarize(res)
    assert list(s.index) == ["scls", "ami"]
    for m in ("hamming_loss", "ranking_loss"):
        for meth in ("scls", "ami"):
            v = res.loc[res.method == meth, m]
            assert s.loc[meth, (m, "mean")] == pytest.approx(v.mean())
            assert s.loc[meth, (m, "std")] == pytest.approx(v.std(ddof=1))


def test_evaluate_rejects_bad_input():
    ds = make_multilabel_discrete(n_samples=60, n_features=6, random_state=0)
    with pytest.raises(ValueError, match="registered"):
        evaluate(ds, ["nope"], progress=False)
    with pytest.raises(ValueError, match="overlap"):
        evaluate(ds, ["scls"], splits=[(np.arange(40), np.arange(30, 60))], progress=False)


def test_evaluate_real_data(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("plcfs/genbase.mat"))
    res = evaluate(ds, ["scls", "ami"], "mlnb", mat_splits(ds, 2), progress=False)
    assert set(res.k) == {math.ceil(math.sqrt(662))}
    assert res.hamming_loss.between(0, 0.1).all()
    assert (res.n_selected == 26).all()


# --------------------------------------------------------------------------- runner
def _frame(db):
    with ResultStore(db, readonly=True) as st:
        return st.to_frame()


def test_runner_grid_and_ranking_reuse(tmp_path):
    spec = small_spec()
    s = run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    # a: 3 splits x (scls 2 + ami 2 + all 1); b: 3 folds x 5
    assert s.n_cells == s.n_computed == 30
    df = _frame(tmp_path / "r.db")
    assert len(df) == 30 and df.cell_id.is_unique
    for (_, _, meth), g in df.groupby(["dataset", "split", "method"]):
        if meth == "all":
            continue
        small, big = g.sort_values("k").features.tolist()
        assert big[:2] == small  # k=2 is the prefix of the one ranking
        assert g.selection_time.nunique() == 1 and g.ranking_id.nunique() == 1


def test_a_selector_without_nested_budgets_is_refitted_per_budget(tmp_path):
    """RALM-FS returns an exact top-k set (SelectorTags.nested_budgets False): the planner
    marks it for one fit per budget by itself, with the identity that experiment files
    of 0.1 gave it with ``budgets = "refit"`` (so stored ids stay valid); a nested
    selector, or one budget, is not marked, and the key is refused in a file."""
    from skmlfs.experiments._runner import plan_experiment
    from skmlfs.selection import RALMFS

    one = {"name": "a", "generator": GEN,
           "params": {"n_samples": 120, "n_features": 10, "random_state": 0}}
    ralm = {"name": "ralmfs", "method": "ralmfs", "max_iter": 5}
    spec = small_spec(selectors=[ralm, "scls"], datasets=[one],
                      protocol={"kind": "holdout", "repeats": 1})
    with ResultStore(tmp_path / "p.db") as st:
        plan = plan_experiment(spec, st)
    by = {t.selector.name: t for t in plan.tasks}
    assert by["ralmfs"].selector.identity()["options"] == {"budgets": "refit"}
    assert "options" not in by["scls"].selector.identity()
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    df = _frame(tmp_path / "r.db").set_index(["method", "k"])
    ds = make_multilabel_discrete(**one["params"])
    X, Y = ds.X, ds.Y
    tr = by["ralmfs"].train
    for k in (2, 4):
        ref = RALMFS(n_features_to_select=k, max_iter=5, random_state=by["ralmfs"].seed)
        ref.fit(X[tr], Y[tr])
        assert sorted(df.loc[("ralmfs", k), "features"]) == ref.get_support(
            indices=True).tolist(), k
    single = small_spec(selectors=[ralm], datasets=[one], n_features_to_select=[4],
                        protocol={"kind": "holdout", "repeats": 1})
    with ResultStore(tmp_path / "q.db") as st:
        (task,) = plan_experiment(single, st).tasks
    assert "options" not in task.selector.identity()
    with pytest.raises(SpecError, match="budgets: no longer a key"):
        small_spec(selectors=[{**ralm, "budgets": "refit"}])


def test_mlfs_local_mode_is_refitted_per_budget(tmp_path):
    """MLFS in local mode merges per-label subsets by votes, so its selection for a smaller
    budget is not the prefix of a larger one: its tag says so and every stored cell holds
    what a fit with that budget selects."""
    from skmlfs.experiments._runner import plan_experiment
    from skmlfs.selection import MLFS

    one = {"name": "a", "generator": GEN,
           "params": {"n_samples": 150, "n_features": 12, "random_state": 1}}
    spec = small_spec(selectors=["mlfs"], datasets=[one], n_features_to_select=[2, 3, 5],
                      protocol={"kind": "holdout", "repeats": 1})
    with ResultStore(tmp_path / "p.db") as st:
        (task,) = plan_experiment(spec, st).tasks
    assert task.selector.identity()["options"] == {"budgets": "refit"}
    run_experiment(spec, tmp_path / "r.db", verbose=False, progress=False)
    df = _frame(tmp_path / "r.db").set_index(["method", "k"])
    ds = make_multilabel_discrete(**one["params"])
    Xtr, Ytr = ds.X[task.train], ds.Y[task.train]
    largest = MLFS(n_features_to_select=5).fit(Xtr, Ytr).selection_order_
    prefixes = 0
    for k in (2, 3, 5):
        ref = MLFS(n_features_to_select=k).fit(Xtr, Ytr).get_support(indices=True).tolist()
        assert sorted(df.loc[("mlfs", k), "features"]) == ref, k
        prefixes += ref == sorted(largest[:k].tolist())
    assert prefixes < 3  # on this data a cut of the largest fit would have been wrong


def test_cells_record_the_blas_kernel(tmp_path):
    """Every cell stores the BLAS libraries and CPU kernels it ran with (liblinear's and the
    distance products' last digits depend on the kernel), as threadpoolctl reports them."""
    import json

    import scipy.linalg  # noqa: F401 — scipy's BLAS loaded, as in a run
    from threadpoolctl import threadpool_info

    run_experiment(small_spec(), tmp_path / "v.db", verbose=False, progress=False)
    stored = {json.loads(v)["blas"] for v in _frame(tmp_path / "v.db").versions}
    assert len(stored) == 1
    blas = stored.pop()
    libs = [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]
    assert libs
    for lib in libs:
        assert f"{lib['internal_api']} {lib['version']}" in blas
        if lib.get("architecture"):
            assert lib["architecture"] in blas


@pytest.mark.cluster
def test_serial_joblib_and_dask_cluster_agree(tmp_path, capsys):
    import distributed  # a runtime dependency (dask[distributed])

    from skmlfs.cli import main

    spec = small_spec()
    run_experiment(spec, tmp_path / "s.db", verbose=False, progress=False)
    run_experiment(spec, tmp_path / "j.db", n_jobs=2, verbose=False, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        run_experiment(spec, tmp_path / "d.db", dask=cluster.scheduler_address,
                       verbose=False, progress=False)
    # `mlfs benchmark --dask local -j 2`: the runner starts its own 2-worker LocalCluster
    (tmp_path / "t.toml").write_text(SMALL_TOML)
    assert main(["benchmark", str(tmp_path / "t.toml"), "--db", str(tmp_path / "l.db"),
                 "--dask", "local", "-j", "2", "--no-report"]) == 0
    assert "30 to run in 18 tasks (Dask)" in capsys.readouterr().err
    ref = _frame(tmp_path / "s.db")
    assert len(ref) == 30
    cols = ["cell_id", "dataset", "split", "method", "k", "n_selected", "hamming_loss",
            "ranking_loss"]
    for other in ("j.db", "d.db", "l.db"):
        df = _frame(tmp_path / other)
        pd.testing.assert_frame_equal(ref[cols], df[cols])
        assert ref.features.tolist() == df.features.tolist()
    address = cluster.scheduler_address  # the run log names each backend (#14)
    for db, backend in (("s.db", "serial"), ("j.db", "joblib x2"),
                        ("d.db", f"Dask {address} x2"), ("l.db", "Dask local x2")):
        with ResultStore(tmp_path / db, readonly=True) as st:
            assert st.runs()[["backend", "n_computed"]].values.tolist() == [[backend, 30]]


def test_runner_records_failures_and_continues(tmp_path):
    spec = small_spec(selectors={"ok": "scls", "bad": {"method": "mdmr", "variant": "x"}})
    s = run_experiment(spec, tmp_path / "f.db", verbose=False, progress=False)
    assert s.n_failed_tasks == 6 and s.n_computed == 12
    with ResultStore(tmp_path / "f.db", readonly=True) as st:
        f = st.failures()
        log = st.runs()
    assert len(f) == 6 and f.error.str.contains("variant").all()
    assert log[["n_computed", "n_failed", "interrupted"]].values.tolist() == [[12, 6, False]]
