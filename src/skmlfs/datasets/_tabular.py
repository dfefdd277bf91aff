"""Multi-label data sets from tables: CSV, TSV and Parquet files with named label columns."""

from __future__ import annotations

import csv
import difflib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ._dataset import (
    DatasetError,
    MultiLabelDataset,
    _check_missing_policy,
    apply_missing_policy,
)
from ._xml import read_label_xml

__all__ = ["TABULAR_SUFFIXES", "load_tabular"]

# suffix -> field separator (None: Parquet, a binary format)
TABULAR_SUFFIXES: dict[str, str | None] = {
    ".csv": ",",
    ".tsv": "\t",
    ".tab": "\t",
    ".parquet": None,
    ".pq": None,
}


def _read_table(path: Path, sep: str | None) -> tuple[Any, np.ndarray | None]:
    """The table as a DataFrame and, for text files, the 1-based file line of every row."""
    import pandas as pd

    if sep is None:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ImportError(
                f"{path}: reading Parquet needs pyarrow; install it with "
                "pip install 'scikit-mlfs[parquet]' (or pip install pyarrow)"
            ) from None
        try:
            return pd.read_parquet(path), None
        except Exception as exc:  # pyarrow raises its own types for corrupt files
            raise DatasetError(f"cannot read Parquet file: {exc}", path) from None
    try:
        # skip_blank_lines=False keeps a row for every physical line, so the row index
        # maps back to the file line for error messages (blank rows are dropped below).
        # Exact decimal -> double: pandas >= 3 does it by default (and deprecates the
        # option); pandas 2's default parser may be off by one unit in the last place.
        exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
        df = pd.read_csv(
            path, sep=sep, skip_blank_lines=False, keep_default_na=False,
            na_values=["", "?", "NA", "NaN", "nan"], **exact,  # as _write._TABLE_MISSING
        )
    except pd.errors.ParserError as exc:
        msg = str(exc)
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", msg)
        if m:
            raise DatasetError(
                f"expected {m.group(1)} fields (as in the header) but found {m.group(3)}",
                path,
                int(m.group(2)),
            ) from None
        m = re.search(r"EOF inside string starting at row (\d+)", msg)
        if m:  # the tokenizer counts rows from 0, header included
            raise DatasetError(
                "unterminated quote: the quoted field starting on this line is never closed",
                path,
                int(m.group(1)) + 1,
            ) from None
        m = re.search(r"(?:line|row) (\d+)", msg)
        raise DatasetError(
            f"malformed {'TSV' if sep == chr(9) else 'CSV'}: {msg.strip()}",
            path,
            int(m.group(1)) if m else None,
        ) from None
    except pd.errors.EmptyDataError:
        raise DatasetError("the file is empty (no header line)", path) from None
    except UnicodeDecodeError as exc:
        raise DatasetError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    lines = np.arange(len(df), dtype=np.int64) + 2  # line 1 is the header
    blank = df.isna().all(axis=1).to_numpy()
    if blank.any():
        df = df.loc[~blank].reset_index(drop=True)
        lines = lines[~blank]
    return df, lines


