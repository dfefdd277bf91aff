"""``mlfs transform``: write a dataset reduced to the selected features; saved selectors.

Also the ``--save`` / ``--write`` options of ``mlfs select`` (:func:`check_output_options`,
:func:`write_outputs`), so a selection made once can be applied to new data later.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import pandas as pd

from ... import __version__
from ...datasets import TABULAR_SUFFIXES, load, save, select_features
from .._options import LabelPrefix
from .common import (
    check_folder,
    data_options,
    fit_selector,
    load_dataset,
    require_parquet,
)

_FORMAT = "skmlfs-selector"


def save_model(path: str | Path, selector: Any, ds: Any, method: str) -> None:
    """Store a fitted selector with what is needed to check new data against it."""
    bundle = {
        "format": _FORMAT,
        "version": 1,
        "skmlfs_version": __version__,
        "method": method,
        "selector": selector,
        "support": np.asarray(selector.get_support(), dtype=bool),
        "feature_names": list(ds.feature_names),
        "feature_types": list(ds.feature_types),
        "label_names": list(ds.label_names),
        "dataset": ds.name,
    }
    path = Path(path)
    tmp = path.with_name(f".{path.name}.part")
    try:
        joblib.dump(bundle, tmp)
        tmp.replace(path)
    finally:
        if tmp.exists():
            tmp.unlink()


def load_model(path: str | Path) -> dict[str, Any]:
    """Read a model file: a bundle written by :func:`save_model`, or any fitted selector
    (an object with ``get_support()``) dumped with joblib."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file {path} does not exist")
    try:
        obj = joblib.load(path)
    except Exception as exc:  # pickle raises many types on a file that is not a model
        raise ValueError(f"{path}: not a joblib model file ({type(exc).__name__}: {exc})") from None
    if isinstance(obj, dict) and obj.get("format") == _FORMAT:
        return obj
    if hasattr(obj, "get_support"):
        try:
            support = np.asarray(obj.get_support(), dtype=bool)
        except Exception as exc:
            raise ValueError(f"{path}: the selector in it is not fitted ({exc})") from None
        names = getattr(obj, "feature_names_in_", None)
        return {
            "selector": obj,
            "support": support,
            "feature_names": None if names is None else [str(n) for n in names],
            "method": type(obj).__name__,
        }
    raise ValueError(
        f"{path}: not a selector saved by 'mlfs select --save' (found {type(obj).__name__})"
    )


def check_compatible(model: dict[str, Any], ds: Any, model_path: Any) -> None:
    """The new data must have the features the selector was fitted on, in the same order."""
    support = model["support"]
    d = ds.X.shape[1]
    if support.shape[0] != d:
        raise ValueError(
            f"{ds.source or ds.name} has {d} features but the selector in {model_path} was "
            f"fitted on {support.shape[0]}; transform needs the same features in the same order"
        )
    names = model.get("feature_names")
    if names is not None and list(names) != list(ds.feature_names):
        diff = [
            (j, a, b) for j, (a, b) in enumerate(zip(names, ds.feature_names, strict=True))
            if a != b
        ]
        j, a, b = diff[0]
        raise ValueError(
            f"the features of {ds.source or ds.name} do not match those of {model_path}: "
            f"{len(diff)} name(s) differ, the first at column {j + 1}: {b!r} here, {a!r} in "
            "the model (same features in the same order needed)"
        )


def write_reduced(ds: Any, support: np.ndarray, out: str | Path) -> Any:
    reduced = select_features(ds, support)
    save(reduced, out)
    print(
        f"wrote {out}: {reduced.n_samples} patterns, {reduced.n_features} of {ds.n_features} "
        f"features, {reduced.n_labels} labels"
        + (f" (+ {Path(out).with_suffix('.xml')})" if Path(out).suffix.lower() == ".arff" else ""),
        file=sys.stderr,
    )
    return reduced


def _check_out(out: str | None) -> None:
    """Refuse, before any work is done, an unknown output format or a Parquet file without
    pyarrow."""
    if out is None:
        return
    check_folder(out)
    suffix = Path(out).suffix.lower()
    if suffix != ".arff" and suffix not in TABULAR_SUFFIXES:
        raise ValueError(
            f"{out}: unknown output format {suffix or '(no suffix)'!r}; use .arff (with an XML "
            "label file), .csv, .tsv or .parquet"
        )
    if TABULAR_SUFFIXES.get(suffix, ",") is None:  # .parquet / .pq
        require_parquet(out, ".arff, .csv or .tsv")


