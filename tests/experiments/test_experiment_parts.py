"""Multi-part experiments ([[part]] tables), their reference values, the training-share
learner and the declared report (the oCC reproduction, issue #14)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from skmlfs.experiments import (
    ResultStore,
    SpecError,
    load_experiment,
    load_parts,
    run_parts,
    write_parts_report,
)
from skmlfs.experiments._parts import PART_KEYS, REPORT_KEYS, parts_from_dict
from skmlfs.experiments.report._multipart import SECTION_KEYS
from skmlfs.model_selection import TrainingSubsample

ROOT = Path(__file__).resolve().parents[2]


def _experiment(n_folds: int = 2) -> dict:
    return {
        "name": "tiny",
        "seed": 0,
        "n_features_to_select": "all",
        "selectors": ["all"],
        "discretizer": "none",
        "metrics": ["subset_accuracy", "macro_f1"],
        "protocol": {"kind": "kfold", "k": n_folds},
        "datasets": [{"name": "emotions", "load": "mulan/emotions"}],
        "learners": {
            "BR": {"method": "br"},
            "oCC_M0.1": {"method": "occ", "M": 0.1},
            "oCC_M0.5": {"method": "occ", "M": 0.5},
        },
        "part": [
            {"name": "abl", "learners": {"k": {
                "method": "occ",
                "M": {"best": "oCC_M*", "metric": "subset_accuracy", "param": "M"},
                "variants": {"k": [0, 1.0]},
            }}},
            {"name": "fs", "learners": {"fs": {
                "method": "occ", "feature_selection": "mlmim", "max_candidates": 200,
                "variants": {"M": [{"share_of_features": 0.1, "cap": 50, "label": "0.1"}]},
            }}},
            {"name": "ts", "learners": {"can": {
                "method": "train_subsample",
                "estimator": {"method": "occ", "k": 1.0, "M": 1.0, "order": "canonical"},
                "variants": {"fraction": [0.3, 1.0]},
            }}},
        ],
        "report": {
            "labels": {"subset_accuracy": "Exact-Match"},
            "section": [
                {"kind": "compare", "methods": {"BR": "BR", "oCC": "oCC_M*"},
                 "paper": {"subset_accuracy": {"emotions": [0.233, 0.270]}},
                 "parts": ["main"]},
                {"kind": "curve", "parts": ["abl"], "file": "k.png", "x": "k",
                 "series": {"k": "k[*"}, "lines": "datasets", "errorbars": True},
                {"kind": "curve", "parts": ["ts"], "file": "ts.png", "x": "fraction",
                 "series": {"can": "can[*"}, "metrics": ["subset_accuracy", "macro_f1"],
                 "tables": "wide", "times": True},
                {"kind": "bars", "parts": ["abl"], "file": "bars.png",
                 "series": {"k0": "k[k=0]", "k1": "k[k=1.0]"}},
                {"kind": "table", "parts": ["main", "abl"], "metric": "subset_accuracy",
                 "learners": ["oCC_M*", "k[*"], "std": True},
            ],
        },
    }


# --------------------------------------------------------------- straightforward code
def _folds(n: int, k: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Shuffled k-fold: array_split of one seeded permutation (the engine's protocol)."""
    perm = np.random.default_rng(seed).permutation(n)
    out = []
    for fold in np.array_split(perm, k):
        test = np.sort(fold)
        out.append((np.setdiff1d(np.arange(n), test), test))
    return out


def _exact_match(Y, P) -> float:
    return float(np.mean(np.all(np.asarray(Y) == np.asarray(P), axis=1)))


def _f3(x: float) -> str:
    return f"{x:.3f}".replace("0.", ".", 1)


def _seeded(est):
    """The engine's default: ``random_state`` = the experiment's seed when the estimator
    has one left at None."""
    if est.get_params(deep=False).get("random_state", 0) is None:
        est.set_params(random_state=0)
    return est


