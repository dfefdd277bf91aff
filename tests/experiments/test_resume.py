"""Resume, in process, through the planner: a store that holds part of an experiment's
cells (what a killed run leaves behind) is planned into exactly the missing cells, and
the resumed store equals an uninterrupted run.

A run killed at any moment leaves a store in one of these states per task (a task is
one dataset, split and selector; the client commits its ranking, then each of its cells,
each in its own transaction): nothing of the task, its ranking but no cell, or its
ranking and some of its cells. Each test builds all three states by deleting rows from a
finished store, so the tests cover what the SIGKILL tests of the real processes
(tests/experiments/test_runner_safety.py, one per backend) can only hit at random.
"""

from __future__ import annotations

import sqlite3
import tomllib
from pathlib import Path

import pytest

from skmlfs.experiments import ExperimentSpec, ResultStore, run_experiment
from skmlfs.experiments._parts import parts_from_dict
from skmlfs.experiments._parts_run import part_specs
from skmlfs.experiments._planner import plan_experiment

GEN = "skmlfs.datasets:make_multilabel_discrete"

# two datasets, a holdout and a k-fold protocol, three selectors, four budgets
PLAIN = f"""
name = "plain"
seed = 3
n_features_to_select = "1..4"
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["scls", "ami", "mdmr"]
protocol = {{ kind = "holdout", repeats = 3 }}

[[datasets]]
name = "s1"
generator = "{GEN}"
params = {{ n_samples = 150, n_features = 16, random_state = 4 }}

[[datasets]]
name = "s2"
generator = "{GEN}"
params = {{ n_samples = 120, n_features = 12, random_state = 8 }}
protocol = {{ kind = "kfold", k = 4 }}
"""

# every outer cell runs an inner grid search on its training part and stores its choice
TUNED_LEARNER = f"""
name = "tuned"
seed = 3
n_features_to_select = "2..5"
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["mi_rank", "scls"]
discretizer = "none"
protocol = {{ kind = "holdout", repeats = 3 }}

[learners.mlknn]
method = "mlknn"
tune = {{ k = [1, 3, 5] }}
inner_cv = {{ k = 3, stratification = "iterative" }}
scoring = "hamming_loss"

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 160, n_features = 20, n_labels = 4, random_state = 2 }}
"""

# a selector tuned with each learner by a coordinate search (its choice stored per cell)
TUNED_SELECTOR = f"""
name = "tunedsel"
seed = 1
n_features_to_select = "2..4"
metrics = ["macro_f1", "micro_f1"]
discretizer = {{ method = "skmlfs.experiments:MinMaxScale" }}
protocol = {{ kind = "holdout", repeats = 3 }}

[learners.svm]
method = "sklearn.multiclass:OneVsRestClassifier"
estimator = {{ method = "sklearn.svm:LinearSVC", C = 1.0, max_iter = 1000, random_state = 0 }}
tune = {{ estimator__C = [0.1, 1.0] }}
inner_cv = 2
scoring = ["macro_f1", "micro_f1"]
tune_budget = "largest"

[learners.knn]
method = "sklearn.neighbors:KNeighborsClassifier"
n_neighbors = 3

[selectors.rlefs]
method = "rlefs"
random_state = 0
max_iter = 10
tune = {{ alpha = [0.1, 0.5], lambda_ = [0.1, 0.5] }}
tune_with = "learner"
inner_cv = 2
scoring = ["macro_f1", "micro_f1"]
tune_search = "coordinate"
tune_start = {{ alpha = 0.5, lambda_ = 0.5 }}
feature_order = "index"

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 120, n_features = 12, n_labels = 4, random_state = 2 }}
"""

