"""Loading Mulan / MEKA ARFF files (whole files or train + test parts) by path or name."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias

import numpy as np
import scipy.sparse as sp

from ._arff import NOMINAL, ARFFError, ParsedARFF, parse_arff
from ._dataset import MultiLabelDataset, _check_missing_policy, apply_missing_policy
from ._mat import load_mat
from ._sources import find_dataset
from ._tabular import TABULAR_SUFFIXES, load_tabular
from ._xml import _xml_line, read_label_xml

__all__ = ["load", "load_name", "load_train_test"]

PathLike: TypeAlias = "str | os.PathLike[str]"
LabelSpec: TypeAlias = "PathLike | Sequence[str] | int | None"
MissingPolicy = Literal["warn", "raise", "ignore"]


class _LabelPrefix(str):
    """``labels`` given as a prefix of the label attribute names (``label_prefix=``)."""


# --------------------------------------------------------------------------- label files


def _find_label_xml(arff: Path) -> tuple[Path | None, list[str]]:
    """The XML label file beside ``arff``: the longest ``-``/``_`` prefix of its stem.

    ``emotions.arff`` -> ``emotions.xml``; ``scene-train.arff`` -> ``scene.xml``;
    ``Corel5k-train-sparse.arff`` -> ``Corel5k.xml``; ``tmc2007-500-test.arff`` ->
    ``tmc2007-500.xml``.  Matching ignores case.  Returns the file (or ``None``) and
    the names tried.
    """
    try:
        xmls = {p.name.lower(): p for p in arff.parent.iterdir() if p.suffix.lower() == ".xml"}
    except OSError:
        xmls = {}
    stem = arff.stem
    cuts = [m.start() for m in re.finditer(r"[-_]", stem)]
    tried = []
    for end in [len(stem), *reversed(cuts)]:
        cand = stem[:end] + ".xml"
        tried.append(cand)
        if cand.lower() in xmls:
            return xmls[cand.lower()], tried
    return None, tried


_MEKA = re.compile(r"(?:^|\s)-C\s+(-?\d+)")


def _meka_count(relation: str) -> int | None:
    m = _MEKA.search(relation)
    return int(m.group(1)) if m else None


def _resolve_labels(parsed: ParsedARFF, labels: LabelSpec) -> list[int]:
    """Attribute indices of the labels, in file order (Mulan's convention)."""
    atts = parsed.attributes
    n_att = len(atts)
    path = parsed.path
    names: list[str] | None = None
    xml: Path | None = None
    if labels is None:
        xml, tried = _find_label_xml(path)
        if xml is not None:
            names = read_label_xml(xml)
        else:
            c = _meka_count(parsed.relation)
            if c is None:
                raise ARFFError(
                    "cannot tell which attributes are labels: no XML label file beside it "
                    f"(tried {', '.join(tried)}) and no MEKA '-C n' option in @relation; "
                    "pass labels= (an XML file, a list of label names or a MEKA count)",
                    path,
                )
            idx = _meka_indices(c, n_att, path, parsed.relation_line)
            # Mulan files can carry a stale "-C n" (medical.arff says -C 45 with its labels
            # last): without the XML file this is a guess, so it is never a silent one.
            which = f"first {c}" if c > 0 else f"last {-c}"
            warnings.warn(
                f"{path}: no XML label file beside it (tried {', '.join(tried)}), so the "
                f"labels are the {which} attributes, as the MEKA option '-C {c}' in "
                f"@relation (line {parsed.relation_line}) says; pass labels= (the XML "
                f"file, the label names, or labels={c} to confirm) to silence this",
                UserWarning,
                stacklevel=4,
            )
            return idx
    elif isinstance(labels, bool):
        raise TypeError("labels must be an XML path, a list of names or an int; got a bool")
    elif isinstance(labels, _LabelPrefix):
        names = [a.name for a in atts if a.name.startswith(labels)]
        if not names:
            raise ARFFError(f"no attribute name starts with the label prefix {labels!r}", path)
    elif isinstance(labels, int | np.integer):
        return _meka_indices(int(labels), n_att, path, parsed.data_line)
    elif isinstance(labels, str | os.PathLike):
        xml = Path(labels)
        if not xml.is_file():
            raise FileNotFoundError(
                f"label file {xml} does not exist (to name the labels pass a list, e.g. "
                f"labels=[{str(labels)!r}])"
            )
        names = read_label_xml(xml)
    elif isinstance(labels, Sequence) and all(isinstance(v, str) for v in labels):
        names = list(labels)
        if len(set(names)) != len(names):
            raise ValueError("labels lists a name twice")
        if not names:
            raise ValueError("labels is an empty list")
    else:
        raise TypeError(
            "labels must be None, an XML path, a list of label names or an int (MEKA -C); "
            f"got {type(labels).__name__}"
        )
    index = {a.name: j for j, a in enumerate(atts)}
    missing = [n for n in names if n not in index]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" ..." if len(missing) > 5 else "")
        if xml is not None:
            raise ARFFError(
                f"{len(missing)} label(s) of this file not found among the attributes of "
                f"{path}: {shown}",
                xml,
                _xml_line(xml, missing[0]),
            )
        raise ARFFError(
            f"{len(missing)} label(s) not found among the attributes: {shown}",
            path,
            parsed.data_line,
        )
    idx = sorted(index[n] for n in names)
    if len(idx) == n_att:
        raise ARFFError("every attribute is a label; no feature is left", path, parsed.data_line)
    return idx


