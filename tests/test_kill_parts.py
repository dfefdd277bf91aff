"""kill -9 of a real ``mlfs benchmark`` running a multi-part experiment, then resume (#14).

The parts after ``main`` (an ablation whose value is chosen from ``main``'s cells, a
training-share curve) go through the store like any grid: a SIGKILL in the middle loses,
duplicates or recomputes no finished cell, and the resumed store equals a clean run.
"""

from __future__ import annotations

import pytest
from _subproc import kill_then_resume, reference_run

from skmlfs.experiments import ResultStore

GEN = "skmlfs.datasets:make_multilabel_discrete"
EXPERIMENT = f"""
name = "killparts"
seed = 3
n_features_to_select = "all"
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
    return reference_run(tmp_path_factory.mktemp("parts"), "killparts", EXPERIMENT)


def test_sigkill_multipart_run_then_resume(parts_experiment, tmp_path):
    spec, ref = parts_experiment
    assert len(ref) == N_CELLS
    db = tmp_path / "run.db"
    # kill twice: in main, then in a later part
    n, _ = kill_then_resume(spec, db, tmp_path, (12, 24), N_CELLS)
    assert n > 6 * 3, "the second kill must land after part main"
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    cols = ["cell_id", "learner", "hamming_loss", "subset_accuracy"]
    assert df[cols].equals(ref[cols])
