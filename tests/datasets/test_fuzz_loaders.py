"""Seeded fuzzing of the data loaders (ARFF dense and sparse, XML label files, ``.mat``).

Small real files (the first rows of Mulan's emotions with its XML file, a column-cut of
tmc2007's sparse file, the first rows of the PLCFS emotions ``.mat``) are mutated by a
seeded mutator: byte flips, truncation, deleted / duplicated lines, broken headers, bad
sparse entries, replaced value tokens, XML encodings and damaged ``.mat`` variables, plus
harmless rewritings (CRLF, BOM, comments, blank lines, spacing, keyword case).

The oracle, per case (documented here because it is the point of the test):

* the loader either returns a data set or raises :class:`DatasetError` whose message
  names the mutated file (ARFF syntax errors also carry a line number); any other
  exception is a crash, and a case that does not finish within its deadline a hang;
* a returned data set is compared with an independent *reference reading* of the same
  mutated bytes. For ARFF the reference is the straightforward parser below, written
  for the plain subset these files use (``@attribute name numeric|{v,...}``,
  comma-separated rows or ``{index value, ...}`` sparse rows, ``%`` comment lines, ``?``
  missing values, numeric-looking nominal values matched as numbers, labels from the
  XML file). For ``.mat`` it is ``scipy.io.loadmat`` read directly.

  - reference accepts: the loaded ``X``, ``Y`` and names must equal the reference's
    bit for bit. A mutation that changes a value therefore loads only as exactly that
    change, which is then legal input (e.g. a digit flip ``0.25 -> 0.75``);
  - reference rejects (e.g. the loader accepts a construct outside the plain subset,
    such as a trailing ``%`` comment or a quoted value): the loaded data must equal the
    unmutated file's data — the mutation was harmless. Anything else is a *silent wrong
    load*, the failure this test exists to find.

  ``inf`` (and overflowing literals like ``1e999``) never loads: the reference rejects
  it, and the original data is finite, so a load with ``inf`` in ``X`` fails the oracle.
"""

from __future__ import annotations

import io
import math
import random
import re
import shutil
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from _deadline import run_with_deadline

from skmlfs.datasets import DatasetError, load, load_mat

SEED = 20260516
N_ROWS = 12
CASE_TIMEOUT = 20.0  # seconds; a case takes milliseconds

# --------------------------------------------------------------------------- base files


def _cut_dense(src: Path, n_rows: int) -> bytes:
    lines = src.read_text().split("\n")
    k = next(i for i, s in enumerate(lines) if s.strip().lower() == "@data")
    rows = [s for s in lines[k + 1 :] if s.strip() and not s.startswith("%")][:n_rows]
    return ("\n".join(lines[: k + 1] + rows) + "\n").encode()


def _cut_sparse(src: Path, n_feat: int, n_rows: int) -> tuple[bytes, int]:
    """Keep the first ``n_feat`` features and all labels (the last attributes)."""
    lines = src.read_text().split("\n")
    att = [i for i, s in enumerate(lines) if s.lower().startswith("@attribute")]
    names = [lines[i].split()[1] for i in att]
    n_lab = sum(1 for n in names if n.startswith("class"))
    n_all = len(att)
    keep_att = att[:n_feat] + att[n_all - n_lab :]
    k = next(i for i, s in enumerate(lines) if s.strip().lower() == "@data")
    out = [lines[0], ""] + [lines[i] for i in keep_att] + ["@data"]
    rows = [s for s in lines[k + 1 :] if s.startswith("{")][:n_rows]
    for s in rows:
        pairs = [p.split() for p in s[1:-1].split(",") if p.strip()]
        new = []
        for i, v in pairs:
            j = int(i)
            if j < n_feat:
                new.append(f"{j} {v}")
            elif j >= n_all - n_lab:
                new.append(f"{j - (n_all - n_lab) + n_feat} {v}")
        out.append("{" + ",".join(new) + "}")
    return ("\n".join(out) + "\n").encode(), n_lab


