"""Execution backends of the runner: serial, joblib and Dask, all running the same batches.

Why batches, and why workers load their own data (issue "Distributed for real")
--------------------------------------------------------------------------------
A :class:`~skmlfs.experiments._execute.Task` (one dataset, split and selector) of the SCLS
grid runs in 30-100 ms. Sent one by one, with the dataset scattered once from the client,
a 2-worker Dask cluster was no faster than one process, and a real cluster slower:

* every task of a split redid that split's discretization on whichever worker got it (the
  per-process cache of :func:`~skmlfs.experiments._execute.prepare_split` only helps when the
  tasks of a split run one after the other in the same process; LAIM on a numeric dataset
  costs more than its selections);
* per-task scheduling round trips were of the order of the task itself;
* scattered data lives on one worker only: when that worker dies the scheduler cannot
  recompute it and every task needing it fails (``FutureCancelledError``).

So the unit of work is a :class:`Batch`: every pending task of one (dataset, split), in one
call (the split is prepared once, the selectors then run one after the other). A batch
carries no data, only a :class:`DataSource`: the recipe to load the dataset (an absolute
path or a generator), which each worker process runs once and keeps in a small cache,
checking a fingerprint of the client's copy so a worker that reads a different file fails
loudly instead of computing wrong cells. A batch is a pure function of its arguments, so
Dask simply reruns it elsewhere when a worker dies. Parallel workers run with one BLAS/OpenMP
thread each (two processes × two BLAS threads on two cores only thrash). The client stays the
only writer of the results store: workers return results and never touch it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
import signal
import threading
import time
import time as _time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from joblib import effective_n_jobs

from .. import datasets as _ds
from .. import discretize, learners, metrics, selection  # noqa: F401 — warmed in workers
from .._ids import fingerprint
from .._validation import check_labels
from ._execute import Task, TaskResult, compact, run_task, versions

__all__ = ["Batch", "DataSource", "make_batches", "results", "run_batch"]

INSTALL_DISTRIBUTED = (
    'running on Dask needs the "distributed" extra: pip install "scikit-mlfs[distributed]"'
)


# --------------------------------------------------------------------------- data


@dataclass
class DataSource:
    """Where a worker gets the ``(X, Y)`` of a dataset.

    Either a recipe (``dataset``: a :class:`~skmlfs.experiments.DatasetSpec` whose file path
    was made absolute on the client, plus ``root``, the client's ``$MLFS_DATASETS`` for
    datasets given by name), run by each worker process once; or, for in-memory data
    (:func:`~skmlfs.experiments.evaluate`), the arrays themselves.
    """

    token: str
    fingerprint: str
    dataset: Any = None
    root: str | None = None
    arrays: tuple[Any, Any] | None = None


_DATA_CACHE: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
_DATA_CACHE_SIZE = 2  # datasets kept per process: memory stays flat across a long grid
_DATA_LOCK = threading.Lock()


def remember(token: str, X: Any, Y: np.ndarray) -> None:
    """Put a dataset the client has already loaded into this process's cache."""
    with _DATA_LOCK:
        _DATA_CACHE[token] = (X, Y)
        _DATA_CACHE.move_to_end(token)
        while len(_DATA_CACHE) > _DATA_CACHE_SIZE:
            _DATA_CACHE.popitem(last=False)


def forget_data() -> None:
    with _DATA_LOCK:
        _DATA_CACHE.clear()


def _load(src: DataSource) -> tuple[Any, Any]:
    if src.arrays is not None:
        return src.arrays
    with _DATA_LOCK:
        if src.token in _DATA_CACHE:
            _DATA_CACHE.move_to_end(src.token)
            return _DATA_CACHE[src.token]

    ds = src.dataset
    if ds.load_name is not None and ds.path is None and ds.generator is None:
        root = src.root or os.environ.get("MLFS_DATASETS")
        obj = _ds.load_name(ds.load_name, root=root, **dict(ds.options))
    else:
        obj = ds.load()
    X, Y = _arrays(obj, ds.use_discretized, ds.name)
    got = fingerprint(X, Y)
    if got != src.fingerprint:
        raise RuntimeError(
            f"dataset {ds.name!r} read on this worker ({_where(ds, src.root)}) differs from "
            f"the client's copy (fingerprint {got} != {src.fingerprint}): every worker must "
            "read the same files (a shared file system, same absolute paths)."
        )
    remember(src.token, X, Y)
    return X, Y


