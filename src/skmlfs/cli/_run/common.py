"""The work shared by several commands: reading a dataset, building and fitting a
selector, checking and writing output files."""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..._progress import progress_mode, progress_style
from ..._validation import budget_grid, is_one_budget
from ...datasets import load, load_mat, load_name
from ...experiments import default_params, param_names, resolve, takes_seed
from .._options import LabelPrefix


def load_dataset(
    spec: str, labels: str | None = None, *, missing: str = "warn", label_copies: str = "warn"
) -> Any:
    """Load a file path (ARFF, .mat, CSV/TSV/Parquet), or a dataset name.

    A name is looked up in ``$MLFS_DATASETS``, then in the download cache of ``mlfs fetch``;
    the error lists every place tried. ``missing`` and ``label_copies`` are the loaders'
    options of the same names (the ``--missing`` and ``--label-copies`` flags of
    :func:`skmlfs.cli._options.add_data_options`).
    """
    label_spec: Any = labels
    prefix = None
    if isinstance(labels, str) and not isinstance(labels, LabelPrefix) and not labels.strip():
        # only new data reduced by a saved selector may come without labels (mlfs transform
        # --model), and that command reads its data with load_new_data
        raise ValueError(
            "--labels is empty: name the label columns (--labels a,b or --label-prefix y_); "
            "data without labels can only be reduced by a saved selector (mlfs transform "
            "DATA --model MODEL --write OUT)"
        )
    if isinstance(labels, LabelPrefix):
        prefix, label_spec = str(labels), None
    elif labels is not None:
        if labels.lstrip("-").isdigit():
            label_spec = int(labels)
        elif not labels.lower().endswith(".xml"):
            label_spec = [s.strip() for s in labels.split(",") if s.strip()]
    path = Path(spec)
    try:
        if label_spec is None and prefix is None:
            # label_copies only concerns .mat files, which load() opens with the default
            if path.suffix.lower() == ".mat" and path.exists():
                return load_mat(path, label_copies=label_copies)
            if not path.exists() and spec.strip("/").startswith("plcfs/"):
                return load_name(spec, label_copies=label_copies)
        return load(path, labels=label_spec, label_prefix=prefix, missing=missing)
    except ImportError as exc:  # Parquet without pyarrow: a user error, not a crash
        raise ValueError(str(exc)) from None


def data_options(args: Any) -> dict:
    """``load_dataset`` keyword arguments from the options of
    :func:`skmlfs.cli._options.add_data_options`."""
    return {"missing": args.missing, "label_copies": args.label_copies}


def parse_k(value: str | None) -> list:
    """The budgets of ``-k`` (default ``sqrt``), each as a selector's
    ``n_features_to_select`` takes it: :func:`skmlfs._validation.budget_grid`, which a
    grid such as ``5..20:5`` expands. Nothing is counted here: a selector resolves its
    budget in ``fit``, and ``mlfs evaluate`` by the same function."""
    return budget_grid("sqrt" if value is None else value, "-k")


def budget_arg(value: str) -> str:
    """argparse ``type`` of ``-k``: the value itself, checked by :func:`parse_k` so that a
    bad budget is reported by the parser, with the forms ``-k`` accepts."""
    try:
        parse_k(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("-k: ")) from None
    return value


#: file extension -> table format written by :func:`write_table`
TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".json": "json",
                 ".parquet": "parquet"}


def check_output_path(path: str | None) -> None:
    """Refuse, before any work, an output file whose extension names no format we write."""
    if path is None:
        return
    check_folder(path)
    ext = Path(path).suffix.lower()
    fmt = TABLE_FORMATS.get(ext)
    if fmt is None:
        raise ValueError(
            f"cannot write {path}: unknown extension {ext or '(none)'!r}; name the file "
            ".csv, .tsv, .json or .parquet"
        )
    if fmt == "parquet":
        require_parquet(path, ".csv, .tsv or .json")


def check_folder(path: Any) -> None:
    """Refuse, before any work, an output file whose folder does not exist (the write
    would fail after the work)."""
    if path is None:
        return
    folder = Path(path).expanduser().resolve().parent
    if not folder.is_dir():
        raise ValueError(f"cannot write {path}: the folder {folder} does not exist")


