"""CSV / TSV / Parquet input: same MultiLabelDataset as ARFF, named labels, clear errors."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from skmlfs.cli import main
from skmlfs.datasets import (
    DatasetError,
    MissingValuesWarning,
    MultiLabelDataset,
    load,
    load_tabular,
)

CSV = """f1,f2,color,y_a,y_b
1.5,-2,red,0,1
2.25,3,blue,1,1
0.1,4e-300,red,1,0
"""

# The same data as an ARFF file with its XML label file: the reference.
ARFF = """@relation t
@attribute f1 numeric
@attribute f2 numeric
@attribute color {blue,red}
@attribute y_a {0,1}
@attribute y_b {0,1}
@data
1.5,-2,red,0,1
2.25,3,blue,1,1
0.1,4e-300,red,1,0
"""
XML = ('<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">'
       '<label name="y_a"/><label name="y_b"/></labels>')


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def _assert_same(a: MultiLabelDataset, b: MultiLabelDataset) -> None:
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.Y.dtype == b.Y.dtype == np.uint8
    assert a.feature_names == b.feature_names and a.label_names == b.label_names
    assert a.feature_types == b.feature_types and a.categories == b.categories


@pytest.fixture
def reference(tmp_path):
    _write(tmp_path, "ref.xml", XML)
    return load(_write(tmp_path, "ref.arff", ARFF))


def test_csv_tsv_parquet_give_the_dataset_arff_gives(tmp_path, reference):
    csv = _write(tmp_path, "t.csv", CSV)
    ds = load(csv, labels=["y_a", "y_b"])  # today's bug: "expected @relation"
    assert isinstance(ds, MultiLabelDataset) and ds.name == "t" and ds.source == str(csv)
    _assert_same(ds, reference)
    assert ds.X[2, 1] == 4e-300  # numbers read exactly
    _assert_same(load(csv, label_prefix="y_"), reference)
    _assert_same(load(csv, labels=["y_b", "y_a"]), reference)  # Y follows the table order
    _assert_same(load(csv, labels=-2), reference)  # MEKA-style count: the last two columns
    tsv = _write(tmp_path, "t.tsv", CSV.replace(",", "\t"))
    _assert_same(load(tsv, label_prefix="y_"), reference)
    pytest.importorskip("pyarrow")
    pq = tmp_path / "t.parquet"
    pd.read_csv(csv).to_parquet(pq)
    _assert_same(load(pq, labels=["y_a", "y_b"]), reference)
    _assert_same(load_tabular(pq, label_prefix="y_"), reference)


def test_label_prefix_also_works_for_arff(tmp_path, reference):
    p = _write(tmp_path, "noxml.arff", ARFF)  # no XML beside it
    _assert_same(load(p, label_prefix="y_"), reference)
    with pytest.raises(DatasetError, match="label prefix 'z_'"):
        load(p, label_prefix="z_")
    with pytest.raises(ValueError, match="either labels= or label_prefix="):
        load(p, labels=["y_a"], label_prefix="y_")


def test_boolean_and_float_label_columns(tmp_path):
    p = _write(tmp_path, "b.csv", "x,l1,l2\n1,True,1.0\n2,False,0.0\n")
    ds = load(p, labels=["l1", "l2"])
    np.testing.assert_array_equal(ds.Y, [[1, 1], [0, 0]])


@pytest.mark.parametrize(
    "text, kwargs, line, pattern",
    [
        # a row with one field too many, after a blank line (line numbers stay true)
        ("x,y\n1,0\n\n2,1,7\n", {"labels": ["y"]}, 4, "expected 2 fields .* found 3"),
        ("x,y\n1,0\n\n2,1\n\"3,1\n4,0\n", {"labels": ["y"]}, 5, "unterminated quote"),
        ("x,y\n1,0\n2,\"1\n", {"labels": ["y"]}, 3, "unterminated quote"),
        ("x,y\n1,0\n2,2\n", {"labels": ["y"]}, 3, "label column 'y' has the value '2'"),
        ("x,y\n1,0\n2,0.5\n", {"labels": ["y"]}, 3, "value '0.5'; label values must be 0 or 1"),
        ("x,y\n1,yes\n", {"labels": ["y"]}, 2, "value 'yes'"),
        ("x,y\n1,0\n\n2,\n", {"labels": ["y"]}, 4, "label column 'y' has a missing value"),
        ("x,y\n1,0\n", {"labels": ["y", "Z", "w"]}, 1, r"2 label column\(s\) not found in the "
         r"header: 'Z', 'w'"),
        ("x,lab_1\n1,0\n", {"labels": ["lab1"]}, 1, "did you mean 'lab_1' for 'lab1'"),
        ("x,y,x\n1,0,2\n", {"labels": ["y"]}, 1, "names a column twice: 'x'"),
        ("x,y\n1,0\n", {"labels": ["x", "y"]}, 1, "every column is a label"),
        ("x,y\n1,0\n", {"label_prefix": "q"}, 1, "no column name starts with the label prefix"),
        ("x,y\n1,0\n", {"labels": 2}, 1, "label count 2 is invalid for 2 columns"),
    ],
)
def test_malformed_tables_name_file_and_line(tmp_path, text, kwargs, line, pattern):
    p = _write(tmp_path, "bad.csv", text)
    with pytest.raises(DatasetError, match=pattern) as err:
        load(p, **kwargs)
    assert err.value.path == str(p) and err.value.line == line
    assert str(err.value).startswith(f"{p}, line {line}: ")


def test_errors_without_a_line(tmp_path):
    p = _write(tmp_path, "t.csv", CSV)
    with pytest.raises(DatasetError, match="--labels a,b or --label-prefix y_") as err:
        load(p)  # a table has no label file: the message gives both APIs
    assert "labels=" in str(err.value) and err.value.path == str(p)
    with pytest.raises(DatasetError, match="empty"):
        load(_write(tmp_path, "e.csv", ""), labels=["y"])
    with pytest.raises(DatasetError, match="no data rows"):
        load(_write(tmp_path, "h.csv", "x,y\n"), labels=["y"])
    with pytest.raises(TypeError, match=r"did you mean labels=\['y_a'\]"):
        load(p, labels="y_a")
    with pytest.raises(ValueError, match="must be ARFF files"):
        load([p, p], labels=["y_a"])


def test_missing_feature_values_warn_with_their_line(tmp_path):
    p = _write(tmp_path, "m.csv", "x,c,y\n1,a,0\n,b,1\n3,,0\n?,a,1\n")
    with pytest.warns(MissingValuesWarning, match=r"m.csv, line 3: 3 missing feature value\(s\) "
                      r"in 3 row\(s\)"):
        ds = load(p, labels=["y"])
    np.testing.assert_array_equal(np.isnan(ds.X), [[0, 0], [1, 0], [0, 1], [1, 0]])
    assert ds.n_missing == 3 and ds.first_missing == f"{p}, line 3"
    assert ds.categories[1] == ["a", "b"] and ds.feature_types == ["numeric", "nominal"]
    with pytest.raises(DatasetError, match="missing='raise'") as err:
        load(p, labels=["y"], missing="raise")
    assert err.value.line == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load(p, labels=["y"], missing="ignore")


def test_parquet_without_pyarrow_says_what_to_install(tmp_path, monkeypatch, capsys):
    p = tmp_path / "t.parquet"
    p.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'scikit-mlfs\[parquet\]'"):
        load(p, labels=["y"])
    assert main(["info", str(p), "--labels", "y"]) == 2
    assert "needs pyarrow" in capsys.readouterr().err


def test_every_command_reads_csv(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 60
    X = rng.integers(0, 3, size=(n, 5))
    Y = (X[:, :2] > 0).astype(int)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
    df["lab_a"], df["lab_b"] = Y[:, 0], Y[:, 1]
    p = tmp_path / "d.csv"
    df.to_csv(p, index=False)
    assert main(["info", str(p), "--label-prefix", "lab_"]) == 0
    out = capsys.readouterr().out
    assert "d " in out and " 60 " in out and "  5 " in out
    assert main(["select", str(p), "--labels", "lab_a,lab_b", "-k", "2"]) == 0
    assert "f0" in capsys.readouterr().out
    assert main(["evaluate", str(p), "--label-prefix", "lab_", "--methods", "scls",
                 "--repeats", "2", "-k", "2", "--quiet"]) == 0
    assert "scls" in capsys.readouterr().out.lower()
    assert main(["transform", str(p), "--label-prefix", "lab_", "-k", "2",
                 "--write", str(tmp_path / "r.csv")]) == 0
    assert load(tmp_path / "r.csv", label_prefix="lab_").n_features == 2
    # the two options exclude each other; a missing label name is one clean line
    with pytest.raises(SystemExit):
        main(["info", str(p), "--labels", "lab_a", "--label-prefix", "lab_"])
    capsys.readouterr()
    assert main(["info", str(p), "--labels", "lab_a,lab_c"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mlfs info: error: {p}, line 1: 1 label column(s) not found")
    assert "'lab_c'" in err and "\n" not in err.strip()


def test_csv_of_a_real_dataset_equals_its_arff(dataset_path, tmp_path):
    ref = load(dataset_path("mulan/emotions/emotions.arff"))
    df = pd.DataFrame(ref.X, columns=ref.feature_names)
    for k, name in enumerate(ref.label_names):
        df[name] = ref.Y[:, k]
    p = tmp_path / "emotions.csv"
    df.to_csv(p, index=False)
    ds = load(p, labels=list(ref.label_names))
    _assert_same(ds, ref)


def test_experiment_files_read_tables(tmp_path, reference):
    from skmlfs.experiments._spec import DatasetSpec

    csv = _write(tmp_path, "t.csv", CSV)
    _assert_same(DatasetSpec(name="t", path=str(csv), options={"label_prefix": "y_"}).load(),
                 reference)
    _assert_same(DatasetSpec(name="t", path=str(csv), options={"labels": ["y_a", "y_b"]}).load(),
                 reference)
