"""Benchmark of the experiment runner and its results store (issues #3 §5, #14 §3).

1. Wall time of an experiment (default ``experiments/scls_paper.toml``) run serially (the
   straightforward implementation the others are compared with), with joblib on 2 workers,
   on a 2-worker ``LocalCluster`` (``--dask local``), on a real cluster started with Dask's
   own command-line tools (``dask scheduler`` + two ``dask worker --nworkers 1 --nthreads
   1``, ``--dask tcp://...``), and, for the record, on that cluster the way the runner
   worked before batching (one Dask task per (dataset, split, selector), the dataset
   scattered from the client). Every run starts from an empty database; the cells of all
   runs are compared with the serial ones. Printed per run: wall time, the ratio
   serial / run, and the CPU seconds of all its processes (client + workers): on a loaded
   machine the wall ratio is noise, the CPU total still shows the overhead.
2. Overhead of the store per cell: ``ResultStore.add_cell`` (one transaction per cell,
   WAL, synchronous=NORMAL and FULL) against straightforward alternatives (appending JSON
   lines to a file; SQLite with its default rollback journal and synchronous=FULL).
3. Memory: peak RSS of a whole ``run_experiment`` in a fresh process as the number of
   cells grows (200 → 5,000 cells), against the straightforward approach of collecting
   every cell in memory (``evaluate`` → one DataFrame).

Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_runner.py
    python benchmarks/bench_runner.py --skip-runner        # sections 2-3 only (no data)
    python benchmarks/bench_runner.py --quick              # 2 splits per dataset, runner only
    # a quick subset: 2 datasets, 3 splits each, 4 selectors, runner only
    python benchmarks/bench_runner.py --datasets enron,emotions --splits 3 \\
        --selectors scls,ami,mdmr,gics --runner-only
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BACKENDS = ("serial", "joblib", "dask-local", "dask-cluster", "dask-cluster-pertask")


# --------------------------------------------------------------------------- 1. runner
def _subset(spec, names, splits=None, selectors=None):
    if names:
        keep = tuple(d for d in spec.datasets if d.name in names)
        missing = set(names) - {d.name for d in keep}
        if missing:
            raise SystemExit(f"unknown dataset(s) {sorted(missing)} in {spec.source}")
        spec = replace(spec, datasets=keep)
    if selectors:
        sel = tuple(m for m in spec.selectors if m.name in selectors)
        if len(sel) != len(selectors):
            raise SystemExit(f"unknown selector(s) in {selectors}")
        spec = replace(spec, selectors=sel)
    if splits:
        ds = []
        for d in spec.datasets:
            p = spec.protocol_of(d)
            p = replace(p, repeats=min(p.repeats, splits), k=min(p.k, max(2, splits)),
                        n_splits=min(p.n_splits or splits, splits))
            ds.append(replace(d, protocol=p))
        spec = replace(spec, datasets=tuple(ds))
    return spec


def _cpu_seconds(pids) -> float:
    """utime + stime of these live processes (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])
        except (OSError, IndexError, ValueError):
            pass
    return total / tick


