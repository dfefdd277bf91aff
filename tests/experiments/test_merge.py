"""Merging results stores computed apart (``ResultStore.merge``, ``mlfs merge``)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import sqlite3

import pandas as pd
import pytest

from skmlfs.cli import main
from skmlfs.experiments import (
    ExperimentSpec,
    ResultStore,
    StoreError,
    readable_store,
    run_experiment,
)

GEN = "skmlfs.datasets:make_multilabel_discrete"
METRICS = ["hamming_loss", "ranking_loss"]


def dataset(name, seed):
    return {"name": name, "generator": GEN,
            "params": {"n_samples": 80, "n_features": 8, "random_state": seed}}


def spec(*names):
    every = {"a": dataset("a", 0), "b": dataset("b", 1)}
    return ExperimentSpec.from_dict({
        "name": "mg", "seed": 0, "n_features_to_select": [2, 4],
        "selectors": ["scls", "random"], "metrics": METRICS,
        "protocol": {"kind": "holdout", "repeats": 2},
        "datasets": [every[n] for n in names or ("a", "b")],
    })


def run(s, db):
    return run_experiment(s, db, verbose=False, progress=False)


def frame(db):
    with ResultStore(db, readonly=True) as st:
        return st.to_frame().set_index("cell_id")


def count(db, table):
    return sqlite3.connect(db).execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The whole experiment in one store, and its two data sets computed apart."""
    d = tmp_path_factory.mktemp("stores")
    run(spec(), d / "full.db")
    run(spec("a"), d / "a.db")
    run(spec("b"), d / "b.db")
    return d


def test_merged_parts_are_the_whole_run_and_a_rerun_computes_nothing(stores, tmp_path):
    db = tmp_path / "m.db"
    with ResultStore(db) as st:
        got_a, got_b = st.merge(stores / "a.db"), st.merge(stores / "b.db")
    assert got_a["cells"] == count(stores / "a.db", "cells") > 0
    assert got_b["cells"] == count(stores / "b.db", "cells") > 0
    assert got_a["cells_kept"] == got_b["cells_kept"] == 0
    assert got_a["runs"] == got_b["runs"] == 1
    full, merged = frame(stores / "full.db"), frame(db)
    assert sorted(merged.index) == sorted(full.index)
    cols = METRICS + ["n_selected", "n_train", "n_test"]
    pd.testing.assert_frame_equal(merged.loc[full.index, cols], full[cols])
    assert count(db, "rankings") == count(stores / "full.db", "rankings")
    assert count(db, "tasks") == count(stores / "full.db", "tasks")
    # the file run on the merged store finds every cell there
    again = run(spec(), db)
    assert again.n_computed == 0 and again.n_cached == len(full)


def test_merging_again_adds_nothing(stores, tmp_path):
    db = tmp_path / "m.db"
    shutil.copy(stores / "a.db", db)
    before = {t: count(db, t) for t in ("cells", "rankings", "runs", "tasks", "meta")}
    with ResultStore(db) as st:
        got = st.merge(stores / "a.db")
    assert got["cells"] == got["rankings"] == got["runs"] == got["tasks"] == got["meta"] == 0
    assert got["cells_kept"] == before["cells"] and got["cells_differ"] == 0
    assert got["rankings_kept"] == before["rankings"] and got["rankings_differ"] == 0
    assert {t: count(db, t) for t in before} == before


def test_a_cell_computed_twice_keeps_the_target_value_and_is_counted(stores, tmp_path):
    other = tmp_path / "other.db"
    shutil.copy(stores / "a.db", other)
    con = sqlite3.connect(other)
    cid, metrics = con.execute("SELECT cell_id, metrics FROM cells LIMIT 1").fetchone()
    changed = {k: v + 0.125 for k, v in json.loads(metrics).items()}
    con.execute("UPDATE cells SET metrics = ? WHERE cell_id = ?", (json.dumps(changed), cid))
    con.execute("UPDATE tasks SET peak_rss_mb = 1e6")  # a larger peak is kept
    con.commit()
    con.close()
    db = tmp_path / "m.db"
    shutil.copy(stores / "a.db", db)
    with ResultStore(db) as st:
        got = st.merge(other)
    assert got["cells"] == 0 and got["cells_differ"] == 1 and got["rankings_differ"] == 0
    assert frame(db).loc[cid, "hamming_loss"] == frame(stores / "a.db").loc[cid, "hamming_loss"]
    peaks = sqlite3.connect(db).execute("SELECT DISTINCT peak_rss_mb FROM tasks").fetchall()
    assert peaks == [(1e6,)]


