"""kill -9 of a real ``mlfs benchmark`` running a *tuned* experiment, then resume (#14 §2).

Every outer cell runs an inner grid search (GridSearchCV on its training part) and stores
its choice; a SIGKILL in the middle must lose, duplicate or recompute no finished cell,
and the resumed store must equal an uninterrupted run, chosen parameters included.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess

import pytest
from _subproc import count, mlfs, wait_for_cells

from skmlfs.experiments import ResultStore

GEN = "skmlfs.datasets:make_multilabel_discrete"
EXPERIMENT = f"""
name = "killtuned"
seed = 3
n_features = "2..5"
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["mi_rank", "scls"]
discretizer = "none"

[learners.mlknn]
method = "mlknn"
tune = {{ k = [1, 3, 5] }}
inner_cv = {{ k = 3, stratification = "iterative" }}
scoring = "hamming_loss"

[protocol]
kind = "holdout"
repeats = 6

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 160, n_features = 20, n_labels = 4, random_state = 2 }}
"""
N_CELLS = 6 * 2 * 4


@pytest.fixture(scope="module")
def tuned_experiment(tmp_path_factory):
    d = tmp_path_factory.mktemp("tuned")
    p = d / "killtuned.toml"
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


def test_sigkill_tuned_run_then_resume(tuned_experiment, tmp_path):
    spec, ref = tuned_experiment
    assert len(ref) == N_CELLS
    assert all(set(i["learner"]["best_params"]) == {"k"} for i in ref["info"])
    db = tmp_path / "run.db"
    before: dict = {}
    for threshold in (8, 20):  # kill twice, at different points
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
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--no-report"), cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert f"{n} already in" in res.stderr
    after = _created(db)
    assert all(after[c] == t for c, t in before.items())  # finished cells not recomputed
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    assert len(ids) == len(set(ids)) == N_CELLS
    assert all(json.loads(i)["learner"]["best_params"] for (i,) in
               con.execute("SELECT info FROM cells"))
    con.close()
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    cols = ["cell_id", "hamming_loss", "ranking_loss", "n_selected"]
    assert df[cols].equals(ref[cols])
    assert df.features.tolist() == ref.features.tolist()
    # the chosen parameters and every candidate's inner score are those of the clean run
    assert df["info"].tolist() == ref["info"].tolist()
