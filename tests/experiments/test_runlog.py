"""The run log: one row per run that computed cells (wall time, counts, backend,
interrupted), kept in the store's ``runs`` table beside the cells and shown in the
reports (issue #14)."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import time
import warnings

import pytest

import skmlfs
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    run_experiment,
    run_parts,
    write_parts_report,
    write_report,
)
from skmlfs.experiments._parts import parts_from_dict

GEN = "skmlfs.datasets:make_multilabel_discrete"
DATA = {"name": "a", "generator": GEN,
        "params": {"n_samples": 100, "n_features": 10, "random_state": 0}}


def spec() -> ExperimentSpec:
    # 3 splits x 2 selectors = 6 tasks of 2 budgets each: 12 cells
    return ExperimentSpec.from_dict({
        "name": "rl", "seed": 0, "n_features_to_select": [2, 4], "selectors": ["scls", "ami"],
        "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 3},
        "datasets": [DATA],
    })


def run(db, **kw):
    return run_experiment(spec(), db, verbose=False, progress=False, **kw)


def runs(db):
    with ResultStore(db, readonly=True) as st:
        return st.runs()


def cells(db):
    with ResultStore(db, readonly=True) as st:
        return st.to_frame().drop(columns="created")


def stop_after(n, exc):
    seen = []

    def on_result(task, res):
        seen.append(task.task_id)
        if len(seen) == n:
            raise exc

    return on_result


def test_a_run_records_one_row_with_its_counts(tmp_path):
    db = tmp_path / "r.db"
    before = time.time()
    s = run(db)
    r = runs(db)
    assert len(r) == 1
    row = r.iloc[0]
    assert (row["experiment"], row["n_computed"], row["n_cached"], row["n_failed"]) == (
        "rl", 12, 0, 0)
    assert row["backend"] == "serial" and not row["interrupted"]
    assert row["version"] == skmlfs.__version__
    assert 0 < row["seconds"] <= s.seconds + 1.0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["started"])
    assert row["started"] >= time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(before - 1))
    # nothing left to compute: no row
    assert run(db).n_computed == 0
    assert len(runs(db)) == 1


@pytest.mark.subprocess
def test_the_backend_is_named(tmp_path):
    run(tmp_path / "j.db", n_jobs=2)
    assert runs(tmp_path / "j.db")["backend"].tolist() == ["joblib x2"]


def test_interrupted_run_and_resume_give_two_rows_and_the_same_cells(tmp_path):
    db, ref = tmp_path / "i.db", tmp_path / "ref.db"
    with pytest.raises(KeyboardInterrupt):
        run(db, on_result=stop_after(2, KeyboardInterrupt))
    run(db)
    r = runs(db)
    assert r[["n_computed", "n_cached", "interrupted"]].values.tolist() == [
        [4, 0, True], [8, 4, False]]
    run(ref)
    # the log is never part of a cell: the resumed store's cells equal a single run's
    a, b = cells(db), cells(ref)
    assert a.cell_id.tolist() == b.cell_id.tolist()
    assert a.drop(columns=["selection_time", "fit_time", "predict_time"]).equals(
        b.drop(columns=["selection_time", "fit_time", "predict_time"]))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_second_signal_during_the_shutdown_does_not_cut_the_run_log(sig, tmp_path,
                                                                      monkeypatch):
    """The first signal stops the run; one more arriving while it shuts down (``timeout``
    signals the command, then its process group; a second Ctrl-C) is only noted: the run
    is logged as interrupted with what it stored."""
    from skmlfs.experiments import _runner

    def raise_interrupt(signum, frame):  # what the command line makes of SIGTERM
        raise KeyboardInterrupt

    prev = signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT
                         else raise_interrupt)
    real = _runner.clear_cache

    def clear_cache_signalled():  # the shutdown: gets the second signal
        os.kill(os.getpid(), sig)
        real()

    monkeypatch.setattr(_runner, "clear_cache", clear_cache_signalled)
    db = tmp_path / "s.db"
    try:
        with pytest.raises(KeyboardInterrupt):
            run(db, on_result=lambda task, res: os.kill(os.getpid(), sig))  # the first
    finally:
        signal.signal(sig, prev)
    r = runs(db)
    assert r[["n_computed", "interrupted"]].values.tolist() == [[2, True]]


def test_a_run_stopped_by_an_error_is_logged_as_interrupted(tmp_path):
    db = tmp_path / "e.db"
    with pytest.raises(RuntimeError, match="boom"):
        run(db, on_result=stop_after(1, RuntimeError("boom")))
    r = runs(db)
    assert r[["n_computed", "interrupted"]].values.tolist() == [[2, True]]


def test_reports_show_the_runs_and_an_old_store_still_reports(tmp_path):
    db = tmp_path / "p.db"
    with pytest.raises(KeyboardInterrupt):
        run(db, on_result=stop_after(3, KeyboardInterrupt))
    run(db)
    first = runs(db)["started"].min().replace("T", " ").rstrip("Z")
    write_report(db, tmp_path / "rep", formats=("md",), figures=False)
    text = (tmp_path / "rep" / "README.md").read_text()
    sec = text[text.index("## Runs"):]
    row = next(ln for ln in sec.splitlines() if ln.startswith("| rl |"))
    cols = [c.strip() for c in row.split("|")[1:-1]]
    assert cols[1] == "2" and cols[3] == "12" and cols[4] == "serial"
    assert cols[5] == first and cols[6] == "yes (1 of 2)"
    assert cols[2].endswith(" s") and float(cols[2][:-2]) == pytest.approx(
        runs(db)["seconds"].sum(), rel=0.006)

    con = sqlite3.connect(db)  # a store written before the table existed
    con.execute("DROP TABLE runs")
    con.commit()
    con.close()
    assert runs(db).empty
    write_report(db, tmp_path / "old", formats=("md",), figures=False)
    old = (tmp_path / "old" / "README.md").read_text()
    assert "## Runs" not in old and "## Time per dataset" in old
    with ResultStore(db) as st:  # opened for writing, it gains the table
        assert "runs" in {r[0] for r in st._conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}


def test_multipart_report_lists_the_runs_of_each_part(tmp_path):
    d = {
        "name": "mp", "seed": 0, "n_features_to_select": "all", "selectors": ["all"],
        "discretizer": "none", "metrics": ["hamming_loss"],
        "protocol": {"kind": "kfold", "k": 2}, "datasets": [DATA],
        "learners": {"NB": {"method": "mlnb"}},
        "part": [{"name": "one", "protocol": {"kind": "holdout", "repeats": 1}}],
    }
    ep = parts_from_dict(d, source="mp")
    with ResultStore(tmp_path / "m.db") as store:
        run_parts(ep, store, n_jobs=1, progress=False, verbose=False)
        run_parts(ep, store, n_jobs=1, progress=False, verbose=False)  # nothing to do
        log = store.runs()
        write_parts_report(store, tmp_path / "r", ep, figures=False)
    assert len(log) == 2 and log["n_computed"].tolist() == [2, 1]
    text = (tmp_path / "r" / "README.md").read_text()
    assert text.index("## Compute") < text.index("### Runs")
    sec = text[text.index("### Runs"):]
    for part, n in (("main", 2), ("one", 1)):
        row = next(ln for ln in sec.splitlines() if ln.startswith(f"| {part} | 1 |"))
        assert [c.strip() for c in row.split("|")[4:6]] == [str(n), "serial"]


def test_repeated_warnings_are_counted_by_kind_once_per_run_and_logged(tmp_path, capsys):
    """Issue #24 §9: a learner whose inner selector asks for 5 features gets 2 or 3 in
    each cell and warns in every one (other numbers, one kind); the experiment's budget 40
    is above the 10 features of the data: capped once when the budgets are resolved."""
    import json

    s = ExperimentSpec.from_dict({
        "name": "wk", "seed": 0, "n_features_to_select": [2, 3, 40], "selectors": ["ami"],
        "learners": {"p": {"method": "pipeline",
                           "steps": [{"method": "scls", "n_features_to_select": 5},
                                     {"method": "br"}]}},
        "metrics": ["hamming_loss"], "protocol": {"kind": "holdout", "repeats": 3},
        "datasets": [DATA],
    })
    db = tmp_path / "w.db"
    summary = run_experiment(s, db, verbose=True, progress=False)
    assert summary.n_computed == 9  # budgets 2, 3 and 10 (40 capped) x 3 splits
    err = capsys.readouterr().err
    budget = [ln for ln in err.splitlines() if "n_features_to_select=5 is larger" in ln]
    assert len(budget) == 1, err  # one line for the 6 cells with 2 or 3 features
    assert "[6 times in 3 tasks; 1 other message of this kind]" in budget[0]
    capped = [ln for ln in err.splitlines() if "budget 40 exceeds" in ln]
    assert capped == ["warning: UserWarning: a: budget 40 exceeds its 10 features: capped at 10 "
                      "(the full ranking)."], err
    kinds = {k["kind"]: k for k in summary.warning_kinds}
    key = ("UserWarning: n_features_to_select=# is larger than the number of features (#); "
           "all # features are ranked.")
    assert kinds[key]["count"] == 6 and kinds[key]["variants"] == 2
    logged = json.loads(runs(db).iloc[0]["warnings"])
    assert {k["kind"]: k["count"] for k in logged} == {
        k: v["count"] for k, v in kinds.items()}


def test_old_run_log_gains_the_warnings_column(tmp_path):
    db = tmp_path / "old.db"
    run(db)
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE runs DROP COLUMN warnings")
    con.commit()
    con.close()
    with ResultStore(db) as st:  # opened for writing: the column is added
        assert "warnings" in st.runs().columns
    assert run(db).n_computed == 0


def test_cells_of_another_version_are_reused_with_a_warning(tmp_path, monkeypatch):
    """Cell ids hash the parameters a file names, not the code's defaults: resuming a
    store written by another version says so instead of reusing its cells silently."""
    from skmlfs.experiments import ResultStore, load_experiment, run_experiment

    (tmp_path / "e.toml").write_text(
        'name = "v"\nselectors = ["scls"]\nn_features_to_select = [2]\nmetrics = ["hamming_loss"]\n'
        '[protocol]\nkind = "holdout"\nrepeats = 2\n[[datasets]]\nname = "s"\n'
        'generator = "skmlfs.datasets:make_multilabel_discrete"\n'
        'params = { n_samples = 60, n_features = 8, random_state = 1 }\n')
    spec = load_experiment(tmp_path / "e.toml")
    db = tmp_path / "v.db"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # same version twice: no warning
        run_experiment(spec, db, verbose=False, progress=False)
        run_experiment(spec, db, verbose=False, progress=False)
    current = skmlfs.__version__
    monkeypatch.setattr(skmlfs, "__version__", "9.9.9")
    with pytest.warns(UserWarning, match=r"stored by skmlfs .* and are reused; this is skmlfs "
                      r"9\.9\.9"):
        run_experiment(spec, db, verbose=False, progress=False)
    with ResultStore(db) as st:
        assert st.get_meta("skmlfs_version") == "9.9.9" != current
