"""kill -9 of a real ``mlfs benchmark`` running a multi-part experiment, then resume (#14).

The parts after ``main`` (an ablation whose value is chosen from ``main``'s cells, a
training-share curve) go through the store like any grid: a SIGKILL in the middle loses,
duplicates or recomputes no finished cell, and the resumed store equals a clean run.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess

import pytest
from test_cli_benchmark import count, mlfs, wait_for_cells

from skmlfs.experiments import ResultStore

GEN = "skmlfs.datasets:make_multilabel_discrete"
EXPERIMENT = f"""
name = "killparts"
seed = 3
n_features = "all"
selectors = ["all"]
discretizer = "none"
metrics = ["hamming_loss", "subset_accuracy"]
protocol = {{ kind = "holdout", repeats = 6 }}

[learners.knn]
method = "mlknn"
variants = {{ k = [3, 5, 7] }}

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 500, n_features = 40, n_labels = 5, random_state = 2 }}

[[part]]
name = "abl"
[part.learners.s]
method = "mlknn"
k = {{ best = "knn[*", metric = "hamming_loss", param = "k" }}
variants = {{ s = [0.5, 1.0] }}

[[part]]
name = "ts"
[part.learners.share]
method = "train_subsample"
estimator = {{ method = "mlknn", k = 5 }}
variants = {{ fraction = [0.2, 0.4, 0.6, 1.0] }}
"""
N_CELLS = 6 * (3 + 2 + 4)


@pytest.fixture(scope="module")
def parts_experiment(tmp_path_factory):
    d = tmp_path_factory.mktemp("parts")
    p = d / "killparts.toml"
    p.write_text(EXPERIMENT)
    ref = d / "ref.db"
    subprocess.run(mlfs("benchmark", p, "--db", ref, "--quiet", "--no-report"), check=True,
                   cwd=d)
    with ResultStore(ref, readonly=True) as st:
        return p, st.to_frame()


def _created(db):
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT cell_id, created FROM cells"))
    finally:
        con.close()


def test_sigkill_multipart_run_then_resume(parts_experiment, tmp_path):
    spec, ref = parts_experiment
    assert len(ref) == N_CELLS
    db = tmp_path / "run.db"
    before: dict = {}
    for threshold in (12, 24):  # kill twice: in main, then in a later part
        proc = subprocess.Popen(mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report"),
                                cwd=tmp_path)
        wait_for_cells(proc, db, count(db) + threshold)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        n = count(db)
        assert 0 < n < N_CELLS, "the kill must land mid-run"
        now = _created(db)
        assert all(now[c] == t for c, t in before.items())  # nothing rewritten
        before = now
    assert n > 6 * 3, "the second kill must land after part main"
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--no-report"), cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    after = _created(db)
    assert all(after[c] == t for c, t in before.items())  # finished cells not recomputed
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    assert len(ids) == len(set(ids)) == N_CELLS
    con.close()
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    cols = ["cell_id", "learner", "hamming_loss", "subset_accuracy"]
    assert df[cols].equals(ref[cols])
