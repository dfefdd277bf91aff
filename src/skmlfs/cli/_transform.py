"""``mlfs transform``: write a dataset reduced to the selected features; saved selectors.

Also the ``--save`` / ``--write`` options of ``mlfs select`` (:func:`add_output_options`,
:func:`write_outputs`), so a selection made once can be applied to new data later.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from ._common import (
    add_budget_options,
    add_data_options,
    add_dataset_argument,
    data_options,
    fit_selector,
    load_dataset,
)

_FORMAT = "skmlfs-selector"
_OUT_HELP = (
    "reduced dataset to write: .arff (Mulan ARFF + XML label file beside it; sparse when "
    "the input is sparse), .csv, .tsv or .parquet"
)


def register(parser) -> None:
    add_dataset_argument(parser)
    parser.add_argument("--out", "-o", required=True, metavar="FILE", help=_OUT_HELP)
    parser.add_argument(
        "--model", metavar="MODEL",
        help="a selector saved by 'mlfs select --save MODEL' (joblib; load only files you "
        "trust); its features are kept. Without --model, --method selects on FILE itself.",
    )
    parser.add_argument("--method", "-m", default=None, help="selection method (default: scls)")
    add_budget_options(parser)
    parser.add_argument(
        "--save", metavar="MODEL", help="also store the fitted selector (joblib) for later use"
    )
    add_data_options(parser)


def add_output_options(parser) -> None:
    """``--save MODEL`` and ``--write FILE`` for ``mlfs select``."""
    parser.add_argument(
        "--save", metavar="MODEL",
        help="store the fitted selector with the feature names (joblib, e.g. model.joblib); "
        "apply it to new data with 'mlfs transform DATA --model MODEL -o OUT'",
    )
    parser.add_argument("--write", metavar="FILE", help=_OUT_HELP)


def save_model(path: str | Path, selector: Any, ds: Any, method: str) -> None:
    """Store a fitted selector with what is needed to check new data against it."""
    import joblib

    from .. import __version__

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
    import joblib

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
    from ..datasets import save, select_features

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
    """Refuse an unknown output format before any work is done."""
    if out is None:
        return
    from ..datasets._tabular import TABULAR_SUFFIXES

    suffix = Path(out).suffix.lower()
    if suffix != ".arff" and suffix not in TABULAR_SUFFIXES:
        raise ValueError(
            f"{out}: unknown output format {suffix or '(no suffix)'!r}; use .arff (with an XML "
            "label file), .csv, .tsv or .parquet"
        )


def check_output_options(args) -> None:
    """Validate ``--write`` before ``mlfs select`` fits anything."""
    _check_out(getattr(args, "write", None))


def write_outputs(args, selector: Any, ds: Any, method: str) -> None:
    """After ``mlfs select`` fitted ``selector``: ``--save`` and ``--write``."""
    if getattr(args, "save", None):
        save_model(args.save, selector, ds, method)
        print(f"selector saved to {args.save}", file=sys.stderr)
    if getattr(args, "write", None):
        write_reduced(ds, np.asarray(selector.get_support(), dtype=bool), args.write)


def run(args) -> int:
    _check_out(args.out)
    if args.model and (args.method or args.k or args.save):
        raise ValueError("--model applies a saved selector; do not combine it with "
                         "--method, -k or --save")
    if args.model:
        model = load_model(args.model)  # before loading data: a bad model fails fast
        ds = load_dataset(args.dataset, args.labels, **data_options(args))
        check_compatible(model, ds, args.model)
        write_reduced(ds, model["support"], args.out)
        return 0
    method = args.method or "scls"
    ds, selector, _ = fit_selector(args, method, "transform")
    if args.save:
        save_model(args.save, selector, ds, method)
        print(f"selector saved to {args.save}", file=sys.stderr)
    write_reduced(ds, np.asarray(selector.get_support(), dtype=bool), args.out)
    return 0
