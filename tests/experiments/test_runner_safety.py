"""The runner's safety as real processes: ``kill -9`` at random moments in every backend,
two processes on one store, stores that are not stores, and an install without Dask."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _subproc import child_env, count, created, mlfs, wait_for_cells

from skmlfs.experiments import ResultStore, run_experiment
from skmlfs.experiments._store import StoreBusyError, StoreError

GEN = "skmlfs.datasets:make_multilabel_discrete"
METRICS = {"hamming_loss", "ranking_loss"}

# 8 repeats x 3 selectors x 10 budgets + 4 folds x 3 x 10 = 360 cells of a few ms each
EXPERIMENT = f"""
name = "safety"
seed = 3
n_features_to_select = "1..10"
metrics = ["hamming_loss", "ranking_loss"]
selectors = ["scls", "ami", "mdmr"]

[protocol]
kind = "holdout"
repeats = 8

[[datasets]]
name = "s1"
generator = "{GEN}"
params = {{ n_samples = 300, n_features = 30, random_state = 4 }}

[[datasets]]
name = "s2"
generator = "{GEN}"
params = {{ n_samples = 200, n_features = 20, random_state = 8 }}
protocol = {{ kind = "kfold", k = 4 }}
"""
N_CELLS = 8 * 3 * 10 + 4 * 3 * 10


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_exit_within(pids: set[int], seconds: float) -> None:
    """Every process of ``pids`` ends within ``seconds`` (the survivors are killed, then
    reported)."""
    t0 = time.time()
    while any(alive(k) for k in pids) and time.time() - t0 < seconds:
        time.sleep(0.1)
    left = [k for k in pids if alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert not left, f"worker processes outlived the killed client: {left}"


def check_complete(db: Path):
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    assert len(ids) == len(set(ids)) == N_CELLS  # none lost, none duplicated
    for m, f in con.execute("SELECT metrics, features FROM cells"):
        vals = json.loads(m)
        assert set(vals) == METRICS and all(np.isfinite(v) for v in vals.values())
        assert len(json.loads(f)) >= 1
    con.close()


def same_results(db: Path, ref):
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    cols = ["cell_id", "hamming_loss", "ranking_loss", "n_selected"]
    assert df[cols].equals(ref[cols])
    assert df.features.tolist() == ref.features.tolist()


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    d = tmp_path_factory.mktemp("safety")
    p = d / "safety.toml"
    p.write_text(EXPERIMENT)
    ref = d / "ref.db"
    run_experiment(p, ref, verbose=False, progress=False)
    with ResultStore(ref, readonly=True) as st:
        return p, st.to_frame()


# --------------------------------------------------------------------------- kill -9
BACKENDS = {"serial": [], "joblib": ["-j", "2"], "dask": ["--dask", "local", "-j", "2"]}


@pytest.mark.slow
@pytest.mark.kill
@pytest.mark.subprocess
@pytest.mark.parametrize("backend", [
    pytest.param(b, marks=pytest.mark.cluster) if b == "dask" else b for b in BACKENDS])
def test_sigkill_at_random_moments_then_resume(experiment, tmp_path, backend):
    """Kill the client with SIGKILL at a random moment (during start-up, or after a random
    number of stored cells), twice, then resume: nothing lost, rewritten, recomputed or
    duplicated, every cell equal to the reference run, and no worker process outlives its
    client. The real kill of each backend; every state a kill can leave a store in is
    resumed in process in tests/experiments/test_resume.py."""
    if backend == "dask":
        pytest.importorskip("distributed")
    spec, ref = experiment
    assert len(ref) == N_CELLS
    rng = np.random.default_rng(list(BACKENDS).index(backend))
    db = tmp_path / "run.db"
    cmd = mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report", *BACKENDS[backend])
    stored: dict = {}
    for attempt in range(2):
        before = count(db)
        proc = subprocess.Popen(cmd, cwd=tmp_path, env=child_env())
        if attempt == 0:  # any moment: start-up, planning, or the first batches
            t_end = time.time() + rng.uniform(0.2, 3.0)
            while time.time() < t_end and proc.poll() is None and count(db) < N_CELLS // 2:
                time.sleep(0.01)
        else:
            wait_for_cells(proc, db, before + int(rng.integers(1, N_CELLS // 3)), timeout=240)
        kids = descendants(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL, "the run ended before it was killed"
        assert count(db) < N_CELLS, "the kill must land before the end"
        now = created(db)
        assert all(now[c] == t for c, t in stored.items())  # no stored cell rewritten
        stored = now
        # workers notice that their client died and exit (loky and Dask both watch it)
        assert_exit_within(kids, 30)
    n = count(db)
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--no-report",
                              *BACKENDS[backend]), cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert f"{n} already in" in res.stderr  # finished cells were not recomputed
    after = created(db)
    assert all(after[c] == t for c, t in stored.items())
    check_complete(db)
    same_results(db, ref)


def _loky_workers(pid: int) -> list[int]:
    out = []
    for k in descendants(pid):
        try:
            cmd = Path(f"/proc/{k}/cmdline").read_bytes()
        except OSError:
            continue
        if b"loky" in cmd and b"resource_tracker" not in cmd:
            out.append(k)
    return out


@pytest.mark.slow
@pytest.mark.kill
@pytest.mark.subprocess
def test_joblib_workers_that_never_got_a_batch_exit_with_the_killed_client(tmp_path):
    """One batch, two workers: the second worker never receives work. Killed with the
    client right after the workers start, both exit at once (before, an idle worker lived
    on for loky's 300 s idle timeout, and a kill during start-up left both behind)."""
    spec = tmp_path / "one.toml"
    spec.write_text(f"""
name = "one"
selectors = ["scls"]
n_features_to_select = 5
protocol = {{ kind = "holdout", repeats = 1 }}
[[datasets]]
name = "s"
generator = "{GEN}"
params = {{ n_samples = 3000, n_features = 60, random_state = 1 }}
""")
    proc = subprocess.Popen(mlfs("benchmark", spec, "--db", tmp_path / "one.db", "--quiet",
                                 "--no-report", "-j", "2"), cwd=tmp_path, env=child_env())
    t0 = time.time()
    while len(_loky_workers(proc.pid)) < 2 and time.time() - t0 < 120:
        assert proc.poll() is None, "the run ended before its workers were seen"
        time.sleep(0.01)
    kids = descendants(proc.pid)
    assert len(_loky_workers(proc.pid)) == 2
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert_exit_within(kids, 30)


# --------------------------------------------------------------------------- one writer
@pytest.mark.kill
@pytest.mark.subprocess
def test_second_process_on_a_busy_store_stops_and_takes_over_after_kill(tmp_path):
    # a longer grid (30 repeats: 1,020 cells), so the first run is still busy when the
    # second one has started (seconds of imports on a loaded machine)
    spec = tmp_path / "busy.toml"
    spec.write_text(EXPERIMENT.replace("repeats = 8", "repeats = 30"))
    n_cells = 30 * 3 * 10 + 4 * 3 * 10
    db = tmp_path / "busy.db"
    cmd = mlfs("benchmark", spec, "--db", db, "--quiet", "--no-report")
    first = subprocess.Popen(cmd, cwd=tmp_path, env=child_env())
    try:
        wait_for_cells(first, db, 5)
        second = subprocess.run(cmd, cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                                timeout=120)
        assert first.poll() is None, "the first run must still be busy"
        assert second.returncode == 2
        err = second.stderr.strip()
        assert err == (f"mlfs benchmark: error: store busy: {db} is being written by pid "
                       f"{first.pid} (wait for it to finish, or stop it; its finished cells "
                       "are kept).")
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    n = count(db)
    assert 0 < n < n_cells
    # the OS released the dead owner's lock: the next run takes over and completes
    res = subprocess.run(mlfs("benchmark", spec, "--db", db, "--no-report"), cwd=tmp_path,
                         env=child_env(), capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert f"{n} already in" in res.stderr
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT cell_id FROM cells")]
    assert len(ids) == len(set(ids)) == n_cells  # none lost, none duplicated
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


def test_writer_lock_in_process(tmp_path):
    db = tmp_path / "l.db"
    a = ResultStore(db)
    b = ResultStore(db)
    with a.writer_lock():
        with a.writer_lock():  # re-entrant for its owner
            pass
        with pytest.raises(StoreBusyError, match=f"store busy: {db} is being written by pid "
                           f"{os.getpid()}"):
            with b.writer_lock():
                pass
    with b.writer_lock():  # released by the owner
        pass
    with a.writer_lock():
        a.close()  # closing the store releases it too
    with b.writer_lock():
        pass
    b.close()


# --------------------------------------------------------------------------- bad stores
def _good_store(path: Path, n: int = 40) -> None:
    with ResultStore(path) as st:
        for i in range(n):
            st.add_cell({
                "cell_id": f"c{i}", "dataset": "d", "split": i, "protocol": "{}",
                "method": "m", "selector": {"method": "m"}, "k": 3, "n_selected": 3,
                "learner": "l", "learner_spec": {"method": "l"}, "seed": 0,
                "metrics": {"hamming_loss": 0.25}, "features": list(range(200)),
                "selection_time": 0.5, "fit_time": 0.1, "predict_time": 0.2, "n_train": 8,
                "n_test": 2, "ranking_id": "r", "ranking_reused": False,
                "versions": {"skmlfs": "x"}, "info": {"C": 1.0, "history": [0.5, 0.25]},
            })


def _text(p):
    p.write_text("dataset,split,hamming_loss\nenron,0,0.1\n")


def _zero(p):
    p.write_bytes(b"")


def _truncated_header(p):
    _good_store(p)
    p.write_bytes(p.read_bytes()[:60])


def _truncated(p):
    _good_store(p)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])