def _label_columns(
    columns: list[str],
    labels: Any,
    label_prefix: str | None,
    path: Path,
) -> list[str]:
    """Names of the label columns, in table order (whatever the order of ``labels``)."""
    if labels is not None and label_prefix is not None:
        raise ValueError("pass either labels= or label_prefix=, not both")
    if label_prefix is not None:
        if not isinstance(label_prefix, str) or not label_prefix:
            raise ValueError(f"label_prefix must be a non-empty string; got {label_prefix!r}")
        names = [c for c in columns if c.startswith(label_prefix)]
        if not names:
            raise DatasetError(
                f"no column name starts with the label prefix {label_prefix!r} (columns: "
                + _shown(columns)
                + ")",
                path,
                1,
            )
    elif labels is None:
        raise DatasetError(
            "cannot tell which columns are labels: a table has no label file; name them with "
            "labels=['a', 'b'] or label_prefix='y_' (command line: --labels a,b or "
            "--label-prefix y_)",
            path,
        )
    elif isinstance(labels, bool):
        raise TypeError("labels must be a list of column names or an int; got a bool")
    elif isinstance(labels, int | np.integer):
        c, n = int(labels), len(columns)
        if c == 0 or abs(c) >= n:
            raise DatasetError(
                f"label count {c} is invalid for {n} columns (need 0 < |n| < {n})", path, 1
            )
        names = columns[:c] if c > 0 else columns[n + c :]
    elif isinstance(labels, str | os.PathLike) and str(labels).lower().endswith(".xml"):
        names = read_label_xml(labels)
    elif isinstance(labels, str):
        raise TypeError(
            f"labels must be a list of column names; got the string {labels!r} "
            f"(did you mean labels=[{labels!r}]?)"
        )
    elif isinstance(labels, Sequence) and all(isinstance(v, str) for v in labels):
        names = list(labels)  # [] : a table without labels (new data to reduce)
        if len(set(names)) != len(names):
            raise ValueError("labels lists a name twice")
    else:
        raise TypeError(
            "labels must be a list of column names, an int (first n / last -n columns) or an "
            f"XML label file; got {type(labels).__name__}"
        )
    present = set(columns)
    missing = [n for n in names if n not in present]
    if missing:
        hints = []
        for m in missing[:3]:
            close = difflib.get_close_matches(m, columns, n=1)
            if close:
                hints.append(f"{close[0]!r} for {m!r}")
        raise DatasetError(
            f"{len(missing)} label column(s) not found in the header: "
            + ", ".join(repr(m) for m in missing[:5])
            + (" ..." if len(missing) > 5 else "")
            + (f" (did you mean {'; '.join(hints)}?)" if hints else "")
            + f"; the columns are {_shown(columns)}",
            path,
            1,
        )
    chosen = set(names)
    ordered = [c for c in columns if c in chosen]
    if len(ordered) == len(columns):
        raise DatasetError("every column is a label; no feature is left", path, 1)
    return ordered


def _shown(names: list[str], k: int = 8) -> str:
    more = f", ... ({len(names)} in all)" if len(names) > k else ""
    return ", ".join(repr(c) for c in names[:k]) + more


def _line(lines: np.ndarray | None, row: int) -> int | None:
    return None if lines is None else int(lines[row])


def _as_labels(df: Any, names: list[str], lines: np.ndarray | None, path: Path) -> np.ndarray:
    """The 0/1 label matrix; anything else (2, 0.5, 'yes', missing) is an error with its line."""
    import pandas as pd

    n = len(df)
    Y = np.zeros((n, len(names)), dtype=np.uint8)
    for k, name in enumerate(names):
        col = df[name]
        if col.dtype == bool:
            Y[:, k] = col.to_numpy()
            continue
        num = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = ~np.isin(num, (0.0, 1.0))
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raw = col.iloc[r]
            what = "a missing value" if pd.isna(raw) else f"the value {str(raw)!r}"
            raise DatasetError(
                f"label column {name!r} has {what}; label values must be 0 or 1 "
                f"({int(bad.sum())} such value(s) in this column)",
                path,
                _line(lines, r),
            )
        Y[:, k] = num.astype(np.uint8)
    return Y


def _nominal_codes(col: Any) -> tuple[np.ndarray, list[str]]:
    """Codes (NaN where missing) into the sorted distinct values of a text column.

    One hash-based ``factorize`` per column; values that are not all strings (e.g. ints
    and strings mixed in a Parquet object column) are compared as their text, as a CSV
    file would give them.
    """
    import pandas as pd

    try:
        codes, uniques = pd.factorize(col, sort=True)
        if not all(isinstance(u, str) for u in uniques):
            raise TypeError
    except TypeError:
        codes, uniques = pd.factorize(col.astype("string"), sort=True)
    out = codes.astype(np.float64)
    out[codes < 0] = np.nan
    return out, [str(u) for u in uniques]