@pytest.fixture(scope="module")
def base_files(dataset_path, tmp_path_factory):
    emo = _cut_dense(dataset_path("mulan/emotions/emotions.arff"), N_ROWS)
    emo_xml = dataset_path("mulan/emotions/emotions.xml").read_bytes()
    tmc, _ = _cut_sparse(dataset_path("mulan/tmc2007/tmc2007-500.arff"), 30, N_ROWS)
    tmc_xml = dataset_path("mulan/tmc2007/tmc2007-500.xml").read_bytes()
    m = scipy.io.loadmat(dataset_path("plcfs/emotions.mat"))
    mat_vars = {k: m[k][:N_ROWS] for k in ("data", "answer", "data_dis", "sim_seq")}
    mats = {}
    for compress in (False, True):
        buf = io.BytesIO()
        scipy.io.savemat(buf, mat_vars, do_compression=compress)
        mats[compress] = buf.getvalue()
    return {"emo": emo, "emo_xml": emo_xml, "tmc": tmc, "tmc_xml": tmc_xml, "mats": mats,
            "mat_vars": mat_vars}


# --------------------------------------------------------------------------- reference

_WS = " \t\r\n\f\v"  # what ARFF calls blank (Python's str.strip() strips more)


def _ref_xml(data: bytes) -> list[str] | None:
    try:
        root = ET.fromstring(data)
    except Exception:  # noqa: BLE001 - any XML problem is a rejection here
        return None
    names = [e.get("name") for e in root.iter()
             if isinstance(e.tag, str) and e.tag.rsplit("}", 1)[-1] == "label"]
    if not names or None in names or len(set(names)) != len(names):
        return None
    return names


def _ref_value(kind, values, tok: str):
    """Numeric value, nominal index, NaN for "?", or None when the token is invalid.

    A token wrapped in one pair of quotes (nothing else quote-like inside) is its
    content, and a quoted ``'?'`` is not a missing value.
    """
    tok = tok.strip(_WS)
    quoted = len(tok) >= 2 and tok[0] == tok[-1] and tok[0] in "'\""
    if quoted:
        tok = tok[1:-1]
    if any(c in tok for c in "'\"\\%{},"):
        return None
    if tok == "?" and not quoted:
        return math.nan
    if tok == "" and not quoted:
        return None
    if kind == "numeric":
        try:
            v = float(tok)
        except ValueError:
            return None
        return None if math.isinf(v) else v
    if tok in values:
        return float(values.index(tok))
    try:
        fv = [float(x) for x in values]
        v = float(tok)
    except ValueError:
        return None
    if any(math.isinf(x) or math.isnan(x) for x in fv) or len(set(fv)) != len(fv):
        return None
    return float(fv.index(v)) if v in fv else None


def _uncomment(line: str) -> str:
    """The line without a ``%`` comment (only when no quote could hide the ``%``)."""
    if "%" in line and "'" not in line and '"' not in line:
        line = line[: line.index("%")]
    return line.strip(_WS)


_ATT = re.compile(
    r"@attribute[ \t\r\n\f\v]+(\"[^\"\\\\]*\"|'[^'\\\\]*'|[^ \t\r\n\f\v{'\"%][^ \t\r\n\f\v{]*)"
    r"(?:[ \t\r\n\f\v]+(numeric|real|integer)|[ \t\r\n\f\v]*(\{[^{}'\"%]*\}))$",
    re.I,
)