def _where(ds: Any, root: str | None) -> str:
    if ds.path is not None:
        return str(ds.path)
    if ds.generator is not None:
        return f"generator {ds.generator}"
    return f"{ds.load_name} under {root or os.environ.get('MLFS_DATASETS')}"


def portable(ds: Any) -> tuple[Any, str | None]:
    """The dataset recipe with its file path made absolute (resolved on the client, so a
    worker with another working directory or no ``MLFS_DATASETS`` reads the same file), and
    the client's ``MLFS_DATASETS`` for datasets loaded by name."""
    if ds.path is not None and ds.generator is None:
        ds = replace(ds, path=str(ds.resolved_path().resolve()), base_dir=None)
    return ds, os.environ.get("MLFS_DATASETS")


# --------------------------------------------------------------------------- batches
@dataclass
class Batch:
    """Tasks run together in one call, all on the data of ``source``."""

    batch_id: int
    source: DataSource
    tasks: list[Task] = field(default_factory=list)
    cost: float = 0.0  # relative estimate: larger batches are sent first


def make_batches(
    tasks: Sequence[Task],
    sources: dict[str, DataSource],
    *,
    n_workers: int = 1,
    costs: dict[str, float] | None = None,
) -> list[Batch]:
    """Group tasks by (dataset, split); split groups further only when there are fewer than
    four batches per worker (load balance), largest first."""
    groups: OrderedDict[tuple[str, int], list[Task]] = OrderedDict()
    for t in tasks:
        groups.setdefault((t.data_token, t.split), []).append(t)
    chunks = [list(g) for g in groups.values()]
    want = 4 * n_workers if n_workers > 1 else 1
    while len(chunks) < want:
        big = max(range(len(chunks)), key=lambda i: len(chunks[i]), default=None)
        if big is None or len(chunks[big]) < 2:
            break
        g = chunks.pop(big)
        chunks[big:big] = [g[: len(g) // 2], g[len(g) // 2 :]]
    out = []
    for i, g in enumerate(chunks):
        c = (costs or {}).get(g[0].data_token, 1.0) * len(g)
        out.append(Batch(i, sources[g[0].data_token], g, c))
    if n_workers > 1:
        # longest first (the tail of a parallel run is its last big batch); a stable sort
        # keeps the batches of one dataset together, so worker data caches hit
        ds_cost: dict[str, float] = {}
        for b in out:
            ds_cost[b.source.token] = ds_cost.get(b.source.token, 0.0) + b.cost
        out.sort(key=lambda b: -ds_cost[b.source.token])
    return out


_MALLOC_TUNED = False


def _undo_malloc_trim() -> None:
    """Give back glibc's default allocation strategy in a Dask worker process.

    A Dask nanny starts its worker with ``MALLOC_TRIM_THRESHOLD_=65536`` (so idle workers
    return memory to the system). Setting it also switches off glibc's adaptive mmap
    threshold: every temporary array above 128 KiB is then mapped and unmapped again, with
    fresh zeroed pages each time. The count engine's block computations allocate many such
    temporaries: measured on enron (3 splits, SCLS/AMI/MDMR/GICS), one batch took 3.6 s of
    CPU in a Dask worker against 1.9 s in a plain process, and 1.85 s in the same worker
    after this call. Thresholds as glibc's adaptive rule ends up with (mmap above 32 MiB,
    trim above 64 MiB); a worker's memory stays bounded by the two datasets it caches.
    """
    global _MALLOC_TUNED
    if _MALLOC_TUNED or "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    _MALLOC_TUNED = True
    with contextlib.suppress(Exception):  # not glibc: nothing to undo
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 * 2**20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 64 * 2**20)  # M_TRIM_THRESHOLD


def run_batch(batch: Batch, catch: bool = True) -> list[TaskResult]:
    """Run every task of ``batch`` (in a worker or in-process); returns their results.

    Every backend runs it on one BLAS (and OpenMP) thread, the serial run included: a
    product's last bits follow the thread count, and an iterative solver's weights with
    them (LLSF, MSSL on medical ordered the tied norms of duplicate columns differently),
    so cells would depend on ``-j``; parallel workers gain nothing from more threads.

    A dataset that cannot be loaded gives every task of the batch an ``error`` (reported
    as failures by the runner and retried by the next run) unless ``catch`` is false.
    """
    from threadpoolctl import threadpool_limits

    _undo_malloc_trim()
    with threadpool_limits(1):
        try:
            X, Y = _load(batch.source)
        except Exception as exc:  # noqa: BLE001 — reported per task, see docstring
            if not catch:
                raise

            msg = f"{type(exc).__name__}: {exc}"
            return [TaskResult(t.task_id, None, error=msg, versions=versions())
                    for t in batch.tasks]
        return [run_task(t, X, Y, catch=catch) for t in batch.tasks]


# --------------------------------------------------------------------------- backends
def _serial(batches, catch, keep) -> Iterator[tuple[Task, TaskResult]]:
    for b in batches:
        # task by task, so each finished task is stored before the next one starts
        for t in b.tasks:
            if keep(t):
                yield from zip([t], run_batch(replace(b, tasks=[t]), catch), strict=True)


def _joblib(batches, n_jobs, catch, keep) -> Iterator[tuple[Task, TaskResult]]:
    """Tasks on joblib's process pool (loky), in batch order, at most two per worker in
    flight.

    Each task is sent on its own (the batch's data source travels with it; a worker keeps
    the data it has loaded, so the tasks of a batch load it once per worker), so that each
    result reaches the client, and the store, the moment its task ends: a whole batch is
    one data set's split, dozens of tasks on a large set, whose finished ones an
    interruption would otherwise lose. The executor is used directly, not through
    :class:`joblib.Parallel`, because only the executor takes an ``initializer``: every
    worker starts watching its client the moment it starts (see
    :func:`_exit_with_parent`), also one killed with the client before it ever received a
    task.
    """
    from joblib.externals.loky import get_reusable_executor

    n = effective_n_jobs(n_jobs)
    pool = get_reusable_executor(max_workers=n, timeout=300, initializer=_exit_with_parent,
                                 initargs=(os.getpid(),), env=_single_threaded_env())
    todo = ((b, t) for b in batches for t in b.tasks)
    running: dict[Any, Batch] = {}

    def submit_next() -> None:
        while (bt := next(todo, None)) is not None:
            b, t = bt
            if keep(t):  # asked when sent
                one = replace(b, tasks=[t])
                running[pool.submit(run_batch, one, catch)] = one
                return

    for _ in range(2 * n):  # queued ahead, so no worker idles while the client stores
        submit_next()
    complete = False
    try:
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in done:
                b = running.pop(fut)
                res = fut.result()
                submit_next()
                yield from zip(b.tasks, res, strict=True)
        complete = True
    finally:
        if not complete:  # interrupted or failed: the queued and running batches go away
            for fut in running:
                fut.cancel()
            pool.shutdown(wait=False, kill_workers=True)


#: the thread-pool variables joblib's loky backend and Dask's nannies set for their workers
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS",
                "NUMEXPR_NUM_THREADS")