class _CpuSampler:
    """CPU seconds of a process tree, per process, including processes that end before the
    measurement does (the workers of the runner's own LocalCluster): polls every 0.5 s and
    keeps, per process, its CPU total and the last time it was busy (for the idle time of
    each worker and the tail of the run: the time the last batch leaves a worker idle)."""

    def __init__(self, roots):
        import threading

        self.roots, self.last, self.stop = roots, {}, threading.Event()
        self.busy_until: dict[int, float] = {}
        self.window: dict[int, list[tuple[float, float]]] = {}
        self.names: dict[int, str] = {}
        self.threads: dict[int, dict[int, float]] = {}  # worker pid -> thread id -> CPU s
        self.polls = 0
        self.t0 = time.perf_counter()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.start = {p: _cpu_seconds([p]) for p in set().union(*(_tree(r) for r in roots))}
        self.thread.start()

    def _sample(self):
        # the sampler runs in the client process: its CPU time counts as the client's (and
        # is taken from the workers). The process tree and roles from a scan of /proc every
        # 2 s (a scan costs ~2 ms of CPU; a new worker is seen within 2 s of its start), the
        # members' stat files every 0.5 s
        now = time.perf_counter() - self.t0
        scan = self.polls % 4 == 0
        self.polls += 1
        if scan:
            ch = _children()
            self.members = set().union(*(_tree(r, ch) for r in self.roots))
        for p in self.members:
            if not Path(f"/proc/{p}").exists():
                continue  # ended: its last sample stays
            cpu = _cpu_seconds([p])
            if cpu < self.last.get(p, 0.0):
                continue  # ended between the two reads
            self.start.setdefault(p, 0.0)
            if scan and self.names.get(p) not in ("client", "scheduler", "nanny") \
                    and _cmdline(p):
                # again until it settles: a child is seen before its exec (the parent's
                # command line), a nanny before it starts its worker
                self.names[p] = _role(p, ch)
            if self.names.get(p) == "worker":
                # a thread that ended (a worker shutting down) keeps its last sample
                self.threads[p] = {**self.threads.get(p, {}), **_thread_seconds(p)}
            # busy: at least 5 % of a core over the last second (an idle Dask worker's
            # housekeeping stays below; a busy one on a loaded machine stays above)
            hist = self.window.setdefault(p, [])
            hist.append((now, cpu))
            while len(hist) > 1 and now - hist[0][0] > 1.0:
                hist.pop(0)
            if len(hist) > 1 and cpu - hist[0][1] >= 0.05 * max(now - hist[0][0], 0.2):
                self.busy_until[p] = now
            self.last[p] = cpu

    def _run(self):
        while not self.stop.wait(0.5):
            self._sample()

    def total(self) -> float:
        self.stop.set()
        self.thread.join()
        self.polls = 0  # a last scan of /proc
        self._sample()
        self.wall = time.perf_counter() - self.t0
        return sum(self.last.get(p, s) - s for p, s in self.start.items())

    def per_process(self) -> list[dict]:
        """Role, CPU seconds and last busy time of every process that used CPU."""
        rows = []
        for p, s in self.start.items():
            cpu = self.last.get(p, s) - s
            if cpu > 0.05:
                th = self.threads.get(p, {})
                rows.append({"pid": p, "role": self.names.get(p, "?"), "cpu": cpu,
                             "busy_until": self.busy_until.get(p, 0.0),
                             # CPU of the threads other than the busiest (the one running
                             # the batches): a Dask worker's event loop, a loky worker's
                             # helpers
                             "other_threads": sum(th.values()) - max(th.values(), default=0)})
        return sorted(rows, key=lambda r: (r["role"], -r["cpu"]))


