"""The per-cell work, shared by :func:`~skmlfs.experiments.evaluate` and the benchmark runner.

A *cell* is one (dataset, split, selector, k, learner) combination. Cells sharing
(dataset, split, selector) form a :class:`Task`: the split is discretized once, the
selector is fitted once with the largest budget ``k_max`` (or its cached ranking is
reused), and every cell evaluates a prefix ``ranking[:k]`` with each learner. Tasks are
the unit of parallel work; :func:`run_task` never touches the results store, so the same
function runs in-process, in joblib workers and on Dask workers.

What a learner receives (one rule,
``docs/user_guide.md#what-a-learner-receives-after-a-selector``): the
selected columns of the data as the experiment gives it. With the default discretizer
``"none"`` that is the raw data, as in ``make_pipeline(selector, learner)``; a selector's
own discretization (its ``discretizer`` parameter) stays inside the selector. An experiment
that declares a discretizer gets it fitted once per dataset and split on the training part,
*before* selection and learning, so that selectors and learners both see its output, as in
``make_pipeline(discretizer, selector, learner)``: ``"auto"`` keeps integer-valued data as
it is and otherwise fits :class:`~skmlfs.discretize.LAIMDiscretizer` (the SCLS paper
discretizes numeric data with LAIM, and the MLNB of the SCLS/memetic experiments uses the
discretized data; their experiment files say ``discretizer = "auto"``); a name or table
selects another discretizer.
"""

from __future__ import annotations

import platform
import subprocess
import time
import traceback
import warnings
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy
import scipy.linalg  # noqa: F401
import scipy.sparse as sp
import sklearn

import skmlfs

from .._ids import canonical_json, make_id
from .._progress import TimeLimitExceeded, check_time, time_limit
from ..discretize import fit_discretizer, is_discrete
from ..selection import selection_order
from ._build import fitted_info
from ._graphs import NeighbourGraphs, fit_predict
from ._registry import resolve
from ._spec import MethodSpec, MetricRef
from ._tuning import learner_at_largest, refit_ranking

__all__ = [
    "CellResult",
    "CellSpec",
    "RankingResult",
    "Task",
    "TaskResult",
    "compact",
    "prepare_split",
    "run_task",
    "versions",
]


_VERSIONS: dict[str, str] | None = None


def versions() -> dict[str, str]:
    """Versions of the software a cell ran with (cached per process)."""
    global _VERSIONS
    if _VERSIONS is None:
        _VERSIONS = {
            "skmlfs": skmlfs.__version__,
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "sklearn": sklearn.__version__,
            "python": platform.python_version(),
        }
        blas = _blas_kernel()
        if blas:
            _VERSIONS["blas"] = blas
        source = _source_state()
        if source:
            _VERSIONS["source"] = source
    return _VERSIONS


def _source_state() -> str | None:
    """``git <commit>`` (``+changes`` when ``src/`` has uncommitted edits) when scikit-mlfs
    runs from a git checkout of its own, else ``None``: a development version number stays
    the same across commits, so cells computed by different code states would look alike."""
    root = Path(skmlfs.__file__).resolve().parents[2]
    if not (root / ".git").exists() or not (root / "pyproject.toml").is_file():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return f"git {head.stdout.strip()}" + ("+changes" if dirty.stdout.strip() else "")


def _blas_kernel() -> str:
    """The BLAS libraries loaded (numpy's and scipy's may differ), each with its version and
    CPU kernel, e.g. ``openblas 0.3.30 SkylakeX``: liblinear and the distance products round
    differently per kernel (AVX2 vs AVX-512), which moves the last digits of some cells, so
    the store records it."""
    from threadpoolctl import threadpool_info

    found = []
    for lib in threadpool_info():
        if lib.get("user_api") == "blas":
            d = " ".join(str(lib[k]) for k in ("internal_api", "version", "architecture")
                         if lib.get(k))
            if d not in found:
                found.append(d)
    return "; ".join(found)


