"""``mlfs info``: the statistics table of dataset files."""

from __future__ import annotations

from ._common import add_data_options, add_dataset_argument, data_options, load_dataset


def register(parser) -> None:
    parser.epilog = (
        "Columns: Patterns (|W| in Table 1 of the SCLS paper), Features (|F|), Type, Labels "
        "(|L|), Cardinality (mean number of labels per pattern), Density (Cardinality / "
        "Labels), Label sets (distinct label combinations)."
    )
    add_dataset_argument(parser, many=True)
    add_data_options(parser)


def run(args) -> int:
    from ..datasets import format_stats

    stats = [load_dataset(d, args.labels, **data_options(args)).stats() for d in args.datasets]
    print(format_stats(stats, headers="words"))
    return 0
