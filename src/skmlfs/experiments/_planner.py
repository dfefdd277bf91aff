"""The planner: an experiment and its store → the tasks of the cells still to compute.

:func:`plan_experiment` reads the store (never writes it) and expands every dataset ×
split × selector into a :class:`~skmlfs.experiments._execute.Task` holding the pending
cells (budget × learner) and, when the store has it, the cached ranking. Cell and ranking
ids come from :mod:`skmlfs._ids`; a cell already in the store is never planned again,
which is what makes a run resumable.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._ids import canonical_json, cell_id, fingerprint, make_id
from ..model_selection import Split
from ._backends import DataSource, _arrays, portable, remember
from ._execute import CellSpec, RankingResult, Task, method_on_data, nominal_columns
from ._spec import ExperimentSpec, MethodSpec, MetricRef, resolve_n_features_grid
from ._store import ResultStore
from ._tuning import for_dataset, per_learner, runs_on, selector_budgets

__all__ = ["WORK_EXPONENT", "RunPlan", "plan_experiment", "refit_budgets"]

#: A cell on a data set of n patterns and L labels takes time in proportion to
#: (n·L)^WORK_EXPONENT, for the time left of a run (:meth:`RunPlan.work`; a count of cells
#: overestimated it tenfold and more early on, the largest data sets running first). Fitted
#: on the task times of the benchmark's 19 data sets (flags to delicious; every selector,
#: ML-kNN; a data set's time predicted as its cells × (n·L)^a, scaled to the total): a =
#: 0.58 gives the smallest root-mean-square log error, a factor of 2.8 per data set, and
#: delicious 51 % of the time (measured: 57 %). The number of features hardly matters (its
#: own exponent in a least-squares fit of log time on log n, d and L: 0.05); (n·d·L)^(1/3)
#: errs by a factor of 3.5 and gives delicious 25 %.
WORK_EXPONENT = 0.58


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
    time_limit: float | None = None,
    stopped: Mapping[str, float] | None = None,
    skipped: list[Task] | None = None,
) -> tuple[list[Task], list[str]]:
    """Expand one dataset into tasks; returns ``(pending tasks, ids of all its cells)``.

    ``split_seeds`` (``estimator_seed = "seed+split"``): the random_state of the estimators
    of split ``i`` is ``split_seeds[i]`` instead of ``seed``. ``stopped``:
    :func:`~skmlfs.experiments._execute.method_on_data` -> the time limit that stopped the
    method on this data set in an earlier run; its tasks are not run again unless
    ``time_limit`` is now longer (or unset), but appended to ``skipped``.
    """
    tasks: list[Task] = []
    all_ids: list[str] = []
    for i, sp_ in enumerate(splits):
        for sel, sel_learners in per_learner(selectors, learners):
            sel_ks = [n_features] if sel.selects_all else selector_budgets(
                sel, ks, len(sp_.train) + len(sp_.test), n_features)
            k_max = max(sel_ks)
            sel = refit_budgets(sel, sel_ks)
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
                for lrn in sel_learners:
                    cid = cell_id(rid, sel.name, k, lrn.name, lrn.identity())
                    all_ids.append(cid)
                    if done is None or cid not in done:
                        cells.append(CellSpec(cid, int(k), lrn))
            if not cells:
                continue
            cr = None
            c = (cached or {}).get(rid)
            if c is not None and (c["k_requested"] >= k_max or c["ranking"].size >= k_max):
                cr = RankingResult(c["ranking"], c["scores"], c["selection_time"],
                                   c["k_requested"], reused=True, info=c.get("info") or {})
            task = Task(
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
                time_limit=time_limit,
            )
            prev = (stopped or {}).get(method_on_data(task))
            skip = prev is not None and time_limit is not None and time_limit <= prev
            (skipped if skip and skipped is not None else tasks).append(task)
    return tasks, all_ids


@dataclass
class RunPlan:
    """What is left to compute of an experiment, given its store (:func:`plan_experiment`).

    ``tasks`` hold only the pending cells; ``sources`` say how a worker gets each dataset
    (no arrays: workers load them themselves); ``meta`` are the store entries describing
    the experiment (written by the client before anything runs).
    """

    spec: ExperimentSpec
    tasks: list[Task]
    sources: dict[str, DataSource]
    costs: dict[str, float]
    cell_ids: list[str]
    meta: dict[str, str]
    metric_keys: dict[str, str]
    protocols: dict[str, str]
    #: one line per dataset whose budgets were resolved with a note (a count above its
    #: features is capped once here, so no cell warns about it)
    notes: list[str] = field(default_factory=list)
    #: tasks not run: an earlier run's time limit, as long as this one's, stopped them
    skipped: list[Task] = field(default_factory=list)
    #: relative time of one cell per dataset token, for the time left (:meth:`work`)
    cell_work: dict[str, float] = field(default_factory=dict)

    @property
    def n_pending(self) -> int:
        return sum(len(t.cells) for t in self.tasks)

    @property
    def n_skipped(self) -> int:
        return sum(len(t.cells) for t in self.skipped)

    def work(self, task: Task, n: int | None = None) -> float:
        """Relative time of ``n`` of ``task``'s cells (default all), for a run's time left
        (:data:`WORK_EXPONENT`)."""
        return (len(task.cells) if n is None else n) * self.cell_work.get(task.data_token, 1.0)


def per_method(tasks: Sequence[Task]) -> dict[tuple[str, str], int]:
    """How many of ``tasks`` each (data set, method) has (the notes on tasks not run)."""
    return dict(Counter((t.dataset, t.selector.name) for t in tasks))


def refit_budgets(sel: MethodSpec, ks: Sequence[int]) -> MethodSpec:
    """``sel`` marked to be fitted once per budget when its smaller budgets are not
    prefixes of its selection for the largest (``SelectorTags.nested_budgets`` False:
    RALM-FS, the memetic and genetic searches) and it has several budgets.

    The mark is the option ``budgets = "refit"``, which execution reads
    (:func:`skmlfs.experiments._execute.run_task`) and which enters the selector's identity
    and so the task and cell ids: experiment files of version 0.1 stated it for these
    selectors, and their stores keep their ids. A selector with one budget is not marked
    (there is nothing to refit, and its ids are as before).
    """
    if len(set(ks)) < 2 or (sel.options or {}).get("budgets") == "refit":
        return sel
    if sel.selector_tags().nested_budgets:
        return sel
    return dataclasses.replace(sel, options={**(sel.options or {}), "budgets": "refit"})


def plan_experiment(spec: ExperimentSpec, store: ResultStore) -> RunPlan:
    """Expand ``spec`` into tasks of the cells not yet in ``store`` (reads the store only).

    Each dataset is loaded once here (for its shape, splits and nominal columns) and
    fingerprinted; workers load it again from the same recipe and check the fingerprint.
    """
    metric_keys = {m.name: m.key() for m in spec.metrics}
    done = store.done_cells(metric_keys.values())
    cached = store.rankings()
    stopped = ({k: v["time_limit"] for k, v in store.stopped().items()}
               if spec.time_limit is not None else {})
    skipped: list[Task] = []
    tasks: list[Task] = []
    sources: dict[str, DataSource] = {}
    costs: dict[str, float] = {}
    cell_work: dict[str, float] = {}
    all_ids: list[str] = []
    meta: dict[str, str] = {}
    protocols: dict[str, str] = {}
    notes: list[str] = []
    for ds in spec.datasets:
        obj = ds.load()
        X, Y = _arrays(obj, ds.use_discretized, ds.name)
        n, d = X.shape
        prot = spec.protocol_of(ds)
        protocols[ds.name] = canonical_json(prot.identity())
        splits = prot.splits(obj, n, spec.seed)
        budgets = spec.n_features_of(ds)
        ks = resolve_n_features_grid(budgets, n, d)
        # counts above the features (an int, or its digits as text as "-k 200" gives)
        over = sorted({int(b) for b in budgets if str(b).strip().isdigit() and int(b) > d})
        if over:
            notes.append(
                f"{ds.name}: budget{'s' if len(over) > 1 else ''} "
                f"{', '.join(map(str, over))} exceed{'' if len(over) > 1 else 's'} its {d} "
                f"features: capped at {d} (the full ranking)."
            )
        token = make_id(ds.identity())
        t, ids = _build_tasks(
            dataset=ds.name,
            dataset_identity=ds.identity(),
            protocol_identity=prot.identity(),
            splits=splits,
            selectors=[for_dataset(m, ds.name) for m in spec.selectors if runs_on(m, ds.name)],
            learners=[for_dataset(m, ds.name) for m in spec.learners],
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
            time_limit=spec.time_limit,
            stopped=stopped,
            skipped=skipped,
        )
        meta[f"dataset:{ds.name}"] = canonical_json(
            {
                "n_samples": n,
                "n_features": d,
                "n_labels": int(Y.shape[1]),
                "protocol": prot.label(),
                "n_splits": len(splits),
                "budgets": ks,
                "source": ds.identity()["source"],
            }
        )
        all_ids.extend(ids)
        tasks.extend(t)
        if t:
            recipe, root = portable(ds)
            sources[token] = DataSource(token, fingerprint(X, Y), recipe, root)
            costs[token] = float(n) * d * max(1, Y.shape[1])  # relative size, for ordering
            cell_work[token] = (float(n) * max(1, Y.shape[1])) ** WORK_EXPONENT
            remember(token, X, Y)  # an in-process (serial) run need not read it again
        del obj, X, Y
    meta[f"cells:{spec.name}"] = canonical_json(all_ids)
    meta[f"order:{spec.name}"] = canonical_json(
        {
            "datasets": [d.name for d in spec.datasets],
            "methods": [m.name for m in spec.selectors],
            "learners": [m.name for m in spec.learners],
        }
    )
    if spec.description:
        meta[f"description:{spec.name}"] = spec.description
    if spec.report.get("control"):
        meta[f"control:{spec.name}"] = str(spec.report["control"])
    if spec.report.get("section"):  # the declared sections, for `mlfs report` on the store
        meta[f"report:{spec.name}"] = canonical_json(spec.report["section"])
    for m in spec.metrics:
        meta[f"metric:{m.name}"] = canonical_json(
            {
                "metric": m.metric,
                "params": dict(m.params),
                "greater_is_better": m.spec().greater_is_better,
            }
        )
    notes.extend(
        f"{ds}: {n} task(s) of {m} not run: a time limit at least as long as this one's "
        f"({spec.time_limit:g} s) stopped {m} on {ds} in an earlier run; raise time_limit "
        "to try again." for (ds, m), n in per_method(skipped).items())
    return RunPlan(spec, tasks, sources, costs, all_ids, meta, metric_keys, protocols, notes,
                   skipped, cell_work)