def _script_train_fraction(est, fraction, seed, X, Y):
    """The reproduction script's Fig. 7 learner: rows then the chain's seed, one RNG."""
    rng = np.random.RandomState(seed)
    n = X.shape[0]
    m = min(n, max(2, int(np.ceil(fraction * n - 1e-9))))
    rows = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
    est.set_params(random_state=int(rng.randint(2**31 - 1)))
    return est.fit(X[rows], Y[rows])


@pytest.mark.slow
def test_parts_equal_a_straightforward_computation(tmp_path, datasets_dir, monkeypatch):
    """Every part's per-cell values equal the computation written out here (the oCC
    script's protocol): the grid, the ablation at the M chosen by the main part, the M =
    ⌈f·min(d, cap)⌉ budget and the training-share learner."""
    from skmlfs.datasets import load_name
    from skmlfs.learners import OCC, BinaryRelevance

    monkeypatch.setenv("MLFS_DATASETS", str(datasets_dir))
    ep = parts_from_dict(_experiment(), source="tiny")
    with ResultStore(tmp_path / "t.db") as store:
        res = run_parts(ep, store, n_jobs=1, progress=False, verbose=False)
        assert res.n_failed_tasks == 0
        ids = res.cell_ids()
        frames = {p: store.to_frame(cell_ids=ids[p]) for p in ids}
        again = run_parts(ep, store, n_jobs=1, progress=False, verbose=False)
        assert sum(s.n_computed for v in again.summaries.values() for s in v) == 0
        files = write_parts_report(store, tmp_path / "rep", ep)
    ds = load_name("mulan/emotions")
    X, Y = np.asarray(ds.X, dtype=float), np.asarray(ds.Y)
    folds = _folds(X.shape[0], 2, 0)

    def ref(make):
        vals = []
        for tr, te in folds:
            vals.append(_exact_match(Y[te], make().fit(X[tr], Y[tr]).predict(X[te])))
        return vals

    def got(part, learner):
        df = frames[part]
        return list(df[df["learner"] == learner].sort_values("split")["subset_accuracy"])

    grid = {M: ref(lambda M=M: OCC(M=M, random_state=0)) for M in (0.1, 0.5)}
    assert got("main", "oCC_M0.1") == grid[0.1]
    assert got("main", "oCC_M0.5") == grid[0.5]
    assert got("main", "BR") == ref(lambda: _seeded(BinaryRelevance()))
    best = max((0.1, 0.5), key=lambda M: (round(np.mean(grid[M]), 12), -M))
    for k in (0, 1.0):
        assert got("abl", f"k[k={k}]") == ref(lambda k=k: OCC(k=k, M=best, random_state=0))
    m_fs = max(1, int(np.ceil(0.1 * min(X.shape[1], 50) - 1e-9)))
    assert got("fs", "fs[M=0.1]") == ref(
        lambda: OCC(M=m_fs, feature_selection="mlmim", max_candidates=200, random_state=0))
    for f in (0.3, 1.0):
        vals = []
        for tr, te in folds:
            est = _script_train_fraction(OCC(k=1.0, M=1.0, order="canonical"), f, 0,
                                         X[tr], Y[tr])
            vals.append(_exact_match(Y[te], est.predict(X[te])))
        assert got("ts", f"can[fraction={f}]") == vals
        n_tr = frames["ts"][frames["ts"]["learner"] == f"can[fraction={f}]"]["n_train"]
        assert set(n_tr) == {tr.size for tr, _ in folds}  # the split is not subsampled
    # the report: declared sections, figures and the per-cell CSV
    names = {p.name for p in files}
    assert {"k.png", "ts.png", "bars.png", "results_folds.csv", "README.md"} <= names
    text = (tmp_path / "rep" / "README.md").read_text()
    chosen = f"oCC_M{best}"[len("oCC_M"):]
    em = np.mean(grid[best])
    assert f"{em:.3f}".replace("0.", ".", 1) in text
    assert f"<sub>{chosen}</sub>" in text
    assert "(.270)" in text or "(**.270**)" in text
    ts = [_f3(np.mean(got("ts", f"can[fraction={f}]"))) for f in (0.3, 1.0)]
    assert ("| series | fraction=0.3 | fraction=1 | mean over fraction |\n|---|---|---|---|\n"
            f"| can | **{ts[0]}** | **{ts[1]}** | **") in text  # one series: all best


