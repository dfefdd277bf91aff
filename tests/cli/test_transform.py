"""Reduced data out: writers that round-trip through our loaders, mlfs transform, --save/--model."""

from __future__ import annotations

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from skmlfs.cli import main
from skmlfs.datasets import (
    MultiLabelDataset,
    load,
    read_label_xml,
    save,
    select_features,
    write_arff,
)
from skmlfs.selection import SCLS

WEIRD = ["plain", "with space", "it's", 'dq"x', "back\\slash", "comma,x", "{brace}", "é ü", "?"]


def _toy(sparse: bool = False, table: bool = False) -> MultiLabelDataset:
    rng = np.random.default_rng(3)
    n = 12
    X = np.zeros((n, 5))
    X[:, 0] = rng.standard_normal(n) * 10.0 ** rng.integers(-300, 300, n)  # exact doubles
    X[:, 1] = rng.integers(-3, 4, n)  # integers
    X[:, 2] = rng.integers(0, len(WEIRD), n)  # nominal codes
    X[::3, 3] = [0.1, 1 / 3, -2.5e-7, 123456789.0]
    X[1, 4] = np.nan
    X[5, 2] = np.nan  # a missing nominal value
    Y = (rng.random((n, 3)) < 0.4).astype(np.uint8)
    return MultiLabelDataset(
        X=sp.csr_matrix(X) if sparse else X,
        Y=Y,
        feature_names=["num", "int feature", "nom'inal", "sparse,ish", "with\\back"],
        label_names=["lab 1", "lab'2", 'lab"3'],
        feature_types=["numeric", "numeric", "nominal", "numeric", "numeric"],
        # "?" is a fine ARFF value (quoted) but a table reads it as missing
        categories=[None, None, WEIRD[:-1] + ["q"] if table else WEIRD, None, None],
        name="toy set",
    )


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def _decoded(ds: MultiLabelDataset) -> list:
    """Feature values as the user sees them: numbers, or the nominal value names."""
    X = _dense(ds.X)
    cols = []
    for j, kind in enumerate(ds.feature_types):
        if kind == "nominal":
            cols.append([None if np.isnan(v) else ds.categories[j][int(v)] for v in X[:, j]])
        else:
            cols.append([None if np.isnan(v) else float(v) for v in X[:, j]])
    return cols


@pytest.mark.parametrize("sparse", [False, True])
def test_arff_round_trip_is_exact(tmp_path, sparse):
    ds = _toy(sparse)
    out = save(ds, tmp_path / "toy.arff")
    assert read_label_xml(tmp_path / "toy.xml") == ds.label_names
    first = out.read_text(encoding="utf-8").split("@data\n", 1)[1].lstrip().splitlines()[0]
    assert first.startswith("{") == sparse  # sparse stays sparse on disk...
    with pytest.warns(UserWarning, match="missing"):
        back = load(out)
    assert sp.issparse(back.X) == sparse  # ...and in memory
    np.testing.assert_array_equal(_dense(back.X), _dense(ds.X))  # NaN == NaN here
    np.testing.assert_array_equal(back.Y, ds.Y)
    assert back.feature_names == ds.feature_names and back.label_names == ds.label_names
    assert back.feature_types == ds.feature_types and back.categories == ds.categories
    if sparse:
        Xs = ds.X.copy()
        Xs.eliminate_zeros()
        assert back.X.nnz == Xs.nnz


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
def test_table_round_trip_keeps_values_and_names(tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match="has the value '\\?', which a table reads back as a "
                       "missing value"):
        save(_toy(), tmp_path / f"bad{suffix}")
    ds = _toy(sparse=suffix == ".csv", table=True)  # a sparse X is written densely to a table
    out = save(ds, tmp_path / f"toy{suffix}")
    with pytest.warns(UserWarning, match="missing"):
        back = load(out, labels=ds.label_names)
    assert not sp.issparse(back.X)
    assert back.feature_names == ds.feature_names and back.label_names == ds.label_names
    np.testing.assert_array_equal(back.Y, ds.Y)
    assert _decoded(back) == _decoded(ds)  # numbers exact; nominal values by name
    assert back.feature_types == ds.feature_types


def test_real_sparse_dataset_round_trips_sparse(dataset_path, tmp_path):
    ds = load(dataset_path("mulan/medical/medical.arff"))
    assert sp.issparse(ds.X)
    sub = select_features(ds, np.arange(0, ds.n_features, 7))
    back = load(save(sub, tmp_path / "med.arff"))
    assert sp.issparse(back.X) and back.X.nnz == sub.X.nnz
    assert (back.X != sub.X).nnz == 0
    np.testing.assert_array_equal(back.Y, ds.Y)
    assert back.feature_names == sub.feature_names and back.categories == sub.categories


