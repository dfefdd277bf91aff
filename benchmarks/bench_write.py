"""Benchmark: the data set writers against straightforward ones, in the same run.

For each data set the script times (best of ``--repeat``)

* ``skmlfs.datasets.write_arff`` against liac-arff's ``arff.dumps`` (dense rows as lists,
  sparse data as a list of ``{index: value}`` dicts) written to a file;
* ``skmlfs.datasets.write_table`` (CSV) against ``pandas.DataFrame.to_csv`` of the same
  columns (nominal features as their value names);

prints both times and the ratio, and checks that every output reads back with
``skmlfs.datasets.load`` to the same ``X`` and ``Y``. Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_write.py [emotions medical ...]

Arguments are data set names under ``$MLFS_DATASETS``. Exit status 1 if a result differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from skmlfs.datasets import MultiLabelDataset, load_name, write_arff, write_table
from skmlfs.datasets import load as load_ds


def best(fn, repeat: int) -> float:
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def liac_write(ds: MultiLabelDataset, path: Path) -> None:
    import arff  # liac-arff

    atts = [
        (n, list(c) if k == "nominal" else "NUMERIC")
        for n, k, c in zip(ds.feature_names, ds.feature_types, ds.categories, strict=True)
    ] + [(n, ["0", "1"]) for n in ds.label_names]
    d = ds.n_features

    def decode(j: int, v: float):
        if np.isnan(v):
            return None
        return ds.categories[j][int(v)] if ds.feature_types[j] == "nominal" else v

    if sp.issparse(ds.X):
        X = ds.X.tocsr()
        data = []
        for r in range(ds.n_samples):
            row = {int(j): decode(int(j), v) for j, v in zip(
                X.indices[X.indptr[r]:X.indptr[r + 1]], X.data[X.indptr[r]:X.indptr[r + 1]],
                strict=True)}
            row.update({d + int(k): "1" for k in np.flatnonzero(ds.Y[r])})
            data.append(row)
    else:
        data = [[decode(j, v) for j, v in enumerate(x)] + [str(y) for y in yy]
                for x, yy in zip(ds.X.tolist(), ds.Y.tolist(), strict=True)]
    text = arff.dumps({"relation": ds.name, "attributes": atts, "data": data})
    path.write_text(text, encoding="utf-8")


def pandas_write(ds: MultiLabelDataset, path: Path) -> None:
    X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    cols = {}
    for j, n in enumerate(ds.feature_names):
        if ds.feature_types[j] == "nominal":
            cats = np.array(list(ds.categories[j]) + [None], dtype=object)
            cols[n] = cats[np.where(np.isnan(X[:, j]), len(cats) - 1, X[:, j]).astype(int)]
        else:
            cols[n] = X[:, j]
    for k, n in enumerate(ds.label_names):
        cols[n] = ds.Y[:, k].astype(int)
    pd.DataFrame(cols).to_csv(path, index=False)


def same(ds: MultiLabelDataset, back: MultiLabelDataset) -> bool:
    a = ds.X.toarray() if sp.issparse(ds.X) else ds.X
    b = back.X.toarray() if sp.issparse(back.X) else back.X
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True) and np.array_equal(
        ds.Y, back.Y)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=["emotions", "scene", "medical", "enron"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bad = 0
    print(f"{'dataset':<10} {'shape':>12} {'kind':>6}  {'arff ours':>9} {'liac':>8} {'ratio':>6}"
          f"  {'csv ours':>8} {'pandas':>8} {'ratio':>6}  same")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in args.names:
            ds = load_name(name)
            ours_a, ref_a = tmp / f"{name}.arff", tmp / f"{name}-liac.arff"
            ours_c, ref_c = tmp / f"{name}.csv", tmp / f"{name}-pd.csv"
            t1 = best(lambda: write_arff(ds, ours_a), args.repeat)  # noqa: B023
            t2 = best(lambda: liac_write(ds, ref_a), args.repeat)  # noqa: B023
            t3 = best(lambda: write_table(ds, ours_c), args.repeat)  # noqa: B023
            t4 = best(lambda: pandas_write(ds, ref_c), args.repeat)  # noqa: B023
            ok = same(ds, load_ds(ours_a)) and same(ds, load_ds(ref_a, labels=ds.label_names))
            ok = ok and same(ds, load_ds(ours_c, labels=ds.label_names)) if all(
                t == "numeric" for t in ds.feature_types) else ok
            bad += not ok
            kind = "sparse" if sp.issparse(ds.X) else "dense"
            shape = f"{ds.n_samples}x{ds.n_features}"
            print(f"{name:<10} {shape:>12} {kind:>6}  {t1:9.3f} {t2:8.3f} {t2 / t1:6.1f}"
                  f"  {t3:8.3f} {t4:8.3f} {t4 / t3:6.1f}  {'yes' if ok else 'NO'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