def test_training_subsample_rows_and_seed():
    """Rows: ⌈f·n⌉ (at least 2) drawn first, then the estimator's seed, from one RNG; the
    same seed gives the same rows whatever the estimator."""
    from sklearn.dummy import DummyClassifier

    class Rec(DummyClassifier):
        def __init__(self, random_state=None):
            super().__init__(strategy="most_frequent", random_state=random_state)

        def fit(self, X, y):
            self.rows_ = np.asarray(X)[:, 0].astype(int)
            return super().fit(X, y)

    X = np.arange(50, dtype=float).reshape(-1, 1)
    Y = np.zeros((50, 2), dtype=int)
    Y[::3] = 1
    t = TrainingSubsample(Rec(), fraction=0.3, random_state=7).fit(X, Y)
    rng = np.random.RandomState(7)
    rows = np.sort(rng.choice(50, 15, replace=False))
    assert t.n_train_used_ == 15
    np.testing.assert_array_equal(t.estimator_.rows_, rows)
    assert t.estimator_.random_state == rng.randint(2**31 - 1)
    full = TrainingSubsample(Rec(), fraction=1.0, random_state=7).fit(X, Y)
    np.testing.assert_array_equal(full.estimator_.rows_, np.arange(50))
    assert full.estimator_.random_state == np.random.RandomState(7).randint(2**31 - 1)
    assert TrainingSubsample(Rec(), fraction=0.01, random_state=0).fit(X, Y).n_train_used_ == 2
    with pytest.raises(ValueError, match="fraction"):
        TrainingSubsample(Rec(), fraction=0).fit(X, Y)


def test_part_errors_name_the_key(tmp_path):
    d = _experiment()
    d["part"][0]["protocl"] = "kfold"
    with pytest.raises(SpecError, match=r"part\[0\]\.protocl.*did you mean 'protocol'"):
        parts_from_dict(d, source="x.toml")
    d = _experiment()
    d["part"][0]["learners"]["k"]["M"]["part"] = "ts"
    with pytest.raises(SpecError, match="not an earlier part"):
        parts_from_dict(d, source="x.toml")
    d = _experiment()
    d["part"][1]["learners"]["fs"]["variants"]["M"][0]["cap"] = 0
    with pytest.raises(SpecError, match="cap"):
        parts_from_dict(d, source="x.toml")
    d = _experiment()
    d["report"]["section"][0]["paper"]["subset_accuracy"]["emotions"] = [0.1]
    with pytest.raises(SpecError, match="1 values for 2 methods"):
        parts_from_dict(d, source="x.toml")
    p = tmp_path / "m.toml"
    p.write_text('name = "m"\nselectors = ["all"]\ndatasets = ["emotions"]\n'
                 '[[part]]\nname = "b"\n')
    with pytest.raises(SpecError, match=r"\[\[part\]\] tables"):
        load_experiment(p)
    assert [n for n, _ in load_parts(p).parts] == ["main", "b"]


def test_occ_paper_file_declares_every_phase():
    """experiments/occ_paper.toml: no script hand-off; the six phases of the reproduction
    are parts; the report declares the ablation, selector and training-size figures."""
    ep = load_parts(ROOT / "experiments" / "occ_paper.toml")
    assert "experiment" not in ep.checked["main"].report
    assert [n for n, _ in ep.parts] == ["main", "large", "large_delicious", "ablation", "fs",
                                       "large_cv", "large_cv_delicious", "ts"]
    files = {s.get("file") for s in ep.report["section"]}
    assert {"ablation_k.png", "ablation_M.png", "ablation_order.png", "selectors_M.png",
            "training_size.png"} <= files
    assert len(ep.checked["fs"].learners) == 25 and len(ep.checked["ts"].learners) == 20