def _thread_seconds(pid: int) -> dict[int, float]:
    """Thread id -> utime + stime of each thread of a live process (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    with contextlib.suppress(OSError):
        for t in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, IndexError, ValueError):
                f = Path(f"/proc/{pid}/task/{t}/stat").read_text().rsplit(")", 1)[1].split()
                out[int(t)] = (int(f[11]) + int(f[12])) / tick
    return out


def _role(pid: int, children: dict[int, list[int]] | None = None) -> str:
    """What a process of the run is, from its command line."""
    cmd = _cmdline(pid)
    if pid == os.getpid():
        return "client"
    if "dask scheduler" in cmd or "dask-scheduler" in cmd:
        return "scheduler"
    if "resource_tracker" in cmd:
        return "other"
    if any(c != pid and "spawn_main" in _cmdline(c) for c in _tree(pid, children)):
        return "nanny"  # a Dask nanny: the process that started (and watches) a worker
    if "loky" in cmd or "joblib" in cmd or "spawn_main" in cmd:
        return "worker"
    if "dask worker" in cmd or "dask-worker" in cmd:
        return "worker"
    return "other"


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _print_accounting(sampler: _CpuSampler, wall: float) -> dict:
    """Where the CPU time went: client, scheduler, and per worker process its CPU, its idle
    time (wall - CPU, for a one-thread worker) and when it last was busy (tail)."""
    rows = sampler.per_process()
    by_role: dict[str, float] = {}
    for r in rows:
        by_role[r["role"]] = by_role.get(r["role"], 0.0) + r["cpu"]
    workers = [r for r in rows if r["role"] == "worker" and r["cpu"] > 1.0]
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(by_role.items()))
    print(f"      CPU by role: {parts}", flush=True)
    out = {"cpu_by_role": by_role, "workers": []}
    if workers:
        # overhead: CPU the batches did not get; on a machine whose cores all run workers,
        # every second of it is taken from a worker
        over = {k: v for k, v in by_role.items() if k != "worker"}
        over["worker threads other than the batch's"] = sum(r["other_threads"] for r in workers)
        print("      overhead CPU: " + ", ".join(f"{k} {v:.1f} s" for k, v in over.items())
              + f"; total {sum(over.values()):.1f} s", flush=True)
        out["overhead_cpu"] = over
    for r in workers:
        idle = max(0.0, wall - r["cpu"])
        tail = max(0.0, wall - r["busy_until"])
        print(f"      worker pid {r['pid']}: CPU {r['cpu']:7.1f} s (other threads "
              f"{r['other_threads']:4.1f} s), idle {idle:6.1f} s ({100 * idle / wall:4.1f} %), "
              f"idle for the last {tail:5.1f} s", flush=True)
        out["workers"].append({"cpu": r["cpu"], "other_threads": r["other_threads"],
                               "idle": idle, "tail": tail})
    return out


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from one pass over /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    return children


def _tree(pid: int, children: dict[int, list[int]] | None = None) -> set[int]:
    children = _children() if children is None else children
    out, todo = {pid}, [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


class _CliCluster:
    """``dask scheduler`` + ``workers`` x ``dask worker --nworkers 1 --nthreads 1``."""

    def __init__(self, workers: int):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        dask = [sys.executable, "-m", "dask"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
                 "start_new_session": True}
        self.procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port",
                                        str(port), "--no-dashboard"], **quiet)]
        for i in range(workers):
            self.procs.append(subprocess.Popen(
                [*dask, "worker", self.address, "--nworkers", "1", "--nthreads", "1",
                 "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{i}"], **quiet))
        from distributed import Client

        with Client(self.address, timeout=60) as c:
            c.wait_for_workers(workers, timeout=120)

    def pids(self) -> set[int]:
        return set().union(*(_tree(p.pid) for p in self.procs))

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def _run_pertask(spec, db, address):
    """The runner's Dask backend before batching (for the record): one task per
    (dataset, split, selector), each dataset scattered once from the client."""
    from distributed import Client, as_completed

    from skmlfs.experiments import _backends, _runner
    from skmlfs.experiments._execute import run_task

    orig = _backends._dask

    def per_task(batches, address_, n_workers, catch):
        client = Client(address)
        try:
            remote = {}
            for b in batches:
                if b.source.token not in remote:
                    X, Y = _backends._load(b.source)
                    remote[b.source.token] = client.scatter([X, Y], hash=False)
            tasks = [t for b in batches for t in b.tasks]
            by_id = {t.task_id: t for t in tasks}
            futs = [client.submit(run_task, t, *remote[t.data_token], catch=catch, pure=False)
                    for t in tasks]
            for f in as_completed(futs):
                r = f.result()
                yield by_id[r.task_id], r
        finally:
            client.close()

    _backends._dask = per_task
    try:
        return _runner.run_experiment(spec, db, dask=address, progress=False, verbose=False)
    finally:
        _backends._dask = orig


def bench_runner(experiment: str, datasets: list[str], workers: int, backends: list[str],
                 splits: int | None = None, selectors: list[str] | None = None) -> dict:
    from skmlfs.experiments import ResultStore, load_experiment, run_experiment

    spec = _subset(load_experiment(experiment), datasets, splits, selectors)
    print(f"  datasets {[d.name for d in spec.datasets]}, selectors "
          f"{[m.name for m in spec.selectors]}, {workers} workers", flush=True)
    out = {}
    frames = {}
    me = os.getpid()
    with tempfile.TemporaryDirectory() as tmp:
        for label in ["serial", *[b for b in backends if b != "serial"]]:
            db = Path(tmp) / f"{label}.db"
            startup = 0.0
            cluster = None
            kw: dict = {}
            if label == "joblib":
                kw = {"n_jobs": workers}
            elif label == "dask-local":
                kw = {"dask": "local", "n_jobs": workers}  # start-up included, as for users
            elif label.startswith("dask-cluster"):
                t0 = time.perf_counter()
                cluster = _CliCluster(workers)
                startup = time.perf_counter() - t0
            sampler = _CpuSampler([me, *(p.pid for p in cluster.procs)] if cluster else [me])
            t0 = time.perf_counter()
            if label == "dask-cluster-pertask":
                s = _run_pertask(spec, db, cluster.address)
            else:
                if cluster is not None:
                    kw = {"dask": cluster.address}
                s = run_experiment(spec, db, progress=False, verbose=False, **kw)
            wall = time.perf_counter() - t0
            cpu = sampler.total()
            if cluster is not None:
                cluster.close()
            with ResultStore(db, readonly=True) as st:
                frames[label] = st.to_frame()
            out[label] = {"wall": wall, "startup": startup, "cells": s.n_computed,
                          "cpu": cpu, "load": os.getloadavg()[0]}
            print(
                f"  {label:<22} {wall:8.1f} s  CPU {cpu:7.1f} s  ({s.n_computed} cells"
                + (f"; cluster start-up {startup:.1f} s not included" if startup else "")
                + f"; load average {os.getloadavg()[0]:.1f})",
                flush=True,
            )
            out[label].update(_print_accounting(sampler, wall))
    ref = frames["serial"]
    metrics = [m.name for m in spec.metrics]
    for label, df in frames.items():
        same = (
            list(df["cell_id"]) == list(ref["cell_id"])
            and np.array_equal(df[metrics].to_numpy(), ref[metrics].to_numpy())
            and all(a == b for a, b in zip(df["features"], ref["features"], strict=True))
        )
        out[label]["identical_to_serial"] = bool(same)
    base = out["serial"]["wall"]
    base_cpu = out["serial"]["cpu"]
    print(f"  {'':<22} {'wall':>8}   ratio serial/x   CPU x/serial   identical cells")
    for label, r in out.items():
        print(
            f"  {label:<22} {r['wall']:8.1f} s {base / r['wall']:8.2f}x      "
            f"{r['cpu'] / base_cpu:8.2f}        {r['identical_to_serial']}"
        )
    return out


# --------------------------------------------------------------------------- 2. store
def _records(n: int, k: int = 50):
    rng = np.random.default_rng(0)
    for i in range(n):
        yield {
            "cell_id": f"{i:032x}",
            "dataset": "enron",
            "split": i % 10,
            "protocol": '{"kind":"mat"}',
            "method": "scls",
            "selector": {"method": "scls", "params": {}},
            "k": k,
            "n_selected": k,
            "learner": "mlnb",
            "learner_spec": {"method": "mlnb", "params": {}},
            "seed": 0,
            "metrics": {
                "hamming_loss": rng.random(),
                "ranking_loss": rng.random(),
                "normalized_coverage": rng.random(),
            },
            "features": rng.permutation(1000)[:k],
            "selection_time": 0.1,
            "fit_time": 0.01,
            "predict_time": 0.01,
            "n_train": 1362,
            "n_test": 340,
            "ranking_id": f"{i // 5:032x}",
            "ranking_reused": False,
            "versions": {"skmlfs": "0.1.0", "numpy": np.__version__},
        }


def bench_store(n: int) -> dict:
    import sqlite3

    from skmlfs.experiments import ResultStore

    recs = list(_records(n))
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for sync in ("NORMAL", "FULL"):
            with ResultStore(Path(tmp) / f"s_{sync}.db", synchronous=sync) as st:
                t0 = time.perf_counter()
                for r in recs:
                    st.add_cell(r)
                dt = time.perf_counter() - t0
                t1 = time.perf_counter()
                done = st.done_cells(["hamming_loss", "ranking_loss", "normalized_coverage"])
                t_resume = time.perf_counter() - t1
                assert len(done) == n
            out[f"ResultStore WAL synchronous={sync}"] = dt / n
            if sync == "NORMAL":
                out["resume check (done_cells) per stored cell"] = t_resume / n
        # straightforward 1: JSON lines appended and flushed (no transaction, no index)
        p = Path(tmp) / "cells.jsonl"
        t0 = time.perf_counter()
        with open(p, "a") as fh:
            for r in recs:
                r2 = dict(r, features=[int(f) for f in r["features"]])
                fh.write(json.dumps(r2) + "\n")
                fh.flush()
        out["JSON lines + flush (no atomicity)"] = (time.perf_counter() - t0) / n
        # straightforward 2: sqlite defaults (rollback journal, synchronous=FULL)
        con = sqlite3.connect(Path(tmp) / "plain.db")
        con.execute("CREATE TABLE cells (cell_id TEXT PRIMARY KEY, body TEXT)")
        t0 = time.perf_counter()
        for r in recs:
            r2 = dict(r, features=[int(f) for f in r["features"]])
            with con:
                con.execute("INSERT INTO cells VALUES (?, ?)", (r["cell_id"], json.dumps(r2)))
        out["sqlite default journal, synchronous=FULL"] = (time.perf_counter() - t0) / n
        con.close()
    ours = out["ResultStore WAL synchronous=NORMAL"]
    for label, v in out.items():
        print(f"  {label:<45} {1e3 * v:8.3f} ms/cell   ({v / ours:6.2f}x ours)")
    return out


# --------------------------------------------------------------------------- 3. memory
_CHILD = r"""
import json, resource, sys, tempfile, time, tracemalloc
from skmlfs.experiments import ExperimentSpec, run_experiment, evaluate, holdout_splits
from skmlfs.datasets import make_multilabel_discrete
repeats, mode = int(sys.argv[1]), sys.argv[2]
ds = make_multilabel_discrete(n_samples=300, n_features=20, random_state=0)
tracemalloc.start()
t0 = time.perf_counter()
if mode == "runner":
    spec = ExperimentSpec.from_dict({
        "name": "mem", "seed": 0, "n_features": "1..20", "selectors": ["ami"],
        "metrics": ["hamming_loss", "ranking_loss"],
        "protocol": {"kind": "holdout", "repeats": repeats},
        "datasets": [{"name": "synth", "generator": "skmlfs.datasets:make_multilabel_discrete",
                      "params": {"n_samples": 300, "n_features": 20, "random_state": 0}}]})
    with tempfile.TemporaryDirectory() as tmp:
        s = run_experiment(spec, tmp + "/m.db", progress=False, verbose=False)
        n = s.n_computed
