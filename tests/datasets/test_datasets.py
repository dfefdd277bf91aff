"""Tests for skmlfs.datasets: ARFF (dense, sparse, MEKA), XML labels, .mat, stats, synthetic."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import arff  # liac-arff, the reference parser: a test dependency, never skipped
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from skmlfs.datasets import (
    ARFFError,
    DatasetError,
    LabelCopiesWarning,
    MissingValuesWarning,
    MultiLabelDataset,
    format_stats,
    load,
    load_mat,
    load_name,
    load_train_test,
    make_multilabel_discrete,
    read_label_xml,
)

# --------------------------------------------------------------------------- helpers


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def write_xml(tmp_path: Path, name: str, labels: list[str]) -> Path:
    body = "\n".join(f'<label name="{lab}"></label>' for lab in labels)
    return write(
        tmp_path,
        name,
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<labels xmlns="http://mulan.sourceforge.net/labels">\n{body}\n</labels>\n',
    )


def dense(X) -> np.ndarray:
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def reference_load(path: Path, label_names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Straightforward reference: liac-arff in dense mode, labels picked by name."""
    with open(path, encoding="utf-8") as fh:
        d = arff.load(fh, encode_nominal=True)
    # liac-arff leaves the escapes of quoted names in place ('Swainson\'s Thrush'), while
    # bare names such as TAG_m\'usica keep their backslash in the XML file too
    lab = set(label_names)
    names = [a[0] if a[0] in lab else a[0].replace("\\'", "'") for a in d["attributes"]]
    M = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in d["data"]], dtype=float
    )
    li = [j for j, n in enumerate(names) if n in lab]
    fi = [j for j, n in enumerate(names) if n not in lab]
    # nominal {0,1} labels: index == value
    return M[:, fi], M[:, li].astype(np.uint8)


def expect_error(path_or_paths, line: int | None, *fragments: str, **kw) -> ARFFError:
    with pytest.raises(ARFFError) as info:
        load(path_or_paths, **kw)
    msg = str(info.value)
    if line is not None:
        assert f", line {line}:" in msg, msg
        assert info.value.line == line
    for f in fragments:
        assert f in msg, msg
    return info.value


HEADER = """% a comment before the relation
@relation toy

@attribute f1 numeric
@attribute lab1 {0,1}
@attribute colour {red,green,blue}
@attribute f2 real
@attribute lab2 {0,1}
@attribute n3 integer

@data
"""
# line numbers: the first data row is line 12


# --------------------------------------------------------------------------- dense ARFF


def test_dense_mulan_with_labels_in_the_middle(tmp_path):
    p = write(
        tmp_path,
        "toy.arff",
        HEADER + "1.5,1,green,-2e3,0,7\n0,0,blue,.25,1,-1\n% comment row\n\n3,1,red,1,1,0\n",
    )
    write_xml(tmp_path, "toy.xml", ["lab2", "lab1"])  # XML order differs from file order
    ds = load(p)
    assert ds.feature_names == ["f1", "colour", "f2", "n3"]
    assert ds.label_names == ["lab1", "lab2"]  # file order (Mulan's convention)
    assert ds.feature_types == ["numeric", "nominal", "numeric", "numeric"]
    assert ds.categories == [None, ["red", "green", "blue"], None, None]
    np.testing.assert_array_equal(ds.X, [[1.5, 1, -2000, 7], [0, 2, 0.25, -1], [3, 0, 1, 0]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])
    assert ds.Y.dtype == np.uint8 and ds.X.dtype == np.float64
    assert isinstance(ds.X, np.ndarray)
    assert ds.name == "toy" and ds.source == str(p)
    assert ds.part is None and ds.n_train is None and ds.split_masks is None
    assert ds.feature_type == "mixed"


def test_labels_as_list_and_int(tmp_path):
    p = write(tmp_path, "nolabels.arff", HEADER + "1,1,red,2,0,3\n")
    ds = load(p, labels=["lab2", "lab1"])
    assert ds.label_names == ["lab1", "lab2"]
    np.testing.assert_array_equal(ds.Y, [[1, 0]])
    q = write(
        tmp_path,
        "m.arff",
        "@relation m\n@attribute a {0,1}\n@attribute b {0,1}\n@attribute x numeric\n@data\n1,0,1\n",
    )
    ds = load(q, labels=2)
    assert ds.label_names == ["a", "b"] and ds.feature_names == ["x"]
    np.testing.assert_array_equal(ds.X, [[1]])
    ds = load(q, labels=-1)
    assert ds.label_names == ["x"] and ds.feature_names == ["a", "b"]
    np.testing.assert_array_equal(ds.X, [[1, 0]])


def test_case_insensitive_keywords_tabs_and_crlf(tmp_path):
    text = (
        "@RELATION Up\r\n@ATTRIBUTE\tx\tNUMERIC\r\n@Attribute y REAL\r\n"
        "@attribute L {0, 1}\r\n@DATA\r\n1, 2 ,1\r\n 3,4,0 \r\n"
    )
    p = write(tmp_path, "up.arff", text)
    ds = load(p, labels=["L"])
    np.testing.assert_array_equal(ds.X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(ds.Y, [[1], [0]])


def test_quoted_names_and_values(tmp_path):
    text = (
        "@relation 'quoted relation'\n"
        "@attribute 'a b' numeric\n"
        '@attribute "c,d" {"x y", \'p,q\', plain}\n'
        "@attribute 'Swainson\\'s Thrush' {0,1}\n"
        '@attribute "say \\"hi\\"" {0,1}\n'
        "@data\n"
        "1,'p,q',1,0\n"
        '2,"x y",0,1 % trailing comment\n'
        "3,plain,1,1\n"
    )
    p = write(tmp_path, "q.arff", text)
    write_xml(tmp_path, "q.xml", ["Swainson&apos;s Thrush", "say &quot;hi&quot;"])
    ds = load(p)
    assert ds.feature_names == ["a b", "c,d"]
    assert ds.label_names == ["Swainson's Thrush", 'say "hi"']
    assert ds.categories[1] == ["x y", "p,q", "plain"]
    np.testing.assert_array_equal(ds.X, [[1, 1], [2, 0], [3, 2]])
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [1, 1]])