def test_docs_list_part_and_report_keys():
    text = (ROOT / "docs" / "experiment_file.md").read_text()
    keys = PART_KEYS | REPORT_KEYS | {k for v in SECTION_KEYS.values() for k in v}
    missing = sorted(k for k in keys if not re.search(rf"\| `{re.escape(k)}` \|", text))
    assert not missing, missing


def test_cli_runs_parts_with_dataset_and_part_filters(tmp_path, datasets_dir, monkeypatch,
                                                      capsys):
    """`mlfs benchmark` on a multi-part file: --datasets keeps those data sets in every
    part, --parts those parts; a second call computes nothing; the report is written."""
    from skmlfs.cli import main

    monkeypatch.setenv("MLFS_DATASETS", str(datasets_dir))
    exp = tmp_path / "p.toml"
    exp.write_text(
        'name = "p"\nselectors = ["all"]\nn_features_to_select = "all"\ndiscretizer = "none"\n'
        'metrics = ["subset_accuracy"]\nprotocol = { kind = "kfold", k = 2 }\n'
        'datasets = ["mulan/emotions", "mulan/yeast"]\n'
        '[learners.BR]\nmethod = "br"\n'
        '[[part]]\nname = "two"\ndatasets = ["emotions"]\n'
        '[part.learners.half]\nmethod = "train_subsample"\n'
        'estimator = { method = "br" }\nfraction = 0.5\n'
        '[[part]]\nname = "three"\nprotocol = { kind = "kfold", k = 3 }\n'
        '[report]\n[[report.section]]\nkind = "table"\nmetric = "subset_accuracy"\n'
        'learners = ["*"]\n'
    )
    db, out = tmp_path / "p.db", tmp_path / "rep"
    args = ["benchmark", str(exp), "--db", str(db), "--out", str(out), "-q"]
    assert main(args + ["--datasets", "emotions", "--parts", "main,two"]) == 0
    with ResultStore(db, readonly=True) as store:
        df = store.to_frame()
    assert set(df["dataset"]) == {"emotions"}
    assert sorted(set(df["learner"])) == ["BR", "half"]
    assert len(df) == 4  # 2 folds x (BR in main, half in two); part three not run
    text = (out / "README.md").read_text()
    assert "| half |" in text and "| BR |" in text
    assert main(args + ["--datasets", "emotions"]) == 0  # now part three too
    with ResultStore(db, readonly=True) as store:
        assert len(store.to_frame()) == 4 + 3
    # `mlfs report` on the store alone: the same sections (the store keeps the file)
    written = (out / "README.md").read_text().splitlines()
    assert main(["report", str(db), "--out", str(tmp_path / "again")]) == 0
    again = (tmp_path / "again" / "README.md").read_text().splitlines()
    assert again[2].startswith(f"Generated by `mlfs report {db}`")
    assert again[:2] + again[3:] == written[:2] + written[3:]
    capsys.readouterr()
    one = tmp_path / "one.toml"
    one.write_text('selectors = ["all"]\ndatasets = ["mulan/emotions"]\n')
    assert main(["benchmark", str(one), "--parts", "main", "--db", str(tmp_path / "o.db")]) == 2
    assert "has no [[part]] tables" in capsys.readouterr().err