def _ref_arff(data: bytes, xml: bytes):
    """The plain-subset reading of an ARFF + XML pair, or None when outside it."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    lines = text.split("\n")
    atts: list[tuple[str, str, list[str] | None]] = []
    k_data = None
    seen_relation = False
    for k, raw in enumerate(lines):
        s = _uncomment(raw)
        if not s:
            continue
        if s.lower().startswith("@relation"):
            # its text matters only without an XML file (MEKA -C), never the case here
            if len(s) > 9 and s[9] not in _WS or seen_relation or atts:
                return None
            seen_relation = True
            continue
        if s.lower() == "@data":
            k_data = k
            break
        m = _ATT.match(s)
        if m is None:
            return None
        name, typ = m.group(1), m.group(2) or m.group(3)
        if name[0] in "'\"":
            name = name[1:-1]
        if "{" in name or any(a[0] == name for a in atts):
            return None
        if typ.startswith("{"):
            vals = [v.strip(_WS) for v in typ[1:-1].split(",")]
            if "" in vals or len(set(vals)) != len(vals):
                return None
            atts.append((name, "nominal", vals))
        else:
            atts.append((name, "numeric", None))
    if k_data is None or not atts:
        return None
    labels = _ref_xml(xml)
    names = [a[0] for a in atts]
    if labels is None or any(n not in names for n in labels) or len(labels) == len(atts):
        return None
    rows = [_uncomment(s) for s in lines[k_data + 1 :]]
    rows = [s for s in rows if s]
    if not rows:
        return None
    n_att = len(atts)
    M = np.zeros((len(rows), n_att))
    for r, s in enumerate(rows):
        if s.startswith("{"):
            if not s.endswith("}"):
                return None
            inner = s[1:-1]
            prev = -1
            for pair in inner.split(",") if inner.strip(_WS) else []:
                parts = re.split(r"[ \t\r\n\f\v]+", pair.strip(_WS))
                if len(parts) != 2:
                    return None
                try:
                    fj = float(parts[0])
                except ValueError:
                    return None
                if not (math.isfinite(fj) and fj == int(fj) and prev < fj < n_att):
                    return None
                j = prev = int(fj)
                v = _ref_value(atts[j][1], atts[j][2], parts[1])
                if v is None:
                    return None
                M[r, j] = v
        else:
            toks = s.split(",")
            if len(toks) != n_att:
                return None
            for j, tok in enumerate(toks):
                v = _ref_value(atts[j][1], atts[j][2], tok)
                if v is None:
                    return None
                M[r, j] = v
    lab = [names.index(n) for n in labels]
    lab.sort()
    Y = np.zeros((len(rows), len(lab)))
    for c, j in enumerate(lab):
        vals = atts[j][2]
        if vals is None:
            col = M[:, j]
        else:
            if not set(vals) <= {"0", "1"}:
                return None
            col = np.array([float(vals[int(v)]) if v == v else math.nan for v in M[:, j]])
        if np.any(np.isnan(col)) or np.any((col != 0) & (col != 1)):
            return None
        Y[:, c] = col
    feat = [j for j in range(n_att) if j not in lab]
    return M[:, feat], Y, [names[j] for j in feat], [names[j] for j in lab]


# --------------------------------------------------------------------------- mutators

_TOKENS = ["inf", "-inf", "1e999", "-1e999", "Infinity", "nan", "NaN", "?", "1e300", "-0",
           "1e-320", "0x10", "", " ", "1,2", "abc", "'1'", "1_0", "+.5", "2.0", "1.", "%",
           "{", "}", "9" * 30, "\x00", "\xff", "é"]
_SPARSE_BAD = ["{inf 1}", "{1e999 1}", "{-1 1}", "{nan 1}", "{99999999999999999999 1}",
               "{3 1,2 1}", "{3}", "{3 inf}", "{3 1e999}", "{3 1,}", "{,3 1}", "{3 1 2}",
               "{3.0 1}", "{3.5 1}", "{1e2 1}", "{0x3 1}", "{3 1", "3 1}", "{3 ?}", "{}",
               "{ 3 1 }", "{3  1}", "{3\t1}", "{2 1,2 1}", "{" + "0 1," * 3 + "}"]
_HEADER_BAD = ["@attribute  {0,1}", "@attribute x", "@attribute x {}", "@attribute x {0,0}",
               "@attribute x {0,,1}", "@attribute x string", "@attribute x date",
               "@attribute x numeric extra", "@attribute 'x numeric", "@attribute x {0,1",
               "@attributex numeric", "@ATTRIBUTE x NUMERIC", "@attribute \"x y\" numeric",
               "@relation", "@relation 'a: -C 3'", "@data", "@foo bar", "junk",
               "@attribute x {1e999,2}",
               "@attribute x {inf,1}", "@attribute x {1,1.0}"]


def _flip(b: bytes, rng: random.Random) -> bytes:
    if not b:
        return b
    i = rng.randrange(len(b))
    new = rng.choice([b[i] ^ (1 << rng.randrange(8)), rng.randrange(256),
                      ord(rng.choice("0123456789.-+e,{} \t\n%?'\"@"))])
    return b[:i] + bytes([new]) + b[i + 1 :]


def _lines_op(b: bytes, rng: random.Random, op: str) -> bytes:
    lines = b.split(b"\n")
    i = rng.randrange(len(lines))
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


def _data_lines(text: str) -> list[int]:
    lines = text.split("\n")
    k = next(i for i, s in enumerate(lines) if s.strip().lower() == "@data")
    return [i for i in range(k + 1, len(lines)) if lines[i].strip()]


def _replace_token(b: bytes, rng: random.Random, sparse: bool) -> bytes:
    text = b.decode()
    lines = text.split("\n")
    r = rng.choice(_data_lines(text))
    s = lines[r]
    if sparse:
        if rng.random() < 0.6:
            lines[r] = rng.choice(_SPARSE_BAD)
        else:  # replace one value of a pair
            pairs = s[1:-1].split(",")
            p = rng.randrange(len(pairs))
            idx = pairs[p].split()[0]
            pairs[p] = f"{idx} {rng.choice(_TOKENS)}"
            lines[r] = "{" + ",".join(pairs) + "}"
    else:
        toks = s.split(",")
        toks[rng.randrange(len(toks))] = rng.choice(_TOKENS + [repr(rng.uniform(-1e3, 1e3))])
        lines[r] = ",".join(toks)
    return "\n".join(lines).encode("utf-8")


def _header_op(b: bytes, rng: random.Random) -> bytes:
    lines = b.decode().split("\n")
    atts = [i for i, s in enumerate(lines) if s.lower().startswith("@attribute")]
    i = rng.choice(atts + [0])
    if rng.random() < 0.5:
        lines[i] = rng.choice(_HEADER_BAD)
    else:
        lines.insert(i, rng.choice(_HEADER_BAD))
    return "\n".join(lines).encode("utf-8")


def _harmless(b: bytes, rng: random.Random) -> bytes:
    op = rng.choice(["crlf", "bom", "comment", "blank", "spaces", "case"])
    if op == "crlf":
        return b.replace(b"\n", b"\r\n")
    if op == "bom":
        return b"\xef\xbb\xbf" + b
    lines = b.split(b"\n")
    i = rng.randrange(len(lines))
    if op == "comment":
        lines.insert(i, b"% a comment, with {braces} and 'quotes'")
    elif op == "blank":
        lines.insert(i, b"   \t")
    elif op == "spaces":
        lines[i] = b" \t" + lines[i] + b"\t "
    else:
        lines = [s.replace(b"@attribute", b"@ATTRIBUTE").replace(b"@data", b"@DATA")
                 for s in lines]
    return b"\n".join(lines)


def _mutate_arff(b: bytes, rng: random.Random, sparse: bool) -> tuple[str, bytes]:
    op = rng.choices(
        ["flip", "flip2", "truncate", "delete", "duplicate", "swap", "token", "header",
         "harmless"],
        weights=[25, 8, 8, 8, 6, 4, 20, 12, 9],
    )[0]
    if op == "flip":
        return op, _flip(b, rng)
    if op == "flip2":
        return op, _flip(_flip(b, rng), rng)
    if op == "truncate":
        return op, b[: rng.randrange(len(b))]
    if op in ("delete", "duplicate", "swap"):
        return op, _lines_op(b, rng, op)
    if op == "token":
        return op, _replace_token(b, rng, sparse)
    if op == "header":
        return op, _header_op(b, rng)
    return op, _harmless(b, rng)


_XML_ENCODINGS = ["foo", "UTF-32", "shift_jis", "utf-7", "latin-1", "ascii", "UTF-16",
                  "utf-8", "cp1252", "", "utf-16-le"]


def _mutate_xml(b: bytes, rng: random.Random) -> tuple[str, bytes]:
    op = rng.choice(["encoding", "encoding", "flip", "truncate", "delete", "duplicate"])
    if op == "encoding":
        enc = rng.choice(_XML_ENCODINGS)
        text = b.decode().replace('encoding="utf-8"', f'encoding="{enc}"')
        if enc.upper() in ("UTF-16", "UTF-16-LE") and rng.random() < 0.5:
            # honestly re-encoded (legal; must load the same) or only declared
            return op, text.encode(enc)
        return op, text.encode()
    if op == "flip":
        return op, _flip(b, rng)
    if op == "truncate":
        return op, b[: rng.randrange(len(b))]
    return op, _lines_op(b, rng, op)


def _mutate_mat(base: dict, rng: random.Random) -> tuple[str, bytes]:
    op = rng.choices(["flip", "truncate", "tiny", "variable"], weights=[45, 15, 10, 30])[0]
    raw = base["mats"][rng.random() < 0.6]
    if op == "flip":
        return op, _flip(raw, rng)
    if op == "truncate":
        return op, raw[: rng.randrange(len(raw))]
    if op == "tiny":
        return op, raw[: rng.randint(0, 130)]
    v = {k: a.copy() for k, a in base["mat_vars"].items()}
    n, d = v["data"].shape
    kind = rng.choice(["bigint", "maxint", "empty_cols", "empty_rows", "inf", "nan", "labels2",
                       "answer_T", "data_T", "string", "cell", "no_answer", "huge_float",
                       "negative", "complex", "sparse", "sparse_big", "bool"])
    if kind == "bigint":
        v["data"] = v["data"].astype(np.int32)
        v["data"][rng.randrange(n), rng.randrange(d)] = 10**8
    elif kind == "maxint":
        v["data"] = v["data"].astype(np.int64)
        v["data"][rng.randrange(n), rng.randrange(d)] = 2**63 - 1
    elif kind == "empty_cols":
        v["data"] = np.zeros((n, 0))
        v.pop("data_dis")
    elif kind == "empty_rows":
        v = {"data": np.zeros((0, d)), "answer": np.zeros((0, 6), np.uint8)}
    elif kind in ("inf", "nan", "huge_float"):
        v["data"] = v["data"].astype(float)
        v["data"][rng.randrange(n), rng.randrange(d)] = {"inf": -np.inf, "nan": np.nan,
                                                         "huge_float": 1e308}[kind]
    elif kind == "labels2":
        v["answer"][rng.randrange(n), 0] = 2
    elif kind == "answer_T":
        v["answer"] = v["answer"].T.copy()
    elif kind == "data_T":
        v["data"] = v["data"].T.copy()
    elif kind == "string":
        v["data"] = np.array(["abc"])
    elif kind == "cell":
        v["data"] = np.array([[1, 2], [3]], dtype=object)
    elif kind == "no_answer":
        v.pop("answer")
    elif kind == "negative":
        v["data"] = v["data"].astype(np.int16) - 1
    elif kind == "complex":
        v["data"] = v["data"] + 1j
    elif kind == "sparse":
        v["data"] = sp.csc_matrix(v["data"].astype(float))
    elif kind == "sparse_big":
        v["data"] = sp.csc_matrix(np.where(v["data"] > 1, 1e200, v["data"]).astype(float))
    else:
        v["data"] = v["data"] > 0
    buf = io.BytesIO()
    scipy.io.savemat(buf, v, do_compression=rng.random() < 0.5)
    return f"variable:{kind}", buf.getvalue()


# --------------------------------------------------------------------------- oracle


def _same(a, b) -> bool:
    a = a.toarray() if sp.issparse(a) else np.asarray(a, dtype=np.float64)
    b = b.toarray() if sp.issparse(b) else np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _error_ok(exc: DatasetError, files: list[Path], text: bool) -> str | None:
    if not any(str(f) in str(exc) for f in files):
        return f"DatasetError does not name the file: {exc}"
    if text and exc.line is None and not _FILE_LEVEL.search(exc.problem):
        return f"ARFF/XML error without a line: {exc}"
    return None


# Problems that concern a whole file rather than one of its lines.
_FILE_LEVEL = re.compile(
    r"cannot tell which attributes are labels|label\(s\) of this file not found|"
    r"no <label|a <label> element has no name|cannot read"
)


def _check_arff(case) -> tuple[str, str]:
    tmp, arff_bytes, xml_bytes, name, base_ds, op = case
    d = Path(tmp)
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    arff, xml = d / f"{name}.arff", d / f"{name}.xml"
    arff.write_bytes(arff_bytes)
    xml.write_bytes(xml_bytes)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load(arff)
    except DatasetError as exc:
        bad = _error_ok(exc, [arff, xml], text=True)
        return ("bad-error", bad) if bad else ("error", exc.problem[:60])
    except Exception as exc:  # noqa: BLE001 - the failure this test looks for
        return "crash", f"{op}: {type(exc).__name__}: {exc}"
    ref = _ref_arff(arff_bytes, xml_bytes)
    if ref is not None:
        X, Y, fn, ln = ref
        if not (_same(ds.X, X) and _same(ds.Y, Y) and ds.feature_names == fn
                and ds.label_names == ln):
            return "silent", f"{op}: loaded data differ from the reference reading"
        return "loaded", "reference"
    X0, Y0, fn0, ln0 = base_ds
    if not (_same(ds.X, X0) and _same(ds.Y, Y0) and ds.feature_names == fn0
            and ds.label_names == ln0):
        return "silent", f"{op}: outside the plain subset, and not the original data"
    return "loaded", "harmless"


def _check_mat(case) -> tuple[str, str]:
    tmp, raw, op = case
    d = Path(tmp)
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    p = d / "emotions.mat"
    p.write_bytes(raw)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = load_mat(p, label_copies="keep")
    except DatasetError as exc:
        bad = _error_ok(exc, [p], text=False)
        return ("bad-error", bad) if bad else ("error", exc.problem[:60])
    except Exception as exc:  # noqa: BLE001
        return "crash", f"{op}: {type(exc).__name__}: {exc}"
    try:
        m = scipy.io.loadmat(p)
    except Exception:  # noqa: BLE001
        return "silent", f"{op}: loaded although scipy cannot read the file"
    data, answer = m["data"], m["answer"]
    data = data.toarray() if sp.issparse(data) else np.asarray(data)
    answer = answer.toarray() if sp.issparse(answer) else np.asarray(answer)
    if data.shape[0] != answer.shape[0]:  # the loader orients one of them (documented)
        data = data.T if data.shape[1] == answer.shape[0] else data
        answer = answer.T if answer.shape[1] == data.shape[0] else answer
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    if not (_same(X, data.astype(np.float64)) and _same(ds.Y, answer)):
        return "silent", f"{op}: loaded data differ from scipy's reading"
    if np.isinf(X).any() or X.shape[1] == 0 or X.shape[0] == 0:
        return "silent", f"{op}: inf or an empty matrix loaded"
    cats = [c for c in ds.categories if c is not None]
    if any(len(c) > 256 for c in cats):
        return "silent", f"{op}: a category list built from a value in the file"
    return "loaded", "reference"


def _base_reading(path: Path):
    ds = load(path)
    return ds.X, ds.Y, ds.feature_names, ds.label_names


@pytest.mark.slow
def test_seeded_loader_fuzz(base_files, tmp_path):
    rng = random.Random(SEED)
    b = base_files
    emo_dir, tmc_dir = tmp_path / "emo0", tmp_path / "tmc0"
    for d, arff, xml, name in ((emo_dir, b["emo"], b["emo_xml"], "emotions"),
                               (tmc_dir, b["tmc"], b["tmc_xml"], "tmc2007-500")):
        d.mkdir()
        (d / f"{name}.arff").write_bytes(arff)
        (d / f"{name}.xml").write_bytes(xml)
    emo0 = _base_reading(emo_dir / "emotions.arff")
    tmc0 = _base_reading(tmc_dir / "tmc2007-500.arff")
    # the reference agrees with the loader on the unmutated files
    for ref, base in ((_ref_arff(b["emo"], b["emo_xml"]), emo0),
                      (_ref_arff(b["tmc"], b["tmc_xml"]), tmc0)):
        assert ref is not None and all(_same(x, y) for x, y in zip(ref[:2], base[:2], strict=True))
        assert ref[2:] == tuple(base[2:])
    assert sp.issparse(tmc0[0]) and not sp.issparse(emo0[0])

    arff_cases, mat_cases = [], []
    for i in range(2200):
        tmp = str(tmp_path / f"c{i}")
        u = rng.random()
        if u < 0.38:
            op, m = _mutate_arff(b["emo"], rng, sparse=False)
            arff_cases.append((tmp, m, b["emo_xml"], "emotions", emo0, f"emo {op}"))
        elif u < 0.66:
            op, m = _mutate_arff(b["tmc"], rng, sparse=True)
            arff_cases.append((tmp, m, b["tmc_xml"], "tmc2007-500", tmc0, f"tmc {op}"))
        elif u < 0.78:
            op, m = _mutate_xml(b["emo_xml"], rng)
            arff_cases.append((tmp, b["emo"], m, "emotions", emo0, f"xml {op}"))
        else:
            op, m = _mutate_mat(b, rng)
            mat_cases.append((tmp, m, f"mat {op}"))
    results = run_with_deadline(_check_arff, arff_cases, CASE_TIMEOUT)
    results += run_with_deadline(_check_mat, mat_cases, CASE_TIMEOUT)
    outcomes = [r[0][0] for r in results]
    failures = [(i, r[0]) for i, r in enumerate(results)
                if r[0][0] not in ("loaded", "error")]
    assert len(results) >= 2000
    assert not failures, f"{len(failures)} failures, e.g. {failures[:8]}"
    # the fuzz exercises both outcomes, and the reference oracle on many loads
    assert outcomes.count("error") >= 500 and outcomes.count("loaded") >= 300
    assert sum(1 for r in results if r[0] == ("loaded", "reference")) >= 200
    assert max(r[1] for r in results) < CASE_TIMEOUT


# --------------------------------------------------------------------------- regressions


def _write(tmp_path: Path, name: str, text: str, labels=("y",)) -> Path:
    p = tmp_path / name
    p.write_text(text)
    xml = "".join(f'<label name="{n}"/>' for n in labels)
    (tmp_path / (p.stem + ".xml")).write_text(f"<labels>{xml}</labels>")
    return p


@pytest.mark.parametrize(
    "text, line, needle",
    [
        ("@relation r\n@attribute  {0,1}\n@attribute y {0,1}\n@data\n0,1\n", 2, "without a name"),
        ("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n{inf 1}\n", 5,
         "bad sparse index 'inf'"),
        ("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n{1e999 1}\n", 5,
         "bad sparse index '1e999'"),
        ("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n1,1\ninf,0\n", 6,
         "infinite value 'inf'"),
        ("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n1e999,1\n2,0\n", 5,
         "infinite value '1e999'"),
        ("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n{0 -1e999,1 1}\n", 5,
         "infinite value"),
        # damage the fuzz found loading silently with another name or shifted columns
        ("@relation r\n@attribute2x numeric\n@attribute y {0,1}\n@data\n0,1\n", 2,
         "unknown declaration '@attribute2x'"),
        ("@relation r\n@attribute x numeric\n@relation s\n@attribute y {0,1}\n@data\n0,1\n", 3,
         "@relation declared twice"),
        ("@relation r\n@attribute a{sle {0,1}\n@attribute y {0,1}\n@data\n0,1\n", 2,
         "unquoted '{'"),
        ("@relation r\n@attribute x {0\"1}\n@attribute y {0,1}\n@data\n0,1\n", 2,
         "unexpected \" inside the unquoted value"),
        ("@relation r\n@attribute air%speed {0,1}\n@attribute y {0,1}\n@data\n0,1\n", 2,
         "has no type"),
    ],
)
def test_malformed_arff_names_file_and_line(tmp_path, text, line, needle):
    p = _write(tmp_path, "d.arff", text)
    with pytest.raises(DatasetError, match=re.escape(needle)) as info:
        load(p)
    assert info.value.path == str(p) and info.value.line == line


@pytest.mark.parametrize("encoding", ["foo", "UTF-32", "shift_jis", "utf-7"])
def test_xml_with_an_undecodable_encoding_names_the_file(tmp_path, encoding):
    p = tmp_path / "d.arff"
    p.write_text("@relation r\n@attribute x numeric\n@attribute y {0,1}\n@data\n1,1\n")
    xml = tmp_path / "d.xml"
    xml.write_text(f'<?xml version="1.0" encoding="{encoding}"?>\n<labels><label name="y"/>'
                   "</labels>\n")
    with pytest.raises(DatasetError, match="cannot decode XML label file") as info:
        load(p)
    assert info.value.path == str(xml)


def test_meka_labels_without_xml_are_announced(tmp_path):
    p = tmp_path / "m.arff"
    p.write_text("@relation 'm: -C 1'\n@attribute y {0,1}\n@attribute x numeric\n@data\n1,2\n")
    with pytest.warns(UserWarning, match=r"first 1 attributes.*-C 1.*line 1"):
        ds = load(p)
    assert ds.label_names == ["y"]


def _mat(tmp_path: Path, **variables) -> Path:
    p = tmp_path / "m.mat"
    scipy.io.savemat(p, variables, do_compression=True)
    return p


def test_damaged_and_tiny_mat_files_name_the_file(tmp_path, dataset_path):
    raw = dataset_path("plcfs/emotions.mat").read_bytes()
    p = tmp_path / "bad.mat"
    # a flipped byte in a compressed variable (zlib.error inside scipy before the fix)
    p.write_bytes(raw[:300] + bytes([raw[300] ^ 0xFF]) + raw[301:])
    with pytest.raises(DatasetError, match=r"bad\.mat: cannot read MATLAB file"):
        load_mat(p)
    for size in (20, 64, 126):  # IndexError inside scipy before the fix
        p.write_bytes(raw[:size])
        with pytest.raises(DatasetError, match=r"bad\.mat: cannot read MATLAB file"):
            load_mat(p)


def test_mat_integer_codes_never_size_an_allocation(tmp_path):
    Y = np.eye(4, 2, dtype=np.uint8)
    data = np.array([[0, 1], [1, 2], [2**31 - 1, 0], [3, 1]], dtype=np.int32)
    p = _mat(tmp_path, data=data, answer=Y)
    res = run_with_deadline(lambda _: load_mat(p).categories, [None], 20.0)[0]
    assert res[1] < 5.0, res  # a list of 2**31 names took minutes (and gigabytes)
    assert res[0][0] is None and res[0][1] == ["0", "1", "2"]
    ds = load_mat(p)
    assert ds.feature_types == ["numeric", "nominal"]
    np.testing.assert_array_equal(ds.X, data)


@pytest.mark.parametrize(
    "data, needle",
    [(np.zeros((4, 0)), "at least one pattern and one feature"),
     (np.array([[0.0, 1], [np.inf, 0], [1, 1], [0, 0]]), "infinite value.*row 2, column 1")],
)
def test_mat_without_features_or_with_inf_is_rejected(tmp_path, data, needle):
    p = _mat(tmp_path, data=data, answer=np.eye(4, 2, dtype=np.uint8))
    with pytest.raises(DatasetError, match=needle):
        load_mat(p)
