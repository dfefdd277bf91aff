"""kill -9 of a real ``mlfs benchmark`` running a *tuned* experiment, then resume (#14 §2).

Every outer cell runs an inner grid search (GridSearchCV on its training part) and stores
its choice; a SIGKILL in the middle must lose, duplicate or recompute no finished cell,
and the resumed store must equal an uninterrupted run, chosen parameters included.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from _subproc import kill_then_resume, reference_run

from skmlfs.experiments import ResultStore

GEN = "skmlfs.datasets:make_multilabel_discrete"
EXPERIMENT = f"""
name = "killtuned"
seed = 3
n_features_to_select = "2..5"
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
    return reference_run(tmp_path_factory.mktemp("tuned"), "killtuned", EXPERIMENT)


def test_sigkill_tuned_run_then_resume(tuned_experiment, tmp_path):
    spec, ref = tuned_experiment
    assert len(ref) == N_CELLS
    assert all(set(i["learner"]["best_params"]) == {"k"} for i in ref["info"])
    db = tmp_path / "run.db"
    n, res = kill_then_resume(spec, db, tmp_path, (8, 20), N_CELLS)  # two kills
    assert f"{n} already in" in res.stderr
    con = sqlite3.connect(db)
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