def test_compare_section_prefers_complete_parts_and_keeps_a_family_together(tmp_path):
    """`prefer`: a (data set, method) comes from the first listed part where it is stored;
    a tuned family is taken from one part only (never mixed across protocols); results not
    from the first part are listed; the tuned member is the best mean of `tune_metric`."""
    gen = "skmlfs.datasets:make_multilabel_discrete"
    knn = {"method": "mlknn", "variants": {"k": [3, 5]}}
    d = {
        "name": "cmp", "seed": 1, "n_features_to_select": "all", "selectors": ["all"],
        "discretizer": "none", "metrics": ["hamming_loss", "subset_accuracy"],
        "protocol": {"kind": "kfold", "k": 2},
        "datasets": [{"name": "A", "generator": gen, "params": {
            "n_samples": 120, "n_features": 12, "n_labels": 3, "random_state": 0}}],
        "learners": {"knn": knn, "NB": {"method": "mlnb"}},
        "part": [
            {"name": "one", "protocol": {"kind": "holdout", "repeats": 1},
             "datasets": [{"name": "B", "generator": gen, "params": {
                 "n_samples": 120, "n_features": 12, "n_labels": 3, "random_state": 1}}]},
            {"name": "cv", "datasets": [{"name": "B", "generator": gen, "params": {
                "n_samples": 120, "n_features": 12, "n_labels": 3, "random_state": 1}}],
             "learners": {"knn": {"method": "mlknn", "k": 3}}},
        ],
        "report": {"section": [{"kind": "compare", "methods": {"kNN": "knn*", "NB": "NB"},
                                "tune_metric": "subset_accuracy",
                                "prefer": ["main", "cv", "one"]}]},
    }
    ep = parts_from_dict(d, source="cmp")
    with ResultStore(tmp_path / "c.db") as store:
        run_parts(ep, store, n_jobs=1, progress=False, verbose=False)
        df = store.to_frame()
        write_parts_report(store, tmp_path / "r", ep, figures=False)
    text = (tmp_path / "r" / "README.md").read_text()
    a = df[df["dataset"] == "A"].groupby("learner")["subset_accuracy"].mean().round(12)
    best = str(a[[n for n in a.index if n.startswith("knn")]].sort_index().idxmax())
    em = text[text.index("### subset_accuracy"):]
    row = next(line for line in em.splitlines() if line.startswith("| A |"))
    assert f"<sub>{best[len('knn'):]}</sub>" in row
    hl = text[text.index("### hamming_loss"):]
    row = next(line for line in hl.splitlines() if line.startswith("| A |"))
    lowest = min(float("0" + c.strip(" *").split(" ")[0]) for c in row.split("|")[2:4])
    assert f"**{_f3(lowest)}**" in row  # a loss: the lowest is the best
    # B: kNN only from part cv (its one member, "knn"), NB from part one
    note = text[text.index("Results not from part `main`"):]
    assert "| B | kNN | cv | knn |" in note and "| B | NB | one | NB |" in note
    b_cv = df[(df["dataset"] == "B") & (df["learner"] == "knn")]
    assert len(b_cv) == 2
    assert _f3(b_cv["subset_accuracy"].mean()) in next(
        line for line in em.splitlines() if line.startswith("| B |"))
    assert "avg. rank (1 data sets of main)" in text


def _run_and_report(d: dict, tmp_path: Path) -> tuple[dict, str]:
    """Run the experiment dict ``d`` serially into a fresh store; its cells per part and
    the text of its report (no figures)."""
    ep = parts_from_dict(d, source=d["name"])
    with ResultStore(tmp_path / "p.db") as store:
        res = run_parts(ep, store, n_jobs=1, progress=False, verbose=False)
        frames = {p: store.to_frame(cell_ids=ids) for p, ids in res.cell_ids().items()}
        write_parts_report(store, tmp_path / "r", ep, figures=False)
    return frames, (tmp_path / "r" / "README.md").read_text()