def _meka_indices(c: int, n_att: int, path: Path, line: int | None) -> list[int]:
    if c == 0 or abs(c) >= n_att:
        raise ARFFError(
            f"MEKA label count -C {c} is invalid for {n_att} attributes (need 0 < |C| < {n_att})",
            path,
            line,
        )
    return list(range(c)) if c > 0 else list(range(n_att + c, n_att))


# --------------------------------------------------------------------------- assembly


def _dataset_name(path: Path) -> str:
    stem = path.stem
    while True:
        new = re.sub(r"(?i)[-_](train|test|sparse)$", "", stem)
        if new == stem or not new:
            return stem
        stem = new


def _assemble(parsed: ParsedARFF, label_idx: list[int], missing: MissingPolicy) -> dict:
    atts = parsed.attributes
    path = parsed.path
    M = parsed.M
    labset = set(label_idx)
    feat_idx = [j for j in range(len(atts)) if j not in labset]

    # Labels: nominal {0,1} (the value, not its index, is the label) or numeric 0/1.
    q = len(label_idx)
    lut = np.zeros((q, 2))  # lut[k, c]: label value of code c of a nominal label
    is_nom = np.zeros(q, dtype=bool)
    for k, j in enumerate(label_idx):
        a = atts[j]
        if a.kind == NOMINAL:
            if not set(a.values) <= {"0", "1"}:
                raise ARFFError(
                    f"label attribute {a.name!r} must be nominal {{0,1}} or numeric with 0/1 "
                    f"values; it is declared {{{','.join(a.values)}}}",
                    path,
                    a.line,
                )
            is_nom[k] = True
            lut[k, : len(a.values)] = [float(v) for v in a.values]

    def label_values(codes: np.ndarray, k: np.ndarray) -> np.ndarray:
        out = codes.astype(np.float64, copy=True)
        sel = is_nom[k] & ~np.isnan(out)
        out[sel] = lut[k[sel], out[sel].astype(np.intp)]
        return out

    def check_labels(vals: np.ndarray, rows: np.ndarray, k: np.ndarray) -> None:
        bad = np.isnan(vals) | ((vals != 0) & (vals != 1))
        if not bad.any():
            return
        b = np.flatnonzero(bad)
        first = b[np.lexsort((k[b], rows[b]))[0]]
        a = atts[label_idx[k[first]]]
        line = int(parsed.linenos[rows[first]])
        if np.isnan(vals[first]):
            raise ARFFError(f"missing value '?' for label {a.name!r}", path, line)
        raise ARFFError(
            f"label {a.name!r} has value {vals[first]:g}; label values must be 0 or 1",
            path,
            line,
        )

    n, n_att = M.shape
    d = len(feat_idx)
    if sp.issparse(M):
        # Split the CSR arrays directly (no column fancy-indexing, no dense n × A block).
        indices, values = M.indices, M.data
        rows = np.repeat(np.arange(n), np.diff(M.indptr))
        pos = np.full(n_att, -1, dtype=np.int64)
        pos[label_idx] = np.arange(q)
        k_of = pos[indices]
        is_lab = k_of >= 0
        lk, lr = k_of[is_lab], rows[is_lab]
        lv = label_values(values[is_lab], lk)
        check_labels(lv, lr, lk)
        # An omitted entry is code 0 (nominal) or 0.0 (numeric); its label value:
        omitted = np.where(is_nom, lut[:, 0], 0.0).astype(np.uint8)
        Y = np.tile(omitted, (n, 1))
        Y[lr, lk] = lv.astype(np.uint8)
        pos[:] = -1
        pos[feat_idx] = np.arange(d)
        keep = ~is_lab & (values != 0)  # drops explicit zeros, keeps NaN
        x_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows[keep], minlength=n), out=x_indptr[1:])
        X = sp.csr_matrix((values[keep], pos[indices[keep]], x_indptr), shape=(n, d))
        data = X.data
    else:
        k_all = np.broadcast_to(np.arange(q), (n, q)).ravel()
        r_all = np.repeat(np.arange(n), q)
        yv = label_values(M[:, label_idx].ravel(), k_all)
        check_labels(yv, r_all, k_all)
        Y = yv.astype(np.uint8).reshape(n, q)
        X = np.ascontiguousarray(M[:, feat_idx])
        data = X
    nan = np.isnan(data)
    n_nan = int(np.count_nonzero(nan))
    first_missing = None
    if n_nan:
        if sp.issparse(X):
            first = np.flatnonzero(nan)[0]
            r = int(np.searchsorted(X.indptr, first, side="right") - 1)
            rows = np.unique(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[nan]).size
        else:
            r = int(np.flatnonzero(nan.any(axis=1))[0])
            rows = int(np.count_nonzero(nan.any(axis=1)))
        first_missing = apply_missing_policy(
            missing, path, int(parsed.linenos[r]), n_nan, rows, symbol="'?'", error=ARFFError,
            stacklevel=4,
        )
    fa = [atts[j] for j in feat_idx]
    return {
        "X": X,
        "Y": Y,
        "feature_names": [a.name for a in fa],
        "label_names": [atts[j].name for j in label_idx],
        "feature_types": [a.kind for a in fa],
        "categories": [list(a.values) if a.kind == NOMINAL else None for a in fa],
        "first_missing": first_missing,
    }