def test_bare_name_with_backslash_is_verbatim(tmp_path):
    # delicious declares the bare name TAG_m\'usica and its XML spells it the same way
    text = "@relation d\n@attribute x numeric\n@attribute TAG_m\\'usica {0,1}\n@data\n1,1\n"
    p = write(tmp_path, "d.arff", text)
    write_xml(tmp_path, "d.xml", ["TAG_m\\'usica"])
    ds = load(p)
    assert ds.label_names == ["TAG_m\\'usica"]


def test_meka_relation_positive_and_negative(tmp_path):
    body = "@attribute a {0,1}\n@attribute b {0,1}\n@attribute x numeric\n@data\n1,0,2.5\n0,1,3\n"
    p = write(tmp_path, "meka.arff", "@relation 'Music: -C 2 -split 50'\n" + body)
    with pytest.warns(UserWarning, match=r"no XML label file.*first 2 attributes.*'-C 2'"):
        ds = load(p)
    assert load(p, labels=2).label_names == ds.label_names  # an explicit count: no warning
    assert ds.label_names == ["a", "b"] and ds.feature_names == ["x"]
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1]])
    body2 = "@attribute x numeric\n@attribute a {0,1}\n@data\n2.5,1\n3,0\n"
    p2 = write(tmp_path, "meka2.arff", "@relation 'M: -C -1'\n" + body2)
    with pytest.warns(UserWarning, match="last 1 attributes"):
        ds2 = load(p2)
    assert ds2.label_names == ["a"] and ds2.feature_names == ["x"]
    np.testing.assert_array_equal(ds2.Y, [[1], [0]])


def test_xml_takes_precedence_over_meka(tmp_path):
    # Mulan's medical.arff keeps a stale "-C 45" in @relation while its labels are last.
    text = "@relation 'X: -C 1'\n@attribute a {0,1}\n@attribute b {0,1}\n@data\n1,0\n"
    p = write(tmp_path, "prec.arff", text)
    write_xml(tmp_path, "prec.xml", ["b"])
    assert load(p).label_names == ["b"]


def test_numeric_labels_and_reversed_nominal_labels(tmp_path):
    text = (
        "@relation r\n@attribute x numeric\n@attribute l1 numeric\n@attribute l2 {1,0}\n"
        "@data\n5,1,1\n6,0,0\n"
    )
    p = write(tmp_path, "r.arff", text)
    ds = load(p, labels=["l1", "l2"])
    np.testing.assert_array_equal(ds.Y, [[1, 1], [0, 0]])  # the value, not its index


def test_nominal_numeric_values_are_encoded_as_indices(tmp_path):
    # flags-style {1,2,...} and {5,1}: index in the declared list, not the value
    text = "@relation n\n@attribute a {1,2,3}\n@attribute b {5,1}\n@attribute l {0,1}\n@data\n"
    text += "3,1,0\n1,5,1\n?,5,1\n"
    p = write(tmp_path, "n.arff", text)
    with pytest.warns(MissingValuesWarning):
        ds = load(p, labels=["l"])
    np.testing.assert_array_equal(ds.X, [[2, 1], [0, 0], [np.nan, 0]])


@pytest.mark.parametrize("careful", [False, True])
def test_numeric_looking_nominal_values_and_literal_nan(tmp_path, monkeypatch, careful):
    if careful:
        _force_careful(monkeypatch)
    head = "@relation n\n@attribute a {1,2,3}\n@attribute x numeric\n@attribute l {0,1}\n@data\n"
    p = write(tmp_path, "n.arff", head + "2.0,1.5,1\n3,nan,0\n")
    with pytest.warns(MissingValuesWarning, match="1 missing"):
        ds = load(p, labels=["l"])
    np.testing.assert_array_equal(ds.X, [[1, 1.5], [2, np.nan]])
    q = write(tmp_path, "q.arff", head + "2,1.5,1\nnan,1,0\n")
    expect_error(q, 7, "'nan' is not among the declared values", labels=["l"])


@pytest.mark.parametrize("kind", ["plain", "digits", "mixed"])
def test_numeric_tokens_convert_exactly_like_float(tmp_path, kind):
    # The fast paths convert decimal tokens without strtod; the reference is float().
    rng = np.random.default_rng({"plain": 0, "digits": 1, "mixed": 2}[kind])
    toks = []
    for _ in range(3000):
        if kind == "digits":
            toks.append(str(rng.integers(0, 10 ** rng.integers(1, 16))))
            continue
        r = rng.integers(0, 7 if kind == "mixed" else 5)
        if r == 0:
            toks.append(f"{rng.normal() * 10.0 ** rng.integers(-3, 6):.6f}")
        elif r == 1:
            toks.append(f"{rng.random():.{rng.integers(1, 18)}f}")
        elif r == 2:
            toks.append(str(rng.choice(["+1.5", "-.5", "1.", "0", "-0", ".25", "-7", "?"])))
        elif r == 3:
            toks.append(f"{rng.integers(0, 2**53)}.{rng.integers(0, 10)}")
        elif r == 4:
            toks.append(f"-{rng.integers(0, 10**8)}.{rng.integers(0, 10**8):08d}")
        elif r == 5:
            toks.append(repr(float(rng.normal() * 10.0 ** rng.integers(-30, 30))))
        else:
            toks.append(f"{rng.normal():.{rng.integers(1, 12)}e}")
    n = len(toks) // 3
    rows = [",".join(toks[3 * i : 3 * i + 3]) + ",1" for i in range(n)]
    head = "@relation t\n" + "".join(f"@attribute x{j} numeric\n" for j in range(3))
    p = write(tmp_path, "t.arff", head + "@attribute l {0,1}\n@data\n" + "\n".join(rows) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValuesWarning)
        ds = load(p, labels=["l"])
    ref = np.array([np.nan if t == "?" else float(t) for t in toks[: 3 * n]]).reshape(n, 3)
    np.testing.assert_array_equal(ds.X, ref)
    assert np.array_equal(np.signbit(ds.X), np.signbit(ref))  # -0 stays -0


