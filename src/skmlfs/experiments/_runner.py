"""Orchestration: expand an experiment into tasks, run them (serially, with joblib or on
Dask), and write each finished cell to the store.

:func:`evaluate` (one dataset, in memory, returns a DataFrame) and
:func:`run_experiment` (a whole grid, resumable, into SQLite) build the same
:class:`~skmlfs.experiments._execute.Task` objects, group them into batches and run them with
the same :func:`~skmlfs.experiments._backends.run_batch` (see
:mod:`skmlfs.experiments._backends`): one code path.

:func:`run_experiment` is three steps: :func:`plan_experiment` (what is left to compute,
from the experiment and the store), :func:`~skmlfs.experiments._backends.results` (run
the batches on a backend) and :func:`_record` (write each finished cell, in the client
only).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import skmlfs

from .. import datasets as _ds
from .._progress import progress_bar
from ..metrics import get_metric
from ..model_selection import holdout_splits
from ._backends import (
    DataSource,
    _arrays,
    dask_session,
    forget_data,
    import_distributed,
    make_batches,
    n_workers_of,
    results,
)
from ._execute import (
    Task,
    TaskResult,
    clear_cache,
    method_on_data,
    nominal_columns,
    versions,
)
from ._planner import RunPlan, _as_split_list, _build_tasks, per_method, plan_experiment
from ._spec import (
    DEFAULT_METRICS,
    ExperimentSpec,
    MethodSpec,
    MetricRef,
    load_experiment,
    metric_ref,
    parse_n_features,
    resolve_n_features_grid,
)
from ._store import _NON_METRIC, ResultStore
from ._warnings import WarningTally

__all__ = ["RunSummary", "evaluate", "run_experiment", "summarize"]


def _progress(total: int, desc: str, enabled: bool | str | None, work: float | None = None):
    """The run's progress by the one rule of :mod:`skmlfs._progress`: a bar on a terminal,
    a line every few seconds on a pipe, nothing when ``enabled`` is False or ``"off"``;
    ``work``: the cells' relative time (:meth:`RunPlan.work`), for the time left."""
    return progress_bar(total, desc, enabled, unit="cell", work=work)


def _cell_rows(task: Task, res: TaskResult) -> list[dict]:
    rows = []
    for c in res.cells:
        rows.append(
            {
                "dataset": task.dataset,
                "split": task.split,
                "method": task.selector.name,
                "k": c.k,
                "n_selected": c.n_selected,
                "learner": c.learner,
                **c.metrics,
                "selection_time": res.ranking.selection_time,
                "fit_time": c.fit_time,
                "predict_time": c.predict_time,
                "features": (res.ranking.ranking[: c.k] if c.features is None
                             else c.features).tolist(),
                "cell_id": c.cell_id,
                **({"info": c.info} if c.info else {}),
            }
        )
    return rows


# --------------------------------------------------------------------------- evaluate
def _method_specs(methods: Any, kind: str) -> list[MethodSpec]:
    if isinstance(methods, (str, MethodSpec)) or hasattr(methods, "get_params"):
        methods = [methods]
    items: Iterable[tuple[str, Any]]
    if isinstance(methods, Mapping):
        items = methods.items()
    else:
        items = []
        for m in methods:
            if isinstance(m, MethodSpec):
                items.append((m.name, m))
            elif isinstance(m, str):
                items.append((m, m))
            else:
                items.append((type(m).__name__.lower(), m))
    out = []
    for name, m in items:
        if isinstance(m, MethodSpec):
            out.append(m)
        elif isinstance(m, str):
            spec = MethodSpec(name=str(name), method=m, kind=kind)
            spec.estimator_class()  # fail now with the registry's message
            out.append(spec)
        elif hasattr(m, "get_params"):
            out.append(MethodSpec.from_estimator(str(name), m, kind))
        else:
            raise ValueError(f"{kind} {name!r}: expected a name or an estimator; got {m!r}.")
    if len({m.name for m in out}) != len(out):
        raise ValueError(f"duplicate {kind} names in {[m.name for m in out]}.")
    if not out:
        raise ValueError(f"no {kind} given.")
    return out


def _metric_refs(metrics: Any) -> list[MetricRef]:
    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    out = []
    for m in metrics:
        ref = metric_ref(m)
        if ref is None:
            raise ValueError(f"metrics: expected names or tables; got {m!r}.")
        try:
            get_metric(ref.metric)
        except KeyError as exc:
            raise ValueError(str(exc.args[0])) from None
        out.append(ref)
    return out