def _load_parts(
    paths: list[Path], labels: LabelSpec, missing: MissingPolicy, name: str | None
) -> MultiLabelDataset:
    pieces = []
    first: ParsedARFF | None = None
    first_labels: list[int] | None = None
    for p in paths:
        parsed = parse_arff(p)
        if first is None:
            first = parsed
        else:
            a0, a1 = first.attributes, parsed.attributes
            if len(a0) != len(a1):
                raise ARFFError(
                    f"this part declares {len(a1)} attributes but {first.path.name} "
                    f"declares {len(a0)}; parts of one data set must share the header",
                    p,
                    parsed.data_line,
                )
            for x, y in zip(a0, a1, strict=True):
                if not x.same_declaration(y):
                    raise ARFFError(
                        f"attribute {y.name!r} is declared differently from {x.name!r} on "
                        f"line {x.line} of {first.path.name}; parts of one data set must "
                        "share the header",
                        p,
                        y.line,
                    )
        lab = _resolve_labels(parsed, labels)
        if first_labels is None:
            first_labels = lab
        elif lab != first_labels:
            raise ARFFError(
                f"the labels found for this part differ from those of {first.path.name}",
                p,
            )
        pieces.append(_assemble(parsed, lab, missing))
        del parsed
    assert first is not None
    base = pieces[0]
    if len(pieces) == 1:
        return MultiLabelDataset(**base, name=name or _dataset_name(paths[0]), source=str(paths[0]))
    if any(sp.issparse(pc["X"]) for pc in pieces):
        X = sp.vstack([sp.csr_matrix(pc["X"]) for pc in pieces], format="csr")
    else:
        X = np.vstack([pc["X"] for pc in pieces])
    Y = np.vstack([pc["Y"] for pc in pieces])
    part = np.concatenate(
        [np.full(pc["Y"].shape[0], k, dtype=np.int64) for k, pc in enumerate(pieces)]
    )
    return MultiLabelDataset(
        X=X,
        Y=Y,
        feature_names=base["feature_names"],
        label_names=base["label_names"],
        feature_types=base["feature_types"],
        categories=base["categories"],
        name=name or _dataset_name(paths[0]),
        source=" + ".join(str(p) for p in paths),
        parts=tuple(str(p) for p in paths),
        part=part,
        first_missing=next((pc["first_missing"] for pc in pieces if pc["first_missing"]), None),
    )


