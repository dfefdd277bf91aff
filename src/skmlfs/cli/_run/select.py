"""``mlfs select``: rank and select the features of one dataset."""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from ...experiments import canonical_name
from ...selection import ranking_from_order, scores_meaning, selection_order
from .common import check_output_path, fit_selector, write_table
from .transform import check_output_options, write_outputs


def run(args: argparse.Namespace) -> int:
    check_output_options(args)
    check_output_path(args.out)  # before the work, not after it
    ds, selector, elapsed = fit_selector(args, args.method, "select")
    n, d = ds.X.shape
    name = canonical_name("selector", args.method) or type(selector).__name__
    support = selector.get_support()
    ordered = selection_order(selector)
    # features selected but not ordered (a method whose support is not its order's head)
    extra = np.setdiff1d(np.flatnonzero(support), ordered)
    order = np.concatenate([ordered, extra]).astype(np.intp)
    # "order": the position in the selection order; "rank": scikit-learn's ranking_ of
    # the feature (1 = selected, then 2, 3, ... as RFE ranks the features it eliminates)
    on = support[order]
    rank = ranking_from_order(np.concatenate([order[on], order[~on]]), int(on.sum()), d)
    table = pd.DataFrame(
        {
            "order": range(1, len(order) + 1),
            "rank": rank[order],
            "feature_index": order,
            "feature": [ds.feature_names[i] for i in order],
            "selected": support[order],
        }
    )
    scores = getattr(selector, "scores_", None)
    column, meaning = scores_meaning(selector)
    if scores is not None and len(scores) == d:  # indexed by feature (NaN: never ranked)
        table[column] = np.asarray(scores, dtype=float)[order]
    n_sel = int(support.sum())
    print(
        f"{name.upper()} selected {n_sel} of {d} features of {ds.name} ({n} patterns, "
        f"{ds.Y.shape[1]} labels) in {elapsed:.3f} s",
        file=sys.stderr,
    )
    if column in table:
        print(f"{column}: {meaning}", file=sys.stderr)
    if args.out:
        write_table(table, args.out)
        print(f"ranking written to {args.out} ({len(order)} features)", file=sys.stderr)
    shown = table if args.full_ranking else table[table["selected"]]
    if len(shown) < len(table):
        print(f"{len(table) - len(shown)} more ranked feature(s) not selected: "
              "--full-ranking prints them" + (", --out writes them" if not args.out else ""),
              file=sys.stderr)
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    write_outputs(args, selector, ds, args.method)
    return 0