def test_question_mark_inside_a_token_is_not_missing(tmp_path):
    head = "@relation q\n@attribute x numeric\n@attribute l {0,1}\n@data\n"
    expect_error(
        write(tmp_path, "q.arff", head + "1.5,1\n-?,0\n"), 6, "non-numeric value '-?'", labels=["l"]
    )
    expect_error(
        write(tmp_path, "r.arff", head + "1.5,1\n{0 ?5}\n"),
        6,
        "non-numeric value '?5'",
        labels=["l"],
    )


# --------------------------------------------------------------------------- sparse ARFF


SPARSE = """@relation sp
@attribute w0 numeric
@attribute w1 {0,1}
@attribute colour {red,green,blue}
@attribute w3 numeric
@attribute lab1 {0,1}
@attribute lab2 {0,1}
@data
{0 2.5,2 blue,4 1}
{}
{1 1,3 -1,5 1}
{ 2 green , 4 1 , 5 1 }
"""


def test_sparse_arff(tmp_path):
    p = write(tmp_path, "sp.arff", SPARSE)
    write_xml(tmp_path, "sp.xml", ["lab1", "lab2"])
    ds = load(p)
    assert sp.isspmatrix_csr(ds.X) or sp.issparse(ds.X)
    assert ds.X.format == "csr"
    # omitted nominal value = index 0 (Weka), omitted numeric = 0
    np.testing.assert_array_equal(
        ds.X.toarray(), [[2.5, 0, 2, 0], [0, 0, 0, 0], [0, 1, 0, -1], [0, 0, 1, 0]]
    )
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0], [0, 1], [1, 1]])
    assert ds.feature_type == "mixed"


def test_sparse_missing_and_explicit_zero(tmp_path):
    text = "@relation s\n@attribute x numeric\n@attribute y numeric\n@attribute l {0,1}\n"
    text += "@data\n{0 ?,1 0}\n{1 3,2 1}\n"
    p = write(tmp_path, "s.arff", text)
    with pytest.warns(MissingValuesWarning, match="1 missing feature value"):
        ds = load(p, labels=-1)
    X = ds.X.toarray()
    assert np.isnan(X[0, 0]) and X[0, 1] == 0 and X[1, 1] == 3
    assert ds.X.nnz == 2  # explicit zero dropped, NaN kept
    assert ds.n_missing == 1


def test_sparse_reversed_nominal_label_omitted_is_first_value(tmp_path):
    text = "@relation s\n@attribute x numeric\n@attribute l {1,0}\n@data\n{0 1}\n{0 2,1 0}\n"
    p = write(tmp_path, "s.arff", text)
    ds = load(p, labels=["l"])
    np.testing.assert_array_equal(ds.Y, [[1], [0]])  # omitted -> index 0 -> value "1"


# --------------------------------------------------------------------------- missing values


MISSING = """@relation m
@attribute x numeric
@attribute c {a,b}
@attribute l {0,1}
@data
1,a,0
?,b,1
3,?,1
"""


def test_missing_values_warn_raise_ignore(tmp_path):
    p = write(tmp_path, "m.arff", MISSING)
    with pytest.warns(MissingValuesWarning, match=r"m.arff, line 7: 2 missing feature value"):
        ds = load(p, labels=["l"])
    assert np.isnan(ds.X[1, 0]) and np.isnan(ds.X[2, 1])
    assert ds.n_missing == 2 and ds.stats()["n_missing"] == 2
    assert ds.first_missing == f"{p}, line 7"
    assert "Missing" in format_stats(ds)
    expect_error(p, 7, "missing feature value", labels=["l"], missing="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds2 = load(p, labels=["l"], missing="ignore")
    assert ds2.n_missing == 2 and ds2.first_missing == f"{p}, line 7"
    with pytest.raises(ValueError, match="missing must be"):
        load(p, labels=["l"], missing="zero")
    # several parts: the first part with a missing value; complete data: None
    q = write(tmp_path, "complete.arff", MISSING.replace("?,b", "2,b").replace("3,?", "3,a"))
    assert load(q, labels=["l"]).first_missing is None
    with pytest.warns(MissingValuesWarning):
        both = load([q, p], labels=["l"])
    assert both.n_missing == 2 and both.first_missing == f"{p}, line 7"


def test_missing_label_is_an_error(tmp_path):
    p = write(tmp_path, "ml.arff", MISSING.replace("3,?,1", "3,a,?"))
    expect_error(p, 8, "missing value '?' for label 'l'", labels=["l"])


# --------------------------------------------------------------------------- malformed input


def _header(types="@attribute x numeric\n@attribute c {a,b}\n@attribute l {0,1}\n"):
    return "@relation bad\n" + types + "@data\n"  # data starts on line 6 for 3 attributes


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (
            _header("@attribute x numeric\n@attribute c foo\n@attribute l {0,1}\n"),
            3,
            "unknown type",
        ),
        (_header("@attribute x string\n@attribute l {0,1}\n"), 2, "type string"),
        (_header("@attribute x date 'yyyy'\n@attribute l {0,1}\n"), 2, "type date"),
        (_header("@attribute x numeric\n@attribute x numeric\n@attribute l {0,1}\n"), 3, "twice"),
        (_header("@attribute c {a,b,a}\n@attribute l {0,1}\n"), 2, "declared twice"),
        (_header("@attribute c {a,b\n@attribute l {0,1}\n"), 2, "closing '}'"),
        (_header("@attribute 'c numeric\n@attribute l {0,1}\n"), 2, "unterminated quote"),
        ("@relation r\n@attribute x numeric\n@attribute l {0,1}\n\n", 4, "no @data"),
        (
            "@relation r\n@attribute x numeric\n@attribute l {0,1}\n@data\n% only a comment\n",
            5,
            "no data rows",
        ),
        (_header() + "1,a,0\n1,b\n", 7, "expected 3 comma-separated values, found 2"),
        (_header() + "1,a,0\n1,b,0,1\n", 7, "found 4"),
        (_header() + "1,a,0\n1,c,0\n", 7, "'c' is not among the declared values"),
        (_header() + "1,a,0\nx1,b,0\n", 7, "non-numeric value 'x1'"),
        (_header() + "1,a,0\n1,'b,0\n", 7, "unterminated quote"),
        (_header() + "1,a,0\n1,b,2\n", 7, "value '2' is not among"),
        (_header() + "1,a,0\n,b,1\n", 7, "empty value"),
        # tokens that compensate each other must not be silently realigned
        (_header() + "1 2,a,0\n3,,1\n", 6, "non-numeric value '1 2'"),
        (_header() + "{0 1,1 b,2 1}\n{0 1,3 1}\n", 7, "out of range"),
        (_header() + "{0 1,1 b}\n{1 a,0 1}\n", 7, "strictly increasing"),
        (_header() + "{0 1,1 b}\n{1 a,1 b}\n", 7, "strictly increasing"),
        (_header() + "{0 1,1 b}\n{x 1}\n", 7, "bad sparse index 'x'"),
        (_header() + "{0 1,1 b}\n{1.5 1}\n", 7, "bad sparse index '1.5'"),
        (_header() + "{0 1,1 b}\n{0 1, 2}\n", 7, "has no value"),
        (_header() + "{0 1,1 b}\n{0 1 2 1}\n", 7, ""),
        (_header() + "{0 1,1 b}\n{0 1,2 1\n", 7, "not closed"),
        (_header() + "{0 1,1 b}\n{0 1}, {3}\n", 7, "instance weights"),
        (_header() + "{0 1,1 b}\n{0 z}\n", 7, "non-numeric value 'z'"),
        (_header() + "{0 1,1 b}\n{1 c}\n", 7, "'c' is not among"),
        (_header() + "{0 1,2 7}\n", 6, "value '7' is not among"),
        (
            _header("@attribute x numeric\n@attribute l numeric\n") + "1,0\n2,0.5\n",
            6,
            "label 'l' has value 0.5",
        ),
        (
            _header("@attribute x numeric\n@attribute l {0,1,2}\n") + "1,0\n",
            3,
            "must be nominal {0,1}",
        ),
    ],
)
def test_malformed_input_names_file_and_line(tmp_path, text, line, fragment):
    p = write(tmp_path, "bad.arff", text)
    err = expect_error(p, line, fragment, labels=["l"])
    assert str(p) in str(err) and err.path == str(p)
    assert isinstance(err, ValueError)


