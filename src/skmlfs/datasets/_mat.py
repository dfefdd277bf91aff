"""MATLAB ``.mat`` data sets (``data`` / ``answer`` / ``data_dis`` / ``sim_seq``)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Literal

import numpy as np
import scipy.sparse as sp

from .._validation import check_labels
from ._dataset import DatasetError, MultiLabelDataset

__all__ = ["LabelCopiesWarning", "load_mat"]


# Largest integer code of a .mat feature typed nominal (the uint8 range of PLCFS files).
_MAX_MAT_CODE = 255


class LabelCopiesWarning(UserWarning):
    """The feature matrix of a ``.mat`` file ends with an exact copy of the label matrix."""


def _as_2d(value, key: str, path: Path) -> np.ndarray | sp.csr_matrix:
    if sp.issparse(value):
        return sp.csr_matrix(value)
    arr = np.asarray(value)
    if arr.ndim != 2 or arr.dtype.kind not in "biuf":
        raise DatasetError(
            f"variable {key!r} must be a 2-D numeric matrix; got shape {arr.shape}, "
            f"dtype {arr.dtype}",
            path,
        )
    return arr


def _orient(arr, n: int, key: str, path: Path):
    """Rows must be patterns; a matrix stored patterns-in-columns is transposed."""
    if arr.shape[0] == n:
        return arr
    if arr.shape[1] == n:
        return arr.T
    raise DatasetError(f"{key!r} has shape {arr.shape}, which does not match {n} patterns", path)


def _orient_pair(data, answer, path: Path):
    """Orient ``data`` (n × d) and ``answer`` (n × q) so that rows are patterns.

    As stored when their row counts agree. Otherwise one of them may be stored with
    patterns in columns (e.g. a q × n label matrix, the MATLAB toolboxes' convention): it
    is transposed only when exactly one such fix makes the row counts agree. Anything else
    — no fix, several fixes, or both matrices transposed — is an error, never a guess.
    """
    (dr, dc), (ar, ac) = data.shape, answer.shape
    if dr == ar:
        return data, answer
    fixes = [(data, answer.T, "'answer' transposed")] if dr == ac else []
    if dc == ar:
        fixes.append((data.T, answer, "'data' transposed"))
    if len(fixes) == 1:
        return fixes[0][:2]
    shapes = f"'data' {data.shape} and 'answer' {answer.shape}"
    if fixes:
        raise DatasetError(
            f"{shapes} are ambiguous: their rows (patterns) differ, and either "
            f"{fixes[0][2]} or {fixes[1][2]} would make them agree; store both with one "
            "row per pattern",
            path,
        )
    raise DatasetError(
        f"{shapes} do not match: rows are patterns, so both need the same number of rows "
        "(one of them may be stored transposed, not both)",
        path,
    )


def load_mat(
    path: str | os.PathLike[str],
    *,
    label_copies: Literal["warn", "drop", "keep"] = "warn",
    name: str | None = None,
) -> MultiLabelDataset:
    """Load a MATLAB ``.mat`` multi-label data set (PLCFS layout).

    Variables: ``data`` (n × d features), ``answer`` (n × q labels, 0/1), and when
    present ``data_dis`` (a discretized copy of ``data``) and ``sim_seq`` (n × k
    holdout splits: ``sim_seq[:, k] == 1`` marks the training rows of split ``k``).
    Rows are patterns. When the row counts of ``data`` and ``answer`` differ, one of
    them may be stored with patterns in columns (e.g. ``answer`` as q × n): it is
    transposed only when that is the one way to make the row counts agree; otherwise
    (ambiguous shapes, or no way) a :class:`DatasetError` is raised rather than a guess
    made. ``data_dis`` and ``sim_seq`` are then oriented to the n patterns.  MATLAB
    v7.3 (HDF5) files are not supported by ``scipy.io.loadmat``.

    Parameters
    ----------
    path : str or path-like
        The ``.mat`` file.
    label_copies : {"warn", "drop", "keep"}, default "warn"
        What to do when the last ``q`` columns of ``data`` equal ``answer`` exactly
        (the labels were left among the features — the case of PLCFS
        ``medical.mat``, whose 1494 columns are Mulan's 1449 features plus the 45
        labels): ``"warn"`` keeps them and issues a :class:`LabelCopiesWarning`,
        ``"drop"`` removes them from ``X`` (and ``X_discrete``), ``"keep"`` keeps them
        silently.
    name : str, optional
        Data set name; defaults to the file stem.

    Returns
    -------
    MultiLabelDataset
        ``X`` as float64 (dense, or CSR when ``data`` is sparse).  Integer-typed
        ``data`` holds category codes: its features are typed ``"nominal"`` with
        ``categories[j] = ["0", "1", ..., str(max_j)]`` so that ``X`` holds indices
        into the category list as for ARFF nominal features (a column whose codes
        exceed 255 is typed ``"numeric"`` instead, so that no category list is built
        from a value read from the file); float ``data`` is ``"numeric"``.
        ``split_masks`` (bool) comes from ``sim_seq`` and
        ``X_discrete`` from ``data_dis`` (dtype as stored), ``None`` when absent.

    Raises
    ------
    DatasetError
        (a ``ValueError``, naming the file) Missing ``data`` / ``answer``, inconsistent
        or ambiguous shapes, no pattern or no feature, infinite feature values, labels
        not 0/1, splits not 0/1, unreadable or damaged file.
    """
    from scipy.io import loadmat
    from scipy.io.matlab import MatReadError

    if label_copies not in ("warn", "drop", "keep"):
        raise ValueError(f"label_copies must be 'warn', 'drop' or 'keep'; got {label_copies!r}")
    path = Path(path)
    try:
        m = loadmat(path)
    except NotImplementedError:
        raise DatasetError(
            "MATLAB v7.3 (HDF5) files are not supported; re-save it with save(..., '-v7')", path
        ) from None
    except (OSError, ValueError, TypeError, MatReadError) as exc:
        raise DatasetError(f"cannot read MATLAB file: {exc}", path) from exc
    except Exception as exc:  # noqa: BLE001
        # A damaged file makes scipy's reader fail from deep inside (zlib.error for a
        # flipped byte in a compressed variable, IndexError / struct.error for a
        # truncated header, MemoryError for an absurd declared size): all name the file.
        raise DatasetError(
            f"cannot read MATLAB file (damaged?): {type(exc).__name__}: {exc}", path
        ) from exc
    for key in ("data", "answer"):
        if key not in m:
            found = sorted(k for k in m if not k.startswith("__"))
            raise DatasetError(f"no variable {key!r} (found: {', '.join(found) or 'none'})", path)
    data, answer = _orient_pair(
        _as_2d(m["data"], "data", path), _as_2d(m["answer"], "answer", path), path
    )
    n = data.shape[0]
    if n == 0 or data.shape[1] == 0:
        # the ARFF reader rejects the same cases (no data rows / no feature left)
        raise DatasetError(
            f"'data' has shape {data.shape}: a data set needs at least one pattern and "
            "one feature",
            path,
        )
    try:
        Y = check_labels(answer, n, name="answer")
    except ValueError as exc:
        raise DatasetError(str(exc), path) from None

    integer = data.dtype.kind in "biu"
    if sp.issparse(data):
        X = sp.csr_matrix(data, dtype=np.float64)
    else:
        X = np.ascontiguousarray(data, dtype=np.float64)
    values = X.data if sp.issparse(X) else X
    if np.isinf(values).any():
        if sp.issparse(X):
            coo = X.tocoo()
            first = np.flatnonzero(np.isinf(coo.data))[0]
            r, c = int(coo.row[first]) + 1, int(coo.col[first]) + 1
        else:
            r, c = (np.argwhere(np.isinf(X))[0] + 1).tolist()
        raise DatasetError(
            f"'data' holds {int(np.isinf(values).sum())} infinite value(s), the first in "
            f"row {r}, column {c} (1-based); features must be finite (NaN marks a missing "
            "value)",
            path,
        )
    if integer and values.size and (X.min() < 0):
        integer = False  # negative codes cannot index a category list

    X_discrete = None
    if "data_dis" in m:
        Xd = _orient(_as_2d(m["data_dis"], "data_dis", path), n, "data_dis", path)
        X_discrete = Xd.toarray() if sp.issparse(Xd) else np.ascontiguousarray(Xd)
        if X_discrete.shape != X.shape:
            raise DatasetError(f"data_dis has shape {X_discrete.shape}, data has {X.shape}", path)
    split_masks = None
    if "sim_seq" in m:
        S = _orient(_as_2d(m["sim_seq"], "sim_seq", path), n, "sim_seq", path)
        S = S.toarray() if sp.issparse(S) else S
        if np.any((S != 0) & (S != 1)):
            raise DatasetError("sim_seq must hold 0/1 training-row indicators", path)
        split_masks = np.ascontiguousarray(S, dtype=bool)

    q = Y.shape[1]
    d = X.shape[1]
    if d > q:
        tail = X[:, d - q :]
        tail = tail.toarray() if sp.issparse(tail) else tail
        if np.array_equal(tail, Y):
            if label_copies == "drop":
                X = X[:, : d - q]
                if X_discrete is not None:
                    X_discrete = X_discrete[:, : d - q]
                d -= q
            elif label_copies == "warn":
                warnings.warn(
                    f"{path}: the last {q} columns of 'data' are an exact copy of the label "
                    f"matrix 'answer' (features {d - q}..{d - 1}); they are kept as features. "
                    "Pass label_copies='drop' to remove them (a selector would otherwise "
                    "pick the labels themselves), or label_copies='keep' to silence this.",
                    LabelCopiesWarning,
                    stacklevel=2,
                )
    if integer:
        maxes = X.max(axis=0).toarray().ravel() if sp.issparse(X) else X.max(axis=0)
        # The category list of a code column is "0".."max": never build one whose length
        # is a value read from the file (2**31 - 1 would exhaust memory). Columns with
        # codes above _MAX_MAT_CODE are counts or identifiers, kept as numeric features.
        nominal = maxes <= _MAX_MAT_CODE
        types = ["nominal" if nom else "numeric" for nom in nominal]
        categories = [
            [str(v) for v in range(int(mx) + 1)] if nom else None
            for mx, nom in zip(maxes, nominal, strict=True)
        ]
    else:
        types = ["numeric"] * d
        categories = [None] * d
    return MultiLabelDataset(
        X=X,
        Y=Y,
        feature_names=[f"f{j}" for j in range(d)],
        label_names=[f"l{k}" for k in range(q)],
        feature_types=types,
        categories=categories,
        name=name or path.stem,
        source=str(path),
        split_masks=split_masks,
        X_discrete=X_discrete,
    )
