"""ARFF reader: header, dense and sparse data sections, vectorised fast paths.

The reader turns one ARFF file into a raw attribute matrix ``M`` (``n × A`` over
*all* attributes, labels included) in which numeric attributes hold their value,
nominal attributes hold the 0-based index of their value in the declared list, and
missing values (``?``) are NaN.  Splitting ``M`` into features and labels is done
by the loader (``_load.py``), which knows where the labels are.

Speed.  Real multi-label files are large (delicious: 16k rows × 1483 attributes),
so element-level work never happens in Python on the normal path:

* dense rows: the data section is joined into one string and parsed by
  ``np.fromstring`` (C); string-valued nominal columns are mapped through
  ``np.unique`` of their tokens, grouped by identical declared value lists;
* sparse rows ``{i v, ...}``: all pairs of the file are parsed by one
  ``np.fromstring`` call and the CSR arrays are built with numpy.

Every fast path is guarded by structural checks done on the raw bytes with numpy
(one token per field, two per sparse pair, index range and order, nominal codes).
When any check fails, or the file uses quoting or trailing comments, the careful
line-by-line reader re-parses the data section; it is the single place that
produces error messages, so the fast path can never return an answer the careful
reader would reject.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ._dataset import DatasetError

__all__ = ["ARFFError", "parse_arff"]


class ARFFError(DatasetError):
    """Malformed or unsupported ARFF (or label-file) input.

    The message has the form ``"<file>, line <n>: <problem>"``.  The parts are also
    available as the attributes ``path``, ``line`` (1-based, or ``None`` when the
    problem is not tied to a line) and ``problem``.  A :class:`DatasetError` (and so a
    ``ValueError``).
    """

    _unnamed = "<arff>"


# --------------------------------------------------------------------------- attributes

NUMERIC = "numeric"
NOMINAL = "nominal"

# How the fast paths may treat an attribute's tokens.
_K_NUMERIC = 0  # parse as float
_K_IDENTITY = 1  # nominal whose declared values are exactly "0", "1", ..., "k-1"
_K_FLOATMAP = 2  # nominal whose declared values are distinct numbers (e.g. {1,2,5})
_K_STRING = 3  # nominal with non-numeric values (e.g. {YES,NO}); mapped by string


@dataclass
class Attribute:
    """One ``@attribute`` declaration."""

    name: str
    kind: str  # NUMERIC or NOMINAL
    values: list[str] | None
    line: int
    index: dict[str, int] = field(default_factory=dict, repr=False)
    fast_kind: int = _K_NUMERIC
    float_values: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.kind == NOMINAL:
            assert self.values is not None
            self.index = {v: i for i, v in enumerate(self.values)}
            if all(v == str(i) for i, v in enumerate(self.values)):
                self.fast_kind = _K_IDENTITY
                self.float_values = np.arange(len(self.values), dtype=np.float64)
            else:
                try:
                    fv = np.array([float(v) for v in self.values])
                except ValueError:
                    fv = None
                if fv is not None and np.all(np.isfinite(fv)) and np.unique(fv).size == fv.size:
                    self.fast_kind = _K_FLOATMAP
                    self.float_values = fv
                else:
                    self.fast_kind = _K_STRING

    def same_declaration(self, other: Attribute) -> bool:
        return self.name == other.name and self.kind == other.kind and self.values == other.values


@dataclass
class ParsedARFF:
    """Result of :func:`parse_arff` (internal)."""

    path: Path
    relation: str
    relation_line: int | None
    attributes: list[Attribute]
    M: np.ndarray | sp.csr_matrix
    linenos: np.ndarray  # 1-based file line of every data row
    data_line: int  # line of the @data keyword
    sparse: bool


# --------------------------------------------------------------------------- tokenising

_QUOTED = {
    "'": re.compile(r"'((?:[^'\\]|\\.)*)'", re.S),
    '"': re.compile(r'"((?:[^"\\]|\\.)*)"', re.S),
}
_ESCAPE = re.compile(r"\\(.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_UNQUOTED_FIELD = re.compile(r"[^,%]*")
_UNQUOTED_FIELD_BRACED = re.compile(r"[^,%}]*")
_SPARSE_INDEX = re.compile(r"[^\s,}%]+")
_WS = " \t\r\n\f\v"


def _unescape(s: str) -> str:
    if "\\" not in s:
        return s
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), s)


class _Where:
    """Raises ARFFError for a given file/line (keeps call sites short)."""

    __slots__ = ("path", "line")

    def __init__(self, path: Path, line: int):
        self.path = path
        self.line = line

    def __call__(self, problem: str) -> ARFFError:
        return ARFFError(problem, self.path, self.line)


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in _WS:
        i += 1
    return i


def _read_value(s: str, i: int, braced: bool, where: _Where) -> tuple[str, bool, int]:
    """Read one (possibly quoted) value starting at ``s[i]`` (whitespace skipped)."""
    i = _skip_ws(s, i)
    if i < len(s) and s[i] in _QUOTED:
        m = _QUOTED[s[i]].match(s, i)
        if m is None:
            raise where(f"unterminated quote {s[i]} starting at column {i + 1}")
        return _unescape(m.group(1)), True, _skip_ws(s, m.end())
    m = (_UNQUOTED_FIELD_BRACED if braced else _UNQUOTED_FIELD).match(s, i)
    val = m.group(0).strip(_WS)
    for q in "'\"":
        if q in val:
            # a stray quote (0"1) is a damaged value, not part of one
            raise where(f"unexpected {q} inside the unquoted value {val[:20]!r} (column "
                        f"{i + 1 + m.group(0).index(q)})")
    return val, False, m.end()


def _split_fields(
    s: str, i: int, braced: bool, where: _Where
) -> tuple[list[tuple[str, bool]], int]:
    """Split comma-separated (quoted or bare) values of ``s[i:]``.

    With ``braced`` the list must be closed by ``}``; the index after it is returned.
    Without it the list runs to the end of the line or to a ``%`` comment.
    """
    fields: list[tuple[str, bool]] = []
    n = len(s)
    while True:
        val, quoted, i = _read_value(s, i, braced, where)
        fields.append((val, quoted))
        if i >= n or s[i] == "%":
            if braced:
                raise where("missing closing '}'")
            return fields, n
        c = s[i]
        if c == ",":
            i += 1
        elif braced and c == "}":
            return fields, i + 1
        else:
            raise where(f"unexpected character {c!r} after a quoted value (column {i + 1})")


def _rest_is_blank(s: str, i: int) -> bool:
    rest = s[i:].strip(_WS)
    return rest == "" or rest.startswith("%")


# --------------------------------------------------------------------------- header

_KEYWORD = re.compile(r"@([A-Za-z]+)")
_NAME_BARE = re.compile(r"[^\s{%]+")  # "%" starts a comment (as in Weka)


def _parse_attribute(line: str, start: int, where: _Where) -> Attribute:
    i = _skip_ws(line, start)
    if i >= len(line) or line[i] == "%":
        raise where("@attribute without a name")
    if line[i] in _QUOTED:
        m = _QUOTED[line[i]].match(line, i)
        if m is None:
            raise where(f"unterminated quote {line[i]} in attribute name")
        name, i = _unescape(m.group(1)), m.end()
    else:
        # Bare names are taken verbatim, backslashes included: Mulan's XML files spell
        # such names the same way (delicious has the bare name TAG_m\'usica).
        m = _NAME_BARE.match(line, i)
        if m is None:  # "@attribute {0,1}": the value list where the name should be
            raise where("@attribute without a name")
        name, i = m.group(0), m.end()
    i = _skip_ws(line, i)
    if i >= len(line) or line[i] == "%":
        raise where(f"attribute {name!r} has no type")
    if line[i] == "{":
        fields, end = _split_fields(line, i + 1, True, where)
        if not _rest_is_blank(line, end):
            raise where(f"unexpected text after the value list of attribute {name!r}")
        values = [v for v, _ in fields]
        if len(values) == 1 and values[0] == "" and not fields[0][1]:
            raise where(f"nominal attribute {name!r} declares no values")
        for v, quoted in fields:
            if v == "" and not quoted:
                raise where(f"empty value in the value list of nominal attribute {name!r}")
            if "{" in v and not quoted:
                # "@attribute a{sle {0,1}" (a damaged name) would declare the value "sle {0"
                raise where(
                    f"unquoted '{{' in the value list of nominal attribute {name!r} "
                    "(quote a value that contains braces)"
                )
        seen: set[str] = set()
        for v in values:
            if v in seen:
                raise where(f"value {v!r} declared twice for nominal attribute {name!r}")
            seen.add(v)
        return Attribute(name, NOMINAL, values, where.line)
    m = re.match(r"[A-Za-z]+", line[i:])
    word = m.group(0).lower() if m else line[i:].split()[0]
    if word in ("numeric", "real", "integer"):
        if not _rest_is_blank(line, i + len(word)):
            raise where(f"unexpected text after the type of attribute {name!r}")
        return Attribute(name, NUMERIC, None, where.line)
    if word in ("string", "date", "relational"):
        raise where(
            f"attribute {name!r} has type {word}, which is not supported: multi-label "
            "feature selection needs numeric or nominal attributes (declare it nominal "
            "with its values, or remove it)"
        )
    raise where(f"unknown type {line[i:].strip()!r} for attribute {name!r}")


_SIMPLE_ATTRIBUTE = re.compile(
    r"@attribute[ \t]+([^\s{}'\"%,\\]+)[ \t]+(?:(numeric|real|integer)|\{([^'\"%{}\\]*)\})[ \t]*$",
    re.IGNORECASE,
)


def _parse_attribute_simple(s: str, line: int) -> Attribute | None:
    """Fast path for the common unquoted declarations; ``None`` means "use the full parser"."""
    m = _SIMPLE_ATTRIBUTE.match(s)
    if m is None:
        return None
    if m.group(2):
        return Attribute(m.group(1), NUMERIC, None, line)
    values = [v.strip(_WS) for v in m.group(3).split(",")]
    if "" in values or len(set(values)) != len(values):
        return None  # the full parser reports the problem
    return Attribute(m.group(1), NOMINAL, values, line)


def _parse_header(lines: list[str], path: Path) -> tuple[str, int | None, list[Attribute], int]:
    relation, relation_line = "", None
    attributes: list[Attribute] = []
    names: dict[str, int] = {}
    for k, raw in enumerate(lines):
        s = raw.strip(_WS)
        if not s or s[0] == "%":
            continue
        where = _Where(path, k + 1)
        m = _KEYWORD.match(s)
        if m is None:
            raise where(f"expected @relation, @attribute or @data, found {s[:40]!r}")
        kw = m.group(1).lower()
        if m.end() < len(s) and s[m.end()] not in _WS + "%":
            # "@attribute2x" or "@attribute,x" is not the keyword followed by a name
            raise where(f"unknown declaration {s.split(maxsplit=1)[0][:40]!r}")
        if kw == "attribute":
            att = _parse_attribute_simple(s, k + 1) or _parse_attribute(s, m.end(), where)
            if att.name in names:
                raise where(
                    f"attribute {att.name!r} is declared twice (first on line {names[att.name]})"
                )
            names[att.name] = att.line
            attributes.append(att)
        elif kw == "relation":
            # A second or late @relation is a damaged header (e.g. a line pasted over an
            # @attribute, which would shift every column after it)
            if relation_line is not None:
                raise where(f"@relation declared twice (first on line {relation_line})")
            if attributes:
                raise where("@relation after @attribute declarations; it must come first")
            i = _skip_ws(s, m.end())
            if i < len(s) and s[i] in _QUOTED:
                val, _, _ = _read_value(s, i, False, where)
            else:
                val = s[i:].strip(_WS)
            relation, relation_line = val, k + 1
        elif kw == "data":
            if not _rest_is_blank(s, m.end()):
                raise where("unexpected text after @data")
            if not attributes:
                raise where("@data before any @attribute")
            return relation, relation_line, attributes, k
        else:
            raise where(f"unknown declaration @{m.group(1)}")
    last = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
    raise ARFFError("no @data section (file truncated?)", path, max(last, 1))


# --------------------------------------------------------------------------- careful reader


def _convert(att: Attribute, val: str, quoted: bool, where: _Where) -> float:
    if not quoted:
        if val == "?":
            return np.nan
        if val == "":
            raise where(f"empty value for attribute {att.name!r}")
    if att.kind == NUMERIC:
        try:
            x = float(val)
        except ValueError:
            raise where(f"non-numeric value {val!r} for numeric attribute {att.name!r}") from None
        if np.isinf(x):
            # "inf", "-Infinity" or an overflowing "1e999": no estimator can use it, and
            # loading it silently would hide a broken file; "?" marks a missing value.
            raise where(
                f"infinite value {val!r} for numeric attribute {att.name!r} (values must be "
                "finite numbers; write ? for a missing value)"
            )
        return x
    code = att.index.get(val)
    if code is None and att.float_values is not None:
        # Same leniency as the fast path, which compares numeric-looking nominal values as
        # numbers: "2.0" is the declared value "2".
        try:
            hit = np.flatnonzero(att.float_values == float(val))
        except ValueError:
            hit = ()
        if len(hit):
            code = int(hit[0])
    if code is None:
        shown = ",".join(att.values[:8]) + (",..." if len(att.values) > 8 else "")
        raise where(
            f"value {val!r} is not among the declared values {{{shown}}} of nominal "
            f"attribute {att.name!r}"
        )
    return float(code)


def _parse_sparse_row(
    s: str, atts: list[Attribute], where: _Where
) -> tuple[list[int], list[float]]:
    cols: list[int] = []
    vals: list[float] = []
    n_att = len(atts)
    i = _skip_ws(s, 1)
    if i < len(s) and s[i] == "}":
        end = i + 1
    else:
        while True:
            i = _skip_ws(s, i)
            m = _SPARSE_INDEX.match(s, i)
            if m is None:
                raise where(f"expected a sparse index at column {i + 1}")
            tok = m.group(0)
            try:
                fidx = float(tok)
            except ValueError:
                fidx = np.nan
            # inf / 1e999 are floats but not indices (int(inf) raises OverflowError)
            if not (np.isfinite(fidx) and fidx >= 0 and fidx == int(fidx)):
                raise where(f"bad sparse index {tok!r} (must be a non-negative integer)")
            j = int(fidx)
            if j >= n_att:
                raise where(
                    f"sparse index {j} out of range: the file has {n_att} attributes "
                    f"(0..{n_att - 1})"
                )
            if cols and j <= cols[-1]:
                raise where(
                    f"sparse index {j} is not greater than the previous index {cols[-1]} "
                    "(indices must be strictly increasing)"
                )
            i = m.end()
            if i >= len(s) or s[i] not in _WS:
                raise where(f"sparse index {j} has no value (expected '<index> <value>')")
            val, quoted, i = _read_value(s, i, True, where)
            if val == "" and not quoted:
                raise where(f"sparse index {j} has no value (expected '<index> <value>')")
            cols.append(j)
            vals.append(_convert(atts[j], val, quoted, where))
            if i >= len(s) or s[i] == "%":
                raise where("sparse row not closed by '}'")
            if s[i] == ",":
                i += 1
                continue
            if s[i] == "}":
                end = i + 1
                break
            raise where(f"unexpected character {s[i]!r} in sparse row (column {i + 1})")
    if not _rest_is_blank(s, end):
        rest = s[end:].strip(_WS)
        if rest.startswith(","):
            raise where("instance weights ({w} after a row) are not supported")
        raise where(f"unexpected text {rest[:20]!r} after the sparse row")
    return cols, vals


def _careful(
    rows: list[str], linenos: np.ndarray, atts: list[Attribute], path: Path
) -> tuple[np.ndarray | sp.csr_matrix, bool]:
    """Line-by-line reader: handles every construct and produces all error messages."""
    n, n_att = len(rows), len(atts)
    dense_rows: dict[int, np.ndarray] = {}
    sp_rows: dict[int, tuple[list[int], list[float]]] = {}
    for r, s in enumerate(rows):
        where = _Where(path, int(linenos[r]))
        if s[0] == "{":
            sp_rows[r] = _parse_sparse_row(s, atts, where)
            continue
        fields, _ = _split_fields(s, 0, False, where)
        if len(fields) != n_att:
            raise where(f"expected {n_att} comma-separated values, found {len(fields)}")
        dense_rows[r] = np.array(
            [_convert(a, v, q, where) for a, (v, q) in zip(atts, fields, strict=True)]
        )
    if not sp_rows:
        M = np.empty((n, n_att))
        for r, v in dense_rows.items():
            M[r] = v
        return M, False
    indptr = np.zeros(n + 1, dtype=np.int64)
    cols_all: list[np.ndarray] = []
    vals_all: list[np.ndarray] = []
    for r in range(n):
        if r in sp_rows:
            c = np.asarray(sp_rows[r][0], dtype=np.int64)
            v = np.asarray(sp_rows[r][1], dtype=np.float64)
        else:
            d = dense_rows[r]
            c = np.flatnonzero(d != 0)  # NaN != 0, so missing values are kept
            v = d[c]
        cols_all.append(c)
        vals_all.append(v)
        indptr[r + 1] = indptr[r] + c.size
    indices = np.concatenate(cols_all) if cols_all else np.zeros(0, np.int64)
    data = np.concatenate(vals_all) if vals_all else np.zeros(0)
    return sp.csr_matrix((data, indices, indptr), shape=(n, n_att)), True


# --------------------------------------------------------------------------- fast paths


class _Fallback(Exception):
    """A fast-path guard failed; the careful reader takes over."""


_POW10 = np.array([float(f"1e{k}") for k in range(23)])  # exact doubles


def _decimal_values(b: np.ndarray, s_pos: np.ndarray, lengths: np.ndarray) -> np.ndarray | None:
    """Exact vectorised conversion of plain decimal tokens (Clinger's fast path).

    Every token must be ``?`` or ``[+-]digits[.digits]`` (either digit run may be
    empty, not both).  The significand is accumulated exactly in int64 by a Horner
    scheme over character positions (vectorised over tokens); when it is below 2**53
    and there are at most 22 decimals, the single division by an exact power of ten
    is correctly rounded, i.e. bit for bit what ``strtod`` / ``float()`` return.
    Returns ``None`` when any token falls outside (the caller then uses ``strtod``).
    """
    n = s_pos.size
    max_len = int(lengths.max(initial=0))
    if n == 0 or max_len > 24:
        return None
    c = b[s_pos]
    d = (c - np.uint8(48)).astype(np.int64)
    isd = d < 10
    mant = np.where(isd, d, 0)
    n_dig = isd.astype(np.int64)
    frac = np.zeros(n, dtype=np.int64)
    dot = c == 46
    neg = c == 45
    is_q = (c == 63) & (lengths == 1)
    if not np.all(isd | dot | neg | (c == 43) | is_q):
        return None
    for k in range(1, max_len):
        idx = np.flatnonzero(lengths > k)
        c = b[s_pos[idx] + k]
        d = (c - np.uint8(48)).astype(np.int64)
        isd = d < 10
        isdot = c == 46
        if not np.all(isd | isdot) or np.any(dot[idx[isdot]]):
            return None
        di = idx[isd]
        mant[di] = mant[di] * 10 + d[isd]
        n_dig[di] += 1
        frac[di] += dot[di]
        dot[idx[isdot]] = True
    if np.any((n_dig == 0) & ~is_q) or n_dig.max() > 18 or mant.max() >= 2**53 or frac.max() > 22:
        return None
    val = mant / _POW10[frac]
    np.negative(val, out=val, where=neg)
    val[is_q] = np.nan
    return val


def _scan_numbers(text: str, per_field: int) -> np.ndarray:
    """Parse the numbers of ``text``: comma-separated fields of ``per_field`` tokens each.

    The token structure is checked on the raw bytes (a field with a missing or an
    extra token raises :class:`_Fallback` even when the total count happens to be
    right).  Digit-only tokens, which is all of a typical sparse file, are converted
    exactly with a vectorised Horner scheme; plain decimals (``-0.25``) likewise by
    :func:`_decimal_values`;
    anything else (``nan``/``inf`` excepted, left to the careful reader) by
    ``np.fromstring`` (C ``strtod``).  ``?`` becomes NaN.
    """
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        raise _Fallback from None
    b = np.frombuffer(raw, dtype=np.uint8)
    comma = b == 44
    blank = comma | (b == 32) | (b == 9)
    start = ~blank
    start[1:] &= blank[:-1]
    s_pos = np.flatnonzero(start)
    bounds = np.concatenate(([0], np.searchsorted(s_pos, np.flatnonzero(comma)), [s_pos.size]))
    del comma
    if np.any(np.diff(bounds) != per_field):  # tokens per comma-separated field
        raise _Fallback
    del bounds
    end = ~blank
    end[:-1] &= blank[1:]
    lengths = np.flatnonzero(end) - s_pos + 1
    digit = (b - np.uint8(48)) < 10
    if np.all(blank | digit) and lengths.max(initial=0) <= 15:
        val = np.zeros(s_pos.size, dtype=np.int64)
        for k in range(int(lengths.max(initial=0))):
            m = lengths > k
            val[m] = val[m] * 10 + (b[s_pos[m] + k] - 48)
        return val.astype(np.float64)
    out = _decimal_values(b, s_pos, lengths)
    if out is not None:
        return out
    q = b == 63
    if q.any() and not np.all(start[q] & end[q]):
        raise _Fallback  # "?" must be a whole token, never part of one ("-?" is not "-nan")
    if any(ch in text for ch in "nNiI"):
        # Literal nan/inf are left to the careful reader, so that NaN on the fast path
        # can only come from "?" (the careful reader rejects "nan" for a nominal value).
        raise _Fallback
    try:
        out = np.fromstring(text.replace(",", " ").replace("?", "nan"), sep=" ")
    except ValueError:
        raise _Fallback from None
    if out.size != s_pos.size or np.isinf(out).any():
        raise _Fallback  # an overflowing token ("1e999"): the careful reader names it
    return out


def _groups(atts: list[Attribute], cols: list[int]) -> dict[tuple, list[int]]:
    g: dict[tuple, list[int]] = defaultdict(list)
    for j in cols:
        a = atts[j]
        g[(a.fast_kind, tuple(a.values) if a.values else None)].append(j)
    return g


def _map_codes(block: np.ndarray, att: Attribute) -> np.ndarray:
    """Turn parsed numbers of a numeric-valued nominal attribute into value indices."""
    nan = np.isnan(block)
    if att.fast_kind == _K_IDENTITY:
        ok = nan | ((block >= 0) & (block < len(att.values)) & (block == np.floor(block)))
        if not ok.all():
            raise _Fallback
        return block
    fv = att.float_values
    order = np.argsort(fv)
    sv = fv[order]
    pos = np.clip(np.searchsorted(sv, block), 0, sv.size - 1)
    ok = nan | (sv[pos] == block)
    if not ok.all():
        raise _Fallback
    out = order[pos].astype(np.float64)
    out[nan] = np.nan
    return out


def _fast_dense(rows: list[str], atts: list[Attribute]) -> np.ndarray:
    n, n_att = len(rows), len(atts)
    per_row = np.fromiter((s.count(",") for s in rows), dtype=np.int64, count=n)
    if np.any(per_row != n_att - 1):
        raise _Fallback
    string_cols = [j for j, a in enumerate(atts) if a.fast_kind == _K_STRING]
    if not string_cols:
        M = _scan_numbers(",".join(rows), 1).reshape(n, n_att)
    else:
        toks = ",".join(rows).split(",")
        M = np.empty((n, n_att))
        num_cols = [j for j, a in enumerate(atts) if a.fast_kind != _K_STRING]
        if num_cols:
            text = ",".join(itertools.chain.from_iterable(toks[j::n_att] for j in num_cols))
            vals = _scan_numbers(text, 1)
            M[:, num_cols] = vals.reshape(len(num_cols), n).T
        for (_, values), cols in _groups(atts, string_cols).items():
            lookup = {v: float(i) for i, v in enumerate(values)}
            tokens = list(itertools.chain.from_iterable(toks[j::n_att] for j in cols))
            # Map the few distinct raw tokens (with their stray blanks) once, then all
            # tokens through a dict in C: far cheaper than sorting an array of strings.
            table = {}
            for u in set(tokens):
                v = u.strip(_WS)
                if v == "?":
                    table[u] = np.nan
                elif v in lookup:
                    table[u] = lookup[v]
                else:
                    raise _Fallback
            codes = np.fromiter(map(table.__getitem__, tokens), np.float64, len(tokens))
            M[:, cols] = codes.reshape(len(cols), n).T
    for (kind, _), cols in _groups(atts, range(n_att)).items():
        if kind in (_K_IDENTITY, _K_FLOATMAP):
            M[:, cols] = _map_codes(M[:, cols], atts[cols[0]])
    return M


def _fast_sparse(rows: list[str], atts: list[Attribute]) -> sp.csr_matrix:
    n, n_att = len(rows), len(atts)
    if not all(s[-1] == "}" for s in rows):
        raise _Fallback
    inner = [s[1:-1] for s in rows]
    nonempty = [t for t in inner if t.strip(_WS)]
    counts = np.fromiter(
        ((t.count(",") + 1) if t.strip(_WS) else 0 for t in inner), dtype=np.int64, count=n
    )
    nnz = int(counts.sum())
    flat = _scan_numbers(",".join(nonempty), 2) if nnz else np.zeros(0)
    idx, data = flat[0::2], flat[1::2].copy()
    if not np.all((idx >= 0) & (idx < n_att) & (idx == np.floor(idx))):
        raise _Fallback
    indices = idx.astype(np.int64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    if nnz > 1:
        increasing = np.diff(indices) > 0
        row_start = np.zeros(nnz, dtype=bool)
        row_start[indptr[1:-1][counts[1:] > 0]] = True
        if not np.all(increasing | row_start[1:]):
            raise _Fallback
    kinds = np.array([a.fast_kind for a in atts])
    nvals = np.array([0 if a.values is None else len(a.values) for a in atts])
    pair_kind = kinds[indices]
    if np.any(pair_kind == _K_STRING):
        raise _Fallback
    ident = pair_kind == _K_IDENTITY
    if ident.any():
        v = data[ident]
        ok = np.isnan(v) | ((v >= 0) & (v < nvals[indices[ident]]) & (v == np.floor(v)))
        if not ok.all():
            raise _Fallback
    mapped = pair_kind == _K_FLOATMAP
    if mapped.any():
        cols = np.flatnonzero(np.bincount(indices[mapped], minlength=n_att)).tolist()
        for _, group in _groups(atts, cols).items():
            sel = np.isin(indices, group)
            data[sel] = _map_codes(data[sel], atts[group[0]])
    return sp.csr_matrix((data, indices, indptr), shape=(n, n_att))


# --------------------------------------------------------------------------- entry point


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Old Weka files are often Latin-1; every byte decodes, so nothing is lost.
        return raw.decode("latin-1")


def parse_arff(path: str | Path) -> ParsedARFF:
    """Parse an ARFF file into its header and raw attribute matrix (see module doc)."""
    path = Path(path)
    try:
        text = _read_text(path)
    except OSError as exc:
        raise ARFFError(f"cannot read file: {exc.strerror or exc}", path) from exc
    lines = text.split("\n")
    relation, relation_line, atts, k_data = _parse_header(lines, path)
    first = k_data + 1  # index of the first line after @data
    rows: list[str] = []
    nos: list[int] = []
    for k in range(first, len(lines)):
        s = lines[k].strip(_WS)
        if s and s[0] != "%":
            rows.append(s)
            nos.append(k + 1)
    if not rows:
        last = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
        raise ARFFError("no data rows after @data (file truncated?)", path, max(last, 1))
    del text, lines  # only the data rows are needed from here on (peak memory)
    linenos = np.asarray(nos, dtype=np.int64)
    n_sparse = sum(1 for s in rows if s[0] == "{")
    simple = not any("'" in s or '"' in s or "%" in s for s in rows)
    M: np.ndarray | sp.csr_matrix | None = None
    sparse = n_sparse > 0
    if simple and n_sparse in (0, len(rows)):
        try:
            M = _fast_sparse(rows, atts) if sparse else _fast_dense(rows, atts)
        except _Fallback:
            M = None
    if M is None:
        M, sparse = _careful(rows, linenos, atts, path)
    return ParsedARFF(
        path=path,
        relation=relation,
        relation_line=relation_line,
        attributes=atts,
        M=M,
        linenos=linenos,
        data_line=k_data + 1,
        sparse=sparse,
    )