def test_label_errors(tmp_path):
    p = write(tmp_path, "lab.arff", _header() + "1,a,0\n")
    expect_error(p, 5, "not found among the attributes", "'nope'", labels=["nope"])
    xml = write_xml(tmp_path, "other.xml", ["l", "zzz"])
    err = expect_error(p, 4, "'zzz'", labels=xml)  # the line of the XML file
    assert err.path == str(xml)
    with pytest.raises(ARFFError, match="cannot tell which attributes are labels"):
        load(p)
    expect_error(p, 5, "MEKA label count -C 3", labels=3)
    with pytest.raises(FileNotFoundError):
        load(p, labels=tmp_path / "missing.xml")
    with pytest.raises(FileNotFoundError, match=r"labels=\['l'\]"):
        load(p, labels="l")
    with pytest.raises(TypeError):
        load(p, labels=1.5)
    bad_xml = write(tmp_path, "broken.xml", "<labels><label name='l'></labels>")
    with pytest.raises(ARFFError, match="malformed XML"):
        load(p, labels=bad_xml)


# --------------------------------------------------------------------------- against a reference


def _random_arff(rng: np.random.Generator, n: int, sparse: bool, quoted: bool) -> tuple[str, list]:
    atts = [
        ("num0", "numeric"),
        ("nom01", "{0,1}"),
        ("nom_map", "{5,1,3}"),
        ("str_nom", "{YES,NO,maybe}" if not quoted else "{YES,NO,'may be'}"),
        ("lab_a", "{0,1}"),
        ("num1", "real"),
        ("lab_b", "{0,1}"),
    ]
    cats = {
        "nom01": ["0", "1"],
        "nom_map": ["5", "1", "3"],
        "str_nom": ["YES", "NO", "'may be'" if quoted else "maybe"],
        "lab_a": ["0", "1"],
        "lab_b": ["0", "1"],
    }
    lines = ["@relation rnd"] + [f"@attribute {a} {t}" for a, t in atts] + ["@data"]
    for _ in range(n):
        vals = []
        for a, _t in atts:
            if a.startswith("num"):
                v = 0.0 if rng.random() < 0.5 else float(rng.normal() * 10.0 ** rng.integers(-3, 4))
                vals.append(repr(v) if v else "0")
            else:
                c = cats[a]
                vals.append(c[rng.integers(len(c))] if rng.random() < 0.6 else c[0])
        if sparse:
            pairs = [
                f"{j} {v}"
                for j, v in enumerate(vals)
                if not (v in ("0",) or v == cats.get(atts[j][0], [None])[0])
            ]
            lines.append("{" + ",".join(pairs) + "}")
        else:
            lines.append(",".join(vals))
    return "\n".join(lines) + "\n", ["lab_a", "lab_b"]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("quoted", [False, True])
def test_random_files_match_liac_arff(tmp_path, sparse, quoted):
    rng = np.random.default_rng(7 + sparse + 2 * quoted)
    text, labels = _random_arff(rng, 60, sparse, quoted)
    p = write(tmp_path, "rnd.arff", text)
    ds = load(p, labels=labels)
    X_ref, Y_ref = reference_load(p, labels)
    assert sp.issparse(ds.X) == sparse
    np.testing.assert_array_equal(dense(ds.X), X_ref)
    np.testing.assert_array_equal(ds.Y, Y_ref)


def _force_careful(monkeypatch):
    from skmlfs.datasets import _arff

    def fallback(*args, **kwargs):
        raise _arff._Fallback

    monkeypatch.setattr(_arff, "_fast_dense", fallback)
    monkeypatch.setattr(_arff, "_fast_sparse", fallback)