else:
    df = evaluate(ds, {"ami": "ami"}, "mlnb", holdout_splits(300, repeats, 0.2, 0),
                  n_features="1..20", metrics=["hamming_loss", "ranking_loss"], progress=False)
    n = len(df)
_, peak = tracemalloc.get_traced_memory()
# VmHWM (this process's own peak RSS; ru_maxrss would include the parent's before exec)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM")]
rss = (int(hwm[0].split()[1]) if hwm
       else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
print(json.dumps({"cells": n, "rss_mb": rss,
                  "py_peak_mb": peak / 2**20, "seconds": time.perf_counter() - t0}))
"""


def bench_memory(repeats_list: list[int]) -> list[dict]:
    rows = []
    print(f"  {'mode':<28} {'cells':>6} {'peak RSS MB':>12} {'Python peak MB':>15} {'s':>6}")
    for mode in ("runner", "evaluate"):
        for r in repeats_list:
            res = subprocess.run(
                [sys.executable, "-c", _CHILD, str(r), mode],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONWARNINGS": "ignore"},
            )
            d = json.loads(res.stdout.strip().splitlines()[-1])
            d["mode"] = mode
            rows.append(d)
            label = (
                "run_experiment → SQLite" if mode == "runner" else "evaluate → DataFrame (naive)"
            )
            print(
                f"  {label:<28} {d['cells']:6d} {d['rss_mb']:12.1f} {d['py_peak_mb']:15.2f} "
                f"{d['seconds']:6.1f}",
                flush=True,
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experiment", default=str(REPO / "experiments" / "scls_paper.toml"))
    ap.add_argument("--datasets", default="", help="comma-separated subset of the datasets")
    ap.add_argument("--selectors", default="", help="comma-separated subset of the selectors")
    ap.add_argument("--splits", type=int, default=None,
                    help="at most this many splits per dataset (a quick subset)")
    ap.add_argument("--quick", action="store_true",
                    help="a reduced grid for quick checks: every dataset and selector, 2 splits "
                    "each (144 of the 720 cells of the SCLS-paper grid), runner only")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--backends", default="serial,joblib,dask-local,dask-cluster",
                    help=f"comma-separated among {', '.join(BACKENDS)} (serial always runs)")
    ap.add_argument("--skip-runner", action="store_true")
    ap.add_argument("--runner-only", action="store_true", help="skip sections 2 and 3")
    ap.add_argument("--store-cells", type=int, default=2000)
    ap.add_argument(
        "--memory-repeats",
        default="10,50,250",
        help="holdout repeats of the memory grid (x 20 budgets = cells)",
    )
    ap.add_argument("--json", help="also write the numbers to this JSON file")
    args = ap.parse_args()
    if args.quick:
        args.splits = args.splits or 2
        args.runner_only = True
    results = {}
    if not args.skip_runner:
        exp = Path(args.experiment).resolve()
        shown = exp.relative_to(REPO) if exp.is_relative_to(REPO) else exp.name
        print(f"1. runner wall time: {shown}", flush=True)
        names = [s for s in args.datasets.split(",") if s]
        backends = [b for b in args.backends.split(",") if b]
        unknown = set(backends) - set(BACKENDS)
        if unknown:
            raise SystemExit(f"unknown backend(s) {sorted(unknown)}; choose among {BACKENDS}")
        sels = [s for s in args.selectors.split(",") if s] or None
        results["runner"] = bench_runner(args.experiment, names, args.workers, backends,
                                         args.splits, sels)
    if not args.runner_only:
        print(f"2. store overhead per cell ({args.store_cells} cells)", flush=True)
        results["store_s_per_cell"] = bench_store(args.store_cells)
        print("3. memory as the number of cells grows", flush=True)
        results["memory"] = bench_memory([int(x) for x in args.memory_repeats.split(",")])
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
