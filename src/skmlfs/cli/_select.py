"""``mlfs select``: rank and select the features of one dataset."""

from __future__ import annotations

import sys
import time

from ._common import add_labels_option, load_dataset, parse_k, require_complete, selector_input
from ._transform import add_output_options, check_output_options, write_outputs


def register(parser) -> None:
    parser.add_argument("dataset", metavar="FILE", help="ARFF or .mat file, or a dataset name")
    parser.add_argument(
        "--method", "-m", default="scls",
        help="selection method: scls (default), ami, mdmr, gics, or another registered name",
    )
    parser.add_argument(
        "-k", "--n-features", dest="k", default=None,
        help="how many features: a count (20), a fraction (0.1), a percentage (10%%), or "
        "'sqrt' for ceil(sqrt(#patterns)), the SCLS paper's budget (default)",
    )
    parser.add_argument("--out", "-o", metavar="CSV", help="write the ranking to this CSV file")
    add_labels_option(parser)
    add_output_options(parser)


def run(args) -> int:
    import pandas as pd

    from ..experiments import resolve

    check_output_options(args)
    ds = load_dataset(args.dataset, args.labels)
    require_complete(ds, "select")
    selector = resolve("selector", args.method)(n_features_to_select=parse_k(args.k))
    t0 = time.perf_counter()
    selector.fit(selector_input(selector, ds), ds.Y)
    elapsed = time.perf_counter() - t0
    ranking = selector.ranking_
    scores = getattr(selector, "scores_", None)
    table = pd.DataFrame(
        {
            "rank": range(1, len(ranking) + 1),
            "feature_index": ranking,
            "feature": [ds.feature_names[i] for i in ranking],
        }
    )
    if scores is not None and len(scores) == len(ranking):
        table["score"] = scores
    print(
        f"{args.method.upper()} selected {len(ranking)} of {ds.X.shape[1]} features of "
        f"{ds.name} ({ds.X.shape[0]} patterns, {ds.Y.shape[1]} labels) in {elapsed:.3f} s",
        file=sys.stderr,
    )
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"ranking written to {args.out}", file=sys.stderr)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    write_outputs(args, selector, ds, args.method)
    return 0