# --------------------------------------------------------------------------- public API


def load(
    path: PathLike | Sequence[PathLike],
    labels: LabelSpec = None,
    *,
    missing: MissingPolicy = "warn",
    name: str | None = None,
    label_prefix: str | None = None,
) -> MultiLabelDataset:
    """Load a multi-label data set from a Mulan or MEKA ARFF file (or a ``.mat`` file).

    Parameters
    ----------
    path : str, path-like, or sequence of them
        An ``.arff`` file; a ``.mat`` file (delegated to :func:`load_mat`); or a
        list of ARFF parts (e.g. ``[train, test]``) that share one header, which
        are concatenated in order, with ``part`` recording where each row came from.
    labels : None, str/path-like, sequence of str, or int
        Which attributes are labels.  ``None``: the Mulan XML label file beside the
        ARFF file, found by name (``emotions.arff`` -> ``emotions.xml``,
        ``scene-train.arff`` -> ``scene.xml``, ``Corel5k-sparse.arff`` ->
        ``Corel5k.xml``: progressively shorter ``-``/``_`` prefixes of the stem);
        failing that, a MEKA ``-C n`` option in ``@relation``.  A path: an XML
        label file.  A list: the label attribute names.  An int ``n``: MEKA
        convention, the first ``n`` attributes are labels (``n > 0``) or the last
        ``-n`` (``n < 0``).  Labels may sit anywhere among the attributes; the
        columns of ``Y`` follow the attribute order of the file (Mulan's
        convention), whatever the order of the XML file or the list.
    missing : {"warn", "raise", "ignore"}, default "warn"
        Missing feature values (``?``) are kept as NaN in ``X``.  ``"warn"``
        issues a :class:`MissingValuesWarning` with their count, ``"raise"`` raises
        :class:`ARFFError` at the first one, ``"ignore"`` does neither.  A missing
        *label* value is always an error.
    name : str, optional
        Data set name; by default the file stem without ``-train``, ``-test`` and
        ``-sparse`` suffixes.
    label_prefix : str, optional
        Instead of ``labels``: every attribute (or column) whose name starts with this
        prefix is a label.

    Returns
    -------
    MultiLabelDataset
        ``X`` is a CSR matrix for sparse ARFF (``{i v, ...}`` rows), otherwise a dense
        float64 array; nominal features hold the index of their value in the
        declared list (in sparse rows an omitted nominal value is index 0, as in
        Weka); ``Y`` is a dense uint8 0/1 matrix.

    Raises
    ------
    ARFFError
        Malformed input (the message names the file, the 1-based line and the
        problem): unknown or unsupported attribute type (string, date, relational),
        wrong number of values in a row, bad or out-of-order sparse index, value not
        among the declared nominal values, non-numeric value in a numeric column,
        unterminated quote, missing ``@data`` or data rows, label not found, label
        attribute not 0/1, missing label value.

    Notes
    -----
    * Every attribute that is not a label is a feature; nothing is dropped.  Mulan's
      genbase therefore has 1186 features: the 1185 ``{YES,NO}`` motif features
      counted in Table 1 of the SCLS paper plus ``protein``, a nominal identifier
      with one distinct value per pattern (drop it yourself if you want Table 1's
      1185, e.g. ``X[:, 1:]``).  Note also that its ``{YES,NO}`` declaration makes
      YES index 0.
    * Values are read as in Weka / liac-arff: comma-separated, optionally quoted
      with ``'`` or ``"`` (backslash escapes), ``%`` starts a comment, keywords are
      case-insensitive; bare attribute names are taken verbatim (backslashes
      included, as Mulan's XML files spell them).  A numeric-looking nominal value
      matches its declaration numerically (``2.0`` is the declared ``2``).  A
      literal ``nan`` in a numeric column is a missing value like ``?``.
    * Files are decoded as UTF-8, falling back to Latin-1.
    * Dense and sparse rows are parsed by vectorised fast paths; any irregularity
      sends the file to a careful line-by-line reader, which gives the same result
      or the error message.
    * CSV, TSV and Parquet tables (``.csv``, ``.tsv``, ``.tab``, ``.parquet``, ``.pq``)
      go to :func:`~skmlfs.datasets.load_tabular`; name their label columns with
      ``labels=[...]`` or ``label_prefix=``.
    * A path that does not exist is looked up as a data set name (``"emotions"``) in
      ``$MLFS_DATASETS``, then in the download cache of :func:`~skmlfs.datasets.fetch`;
      the error lists every place tried.
    """
    _check_missing_policy(missing)
    if label_prefix is not None:
        if labels is not None:
            raise ValueError("pass either labels= or label_prefix=, not both")
        if not isinstance(label_prefix, str) or not label_prefix:
            raise ValueError(f"label_prefix must be a non-empty string; got {label_prefix!r}")
    if isinstance(path, str | os.PathLike):
        p = Path(path)
        if not p.exists():
            file, root, found = find_dataset(p)
            if file is None:
                if label_prefix is not None:
                    labels = _LabelPrefix(label_prefix)
                return load_name(found, root=root, labels=labels, missing=missing)
            p = file

        if p.suffix.lower() in TABULAR_SUFFIXES:
            return load_tabular(p, labels, label_prefix=label_prefix, missing=missing, name=name)
        if label_prefix is not None:
            labels = _LabelPrefix(label_prefix)
        if p.suffix.lower() == ".mat":
            if labels is not None:
                raise ValueError("labels= does not apply to .mat files (labels are 'answer')")

            return load_mat(p, name=name)
        return _load_parts([p], labels, missing, name)
    paths = [Path(p) for p in path]
    if not paths:
        raise ValueError("path is an empty list")

    if any(q.suffix.lower() in TABULAR_SUFFIXES for q in paths):
        raise ValueError("a list of parts must be ARFF files; load a table on its own")
    if label_prefix is not None:
        labels = _LabelPrefix(label_prefix)
    return _load_parts(paths, labels, missing, name)