def _single_threaded_env() -> dict[str, str]:
    """Environment of the joblib workers: one thread per pool unless the user set one.

    :func:`run_batch` limits the pools to one thread anyway, but a library that starts
    with two threads and is cut to one at run time still costs more CPU per batch (about
    10 % on the SCLS-paper grid: 199 s against 181 s per worker) than one started
    single-threaded, as joblib's own backend and Dask's nannies start theirs.
    """
    return {v: os.environ.get(v, "1") for v in _THREAD_VARS}


def _exit_with_parent(parent: int) -> None:
    """Initializer of a joblib (loky) worker: exit as soon as the client ``parent`` is gone.

    Loky workers otherwise wait for their idle timeout (300 s) after the client is killed
    with SIGKILL, holding their cached datasets: the call queue never reports end of file,
    since every worker holds its writing end too. A daemon thread polls the parent pid;
    when the worker is re-parented (its client died, perhaps before this ran) it exits at
    once. Only for joblib workers, whose parent is the client (a Dask worker's parent is its
    nanny or a shell, and Dask watches its own processes).
    """
    if os.name != "posix":
        return
    if os.getppid() != parent:
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="mlfs-exit-with-parent", daemon=True).start()


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while a LocalCluster starts its worker processes.

    The workers inherit the ignored signal, so Ctrl-C (sent to the whole process group)
    reaches only this process, which stops the run cleanly instead of every worker printing
    a traceback. A Ctrl-C during these few seconds of start-up is ignored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be changed from the main thread
        return
    prev = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if prev is None else prev)