def test_writers_refuse_what_they_cannot_write(tmp_path):
    ds = _toy()
    with pytest.raises(ValueError, match="unknown output format '.json'"):
        save(ds, tmp_path / "x.json")
    with pytest.raises(ValueError, match="a table cannot be sparse"):
        save(ds, tmp_path / "x.csv", sparse=True)
    clash = MultiLabelDataset(X=np.zeros((2, 1)), Y=np.zeros((2, 1), np.uint8),
                              feature_names=["a"], label_names=["a"], feature_types=["numeric"])
    with pytest.raises(ValueError, match="share the name"):
        write_arff(clash, tmp_path / "c.arff")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_select_features(tmp_path):
    ds = _toy(sparse=True)
    mask = np.array([True, False, True, False, False])
    sub = select_features(ds, mask)
    assert sp.issparse(sub.X) and sub.feature_names == ["num", "nom'inal"]
    assert sub.categories == [None, WEIRD] and sub.feature_types == ["numeric", "nominal"]
    np.testing.assert_array_equal(_dense(sub.X), _dense(ds.X)[:, [0, 2]])
    np.testing.assert_array_equal(_dense(select_features(ds, [2, 0]).X), _dense(ds.X)[:, [2, 0]])
    with pytest.raises(ValueError, match="4 entries; the data have 5"):
        select_features(ds, mask[:4])
    with pytest.raises(ValueError, match="out of range"):
        select_features(ds, [5])


def test_select_save_then_transform_new_data(dataset_path, tmp_path, capsys):
    train = dataset_path("mulan/emotions/emotions-train.arff")
    test = dataset_path("mulan/emotions/emotions-test.arff")
    model = tmp_path / "model.joblib"
    written = tmp_path / "train_red.arff"
    assert main(["select", str(train), "-k", "7", "--save", str(model),
                 "--write", str(written)]) == 0
    capsys.readouterr()
    # Reference: the same selector fitted in Python.
    tr = load(train)
    ref = SCLS(n_features_to_select=7).fit(tr.X, tr.Y)
    support = ref.get_support()
    assert support.sum() == 7
    red = load(written)
    np.testing.assert_array_equal(red.X, tr.X[:, support])
    assert red.feature_names == [n for n, s in zip(tr.feature_names, support, strict=True) if s]
    bundle = joblib.load(model)
    np.testing.assert_array_equal(bundle["support"], support)
    assert bundle["feature_names"] == tr.feature_names
    # Apply to the test part: only the selected columns, ARFF + XML and CSV.
    te = load(test)
    for out in (tmp_path / "test_red.arff", tmp_path / "test_red.csv"):
        assert main(["transform", str(test), "--model", str(model), "--write", str(out)]) == 0
        back = load(out, labels=None if out.suffix == ".arff" else te.label_names)
        np.testing.assert_array_equal(back.X, te.X[:, support])
        np.testing.assert_array_equal(back.Y, te.Y)
    assert (tmp_path / "test_red.xml").is_file()


def test_transform_refuses_data_that_do_not_match_the_model(dataset_path, tmp_path, capsys):
    train = dataset_path("mulan/emotions/emotions-train.arff")
    model = tmp_path / "m.joblib"
    assert main(["select", str(train), "-k", "5", "--save", str(model)]) == 0
    capsys.readouterr()
    out = tmp_path / "o.arff"
    # another dataset: different feature count
    assert main(["transform", str(dataset_path("mulan/yeast/yeast.arff")), "--model",
                 str(model), "--write", str(out)]) == 2
    err = capsys.readouterr().err
    assert "has 103 features but the selector" in err and "fitted on 72" in err
    # same count, one renamed column
    te = load(dataset_path("mulan/emotions/emotions-test.arff"))
    df = pd.DataFrame(te.X, columns=te.feature_names).rename(
        columns={te.feature_names[3]: "renamed"})
    for k, name in enumerate(te.label_names):
        df[name] = te.Y[:, k]
    csv = tmp_path / "renamed.csv"
    df.to_csv(csv, index=False)
    assert main(["transform", str(csv), "--labels", ",".join(te.label_names), "--model",
                 str(model), "--write", str(out)]) == 2
    err = capsys.readouterr().err
    assert "1 name(s) differ, the first at column 4: 'renamed' here" in err
    # not a model file; --model with --method; unknown output format (refused up front)
    junk = tmp_path / "junk.joblib"
    junk.write_bytes(b"not a pickle")
    assert main(["transform", str(csv), "--labels", "x", "--model", str(junk),
                 "--write", str(out)]) == 2
    assert "not a joblib model file" in capsys.readouterr().err
    assert main(["transform", str(train), "--model", str(model), "--method", "ami",
                 "--write", str(out)]) == 2
    assert "do not combine" in capsys.readouterr().err
    assert main(["select", str(train), "-k", "5", "--write", str(tmp_path / "r.json")]) == 2
    assert "unknown output format '.json'" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "r.json").exists()


def test_transform_accepts_a_selector_dumped_from_python(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(40, 6)).astype(float)
    Y = (X[:, :2] > 0).astype(np.uint8)
    sel = SCLS(n_features_to_select=2).fit(X, Y)
    model = tmp_path / "sel.joblib"
    joblib.dump(sel, model)
    ds = MultiLabelDataset(X=X, Y=Y, feature_names=[f"f{j}" for j in range(6)],
                           label_names=["a", "b"], feature_types=["numeric"] * 6)
    data = save(ds, tmp_path / "d.arff")
    out = tmp_path / "o.csv"
    assert main(["transform", str(data), "--model", str(model), "--write", str(out)]) == 0
    back = load(out, labels=["a", "b"])
    np.testing.assert_array_equal(back.X, X[:, sel.get_support()])
