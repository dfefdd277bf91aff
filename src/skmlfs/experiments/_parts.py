"""Experiments in several parts: one file, several grids (``[[part]]`` tables).

A paper's reproduction is rarely one grid: a main table, the large datasets with fewer
methods, ablations whose fixed value is the one the main table chose, curves over a
training-size axis. Each is a *part*: a table ``[[part]]`` whose keys override those of
the file's top level (which is itself the first part, ``main``)::

    [[part]]
    name = "ablation"                    # cells stored as experiment "<file name>.ablation"
    datasets = ["scene", "yeast"]        # names of top-level datasets, or new tables
    protocol = { kind = "kfold", k = 5 }
    [part.learners.k]                    # the part's own learners (none of the top level's
    method = "occ"                       # unless listed in base_learners = [...])
    M = { best = "oCC_M*", metric = "subset_accuracy", param = "M" }
    variants = { k = [0, 0.5, 1.0] }

Two parameter values are resolved per dataset when the part runs:

* ``{ best = "<glob>", metric = "...", param = "...", part = "main" }``: parameter
  ``param`` (``a__b`` for a nested one) of the learner matching the glob with the best mean
  ``metric`` over the splits of ``part`` on this dataset (first in name order on ties; means
  rounded to 12 decimals) - a choice made by an earlier part;
* ``{ share_of_features = f, cap = c }``: ``max(1, ⌈f · min(d, c)⌉)`` with ``d`` the
  dataset's number of features (``cap`` optional; ``label`` names it in variant names).

Every part is run into the same store (resumable per cell like any experiment); the
report reads each part's cells back by the meta entry ``parts:<file name>``.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ._build import _param, expand_variants, glob_match
from ._spec import (
    ExperimentSpec,
    SpecError,
    _fail,
    _unknown,
    check_missing_rank,
    check_sections,
    parse_time_limit,
)

__all__ = ["PART_KEYS", "ExperimentParts", "is_multipart", "keep_selectors", "load_parts",
           "parts_from_dict", "with_selectors", "with_time_limit"]

#: keys of a ``[[part]]`` table (every other key is the top level's)
PART_KEYS = {
    "name",
    "time_limit",
    "description",
    "datasets",
    "learners",
    "base_learners",
    "selectors",
    "protocol",
    "n_features_to_select",
    "n_features",  # the former name of n_features_to_select (deprecated)
    "metrics",
    "discretizer",
    "use_discretized",
    "train_fractions",
    "estimator_seed",
    "seed",
}
#: keys of the ``[report]`` table of a file with parts
REPORT_KEYS = {"title", "intro", "labels", "decimals", "missing_rank", "section"}
_BEST_KEYS = {"best", "metric", "param", "part", "lower_is_better"}
_SHARE_KEYS = {"share_of_features", "cap", "label"}


@dataclass(frozen=True, eq=False)
class ExperimentParts:
    """A validated multi-part experiment: ``parts`` are (part name, experiment dict)."""

    name: str
    parts: tuple[tuple[str, dict], ...]
    report: Mapping[str, Any]
    source: str = "<dict>"
    base_dir: str | None = None
    text: str = ""
    #: part name -> ExperimentSpec validated with placeholder values for the references
    checked: Mapping[str, ExperimentSpec] = field(default_factory=dict)

    def spec_name(self, part: str, dataset: str | None = None) -> str:
        base = self.name if part == "main" else f"{self.name}.{part}"
        if dataset is None:
            return base
        return f"{base}.{re.sub(r'[^A-Za-z0-9_.-]+', '_', dataset)}"

    def part(self, name: str) -> dict:
        for n, d in self.parts:
            if n == name:
                return d
        raise KeyError(name)


def _is_best(v: Any) -> bool:
    return isinstance(v, Mapping) and "best" in v and "method" not in v


def _is_share(v: Any) -> bool:
    return isinstance(v, Mapping) and "share_of_features" in v and "method" not in v


def _walk(obj: Any, fn, path: str = "") -> Any:
    """Copy of ``obj`` with every reference table replaced by ``fn(table, path)``."""
    if _is_best(obj) or _is_share(obj):
        return fn(obj, path)
    if isinstance(obj, Mapping):
        return {k: _walk(v, fn, f"{path}.{k}" if path else str(k)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_walk(v, fn, f"{path}[{i}]") for i, v in enumerate(obj)]
    return obj


def _has_refs(obj: Any) -> bool:
    found = []
    _walk(obj, lambda t, p: found.append(p) or t)
    return bool(found)


def _share_count(ref: Mapping, d: int) -> int:
    f = float(ref["share_of_features"])
    cap = ref.get("cap")
    base = d if cap is None else min(d, int(cap))
    return max(1, int(np.ceil(f * base - 1e-9)))


def _share_label(ref: Mapping) -> str:
    if "label" in ref:
        return str(ref["label"])
    f = ref["share_of_features"]
    return f"{f}·d" if ref.get("cap") is None else f"{f}·min(d,{ref['cap']})"


def _check_ref(src: str, ref: Mapping, path: str, parts: Sequence[str]) -> None:
    if _is_best(ref):
        _unknown(src, path, ref, _BEST_KEYS)
        for k in ("best", "metric", "param"):
            if not isinstance(ref.get(k), str):
                raise _fail(src, f"{path}.{k}", "a string is needed (the learner glob, the "
                            "metric column and the parameter to take).")
        if ref.get("part", "main") not in parts:
            raise _fail(src, f"{path}.part", f"{ref.get('part')!r} is not an earlier part; "
                        f"earlier: {', '.join(parts)}.")
    else:
        _unknown(src, path, ref, _SHARE_KEYS)
        f = ref["share_of_features"]
        if isinstance(f, bool) or not isinstance(f, (int, float)) or not 0 < f <= 1:
            raise _fail(src, f"{path}.share_of_features", f"a fraction in (0, 1]; got {f!r}.")
        cap = ref.get("cap")
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise _fail(src, f"{path}.cap", f"a positive integer; got {cap!r}.")


def _expand_learner_variants(learners: Any) -> Any:
    """Expand ``variants`` of learner tables here (so that reference tables in a variant
    list are named by their label, not their dict); other forms are passed through."""
    if not isinstance(learners, Mapping):
        return learners
    out: dict = {}
    for name, body in learners.items():
        if not (isinstance(body, Mapping) and "variants" in body
                and _has_refs(body["variants"])):
            out[name] = body
            continue
        labels: dict[str, Any] = {}

        def token(v: Any, _p: str, labels: dict = labels) -> str:
            t = _share_label(v) if _is_share(v) else f"best {v['best']}"
            labels[t] = v
            return t

        body = dict(body)
        body["variants"] = _walk(dict(body["variants"]), token)
        for n, b in expand_variants(str(name), body, f"learners.{name}"):
            out[n] = _walk_tokens(b, labels)
    return out


def _walk_tokens(obj: Any, labels: Mapping[str, Any]) -> Any:
    if isinstance(obj, str) and obj in labels:
        return copy.deepcopy(labels[obj])
    if isinstance(obj, Mapping):
        return {k: _walk_tokens(v, labels) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_walk_tokens(v, labels) for v in obj]
    return obj


def _dataset_name(entry: Any) -> str:
    if isinstance(entry, str):
        return Path(entry).stem if Path(entry).suffix.lower() in (".arff", ".mat") else (
            entry.rstrip("/").rpartition("/")[2])
    if isinstance(entry, Mapping):
        if "name" in entry:
            return str(entry["name"])
        for k in ("load", "path", "train"):
            if k in entry:
                return _dataset_name(str(entry[k]))
    return str(entry)


def parts_from_dict(d: Mapping[str, Any], *, source: str = "<dict>",
                    base_dir: str | None = None, check_files: bool = True) -> ExperimentParts:
    """Validate a multi-part experiment (the parsed TOML): the top level is part ``main``,
    each ``[[part]]`` overrides its keys (see the module docstring). ``check_files=False``:
    datasets' files need not exist (a report from the store alone)."""
    src = source
    top = {k: v for k, v in d.items() if k != "part"}
    name = top.get("name") or (Path(src).stem if src != "<dict>" else "experiment")
    top["name"] = name
    raw_parts = d.get("part", [])
    if isinstance(raw_parts, Mapping):
        raw_parts = [raw_parts]
    if not isinstance(raw_parts, Sequence):
        raise _fail(src, "part", "must be an array of tables ([[part]]).")
    base = {k: v for k, v in top.items() if k != "report"}
    base_ds = {_dataset_name(e): e for e in (base.get("datasets") or [])}
    base_lr = base.get("learners", {})
    parts: list[tuple[str, dict]] = [("main", base)]
    for i, p in enumerate(raw_parts):
        key = f"part[{i}]"
        if not isinstance(p, Mapping):
            raise _fail(src, key, "must be a table.")
        _unknown(src, key, p, PART_KEYS)
        pname = p.get("name")
        if not isinstance(pname, str) or not re.fullmatch(r"[A-Za-z0-9_\-]+", pname):
            raise _fail(src, f"{key}.name", f"a simple name (letters, digits, _-) is needed; "
                        f"got {pname!r}.")
        if pname in {n for n, _ in parts}:
            raise _fail(src, f"{key}.name", f"duplicate part name {pname!r}.")
        merged = {k: copy.deepcopy(v) for k, v in base.items()
                  if k not in ("datasets", "learners")}
        merged.update({k: copy.deepcopy(v) for k, v in p.items()
                       if k not in ("name", "datasets", "learners", "base_learners")})
        merged["name"] = f"{name}.{pname}"
        raw_ds = p.get("datasets", base.get("datasets"))
        if isinstance(raw_ds, (str, Mapping)):
            raw_ds = [raw_ds]
        merged["datasets"] = [copy.deepcopy(base_ds.get(e, e)) if isinstance(e, str) else e
                              for e in (raw_ds or [])]
        if "learners" in p or "base_learners" in p:
            lr: dict = {}
            for j, n in enumerate(p.get("base_learners", [])):
                if not isinstance(base_lr, Mapping) or n not in base_lr:
                    raise _fail(src, f"{key}.base_learners[{j}]", f"{n!r} is not a learner "
                                "table of the top level.")
                lr[n] = copy.deepcopy(base_lr[n])
            own = p.get("learners", {})
            if not isinstance(own, Mapping):
                raise _fail(src, f"{key}.learners", "must be a table of learner tables.")
            lr.update(copy.deepcopy(dict(own)))
            merged["learners"] = lr
        elif "learners" in base:
            merged["learners"] = copy.deepcopy(base_lr)
        parts.append((pname, merged))
    # expand variants with reference values, check references, validate every part with
    # placeholder values (errors name the file and key before anything runs)
    checked: dict[str, ExperimentSpec] = {}
    out_parts: list[tuple[str, dict]] = []
    earlier: list[str] = []
    for pname, pd_ in parts:
        pd_ = dict(pd_)
        if "learners" in pd_:
            pd_["learners"] = _expand_learner_variants(pd_["learners"])
        key = "" if pname == "main" else f"part {pname!r}: "

        def check(ref, path, _key=key):
            _check_ref(src, ref, f"{_key}{path}", earlier)
            if _is_share(ref):
                return 1
            return _placeholder(ref, checked)

        dummy = _walk(pd_, check)
        checked[pname] = ExperimentSpec.from_dict(dummy, source=src, base_dir=base_dir,
                                                  check_files=check_files)
        out_parts.append((pname, pd_))
        earlier.append(pname)
    report = top.get("report", {})
    if not isinstance(report, Mapping):
        raise _fail(src, "report", "must be a table.")
    _unknown(src, "report", report, REPORT_KEYS)
    check_missing_rank(src, report)
    check_sections(src, report.get("section", []),
                   {m.name for m in checked["main"].metrics}, None,
                   parts=[n for n, _ in out_parts])
    return ExperimentParts(name=name, parts=tuple(out_parts), report=dict(report),
                           source=src, base_dir=base_dir, checked=checked)


