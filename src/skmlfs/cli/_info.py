"""``mlfs info``: the statistics table of dataset files."""

from __future__ import annotations

from ._common import add_labels_option, load_dataset


def register(parser) -> None:
    parser.add_argument(
        "datasets", nargs="+", metavar="FILE",
        help="ARFF or .mat files (or dataset names under $MLFS_DATASETS)",
    )
    add_labels_option(parser)


def run(args) -> int:
    from ..datasets import format_stats

    stats = [load_dataset(d, args.labels).stats() for d in args.datasets]
    print(format_stats(stats))
    return 0