def _train_test_pair(directory: Path, prefix: str) -> tuple[Path, Path]:
    pairs = []
    try:
        files = sorted(directory.iterdir())
    except OSError as exc:
        raise FileNotFoundError(f"cannot list {directory}: {exc}") from exc
    for f in files:
        low = f.name.lower()
        if f.suffix.lower() != ".arff" or not low.startswith(prefix.lower()):
            continue
        k = low.rfind("train", len(prefix))
        if k < 0:
            continue
        test = f.with_name(f.name[:k] + ("Test" if f.name[k] == "T" else "test") + f.name[k + 5 :])
        if test.is_file():
            pairs.append((f, test))
    if not pairs:
        raise FileNotFoundError(f"no *train*.arff / *test*.arff pair for {directory / prefix}*")
    if len(pairs) > 1:
        raise ValueError(
            f"several train/test pairs match {directory / prefix}*: "
            + ", ".join(p[0].name for p in pairs)
        )
    return pairs[0]


def load_train_test(
    path_or_prefix: PathLike,
    labels: LabelSpec = None,
    *,
    missing: MissingPolicy = "warn",
    name: str | None = None,
) -> MultiLabelDataset:
    """Load a ``*-train.arff`` + ``*-test.arff`` pair as one data set.

    Parameters
    ----------
    path_or_prefix : str or path-like
        The training file (its test file is found by replacing ``train`` with
        ``test`` in the name), the test file, a directory holding exactly one
        pair, or a path prefix (``.../scene`` finds ``scene-train.arff`` and
        ``scene-test.arff``; ``.../Corel5k`` finds ``Corel5k-train-sparse.arff``).
    labels, missing, name
        As in :func:`load`.

    Returns
    -------
    MultiLabelDataset
        Training rows first, then test rows; ``part`` is 0 on training rows and 1
        on test rows, ``n_train`` is the number of training rows and ``parts`` the
        two file paths.
    """
    p = Path(path_or_prefix)
    if p.is_dir():
        train, test = _train_test_pair(p, "")
    elif p.is_file():
        low = p.name.lower()
        if "train" in low:
            train, test = _train_test_pair(p.parent, p.name[: low.rfind("train")])
            if train != p:
                raise FileNotFoundError(f"no test part found for {p}")
        elif "test" in low:
            k = low.rfind("test")
            train = p.with_name(
                p.name[:k] + ("Train" if p.name[k] == "T" else "train") + p.name[k + 4 :]
            )
            if not train.is_file():
                raise FileNotFoundError(f"no training part {train.name} found for {p}")
            test = p
        else:
            raise ValueError(f"{p} is neither a *train* nor a *test* file")
    else:
        train, test = _train_test_pair(p.parent, p.name)
    return load([train, test], labels, missing=missing, name=name)


