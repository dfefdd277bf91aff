"""``mlfs fetch``: download standard multi-label datasets by name into the cache."""

from __future__ import annotations

import argparse

HELP = "download standard datasets by name (emotions, scene, ...) into a cache"
RUN = "skmlfs.cli._run.fetch:run"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names", nargs="*", metavar="NAME",
        help="dataset names (see --list), e.g. emotions or plcfs/enron; afterwards every "
        "command accepts the bare name",
    )
    parser.add_argument(
        "--data-home", metavar="DIR",
        help="cache directory (default: $MLFS_DATA_HOME, else ~/scikit_mlfs_data)",
    )
    parser.add_argument("--list", action="store_true", help="list the datasets known by name")