@contextlib.contextmanager
def _logs_silenced(*names):
    """Mute these loggers (the in-process scheduler of a LocalCluster being torn down after
    Ctrl-C logs every connection it finds closed)."""
    loggers = [logging.getLogger(n) for n in names]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, levels, strict=True):
            lg.setLevel(lv)


def import_distributed():
    """``distributed``, or an ``ImportError`` saying how to install it (one line)."""
    try:
        import distributed
    except ImportError:
        raise ImportError(INSTALL_DISTRIBUTED) from None
    return distributed


def _warm_imports() -> None:
    """Import what a batch needs (2-3 s of CPU in a fresh worker process)."""
    import threadpoolctl  # noqa: F401


#: Run-scoped settings of Dask's periodic callbacks, per kind of server: ``None`` stops a
#: callback that only serves diagnostics, a number (milliseconds) runs a safety check less
#: often. On a machine whose cores all run workers, every CPU second the scheduler, the
#: nannies or a worker's event loop spend is taken from a batch, and the event-loop threads
#: also take the interpreter lock from the batch running beside them. Measured on a real
#: 2-worker cluster left idle (CPU as % of one core, Dask's defaults -> these settings):
#: scheduler 1.6 -> 0.4 (its tick monitor alone 1.2), the two nannies 3.3 -> 0.2 (tick
#: monitor, system monitor, memory monitor every 100 ms: psutil on the worker), the two
#: workers 6.0 -> 1.0 (statistical profiler every 10 ms, tick monitor every 20 ms, memory
#: monitor every 100 ms). With a batch running, the scheduler and the nannies' CPU of a
#: reduced SCLS-paper run fell from 5.9 s to 0.5 s (with the sealed tasks of
#: :func:`_unsealer`).
#: Kept as they are: heartbeats, work stealing, the scheduler's timeouts and memory manager.
_RUN_CALLBACKS: dict[str, dict[str, float | None]] = {
    "workers": {"profile": None, "profile-cycle": None, "tick": None, "ticks": None,
                "memory_monitor": 1000.0},
    # a nanny still restarts a worker past its memory limit, within a second instead of 0.1
    "nannies": {"tick": None, "ticks": None, "monitor": None, "memory_monitor": 1000.0},
    "scheduler": {"tick": None, "ticks": None, "monitor": None},
}