_PART = re.compile(r"(?i)(?:^|[-_])(train|test)(?:[-_]|$)")


def load_name(
    name: str,
    *,
    root: PathLike | None = None,
    labels: LabelSpec = None,
    missing: MissingPolicy = "warn",
    **mat_options: Any,
) -> MultiLabelDataset:
    """Load a data set by name from the ``$MLFS_DATASETS`` tree.

    Parameters
    ----------
    name : str
        ``"emotions"`` or ``"mulan/emotions"``: the folder
        ``<root>/mulan/<name>/``, using the whole file if there is one, else the
        train + test parts (concatenated, see :func:`load_train_test`), else the
        single part.  ``"plcfs/enron"``: ``<root>/plcfs/enron.mat`` via
        :func:`load_mat`.  An existing ``.arff`` / ``.mat`` path is loaded directly.
    root : str or path-like, optional
        The data directory. By default ``$MLFS_DATASETS``, then the download cache of
        :func:`~skmlfs.datasets.fetch` (``$MLFS_DATA_HOME`` or ``~/scikit_mlfs_data``);
        a name found in neither raises :class:`FileNotFoundError` listing both.
    labels, missing
        As in :func:`load` (ARFF only).
    **mat_options
        Passed to :func:`load_mat` (e.g. ``label_copies="drop"``).

    Returns
    -------
    MultiLabelDataset
    """
    direct = Path(name)
    if direct.suffix.lower() in (".arff", ".mat") and direct.is_file():
        if direct.suffix.lower() == ".mat":
            return load_mat(direct, **mat_options)
        return load(direct, labels, missing=missing)
    if root is None:
        # $MLFS_DATASETS, then the download cache of fetch(); the error lists both.

        file, root, found = find_dataset(name)
        if file is not None:
            if file.suffix.lower() == ".mat":
                return load_mat(file, **mat_options)
            return load(file, labels, missing=missing)
        name = found
    root = Path(root)
    collection, _, base = name.strip("/").rpartition("/")
    collection = collection or "mulan"
    if collection == "plcfs":
        p = root / "plcfs" / f"{base}.mat"
        if not p.is_file():
            raise FileNotFoundError(f"data set {name!r}: {p} does not exist")
        return load_mat(p, **mat_options)
    if collection != "mulan":
        raise ValueError(f"unknown collection {collection!r} in {name!r} (use mulan/ or plcfs/)")
    if mat_options:
        raise TypeError(f"unexpected options for an ARFF data set: {sorted(mat_options)}")
    d = root / "mulan" / base
    if not d.is_dir():
        matches = [e for e in (root / "mulan").glob("*") if e.name.lower() == base.lower()]
        if len(matches) != 1:
            raise FileNotFoundError(f"data set {name!r}: no folder {d}")
        d = matches[0]
    arffs = sorted(f for f in d.iterdir() if f.suffix.lower() == ".arff")
    whole = [f for f in arffs if not _PART.search(f.stem)]
    if len(whole) > 1:
        exact = [f for f in whole if f.stem.lower() == d.name.lower()]
        if len(exact) != 1:
            raise ValueError(
                f"data set {name!r}: several whole files in {d}: "
                + ", ".join(f.name for f in whole)
            )
        whole = exact
    if whole:
        return load(whole[0], labels, missing=missing, name=d.name)
    try:
        return load_train_test(d, labels, missing=missing, name=d.name)
    except FileNotFoundError:
        if len(arffs) == 1:
            return load(arffs[0], labels, missing=missing, name=d.name)
        raise FileNotFoundError(
            f"data set {name!r}: {d} has no whole file, no train/test pair and not exactly one part"
        ) from None