def require_parquet(path: Any, instead: str) -> None:
    """Refuse, before any work, a Parquet output file when pyarrow is not installed: one
    line naming the extra to install (``instead``: the other extensions the option takes)."""
    if importlib.util.find_spec("pyarrow") is None:
        raise ValueError(
            f"cannot write {path}: Parquet needs pyarrow (pip install "
            f"'scikit-mlfs[parquet]'), or name the file {instead}"
        )


def check_export_paths(paths: Any) -> None:
    """``--export FILE`` of ``mlfs benchmark`` / ``mlfs report`` (the store's cells as .csv
    or .parquet), checked before the run: extension, and pyarrow for Parquet."""
    for path in paths or ():
        ext = Path(path).suffix.lower()
        if ext in (".parquet", ".pq"):
            require_parquet(path, ".csv")
        elif ext != ".csv":
            raise ValueError(
                f"cannot export to {path}: unknown extension {ext or '(none)'!r}; name the "
                "file .csv or .parquet"
            )


def write_table(table: Any, path: str) -> None:
    """Write a DataFrame in the format its file extension names (:data:`TABLE_FORMATS`)."""
    check_output_path(path)
    fmt = TABLE_FORMATS[Path(path).suffix.lower()]
    if fmt == "csv":
        table.to_csv(path, index=False)
    elif fmt == "tsv":
        table.to_csv(path, index=False, sep="\t")
    elif fmt == "json":
        table.to_json(path, orient="records", indent=1)
    else:
        table.to_parquet(path, index=False)


def seeded(cls: Any, params: dict, seed: int | None) -> Any:
    """``cls(**params)``, with ``random_state=seed`` when ``cls`` is stochastic (has a
    ``random_state`` parameter) and ``params`` does not set it."""
    stochastic = takes_seed(cls)
    if seed is not None and stochastic and "random_state" not in params:
        params = {**params, "random_state": seed}
    return cls(**params)


def one_budget(value: str | None, command: str) -> str:
    """The one budget of ``-k`` for commands that select once (select, transform), as the
    selector's ``n_features_to_select`` (default ``"sqrt"``, for every method alike)."""
    budget = "sqrt" if value is None else value
    if not is_one_budget(budget):
        raise ValueError(
            f"-k {value}: mlfs {command} takes one budget (several are for mlfs evaluate)"
        )
    return budget


def make_selector(method: str, budget: str, ds: Any, seed: int | None) -> Any:
    """The registered selector ``method`` with ``n_features_to_select=budget`` as typed
    (``"10%"`` reaches the selector as ``"10%"`` and is resolved in its ``fit``), seeded if
    stochastic, and told the data set's nominal columns when it discretizes
    (``categorical_features``)."""
    params = {**default_params("selector", method), "n_features_to_select": budget}
    cls = resolve("selector", method)
    nominal = np.flatnonzero([t == "nominal" for t in ds.feature_types])
    if nominal.size and "categorical_features" in param_names(cls):
        params.setdefault("categorical_features", nominal.tolist())
    return seeded(cls, params, seed)


def fit_selector(args: Any, method: str, command: str) -> tuple[Any, Any, float]:
    """The shared start of ``mlfs select`` and ``mlfs transform``: load ``args.dataset``
    (complete data only), build ``method`` with the ``-k`` budget and ``--seed`` and fit it.

    Returns ``(dataset, fitted selector, seconds of the fit)``.
    """
    budget = one_budget(args.k, command)
    ds = load_dataset(args.dataset, args.labels, **data_options(args))
    require_complete(ds, command)
    selector = make_selector(method, budget, ds, args.seed)
    mode = progress_mode(getattr(args, "quiet", False))
    if mode != "off" and "verbose" in selector.get_params(deep=False):
        selector.set_params(verbose=1)  # its steps, the one rule of skmlfs._progress
    t0 = time.perf_counter()
    with progress_style(mode):
        selector.fit(ds.X, ds.Y)
    return ds, selector, time.perf_counter() - t0


def require_complete(ds: Any, command: str) -> None:
    """Raise a clear ``ValueError`` when ``ds.X`` has missing values (NaN).

    The loaders keep ARFF ``?`` as NaN (with a warning); the selectors, discretizers and
    learners reject NaN, so the CLI stops before fitting, naming the file, the count and
    the first line with a missing value.
    """
    n = ds.n_missing
    if not n:
        return
    where = ds.first_missing or ds.source or ds.name
    raise ValueError(
        f"{where}: {n} missing feature value(s) ('?' or NaN) in {ds.name}; mlfs {command} "
        "needs complete data: impute or drop the rows or columns with missing values first."
    )