def test_parts_section_and_curve_ranks_equal_the_cells(tmp_path):
    """kind "parts": each (dataset, learner) stored in several parts, side by side, with
    the mean (± std over several splits) of its cells in each; curve `ranks`: the average
    over the x values of the series' ranks of the rounded means, per dataset."""
    from scipy.stats import rankdata

    gen = "skmlfs.datasets:make_multilabel_discrete"
    B = {"name": "B", "generator": gen, "params": {
        "n_samples": 120, "n_features": 12, "n_labels": 3, "random_state": 1}}
    d = {
        "name": "prt", "seed": 2, "n_features_to_select": "all", "selectors": ["all"],
        "discretizer": "none", "metrics": ["hamming_loss", "subset_accuracy"],
        "protocol": {"kind": "kfold", "k": 3},
        "datasets": [B],
        "learners": {"knn": {"method": "mlknn", "variants": {"k": [3, 5, 7]}},
                     "knn_s": {"method": "mlknn", "s": 0.2, "variants": {"k": [3, 5, 7]}},
                     "NB": {"method": "mlnb"}, "knn3": {"method": "mlknn", "k": 3}},
        "part": [{"name": "one", "protocol": {"kind": "holdout", "repeats": 1},
                  "base_learners": ["NB", "knn3"]}],
        "report": {"section": [
            {"kind": "parts", "title": "Protocols", "parts": ["main", "one"],
             "metric": "subset_accuracy"},
            {"kind": "curve", "parts": ["main"], "file": "k.png", "x": "k",
             "series": {"plain": "knn[*", "s02": "knn_s[*"}, "ranks": True,
             "metrics": ["subset_accuracy", "hamming_loss"]},
        ]},
    }
    frames, text = _run_and_report(d, tmp_path)
    sec = text[text.index("## Protocols"):]
    held = next(ln for ln in sec.splitlines() if ln.startswith("| B |"))
    assert [c.strip() for c in held.split("|")[2:4]] == [
        ", ".join(sorted(set(frames["main"]["learner"]))), "NB, knn3"]
    for lr in ("NB", "knn3"):
        row = next(ln for ln in sec.splitlines() if ln.startswith(f"| B | {lr} |"))
        main_v, one_v = (c.strip() for c in row.split("|")[3:5])
        cv = frames["main"][frames["main"]["learner"] == lr]["subset_accuracy"]
        ho = frames["one"][frames["one"]["learner"] == lr]["subset_accuracy"]
        assert len(cv) == 3 and len(ho) == 1
        assert main_v == f"{_f3(cv.mean())} ± {_f3(cv.std(ddof=0))}"
        assert one_v == _f3(ho.iloc[0])
    assert "| B | knn[k=3] |" not in sec  # stored in one part only
    df = frames["main"]
    for metric, gib in (("subset_accuracy", True), ("hamming_loss", False)):
        sign = 1.0 if gib else -1.0
        m = df.groupby("learner")[metric]
        ranks = []
        for k in (3, 5, 7):
            vals = [round(float(m.get_group(f"{f}[k={k}]").mean()), 3)
                    for f in ("knn", "knn_s")]
            ranks.append(rankdata([-sign * v for v in vals]))
        want = np.mean(ranks, axis=0)
        key = f"Average rank of the series over the `k` values ({metric}"
        part = text[text.index(key):]
        row = next(ln for ln in part.splitlines() if ln.startswith("| B |"))
        assert [float(c) for c in row.split("|")[2:-1]] == pytest.approx(want, abs=5e-3)


