"""``mlfs fetch``: download standard multi-label datasets by name into the cache."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ...datasets import PROVENANCE, REGISTRY, base_url_for, data_home, fetch, registry_key


def _found_in_mlfs_datasets(entry) -> str | None:
    """Where ``$MLFS_DATASETS`` already holds the data set, or None: such a set is used by
    name before the cache, so downloading it again would only fill the cache."""
    root = os.environ.get("MLFS_DATASETS")
    if not root:
        return None
    if entry.collection == "mulan":
        folder = Path(root) / "mulan"
        if folder.is_dir():
            hits = [d for d in folder.iterdir() if d.is_dir() and d.name.lower() == entry.name]
            if hits and any(hits[0].iterdir()):
                return str(hits[0])
        return None
    p = Path(root) / entry.collection / f"{entry.name}.mat"
    return str(p) if p.is_file() else None


def run(args: argparse.Namespace) -> int:
    home = data_home(args.data_home)
    if args.list or not args.names:
        print(f"{'name':<15} {'files':>5} {'MB':>6}  cached")
        for name, entry in sorted(REGISTRY.items()):
            size = sum(f.size for f in entry.files) / 1e6
            cached = entry.cached(home)
            print(f"{name:<15} {len(entry.files):>5} {size:>6.2f}  {'yes' if cached else '-'}")
        collections = sorted({e.collection for e in REGISTRY.values()})
        print("\nsources:")
        for c in collections:
            print(f"  {c}: {PROVENANCE[c]}")
        print(f"cache: {home}")
        if not args.names and not args.list:
            print("\nusage: mlfs fetch NAME [NAME ...]", file=sys.stderr)
        return 0
    keys = [registry_key(n) for n in args.names]
    unknown = [n for n, k in zip(args.names, keys, strict=True) if k is None]
    if unknown:
        raise ValueError(
            f"unknown dataset name(s) {', '.join(map(repr, unknown))}; known: "
            + ", ".join(sorted(REGISTRY))
        )
    announced: set[str] = set()
    for key in keys:
        entry = REGISTRY[key]
        where = _found_in_mlfs_datasets(entry)
        if where is not None and args.data_home is None:
            print(f"{key}: already in $MLFS_DATASETS ({where}); not downloaded")
            continue
        base = base_url_for(None, entry.files[0], entry.collection)
        if base not in announced:
            announced.add(base)
            print(f"from {base}", file=sys.stderr)
        ds = fetch(key, data_home=home)
        print(
            f"{key}: {ds.n_samples} patterns, {ds.n_features} features, {ds.n_labels} "
            f"labels -> {entry.folder(home)}"
        )
    return 0