def compact(X: Any) -> Any:
    """Store integer-valued features in the smallest integer dtype (less memory and
    transfer to workers); other data is returned unchanged. Integer-valued is the library's
    one rule (:func:`skmlfs.discretize.is_discrete`): whole numbers beyond 2**53 stay float
    (cast to int64 they overflowed silently)."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.dtype.kind == "b" or not is_discrete(X):
        return X
    lo = int(data.min()) if data.size else 0
    hi = int(data.max()) if data.size else 0
    for dt in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dt)
        if info.min <= lo and hi <= info.max:
            break
    if data.dtype == dt:
        return X
    return X.astype(dt)


# --------------------------------------------------------------------------- task types
@dataclass(frozen=True)
class CellSpec:
    cell_id: str
    k: int
    learner: MethodSpec


@dataclass
class Task:
    """All cells of one (dataset, split, selector); built by the caller, run by a worker."""

    task_id: str
    data_token: str
    dataset: str
    split: int
    train: np.ndarray
    test: np.ndarray
    discretizer: Any
    selector: MethodSpec
    k_max: int
    cells: tuple[CellSpec, ...]
    metrics: tuple[MetricRef, ...]
    seed: int | None
    cached_ranking: RankingResult | None = None
    #: nominal columns of the dataset: passed through the discretizer unchanged
    categorical_features: tuple[int, ...] | None = None
    #: seconds the task may take (the experiment's ``time_limit``), or None
    time_limit: float | None = None


def method_on_data(task: Task) -> str:
    """Id of a task's (data set, selector): the same for its tasks on every split of the
    data set, in every part of a file that runs the method the same way. A time limit that
    stops one of them stops them all (the splits of a data set are the same size)."""
    return make_id({"data": task.data_token, "selector": task.selector.identity()})


@dataclass
class RankingResult:
    ranking: np.ndarray
    scores: np.ndarray | None
    selection_time: float
    k_requested: int
    reused: bool = False
    #: what the fitted selector reports (e.g. a wrapper's search history), see fitted_info
    info: dict = field(default_factory=dict)


@dataclass
class CellResult:
    cell_id: str
    k: int
    learner: str
    n_selected: int
    metrics: dict[str, float]
    fit_time: float
    predict_time: float
    #: stored with the cell: chosen parameters of a tuned learner, search histories, ...
    info: dict = field(default_factory=dict)
    #: the features evaluated when they are not the ranking's prefix (budgets = "refit")
    features: np.ndarray | None = None


@dataclass
class TaskResult:
    task_id: str
    ranking: RankingResult | None
    cells: list[CellResult] = field(default_factory=list)
    n_train: int = 0
    n_test: int = 0
    discretize_time: float = 0.0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: how many times each message of ``warnings`` was raised (the run's summary counts them)
    warning_counts: dict[str, int] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    #: peak resident memory of the process during the task, MB (Linux; else None)
    peak_rss_mb: float | None = None
    #: the time limit (seconds) that stopped the task, if one did
    stopped_at_limit: float | None = None


def _peak_rss_reset() -> bool:
    """Reset the kernel's peak-RSS counter (VmHWM) of this process; False where the
    platform offers no reset (then no per-task peak is recorded)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mb() -> float | None:
    """VmHWM of this process since the last reset, MB (None when unreadable)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------- discretization
def _discretizer_param(spec: Any) -> Any:
    """An experiment's ``discretizer`` (``"auto"``, ``"none"``, a registered name, a table or
    a transformer) as the library's ``discretizer=`` parameter (``"auto"``, ``None`` or a
    transformer), so that :func:`skmlfs.discretize.fit_discretizer` applies the one rule."""
    if isinstance(spec, str):
        if spec in ("auto", "none"):
            return None if spec == "none" else "auto"
        return resolve("discretizer", spec)()
    if isinstance(spec, dict):
        params = {k: v for k, v in spec.items() if k != "method"}
        return resolve("discretizer", spec["method"])(**params)
    return spec


def _rows(X: Any, idx: np.ndarray) -> Any:
    return X[idx]


_PREP_CACHE: OrderedDict = OrderedDict()
_PREP_CACHE_SIZE = 2  # a worker holds at most this many prepared splits (memory stays flat)


class NominalColumns(tuple):
    """Indices of the nominal features; ``multivalued``: those with more than two declared
    values (for ``categorical_features = "multivalued_nominal"``: binary nominal
    attributes coded 0/1 are exact as numeric in HEOM, and far faster)."""

    multivalued: tuple[int, ...] = ()

    def __new__(cls, cols: Any, multivalued: Any = ()) -> NominalColumns:
        obj = super().__new__(cls, cols)
        obj.multivalued = tuple(int(j) for j in multivalued)
        return obj

    def __reduce__(self):  # pickled to workers with its attribute
        return (NominalColumns, (tuple(self), self.multivalued))

    def positions(self, feats: np.ndarray) -> NominalColumns | None:
        """The same columns as positions among the selected features ``feats``."""
        pos = np.flatnonzero(np.isin(feats, list(self))).tolist()
        if not pos:
            return None
        return NominalColumns(pos, np.flatnonzero(np.isin(feats, self.multivalued)).tolist())


def nominal_columns(dataset: Any) -> tuple[int, ...] | None:
    """Indices of a dataset's ``"nominal"`` features (``feature_types``), ``None`` if none."""
    types = getattr(dataset, "feature_types", None) or ()
    cols = tuple(j for j, t in enumerate(types) if t == "nominal")
    if not cols:
        return None
    cats = list(getattr(dataset, "categories", None) or [None] * len(types))
    return NominalColumns(cols, [j for j in cols if j < len(cats) and len(cats[j] or ()) > 2])