def _callback_setter():
    """The function that applies such settings on a Dask server, returning the previous
    ones (so applying its result restores them). Created here, as a closure, so that
    ``cloudpickle`` sends it by value: the scheduler need not be able to import this
    library (the workers and nannies must)."""

    def set_callbacks(settings, dask_worker=None, dask_scheduler=None):
        server = dask_worker if dask_worker is not None else dask_scheduler
        before = {}
        for name, ms in settings.items():
            pc = server.periodic_callbacks.get(name)
            if pc is None:
                continue
            before[name] = pc.callback_time if pc.is_running() else None
            if ms is not None:
                pc.callback_time = ms  # read by tornado when it schedules the next call
            if (ms is not None) != pc.is_running():
                if name == "tick" and ms is not None:  # else the pause reads as a stall
                    server._last_tick = _time.time()
                (pc.start if ms is not None else pc.stop)()
        return before

    return set_callbacks


@contextlib.contextmanager
def _callbacks_tuned(client: Any, settings: dict[str, dict[str, float | None]] | None = None):
    """:data:`_RUN_CALLBACKS` applied to the workers, nannies and scheduler of ``client``
    for the run, and each server's previous settings restored afterwards (a worker that
    joins or is restarted during the run keeps Dask's defaults). Only a speed-up: a server
    that refuses is left as it is."""
    settings = _RUN_CALLBACKS if settings is None else settings
    fn = _callback_setter()
    runs = {
        "workers": lambda s, **kw: client.run(fn, s, **kw),
        "nannies": lambda s, **kw: client.run(fn, s, nanny=True, **kw),
        "scheduler": lambda s, **kw: {None: client.run_on_scheduler(fn, s)},
    }
    before: dict[str, dict] = {}
    for where, run in runs.items():
        with contextlib.suppress(Exception):
            before[where] = run(settings[where])
    try:
        yield
    finally:
        for where, old in before.items():
            for addr, prev in old.items():
                with contextlib.suppress(Exception):
                    if where == "scheduler":
                        runs[where](prev)
                    else:
                        runs[where](prev, workers=[addr])


def _unsealer():
    """A function that unpickles ``(func, args)`` from bytes and calls ``func(*args)``.

    Created as a closure, so that ``cloudpickle`` sends it by value. The scheduler
    unpickles every task it receives: a task calling :func:`run_batch` on a :class:`Batch`
    directly made it import this library and, through it, scikit-learn, SciPy and pandas
    (about a second of CPU taken from a worker on a machine whose cores all run workers,
    and an environment requirement). Sealed in bytes, the task is opened only by the worker
    that runs it.
    """

    def unseal(payload):
        func, args = pickle.loads(payload)
        return func(*args)

    return unseal


def _submit_sealed(client: Any, func: Any, args: tuple, **kwargs: Any) -> Any:
    """``client.submit(func, *args)`` with the call sealed from the scheduler (see
    :func:`_unsealer`); never pure (a run's tasks are not shared between runs)."""
    import cloudpickle

    return client.submit(_unsealer(), cloudpickle.dumps((func, args)), pure=False, **kwargs)