def _placeholder(ref: Mapping, checked: Mapping[str, ExperimentSpec]) -> Any:
    """A value of the referenced parameter (of the first matching learner) for checking."""
    spec = checked[ref.get("part", "main")]
    for m in spec.learners:
        if glob_match(m.name, ref["best"]):
            return _param(m.params, ref["param"])
    raise SpecError(f"{spec.source}: best = {ref['best']!r}: no learner of part "
                    f"{ref.get('part', 'main')!r} matches.")


def load_parts(path: str | os.PathLike, *, check_files: bool = True) -> ExperimentParts:
    """Read a multi-part experiment file (also accepts a one-part file); ``check_files``
    as in :func:`parts_from_dict`."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{p}: invalid TOML: {exc}") from None
    ep = parts_from_dict(data, source=str(p), base_dir=str(p.resolve().parent),
                         check_files=check_files)
    object.__setattr__(ep, "text", text)
    return ep


def with_selectors(ep: ExperimentParts, selectors: Mapping[str, Mapping[str, Any]]
                   ) -> ExperimentParts:
    """``ep`` with ``selectors`` (name -> selector table, e.g. ``{"mine": {"method":
    "mypkg.module:MySelector"}}``) appended to the selectors of every part: a user's own
    method run beside every selector of every part (``mlfs benchmark --add-selector``).
    The other cells of each part keep their ids.

    Raises
    ------
    SpecError
        If a name is already a selector of a part.
    """
    parts = []
    for pname, d in ep.parts:
        own = d.get("selectors") or []
        have = list(own) if isinstance(own, Mapping) else [_method_name(m) for m in own]
        for name in selectors:
            if name in have:
                raise SpecError(f"{ep.source}: selector name {name!r} is already taken in "
                                f"part {pname!r}; it has: {', '.join(have)}.")
        if isinstance(own, Mapping):  # [selectors.NAME] tables
            new: Any = {**own, **{n: dict(t) for n, t in selectors.items()}}
        else:
            new = list(own) + [{"name": n, **dict(t)} for n, t in selectors.items()]
        parts.append((pname, dict(d, selectors=new)))
    return dataclasses.replace(ep, parts=tuple(parts))


def keep_selectors(ep: ExperimentParts, names: Sequence[str]) -> ExperimentParts:
    """``ep`` with only the selectors ``names`` in every part (``mlfs benchmark
    --selectors``): a reduced run whose cells are those of the full one.

    Raises
    ------
    SpecError
        If a name is a selector of no part (the message lists them).
    """
    want = set(names)
    have: list[str] = []
    parts = []
    for pname, d in ep.parts:
        own = d.get("selectors") or []
        if isinstance(own, Mapping):
            have += list(own)
            new: Any = {n: t for n, t in own.items() if n in want}
        else:
            have += [_method_name(m) for m in own]
            new = [m for m in own if _method_name(m) in want]
        parts.append((pname, dict(d, selectors=new)))
    bad = sorted(want - set(have))
    if bad or not want:
        raise SpecError(f"--selectors: unknown name(s) {bad}; the experiment has: "
                        f"{', '.join(dict.fromkeys(have))}.")
    return dataclasses.replace(ep, parts=tuple(parts))


def with_time_limit(ep: ExperimentParts, value: Any) -> ExperimentParts:
    """``ep`` with the time limit ``value`` (as the key ``time_limit`` takes it; ``"none"``:
    no limit) in every part (``mlfs benchmark --time-limit``). Cell ids are unchanged.

    Raises
    ------
    SpecError
        If ``value`` is no duration.
    """
    parse_time_limit(ep.source, "time limit", value)  # the message before any work
    return dataclasses.replace(
        ep, parts=tuple((n, dict(d, time_limit=value)) for n, d in ep.parts))


def _method_name(entry: Any) -> str:
    """The name of a selector entry of a list (a string, or a table's ``name``)."""
    return str(entry.get("name", entry.get("method"))) if isinstance(entry, Mapping) else str(
        entry)


def is_multipart(path: str | os.PathLike) -> bool:
    """Whether the TOML file has ``[[part]]`` tables (unreadable files: ``False``; the
    single-part loader then reports the problem)."""
    try:
        with open(path, "rb") as fh:
            return "part" in tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError):
        return False