def evaluate(
    dataset: Any,
    selectors: Any,
    learner: Any = "mlnb",
    splits: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    n_features_to_select: Any = None,
    metrics: Sequence[Any] | None = None,
    *,
    n_features: Any = None,
    discretizer: Any = "none",
    use_discretized: bool = False,
    random_state: int | None = 0,
    n_jobs: int = 1,
    progress: bool | None = True,
):
    """Compare selectors with a learner over splits of one dataset.

    For every split each selector is fitted once on the training part with the largest
    budget, and each budget ``k`` evaluates the first ``k`` features of its ranking: the
    learner is fitted on those columns of the training part, as given (raw values; a
    selector's own discretization stays inside the selector), and scored on the test part.
    The result of a cell equals ``make_pipeline(selector, learner).fit(X[train],
    Y[train])`` scored on ``X[test]``
    (see ``docs/user_guide.md#what-a-learner-receives-after-a-selector``);
    with ``discretizer`` set it equals ``make_pipeline(discretizer, selector, learner)``.

    Parameters
    ----------
    dataset : MultiLabelDataset, (X, Y) pair, path or registered name
    selectors : dict name → estimator or registry name, or a list of registry names
        ``"all"`` is the no-selection baseline (evaluated once per split, k = all).
    learner : estimator, registry name, or dict name → learner, default="mlnb"
    splits : sequence of (train, test) index arrays, optional
        Default: :func:`holdout_splits` ``(n, 10, 0.2, random_state)``.
    n_features_to_select : int, float, str or list, optional
        Budgets: one value a selector's ``n_features_to_select`` takes, or a grid of them
        (a list, ``"5..20:5"``, ``"1%..20%"``; :func:`~skmlfs.experiments.parse_n_features`);
        default ``"ceil_sqrt"`` = ⌈√n⌉ with n the number of patterns of ``dataset``.
    n_features : deprecated
        The former name of ``n_features_to_select`` (a ``FutureWarning``).
    metrics : list of names (or tables with parameters), optional
        Default: Hamming loss, ranking loss, normalized coverage (SCLS §4.1).
    discretizer : "none", "auto", a registered name or a transformer, default="none"
        A discretizer fitted on each training part and applied before selection *and*
        learning (both see its output); ``"none"``: the data as given. ``"auto"`` keeps
        integer-valued data and discretizes anything else by LAIM.
    use_discretized : bool, default=False
        Use ``dataset.X_discrete`` (the ``.mat`` files' ``data_dis``).
    random_state : int or None, default=0
        Seed of the default splits and of estimators whose ``random_state`` is None.
    n_jobs : int, default=1
        joblib workers across (split, selector) tasks.
    progress : bool, "bar", "lines", "off" or None, default=True
        Progress on stderr: a tqdm bar with ETA on a terminal, a line every few seconds on
        a pipe (``True``/``None``: whichever stderr is; ``False``: none).

    Returns
    -------
    pandas.DataFrame
        One row per split × method × k × learner with columns ``dataset, split, method, k,
        n_selected, learner``, one column per metric, ``selection_time`` (seconds to fit the
        selector on the split — shared by the budgets of one ranking), ``fit_time``,
        ``predict_time`` and ``features`` (the selected indices in selection order).
    """
    import pandas as pd

    name = "dataset"
    if isinstance(dataset, (str, os.PathLike)):
        p = Path(dataset)
        name = p.stem
        dataset = _ds.load(p) if p.exists() else _ds.load_name(str(dataset))
    name = str(getattr(dataset, "name", None) or name)
    X, Y = _arrays(dataset, use_discretized, name)
    n, d = X.shape
    sels = _method_specs(selectors, "selector")
    lrns = _method_specs(learner, "learner")
    mets = _metric_refs(metrics)
    if splits is None:
        splits = holdout_splits(n, 10, 0.2, random_state=random_state)
    splits = _as_split_list(splits)
    if n_features is not None:
        if n_features_to_select is not None:
            raise TypeError("evaluate: give n_features_to_select only (n_features is its "
                            "former name).")
        warnings.warn("evaluate: n_features is renamed n_features_to_select; the old name "
                      "will be removed in a future release.", FutureWarning, stacklevel=2)
        n_features_to_select = n_features
    ks = resolve_n_features_grid(
        parse_n_features("ceil_sqrt" if n_features_to_select is None else n_features_to_select),
        n, d,
    )
    token = uuid.uuid4().hex
    tasks, _ = _build_tasks(
        dataset=name,
        dataset_identity={"name": name},
        protocol_identity={"kind": "given"},
        splits=splits,
        selectors=sels,
        learners=lrns,
        ks=ks,
        n_features=d,
        metrics=mets,
        seed=random_state,
        data_token=token,
        discretizer=discretizer,
        categorical_features=nominal_columns(dataset),
    )
    total = sum(len(t.cells) for t in tasks)
    rows: list[dict] = []
    tally = WarningTally()
    bar = _progress(total, name, progress)
    batches = make_batches(
        tasks, {token: DataSource(token, "", arrays=(X, Y))},
        n_workers=n_workers_of(n_jobs, None),
    )
    try:
        for task, res in results(batches, n_jobs=n_jobs, catch=n_jobs != 1):
            if res.error:
                raise RuntimeError(
                    f"{task.selector.name} on split {task.split} failed:\n{res.error}"
                )
            rows.extend(_cell_rows(task, res))
            tally.add(res.warning_counts or res.warnings)
            bar.update(len(res.cells))
    finally:
        bar.close()

        clear_cache()
    for w in tally.lines():  # once per kind, with its count
        warnings.warn(w, UserWarning, stacklevel=2)
    df = pd.DataFrame(rows).drop(columns="cell_id")
    order = {m.name: i for i, m in enumerate(sels)}
    df = df.sort_values(
        ["method", "k", "learner", "split"], key=lambda s: s.map(order) if s.name == "method" else s
    )
    return df.reset_index(drop=True)


