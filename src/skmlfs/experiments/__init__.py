"""Experiments: split protocols, evaluation, and the resumable benchmark runner.

Function-level API (one dataset, in memory)::

    from skmlfs.experiments import evaluate, summarize
    from skmlfs.model_selection import holdout_splits
    splits = holdout_splits(len(ds.Y), repeats=10, test_size=0.2, random_state=0)
    res = evaluate(ds, {"scls": SCLS(), "ami": "ami"}, "mlnb", splits, n_features=None)
    summarize(res)                       # mean ± std per method × metric

Whole experiments (TOML, resumable, SQLite)::

    spec = load_experiment("experiments/scls_paper.toml")
    run_experiment(spec, "runs/scls_paper.db", n_jobs=2)      # or dask="local"
    write_report("runs/scls_paper.db", "docs/results/scls_paper")

Both paths build the same tasks and run them with the same per-cell function
(:mod:`skmlfs.experiments._execute`). Short method names come from the registries in
:mod:`skmlfs.experiments._registry`. The layers of the engine, lowest first (each module
imports only lower ones; ``tests/test_layering.py`` checks it): the registry; the spec
(``_build`` for method tables, ``_spec``, ``_parts``); the store; the method options (``_tuning``);
execution (``_execute``, what a worker runs, with ``_graphs``) and the backends; the
planner; the run (``_runner``, ``_parts_run``); the report
(:mod:`skmlfs.experiments.report`). Splits, searches, scorers and meta-estimators are the
library package :mod:`skmlfs.model_selection`.
"""

from ._backends import import_distributed
from ._execute import prepare_split, run_task
from ._histories import plot_search_histories, search_histories
from ._parts import (
    ExperimentParts,
    is_multipart,
    keep_selectors,
    load_parts,
    with_selectors,
    with_time_limit,
)
from ._parts_run import run_parts
from ._registry import (
    ABOUT,
    DISCRETIZERS,
    LEARNERS,
    REGISTRIES,
    SELECTORS,
    AllFeatures,
    canonical_name,
    default_params,
    param_names,
    resolve,
    takes_seed,
)
from ._runner import RunSummary, evaluate, run_experiment, summarize
from ._spec import (
    DatasetSpec,
    ExperimentSpec,
    MethodSpec,
    MetricRef,
    ProtocolSpec,
    SpecError,
    load_experiment,
    parse_methods,
    parse_n_features,
    parse_time_limit,
    resolve_n_features_grid,
)
from ._store import (
    COMPRESSED_SUFFIXES,
    ResultStore,
    StoreBusyError,
    StoreError,
    readable_store,
)
from ._tuning import FractionalOnly, MinMaxScale

# the engine's top layer, imported last: the report may import every engine module and
# none imports it; it stays light to import (its functions that draw or tabulate import
# matplotlib and pandas themselves), so `import skmlfs.experiments` loads no matplotlib
from .report import (
    metric_tables,
    wilcoxon_table,
    win_tie_loss_table,
    write_parts_report,
    write_report,
)

__all__ = [
    "COMPRESSED_SUFFIXES",
    "FractionalOnly",
    "MinMaxScale",
    "ABOUT",
    "DISCRETIZERS",
    "LEARNERS",
    "REGISTRIES",
    "SELECTORS",
    "AllFeatures",
    "DatasetSpec",
    "ExperimentParts",
    "ExperimentSpec",
    "MethodSpec",
    "MetricRef",
    "ProtocolSpec",
    "ResultStore",
    "RunSummary",
    "SpecError",
    "StoreBusyError",
    "StoreError",
    "canonical_name",
    "default_params",
    "evaluate",
    "import_distributed",
    "load_experiment",
    "is_multipart",
    "keep_selectors",
    "load_parts",
    "param_names",
    "parse_methods",
    "parse_n_features",
    "parse_time_limit",
    "readable_store",
    "plot_search_histories",
    "run_parts",
    "prepare_split",
    "resolve",
    "resolve_n_features_grid",
    "run_experiment",
    "run_task",
    "search_histories",
    "summarize",
    "takes_seed",
    "metric_tables",
    "wilcoxon_table",
    "win_tie_loss_table",
    "with_selectors",
    "with_time_limit",
    "write_parts_report",
    "write_report",
]

