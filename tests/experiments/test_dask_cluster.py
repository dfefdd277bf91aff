"""A real Dask cluster started with Dask's own command-line tools (``dask scheduler``,
``dask worker``), a dataset file the workers read themselves, and a worker killed with
SIGKILL in the middle of the run: the run finishes and every cell equals the serial run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from _subproc import child_env, count, free_port, mlfs

from skmlfs.datasets import load, make_multilabel_discrete
from skmlfs.experiments import ResultStore, run_experiment

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.cluster

REPEATS = 16
N_CELLS = REPEATS * 3 * 8  # splits x selectors x budgets (one learner)

EXPERIMENT = f"""
name = "cluster"
seed = 11
n_features_to_select = "1..8"
metrics = ["hamming_loss", "ranking_loss", "normalized_coverage"]
selectors = ["scls", "ami", "mdmr"]

[protocol]
kind = "holdout"
repeats = {REPEATS}

[[datasets]]
name = "synth"
path = "data/synth.arff"
"""


def write_meka_arff(path: Path, X: np.ndarray, Y: np.ndarray) -> None:
    L = Y.shape[1]
    lines = [f"@relation 'synth: -C {L}'"]
    lines += [f"@attribute y{j} {{0,1}}" for j in range(L)]
    lines += [f"@attribute f{j} numeric" for j in range(X.shape[1])]
    lines.append("@data")
    lines += [",".join(map(str, [*Y[i].tolist(), *X[i].tolist()])) for i in range(len(X))]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture
def cluster(tmp_path):
    """``dask scheduler`` and two ``dask worker --nworkers 1 --nthreads 1`` processes on
    127.0.0.1, each in its own process group and working directory."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    # workers find the file by the client's absolute path
    env = child_env(MLFS_DATASETS=None)
    procs = []
    logs = []

    def start(args, name):
        d = tmp_path / name
        d.mkdir()
        log = open(d / "log.txt", "w")  # noqa: SIM115 — closed at teardown
        logs.append(log)
        p = subprocess.Popen([sys.executable, "-m", "dask", *args], cwd=d, env=env,
                             stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(p)
        return p

    start(["scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
          "scheduler")
    workers = [
        start(["worker", address, "--nworkers", "1", "--nthreads", "1", "--host", "127.0.0.1",
               "--no-dashboard", "--name", f"w{i}"], f"worker{i}")
        for i in range(2)
    ]
    try:
        with distributed.Client(address, timeout=60) as c:
            c.wait_for_workers(2, timeout=90)
        yield address, workers
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        for log in logs:
            log.close()


@pytest.mark.slow
@pytest.mark.kill
@pytest.mark.subprocess
def test_real_cluster_with_a_killed_worker_matches_serial(tmp_path, cluster):
    address, workers = cluster
    ds = make_multilabel_discrete(n_samples=300, n_features=24, random_state=2)
    write_meka_arff(tmp_path / "data" / "synth.arff", np.asarray(ds.X), np.asarray(ds.Y))
    assert np.array_equal(load(tmp_path / "data" / "synth.arff").X, ds.X)
    exp = tmp_path / "cluster.toml"
    exp.write_text(EXPERIMENT)
    run_experiment(exp, tmp_path / "serial.db", verbose=False, progress=False)

    db = tmp_path / "cluster.db"
    client = subprocess.Popen(
        mlfs("benchmark", exp, "--db", db, "--dask", address, "--no-report"),
        cwd=tmp_path, stderr=subprocess.PIPE, text=True, env=child_env(),
    )
    try:
        t0 = time.time()
        while count(db) == 0 and client.poll() is None and time.time() - t0 < 120:
            time.sleep(0.02)
        n_at_kill = count(db)
        os.killpg(workers[0].pid, signal.SIGKILL)  # the worker and its nanny, at once
        workers[0].wait()
        _, err = client.communicate(timeout=180)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    assert 0 < n_at_kill < N_CELLS, "the worker must be killed in the middle of the run"
    assert client.returncode == 0, err
    with distributed.Client(address, timeout=60) as c:
        # every task reached the scheduler sealed: it never imported this library
        assert c.run_on_scheduler(lambda: sorted({"skmlfs", "sklearn"} & set(sys.modules))) == []
    assert "FAILED" not in err
    with ResultStore(tmp_path / "serial.db", readonly=True) as st:
        ref = st.to_frame()
    with ResultStore(db, readonly=True) as st:
        got = st.to_frame()
    assert len(ref) == len(got) == N_CELLS and got.cell_id.is_unique
    cols = ["cell_id", "dataset", "split", "method", "k", "n_selected", "hamming_loss",
            "ranking_loss", "normalized_coverage"]
    assert got[cols].equals(ref[cols])
    assert got.features.tolist() == ref.features.tolist()


def test_dask_callbacks_are_tuned_for_a_run_and_restored_after():
    """For the run, the diagnostic periodic callbacks (statistical profiler, tick monitor,
    system monitor) of the workers, nannies and scheduler are stopped and the memory
    monitors run every second instead of every 100 ms; heartbeats and work stealing keep
    running. Afterwards every server has its own settings back, and a scheduler that
    cannot import this library is tuned all the same (the setter travels by value)."""
    import cloudpickle

    from skmlfs.experiments._backends import _callback_setter, _callbacks_tuned

    def state(dask_worker=None, dask_scheduler=None):
        server = dask_worker if dask_worker is not None else dask_scheduler
        return {n: (pc.callback_time if pc.is_running() else None)
                for n, pc in server.periodic_callbacks.items()}

    # unpickled where this library cannot be imported
    blocked = ("import pickle, sys; sys.modules['skmlfs'] = None; "
               "print(pickle.loads(sys.stdin.buffer.read()).__name__)")
    out = subprocess.run([sys.executable, "-c", blocked], check=True, capture_output=True,
                         input=cloudpickle.dumps(_callback_setter()))
    assert out.stdout.strip() == b"set_callbacks"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as lc, distributed.Client(lc) as c:
        def snapshot():
            return (c.run(state), c.run(state, nanny=True), c.run_on_scheduler(state))

        def without(snap, names):  # heartbeat intervals are the scheduler's to change
            return [{w: {n: v for n, v in d.items() if n not in names} for w, d in s.items()}
                    for s in snap[:2]] + [snap[2]]

        before = snapshot()
        workers, nannies, sched = before
        assert all(d["profile"] == 10 and d["memory_monitor"] == 100 for d in workers.values())
        assert all(d["tick"] == 20 and d["memory_monitor"] == 100 for d in nannies.values())
        assert sched["tick"] == 20 and sched["monitor"] == 500
        with _callbacks_tuned(c):
            workers, nannies, sched = snapshot()
            for d in workers.values():
                assert [d[n] for n in ("profile", "profile-cycle", "tick", "ticks")] == [None] * 4
                assert d["memory_monitor"] == 1000 and d["heartbeat"] is not None
            for d in nannies.values():
                assert [d[n] for n in ("tick", "ticks", "monitor")] == [None] * 3
                assert d["memory_monitor"] == 1000
            assert [sched[n] for n in ("tick", "ticks", "monitor")] == [None] * 3
            assert sched["stealing"] is not None and sched["worker-ttl"] is not None
        hb = ("heartbeat", "find-missing")
        assert without(snapshot(), hb) == without(before, hb)
