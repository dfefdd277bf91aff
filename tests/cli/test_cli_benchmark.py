"""``mlfs benchmark`` / ``mlfs report`` as real processes: Ctrl-C mid-run and resume, the
report, one-line errors. (SIGKILL and resume: tests/experiments/test_runner_safety.py, one test per
backend; every partial store: tests/experiments/test_resume.py, in process.)"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from _subproc import count, mlfs, wait_for_cells

from skmlfs.experiments import ResultStore

pytestmark = pytest.mark.subprocess

GEN = "skmlfs.datasets:make_multilabel_discrete"

# ~600 cells of a few ms each: long enough to be killed in the middle
EXPERIMENT = f"""
name = "killme"
seed = 5
n_features_to_select = "1..10"
metrics = ["hamming_loss", "ranking_loss", "normalized_coverage"]
selectors = ["scls", "ami", "mdmr"]

[protocol]
kind = "holdout"
repeats = 15

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 300, n_features = 30, random_state = 4 }}

[[datasets]]
name = "synth2"
generator = "{GEN}"
params = {{ n_samples = 200, n_features = 20, random_state = 8 }}
protocol = {{ kind = "kfold", k = 4 }}
"""
N_CELLS = 15 * 3 * 10 + 4 * 3 * 10


def check_complete(db: Path):
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    assert len(ids) == len(set(ids)) == N_CELLS  # none lost, none duplicated
    for m, f in con.execute("SELECT metrics, features FROM cells"):
        vals = json.loads(m)  # every cell complete: all metrics and its features
        assert set(vals) == {"hamming_loss", "ranking_loss", "normalized_coverage"}
        assert all(np.isfinite(v) for v in vals.values()) and len(json.loads(f)) >= 1
    con.close()


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    d = tmp_path_factory.mktemp("exp")
    p = d / "killme.toml"
    p.write_text(EXPERIMENT)
    ref = d / "ref.db"
    subprocess.run(mlfs("benchmark", p, "--db", ref, "--quiet", "--no-report"), check=True,
                   cwd=d)
    with ResultStore(ref, readonly=True) as st:
        return p, st.to_frame(), ref


def same_results(db: Path, ref):
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    cols = ["cell_id", "hamming_loss", "ranking_loss", "normalized_coverage", "n_selected"]
    assert df[cols].equals(ref[cols])
    assert df.features.tolist() == ref.features.tolist()


@pytest.mark.kill
def test_ctrl_c_stops_cleanly_and_resumes(experiment, tmp_path):
    spec, ref, _ = experiment
    db = tmp_path / "run.db"
    proc = subprocess.Popen(mlfs("benchmark", spec, "--db", db, "--no-report"), cwd=tmp_path,
                            stderr=subprocess.PIPE, text=True)
    wait_for_cells(proc, db, 100)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert "run the same command again to resume" in err
    assert 0 < count(db) < N_CELLS
    subprocess.run(mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report"), check=True,
                   cwd=tmp_path)
    check_complete(db)
    same_results(db, ref)


@pytest.mark.kill
def test_sigterm_to_the_whole_run_stops_cleanly_and_resumes(experiment, tmp_path):
    """SIGTERM as ``timeout`` sends it (to the command, then to its process group: a batch
    scheduler's time limit, ``docker stop`` alike): the workers die with the default
    action, the second signal does not cut the cleanup short, the command stores what it
    finished, logs the run as interrupted and exits 143; no task is recorded as failed."""
    spec, ref, _ = experiment
    db = tmp_path / "run.db"
    proc = subprocess.Popen(mlfs("benchmark", spec, "--db", db, "--no-report", "-j", "2"),
                            cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    wait_for_cells(proc, db, 100)
    os.kill(proc.pid, signal.SIGTERM)
    time.sleep(0.01)  # the second signal lands while the run shuts its workers down ...
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    # ... or after the command is done, which the default action then ends (-15)
    assert proc.returncode in (143, -signal.SIGTERM), err
    assert "run the same command again to resume" in err and "terminated" in err
    n = count(db)
    assert 0 < n < N_CELLS
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT n_computed, interrupted FROM runs").fetchall() == [(n, 1)]
        assert con.execute("SELECT COUNT(*) FROM failures").fetchone()[0] == 0
    subprocess.run(mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report"), check=True,
                   cwd=tmp_path)
    check_complete(db)
    same_results(db, ref)


def test_benchmark_writes_report_and_report_command(experiment, tmp_path):
    spec, _, ref_db = experiment
    db = tmp_path / "r.db"
    with sqlite3.connect(ref_db) as src, sqlite3.connect(db) as dst:
        src.backup(dst)  # finished run: benchmark resumes (nothing to compute) and reports
    out = tmp_path / "rep"
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--out", out, "-q",
                              "--export", tmp_path / "cells.csv"),
                         cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    for metric in ("hamming_loss", "ranking_loss", "normalized_coverage"):
        for ext in ("md", "tex", "csv"):
            assert (out / "tables" / f"{metric}.{ext}").stat().st_size > 0
        assert (out / "figures" / f"cd_{metric}.png").stat().st_size > 0
        assert (out / "figures" / f"curves_{metric}__synth.png").stat().st_size > 0
    assert (out / "figures" / "runtime.png").stat().st_size > 0
    readme = (out / "README.md").read_text()
    assert "Avg. rank" in readme and "| synth |" in readme and "✓" in readme
    assert (tmp_path / "cells.csv").read_text().count("\n") == N_CELLS + 1
    out2 = tmp_path / "rep2"
    res = subprocess.run(mlfs("report", db, "--out", out2, "--format", "md", "--no-figures",
                              "-k", "5"), cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in (out2 / "tables").iterdir()) == [
        "hamming_loss.md", "normalized_coverage.md", "ranking_loss.md"]
    assert not (out2 / "figures").exists()


def test_bad_experiment_is_one_clear_error(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('selectors = ["scls"]\nmetrics = ["hamming"]\n'
                 f'[[datasets]]\ngenerator = "{GEN}"\n')
    res = subprocess.run(mlfs("benchmark", p), cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 2
    assert "metrics[0]" in res.stderr and "Traceback" not in res.stderr
    res = subprocess.run(mlfs("report", tmp_path / "none.db"), cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 2 and "does not exist" in res.stderr
    assert not os.path.exists(tmp_path / "runs")
