"""``mlfs evaluate``: compare selectors with a learner over repeated splits of one dataset."""

from __future__ import annotations

import argparse

from ..._progress import progress_mode
from ...experiments import ProtocolSpec, canonical_name, evaluate, resolve, summarize
from .common import check_output_path, data_options, load_dataset, require_complete, write_table


def run(args: argparse.Namespace) -> int:
    check_output_path(args.out)  # before the work, not after it
    discretizer = check_discretizer(args.discretizer)
    ds = load_dataset(args.dataset, args.labels, **data_options(args))
    require_complete(ds, "evaluate")
    n = ds.X.shape[0]
    protocol = args.protocol or ProtocolSpec.default_kind(ds)
    spec = ProtocolSpec(kind=protocol, repeats=args.repeats, test_size=args.test_size,
                        k=args.folds, n_splits=args.repeats)
    splits = spec.splits(ds, n, args.seed)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    results = evaluate(
        ds, methods, args.learner, splits,
        n_features_to_select="ceil_sqrt" if args.k is None else args.k,
        metrics=metrics, discretizer=discretizer, random_state=args.seed, n_jobs=args.jobs,
        progress=progress_mode(args.quiet),  # bar on a terminal, lines on a pipe
    )
    if args.out:
        write_table(results, args.out)
    print(f"{ds.name}: {n} patterns, {ds.X.shape[1]} features, {ds.Y.shape[1]} labels; "
          f"{len(splits)} {protocol} splits; learner {args.learner}"
          + ("" if discretizer == "none" else f"; discretizer {discretizer}"))
    print(summarize(results).to_string())
    return 0


def check_discretizer(name: str) -> str:
    """The ``--discretizer`` value, checked before any work: ``none``, ``auto`` or a
    registered discretizer (an unknown name gets the registry's "did you mean")."""
    key = name.strip().lower()
    if key in ("none", "auto"):
        return key
    resolve("discretizer", name)  # raises with the registered names
    return canonical_name("discretizer", name) or name
