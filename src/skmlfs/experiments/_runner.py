"""Orchestration: expand an experiment into tasks, run them (serially, with joblib or on
Dask), and write each finished cell to the store.

:func:`evaluate` (one dataset, in memory, returns a DataFrame) and
:func:`run_experiment` (a whole grid, resumable, into SQLite) build the same
:class:`~skmlfs.experiments._cells.Task` objects and run them with the same
:func:`~skmlfs.experiments._cells.run_task`: one code path.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._validation import check_labels
from ._cells import (
    CellSpec,
    RankingResult,
    Task,
    TaskResult,
    compact,
    make_id,
    nominal_columns,
    run_task,
)
from ._protocols import Split, holdout_splits
from ._spec import (
    DEFAULT_METRICS,
    ExperimentSpec,
    MethodSpec,
    MetricRef,
    canonical_json,
    parse_n_features,
    resolve_n_features_grid,
)
from ._store import ResultStore

__all__ = ["RunSummary", "evaluate", "run_experiment", "summarize"]

_NON_METRIC = {
    "dataset", "split", "method", "k", "n_selected", "learner", "selection_time", "fit_time",
    "predict_time", "features", "cell_id", "protocol", "seed", "selector", "learner_spec",
    "n_train", "n_test", "ranking_id", "ranking_reused", "versions", "created",
}


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


def _as_split_list(splits: Any) -> list[Split]:
    out = []
    for i, s in enumerate(splits):
        try:
            tr, te = s
        except (TypeError, ValueError):
            raise ValueError(f"splits[{i}] must be a (train, test) pair of index arrays.") from None
        tr, te = np.asarray(tr), np.asarray(te)
        if tr.dtype == bool:
            tr = np.flatnonzero(tr)
        if te.dtype == bool:
            te = np.flatnonzero(te)
        if np.intersect1d(tr, te).size:
            raise ValueError(f"splits[{i}]: training and test indices overlap.")
        out.append(Split(tr.astype(np.intp), te.astype(np.intp)))
    if not out:
        raise ValueError("splits is empty.")
    return out


def _build_tasks(
    *,
    dataset: str,
    dataset_identity: dict,
    protocol_identity: dict,
    splits: Sequence[Split],
    selectors: Sequence[MethodSpec],
    learners: Sequence[MethodSpec],
    ks: Sequence[int],
    n_features: int,
    metrics: Sequence[MetricRef],
    seed: int | None,
    data_token: str,
    discretizer: Any,
    done: set[str] | None = None,
    cached: Mapping[str, dict] | None = None,
    categorical_features: tuple[int, ...] | None = None,
    split_seeds: Sequence[int] | None = None,
) -> tuple[list[Task], list[str]]:
    """Expand one dataset into tasks; returns ``(pending tasks, ids of all its cells)``.

    ``split_seeds`` (``estimator_seed = "seed+split"``): the random_state of the estimators
    of split ``i`` is ``split_seeds[i]`` instead of ``seed``.
    """
    tasks: list[Task] = []
    all_ids: list[str] = []
    for i, sp_ in enumerate(splits):
        for sel in selectors:
            sel_ks = [n_features] if sel.selects_all else list(ks)
            k_max = max(sel_ks)
            payload = {
                "dataset": dataset_identity,
                "protocol": protocol_identity,
                "split": i,
                "seed": seed,
                "selector": sel.identity(),
            }
            if split_seeds is not None:  # only then: other ids stay as they were
                payload["estimator_seed"] = int(split_seeds[i])
            rid = make_id(payload)
            cells = []
            for k in sel_ks:
                for lrn in learners:
                    cid = make_id(
                        {
                            "v": 1,
                            "ranking": rid,
                            "method": sel.name,
                            "k": int(k),
                            "learner": lrn.name,
                            "learner_spec": lrn.identity(),
                        }
                    )
                    all_ids.append(cid)
                    if done is None or cid not in done:
                        cells.append(CellSpec(cid, int(k), lrn))
            if not cells:
                continue
            cr = None
            c = (cached or {}).get(rid)
            if c is not None and (c["k_requested"] >= k_max or c["ranking"].size >= k_max):
                cr = RankingResult(c["ranking"], c["scores"], c["selection_time"],
                                   c["k_requested"], reused=True)
            tasks.append(
                Task(
                    task_id=rid,
                    data_token=data_token,
                    dataset=dataset,
                    split=i,
                    train=sp_.train,
                    test=sp_.test,
                    discretizer=discretizer,
                    selector=sel,
                    k_max=int(k_max),
                    cells=tuple(cells),
                    metrics=tuple(metrics),
                    seed=seed if split_seeds is None else int(split_seeds[i]),
                    cached_ranking=cr,
                    categorical_features=categorical_features,
                )
            )
    return tasks, all_ids


# --------------------------------------------------------------------------- backends
def _serial(tasks, data, catch) -> Iterator[tuple[Task, TaskResult]]:
    for t in tasks:
        X, Y = data[t.data_token]
        yield t, run_task(t, X, Y, catch=catch)


def _joblib(tasks, data, n_jobs, catch) -> Iterator[tuple[Task, TaskResult]]:
    from joblib import Parallel, delayed

    by_id = {t.task_id: t for t in tasks}
    gen = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(run_task)(t, *data[t.data_token], catch=catch) for t in tasks
    )
    try:
        for res in gen:
            yield by_id[res.task_id], res
    finally:
        gen.close()


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


def _dask(tasks, data, address, n_workers, catch) -> Iterator[tuple[Task, TaskResult]]:
    from distributed import Client, LocalCluster, as_completed

    cluster = client = None
    own_client = True
    stopped = False
    futures = []
    try:
        if isinstance(address, Client):
            client, own_client = address, False
        else:
            if address == "local":
                with _sigint_ignored():
                    cluster = LocalCluster(
                        n_workers=n_workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
                address = cluster
            client = Client(address)
        remote = {tok: client.scatter(list(xy), hash=False) for tok, xy in data.items()}
        by_id = {t.task_id: t for t in tasks}
        futures = [
            client.submit(run_task, t, *remote[t.data_token], catch=catch, pure=False)
            for t in tasks
        ]
        for fut in as_completed(futures):
            res = fut.result()
            fut.release()
            yield by_id[res.task_id], res
    except BaseException:  # Ctrl-C, or the caller stopped: shut down without log noise
        stopped = True
        raise
    finally:
        quiet = stopped and cluster is not None
        with _logs_silenced("distributed", "tornado") if quiet else contextlib.nullcontext():
            if futures:
                client.cancel(futures)  # one call, not one round trip per future
            if own_client and client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


def _results(tasks, data, *, n_jobs=1, dask=None, catch=True):
    if not tasks:
        return iter(())
    if dask is not None:
        n_workers = n_jobs if n_jobs and n_jobs > 1 else (os.cpu_count() or 2)
        return _dask(tasks, data, dask, n_workers, catch)
    if n_jobs is None or n_jobs == 1:
        return _serial(tasks, data, catch)
    return _joblib(tasks, data, n_jobs, catch)


def _progress(total: int, desc: str, enabled: bool | None):
    from tqdm.auto import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit="cell", disable=not enabled, dynamic_ncols=True,
                smoothing=0.05)


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
                "features": res.ranking.ranking[: c.k].tolist(),
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
    from ..metrics import get_metric

    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    out = []
    for m in metrics:
        if isinstance(m, MetricRef):
            ref = m
        elif isinstance(m, str):
            ref = MetricRef(m, m, {})
        elif isinstance(m, Mapping):
            m = dict(m)
            metric = m.pop("metric", m.get("name"))
            name = m.pop("name", metric)
            ref = MetricRef(str(name), str(metric), {**m.pop("params", {}), **m})
        else:
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
    n_features: Any = None,
    metrics: Sequence[Any] | None = None,
    *,
    discretizer: Any = "auto",
    use_discretized: bool = False,
    random_state: int | None = 0,
    n_jobs: int = 1,
    progress: bool | None = True,
):
    """Compare selectors with a learner over splits of one dataset.

    For every split the data is discretized once on the training part (see
    :mod:`skmlfs.experiments._cells`), each selector is fitted once with the largest
    budget, and each budget ``k`` evaluates the first ``k`` features of its ranking.

    Parameters
    ----------
    dataset : MultiLabelDataset, (X, Y) pair, path or registered name
    selectors : dict name → estimator or registry name, or a list of registry names
        ``"all"`` is the no-selection baseline (evaluated once per split, k = all).
    learner : estimator, registry name, or dict name → learner, default="mlnb"
    splits : sequence of (train, test) index arrays, optional
        Default: :func:`holdout_splits` ``(n, 10, 0.2, random_state)``.
    n_features : int, float, str or list, optional
        Budgets (:func:`~skmlfs.experiments.parse_n_features` forms); default
        ``"ceil_sqrt"`` = ⌈√n⌉ with n the number of patterns of ``dataset``.
    metrics : list of names (or tables with parameters), optional
        Default: Hamming loss, ranking loss, normalized coverage (SCLS §4.1).
    discretizer : "auto", "none", a registered name or a transformer, default="auto"
    use_discretized : bool, default=False
        Use ``dataset.X_discrete`` (the ``.mat`` files' ``data_dis``).
    random_state : int or None, default=0
        Seed of the default splits and of estimators whose ``random_state`` is None.
    n_jobs : int, default=1
        joblib workers across (split, selector) tasks.
    progress : bool or None, default=True
        tqdm bar with ETA (``None``: only on a terminal).

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
        from .. import datasets as _ds

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
    ks = resolve_n_features_grid(
        parse_n_features("ceil_sqrt" if n_features is None else n_features), n, d
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
    seen_warnings: set[str] = set()
    bar = _progress(total, name, progress)
    try:
        for task, res in _results(tasks, {token: (X, Y)}, n_jobs=n_jobs, catch=n_jobs != 1):
            if res.error:
                raise RuntimeError(
                    f"{task.selector.name} on split {task.split} failed:\n{res.error}"
                )
            rows.extend(_cell_rows(task, res))
            seen_warnings.update(res.warnings)
            bar.update(len(res.cells))
    finally:
        bar.close()
        from ._cells import clear_cache

        clear_cache()
    for w in sorted(seen_warnings):
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
    failures: list[str] = field(default_factory=list)


def _log(verbose: bool, msg: str) -> None:
    if verbose:
        print(msg, file=sys.stderr, flush=True)


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
        joblib workers (``-1`` = all cores) across (dataset, split, selector) tasks; with
        ``dask`` the number of workers of a ``"local"`` cluster.
    dask : None, "local", a scheduler address or a ``distributed.Client``
        Run the tasks on a Dask cluster instead (``"local"`` starts a ``LocalCluster`` with
        one single-threaded worker process per core).
    progress : bool or None
        tqdm bar with ETA; ``None`` shows it only when stderr is a terminal.
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
    """
    from .. import __version__
    from ._cells import clear_cache, versions
    from ._spec import load_experiment

    t_start = time.perf_counter()
    if not isinstance(spec, ExperimentSpec):
        spec = load_experiment(spec)
    store = db if isinstance(db, ResultStore) else ResultStore(db)
    own_store = store is not db
    try:
        store.set_meta(f"experiment:{spec.name}", spec.text or canonical_json(spec.source))
        store.set_meta("skmlfs_version", __version__)
        metric_keys = {m.name: m.key() for m in spec.metrics}
        done = store.done_cells(metric_keys.values())
        cached = store.rankings()
        tasks: list[Task] = []
        data: dict[str, tuple[Any, Any]] = {}
        all_ids: list[str] = []
        for ds in spec.datasets:
            obj = ds.load()
            X, Y = _arrays(obj, ds.use_discretized, ds.name)
            n, d = X.shape
            prot = spec.protocol_of(ds)
            splits = prot.splits(obj, n, spec.seed)
            ks = resolve_n_features_grid(spec.n_features_of(ds), n, d)
            token = make_id(ds.identity())
            t, ids = _build_tasks(
                dataset=ds.name,
                dataset_identity=ds.identity(),
                protocol_identity=prot.identity(),
                splits=splits,
                selectors=spec.selectors,
                learners=spec.learners,
                ks=ks,
                n_features=d,
                metrics=spec.metrics,
                seed=spec.seed,
                data_token=token,
                discretizer=ds.discretizer,
                done=done,
                cached=cached,
                categorical_features=nominal_columns(obj),
                split_seeds=spec.split_seeds(len(splits)),
            )
            store.set_meta(
                f"dataset:{ds.name}",
                canonical_json(
                    {
                        "n_samples": n,
                        "n_features": d,
                        "n_labels": int(Y.shape[1]),
                        "protocol": prot.label(),
                        "n_splits": len(splits),
                        "budgets": ks,
                        "source": ds.identity()["source"],
                    }
                ),
            )
            all_ids.extend(ids)
            tasks.extend(t)
            if t:
                data[token] = (X, Y)
            del obj
        del cached
        n_pending = sum(len(t.cells) for t in tasks)
        summary = RunSummary(
            experiment=spec.name,
            db=str(store.path),
            n_cells=len(all_ids),
            n_cached=len(all_ids) - n_pending,
            cell_ids=all_ids,
        )
        store.set_meta(f"cells:{spec.name}", canonical_json(all_ids))
        store.set_meta(
            f"order:{spec.name}",
            canonical_json(
                {
                    "datasets": [d.name for d in spec.datasets],
                    "methods": [m.name for m in spec.selectors],
                    "learners": [m.name for m in spec.learners],
                }
            ),
        )
        if spec.description:
            store.set_meta(f"description:{spec.name}", spec.description)
        if spec.report.get("control"):
            store.set_meta(f"control:{spec.name}", str(spec.report["control"]))
        for m in spec.metrics:
            store.set_meta(
                f"metric:{m.name}",
                canonical_json(
                    {
                        "metric": m.metric,
                        "params": dict(m.params),
                        "greater_is_better": m.spec().greater_is_better,
                    }
                ),
            )
        backend = (
            "Dask" if dask is not None else (f"joblib x{n_jobs}" if n_jobs not in (None, 1)
                                             else "serial")
        )
        _log(
            verbose,
            f"{spec.name}: {summary.n_cells} cells, {summary.n_cached} already in "
            f"{store.path}, {n_pending} to run in {len(tasks)} tasks ({backend}).",
        )
        remaining = {t.data_token: 0 for t in tasks}
        for t in tasks:
            remaining[t.data_token] += 1
        bar = _progress(n_pending, spec.name, progress)
        warns: set[str] = set()
        gen = _results(tasks, data, n_jobs=n_jobs, dask=dask, catch=True)
        try:
            for task, res in gen:
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
                    )
                for c in res.cells:
                    store.add_cell(
                        {
                            "cell_id": c.cell_id,
                            "dataset": task.dataset,
                            "split": task.split,
                            "protocol": canonical_json(
                                spec.protocol_of(_ds_by_name(spec, task.dataset)).identity()
                            ),
                            "method": task.selector.name,
                            "selector": task.selector.identity(),
                            "k": c.k,
                            "n_selected": c.n_selected,
                            "learner": c.learner,
                            "learner_spec": _learner(spec, c.learner).identity(),
                            "seed": spec.seed,
                            "metrics": {metric_keys[n]: v for n, v in c.metrics.items()},
                            "features": res.ranking.ranking[: c.k],
                            "selection_time": res.ranking.selection_time,
                            "fit_time": c.fit_time,
                            "predict_time": c.predict_time,
                            "n_train": res.n_train,
                            "n_test": res.n_test,
                            "ranking_id": task.task_id,
                            "ranking_reused": res.ranking.reused,
                            "versions": res.versions or versions(),
                            "info": c.info or None,  # tuned parameters, search histories
                        }
                    )
                    summary.n_computed += 1
                    bar.update(1)
                if res.error:
                    summary.n_failed_tasks += 1
                    store.add_failure(
                        task.task_id, task.dataset, task.split, task.selector.name, res.error
                    )
                    first = res.error.splitlines()[0]
                    summary.failures.append(
                        f"{task.dataset} split {task.split} {task.selector.name}: {first}"
                    )
                    bar.update(len(task.cells) - len(res.cells))
                warns.update(res.warnings)
                if on_result is not None:
                    on_result(task, res)
                remaining[task.data_token] -= 1
                if remaining[task.data_token] == 0 and dask is None:
                    data.pop(task.data_token, None)  # memory stays flat across datasets
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            close = getattr(gen, "close", None)
            if close is not None:
                close()
            bar.close()
            clear_cache()
        summary.seconds = time.perf_counter() - t_start
        summary.warnings = sorted(warns)
        for w in summary.warnings:
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
