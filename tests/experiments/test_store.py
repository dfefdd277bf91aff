"""The SQLite results store: atomic cells, resume, incremental grids, rankings cache, export."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment

GEN = "skmlfs.datasets:make_multilabel_discrete"
METRICS = ["hamming_loss", "ranking_loss"]


def spec(**over):
    d = {
        "name": "st",
        "seed": 0,
        "n_features_to_select": [2, 4],
        "selectors": ["scls", "ami"],
        "metrics": METRICS,
        "protocol": {"kind": "holdout", "repeats": 3},
        "datasets": [{"name": "a", "generator": GEN,
                      "params": {"n_samples": 100, "n_features": 10, "random_state": 0}}],
    }
    d.update(over)
    return ExperimentSpec.from_dict(d)


def run(s, db, **kw):
    return run_experiment(s, db, verbose=False, progress=False, **kw)


def frame(db):
    with ResultStore(db, readonly=True) as st:
        return st.to_frame()


def record(i=0, **over):
    r = {
        "cell_id": f"c{i}", "dataset": "d", "split": i, "protocol": "{}", "method": "m",
        "selector": {"method": "m"}, "k": 3, "n_selected": 3, "learner": "l",
        "learner_spec": {"method": "l"}, "seed": 0, "metrics": {"hamming_loss": 0.25},
        "features": np.array([4, 1, 2]), "selection_time": 0.5, "fit_time": 0.1,
        "predict_time": 0.2, "n_train": 8, "n_test": 2, "ranking_id": "r",
        "ranking_reused": False, "versions": {"skmlfs": "x"},
    }
    r.update(over)
    return r


def test_cell_roundtrip_and_wal(tmp_path):
    with ResultStore(tmp_path / "x.db") as st:
        st.add_cell(record())
        assert st.done_cells() == {"c0"}
        assert st.done_cells(["hamming_loss"]) == {"c0"}
        assert st.done_cells(["hamming_loss", "ranking_loss"]) == set()
        df = st.to_frame()
    assert df.loc[0, "features"] == [4, 1, 2] and df.loc[0, "hamming_loss"] == 0.25
    mode = sqlite3.connect(tmp_path / "x.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_a_failed_write_leaves_no_trace(tmp_path):
    with ResultStore(tmp_path / "x.db") as st:
        st.add_cell(record(0))
        with pytest.raises(KeyError):
            st.add_cell({k: v for k, v in record(1).items() if k != "n_test"})
        with pytest.raises(sqlite3.IntegrityError):  # NOT NULL: nothing half-written
            st.add_cell(record(2, dataset=None))
        assert st.done_cells() == {"c0"}
        assert not st._conn.in_transaction


def test_resume_skips_finished_cells(tmp_path):
    db = tmp_path / "r.db"
    first = run(spec(), db)
    assert first.n_computed == 12
    again = run(spec(), db)
    assert again.n_computed == 0 and again.n_cached == 12
    assert len(frame(db)) == 12


def test_changing_the_experiment_adds_only_new_cells(tmp_path):
    db = tmp_path / "r.db"
    run(spec(), db)
    before = frame(db).set_index("cell_id")
    # a smaller budget: served by the cached rankings (no selection is run again)
    s = run(spec(n_features_to_select=[1, 2, 4]), db)
    assert s.n_computed == 6
    df = frame(db).set_index("cell_id")
    new = df.loc[df.index.difference(before.index)]
    assert (new.k == 1).all() and new.ranking_reused.all()
    pd.testing.assert_frame_equal(df.loc[before.index, METRICS], before[METRICS])
    # a new selector and a new learner parameterisation: only their cells
    s = run(spec(n_features_to_select=[1, 2, 4], selectors=["scls", "ami", "all"],
                 learners={"mlnb": "mlnb", "mlnb0": {"method": "mlnb", "alpha": 0.5}}), db)
    assert s.n_cells == 3 * (3 + 3 + 1) * 2 and s.n_computed == s.n_cells - 18
    # a larger budget than cached: the ranking is recomputed for that selector
    s = run(spec(n_features_to_select=[8]), db)
    assert s.n_computed == 6
    df = frame(db)
    assert not df[df.k == 8].ranking_reused.any()
    assert df.cell_id.is_unique


def test_new_metric_recomputes_cells_in_place(tmp_path):
    db = tmp_path / "r.db"
    run(spec(), db)
    s = run(spec(metrics=METRICS + ["one_error"]), db)
    assert s.n_computed == 12
    df = frame(db)
    assert len(df) == 12 and df.one_error.notna().all()


def test_changed_metric_parameter_recomputes_cells(tmp_path):
    db = tmp_path / "r.db"
    cov = {"name": "cov", "metric": "coverage", "convention": "zhang"}
    run(spec(metrics=["hamming_loss", cov]), db)
    assert run(spec(metrics=["hamming_loss", cov]), db).n_computed == 0
    before = frame(db)
    # same column name, other convention: the stored values are stale, so recomputed
    mulan = {**cov, "convention": "mulan"}
    s = run(spec(metrics=["hamming_loss", mulan]), db)
    assert s.n_computed == 12
    after = frame(db)
    run(spec(metrics=["hamming_loss", mulan]), tmp_path / "ref.db")
    ref = frame(tmp_path / "ref.db")
    assert len(after) == 12 and after.cell_id.tolist() == ref.cell_id.tolist()
    assert after["cov"].tolist() == ref["cov"].tolist()
    assert (after["cov"] != before["cov"]).any()
    assert after.hamming_loss.tolist() == before.hamming_loss.tolist()
    # plain metrics keep their bare key (stores written before keep resuming)
    with ResultStore(db, readonly=True) as st:
        keys = {k for (m,) in st._conn.execute("SELECT metrics FROM cells") for k in json.loads(m)}
    assert len(keys) == 2 and "hamming_loss" in keys
    assert [k.split("@")[0] for k in keys - {"hamming_loss"}] == ["cov"]


def test_interrupt_keeps_committed_cells_and_resume_completes(tmp_path):
    db, ref = tmp_path / "i.db", tmp_path / "ref.db"
    seen = []

    def stop_after_two(task, res):
        seen.append(task.task_id)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(spec(), db, on_result=stop_after_two)
    partial = frame(db)
    assert len(partial) == 4  # two tasks of 2 budgets each
    s = run(spec(), db)
    assert s.n_cached == 4 and s.n_computed == 8
    run(spec(), ref)
    a, b = frame(db), frame(ref)
    assert a.cell_id.tolist() == b.cell_id.tolist()
    assert np.array_equal(a[METRICS].to_numpy(), b[METRICS].to_numpy())


def test_a_ctrl_c_swallowed_inside_a_finalizer_still_stops_the_run(tmp_path):
    """A SIGINT whose KeyboardInterrupt is lost (raised in a finalizer or callback, which
    Python prints as "ignored") still stops the run after the next stored cell."""
    import signal

    db = tmp_path / "s.db"
    seen = []

    def ctrl_c_lost_after_two(task, res):
        seen.append(task.task_id)
        if len(seen) == 2:
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                pass  # where a finalizer would have swallowed it

    with pytest.raises(KeyboardInterrupt):
        run(spec(), db, on_result=ctrl_c_lost_after_two)
    assert len(seen) == 2 and len(frame(db)) == 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored
    assert run(spec(), db).n_cached == 4


def test_rankings_table(tmp_path):
    db = tmp_path / "r.db"
    run(spec(), db)
    with ResultStore(db, readonly=True) as st:
        rk = st.rankings()
        df = st.to_frame()
    assert len(rk) == 6  # 3 splits x 2 selectors
    for _, row in df.iterrows():
        r = rk[row.ranking_id]
        assert r["k_requested"] == 4
        assert r["ranking"][: row.k].tolist() == row.features


def test_rankings_of_a_store_written_before_the_info_column(tmp_path):
    """A store whose rankings table predates the selector-info column is read (read-only:
    info empty) and gains the column when opened for writing, its rankings kept."""
    db = tmp_path / "old.db"
    run(spec(), db)
    with ResultStore(db, readonly=True) as st:
        want = st.rankings()
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE rankings DROP COLUMN info")  # as version 0.1 wrote it
    con.commit()
    con.close()
    with ResultStore(db, readonly=True) as st:
        old = st.rankings()
    assert old.keys() == want.keys()
    for rid, r in old.items():
        assert r["info"] == {}
        np.testing.assert_array_equal(r["ranking"], want[rid]["ranking"])
    with ResultStore(db) as st:
        st.add_ranking("x", dataset="d", split=0, method="m", selector="{}", k_requested=2,
                       ranking=[1, 0], scores=None, selection_time=0.1, versions="{}",
                       info={"selector": {"best_params": {"alpha": 1}}})
        assert st.get_ranking("x")["info"] == {"selector": {"best_params": {"alpha": 1}}}
        assert st.rankings().keys() == want.keys() | {"x"}


def test_export_csv_and_parquet(tmp_path):
    db = tmp_path / "r.db"
    run(spec(), db)
    with ResultStore(db, readonly=True) as st:
        p = st.export(tmp_path / "cells.csv")
        df = pd.read_csv(p)
        assert len(df) == 12 and set(METRICS) <= set(df.columns)
        with pytest.raises(ValueError, match="format"):
            st.export(tmp_path / "cells.xlsx")
        q = pd.read_parquet(st.export(tmp_path / "cells.parquet"))
        assert len(q) == 12


def test_readonly_store_requires_existing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        ResultStore(tmp_path / "none.db", readonly=True)


def test_a_resumed_task_keeps_the_largest_peak_of_its_runs(tmp_path):
    """A task finished over two runs used as much memory as the larger of the two."""
    with ResultStore(tmp_path / "t.db") as st:
        st.add_task_stats("t1", "d", 0, "scls", 300.0)
        st.add_task_stats("t1", "d", 0, "scls", 120.0)  # the resumed run needed less
        st.add_task_stats("t2", "d", 1, "scls", 50.0)
        st.add_task_stats("t2", "d", 1, "scls", 80.0)
        st.add_task_stats("t3", "d", 2, "scls", None)  # not measurable on this platform
        st.add_task_stats("t3", "d", 2, "scls", 40.0)
        got = st.task_stats().set_index("task_id")["peak_rss_mb"].to_dict()
    assert got == {"t1": 300.0, "t2": 80.0, "t3": 40.0}