def summarize(results: Any, metrics: Sequence[str] | None = None, by: Sequence[str] | None = None):
    """Mean and standard deviation (over splits, ``ddof=1`` as MATLAB's ``std``) of each
    metric per method.

    Parameters
    ----------
    results : DataFrame
        Output of :func:`evaluate` or :meth:`ResultStore.to_frame`.
    metrics : list of str, optional
        Columns to summarise; default: every metric column.
    by : list of str, optional
        Grouping columns; default ``method`` plus ``dataset``, ``k`` and ``learner`` when
        they take more than one value (for ``k``: within some method).

    Returns
    -------
    DataFrame
        Indexed by ``by`` (in the order methods first appear), columns a MultiIndex
        ``(metric, "mean" | "std")``.
    """
    import pandas as pd

    df = results
    if metrics is None:
        metrics = [
            c for c in df.columns if c not in _NON_METRIC and pd.api.types.is_numeric_dtype(df[c])
        ]
    missing = [m for m in metrics if m not in df.columns]
    if missing:
        raise ValueError(f"no column(s) {missing} in the results; have {list(df.columns)}.")
    if by is None:
        by = []
        if "dataset" in df and df["dataset"].nunique() > 1:
            by.append("dataset")
        by.append("method")
        if "k" in df and (df.groupby("method")["k"].nunique() > 1).any():
            by.append("k")
        if "learner" in df and df["learner"].nunique() > 1:
            by.append("learner")
    by = list(by)
    g = df.groupby(by, sort=False)[list(metrics)]
    out = pd.concat({"mean": g.mean(), "std": g.std(ddof=1)}, axis=1)
    out = out.swaplevel(0, 1, axis=1)
    cols = pd.MultiIndex.from_tuples([(m, s) for m in metrics for s in ("mean", "std")])
    return out[cols]


# --------------------------------------------------------------------------- run_experiment
@dataclass
class RunSummary:
    """What a :func:`run_experiment` call did."""

    experiment: str
    db: str
    n_cells: int
    n_cached: int
    n_computed: int = 0
    n_failed_tasks: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    cell_ids: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the warnings counted by kind (:class:`~skmlfs.experiments._warnings.WarningTally`)
    warning_kinds: list[dict] = field(default_factory=list)
    #: budgets resolved once per dataset (a count above its features is capped)
    notes: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    #: (data set, selector) keys a time limit stopped in this run (``method_on_data``)
    stopped: set[str] = field(default_factory=set)


def _log(verbose: bool, msg: str) -> None:
    if verbose:
        print(msg, file=sys.stderr, flush=True)