@pytest.mark.parametrize("sparse", [False, True])
def test_fast_paths_agree_with_careful_reader(tmp_path, monkeypatch, sparse):
    rng = np.random.default_rng(11 + sparse)
    text, labels = _random_arff(rng, 80, sparse, quoted=False)
    head, body = text.split("@data\n")
    rows = body.splitlines()
    for i in range(0, len(rows), 7):  # some missing values in the first (numeric) attribute
        if sparse:
            pairs = [q for q in rows[i][1:-1].split(",") if q and not q.startswith("0 ")]
            rows[i] = "{" + ",".join(["0 ?", *pairs]) + "}"
        else:
            rows[i] = "?," + rows[i].split(",", 1)[1]
    text = head + "@data\n" + "\n".join(rows) + "\n"
    p = write(tmp_path, "rnd.arff", text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingValuesWarning)
        fast = load(p, labels=labels)
        _force_careful(monkeypatch)
        careful = load(p, labels=labels)
    np.testing.assert_array_equal(dense(fast.X), dense(careful.X))
    np.testing.assert_array_equal(fast.Y, careful.Y)
    assert sp.issparse(fast.X) == sp.issparse(careful.X) == sparse


# ------------------------------------------------------------------ parts, names, XML lookup


def test_train_test_parts(tmp_path):
    body = "@attribute x numeric\n@attribute l {0,1}\n@data\n"
    tr = write(tmp_path, "toy-train.arff", "@relation a\n" + body + "1,0\n2,1\n")
    te = write(tmp_path, "toy-test.arff", "@relation b\n" + body + "3,1\n")
    write_xml(tmp_path, "toy.xml", ["l"])
    for ds in (
        load([tr, te]),
        load_train_test(tmp_path / "toy"),
        load_train_test(tr),
        load_train_test(te),
        load_train_test(tmp_path),
    ):
        np.testing.assert_array_equal(ds.X, [[1], [2], [3]])
        np.testing.assert_array_equal(ds.Y, [[0], [1], [1]])
        np.testing.assert_array_equal(ds.part, [0, 0, 1])
        assert ds.n_train == 2 and ds.parts == (str(tr), str(te)) and ds.name == "toy"
    other = write(
        tmp_path, "x-test.arff", "@relation b\n@attribute x real\n@attribute l {1,0}\n@data\n3,1\n"
    )
    expect_error([tr, other], 3, "declared differently", labels=["l"])


def test_xml_found_by_progressively_shorter_prefix(tmp_path):
    body = "@relation r\n@attribute x numeric\n@attribute l {0,1}\n@data\n1,1\n"
    write_xml(tmp_path, "Corel5k.xml", ["l"])
    write_xml(tmp_path, "tmc2007-500.xml", ["l"])
    for name in (
        "Corel5k-sparse.arff",
        "Corel5k-train-sparse.arff",
        "corel5k.arff",
        "tmc2007-500-test.arff",
    ):
        ds = load(write(tmp_path, name, body))
        assert ds.label_names == ["l"]
    assert load(tmp_path / "Corel5k-train-sparse.arff").name == "Corel5k"
    assert load(tmp_path / "tmc2007-500-test.arff").name == "tmc2007-500"


def test_read_label_xml_hierarchical(tmp_path):
    p = write(
        tmp_path,
        "h.xml",
        '<labels xmlns="http://mulan.sourceforge.net/labels">'
        '<label name="a"><label name="a.1"/></label><label name="b"/></labels>',
    )
    assert read_label_xml(p) == ["a", "a.1", "b"]
    dup = write(tmp_path, "dup.xml", '<labels><label name="a"/>\n<label name="a"/></labels>')
    with pytest.raises(ARFFError, match="listed twice"):
        read_label_xml(dup)


def test_load_name_resolution(tmp_path, monkeypatch):
    body = "@relation r\n@attribute x numeric\n@attribute l {0,1}\n@data\n"
    d = tmp_path / "mulan"
    (d / "whole").mkdir(parents=True)
    write(d / "whole", "whole.arff", body + "1,1\n")
    write(d / "whole", "whole-train.arff", body + "5,1\n")
    write_xml(d / "whole", "whole.xml", ["l"])
    (d / "parts").mkdir()
    write(d / "parts", "parts-train.arff", body + "1,1\n")
    write(d / "parts", "parts-test.arff", body + "2,0\n")
    write_xml(d / "parts", "parts.xml", ["l"])
    (d / "single").mkdir()
    write(d / "single", "Single001-test.arff", body + "7,0\n")
    write_xml(d / "single", "Single001.xml", ["l"])
    (tmp_path / "plcfs").mkdir()
    scipy.io.savemat(
        tmp_path / "plcfs" / "toy.mat",
        {"data": np.eye(3, dtype=np.uint8), "answer": np.eye(3, 1, dtype=np.uint8)},
    )
    monkeypatch.setenv("MLFS_DATASETS", str(tmp_path))
    np.testing.assert_array_equal(load_name("whole").X, [[1]])
    ds = load_name("mulan/parts")
    np.testing.assert_array_equal(ds.part, [0, 1])
    assert ds.name == "parts"
    np.testing.assert_array_equal(load_name("single").X, [[7]])
    assert load_name("plcfs/toy").X.shape == (3, 3)
    with pytest.raises(FileNotFoundError):
        load_name("nope")
    monkeypatch.delenv("MLFS_DATASETS")
    monkeypatch.setenv("MLFS_DATA_HOME", str(tmp_path / "empty_cache"))
    with pytest.raises(FileNotFoundError, match="MLFS_DATASETS is not set"):
        load_name("whole")
    assert load_name("whole", root=tmp_path).n_samples == 1


# --------------------------------------------------------------------------- .mat


