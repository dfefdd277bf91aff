"""``mlfs fetch``: download standard multi-label datasets by name into the cache."""

from __future__ import annotations

import os
import sys


def register(parser) -> None:
    parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help="dataset names (see --list); afterwards every command accepts the bare name",
    )
    parser.add_argument(
        "--data-home", metavar="DIR",
        help="cache directory (default: $MLFS_DATA_HOME, else ~/scikit_mlfs_data)",
    )
    parser.add_argument("--list", action="store_true", help="list the datasets known by name")


def run(args) -> int:
    from ..datasets import REGISTRY, data_home, fetch
    from ..datasets._fetch import LFS_BASE_URL

    home = data_home(args.data_home)
    if args.list or not args.names:
        print(f"{'name':<10} {'files':>5} {'MB':>6}  cached")
        for name, entry in sorted(REGISTRY.items()):
            size = sum(f.size for f in entry.files) / 1e6
            cached = all((home / "mulan" / name / f.local).is_file() for f in entry.files)
            print(f"{name:<10} {len(entry.files):>5} {size:>6.1f}  {'yes' if cached else '-'}")
        print(f"\nsource: {next(iter(REGISTRY.values())).provenance}\ncache: {home}")
        if not args.names and not args.list:
            print("\nusage: mlfs fetch NAME [NAME ...]", file=sys.stderr)
        return 0
    unknown = [n for n in args.names if n.rpartition("/")[2].lower() not in
               {k.lower() for k in REGISTRY}]
    if unknown:
        raise ValueError(
            f"unknown dataset name(s) {', '.join(map(repr, unknown))}; known: "
            + ", ".join(sorted(REGISTRY))
        )
    print(f"from {os.environ.get('MLFS_DATA_URL') or LFS_BASE_URL}", file=sys.stderr)
    for name in args.names:
        ds = fetch(name, data_home=home)
        print(
            f"{ds.name}: {ds.n_samples} patterns, {ds.n_features} features, {ds.n_labels} "
            f"labels -> {home / 'mulan' / ds.name}"
        )
    return 0
