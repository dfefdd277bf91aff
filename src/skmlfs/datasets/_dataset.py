"""The :class:`MultiLabelDataset` container and the Table-1 style statistics."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["DatasetError", "MissingValuesWarning", "MultiLabelDataset", "format_stats"]


class DatasetError(ValueError):
    """Malformed or unsupported data set input (ARFF, label file, ``.mat``).

    The one error type of the data layer; :class:`~skmlfs.datasets.ARFFError` is its ARFF
    subclass. The message has the form ``"<file>, line <n>: <problem>"`` (``"<file>:
    <problem>"`` when the problem is not tied to a line); the parts are also available as
    the attributes ``path``, ``line`` (1-based or ``None``) and ``problem``. A subclass of
    ``ValueError``, so existing ``except ValueError`` handlers keep working.
    """

    _unnamed = "<data>"

    def __init__(self, problem: str, path: Any = None, line: int | None = None):
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        where = self.path if self.path is not None else self._unnamed
        if line is not None:
            where = f"{where}, line {line}"
        super().__init__(f"{where}: {problem}")


class MissingValuesWarning(UserWarning):
    """Issued by the loaders when features hold missing values (``?`` in ARFF, kept as NaN)."""


@dataclass(repr=False, eq=False)  # arrays make field-wise == meaningless
class MultiLabelDataset:
    """A multi-label data set: features ``X``, labels ``Y`` and their metadata.

    Attributes
    ----------
    X : ndarray of shape (n, d) float64, or scipy.sparse.csr_matrix
        Features.  Sparse ARFF files give a CSR matrix, everything else a dense
        array.  Nominal features hold the 0-based index of their value in the
        declared value list (see ``categories``).  Missing values are NaN.
    Y : ndarray of shape (n, q) uint8
        Label indicator matrix (0/1).
    feature_names, label_names : list of str
        Column names of ``X`` and ``Y``.
    feature_types : list of str
        ``"numeric"`` or ``"nominal"`` per feature.
    categories : list of (list of str or None)
        For each feature, the declared values of a nominal feature (``X`` holds
        indices into this list), ``None`` for numeric features.
    name : str
        Short data set name (file stem without ``-train``/``-test``/``-sparse``).
    source : str or None
        The file the data came from; for several parts, their paths joined by ``" + "``.
    parts : tuple of str
        The part files, in order, when the data set was assembled from several
        files (e.g. ``scene-train.arff`` + ``scene-test.arff``); empty otherwise.
    part : ndarray of shape (n,) int or None
        For assembled data sets, the index into ``parts`` of each row, so the
        original train/test split can be reused (``part == 0`` is the training part
        of a train + test pair).  ``None`` for a single file.
    split_masks : ndarray of shape (n, n_splits) bool or None
        Stored holdout splits of a ``.mat`` file (``sim_seq``): column ``k`` is
        ``True`` on the training rows of split ``k``.
    X_discrete : ndarray of shape (n, d) or None
        The discretized copy of the features stored in a ``.mat`` file (``data_dis``).
    first_missing : str or None
        Where the first missing feature value was read (``"<file>, line <n>"``), when
        ``X`` has missing values and the loader knows the line (ARFF); ``None`` otherwise.
    """

    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: list[str]
    label_names: list[str]
    feature_types: list[str]
    categories: list[list[str] | None] = field(default_factory=list)
    name: str = ""
    source: str | None = None
    parts: tuple[str, ...] = ()
    part: np.ndarray | None = None
    split_masks: np.ndarray | None = None
    X_discrete: np.ndarray | None = None
    first_missing: str | None = None

    def __post_init__(self) -> None:
        n, d = self.X.shape
        if self.Y.ndim != 2 or self.Y.shape[0] != n:
            raise ValueError(
                f"Y has shape {self.Y.shape}; expected ({n}, q) to match X {self.X.shape}"
            )
        q = self.Y.shape[1]
        if not self.categories:
            self.categories = [None] * d
        for what, seq, size in (
            ("feature_names", self.feature_names, d),
            ("feature_types", self.feature_types, d),
            ("categories", self.categories, d),
            ("label_names", self.label_names, q),
        ):
            if len(seq) != size:
                raise ValueError(f"{what} has {len(seq)} entries; expected {size}")
        bad = set(self.feature_types) - {"numeric", "nominal"}
        if bad:
            raise ValueError(f"feature_types must be 'numeric' or 'nominal'; got {sorted(bad)}")
        if self.part is not None and self.part.shape != (n,):
            raise ValueError(f"part has shape {self.part.shape}; expected ({n},)")
        if self.split_masks is not None and (
            self.split_masks.ndim != 2 or self.split_masks.shape[0] != n
        ):
            raise ValueError(f"split_masks has shape {self.split_masks.shape}; expected ({n}, k)")
        if self.X_discrete is not None and self.X_discrete.shape != (n, d):
            raise ValueError(f"X_discrete has shape {self.X_discrete.shape}; expected {(n, d)}")

    # ------------------------------------------------------------------ sizes

    @property
    def n_samples(self) -> int:
        """Number of patterns |W|."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of features |F|."""
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        """Number of labels |L|."""
        return int(self.Y.shape[1])

    @property
    def n_train(self) -> int | None:
        """Rows of the first part (the training part of a train + test pair), else ``None``."""
        if self.part is None:
            return None
        return int(np.count_nonzero(self.part == 0))

    @property
    def n_missing(self) -> int:
        """Number of missing feature values (NaN in ``X``)."""
        data = self.X.data if sp.issparse(self.X) else self.X
        return int(np.count_nonzero(np.isnan(data)))

    @property
    def feature_type(self) -> str:
        """``"numeric"``, ``"nominal"`` or ``"mixed"`` (``"none"`` without features)."""
        kinds = set(self.feature_types)
        if not kinds:
            return "none"
        return kinds.pop() if len(kinds) == 1 else "mixed"

    # ------------------------------------------------------------------ statistics

    def stats(self) -> dict[str, Any]:
        """Standard characteristics of the data set (the columns of Table 1 of the SCLS paper).

        Returns
        -------
        dict
            ``name``; ``n_patterns`` |W|; ``n_features`` |F|; ``feature_type``
            (``"numeric"``, ``"nominal"`` or ``"mixed"``); ``n_labels`` |L|;
            ``cardinality`` (mean number of relevant labels per pattern);
            ``density`` (cardinality / |L|); ``distinct`` (number of distinct label
            sets); ``n_missing`` (missing feature values); ``sparse`` (X is sparse).
        """
        n, q = self.Y.shape
        card = float(self.Y.sum(dtype=np.int64)) / n if n else float("nan")
        if n:
            packed = np.ascontiguousarray(np.packbits(self.Y.astype(bool), axis=1))
            rows = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
            distinct = int(np.unique(rows).size)
        else:
            distinct = 0
        return {
            "name": self.name,
            "n_patterns": n,
            "n_features": self.n_features,
            "feature_type": self.feature_type,
            "n_labels": q,
            "cardinality": card,
            "density": card / q if q else float("nan"),
            "distinct": distinct,
            "n_missing": self.n_missing,
            "sparse": bool(sp.issparse(self.X)),
        }

    def __repr__(self) -> str:
        kind = "sparse" if sp.issparse(self.X) else "dense"
        extra = ""
        if self.parts:
            extra += f", parts={len(self.parts)}"
        if self.split_masks is not None:
            extra += f", split_masks={self.split_masks.shape[1]}"
        return (
            f"MultiLabelDataset(name={self.name!r}, n_samples={self.n_samples}, "
            f"n_features={self.n_features} ({self.feature_type}, {kind}), "
            f"n_labels={self.n_labels}{extra})"
        )


_COLUMNS = (
    # (heading, key, format)
    ("Dataset", "name", "{}"),
    ("|W|", "n_patterns", "{:d}"),
    ("|F|", "n_features", "{:d}"),
    ("Type", "feature_type", "{}"),
    ("|L|", "n_labels", "{:d}"),
    ("Card.", "cardinality", "{:.3f}"),
    ("Den.", "density", "{:.3f}"),
    ("Distinct", "distinct", "{:d}"),
)


#: the headings in words (``format_stats(..., headers="words")``, ``mlfs info``)
_WORDS = {"|W|": "Patterns", "|F|": "Features", "|L|": "Labels", "Card.": "Cardinality",
          "Den.": "Density", "Distinct": "Label sets"}


def format_stats(
    datasets_or_stats: MultiLabelDataset | Mapping[str, Any] | Iterable[Any],
    *,
    headers: str = "paper",
) -> str:
    """Render data set statistics as an aligned plain-text table.

    Parameters
    ----------
    datasets_or_stats : MultiLabelDataset, dict, or iterable of them
        Data sets, or dicts as returned by :meth:`MultiLabelDataset.stats`.
    headers : {"paper", "words"}, default="paper"
        ``"paper"``: the headings of Table 1 of the SCLS paper (``|W|``, ``|F|``, ``|L|``,
        ``Card.``, ``Den.``, ``Distinct``); ``"words"``: Patterns, Features, Labels,
        Cardinality (mean labels per pattern), Density (cardinality / labels), Label sets
        (distinct label combinations).

    Returns
    -------
    str
        One header line, one rule and one line per data set, with the columns of
        Table 1 of the SCLS paper (Dataset, |W|, |F|, Type, |L|, Card., Den.,
        Distinct), plus a ``Missing`` column when any data set has missing values.
        Text columns are left-aligned, numbers right-aligned.
    """
    if isinstance(datasets_or_stats, MultiLabelDataset | Mapping):
        items: list[Any] = [datasets_or_stats]
    else:
        items = list(datasets_or_stats)
    rows = []
    for it in items:
        if isinstance(it, MultiLabelDataset):
            rows.append(it.stats())
        elif isinstance(it, Mapping):
            rows.append(dict(it))
        else:
            raise TypeError(
                "format_stats expects MultiLabelDataset objects or stats dicts; got "
                f"{type(it).__name__}"
            )
    if headers not in ("paper", "words"):
        raise ValueError(f"headers must be 'paper' or 'words'; got {headers!r}")
    columns = list(_COLUMNS)
    if headers == "words":
        columns = [(_WORDS.get(h, h), k, f) for h, k, f in columns]
    if any(r.get("n_missing", 0) for r in rows):
        columns.append(("Missing", "n_missing", "{:d}"))
    cells = [[h for h, _, _ in columns]]
    for r in rows:
        line = []
        for _, key, fmt in columns:
            v = r.get(key)
            line.append("-" if v is None else fmt.format(v))
        cells.append(line)
    widths = [max(len(c[j]) for c in cells) for j in range(len(columns))]
    left = {"name", "feature_type"}

    def render(cs: list[str]) -> str:
        out = []
        for (_, key, _), c, w in zip(columns, cs, widths, strict=True):
            out.append(c.ljust(w) if key in left else c.rjust(w))
        return "  ".join(out).rstrip()

    lines = [render(cells[0]), "  ".join("-" * w for w in widths)]
    lines += [render(c) for c in cells[1:]]
    return "\n".join(lines)


def apply_missing_policy(
    missing: str,
    path: Any,
    line: int | None,
    n_missing: int,
    n_rows: int,
    *,
    symbol: str = "",
    error: type = None,
    stacklevel: int = 3,
) -> str:
    """The one treatment of missing feature values found while reading ``path``.

    ``missing="raise"`` raises ``error`` (a :class:`DatasetError` by default) at the
    ``line`` of the first; ``"warn"`` warns with :class:`MissingValuesWarning` (the values
    stay NaN in ``X``); ``"ignore"`` says nothing. ``symbol`` is how the file writes a
    missing value (``"'?'"`` in ARFF). Returns where the first one is (``"<file>, line
    <n>"``), the dataset's ``first_missing``.
    """
    where = f"{path}, line {line}" if line is not None else str(path)
    if missing == "raise":
        what = f"missing feature value {symbol}" if symbol else "missing feature value"
        raise (error or DatasetError)(
            f"{what} ({n_missing} in the file, missing='raise')", path, line
        )
    if missing == "warn":
        sym = f" ({symbol})" if symbol else ""
        first = ", the first on this line" if line is not None else ""
        warnings.warn(
            f"{where}: {n_missing} missing feature value(s){sym} in {n_rows} row(s){first}; "
            "they are kept as NaN in X (impute or drop them before selection; pass "
            "missing='ignore' to silence this warning)",
            MissingValuesWarning,
            stacklevel=stacklevel + 1,
        )
    return where


def _check_missing_policy(missing: str) -> None:
    if missing not in ("warn", "raise", "ignore"):
        raise ValueError(f"missing must be 'warn', 'raise' or 'ignore'; got {missing!r}")
