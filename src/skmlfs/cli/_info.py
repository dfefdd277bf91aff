"""``mlfs info``: the statistics table of dataset files."""

from __future__ import annotations

from ._common import add_data_options, data_options, load_dataset


def register(parser) -> None:
    parser.add_argument(
        "datasets", nargs="+", metavar="FILE",
        help="ARFF or .mat files (or dataset names under $MLFS_DATASETS)",
    )
    add_data_options(parser)


def run(args) -> int:
    from ..datasets import format_stats

    stats = [load_dataset(d, args.labels, **data_options(args)).stats() for d in args.datasets]
    print(format_stats(stats))
    return 0