def _record(store: ResultStore, plan: RunPlan, task: Task, res: TaskResult,
            summary: RunSummary) -> int:
    """Write what one finished task produced (ranking, cells, failure); the client is the
    only writer. Returns the number of cells it settles (computed or failed)."""
    spec = plan.spec
    if res.ranking is not None and not res.ranking.reused:
        store.add_ranking(
            task.task_id,
            dataset=task.dataset,
            split=task.split,
            method=task.selector.name,
            selector=task.selector.identity(),
            k_requested=res.ranking.k_requested,
            ranking=res.ranking.ranking,
            scores=res.ranking.scores,
            selection_time=res.ranking.selection_time,
            versions=res.versions,
            info=res.ranking.info,
        )
    for c in res.cells:
        store.add_cell(
            {
                "cell_id": c.cell_id,
                "dataset": task.dataset,
                "split": task.split,
                "protocol": plan.protocols[task.dataset],
                "method": task.selector.name,
                "selector": task.selector.identity(),
                "k": c.k,
                "n_selected": c.n_selected,
                "learner": c.learner,
                "learner_spec": _learner(spec, c.learner).identity(),
                "seed": spec.seed,
                "metrics": {plan.metric_keys[n]: v for n, v in c.metrics.items()},
                "features": (res.ranking.ranking[: c.k] if c.features is None
                             else c.features),
                "selection_time": res.ranking.selection_time,
                "fit_time": c.fit_time,
                "predict_time": c.predict_time,
                "n_train": res.n_train,
                "n_test": res.n_test,
                "ranking_id": task.task_id,
                "ranking_reused": res.ranking.reused,
                "versions": res.versions or versions(),
                # optional per-cell data: tuned parameters, search histories
                "info": getattr(c, "info", None) or None,
            }
        )
        summary.n_computed += 1
    if res.peak_rss_mb is not None and res.cells:
        store.add_task_stats(task.task_id, task.dataset, task.split, task.selector.name,
                             res.peak_rss_mb)
    if res.error:
        summary.n_failed_tasks += 1
        store.add_failure(task.task_id, task.dataset, task.split, task.selector.name, res.error)
        if res.stopped_at_limit is not None:
            key = method_on_data(task)
            summary.stopped.add(key)
            prev = store.stopped().get(key, {}).get("time_limit", 0.0)
            store.add_stopped(key, max(prev, res.stopped_at_limit), task.dataset,
                              task.selector.name)
        first = res.error.splitlines()[0]
        summary.failures.append(f"{task.dataset} split {task.split} {task.selector.name}: {first}")
        return len(task.cells)
    return len(res.cells)