# parts after main: an ablation whose value is chosen from main's cells, a training-share
# curve
PARTS = f"""
name = "parts"
seed = 3
n_features_to_select = "all"
selectors = ["all"]
discretizer = "none"
metrics = ["hamming_loss", "subset_accuracy"]
protocol = {{ kind = "holdout", repeats = 3 }}

[learners.knn]
method = "mlknn"
variants = {{ k = [3, 5, 7] }}

[[datasets]]
name = "synth"
generator = "{GEN}"
params = {{ n_samples = 200, n_features = 20, n_labels = 5, random_state = 2 }}

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

# what a resumed cell must equal (besides its metrics): timings differ by nature
SAME = ["cell_id", "dataset", "split", "method", "k", "n_selected", "learner"]


def _run(spec, store, computed: list[str] | None = None, **kw):
    """Run ``spec`` serially into ``store``, appending the id of every computed cell to
    ``computed``."""

    def note(task, res):
        computed.extend(c.cell_id for c in res.cells)

    return run_experiment(spec, store, verbose=False, progress=False,
                          on_result=None if computed is None else note, **kw)


def _cells_by_task(db: Path) -> dict[str, list[str]]:
    """``task id -> its cell ids`` (a cell's ``ranking_id`` is its task's id)."""
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT ranking_id, cell_id FROM cells ORDER BY ranking_id, cell_id")
        out: dict[str, list[str]] = {}
        for task, cell in rows:
            out.setdefault(task, []).append(cell)
        return out
    finally:
        con.close()


def _kill_leftovers(db: Path) -> tuple[set[str], set[str]]:
    """Delete rows of the finished store ``db`` so that it looks like a run killed
    mid-way: of every fourth task nothing is left; of the next its ranking only; of the
    next its ranking and its first cell; the fourth is complete. Returns the deleted cell
    ids and the ids of the tasks whose ranking was kept although cells are missing."""
    by_task = _cells_by_task(db)
    deleted: set[str] = set()
    ranked: set[str] = set()
    con = sqlite3.connect(db)
    try:
        has_ranking = {r for (r,) in con.execute("SELECT ranking_id FROM rankings")}
        for i, task in enumerate(by_task):
            cells = by_task[task]
            if i % 4 == 0:
                gone = cells
                con.execute("DELETE FROM rankings WHERE ranking_id = ?", (task,))
            elif i % 4 in (1, 2):
                gone = cells if i % 4 == 1 else cells[1:]
                if gone:
                    ranked.add(task)
            else:
                continue
            con.executemany("DELETE FROM cells WHERE cell_id = ?", [(c,) for c in gone])
            deleted.update(gone)
        ranked &= has_ranking  # a selector that stores no ranking is run again anyway
        con.commit()
    finally:
        con.close()
    return deleted, ranked


def _created(db: Path) -> dict[str, str]:
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT cell_id, created FROM cells"))
    finally:
        con.close()


def _frame(db: Path, metrics):
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    return df.sort_values("cell_id").reset_index(drop=True)[[*SAME, *metrics, "features",
                                                               "info"]]


def _copy(src: Path, dst: Path) -> Path:
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    try:
        a.backup(b)
    finally:
        a.close()
        b.close()
    return dst


@pytest.mark.parametrize("text", [PLAIN, TUNED_LEARNER, TUNED_SELECTOR],
                         ids=["plain", "tuned-learner", "tuned-selector"])
def test_a_partial_store_plans_exactly_the_missing_cells(tmp_path, text):
    spec = ExperimentSpec.from_dict(tomllib.loads(text))
    metrics = [m.name for m in spec.metrics]
    ref = tmp_path / "ref.db"
    full = _run(spec, ref)
    assert full.n_computed == full.n_cells == len(set(full.cell_ids))
    db = _copy(ref, tmp_path / "run.db")
    deleted, ranked = _kill_leftovers(db)
    assert 0 < len(deleted) < full.n_cells
    kept = _created(db)

    with ResultStore(db, readonly=True) as st:
        plan = plan_experiment(spec, st)
    assert plan.cell_ids == full.cell_ids  # the whole experiment, in the same order
    pending = [c.cell_id for t in plan.tasks for c in t.cells]
    assert len(pending) == len(set(pending)) == plan.n_pending
    assert set(pending) == deleted  # exactly the missing cells: none twice, none finished
    # a task whose ranking survived is not selected again: its ranking is reused
    assert {t.task_id for t in plan.tasks if t.cached_ranking is not None} == ranked

    computed: list[str] = []
    again = _run(spec, db, computed)
    assert sorted(computed) == sorted(deleted)
    assert again.n_cached == full.n_cells - len(deleted)
    assert again.n_computed == len(deleted)
    after = _created(db)
    assert all(after[c] == t for c, t in kept.items())  # finished cells not rewritten
    got, want = _frame(db, metrics), _frame(ref, metrics)
    # every cell equals the uninterrupted run's, the learner's chosen parameters included
    assert got.drop(columns="info").equals(want.drop(columns="info"))
    reused = {c.cell_id for t in plan.tasks if t.cached_ranking is not None for c in t.cells}
    assert (~got.cell_id.isin(reused)).any() and got.cell_id.isin(reused).any()
    # cells of fresh and of reused rankings alike: what the learner and the selector report
    assert got["info"].tolist() == want["info"].tolist()
    # and nothing is left to do
    with ResultStore(db, readonly=True) as st:
        assert plan_experiment(spec, st).tasks == []


def test_a_reused_ranking_keeps_the_selector_info(tmp_path):
    """A cell resumed from a stored ranking records the selector's search (best
    parameters, inner scores) as the uninterrupted run did: the ranking keeps it."""
    spec = ExperimentSpec.from_dict(tomllib.loads(TUNED_SELECTOR))
    ref = tmp_path / "ref.db"
    _run(spec, ref)
    db = _copy(ref, tmp_path / "run.db")
    _, ranked = _kill_leftovers(db)
    assert ranked
    _run(spec, db)
    metrics = [m.name for m in spec.metrics]
    assert _frame(db, metrics)["info"].tolist() == _frame(ref, metrics)["info"].tolist()


def test_a_partial_multipart_store_plans_exactly_the_missing_cells(tmp_path):
    """The parts after ``main`` go through the store like any grid; a store missing cells
    of several parts resumes them, and the ablation's value is chosen from the resumed,
    complete ``main`` (so it equals the uninterrupted run's)."""
    from skmlfs.experiments import run_parts

    ep = parts_from_dict(tomllib.loads(PARTS), source="parts")
    metrics = ["hamming_loss", "subset_accuracy"]
    ref = tmp_path / "ref.db"
    with ResultStore(ref) as st:
        full = run_parts(ep, st, progress=False, verbose=False)
    n_cells = 3 * (3 + 2 + 4)
    assert sum(len(v) for v in full.cell_ids().values()) == n_cells
    db = _copy(ref, tmp_path / "run.db")
    # a kill in a later part leaves main complete, an earlier kill leaves parts unplanned;
    # here cells of every part are missing (a resumed run plans each part in turn)
    deleted, _ = _kill_leftovers(db)
    parts_of = {c: p for p, ids in full.cell_ids().items() for c in ids}
    assert {parts_of[c] for c in deleted} == {"main", "abl", "ts"}
    kept = _created(db)

    with ResultStore(db, readonly=True) as st:
        (main,) = part_specs(ep, "main", st)
        plan = plan_experiment(main, st)
    assert {c.cell_id for t in plan.tasks for c in t.cells} == {
        c for c in deleted if parts_of[c] == "main"}

    computed: list[str] = []
    with ResultStore(db) as st:
        again = run_parts(ep, st, progress=False, verbose=False,
                          on_result=lambda task, res: computed.extend(
                              c.cell_id for c in res.cells))
    assert sorted(computed) == sorted(deleted)
    assert again.cell_ids() == full.cell_ids()
    assert [s.name for v in again.specs.values() for s in v] == [
        s.name for v in full.specs.values() for s in v]
    after = _created(db)
    assert all(after[c] == t for c, t in kept.items())
    assert _frame(db, metrics).equals(_frame(ref, metrics))
