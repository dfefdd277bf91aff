"""Helpers shared by the CLI commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class LabelPrefix(str):
    """The value of ``--label-prefix`` (stored in ``args.labels``, so every command gets it)."""


def load_dataset(spec: str, labels: str | None = None) -> Any:
    """Load a file path (ARFF, .mat, CSV/TSV/Parquet), or a dataset name.

    A name is looked up in ``$MLFS_DATASETS``, then in the download cache of ``mlfs fetch``;
    the error lists every place tried.
    """
    from ..datasets import load

    label_spec: Any = labels
    prefix = None
    if isinstance(labels, LabelPrefix):
        prefix, label_spec = str(labels), None
    elif labels is not None:
        if labels.lstrip("-").isdigit():
            label_spec = int(labels)
        elif not labels.lower().endswith(".xml"):
            label_spec = [s.strip() for s in labels.split(",") if s.strip()]
    try:
        return load(Path(spec), labels=label_spec, label_prefix=prefix)
    except ImportError as exc:  # Parquet without pyarrow: a user error, not a crash
        raise ValueError(str(exc)) from None


def add_labels_option(parser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--labels",
        metavar="SPEC",
        help="label XML file, comma-separated label names, or a MEKA-style count "
        "(n > 0: first n attributes, n < 0: last n). Default: the XML file beside the "
        "ARFF, or -C n in a MEKA @relation.",
    )
    group.add_argument(
        "--label-prefix",
        dest="labels",
        type=LabelPrefix,
        metavar="PREFIX",
        help="instead of --labels: every column (or attribute) whose name starts with PREFIX "
        "is a label, e.g. y_ (CSV/TSV/Parquet tables need --labels a,b,c or --label-prefix)",
    )


def parse_k(value: str | None) -> Any:
    """``-k`` forms: an int count, a fraction ``0.1``, a percentage ``10%``, or ``sqrt``."""
    if value is None or value in ("sqrt", "ceil_sqrt"):
        return None
    if value.endswith("%"):
        return float(value[:-1]) / 100.0
    if "." in value:
        return float(value)
    return int(value)


def selector_input(selector: Any, ds: Any) -> Any:
    """The features to fit ``selector`` on, with the dataset's nominal columns kept as they are.

    Selectors of the shared convention (``BaseInfoSelector`` and its ``discretizer``
    parameter, see :func:`~skmlfs.selection.discretize_features`) get ``X`` discretized
    here, nominal columns passed through unchanged, and their ``discretizer`` is set to
    ``None`` (the codes are used as they are). Without nominal columns, or for other
    selectors, ``X`` is returned unchanged and the selector discretizes it itself.
    """
    import numpy as np

    from ..selection._base import BaseInfoSelector, discretize_features

    nominal = np.array([t == "nominal" for t in ds.feature_types], dtype=bool)
    own = getattr(type(selector), "_discretize", None)
    if not nominal.any() or own is not BaseInfoSelector._discretize:
        return ds.X
    X = discretize_features(selector.discretizer, ds.X, ds.Y, categorical_features=nominal)
    selector.set_params(discretizer=None)
    return X


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