def run_experiment(
    spec: ExperimentSpec | str | os.PathLike,
    db: ResultStore | str | os.PathLike,
    *,
    n_jobs: int = 1,
    dask: Any = None,
    progress: bool | None = None,
    verbose: bool = True,
    on_result: Callable[[Task, TaskResult], None] | None = None,
) -> RunSummary:
    """Run (or resume) every cell of an experiment, storing each finished cell at once.

    Parameters
    ----------
    spec : ExperimentSpec or path to a TOML file
    db : ResultStore or path of the SQLite file
    n_jobs : int, default=1
        joblib workers (``-1`` = all cores); with ``dask`` the number of workers of a
        ``"local"`` cluster.
    dask : None, "local", a scheduler address or a ``distributed.Client``
        Run on a Dask cluster instead (``"local"`` starts a ``LocalCluster`` with one
        single-threaded worker process per core). Workers load each dataset themselves
        (file paths are resolved to absolute paths on this machine: on a real cluster the
        workers must see the same files, e.g. on a shared file system); only this process
        writes the store.
    progress : bool, "bar", "lines", "off" or None
        Progress on stderr: a tqdm bar with ETA on a terminal, a line every few seconds on
        a pipe (``None``/``True``: whichever stderr is; ``False``: none).
    verbose : bool, default=True
        One-line messages on stderr (plan, warnings, failures, interruption).

    Returns
    -------
    RunSummary

    Raises
    ------
    KeyboardInterrupt
        After a clean stop on Ctrl-C: workers are stopped, every cell finished so far is
        committed, and the same call resumes.
    StoreBusyError
        Another process is running on the same store (see
        :meth:`ResultStore.writer_lock`).
    """
    t_start, started = time.perf_counter(), time.time()
    dask_arg = dask
    if not isinstance(spec, ExperimentSpec):
        spec = load_experiment(spec)
    if dask is not None:
        import_distributed()  # before any work: say how to install it
    store = db if isinstance(db, ResultStore) else ResultStore(db)
    own_store = store is not db
    try:
        with store.writer_lock(), _backend_session(dask, n_jobs) as dask:
            store.set_meta(f"experiment:{spec.name}", spec.stored_text())
            before = store.get_meta("skmlfs_version")
            store.set_meta("skmlfs_version", skmlfs.__version__)
            plan = plan_experiment(spec, store)
            n_reused = len(plan.cell_ids) - plan.n_pending - plan.n_skipped
            if before and before != skmlfs.__version__ and n_reused:
                # cell ids hash the parameters an experiment names, not the defaults of
                # the code: a default changed between versions would be reused silently
                warnings.warn(
                    f"{store.path}: {n_reused} of the cells this run needs were stored by "
                    f"skmlfs {before} and are reused; this is skmlfs {skmlfs.__version__}. "
                    "Defaults that changed between versions (CHANGELOG.md) are not part of "
                    "a cell's id: use a new --db to recompute them.",
                    UserWarning,
                    stacklevel=2,
                )
            for key, value in plan.meta.items():
                store.set_meta(key, value)
            n_workers = n_workers_of(n_jobs, dask)
            batches = make_batches(plan.tasks, plan.sources, n_workers=n_workers,
                                   costs=plan.costs)
            summary = RunSummary(
                experiment=spec.name,
                db=str(store.path),
                n_cells=len(plan.cell_ids),
                n_cached=len(plan.cell_ids) - plan.n_pending - plan.n_skipped,
                cell_ids=plan.cell_ids,
            )
            backend = (
                "Dask" if dask is not None
                else (f"joblib x{n_jobs}" if n_jobs not in (None, 1) else "serial")
            )
            _log(
                verbose,
                f"{spec.name}: {summary.n_cells} cells, {summary.n_cached} already in "
                f"{store.path}, {plan.n_pending} to run in {len(plan.tasks)} tasks ({backend}), "
                f"{len(batches)} batches.",
            )
            bar = _progress(plan.n_pending, spec.name, progress,
                            work=sum(plan.work(t) for t in plan.tasks))

            def settled(task: Task, n: int) -> None:
                bar.update(n, work=plan.work(task, n))

            tally = WarningTally()
            summary.notes = list(plan.notes)
            for note in plan.notes:  # resolved once per dataset, reported once, logged
                tally.add({f"UserWarning: {note}": 1})
            dropped: list[Task] = []

            def keep(task: Task) -> bool:
                """Not a task of a method the time limit stopped on its data set in this run
                (on another split: the same size; the planner drops those of earlier runs)."""
                if spec.time_limit is None or method_on_data(task) not in summary.stopped:
                    return True
                dropped.append(task)
                settled(task, len(task.cells))
                return False

            gen = results(batches, n_jobs=n_jobs, dask=dask, catch=True, keep=keep)
            backend_label, finished = _backend_label(dask_arg, dask, n_workers), False
            # the note spans the cleanup: a second signal (`timeout` signals the command and
            # then its process group) must not cut the backend's shutdown or the run log short
            with _stop_noted() as interrupted:
                try:
                    for task, res in gen:
                        settled(task, _record(store, plan, task, res, summary))
                        tally.add(res.warning_counts or res.warnings)
                        if on_result is not None:
                            on_result(task, res)
                        if interrupted():
                            raise KeyboardInterrupt
                    summary.interrupted = interrupted()
                    finished = not summary.interrupted
                except KeyboardInterrupt:
                    summary.interrupted = True
                finally:
                    close = getattr(gen, "close", None)
                    if close is not None:
                        close()
                    bar.close()
                    clear_cache()
                    forget_data()
                    for (ds, m), n in per_method(dropped).items():
                        note = (f"{ds}: {n} task(s) of {m} not run: the time limit stopped "
                                f"{m} on another split of {ds} in this run.")
                        summary.notes.append(note)
                        _log(verbose, note)
                    if summary.n_computed or summary.n_failed_tasks:
                        _log_run(store, summary, started, time.perf_counter() - t_start,
                                 backend_label, not finished, skmlfs.__version__, verbose,
                                 tally.to_json())
        summary.seconds = time.perf_counter() - t_start
        summary.warnings = tally.messages()
        summary.warning_kinds = tally.kinds()
        if len(tally) > 1 or tally.total > 1:
            _log(verbose, f"{tally.total} warnings of {len(tally)} kinds:")
        for w in tally.lines():  # once per kind, counted (also in the run log)
            _log(verbose, f"warning: {w}")
        for f in summary.failures:
            _log(verbose, f"FAILED: {f}")
        if summary.interrupted:
            _log(
                verbose,
                f"interrupted: {summary.n_cached + summary.n_computed} of {summary.n_cells} "
                f"cells are saved in {store.path}; run the same command again to resume.",
            )
            raise KeyboardInterrupt
        _log(
            verbose,
            f"{spec.name}: {summary.n_computed} cells computed in {summary.seconds:.1f} s"
            + (f", {summary.n_failed_tasks} task(s) FAILED" if summary.n_failed_tasks else "")
            + ".",
        )
        return summary
    finally:
        if own_store:
            store.close()


