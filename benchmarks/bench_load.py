"""Benchmark: ``skmlfs.datasets.load`` against liac-arff's dense reader on Mulan files.

For each data set the script times ``skmlfs.datasets.load(path)`` and
``arff.load(fh)`` (liac-arff, dense mode) in the same run (best of ``--repeat``
runs each), measures the peak traced memory of one more run of each under
``tracemalloc``, and checks that both give the same ``X`` and ``Y`` (labels taken
from the Mulan XML file by name).  Usage::

    MLFS_DATASETS=/path/to/datasets python benchmarks/bench_load.py [bibtex delicious ...]

Arguments are data set names (``$MLFS_DATASETS/mulan/<name>/<name>.arff``), files
relative to ``$MLFS_DATASETS/mulan`` (``scene/scene-train.arff``) or ARFF paths.
The exit status is 1 if any result differs.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from skmlfs.datasets import load
from skmlfs.datasets._load import _find_label_xml
from skmlfs.datasets._xml import read_label_xml


def liac_load(path: Path) -> dict:
    import arff  # liac-arff

    with open(path, encoding="utf-8") as fh:
        return arff.load(fh)


def liac_to_XY(d: dict, label_names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """liac's decoded rows (nominal values as strings, missing as None) -> X, Y."""
    atts = d["attributes"]
    M = np.array(d["data"], dtype=object)
    out = np.empty(M.shape, dtype=np.float64)
    for j, (_, kind) in enumerate(atts):
        col = M[:, j]
        if isinstance(kind, list):  # nominal: value -> index; omitted sparse entries are int 0
            lut = {v: float(i) for i, v in enumerate(kind)}
            out[:, j] = [np.nan if v is None else lut[v] if isinstance(v, str) else v for v in col]
        else:
            out[:, j] = [np.nan if v is None else v for v in col]
    # liac keeps the escapes of quoted names ('Swainson\'s Thrush'); bare names such as
    # delicious' TAG_m\'usica are spelled with the backslash in the XML file too.
    lab = set(label_names)
    names = [a[0] if a[0] in lab else a[0].replace("\\'", "'") for a in atts]
    fi = [j for j, n in enumerate(names) if n not in lab]
    li = [j for j, n in enumerate(names) if n in lab]
    return out[:, fi], out[:, li].astype(np.uint8)


def timed(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def peak_mb(fn) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        r = fn()
        del r
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def resolve(arg: str) -> Path:
    p = Path(arg)
    if p.suffix.lower() == ".arff" and p.is_file():
        return p
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        sys.exit("set MLFS_DATASETS (or pass ARFF paths)")
    # "scene/scene-train.arff" names a file under mulan/, "bibtex" the whole file of a folder
    p = Path(root) / "mulan" / (arg if arg.endswith(".arff") else f"{arg}/{arg}.arff")
    if not p.is_file():
        sys.exit(f"{p} not found")
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", default=["bibtex", "delicious"])
    ap.add_argument("--repeat", type=int, default=2, help="timed runs of each reader (best kept)")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    args = ap.parse_args(argv)

    header = (
        f"{'dataset':<12} {'n x A':>13} {'skmlfs s':>9} {'liac s':>8} {'ratio':>7} "
        f"{'skmlfs MB':>10} {'liac MB':>8}  same X,Y"
    )
    print(header)
    print("-" * len(header))
    status = 0
    for arg in args.datasets:
        path = resolve(arg)
        t_ours, ds = timed(lambda p=path: load(p), args.repeat)
        t_liac, d = timed(lambda p=path: liac_load(p), args.repeat)
        xml, _ = _find_label_xml(path)
        X_ref, Y_ref = liac_to_XY(d, read_label_xml(xml) if xml else ds.label_names)
        del d
        X = ds.X.toarray() if sp.issparse(ds.X) else ds.X
        same = (
            X.shape == X_ref.shape
            and np.array_equal(X, X_ref, equal_nan=True)
            and np.array_equal(ds.Y, Y_ref)
        )
        status |= not same
        shape = f"{ds.n_samples}x{ds.n_features + ds.n_labels}"
        del X, X_ref, Y_ref
        if args.no_memory:
            m_ours = m_liac = float("nan")
        else:
            m_ours = peak_mb(lambda p=path: load(p))
            m_liac = peak_mb(lambda p=path: liac_load(p))
        print(
            f"{ds.name:<12} {shape:>13} {t_ours:9.3f} {t_liac:8.3f} {t_liac / t_ours:6.1f}x "
            f"{m_ours:10.1f} {m_liac:8.1f}  {'yes' if same else 'NO'}",
            flush=True,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