def _corrupted_page(p):
    _good_store(p)
    data = bytearray(p.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    # the b-tree page headers of pages 2 and 3 (table pages after the schema) are garbage
    for start in (page, 2 * page):
        data[start : start + 64] = b"\xde\xad\xbe\xef" * 16
    p.write_bytes(bytes(data))


def _other_sqlite(p):
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    con.commit()
    con.close()


BAD = {
    "text": (_text, "not an SQLite database"),
    "empty": (_zero, "empty file (0 bytes), not a results store"),
    "short": (_truncated_header, "truncated to 60 bytes"),
    "truncated": (_truncated, "truncated"),
    "corrupted": (_corrupted_page, "corrupted"),
    "foreign": (_other_sqlite, "not a scikit-mlfs results store"),
}


@pytest.mark.subprocess
@pytest.mark.parametrize("kind", list(BAD))
def test_unreadable_store_is_one_line_and_left_untouched(tmp_path, kind):
    make, what = BAD[kind]
    db = tmp_path / "bad.db"
    make(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    listing = sorted(p.name for p in tmp_path.iterdir())
    exp = tmp_path / "e.toml"
    exp.write_text(EXPERIMENT)
    for cmd in (mlfs("benchmark", exp, "--db", db, "--quiet"), mlfs("report", db)):
        res = subprocess.run(cmd, cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 2, res.stderr
        lines = res.stderr.strip().splitlines()
        assert len(lines) == 1, res.stderr  # one clean line, no traceback
        assert str(db) in lines[0] and what in lines[0], lines[0]
        assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # never touched
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*listing, "e.toml"])
    with pytest.raises(StoreError, match=re.escape(what)):
        ResultStore(db)


def test_new_store_is_created_whole_and_info_round_trips(tmp_path):
    db = tmp_path / "sub" / "new.db"
    _good_store(db, n=2)
    assert not [p for p in db.parent.iterdir() if p.name.endswith(".new")]
    with ResultStore(db, readonly=True) as st:
        df = st.to_frame()
    assert df["info"].tolist() == [{"C": 1.0, "history": [0.5, 0.25]}] * 2


def test_store_of_an_older_version_gains_the_info_column(tmp_path):
    db = tmp_path / "old.db"
    _good_store(db, n=1)
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE cells DROP COLUMN info")
    con.commit()
    con.close()
    with ResultStore(db, readonly=True) as st:  # reads without changing the file
        assert st.to_frame()["info"].tolist() == [None]
    with ResultStore(db) as st:
        assert "info" in {r[1] for r in st._conn.execute("PRAGMA table_info(cells)")}
        assert st.n_cells() == 1


# --------------------------------------------------------------------------- lean install
BLOCK = ("import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None; "
         "sys.argv[0] = 'mlfs'; ")


@pytest.mark.subprocess
def test_import_and_demo_without_dask(tmp_path):
    code = BLOCK + (
        "import skmlfs, skmlfs.experiments, skmlfs.selection, skmlfs.learners, "
        "skmlfs.datasets, skmlfs.cli\n"
        "from skmlfs.cli import main\n"
        "rc = main(['demo'])\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed') "
        "and sys.modules[m] is not None]\n"
        "sys.exit(rc)"
    )
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "SCLS" in res.stdout


@pytest.mark.subprocess
def test_dask_option_without_dask_says_how_to_install(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text(EXPERIMENT)
    code = BLOCK + "from skmlfs.cli import main; sys.exit(main(sys.argv[1:]))"
    res = subprocess.run([sys.executable, "-c", code, "benchmark", str(exp), "--dask", "local",
                          "--db", str(tmp_path / "d.db")], cwd=tmp_path, env=child_env(),
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.strip() == (
        'mlfs benchmark: error: --dask: running on Dask needs the "distributed" extra: '
        'pip install "scikit-mlfs[distributed]"'
    )
    assert not (tmp_path / "d.db").exists()
    # the library says the same
    code = BLOCK + (
        "from skmlfs.experiments import run_experiment\n"
        "try:\n    run_experiment(sys.argv[1], sys.argv[2], dask='local', verbose=False)\n"
        "except ImportError as e:\n    print(e)\n"
    )
    res = subprocess.run([sys.executable, "-c", code, str(exp), str(tmp_path / "d.db")],
                         cwd=tmp_path, env=child_env(), capture_output=True, text=True, timeout=120)
    assert 'pip install "scikit-mlfs[distributed]"' in res.stdout, res.stderr