def prepare_split(
    X: Any, Y: np.ndarray, train: np.ndarray, test: np.ndarray, discretizer: Any = "auto",
    *, cache_key: Any = None, categorical_features: Any = None,
) -> tuple[Any, np.ndarray, Any, np.ndarray, float]:
    """Split and discretize: the discretizer is fitted on the training part only.

    ``categorical_features`` (mask or indices: the nominal columns) pass through unchanged.
    Returns ``(X_train, Y_train, X_test, Y_test, seconds)``; discrete outputs are stored in
    compact integer dtypes. With ``cache_key`` the result is kept in a small per-process
    cache so the selectors of one split share one discretization.
    """
    if cache_key is not None and cache_key in _PREP_CACHE:
        _PREP_CACHE.move_to_end(cache_key)
        return _PREP_CACHE[cache_key]
    t0 = time.perf_counter()
    Xtr, Xte = _rows(X, train), _rows(X, test)
    Ytr, Yte = Y[train], Y[test]
    disc = fit_discretizer(_discretizer_param(discretizer), Xtr, Ytr, categorical_features)
    if disc is not None:
        Xtr, Xte = disc.transform(Xtr), disc.transform(Xte)
    Xtr, Xte = compact(Xtr), compact(Xte)
    out = (Xtr, Ytr, Xte, Yte, time.perf_counter() - t0)
    if cache_key is not None:
        _PREP_CACHE[cache_key] = out
        while len(_PREP_CACHE) > _PREP_CACHE_SIZE:
            _PREP_CACHE.popitem(last=False)
    return out


def clear_cache() -> None:
    """Drop the prepared splits kept by :func:`prepare_split` in this process."""
    _PREP_CACHE.clear()


# --------------------------------------------------------------------------- the work
def _columns(X: Any, feats: np.ndarray) -> Any:
    return X[:, feats]


def _rank(task: Task, Xtr: Any, Ytr: np.ndarray) -> RankingResult:
    if task.cached_ranking is not None:
        r = task.cached_ranking
        return RankingResult(r.ranking, r.scores, r.selection_time, r.k_requested, reused=True,
                             info=dict(r.info))
    est = task.selector.build(n_features_to_select=task.k_max, random_state=task.seed,
                              nominal_columns=task.categorical_features)
    t0 = time.perf_counter()
    est.fit(Xtr, Ytr)
    elapsed = time.perf_counter() - t0
    # the order (selection_order_); a generic selector: by its ranking_, else its support
    ranking = selection_order(est)
    scores = getattr(est, "scores_", None)
    if scores is not None:
        scores = np.asarray(scores, dtype=float)

    return RankingResult(ranking, scores, elapsed, task.k_max, reused=False,
                         info=fitted_info(est, (task.selector.options or {}).get("record")))


def _evaluate_cell(
    cell: CellSpec, ranking: np.ndarray, Xtr, Ytr, Xte, Yte, metrics, seed,
    selector_info: dict | None = None, nominal_columns: Any = None, graphs: Any = None,
) -> CellResult:
    feats = ranking[: cell.k]
    if feats.size == 0:
        raise ValueError(
            f"the selector returned no feature for k={cell.k} (every feature is constant on "
            "this training split?)."
        )
    if isinstance(nominal_columns, NominalColumns):  # positions among the selected
        nominal_columns = nominal_columns.positions(feats)
    elif nominal_columns is not None:  # positions of the nominal features among the selected
        nominal_columns = np.flatnonzero(np.isin(feats, nominal_columns)).tolist() or None
    learner = cell.learner.build(random_state=seed, nominal_columns=nominal_columns)
    A, B = _columns(Xtr, feats), _columns(Xte, feats)
    specs = [(m, m.spec()) for m in metrics]
    needs = {s.needs for _, s in specs}

    pred, score, fit_time, predict_time = fit_predict(learner, A, Ytr, B, needs, graphs, feats)
    values = {}
    for m, s in specs:
        out = pred if s.needs == "pred" else score
        values[m.name] = float(s.function(Yte, out, **dict(m.params)))

    info = {}
    linfo = fitted_info(learner)
    if linfo:
        info["learner"] = linfo
    if selector_info:
        info["selector"] = selector_info
    return CellResult(
        cell_id=cell.cell_id,
        k=cell.k,
        learner=cell.learner.name,
        n_selected=int(feats.size),
        metrics=values,
        fit_time=fit_time,
        predict_time=predict_time,
        info=info,
    )