def test_load_mat(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(20, 4)).astype(np.uint8)
    Y = rng.integers(0, 2, size=(20, 2)).astype(np.uint8)
    S = (rng.random((20, 5)) < 0.8).astype(np.uint8)
    p = tmp_path / "d.mat"
    scipy.io.savemat(p, {"data": X, "answer": Y, "data_dis": X + 1, "sim_seq": S})
    ds = load_mat(p)
    np.testing.assert_array_equal(ds.X, X)
    np.testing.assert_array_equal(ds.Y, Y)
    np.testing.assert_array_equal(ds.X_discrete, X + 1)
    assert ds.split_masks.dtype == bool
    np.testing.assert_array_equal(ds.split_masks, S.astype(bool))
    assert ds.feature_types == ["nominal"] * 4
    assert all(
        ds.categories[j] == [str(v) for v in range(int(X[:, j].max()) + 1)] for j in range(4)
    )
    assert load(p).n_features == 4  # load() dispatches on the suffix
    # one matrix stored with patterns in columns (q x n labels, d x n data), float data
    for data, answer in ((X.astype(float), Y.T), (X.T.astype(float), Y)):
        q = tmp_path / "t.mat"
        scipy.io.savemat(q, {"data": data, "answer": answer})
        dt = load_mat(q)
        np.testing.assert_array_equal(dt.X, X)
        np.testing.assert_array_equal(dt.Y, Y)
        assert dt.feature_types == ["numeric"] * 4 and dt.split_masks is None
        assert dt.X_discrete is None
    bad = tmp_path / "b.mat"
    scipy.io.savemat(bad, {"data": X, "answer": Y + 1})
    with pytest.raises(DatasetError, match="0/1"):
        load_mat(bad)
    with pytest.raises(DatasetError, match="no variable 'answer'"):
        scipy.io.savemat(bad, {"data": X})
        load_mat(bad)


def _mat_error(tmp_path, **variables) -> DatasetError:
    p = tmp_path / "e.mat"
    scipy.io.savemat(p, variables)
    with pytest.raises(DatasetError) as info:
        load_mat(p)
    err = info.value
    assert err.path == str(p) and err.line is None
    assert str(err) == f"{p}: {err.problem}"
    return err


def test_load_mat_errors_are_dataset_errors_and_orientation_is_never_guessed(tmp_path):
    # 3 x 2 data with 4 x 2 labels: the rows differ, and transposing one matrix does not
    # help (transposing both would give 2 patterns: a guess, not a reading of the file)
    err = _mat_error(tmp_path, data=np.ones((3, 2)), answer=np.zeros((4, 2), np.uint8))
    assert err.problem.startswith("'data' (3, 2) and 'answer' (4, 2) do not match")
    # both stored with patterns in columns: the same error (transpose them before saving)
    _mat_error(tmp_path, data=np.ones((4, 20)), answer=np.zeros((2, 20), np.uint8))
    # 3 x 4 data with 4 x 3 labels: 3 patterns (answer transposed) or 4 (data transposed)
    err = _mat_error(tmp_path, data=np.ones((3, 4)), answer=np.zeros((4, 3), np.uint8))
    assert "ambiguous" in err.problem
    assert "'answer' transposed" in err.problem and "'data' transposed" in err.problem
    # equal row counts are taken as stored, even when a transposition would also fit
    p = tmp_path / "sq.mat"
    scipy.io.savemat(p, {"data": np.eye(3), "answer": np.eye(3, dtype=np.uint8)[:, :2]})
    np.testing.assert_array_equal(load_mat(p).X, np.eye(3))
    # other malformed input: the same error type, naming the file
    err = _mat_error(tmp_path, data=np.ones((3, 2)), answer=np.full((3, 1), 2, np.uint8))
    assert "0/1" in err.problem
    err = _mat_error(tmp_path, data=np.ones((3, 2)), answer=np.ones((3, 1)),
                     sim_seq=np.full((3, 2), 3))
    assert err.problem == "sim_seq must hold 0/1 training-row indicators"
    err = _mat_error(tmp_path, data=np.ones((3, 2)), answer=np.ones((3, 1)),
                     data_dis=np.ones((3, 5)))
    assert "data_dis" in err.problem
    junk = tmp_path / "junk.mat"
    junk.write_bytes(b"not a MATLAB file")
    with pytest.raises(DatasetError, match=r"junk\.mat: cannot read MATLAB file"):
        load_mat(junk)


def test_one_error_type_for_the_data_layer(tmp_path):
    # ARFFError is the ARFF flavour of DatasetError, which is a ValueError
    assert issubclass(ARFFError, DatasetError) and issubclass(DatasetError, ValueError)
    p = write(tmp_path, "x.arff", "@relation r\n@attribute a string\n@data\nfoo\n")
    with pytest.raises(DatasetError) as info:
        load(p, labels=["a"])
    assert isinstance(info.value, ARFFError) and info.value.line == 2
    assert str(DatasetError("bad", "f.mat")) == "f.mat: bad"
    assert str(ARFFError("bad", None, 3)) == "<arff>, line 3: bad"


def test_load_mat_label_copies(tmp_path):
    rng = np.random.default_rng(1)
    F = rng.integers(0, 2, size=(15, 3))
    Y = rng.integers(0, 2, size=(15, 2))
    p = tmp_path / "leak.mat"
    scipy.io.savemat(p, {"data": np.hstack([F, Y]).astype(np.uint8), "answer": Y.astype(np.uint8)})
    with pytest.warns(LabelCopiesWarning, match="last 2 columns"):
        assert load_mat(p).n_features == 5
    np.testing.assert_array_equal(load_mat(p, label_copies="drop").X, F)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_mat(p, label_copies="keep").n_features == 5


# --------------------------------------------------------------------------- stats


def test_stats_hand_worked():
    ds = MultiLabelDataset(
        X=np.zeros((4, 3)),
        Y=np.array([[1, 0], [1, 1], [0, 0], [1, 0]], dtype=np.uint8),
        feature_names=["a", "b", "c"],
        label_names=["p", "q"],
        feature_types=["numeric", "nominal", "numeric"],
        categories=[None, ["u", "v"], None],
        name="hand",
    )
    s = ds.stats()
    assert s["n_patterns"] == 4 and s["n_features"] == 3 and s["n_labels"] == 2
    assert s["cardinality"] == pytest.approx(4 / 4)  # 1 + 2 + 0 + 1 labels
    assert s["density"] == pytest.approx(0.5)
    assert s["distinct"] == 3  # {p}, {p, q}, {}
    assert s["feature_type"] == "mixed"
    table = format_stats([ds, s])
    lines = table.splitlines()
    assert lines[0].split() == ["Dataset", "|W|", "|F|", "Type", "|L|", "Card.", "Den.", "Distinct"]
    assert lines[2].split() == ["hand", "4", "3", "mixed", "2", "1.000", "0.500", "3"]
    assert lines[2] == lines[3]
    assert len({len(line) for line in lines}) == 1  # aligned
    assert format_stats(ds) == "\n".join(lines[:3])
    with pytest.raises(TypeError):
        format_stats([1])


