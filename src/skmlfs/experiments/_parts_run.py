"""Running a multi-part experiment (:mod:`._parts` parses it): each part resolved against
the store (``best`` and ``share_of_features`` values per dataset) and run into it in turn,
the parts' cell ids recorded under the meta entry ``parts:<file name>``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._ids import canonical_json
from ..metrics import get_metric
from ._backends import _arrays
from ._build import _param, glob_match
from ._parts import (
    ExperimentParts,
    _dataset_name,
    _has_refs,
    _is_share,
    _share_count,
    _walk,
)
from ._runner import run_experiment
from ._spec import ExperimentSpec, SpecError
from ._store import part_cells, part_experiments

__all__ = ["PartsRun", "part_specs", "run_parts"]


def _best_value(store: Any, ep: ExperimentParts, ref: Mapping, dataset: str,
                ids: Mapping[str, list[str]]) -> Any:
    part = ref.get("part", "main")
    df = store.to_frame(cell_ids=ids.get(part, []))
    df = df[(df["dataset"] == dataset)
            & df["learner"].map(lambda n: glob_match(n, ref["best"]))]
    if not len(df) or ref["metric"] not in df:
        raise SpecError(
            f"{ep.source}: best = {ref['best']!r}: part {part!r} has no {ref['metric']} "
            f"value of a matching learner on {dataset!r}; run that part first."
        )
    means = df.groupby("learner")[ref["metric"]].mean().round(12).sort_index()
    lower = ref.get("lower_is_better")
    if lower is None:
        try:
            lower = not get_metric(ref["metric"]).greater_is_better
        except (KeyError, ValueError):
            lower = False
    chosen = str(means.idxmin() if lower else means.idxmax())
    spec = json.loads(df[df["learner"] == chosen]["learner_spec"].iloc[0]) if isinstance(
        df[df["learner"] == chosen]["learner_spec"].iloc[0], str
    ) else df[df["learner"] == chosen]["learner_spec"].iloc[0]
    return _param(spec["params"], ref["param"])


def part_specs(ep: ExperimentParts, part: str, store: Any,
               datasets: Sequence[str] | None = None,
               ids: Mapping[str, list[str]] | None = None) -> list[ExperimentSpec]:
    """The experiment(s) of one part: one, or one per dataset when the part has reference
    values (resolved from ``store``). ``datasets`` keeps only those dataset names."""
    raw = ep.part(part)
    entries = list(raw.get("datasets") or [])
    if datasets is not None:
        entries = [e for e in entries if _dataset_name(e) in set(datasets)]
    if not entries:
        return []
    if not _has_refs(raw):
        d = dict(raw, datasets=entries)
        return [ExperimentSpec.from_dict(d, source=ep.source, base_dir=ep.base_dir)]
    ids = ids if ids is not None else part_cells(store, ep)
    out = []
    for e in entries:
        one = dict(raw, datasets=[e])
        probe = ep.checked[part] if e in (ep.part(part).get("datasets") or []) else None
        dname = _dataset_name(e)
        ds_spec = next((x for x in (probe.datasets if probe else ())
                        if x.name.split(" (train")[0] == dname), None)
        n_features = None

        def resolve(ref, path, _dname=dname, _ds=ds_spec):
            nonlocal n_features
            if _is_share(ref):
                if n_features is None:
                    X, _ = _arrays(_ds.load(), _ds.use_discretized, _ds.name)
                    n_features = int(X.shape[1])
                return _share_count(ref, n_features)
            return _best_value(store, ep, ref, _dname, ids)

        one = _walk(one, resolve)
        one["name"] = ep.spec_name(part, dname)
        out.append(ExperimentSpec.from_dict(one, source=ep.source, base_dir=ep.base_dir))
    return out


@dataclass
class PartsRun:
    """What :func:`run_parts` did: per part its experiments and run summaries."""

    specs: dict[str, list[ExperimentSpec]] = field(default_factory=dict)
    summaries: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def n_failed_tasks(self) -> int:
        return sum(s.n_failed_tasks for v in self.summaries.values() for s in v)

    def cell_ids(self) -> dict[str, list[str]]:
        return {p: [c for s in v for c in s.cell_ids] for p, v in self.summaries.items()}


def run_parts(ep: ExperimentParts, store: Any, *, parts: Sequence[str] | None = None,
              datasets: Sequence[str] | None = None, seed: int | None = None,
              **run_kw: Any) -> PartsRun:
    """Run (or resume) the parts in file order into one store.

    Parameters
    ----------
    ep : ExperimentParts
    store : ResultStore
    parts : names of the parts to run (default all); a reference to a part not run here
        reads its cells from the store
    datasets : dataset names to keep (a reduced run)
    seed : overrides every part's seed
    **run_kw : passed to :func:`~skmlfs.experiments.run_experiment`
    """
    if parts is not None:
        unknown = set(parts) - {n for n, _ in ep.parts}
        if unknown:
            raise SpecError(f"{ep.source}: unknown part(s) {sorted(unknown)}; parts: "
                            f"{', '.join(n for n, _ in ep.parts)}.")
    res = PartsRun()
    ids = part_cells(store, ep)
    names = part_experiments(store, ep)
    if getattr(ep, "text", None):  # `mlfs report` on the store alone rebuilds the report
        store.set_meta(f"parts_file:{ep.name}", canonical_json(
            {"path": str(ep.source), "text": ep.text}))
    for pname, _ in ep.parts:
        if parts is not None and pname not in parts:
            continue
        specs = part_specs(ep, pname, store, datasets, ids)
        if seed is not None:
            specs = [dataclasses.replace(s, seed=seed) for s in specs]
        res.specs[pname] = specs
        res.summaries[pname] = []
        # recorded before the part runs: a run stopped or killed inside it leaves a store
        # whose report shows the cells computed so far (each experiment records its
        # planned cells as it starts)
        names[pname] = [s.name for s in specs]
        store.set_meta(f"parts:{ep.name}", canonical_json(names))
        for spec in specs:
            if run_kw.get("verbose", True):
                print(f"part {pname}: {spec.name}", file=sys.stderr, flush=True)
            res.summaries[pname].append(run_experiment(spec, store, **run_kw))
        ids[pname] = [c for s in res.summaries[pname] for c in s.cell_ids]
    return res
