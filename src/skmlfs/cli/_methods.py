"""``mlfs methods``: every registered selector, learner and discretizer, with its paper."""

from __future__ import annotations

import argparse

HELP = "list the selectors, learners and discretizers, with their papers"
RUN = "skmlfs.cli._run.methods:run"


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "kind", nargs="?", choices=["selectors", "learners", "discretizers"],
        help="list only this kind (default: all three)",
    )
    p.add_argument(
        "--markdown", action="store_true", help="write Markdown tables (for the docs)"
    )
