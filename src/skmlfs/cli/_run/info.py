"""``mlfs info``: the statistics table of dataset files."""

from __future__ import annotations

import argparse

from ...datasets import format_stats
from .common import data_options, load_dataset


def run(args: argparse.Namespace) -> int:
    stats = [load_dataset(d, args.labels, **data_options(args)).stats() for d in args.datasets]
    print(format_stats(stats, headers="words"))
    return 0
