"""Experiment definition: a TOML file or the equivalent Python dict, validated up front.

Every error names the offending key (``datasets[2].path``, ``protocol.kind``) and the
file, so a typo fails in the first second of a run rather than after hours.
See :func:`ExperimentSpec.from_dict` for the schema.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import json
import math
import numbers
import os
import re
import tomllib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sklearn.base import clone

from .. import datasets as _ds
from .._ids import canonical_json, short_hash
from .._validation import budget_grid, resolve_n_features
from ..datasets import data_home, registry_key
from ..metrics import METRICS, get_metric, metric_name
from ..model_selection import (
    Split,
    holdout_splits,
    iterative_kfold_splits,
    kfold_splits,
    mat_splits,
    subsample_train,
    train_test_split_of,
)
from ..selection import get_selector_tags
from ._build import (
    _TUNING_KEYS,
    _our_metric,
    build_method,
    check_tuning_grid,
    expand_variants,
    parse_options,
    parse_tuning,
    tuned,
    tuned_selector,
)
from ._registry import param_names, resolve, resolve_section

__all__ = [
    "DatasetSpec",
    "ExperimentSpec",
    "MethodSpec",
    "MetricRef",
    "ProtocolSpec",
    "SpecError",
    "canonical_json",
    "load_experiment",
    "parse_n_features",
    "resolve_n_features_grid",
]


class SpecError(ValueError):
    """An experiment definition is invalid; the message names the file and the key."""


def _fail(source: str, key: str, msg: str) -> SpecError:
    return SpecError(f"{source}: {key}: {msg}")


# --------------------------------------------------------------------------- identity


# --------------------------------------------------------------------------- budgets
def parse_n_features(value: Any, key: str = "n_features_to_select") -> tuple:
    """Read a budget grid (``n_features_to_select`` of an experiment) into its single
    budgets: :func:`skmlfs._validation.budget_grid`, with its errors raised as
    :class:`SpecError`.

    Accepted forms (and lists of them, whose budgets are united):

    * ``"ceil_sqrt"`` (alias ``"sqrt"``): ``⌈√|W|⌉`` with ``|W|`` the number of patterns
      of the whole dataset (SCLS §4.1); ``"round_sqrt"``: ``round(√|W|)``;
    * an int ``k ≥ 1``: ``k`` features;
    * ``"P%"`` or a float in ``(0, 1]``: ``⌈P/100 · |F|⌉`` features (at least 1);
    * ``"A..B"`` / ``"A..B:S"``: counts ``A, A+S, …, B``; ``"A%..B%"`` / ``"A%..B%:S%"``:
      percentages (RLEFS: ``"1%..20%"`` = 1 %, 2 %, …, 20 %); ``S`` defaults to 1;
    * ``"all"``: every feature.

    Each budget returned is a value a selector's ``n_features_to_select`` takes.

    Raises
    ------
    SpecError
        Naming ``key`` and the accepted forms.
    """
    try:
        return tuple(budget_grid(value, key))
    except ValueError as exc:
        raise SpecError(str(exc)) from None


def resolve_n_features_grid(budgets: Sequence[Any], n_samples: int, n_features: int) -> list[int]:
    """The sorted distinct feature counts of ``budgets`` (:func:`parse_n_features`), each
    resolved by :func:`skmlfs._validation.resolve_n_features` — the selectors' own
    resolution, in ``fit`` — and so capped at ``n_features``."""
    return sorted({resolve_n_features(b, n_samples, n_features, warn=False) for b in budgets})


def _budget_key(source: str, key: str, table: Mapping) -> Any:
    """The budget grid of an experiment, dataset or selector table: its
    ``n_features_to_select``, or the former key ``n_features`` (deprecated, with a
    ``FutureWarning``); ``None`` when neither is set."""
    prefix = f"{key}." if key else ""
    if "n_features" in table:
        if "n_features_to_select" in table:
            raise _fail(source, f"{prefix}n_features", "the former name of "
                        "'n_features_to_select'; give only 'n_features_to_select'.")
        warnings.warn(
            f"{source}: {prefix}n_features is renamed n_features_to_select (the selectors' "
            "parameter); the old key will be removed in a future release.",
            FutureWarning, stacklevel=4,
        )
        return table["n_features"]
    return table.get("n_features_to_select")


# --------------------------------------------------------------------------- pieces
@dataclass(frozen=True, eq=False)
class MethodSpec:
    """A selector or learner: display ``name``, registry name or ``module:Class``, params.

    ``prototype`` (Python use only) is an estimator instance that is cloned instead of
    building ``method(**params)``.
    """

    name: str
    method: str
    params: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "selector"
    prototype: Any = None
    #: nested tuning (``tune``/``inner_cv``/``scoring`` of the table, see
    #: :func:`skmlfs.experiments._build.parse_tuning`): the built estimator is searched
    #: by ``GridSearchCV`` on the training part of each split
    tuning: Mapping[str, Any] | None = None
    #: method options (``preprocess``, ``feature_order``, ``by_dataset``, ...), see
    #: :mod:`skmlfs.experiments._tuning`; ``budgets = "refit"`` is set by the planner for
    #: a selector refitted per budget (never by an experiment file)
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_estimator(cls, name: str, estimator: Any, kind: str = "selector") -> MethodSpec:
        klass = type(estimator)
        return cls(
            name=name,
            method=f"{klass.__module__}:{klass.__qualname__}",
            params=dict(estimator.get_params(deep=False)),
            kind=kind,
            prototype=estimator,
        )

    def estimator_class(self) -> type:
        if self.prototype is not None:
            return type(self.prototype)
        return resolve(self.kind, self.method)

    def selector_tags(self) -> Any:
        """The :class:`~skmlfs.selection.SelectorTags` of the method's estimator, with its
        parameters (a tuned selector: those of the selector it tunes)."""
        return get_selector_tags(dataclasses.replace(self, tuning=None).build())

    @property
    def selects_all(self) -> bool:
        """The no-selection reference (``SelectorTags.selects_all_features``)."""
        return bool(self.selector_tags().selects_all_features)

    def build(self, **defaults: Any) -> Any:
        """A fresh estimator; ``defaults`` are set when the estimator has that parameter
        (``n_features_to_select`` always, ``random_state`` only when left at ``None``).
        The option ``seed_offset`` is added to the default ``random_state`` (nested
        estimators and a tuned method's inner cross-validation included)."""
        nominal = defaults.pop("nominal_columns", None)  # for categorical_features="nominal"
        offset = (self.options or {}).get("seed_offset")
        if offset is not None and defaults.get("random_state") is not None:
            defaults["random_state"] = int(defaults["random_state"]) + int(offset)
        est = clone(self.prototype) if self.prototype is not None else build_method(
            self.method, self.params, self.kind, key=self.name,
            random_state=defaults.get("random_state"), validate=False, nominal=nominal,
        )
        have = est.get_params(deep=False)
        upd = {}
        for k, v in defaults.items():
            if k not in have:
                continue
            if k == "random_state" and have[k] is not None:
                continue
            upd[k] = v
        if upd:
            est.set_params(**upd)
        if self.tuning and self.kind == "selector":
            est = tuned_selector(est, self.tuning, defaults.get("random_state"))
        elif self.tuning:
            est = tuned(est, self.tuning, defaults.get("random_state"))
        return est

    def identity(self) -> dict:
        method = self.method.lower() if ":" not in self.method else self.method
        # ``verbose`` only prints progress: never part of what a cell computed
        params = {k: v for k, v in self.params.items() if k != "verbose"}
        out = {"method": method, "params": json.loads(canonical_json(params))}
        if self.tuning:  # only when set: ids of untuned methods are unchanged
            out["tuning"] = json.loads(canonical_json(dict(self.tuning)))
        if self.options:  # likewise
            out["options"] = json.loads(canonical_json(dict(self.options)))
        return out


@dataclass(frozen=True, eq=False)
class MetricRef:
    """A metric column: display ``name``, registered ``metric`` and keyword ``params``."""

    name: str
    metric: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def spec(self):
        return get_metric(self.metric)

    def key(self) -> str:
        """Key of the value in a stored cell: ``name``, plus ``@`` and a hash of the
        registered metric and its parameters unless the column is a registered metric
        without parameters (so changing a parameter under the same name recomputes the
        value instead of reusing the stale one; plain metrics keep their bare name)."""
        if self.name == self.metric and not self.params:
            return self.name
        return f"{self.name}@{short_hash({'metric': self.metric, 'params': dict(self.params)})}"


@dataclass(frozen=True)
class ProtocolSpec:
    """How a dataset is split: ``holdout`` (repeats, test_size), ``kfold`` (k; with
    ``stratification = "iterative"`` the folds of Sechidis et al. 2011), ``mat`` (the first
    ``n_splits`` stored ``sim_seq`` masks) or ``train_test`` (the dataset's own train/test
    parts, e.g. Mulan's ``-train``/``-test`` files: one split). ``seed``, when set, seeds
    the splits instead of the experiment's seed (estimators keep the experiment's)."""

    kind: str = "holdout"
    repeats: int = 10
    test_size: float = 0.2
    k: int = 5
    n_splits: int | None = 10
    stratification: str = "none"
    seed: int | None = None
    #: train on this fraction of each split's training part (a training-size axis); the
    #: subsets of one split are nested (prefixes of one seeded permutation)
    train_fraction: float | None = None

    def identity(self) -> dict:
        if self.kind == "holdout":
            out = {"kind": "holdout", "repeats": self.repeats, "test_size": self.test_size}
        elif self.kind == "kfold":
            out = {"kind": "kfold", "k": self.k}
            if self.stratification != "none":  # unchanged ids for plain k-fold
                out["stratification"] = self.stratification
        else:
            out = {"kind": self.kind}
        if self.seed is not None and self.kind in ("holdout", "kfold"):
            out["seed"] = self.seed
        if self.train_fraction is not None:
            out["train_fraction"] = self.train_fraction
        return out

    def label(self) -> str:
        base = self._label()
        if self.train_fraction is not None:
            base += f", {self.train_fraction:.0%} of each training part"
        return base

    def _label(self) -> str:
        if self.kind == "holdout":
            return f"holdout {self.repeats} x {1 - self.test_size:.0%}/{self.test_size:.0%}"
        if self.kind == "kfold":
            strat = ", iterative stratification" if self.stratification == "iterative" else ""
            return f"{self.k}-fold CV{strat}"
        if self.kind == "mat":
            return f"stored sim_seq splits (first {self.n_splits})"
        return "given train/test parts"

    def splits(self, dataset: Any, n: int, seed: int | None) -> list[Split]:
        out = self._splits(dataset, n, seed)
        if self.train_fraction is None:
            return out

        s = self.seed if self.seed is not None else seed
        return [subsample_train(sp_, self.train_fraction, (s or 0, i))
                for i, sp_ in enumerate(out)]

    def _splits(self, dataset: Any, n: int, seed: int | None) -> list[Split]:
        if self.seed is not None:
            seed = self.seed
        if self.kind == "holdout":
            return holdout_splits(n, self.repeats, self.test_size, random_state=seed)
        if self.kind == "kfold":
            if self.stratification == "iterative":
                Y = dataset[1] if isinstance(dataset, tuple) else getattr(dataset, "Y", None)
                return iterative_kfold_splits(Y, self.k, random_state=seed)
            return kfold_splits(n, self.k, random_state=seed)
        if self.kind == "mat":
            return mat_splits(dataset, self.n_splits)
        return train_test_split_of(dataset)

    @staticmethod
    def default_kind(dataset: Any) -> str:
        """``"mat"`` when ``dataset`` stores its own splits (PLCFS ``sim_seq``), else
        ``"holdout"``: the protocol a dataset is evaluated with unless one is chosen."""
        return "mat" if getattr(dataset, "split_masks", None) is not None else "holdout"


@dataclass(frozen=True, eq=False)
class DatasetSpec:
    """One dataset of the grid and how it is read, split and discretized.

    Exactly one source: ``path`` (file; relative paths are looked up beside the experiment
    file, then under ``$MLFS_DATASETS``), ``load`` (a name for
    :func:`skmlfs.datasets.load_name`, e.g. ``"emotions"`` or ``"plcfs/enron"``), or
    ``generator`` (``"module:function"`` called with ``params``, returning a dataset or an
    ``(X, Y)`` pair). ``name`` is the display name used in tables and figures; ``options``
    are keyword arguments of the loader (e.g. ``label_copies = "drop"`` for ``.mat`` files).
    """

    name: str
    path: str | None = None
    generator: str | None = None
    load_name: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    use_discretized: bool = False
    discretizer: Any = "none"
    protocol: ProtocolSpec | None = None
    n_features: tuple | None = None
    base_dir: str | None = None
    #: separate training and test files (``train``/``test`` keys): read as one dataset
    #: whose ``part`` marks the test rows (protocol ``train_test``)
    train_test: tuple[str, str] | None = None

    def identity(self) -> dict:
        src: dict[str, Any]
        if self.generator is not None:
            src = {"generator": self.generator, "params": json.loads(canonical_json(self.params))}
        elif self.train_test is not None:
            src = {"train": self.train_test[0], "test": self.train_test[1]}
        elif self.path is not None:
            src = {"path": self.path}
        else:
            src = {"load": self.load_name}
        if self.options:
            src["options"] = json.loads(canonical_json(self.options))
        return {
            "name": self.name,
            "source": src,
            "use_discretized": bool(self.use_discretized),
            "discretizer": json.loads(canonical_json(self.discretizer)),
        }

    def resolved_path(self, path: str | None = None) -> Path:
        p = Path(os.path.expanduser(path or self.path))
        if p.is_absolute():
            if p.exists():
                return p
            raise FileNotFoundError(f"dataset {self.name!r}: file {p} does not exist.")
        tried = []
        if self.base_dir is not None:
            cand = Path(self.base_dir) / p
            tried.append(str(cand))
            if cand.exists():
                return cand

        root = os.environ.get("MLFS_DATASETS")
        # $MLFS_DATASETS, then the download cache of `mlfs fetch` (same layout).
        for base in ([Path(root)] if root else []) + [data_home()]:
            cand = base / p
            tried.append(str(cand))
            if cand.exists():
                return cand
        hint = "" if root else " (MLFS_DATASETS is not set)"
        key = registry_key(str(p.with_suffix(""))) if p.suffix.lower() == ".mat" else None
        if key is not None and key.startswith("plcfs/") and p.parts[0] == "plcfs":
            hint += f"; download it with `mlfs fetch {key}`"
        raise FileNotFoundError(
            f"dataset {self.name!r}: {path or self.path!r} not found; tried "
            f"{', '.join(tried) or '-'}{hint}."
        )

    def load(self) -> Any:
        """Read the dataset (a ``MultiLabelDataset``, or whatever the generator returns)."""
        if self.generator is not None:
            module, _, attr = self.generator.partition(":")

            fn = getattr(importlib.import_module(module), attr)
            return fn(**dict(self.params))

        opts = dict(self.options)
        if self.train_test is not None:
            tr, te = (self.resolved_path(x) for x in self.train_test)
            return _ds.load([tr, te], **opts)
        if self.path is not None:
            p = self.resolved_path()
            if p.suffix.lower() == ".mat":
                return _ds.load_mat(p, **opts)
            return _ds.load(p, **opts)
        return _ds.load_name(self.load_name, **opts)


# --------------------------------------------------------------------------- experiment
_TOP_KEYS = {
    "name",
    "description",
    "seed",
    "datasets",
    "selectors",
    "learners",
    "protocol",
    "n_features_to_select",
    "n_features",  # the former name of n_features_to_select (deprecated)
    "metrics",
    "discretizer",
    "use_discretized",
    "report",
    "train_fractions",
    "estimator_seed",
    "time_limit",
}
#: keys of ``[report]``; what one paper needs is an option of its section
#: (``[[report.section]]``, resolved through ``_registry.SECTIONS`` or "module:Class")
_REPORT_KEYS = {"title", "control", "decimals", "alpha", "columns", "missing_rank",
                "section"}
#: the ``[report]`` options a later ``mlfs report STORE`` reads back from the store
STORED_REPORT_KEYS = ("alpha", "decimals", "columns", "title", "missing_rank")
_P = "skmlfs.experiments.report.papers:"
#: keys of ``[report]`` before 0.2.0 -> the section that took them over (for the message)
_FORMER_REPORT_KEYS = {
    "optimised": _P + "FoldOptimised", "choose": _P + "ChosenParameter",
    "pairs": _P + "ChosenParameter", "paper": _P + "PaperValues",
    "over_budgets": _P + "OverBudgets", "reference": _P + "ReferenceMethods",
    "versus": _P + "Versus", "seeds": _P + "SeedRobustness", "records": _P + "SearchRecords",
    "ablation": _P + "Ablation", "stability": "stability", "include": "include",
}
_DATASET_KEYS = {
    "name",
    "load",
    "path",
    "generator",
    "params",
    "options",
    "use_discretized",
    "discretizer",
    "protocol",
    "n_features_to_select",
    "n_features",  # the former name of n_features_to_select (deprecated)
    "train",
    "test",
    "train_fractions",
}
_PROTOCOL_KEYS = {"kind", "repeats", "test_size", "k", "n_splits", "stratification", "seed"}
DEFAULT_METRICS = ("hamming_loss", "ranking_loss", "normalized_coverage")


def _unknown(source: str, key: str, got: Mapping, allowed: set) -> None:
    for k in got:
        if k not in allowed:
            near = difflib.get_close_matches(str(k), sorted(allowed), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise _fail(
                source,
                f"{key}.{k}" if key else str(k),
                f"unknown key{hint}; allowed: {', '.join(sorted(allowed))}.",
            )


def _int(source, key, v, minimum=None, allow_none=False):
    if v is None and allow_none:
        return None
    if not isinstance(v, numbers.Integral) or isinstance(v, bool):
        raise _fail(source, key, f"must be an integer; got {v!r}.")
    if minimum is not None and v < minimum:
        raise _fail(source, key, f"must be >= {minimum}; got {v}.")
    return int(v)


_UNITS = {"s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}


def parse_time_limit(source: str, key: str, v: Any) -> float | None:
    """Seconds of a time limit: a positive number of seconds, or a string with a unit
    (``"90 s"``, ``"30 min"``, ``"2 h"``); ``None`` or ``"none"``: no limit."""
    if v is None or (isinstance(v, str) and v.strip().lower() == "none"):
        return None
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        sec = float(v)
    elif isinstance(v, str) and (m := re.fullmatch(
            r"\s*(\d+(?:\.\d*)?)\s*(s|sec|min|h)\s*", v.strip().lower())):
        sec = float(m.group(1)) * _UNITS[m.group(2)]
    else:
        raise _fail(source, key, "must be a number of seconds or a duration such as "
                    f"\"90 s\", \"30 min\", \"2 h\"; got {v!r}.")
    if not math.isfinite(sec) or sec <= 0:
        raise _fail(source, key, f"must be positive; got {v!r}.")
    return sec


def _parse_protocol(source: str, key: str, value: Any) -> ProtocolSpec:
    if isinstance(value, str):
        value = {"kind": value}
    if not isinstance(value, Mapping):
        raise _fail(source, key, f"must be a table or a kind string; got {value!r}.")
    _unknown(source, key, value, _PROTOCOL_KEYS)
    kind = value.get("kind", "holdout")
    if kind not in ("holdout", "kfold", "mat", "train_test"):
        raise _fail(
            source,
            f"{key}.kind",
            f"must be 'holdout', 'kfold', 'mat' or 'train_test'; got {kind!r}.",
        )
    repeats = _int(source, f"{key}.repeats", value.get("repeats", 10), 1)
    ts = value.get("test_size", 0.2)
    if not isinstance(ts, numbers.Real) or isinstance(ts, bool) or not 0 < ts < 1:
        raise _fail(source, f"{key}.test_size", f"must be a fraction in (0, 1); got {ts!r}.")
    if kind == "kfold" and "k" not in value and "n_splits" in value:
        k = _int(source, f"{key}.n_splits", value["n_splits"], 2)  # sklearn's name for k
    else:
        k = _int(source, f"{key}.k", value.get("k", 5), 2)
    n_splits = _int(source, f"{key}.n_splits", value.get("n_splits", 10), 1, allow_none=True)
    strat = value.get("stratification", "none")
    if strat not in ("none", "iterative"):
        raise _fail(
            source, f"{key}.stratification",
            f"must be 'none' or 'iterative' (Sechidis et al. 2011); got {strat!r}.",
        )
    if strat != "none" and kind != "kfold":
        raise _fail(
            source, f"{key}.stratification",
            f"iterative stratification is a k-fold protocol; kind is {kind!r} (use "
            "kind = 'kfold').",
        )
    pseed = _int(source, f"{key}.seed", value.get("seed"), 0, allow_none=True)
    return ProtocolSpec(kind, repeats, float(ts), k, n_splits, strat, pseed)


def _parse_discretizer(source: str, key: str, value: Any) -> Any:
    if value is None or value is False:
        return "none"
    if isinstance(value, str):
        if value in ("auto", "none"):
            return value
        try:
            resolve("discretizer", value)
        except ValueError as exc:
            raise _fail(source, key, f"{exc} Use 'auto' or 'none' otherwise.") from None
        return value
    if isinstance(value, Mapping):
        if "method" not in value:
            raise _fail(source, key, "a discretizer table needs a 'method' key.")
        try:
            resolve("discretizer", value["method"])
        except ValueError as exc:
            raise _fail(source, f"{key}.method", str(exc)) from None
        return {str(k): v for k, v in value.items()}
    if hasattr(value, "fit") and hasattr(value, "transform"):
        return value
    raise _fail(source, key, f"must be 'auto', 'none', a name or a table; got {value!r}.")


def _own_budgets(source: str, key: str, body: Any) -> Any:
    """A selector table with its own budgets (``n_features_to_select``, or the former
    ``n_features``): the grid kept as the option ``n_features``, the name that enters the
    selector's identity, so that stored cell ids stay as they were."""
    if not isinstance(body, Mapping):
        return body
    budgets = _budget_key(source, key, body)
    body = {k: v for k, v in body.items() if k != "n_features_to_select"}
    if budgets is not None:
        body["n_features"] = budgets
    return body


def parse_methods(source: str, key: str, value: Any, kind: str) -> tuple[MethodSpec, ...]:
    """Accept ``["a", "b"]``, ``{name: params-table | estimator | str}`` or ``[{name=..}]``."""
    items: list[tuple[str, str, Any]] = []  # (key path, name, body)
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping):
        for name, body in value.items():
            items.append((f"{key}.{name}", str(name), body))
    elif isinstance(value, Sequence):
        for i, body in enumerate(value):
            if isinstance(body, str):
                items.append((f"{key}[{i}]", body, {}))
            elif isinstance(body, Mapping):
                if "name" not in body and "method" not in body:
                    raise _fail(source, f"{key}[{i}]", "needs a 'name' (or 'method') key.")
                nm = str(body.get("name", body.get("method")))
                items.append((f"{key}[{i}]", nm, {k: v for k, v in body.items() if k != "name"}))
            elif hasattr(body, "get_params"):
                items.append((f"{key}[{i}]", type(body).__name__.lower(), body))
            else:
                raise _fail(source, f"{key}[{i}]", f"expected a name or a table; got {body!r}.")
    else:
        raise _fail(source, key, f"expected a list or a table of {kind}s; got {value!r}.")
    if not items:
        raise _fail(source, key, f"at least one {kind} is needed.")

    if kind == "selector":
        items = [(kp, name, _own_budgets(source, kp, body)) for kp, name, body in items]
    expanded: list[tuple[str, str, Any]] = []
    for kp, name, body in items:
        if isinstance(body, Mapping) and "variants" in body:
            try:
                expanded.extend((kp, n, b) for n, b in expand_variants(name, body, kp))
            except ValueError as exc:
                raise SpecError(f"{source}: {exc}") from None
        else:
            expanded.append((kp, name, body))
    items = expanded
    out: list[MethodSpec] = []
    seen: set[str] = set()
    for kp, name, body in items:
        if name in seen:
            raise _fail(source, kp, f"duplicate {kind} name {name!r}.")
        seen.add(name)
        if hasattr(body, "get_params") and not isinstance(body, type):
            spec = MethodSpec.from_estimator(name, body, kind)
        else:
            if isinstance(body, str):
                body = {"method": body}
            if not isinstance(body, Mapping):
                raise _fail(source, kp, f"expected a table of parameters; got {body!r}.")
            body = dict(body)
            method = body.pop("method", name)
            params = body.pop("params", {})
            if not isinstance(params, Mapping):
                raise _fail(source, f"{kp}.params", "must be a table.")
            try:
                options = parse_options(body, kp, kind, sorted(_TUNING_KEYS))
                if "n_features" in options:
                    parse_n_features(options["n_features"], f"{kp}.n_features_to_select")
                tuning = parse_tuning(body, kp)
            except ValueError as exc:
                raise SpecError(f"{source}: {exc}") from None
            for k in _TUNING_KEYS:
                body.pop(k, None)
            if tuning and kind == "selector" and "tune_with" not in tuning:
                raise _fail(source, f"{kp}.tune_with", "a tuned selector needs the learner "
                            "that scores its candidates: tune_with = { method = ... }.")
            if tuning and kind == "learner" and "tune_with" in tuning:
                raise _fail(source, f"{kp}.tune_with", "only for selectors (a learner is "
                            "scored by itself).")
            params = {**params, **body}
            spec = MethodSpec(
                name=name, method=str(method), params=params, kind=kind, tuning=tuning,
                options=options,
            )
        try:
            cls = spec.estimator_class()
        except ValueError as exc:
            raise _fail(source, kp, str(exc)) from None
        if spec.prototype is None:
            try:
                valid = param_names(cls)
            except Exception:  # noqa: BLE001 — a class without defaults: checked at build
                valid = None
            if valid is not None:
                for p in spec.params:
                    if p not in valid:
                        near = difflib.get_close_matches(p, sorted(valid), n=1)
                        hint = f" (did you mean {near[0]!r}?)" if near else ""
                        raise _fail(
                            source,
                            f"{kp}.{p}",
                            f"{cls.__name__} has no parameter {p!r}{hint}; "
                            f"valid: {', '.join(sorted(valid))}.",
                        )
        if spec.prototype is None and (
            spec.tuning or spec.method == "pipeline"
            or any(isinstance(v, Mapping) for v in spec.params.values())
        ):
            # nested method tables and tuning grids: build once now so that a wrong name
            # or parameter fails before the run, with its key path
            try:
                est = build_method(spec.method, spec.params, kind, key=kp)
                if spec.tuning:
                    check_tuning_grid(est, spec.tuning, kp)
                    if spec.tuning.get("tune_with", "learner") != "learner":
                        tw = dict(spec.tuning["tune_with"])
                        build_method(str(tw.pop("method")), tw, "learner",
                                     key=f"{kp}.tune_with")
            except (ValueError, TypeError) as exc:
                raise SpecError(f"{source}: {exc}") from None
        if kind == "selector" and "n_features_to_select" in spec.params:
            raise _fail(
                source,
                f"{kp}.n_features_to_select",
                "is the experiment's budget grid (one ranking per split serves every "
                "budget): set n_features_to_select in the selector's table, not in its "
                "params.",
            )
        out.append(spec)
    return tuple(out)


def metric_ref(m: Any) -> MetricRef | None:
    """A metric column from a name or a table (``metric``, ``name``, ``params`` and further
    keys as parameters); ``None`` for anything else. The metric is not looked up here."""
    if isinstance(m, MetricRef):
        return m
    if isinstance(m, str):
        m = _our_metric(m)  # scikit-learn's spellings name our column (f1_micro: micro_f1)
        return MetricRef(m, m, {})
    if isinstance(m, Mapping):
        m = dict(m)
        metric = _our_metric(str(m.pop("metric", m.get("name"))))
        name = m.pop("name", metric)
        params = m.pop("params", {})
        return MetricRef(str(name), metric, {**params, **m})
    return None


def _parse_metrics(source: str, value: Any) -> tuple[MetricRef, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not value:
        raise _fail(source, "metrics", "must be a non-empty list of metric names or tables.")
    out: list[MetricRef] = []
    for i, m in enumerate(value):
        ref = metric_ref(m)
        if ref is None:
            raise _fail(source, f"metrics[{i}]", f"expected a name or a table; got {m!r}.")
        if ref.metric not in METRICS:
            try:
                metric_name(ref.metric)
            except KeyError as exc:
                raise _fail(source, f"metrics[{i}]", str(exc.args[0])) from None
        if ref.name in {r.name for r in out}:
            raise _fail(source, f"metrics[{i}]", f"duplicate metric column {ref.name!r}.")
        out.append(ref)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class ExperimentSpec:
    """A validated experiment: the grid dataset × split × selector × k × learner.

    Build it with :func:`load_experiment` (TOML) or :meth:`from_dict` (Python).
    """

    name: str
    datasets: tuple[DatasetSpec, ...]
    selectors: tuple[MethodSpec, ...]
    learners: tuple[MethodSpec, ...]
    protocol: ProtocolSpec
    n_features: tuple
    metrics: tuple[MetricRef, ...]
    seed: int
    description: str = ""
    source: str = "<dict>"
    text: str = ""
    report: Mapping[str, Any] = field(default_factory=dict)
    #: "seed": estimators get ``seed``; "seed+split": split ``i`` gets ``seed + i``
    estimator_seed: str = "seed"
    #: seconds a task (one selector on one split with its learners) may take, or None;
    #: not part of any id: it decides whether a cell is computed, never its value
    time_limit: float | None = None

    def split_seeds(self, n_splits: int) -> list[int] | None:
        """Per-split random_state of the estimators (``None``: the experiment's seed)."""
        if self.estimator_seed == "seed+split":
            return [self.seed + i for i in range(n_splits)]
        return None

    @classmethod
    def from_dict(
        cls, d: Mapping[str, Any], *, source: str = "<dict>", base_dir: str | None = None,
        check_files: bool = True,
    ) -> ExperimentSpec:
        """Validate an experiment given as a mapping (the parsed TOML, or built in Python).

        ``check_files=False`` leaves out the check that each dataset's file exists: a
        report is written from the store alone, on a machine without the data.

        Schema (TOML shown; every key optional except ``datasets`` and ``selectors``)::

            name = "scls_paper"            # default: the file name
            seed = 0                       # splits and every random_state left at None
            n_features_to_select = "ceil_sqrt"  # or 20, "10%", [5, 10, 20], "1%..20%", ...
            metrics = ["hamming_loss", "ranking_loss", "normalized_coverage"]
            # or tables: { name = "rl_zh", metric = "ranking_loss", convention = "zhang" }
            discretizer = "none"           # default of every dataset: none|auto|laim|...
            use_discretized = false        # default of every dataset (.mat data_dis)
            selectors = ["scls", "ami"]    # or [selectors.mdmr_i] method = "mdmr" variant = ..
            learners = ["mlnb"]            # default ["mlnb"]; same forms as selectors
            estimator_seed = "seed"        # or "seed+split": split i seeds estimators seed + i
            train_fractions = [0.5, 1.0]   # training-size axis: one dataset entry per fraction
            time_limit = "30 min"          # per task (selector x split); stopped tasks are
                                           # failures, not retried under the same limit

            [learners.wf]                  # method tables may nest estimators ...
            method = "weighted"            # ... (skmlfs.experiments._build): "weighted",
            weighter = { method = "relieff_ml" }   # "pipeline" (steps = [...]), or any
            learner = { method = "mlknn" }         # parameter given as { method = ... }
            variants = { "weighter__k+learner__k" = [5, 10] }  # one method per value
            tune = { "learner__s" = [0.5, 1.0] }   # GridSearchCV on the training part
            inner_cv = { k = 5, stratification = "iterative" }  # or an int
            scoring = "hamming_loss"       # chosen params + inner scores stored per cell
            tune_search = "grid"           # or "coordinate" (+ tune_start = {...})
                                           # a selector table with tune also needs
                                           # tune_with = { method = ... } (its scorer)

            [protocol]                     # default holdout, 10 repeats, test_size 0.2
            kind = "holdout"               # "holdout" | "kfold" (k = 5) | "mat" (n_splits = 10)
                                           # | "train_test" (the dataset's -train/-test parts)
            stratification = "none"        # kfold only: "iterative" (Sechidis et al. 2011)
            seed = 2013                    # optional: seeds the splits instead of `seed`

            [report]                       # optional
            control = "scls"               # Bonferroni-Dunn CD against it (default Nemenyi)
            columns = "selectors"          # or "learners": compare the learner variants
            decimals = 3                   # printed decimals (ranks use printed values)

            [[datasets]]                   # or datasets = ["emotions", "plcfs/enron.mat"]
            name = "enron"                 # display name
            path = "plcfs/enron.mat"       # or load = "plcfs/enron" (skmlfs.datasets.load_name)
                                           # or generator = "module:function" + params = {...}
                                           # or train = "...-train.arff", test = "...-test.arff"
            protocol = "mat"               # per-dataset override (string or table)
            use_discretized = true         # the .mat file's X_discrete (data_dis)
            discretizer = "laim"           # per-dataset override
            n_features_to_select = 50      # per-dataset override (also per selector table)

        In Python, ``selectors``/``learners`` may also map names to estimator instances.
        """
        src = source
        if not isinstance(d, Mapping):
            raise SpecError(f"{src}: the experiment must be a table; got {type(d).__name__}.")
        _unknown(src, "", d, _TOP_KEYS)
        name = d.get("name")
        if name is None:
            name = Path(src).stem if src != "<dict>" else "experiment"
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
            raise _fail(src, "name", f"must be a simple name (letters, digits, _.-); got {name!r}.")
        seed = _int(src, "seed", d.get("seed", 0), 0)
        protocol = _parse_protocol(src, "protocol", d.get("protocol", {}))
        try:
            budgets = _budget_key(src, "", d)
            n_features = parse_n_features("ceil_sqrt" if budgets is None else budgets)
        except SpecError as exc:
            raise SpecError(f"{src}: {exc}") from None
        metrics = _parse_metrics(src, d.get("metrics", list(DEFAULT_METRICS)))
        default_disc = _parse_discretizer(src, "discretizer", d.get("discretizer", "none"))
        default_use = d.get("use_discretized", False)
        if not isinstance(default_use, bool):
            raise _fail(src, "use_discretized", f"must be true or false; got {default_use!r}.")
        if "selectors" not in d:
            raise _fail(src, "selectors", "missing; list the selection methods to compare.")
        selectors = parse_methods(src, "selectors", d["selectors"], "selector")
        learners = parse_methods(src, "learners", d.get("learners", ["mlnb"]), "learner")
        default_fractions = d.get("train_fractions")
        est_seed = d.get("estimator_seed", "seed")
        if est_seed not in ("seed", "seed+split"):
            raise _fail(
                src, "estimator_seed",
                f"must be 'seed' (every estimator gets the experiment's seed) or 'seed+split' "
                f"(split i gets seed + i); got {est_seed!r}.",
            )
        if "datasets" not in d:
            raise _fail(src, "datasets", "missing; list at least one dataset.")
        raw = d["datasets"]
        if isinstance(raw, (str, Mapping)):
            raw = [raw]
        if not isinstance(raw, Sequence) or not raw:
            raise _fail(src, "datasets", "must be a non-empty list.")
        datasets: list[DatasetSpec] = []
        for i, ds in enumerate(raw):
            key = f"datasets[{i}]"
            spec = _parse_dataset(src, key, ds, default_use, default_disc, base_dir,
                                  check_files)
            if spec.name in {x.name for x in datasets}:
                raise _fail(
                    src, f"{key}.name", f"duplicate dataset name {spec.name!r}; set distinct "
                    "'name's."
                )
            fr = ds.get("train_fractions", default_fractions) if isinstance(ds, Mapping) \
                else default_fractions
            datasets.extend(_with_fractions(src, f"{key}.train_fractions", spec, fr,
                                            protocol))
        desc = d.get("description", "")
        known = {m.name for m in selectors} | {m.name.split("[", 1)[0] for m in selectors}
        for m in learners:
            bad = set((m.options or {}).get("selectors", ())) - known
            if bad:
                raise _fail(src, f"learners.{m.name}.selectors",
                            f"no selector named {', '.join(sorted(bad))}.")
        report = _parse_report(src, d.get("report", {}), metrics, selectors, learners,
                               base_dir)
        limit = parse_time_limit(src, "time_limit", d.get("time_limit"))
        return cls(
            name=name,
            datasets=tuple(datasets),
            selectors=selectors,
            learners=learners,
            protocol=protocol,
            n_features=n_features,
            metrics=metrics,
            seed=seed,
            description=str(desc),
            source=src,
            report=report,
            estimator_seed=est_seed,
            time_limit=limit,
        )

    def stored_text(self) -> str:
        """What a run stores of the experiment (``experiment:<name>``): the file's text,
        or for an experiment built in Python its source and the report options a later
        report reads back (:data:`STORED_REPORT_KEYS`)."""
        if self.text:
            return self.text
        return canonical_json({"source": self.source, "report": {
            k: self.report[k] for k in STORED_REPORT_KEYS if k in self.report}})

    def protocol_of(self, ds: DatasetSpec) -> ProtocolSpec:
        return ds.protocol or self.protocol

    def n_features_of(self, ds: DatasetSpec) -> tuple:
        return ds.n_features or self.n_features


def _parse_report(
    src: str, report: Any, metrics: tuple, selectors: tuple, learners: tuple,
    base_dir: str | None,
) -> dict:
    """The ``[report]`` table, checked against the experiment's metrics and methods."""
    if not isinstance(report, Mapping):
        raise _fail(src, "report", "must be a table.")
    for k in report:
        if k in _FORMER_REPORT_KEYS:  # moved out of the core schema in 0.2.0
            raise _fail(src, f"report.{k}", "now a report section: [[report.section]] with "
                        f"kind = \"{_FORMER_REPORT_KEYS[k]}\" and the former keys as its "
                        "options (docs/experiment_file.md#report).")
    _unknown(src, "report", report, _REPORT_KEYS)
    if report.get("columns", "selectors") not in ("selectors", "learners"):
        raise _fail(src, "report.columns", "must be 'selectors' or 'learners'.")
    check_missing_rank(src, report)
    if "decimals" in report and (isinstance(report["decimals"], bool) or not isinstance(
            report["decimals"], int) or report["decimals"] < 0):
        raise _fail(src, "report.decimals", "a count of decimals (0 or more).")
    report = dict(report)
    report["section"] = check_sections(src, report.get("section", []),
                                       {m.name for m in metrics}, base_dir)
    compared = {m.name for m in
                (learners if report.get("columns") == "learners" else selectors)}
    if "control" in report and report["control"] not in compared:
        raise _fail(
            src, "report.control", f"{report['control']!r} is not one of the compared "
            "methods."
        )
    return report


#: what a method without a value on a data set (failed or stopped on every split) gets in
#: the ranks: "drop" leaves the data set out of the ranks and tests (Demšar's complete
#: blocks); "last" keeps it, the missing methods sharing the last ranks there
MISSING_RANK = ("drop", "last")


def check_missing_rank(src: str, report: Mapping[str, Any]) -> None:
    """``[report] missing_rank``, of a one-grid file or of a file with parts."""
    if report.get("missing_rank", "drop") not in MISSING_RANK:
        raise _fail(src, "report.missing_rank", "must be 'drop' (leave a data set with a "
                    "missing method out of the ranks) or 'last' (rank the method last there).")


def build_sections(tables: Sequence[Mapping[str, Any]], *, source: str = "<report>",
                   metrics: Any = None, parts: Sequence[str] | None = None,
                   key: str = "report.section") -> list[Any]:
    """Section objects from ``[{kind, **options}, ...]`` (checked: errors name
    ``source`` and ``key[i]``). A section class is found by its short name or
    ``"module:Class"`` through the registry, as methods are: the spec does not import the
    report package."""
    out = []
    for i, t in enumerate(tables):
        where = f"{key}[{i}]"
        if not isinstance(t, Mapping):
            raise SpecError(f"{source}: {where}: must be a table.")
        if "kind" not in t:
            raise SpecError(f"{source}: {where}.kind: missing (a section's short name or "
                            "'package.module:Class').")
        try:
            cls = resolve_section(t["kind"])
        except ValueError as exc:
            raise SpecError(f"{source}: {where}.kind: {exc}") from None
        out.append(cls(t, source=source, key=where, metrics=metrics, parts=parts))
    return out


def check_sections(src: str, sections: Any, metrics: set[str], base_dir: str | None, *,
                   parts: Sequence[str] | None = None) -> list[dict]:
    """The ``[[report.section]]`` tables, each checked by constructing its class (short
    name or ``"module:Class"``, imported now: the spec does not import the report
    package), with the ``file`` of ``include`` sections made absolute against
    ``base_dir`` so that ``mlfs report`` on the store alone finds it."""
    if isinstance(sections, Mapping):
        sections = [sections]
    if not isinstance(sections, Sequence) or isinstance(sections, str):
        raise _fail(src, "report.section", "must be an array of tables ([[report.section]]).")
    build_sections(sections, source=src, metrics=metrics, parts=parts)  # raises SpecError
    out = []
    for i, t in enumerate(sections):
        t = dict(t)
        if t.get("kind") == "include" and base_dir is not None:
            p = Path(base_dir) / t["file"]
            if not p.is_file():
                raise _fail(src, f"report.section[{i}].file", f"no file {p}.")
            t["file"] = str(p.resolve())
        out.append(t)
    return out


def _parse_dataset(
    src: str, key: str, ds: Any, default_use: bool, default_disc: Any, base_dir: str | None,
    check_files: bool = True,
) -> DatasetSpec:
    """One ``[[datasets]]`` entry (a name, a path or a table) as a :class:`DatasetSpec`."""
    if isinstance(ds, str):
        is_file = Path(ds).suffix.lower() in (".arff", ".mat")
        ds = {"path": ds} if is_file else {"load": ds}
    if not isinstance(ds, Mapping):
        raise _fail(src, key, f"expected a name, a path or a table; got {ds!r}.")
    _unknown(src, key, ds, _DATASET_KEYS)
    sources = [k for k in ("path", "generator", "load", "train") if ds.get(k) is not None]
    if len(sources) > 1:
        raise _fail(
            src, key, "give only one of 'path', 'load', 'generator' and 'train'/'test'."
        )
    if ("train" in ds) != ("test" in ds):
        raise _fail(src, key, "separate files need both 'train' and 'test'.")
    tt = None
    if "train" in ds:
        for kk in ("train", "test"):
            if not isinstance(ds[kk], str):
                raise _fail(src, f"{key}.{kk}", f"must be a file path; got {ds[kk]!r}.")
        tt = (ds["train"], ds["test"])
    if not sources and not ds.get("name"):
        raise _fail(src, key, "needs 'path', 'load' (a dataset name) or 'generator'.")
    path = ds.get("path")
    gen = ds.get("generator")
    lname = ds.get("load", None if sources else ds.get("name"))
    for kk, vv in (("path", path), ("load", lname)):
        if vv is not None and not isinstance(vv, str):
            raise _fail(src, f"{key}.{kk}", f"must be a string; got {vv!r}.")
    if gen is not None and (not isinstance(gen, str) or ":" not in gen):
        raise _fail(src, f"{key}.generator", f"must be 'module:function'; got {gen!r}.")
    dname = ds.get("name")
    if dname is None:
        if tt:
            dname = re.sub(r"(?i)[-_]?train.*$", "", Path(tt[0]).stem) or "dataset"
        elif path:
            dname = Path(path).stem
        elif gen:
            dname = gen.rpartition(":")[2]
        else:
            dname = lname.rstrip("/").rpartition("/")[2]
    if not isinstance(dname, str) or not re.fullmatch(r"[A-Za-z0-9_.()+\- ]+", dname):
        raise _fail(
            src, f"{key}.name", f"must be a simple name (letters, digits, _.-); "
            f"got {dname!r}."
        )
    params = ds.get("params", {})
    if not isinstance(params, Mapping):
        raise _fail(src, f"{key}.params", "must be a table.")
    options = ds.get("options", {})
    if not isinstance(options, Mapping):
        raise _fail(src, f"{key}.options", "must be a table of loader arguments.")
    use = ds.get("use_discretized", default_use)
    if not isinstance(use, bool):
        raise _fail(src, f"{key}.use_discretized", f"must be true or false; got {use!r}.")
    disc = (
        _parse_discretizer(src, f"{key}.discretizer", ds["discretizer"])
        if "discretizer" in ds
        else default_disc
    )
    prot = None
    if "protocol" in ds:
        prot = _parse_protocol(src, f"{key}.protocol", ds["protocol"])
    nf = None
    budgets = _budget_key(src, key, ds)
    if budgets is not None:
        try:
            nf = parse_n_features(budgets, f"{key}.n_features_to_select")
        except SpecError as exc:
            raise SpecError(f"{src}: {exc}") from None
    spec = DatasetSpec(
        name=dname,
        path=path,
        generator=gen,
        load_name=lname,
        params=dict(params),
        options=dict(options),
        use_discretized=use,
        discretizer=disc,
        protocol=prot,
        n_features=nf,
        base_dir=base_dir,
        train_test=tt,
    )
    if tt is not None and prot is None:
        # separate files mean the given split, whatever the experiment's default
        spec = _replace(spec, protocol=ProtocolSpec(kind="train_test"))
    named = [("path", path)] + ([("train", tt[0]), ("test", tt[1])] if tt else [])
    for kk, pth in named if check_files else ():
        if pth is None:
            continue
        try:
            spec.resolved_path(pth)
        except FileNotFoundError as exc:
            raise _fail(src, f"{key}.{kk}", str(exc)) from None
    return spec


def _replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


def _with_fractions(
    source: str, key: str, ds: DatasetSpec, fractions: Any, default: ProtocolSpec
) -> list[DatasetSpec]:
    """One dataset per training-size fraction (``train_fractions = [0.25, 0.5, 1.0]``):
    ``name (train 0.25)`` with the protocol's ``train_fraction`` set; 1.0 keeps the name."""
    if fractions is None:
        return [ds]
    if isinstance(fractions, numbers.Real) and not isinstance(fractions, bool):
        fractions = [fractions]
    if not isinstance(fractions, Sequence) or not fractions:
        raise _fail(source, key, f"a non-empty list of fractions in (0, 1]; got {fractions!r}.")
    if len({float(f) for f in fractions if isinstance(f, numbers.Real)}) != len(fractions):
        raise _fail(source, key, f"fractions must be distinct; got {list(fractions)!r}.")
    out = []
    for f in fractions:
        if isinstance(f, bool) or not isinstance(f, numbers.Real) or not 0 < f <= 1:
            raise _fail(source, key, f"fractions must lie in (0, 1]; got {f!r}.")
        prot = ds.protocol or default
        if float(f) == 1.0:
            out.append(_replace(ds, protocol=_replace(prot, train_fraction=None)))
            continue
        out.append(
            _replace(ds, name=f"{ds.name} (train {float(f):g})",
                     protocol=_replace(prot, train_fraction=float(f)))
        )
    return out


def load_experiment(path: str | os.PathLike) -> ExperimentSpec:
    """Read and validate an experiment TOML file (see :meth:`ExperimentSpec.from_dict`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"experiment file {p} does not exist.") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{p}: invalid TOML: {exc}") from None
    if "part" in data:  # several grids: skmlfs.experiments._parts.load_parts
        raise SpecError(f"{p}: has [[part]] tables (several grids); read it with "
                        "skmlfs.experiments.load_parts or run it with `mlfs benchmark`.")
    spec = ExperimentSpec.from_dict(data, source=str(p), base_dir=str(p.resolve().parent))
    object.__setattr__(spec, "text", text)
    return spec