@pytest.mark.parametrize("suffix, opener", [(".xz", lzma.open), (".gz", gzip.open),
                                            (".bz2", bz2.open)])
def test_compressed_stores_are_read_in_place(stores, tmp_path, suffix, opener):
    packed = tmp_path / f"b.db{suffix}"
    with open(stores / "b.db", "rb") as fin, opener(packed, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    size = packed.stat().st_size
    db = tmp_path / "m.db"
    with readable_store(packed, tmp_dir=tmp_path) as plain, ResultStore(db) as st:
        assert plain != packed and plain.parent.parent == tmp_path
        got = st.merge(plain)
    assert got["cells"] == count(stores / "b.db", "cells")
    assert packed.stat().st_size == size
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [packed.name, "m.db", "m.db.lock"])  # the decompressed copy is gone


def test_a_broken_compressed_file_is_named(tmp_path):
    bad = tmp_path / "x.db.xz"
    bad.write_bytes(b"not xz at all")
    with pytest.raises(StoreError, match=r"x\.db\.xz: cannot be decompressed"):
        with readable_store(bad):
            pass


def test_refusals_leave_both_files_untouched(stores, tmp_path):
    db = tmp_path / "m.db"
    shutil.copy(stores / "a.db", db)
    with ResultStore(db) as st:
        with pytest.raises(StoreError, match="into itself"):
            st.merge(db)
        text = tmp_path / "notes.db"
        text.write_text("hello\n")
        with pytest.raises(StoreError, match="not an SQLite database"):
            st.merge(text)
        assert text.read_text() == "hello\n"
        with pytest.raises(FileNotFoundError):
            st.merge(tmp_path / "missing.db")
    assert count(db, "cells") == count(stores / "a.db", "cells")


def test_an_interrupted_merge_adds_nothing(stores, tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    shutil.copy(stores / "a.db", db)
    original = ResultStore._merge_tables

    def fail_after_copying(self, tables):
        original(self, tables)
        raise KeyboardInterrupt

    monkeypatch.setattr(ResultStore, "_merge_tables", fail_after_copying)
    with ResultStore(db) as st, pytest.raises(KeyboardInterrupt):
        st.merge(stores / "b.db")
    assert count(db, "cells") == count(stores / "a.db", "cells")
    assert count(db, "runs") == count(stores / "a.db", "runs")
    monkeypatch.undo()
    with ResultStore(db) as st:  # the store is usable afterwards
        assert st.merge(stores / "b.db")["cells"] == count(stores / "b.db", "cells")


def test_the_command_merges_and_says_what_it_kept(stores, tmp_path, capsys):
    db = tmp_path / "sub" / "all.db"
    packed = tmp_path / "b.db.xz"
    with open(stores / "b.db", "rb") as fin, lzma.open(packed, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    assert main(["merge", str(db), str(stores / "a.db"), str(packed),
                 str(stores / "full.db")]) == 0
    out = capsys.readouterr().out.splitlines()
    n_a, n_b = count(stores / "a.db", "cells"), count(stores / "b.db", "cells")
    assert out[0].endswith(f"{n_a} cells and {count(stores / 'a.db', 'rankings')} rankings "
                           "added; run log: 1 runs")
    assert out[1].startswith(f"{packed}: {n_b} cells")
    assert f"0 cells and 0 rankings added; {n_a + n_b} cells" in out[2]
    assert out[3] == f"{db}: {n_a + n_b} cells"
    # a missing source is named before anything is merged
    assert main(["merge", str(tmp_path / "new.db"), str(stores / "a.db"),
                 str(tmp_path / "gone.db")]) == 2
    assert "gone.db" in capsys.readouterr().err
    assert not (tmp_path / "new.db").exists()


def test_the_report_reads_a_compressed_store(stores, tmp_path, capsys):
    packed = tmp_path / "mg.db.xz"
    with open(stores / "full.db", "rb") as fin, lzma.open(packed, "wb") as fout:
        shutil.copyfileobj(fin, fout)
    assert main(["report", str(packed), "--no-figures", "--format", "md"]) == 0
    capsys.readouterr()
    plain = tmp_path / "plain"
    assert main(["report", str(stores / "full.db"), "--out", str(plain), "--no-figures",
                 "--format", "md"]) == 0
    out = tmp_path / "mg"  # the default folder drops both suffixes
    assert (out / "README.md").read_text() == (plain / "README.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mg", "mg.db.xz", "plain"]