def test_curve_wide_tables_references_and_times_equal_the_cells(tmp_path):
    """curve `tables = "wide"`: per metric and data set (declared order, heading with the
    stored d and q), series × x means, a mean over the x values every series has, the
    best of each column in bold (a loss: the lowest); `reference`: learners of other parts
    (the first part of the default search order that stores them); `times`: the mean fit
    time per split over each series' x values; a `table` of a time prints seconds."""
    gen = "skmlfs.datasets:make_multilabel_discrete"

    def ds(name, seed, d):
        return {"name": name, "generator": gen, "params": {
            "n_samples": 120, "n_features": d, "n_labels": 3, "random_state": seed}}

    d = {
        "name": "wide", "seed": 3, "n_features_to_select": "all", "selectors": ["all"],
        "discretizer": "none", "metrics": ["subset_accuracy", "hamming_loss"],
        "protocol": {"kind": "kfold", "k": 2},
        "datasets": [ds("B", 1, 12), ds("A", 2, 10)],  # declared B first: B first
        "learners": {"NB": {"method": "mlnb"}},
        "part": [
            {"name": "grid", "learners": {
                "knn": {"method": "mlknn", "variants": {"k": [3, 5, 7]}},
                "knn_s": {"method": "mlknn", "s": 10.0, "variants": {"k": [3, 5]}}}},
            {"name": "one", "protocol": {"kind": "holdout", "repeats": 1},
             "learners": {"knn3": {"method": "mlknn", "k": 3}}},
        ],
        "report": {"section": [
            {"kind": "curve", "title": "Wide", "parts": ["grid"], "file": "k.png",
             "x": "k", "series": {"plain": "knn[*", "s10": "knn_s[*"},
             "metrics": ["subset_accuracy", "hamming_loss"], "tables": "wide",
             "reference": {"naive": "NB", "one split": "knn3"}, "times": True},
            {"kind": "table", "title": "Time", "parts": ["main"], "metric": "fit_time",
             "learners": ["NB"], "rows": "datasets"},
        ]},
    }
    frames, text = _run_and_report(d, tmp_path)
    sec = text[text.index("## Wide"):]
    assert sec.index("**B** (d = 12, q = 3)") < sec.index("**A** (d = 10, q = 3)")
    grid = frames["grid"]
    fams = {"plain": ("knn", (3, 5, 7)), "s10": ("knn_s", (3, 5))}
    for metric, gib in (("subset_accuracy", True), ("hamming_loss", False)):
        block = sec[sec.index(f"{metric}, mean over the splits"):]
        for name in ("B", "A"):
            tab = block[block.index(f"**{name}**"):].split("\n\n")[1].splitlines()
            assert tab[0] == "| series | k=3 | k=5 | k=7 | mean over k |"
            rows = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]]
                    for ln in tab[2:]}
            cells = grid[grid["dataset"] == name].groupby("learner")[metric]
            want = {}
            for lab, (fam, ks) in fams.items():
                means = [cells.get_group(f"{fam}[k={k}]").mean() for k in ks]
                want[lab] = [_f3(m) for m in means] + ["–"] * (3 - len(ks)) + [
                    _f3(np.mean(means[:2]))]  # k = 3, 5: the values both series have
            assert {lab: [c.strip("*") for c in r] for lab, r in rows.items()} == want
            for j in range(4):  # the best rounded value of each column, and only it, bold
                vals = {lab: float("0" + r[j].strip("*")) for lab, r in rows.items()
                        if r[j] != "–"}
                best = max(vals.values()) if gib else min(vals.values())
                assert {lab for lab, r in rows.items() if r[j].startswith("**")} == {
                    lab for lab, v in vals.items() if v == best}
            ref = block[block.index(f"**{name}**"):].split("\n\n")[2]
            nb = frames["main"].query("dataset == @name and learner == 'NB'")[metric]
            k3 = frames["one"].query("dataset == @name and learner == 'knn3'")[metric]
            assert ref == (f"Reference (mean over the splits): naive {_f3(nb.mean())} "
                           f"(`NB`, part `main`), one split {_f3(k3.mean())} (`knn3`, "
                           "part `one`).")
    times = sec[sec.index("Mean fit time per split over the `k` values"):]
    row = next(ln for ln in times.splitlines() if ln.startswith("| A |"))
    a = grid[grid["dataset"] == "A"]
    assert row == "| A | " + " | ".join(
        f"{a[a['learner'].str.startswith(fam + '[')]['fit_time'].mean():.2f}"
        for fam in ("knn", "knn_s")) + " |"
    nb = frames["main"].query("dataset == 'A' and learner == 'NB'")["fit_time"]
    tab = text[text.index("## Time"):]
    assert f"| A | {nb.mean():.2f} |" in tab  # seconds, not a score's ".xyz"
    for bad, match in (({"tables": "tall"}, "tables"), ({"reference": {"x": 1}}, "reference"),
                       ({"times": "yes"}, "times"), ({"tables": "long"}, "wide tables only")):
        d2 = dict(d, report={"section": [dict(d["report"]["section"][0], **bad)]})
        with pytest.raises(SpecError, match=match):
            parts_from_dict(d2, source="wide")