@contextlib.contextmanager
def dask_session(address: Any, n_workers: int):
    """A connected ``distributed.Client`` for the whole run (started before planning).

    ``address``: ``"local"`` (a ``LocalCluster`` of ``n_workers`` single-threaded worker
    processes, closed at the end), a scheduler address, or a ``Client`` (used as it is).
    The workers start importing the library at once, while the client plans the run.
    """
    distributed = import_distributed()
    if isinstance(address, distributed.Client):
        yield address
        return
    cluster = client = None
    try:
        if address == "local":
            with _sigint_ignored():
                cluster = distributed.LocalCluster(
                    n_workers=n_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
        client = distributed.Client(cluster if cluster is not None else address)
        with contextlib.suppress(Exception):  # only a head start: never fatal
            for w in client.scheduler_info().get("workers", {}):
                # one import per worker, not waited for: overlaps with the client's planning
                distributed.fire_and_forget(_submit_sealed(
                    client, _warm_imports, (), workers=[w], allow_other_workers=False))
        yield client
    finally:
        # tearing down our own LocalCluster (after Ctrl-C too) logs every connection it
        # finds closed: nothing the user can act on
        quiet = cluster is not None
        with _logs_silenced("distributed", "tornado") if quiet else contextlib.nullcontext():
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


def _dask(batches, address, n_workers, catch, keep) -> Iterator[tuple[Task, TaskResult]]:
    # every batch is submitted at once: ``keep`` is asked then, before any result
    distributed = import_distributed()
    with dask_session(address, n_workers) as client, _callbacks_tuned(client):
        futures = []
        try:
            by_key = {}
            for b in batches:
                b = replace(b, tasks=[t for t in b.tasks if keep(t)])
                if not b.tasks:
                    continue
                # no data travels with a batch and none is scattered: a batch is recomputable
                # from its arguments alone, so the scheduler reruns it when a worker dies
                fut = _submit_sealed(client, run_batch, (b, catch),
                                     key=f"mlfs-batch-{b.batch_id}-{uuid.uuid4().hex}")
                by_key[fut.key] = b
                futures.append(fut)
            for fut in distributed.as_completed(futures):
                res = fut.result()
                b = by_key[fut.key]
                fut.release()
                yield from zip(b.tasks, res, strict=True)
        finally:
            if futures:
                with contextlib.suppress(Exception):
                    client.cancel(futures)  # one call, not one round trip per future


def results(
    batches: Sequence[Batch], *, n_jobs: int | None = 1, dask: Any = None, catch: bool = True,
    keep: Callable[[Task], bool] | None = None,
) -> Iterator[tuple[Task, TaskResult]]:
    """``(task, result)`` pairs as they finish, on the chosen backend.

    ``keep(task)`` is asked for every task when it is about to be sent to a worker (serial:
    just before it runs; joblib: when its batch is queued, at most two batches per worker
    ahead; Dask: at the start); a task it refuses is not run and yields nothing (the run
    drops the other splits of a method a time limit has stopped).
    """
    if not batches:
        return iter(())
    keep = keep or (lambda _t: True)
    if dask is not None:
        n_workers = n_jobs if n_jobs and n_jobs > 1 else (os.cpu_count() or 2)
        return _dask(batches, dask, n_workers, catch, keep)
    if n_jobs is None or n_jobs == 1:
        return _serial(batches, catch, keep)
    return _joblib(batches, n_jobs, catch, keep)


def n_workers_of(n_jobs: int | None, dask: Any) -> int:
    """How many workers a run will use (for batching)."""
    if dask is None:
        if n_jobs is None or n_jobs == 1:
            return 1
        return (os.cpu_count() or 2) if n_jobs < 0 else n_jobs
    if n_jobs and n_jobs > 1:
        return n_jobs
    if isinstance(dask, str) and dask == "local":
        return os.cpu_count() or 2
    try:  # a connected client or a scheduler address: ask nothing now, assume a few
        return max(2, len(dask.scheduler_info().get("workers", {})))
    except Exception:  # noqa: BLE001
        return 4


# --------------------------------------------------------------------------- data helpers
def _arrays(ds: Any, use_discretized: bool = False, name: str = "dataset") -> tuple[Any, Any]:
    """``(X, Y)`` of a dataset object or pair, X compacted (CSR if sparse), Y uint8."""
    if isinstance(ds, tuple) and len(ds) == 2:
        X, Y = ds
    else:
        X, Y = ds.X, ds.Y
        if use_discretized:
            Xd = getattr(ds, "X_discrete", None)
            if Xd is None:
                raise ValueError(
                    f"{name}: use_discretized=true but the dataset has no discretized copy "
                    "(X_discrete; only the PLCFS emotions/yeast .mat files store data_dis)."
                )
            X = Xd
    if sp.issparse(X):
        X = sp.csr_matrix(X)
    elif hasattr(X, "to_numpy"):
        X = X.to_numpy()
    else:
        X = np.asarray(X)
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = check_labels(Y, X.shape[0])
    return compact(X), Y