def _backend_label(dask_arg: Any, client: Any, n_workers: int) -> str:
    """How a run computed, for the run log: "serial", "joblib x2" or "Dask <where> x<n>"."""
    if client is None:
        return f"joblib x{n_workers}" if n_workers > 1 else "serial"
    if isinstance(dask_arg, str):
        where = dask_arg
    else:
        where = getattr(getattr(client, "scheduler", None), "address", None) or "client"
    try:  # the workers connected at the start (a real cluster may gain or lose some)
        n = len(client.scheduler_info().get("workers", {})) or n_workers
    except Exception:  # noqa: BLE001 — the label must never stop a run
        n = n_workers
    return f"Dask {where} x{n}"


def _log_run(store: ResultStore, summary: RunSummary, started: float, seconds: float,
             backend: str, interrupted: bool, version: str, verbose: bool,
             warnings_json: str | None = None) -> None:
    """Add the run's row to the store's run log. Also reached while an exception (Ctrl-C,
    an error) leaves the run: a store error here is then only reported, so that it does
    not hide the exception that stopped the run."""
    try:
        store.add_run(summary.experiment, started=started, seconds=seconds,
                      n_computed=summary.n_computed, n_cached=summary.n_cached,
                      n_failed=summary.n_failed_tasks, backend=backend,
                      interrupted=interrupted, version=version, warnings=warnings_json)
    except sqlite3.Error as exc:
        if not interrupted:
            raise
        _log(verbose, f"the run could not be logged in {store.path}: {exc}")


@contextlib.contextmanager
def _stop_noted():
    """Note every SIGINT and SIGTERM that has a handler (Python's for SIGINT; for SIGTERM
    the command line's, which turns it into an interrupt, or a caller's own) while the cells
    run; yields a function telling whether one came. After a noted signal the run stops at
    the next stored cell, whatever the handler did: the process was asked to end.

    The first signal still raises :class:`KeyboardInterrupt` as Python's handler does, but
    that exception can be lost: raised inside a finalizer or a callback (garbage collection
    runs them at any moment) it is printed as "ignored" and the run would go on to the end
    and exit 0. The note survives, and the loop stops at the next stored cell. Later signals
    are only noted, so that the stop they all ask for completes (the backend shut down, the
    run logged); ``kill -9`` ends a run at once, its stored cells kept. A signal that is
    ignored (SIGINT of a background job) or left to its default stays so; off the main
    thread nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    seen: list[int] = []
    prev = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    def note(signum, frame):
        seen.append(signum)
        if len(seen) == 1:
            prev[signum](signum, frame)

    for s, handler in prev.items():
        if callable(handler):
            signal.signal(s, note)
    try:
        yield lambda: bool(seen)
    finally:
        for s, handler in prev.items():
            if callable(handler):
                signal.signal(s, handler)


@contextlib.contextmanager
def _backend_session(dask: Any, n_jobs: int | None):
    """Connect to (or start) the Dask cluster before planning, so that its workers import
    the library while the client loads the data; other backends need no session."""
    if dask is None:
        yield None
        return

    n = n_jobs if n_jobs and n_jobs > 1 else (os.cpu_count() or 2)
    with dask_session(dask, n) as client:
        yield client


def _ds_by_name(spec: ExperimentSpec, name: str):
    for d in spec.datasets:
        if d.name == name:
            return d
    raise KeyError(name)


def _learner(spec: ExperimentSpec, name: str) -> MethodSpec:
    for m in spec.learners:
        if m.name == name:
            return m
    raise KeyError(name)