def run_task(task: Task, X: Any, Y: np.ndarray, *, catch: bool = True) -> TaskResult:
    """Run every cell of ``task`` on the data ``(X, Y)``.

    With ``catch=True`` an exception does not propagate: the cells finished before it are
    returned with ``error`` holding the traceback (the runner stores those cells and
    reports the failure; the failed cells are retried by the next run). A task with a
    ``time_limit`` runs under :func:`skmlfs._progress.time_limit`: the selector's reported
    steps and each cell check it, and a task it stops has ``stopped_at_limit`` set (the
    planner does not retry it under the same or a shorter limit).
    """
    res = TaskResult(task.task_id, None, versions=versions())
    measure = _peak_rss_reset()
    with warnings.catch_warnings(record=True) as caught, time_limit(task.time_limit):
        warnings.simplefilter("always")
        try:
            Xtr, Ytr, Xte, Yte, tdisc = prepare_split(
                X, Y, task.train, task.test, task.discretizer,
                cache_key=(task.data_token, task.split, canonical_json(task.discretizer)),
                categorical_features=task.categorical_features,
            )
            res.n_train, res.n_test, res.discretize_time = len(Ytr), len(Yte), tdisc
            opts = task.selector.options or {}
            Xsel = Xtr
            if "preprocess" in opts:  # the selector sees its own view of the data
                Xsel = prepare_split(
                    X, Y, task.train, task.test, opts["preprocess"],
                    cache_key=(task.data_token, task.split, canonical_json(opts["preprocess"])),
                    categorical_features=task.categorical_features)[0]
            if opts.get("budgets") == "refit":  # one fit per budget, no cached ranking
                task.cached_ranking = None
            res.ranking = _rank(task, Xsel, Ytr)
            at_largest: dict = {}

            graphs = NeighbourGraphs.for_cells(task.cells, task.seed)
            for cell in task.cells:
                check_time()  # learners report no steps: the limit is checked per cell
                ranking = res.ranking.ranking
                if opts.get("budgets") == "refit" and cell.k != task.k_max:
                    ranking = refit_ranking(task, cell.k, Xsel, Ytr)
                if opts.get("feature_order") == "index":  # a score depends on the set only
                    ranking = np.sort(ranking[: cell.k])
                if (cell.learner.tuning or {}).get("budget") == "largest":
                    top = res.ranking.ranking[: task.k_max]
                    cell = learner_at_largest(
                        cell, np.sort(top) if opts.get("feature_order") == "index" else top,
                        Xtr, Ytr, task.seed, at_largest)
                res.cells.append(
                    _evaluate_cell(
                        cell, ranking, Xtr, Ytr, Xte, Yte, task.metrics, task.seed,
                        res.ranking.info, task.categorical_features, graphs,
                    )
                )
                if ranking is not res.ranking.ranking:
                    res.cells[-1].features = np.asarray(ranking[: cell.k])
                if cell.learner.name in at_largest:
                    res.cells[-1].info["learner"] = {
                        "best_params": at_largest[cell.learner.name], "tuned_at_k": task.k_max}
        except Exception as exc:  # noqa: BLE001 — reported to the caller, see docstring
            if not catch:
                raise
            if isinstance(exc, TimeLimitExceeded):  # a decision, not a fault: no traceback
                res.stopped_at_limit = task.time_limit
                res.error = f"TimeLimitExceeded: {task.selector.name} {exc}"
            else:
                res.error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"
    counts = Counter(f"{w.category.__name__}: {w.message}" for w in caught)
    res.warnings, res.warning_counts = sorted(counts), dict(counts)
    res.peak_rss_mb = _peak_rss_mb() if measure else None
    return res