def test_distinct_matches_reference_for_many_labels():
    rng = np.random.default_rng(3)
    Y = (rng.random((300, 20)) < 0.1).astype(np.uint8)
    ds = MultiLabelDataset(np.zeros((300, 1)), Y, ["f"], [f"l{k}" for k in range(20)], ["numeric"])
    assert ds.stats()["distinct"] == len({tuple(r) for r in Y.tolist()})


def test_dataset_validation():
    with pytest.raises(ValueError, match="feature_names"):
        MultiLabelDataset(
            np.zeros((2, 2)), np.zeros((2, 1), np.uint8), ["a"], ["l"], ["numeric", "numeric"]
        )
    with pytest.raises(ValueError, match="Y has shape"):
        MultiLabelDataset(np.zeros((2, 1)), np.zeros((3, 1), np.uint8), ["a"], ["l"], ["numeric"])
    with pytest.raises(ValueError, match="feature_types"):
        MultiLabelDataset(np.zeros((2, 1)), np.zeros((2, 1), np.uint8), ["a"], ["l"], ["text"])


# --------------------------------------------------------------------------- synthetic data


def _mi_with_labels(x: np.ndarray, Y: np.ndarray) -> float:
    """Sum over labels of I(x; y_k) in nats, from a plain contingency table."""
    total = 0.0
    for k in range(Y.shape[1]):
        joint = np.zeros((int(x.max()) + 1, 2))
        for a, b in zip(x.astype(int), Y[:, k], strict=True):
            joint[a, b] += 1
        p = joint / joint.sum()
        px, py = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
        nz = p > 0
        total += float((p[nz] * np.log(p[nz] / (px @ py)[nz])).sum())
    return total


def _pair_mi(x: np.ndarray, z: np.ndarray) -> float:
    """I(x; z) in nats of two discrete columns, from a plain contingency table."""
    joint = np.zeros((int(x.max()) + 1, int(z.max()) + 1))
    for a, b in zip(x.astype(int), z.astype(int), strict=True):
        joint[a, b] += 1
    p = joint / joint.sum()
    px, pz = p.sum(1, keepdims=True), p.sum(0, keepdims=True)
    nz = p > 0
    return float((p[nz] * np.log(p[nz] / (px @ pz)[nz])).sum())


def test_make_multilabel_discrete():
    ds = make_multilabel_discrete()
    assert ds.X.shape == (500, 60) and ds.Y.shape == (500, 6)
    assert ds.Y.dtype == np.uint8 and ds.feature_type == "nominal"
    assert np.all(ds.Y.sum(0) > 0) and np.all(ds.Y.sum(0) < 500)
    assert np.array_equal(ds.X, np.round(ds.X))
    roles = [n.split("_")[0] for n in ds.feature_names]
    assert roles.count("inf") == 10 and roles.count("red") == 5 and roles.count("noise") == 45
    assert roles[:15] != ["inf"] * 10 + ["red"] * 5  # shuffled
    again = make_multilabel_discrete()
    np.testing.assert_array_equal(ds.X, again.X)
    np.testing.assert_array_equal(ds.Y, again.Y)
    assert not np.array_equal(ds.X, make_multilabel_discrete(random_state=1).X)
    for j, c in enumerate(ds.categories):
        assert ds.X[:, j].max() < len(c)

    # A dependency filter beats a random choice clearly.
    mi = np.array([_mi_with_labels(ds.X[:, j], ds.Y) for j in range(60)])
    top = np.argsort(-mi)[:10]
    useful = np.array([r != "noise" for r in roles])
    assert useful[top].sum() == 10
    rng = np.random.default_rng(0)
    random_hits = np.mean([useful[rng.choice(60, 10, replace=False)].sum() for _ in range(200)])
    assert random_hits < 4
    assert mi[useful].min() > 1.5 * mi[~useful].max()
    assert mi[useful].mean() > 5 * mi[~useful].mean()

    # Only the red_* copies are redundant: informative features are (nearly) independent
    # of each other, as independent as two noise features, while each copy depends
    # strongly on its source — so a redundancy-aware filter has no reason to skip an
    # informative feature (what made the demo's SCLS subset lose to all features, #18).
    def pair_mi(a, b):
        return _pair_mi(ds.X[:, a], ds.X[:, b])

    idx = {n: j for j, n in enumerate(ds.feature_names)}
    inf = [idx[f"inf_{i}"] for i in range(10)]
    noise = [idx[f"noise_{i}"] for i in range(10)]
    inf_pairs = [pair_mi(a, b) for i, a in enumerate(inf) for b in inf[i + 1:]]
    noise_pairs = [pair_mi(a, b) for i, a in enumerate(noise) for b in noise[i + 1:]]
    assert max(inf_pairs) < 2 * max(noise_pairs) and max(inf_pairs) < 0.05
    for i in range(5):
        assert pair_mi(idx[f"red_{i}"], idx[f"inf_{i}"]) > 10 * max(inf_pairs)


def test_make_multilabel_discrete_validation():
    with pytest.raises(ValueError, match="exceeds"):
        make_multilabel_discrete(n_features=5, n_informative=4, n_redundant=2)
    with pytest.raises(ValueError, match="noise"):
        make_multilabel_discrete(noise=1.5)
    small = make_multilabel_discrete(n_samples=30, n_features=3, n_labels=4)
    assert small.X.shape == (30, 3) and small.Y.shape == (30, 4)


# --------------------------------------------------------------------------- real data


MULAN = [
    "bibtex",
    "birds",
    "cal500",
    "corel16k",
    "corel5k",
    "delicious",
    "emotions",
    "enron",
    "flags",
    "foodtruck",
    "genbase",
    "medical",
    "scene",
    "tmc2007",
    "yeast",
]