def check_output_options(args) -> None:
    """Validate ``--write`` and ``--save`` before ``mlfs select`` fits anything."""
    _check_out(getattr(args, "write", None))
    check_folder(getattr(args, "save", None))


def write_outputs(args, selector: Any, ds: Any, method: str) -> None:
    """After ``mlfs select`` fitted ``selector``: ``--save`` and ``--write``."""
    if getattr(args, "save", None):
        save_model(args.save, selector, ds, method)
        print(f"selector saved to {args.save}", file=sys.stderr)
    if getattr(args, "write", None):
        write_reduced(ds, np.asarray(selector.get_support(), dtype=bool), args.write)


def _output(args) -> str:
    """The reduced-data file: ``--write``, or the deprecated ``-o/--out`` with a warning."""
    if args.out_deprecated is not None:
        if args.write is not None:
            raise ValueError("give the output file once, with --write (-o/--out is its "
                             "deprecated spelling)")
        warnings.warn(
            "mlfs transform -o/--out is deprecated: use --write FILE (-w) for the reduced "
            "data, as in mlfs select; -o/--out names a command's result table",
            FutureWarning, stacklevel=2,
        )
        return args.out_deprecated
    if args.write is None:
        raise ValueError("name the reduced data file with --write FILE (.arff, .csv, .tsv "
                         "or .parquet)")
    return args.write


def table_header(path: Path) -> list[str] | None:
    """The column names of a CSV/TSV/Parquet file (``None`` for other files or when they
    cannot be read: the loader then reports the problem)."""
    suffix = path.suffix.lower()
    if suffix not in TABULAR_SUFFIXES or not path.is_file():
        return None
    sep = TABULAR_SUFFIXES[suffix]
    try:
        if sep is None:
            import pyarrow.parquet as pq

            return [str(c) for c in pq.read_schema(path).names]
        return [str(c) for c in pd.read_csv(path, sep=sep, nrows=0).columns]
    except Exception:  # noqa: BLE001 — the loader names the problem with file and line
        return None


def load_new_data(args, model: dict[str, Any]) -> Any:
    """New data for a saved selector: labels are optional.

    For a table, the label columns are those named by ``--labels a,b`` / ``--label-prefix``
    or, without either, the model's label columns; any of them may be absent (an empty
    ``--labels ""`` or a prefix no column has: no labels). Other files (ARFF with its XML
    label file, .mat) and other ``--labels`` forms (a count, an XML file) are read as
    everywhere else.
    """
    labels = args.labels
    header = table_header(Path(args.dataset))
    if header is None:
        return load_dataset(args.dataset, labels, **data_options(args))
    if isinstance(labels, LabelPrefix):
        names = [c for c in header if c.startswith(str(labels))]
    elif labels is None:
        known = set(model.get("label_names") or ())
        names = [c for c in header if c in known]
    elif not labels.strip():
        names = []
    elif labels.lstrip("-").isdigit() or labels.lower().endswith(".xml"):
        return load_dataset(args.dataset, labels, **data_options(args))
    else:  # names: those present are labels (a misspelt one stays a feature, and the
        # feature check below names it)
        wanted = {s.strip() for s in labels.split(",") if s.strip()}
        names = [c for c in header if c in wanted]
    try:
        return load(Path(args.dataset), labels=names, missing=args.missing)
    except ImportError as exc:  # Parquet without pyarrow
        raise ValueError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    out = _output(args)
    _check_out(out)
    check_folder(args.save)
    if args.model and (args.method or args.k or args.save):
        raise ValueError("--model applies a saved selector; do not combine it with "
                         "--method, -k or --save")
    if args.model:
        model = load_model(args.model)  # before loading data: a bad model fails fast
        ds = load_new_data(args, model)
        check_compatible(model, ds, args.model)
        write_reduced(ds, model["support"], out)
        return 0
    method = args.method or "scls"
    ds, selector, _ = fit_selector(args, method, "transform")
    if args.save:
        save_model(args.save, selector, ds, method)
        print(f"selector saved to {args.save}", file=sys.stderr)
    write_reduced(ds, np.asarray(selector.get_support(), dtype=bool), out)
    return 0
