"""``mlfs evaluate``: compare selectors with a learner over repeated splits of one dataset."""

from __future__ import annotations

from ._common import add_labels_option, load_dataset, parse_k, require_complete


def register(parser) -> None:
    parser.add_argument("dataset", metavar="FILE", help="ARFF or .mat file, or a dataset name")
    parser.add_argument(
        "--methods", default="scls,ami,mdmr",
        help="comma-separated selection methods (default: scls,ami,mdmr; 'all' = no selection)",
    )
    parser.add_argument("--learner", default="mlnb", help="learner (default: mlnb)")
    parser.add_argument(
        "--protocol", choices=["holdout", "kfold", "mat"], default=None,
        help="holdout: repeated random train/test splits (default for ARFF); kfold; mat: the "
        "splits stored in a .mat file's sim_seq (default for .mat files that have them)",
    )
    parser.add_argument("--repeats", type=int, default=10, help="holdout repetitions (10)")
    parser.add_argument("--test-size", type=float, default=0.2, help="holdout test fraction (0.2)")
    parser.add_argument("--folds", type=int, default=5, help="k for --protocol kfold (5)")
    parser.add_argument(
        "-k", "--n-features", dest="k", default=None,
        help="features to select (count, fraction, percentage, or 'sqrt' = ceil(sqrt(#patterns)),"
        " the default)",
    )
    parser.add_argument(
        "--metrics", default="hamming_loss,ranking_loss,normalized_coverage",
        help="comma-separated metrics (default: the SCLS paper's three)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed of the splits (0)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel workers (1)")
    parser.add_argument("--out", metavar="CSV", help="write the per-split results to a CSV file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_labels_option(parser)


def run(args) -> int:
    from ..experiments import evaluate, holdout_splits, kfold_splits, mat_splits, summarize

    ds = load_dataset(args.dataset, args.labels)
    require_complete(ds, "evaluate")
    n = ds.X.shape[0]
    has_masks = getattr(ds, "split_masks", None) is not None
    protocol = args.protocol or ("mat" if has_masks else "holdout")
    if protocol == "mat":
        if not has_masks:
            raise ValueError(
                f"{args.dataset} has no stored splits (sim_seq); use --protocol holdout"
            )
        splits = mat_splits(ds, n_splits=args.repeats)
    elif protocol == "kfold":
        splits = kfold_splits(n, args.folds, random_state=args.seed)
    else:
        splits = holdout_splits(n, repeats=args.repeats, test_size=args.test_size,
                                random_state=args.seed)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    k = parse_k(args.k)
    results = evaluate(
        ds, methods, args.learner, splits,
        n_features="ceil_sqrt" if k is None else k,
        metrics=metrics, random_state=args.seed, n_jobs=args.jobs, progress=not args.quiet,
    )
    if args.out:
        results.to_csv(args.out, index=False)
    print(f"{ds.name}: {n} patterns, {ds.X.shape[1]} features, {ds.Y.shape[1]} labels; "
          f"{len(splits)} {protocol} splits; learner {args.learner}")
    print(summarize(results).to_string())
    return 0