@pytest.mark.parametrize("name", MULAN)
def test_every_mulan_folder_loads(datasets_dir, name):
    ds = load_name(name, root=datasets_dir)
    n, d = ds.X.shape
    assert n > 0 and d > 0 and ds.Y.shape[0] == n
    assert set(np.unique(ds.Y)) <= {0, 1}
    assert ds.n_missing == 0
    assert (
        len(ds.feature_names) == d
        and len(set(ds.feature_names + ds.label_names)) == d + ds.n_labels
    )
    if name in ("birds", "scene"):
        assert ds.part is not None and 0 < ds.n_train < n
    assert sp.issparse(ds.X) == (
        name in ("bibtex", "corel5k", "delicious", "enron", "medical", "tmc2007")
    )


# name: (|W|, |F|, |L|, card, den, distinct, type) from Table 1 of the SCLS paper (Lee & Kim
# 2017); None where the paper gives no value we reproduce (see the notes in the test).
TABLE1 = {
    "bibtex": (7395, 1836, 159, 2.402, 0.015, 2856, "nominal"),
    "delicious": (16105, 500, 983, 19.020, 0.019, 15806, "nominal"),
    "enron": (1702, 1001, 53, 3.378, 0.064, 753, "nominal"),
    "genbase": (662, 1185, 27, 1.252, 0.046, 32, "nominal"),
    "medical": (978, 1494, 45, 1.245, 0.028, 94, "nominal"),
    "scene": (2407, 294, 6, 1.074, 0.179, 15, "numeric"),
    "yeast": (2417, 103, 14, 4.237, 0.303, 198, "numeric"),
}


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_table1_statistics(datasets_dir, name):
    W, F, L, card, den, distinct, ftype = TABLE1[name]
    ds = load_name(name, root=datasets_dir)
    s = ds.stats()
    assert s["n_patterns"] == W
    assert s["n_labels"] == L
    assert round(s["cardinality"], 3) == pytest.approx(card, abs=1e-9)
    assert round(s["density"], 3) == pytest.approx(den, abs=1e-9)
    assert s["distinct"] == distinct
    assert s["feature_type"] == ftype
    if name == "genbase":
        # Mulan's genbase has 1186 features: the 1185 {YES,NO} motif features of Table 1
        # plus the nominal protein identifier, which we keep (one distinct value per row).
        assert s["n_features"] == F + 1 and ds.feature_names[0] == "protein"
        assert len(ds.categories[0]) == W and len(np.unique(ds.X[:, 0])) == W
    elif name == "medical":
        # Table 1 says 1494 = all attributes of medical.arff; 45 of them are the labels.
        assert s["n_features"] == F - L == 1449
    else:
        assert s["n_features"] == F


REFERENCE_FILES = [
    "mulan/emotions/emotions.arff",
    "mulan/flags/flags.arff",
    "mulan/foodtruck/foodtruck.arff",
    "mulan/yeast/yeast-test.arff",
    "mulan/birds/birds-train.arff",
    "mulan/genbase/genbase-test.arff",
    "mulan/medical/medical.arff",
    "mulan/enron/enron-test.arff",
    "mulan/corel5k/Corel5k-test-sparse.arff",
    "mulan/scene/scene-test.arff",
    "mulan/cal500/cal500.arff",
]


@pytest.mark.parametrize("rel", REFERENCE_FILES)
def test_real_files_match_liac_arff(dataset_path, rel):
    p = dataset_path(rel)
    ds = load(p)
    stem = re.sub(r"(-(train|test|sparse))+$", "", p.stem)
    xml = dataset_path(str(Path(rel).parent / f"{stem}.xml"))
    names = [e.get("name") for e in ET.parse(xml).getroot().iter() if e.tag.endswith("label")]
    X_ref, Y_ref = reference_load(p, names)
    np.testing.assert_array_equal(dense(ds.X), X_ref)
    np.testing.assert_array_equal(ds.Y, Y_ref)
    assert sorted(ds.label_names) == sorted(names)


@pytest.mark.parametrize(
    "rel",
    ["mulan/flags/flags.arff", "mulan/medical/medical-train.arff", "mulan/yeast/yeast-test.arff"],
)
def test_real_files_fast_paths_agree_with_careful_reader(dataset_path, monkeypatch, rel):
    p = dataset_path(rel)
    fast = load(p)
    _force_careful(monkeypatch)
    careful = load(p)
    np.testing.assert_array_equal(dense(fast.X), dense(careful.X))
    np.testing.assert_array_equal(fast.Y, careful.Y)


def test_real_parts_concatenate_to_whole_file(dataset_path):
    whole = load(dataset_path("mulan/emotions/emotions.arff"))
    parts = load_train_test(dataset_path("mulan/emotions/emotions-train.arff"))
    assert parts.n_samples == whole.n_samples and parts.n_train == 391
    # the whole file is not train + test in order, so compare as multisets of rows
    a = np.hstack([whole.X, whole.Y])
    b = np.hstack([parts.X, parts.Y])
    np.testing.assert_array_equal(a[np.lexsort(a.T)], b[np.lexsort(b.T)])


def test_real_mat_files(dataset_path):
    for name in ("emotions", "enron", "genbase", "yeast"):
        ds = load_mat(dataset_path(f"plcfs/{name}.mat"))
        assert ds.split_masks.shape == (ds.n_samples, 50)
        # holdout 80 % / 20 %
        frac = ds.split_masks.mean(axis=0)
        assert np.all(np.abs(frac - 0.8) < 0.01)
        assert (ds.X_discrete is not None) == (name in ("emotions", "yeast"))
    with pytest.warns(LabelCopiesWarning):
        med = load_mat(dataset_path("plcfs/medical.mat"))
    assert med.n_features == 1494
    med = load_mat(dataset_path("plcfs/medical.mat"), label_copies="drop")
    assert med.n_features == 1449
    # genbase.mat = Mulan genbase without the protein id, YES coded 1 (ARFF index of YES is 0)
    gm = load_mat(dataset_path("plcfs/genbase.mat"))
    ga = load(dataset_path("mulan/genbase/genbase.arff"))
    np.testing.assert_array_equal(gm.X, 1 - ga.X[:, 1:])
    np.testing.assert_array_equal(gm.Y, ga.Y)
