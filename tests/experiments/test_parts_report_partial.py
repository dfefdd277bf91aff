"""The report of a multi-part store read from the store alone: without the data files,
after a run stopped inside a part, and for a store that never recorded its parts."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from skmlfs.datasets import make_multilabel_discrete, write_arff
from skmlfs.experiments import ResultStore, _parts_run, load_parts, run_parts
from skmlfs.experiments.report import write_report

TOML = """
name = "toy"
seed = 0
n_features_to_select = [2, 4]
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["scls", "mdmr"]
protocol = { kind = "kfold", k = 2 }

[[report.section]]
kind = "grid"
part = "main"
title = "5-fold"

[[report.section]]
kind = "grid"
part = "lee"
folder = "lee"
title = "holdouts"

[[datasets]]
name = "toy"
path = "data/toy.arff"

[[part]]
name = "lee"
n_features_to_select = 3
protocol = { kind = "holdout", repeats = 2, test_size = 0.3 }
"""


@pytest.fixture
def experiment(tmp_path, monkeypatch) -> Path:
    monkeypatch.delenv("MLFS_DATASETS", raising=False)
    ds = make_multilabel_discrete(n_samples=80, n_features=8, n_labels=3, random_state=1)
    (tmp_path / "data").mkdir()
    write_arff(ds, tmp_path / "data" / "toy.arff")
    f = tmp_path / "toy.toml"
    f.write_text(TOML, encoding="utf-8")
    return f


def _cells(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as c:
        rows = c.execute("SELECT protocol, COUNT(*) FROM cells GROUP BY protocol").fetchall()
    return {("lee" if "holdout" in p else "main"): n for p, n in rows}


def _readme(db: Path, out: Path, **kw) -> str:
    write_report(db, out, figures=False, command="mlfs report toy.db", **kw)
    return (out / "README.md").read_text(encoding="utf-8")


def test_report_from_the_store_alone_needs_no_data_files(experiment, tmp_path):
    db = tmp_path / "toy.db"
    with ResultStore(db) as store:
        run_parts(load_parts(experiment), store, n_jobs=1, progress=False, verbose=False)
    with_data = _readme(db, tmp_path / "a")
    (tmp_path / "data" / "toy.arff").unlink()  # the data are gone: the store still reports
    with pytest.raises(Exception, match="toy.arff"):  # a run still needs them, and says so
        load_parts(experiment)
    n = _cells(db)
    assert n["main"] > 0 and n["lee"] > 0
    without = _readme(db, tmp_path / "b")
    assert without == with_data
    assert f"`main` ({n['main']} cells), `lee` ({n['lee']} cells)" in without
    # the experiment file given on the command line is read the same way
    assert _readme(db, tmp_path / "c", experiment_file=experiment) == with_data


def test_a_run_stopped_inside_a_part_reports_the_cells_it_stored(experiment, tmp_path,
                                                                 monkeypatch):
    real = _parts_run.run_experiment

    def stopped_at_the_end(spec, store, **kw):  # stored every cell, then killed
        real(spec, store, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(_parts_run, "run_experiment", stopped_at_the_end)
    db = tmp_path / "toy.db"
    with ResultStore(db) as store, pytest.raises(KeyboardInterrupt):
        run_parts(load_parts(experiment), store, n_jobs=1, progress=False, verbose=False)
    n = _cells(db)
    assert set(n) == {"main"}
    text = _readme(db, tmp_path / "r")  # the multi-part report, with part main's cells
    assert f"Parts: `main` ({n['main']} cells)." in text
    assert "No cells of part `lee` in the store yet" in text


def test_a_store_without_its_parts_record_reports_through_the_file(experiment, tmp_path):
    db = tmp_path / "toy.db"
    with ResultStore(db) as store:
        run_parts(load_parts(experiment), store, n_jobs=1, progress=False, verbose=False)
    whole = _readme(db, tmp_path / "a")
    with sqlite3.connect(db) as c:  # as a run of an earlier version stopped inside a part
        c.execute("DELETE FROM meta WHERE key LIKE 'parts:%' OR key LIKE 'parts_file:%'")
    # the store alone cannot tell its parts: the one-grid report of every cell ...
    assert "Parts:" not in _readme(db, tmp_path / "b")
    # ... and with the file, each part's cells are found by the experiments it names
    assert _readme(db, tmp_path / "c", experiment_file=experiment) == whole