def load_tabular(
    path: str | os.PathLike[str],
    labels: Any = None,
    *,
    label_prefix: str | None = None,
    missing: str = "warn",
    name: str | None = None,
    sep: str | None = None,
) -> MultiLabelDataset:
    """Load a multi-label data set from a CSV, TSV or Parquet table.

    The first line (CSV/TSV) holds the column names. The label columns are named by
    ``labels`` or ``label_prefix``; every other column is a feature.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` (comma-separated), ``.tsv`` / ``.tab`` (tab-separated), ``.parquet`` /
        ``.pq`` (needs ``pyarrow``).
    labels : list of str, int, or path to an XML label file
        The label columns by name (their order in the table is kept for ``Y``); an int
        ``n``: the first ``n`` columns (``n > 0``) or the last ``-n`` (``n < 0``); or a
        Mulan XML label file. An empty list: the table has no label columns (``Y`` of
        shape ``(n, 0)``; e.g. new data to reduce with a fitted selector — selectors and
        learners refuse it for fitting).
    label_prefix : str, optional
        Instead of ``labels``: every column whose name starts with this prefix is a label.
    missing : {"warn", "raise", "ignore"}, default "warn"
        Empty cells, ``?``, ``NA`` and ``NaN`` in feature columns become NaN in ``X``,
        with a :class:`MissingValuesWarning` (``"warn"``), an error (``"raise"``) or
        silently (``"ignore"``), as for ARFF files. A missing label is always an error.
    name : str, optional
        Data set name (default: the file stem).
    sep : str, optional
        Field separator of a text file; by default from the suffix.

    Returns
    -------
    MultiLabelDataset
        The same container as :func:`~skmlfs.datasets.load` returns for ARFF files:
        dense float64 ``X``; numeric columns are ``"numeric"`` features; text columns
        are ``"nominal"`` features whose values are coded by the index in their sorted
        list of distinct values (``categories``); ``Y`` is uint8 0/1.

    Raises
    ------
    DatasetError
        Malformed table (the message names the file and line: a row with too many or
        too few fields, an empty file), a label column not in the header (with the
        closest names), a label value other than 0/1 or missing (with its line),
        every column a label.
    ImportError
        Parquet without ``pyarrow``.

    Notes
    -----
    Line numbers count the header as line 1 and assume no quoted field spans several
    lines.
    """
    _check_missing_policy(missing)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    if sep is None:
        suffix = path.suffix.lower()
        if suffix not in TABULAR_SUFFIXES:
            raise ValueError(
                f"{path}: unknown table format {suffix!r} (use .csv, .tsv, .tab, .parquet "
                "or pass sep=)"
            )
        sep = TABULAR_SUFFIXES[suffix]
    df, lines = _read_table(path, sep)
    header = [str(c) for c in df.columns]
    if sep is not None:
        # pandas renames a repeated name to "<name>.1"; the raw header tells the truth.
        with path.open(newline="", encoding="utf-8", errors="replace") as fh:
            header = next(csv.reader(fh, delimiter=sep), header)
    dup = sorted({c for c in header if header.count(c) > 1})
    if dup:
        raise DatasetError(
            f"the header names a column twice: {', '.join(map(repr, dup))}",
            path,
            1 if lines is not None else None,
        )
    columns = [str(c) for c in df.columns]
    df.columns = columns
    if len(df) == 0:
        raise DatasetError("no data rows after the header", path)
    lab = _label_columns(columns, labels, label_prefix, path)
    Y = _as_labels(df, lab, lines, path)
    labset = set(lab)
    feats = [c for c in columns if c not in labset]
    import pandas as pd

    X = np.empty((len(df), len(feats)), dtype=np.float64)
    types: list[str] = []
    cats: list[list[str] | None] = []
    for j, c in enumerate(feats):
        col = df[c]
        if col.dtype == bool:
            col = col.astype(np.float64)
        if pd.api.types.is_numeric_dtype(col.dtype):
            X[:, j] = col.to_numpy(dtype=np.float64, na_value=np.nan)
            types.append("numeric")
            cats.append(None)
        else:
            # Text: a nominal feature; categories sorted so the coding does not depend on
            # the row order (a CSV cannot declare the order as an ARFF header does).
            codes, values = _nominal_codes(col)
            X[:, j] = codes
            types.append("nominal")
            cats.append(list(values))
    nan = np.isnan(X)
    first_missing = None
    if nan.any():
        rows = np.flatnonzero(nan.any(axis=1))
        first_missing = apply_missing_policy(
            missing, path, _line(lines, int(rows[0])), int(nan.sum()), rows.size, stacklevel=3
        )
    return MultiLabelDataset(
        X=X,
        Y=Y,
        feature_names=feats,
        label_names=lab,
        feature_types=types,
        categories=cats,
        name=name or path.stem,
        source=str(path),
        first_missing=first_missing,
    )
