"""``mlfs merge``: combine results databases computed apart into one."""

from __future__ import annotations

import argparse

HELP = "combine results databases (e.g. parts of one benchmark run on different machines)"
RUN = "skmlfs.cli._run.merge:run"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "db", metavar="DB",
        help="the results database to add to (created if missing); afterwards run the "
        "experiment file on it ('mlfs benchmark FILE --db DB'): it computes only the cells "
        "no database had and writes the report of all of them",
    )
    parser.add_argument(
        "sources", nargs="+", metavar="SOURCE",
        help="results databases to add (read, never changed); .xz, .gz or .bz2 files are "
        "decompressed on the fly. A cell already in DB is kept as it is",
    )
