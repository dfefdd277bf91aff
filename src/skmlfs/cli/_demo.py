"""``mlfs demo``: the main job on a dataset the project generates itself (no input needed)."""

from __future__ import annotations

import time


def register(parser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data (0)")
    parser.add_argument("--samples", type=int, default=600, help="patterns to generate (600)")
    parser.add_argument("--features", type=int, default=80, help="features to generate (80)")
    parser.add_argument("--labels", type=int, default=6, help="labels to generate (6)")
    parser.add_argument("-k", type=int, default=None,
                        help="features to select (default ceil(sqrt(#patterns)))")


def run(args) -> int:
    import numpy as np

    from ..datasets import format_stats, make_multilabel_discrete
    from ..experiments import holdout_splits
    from ..learners import MLNB
    from ..metrics import hamming_loss, multilabel_accuracy, ranking_loss
    from ..selection import SCLS

    ds = make_multilabel_discrete(
        n_samples=args.samples, n_features=args.features, n_labels=args.labels,
        random_state=args.seed,
    )
    print("Generated dataset (informative, redundant and noise features):")
    print(format_stats(ds))
    (train, test), = holdout_splits(ds.X.shape[0], repeats=1, test_size=0.2,
                                    random_state=args.seed)
    Xtr, Ytr, Xte, Yte = ds.X[train], ds.Y[train], ds.X[test], ds.Y[test]

    t0 = time.perf_counter()
    sel = SCLS(n_features_to_select=args.k).fit(Xtr, Ytr)
    elapsed = time.perf_counter() - t0
    k = sel.ranking_.size
    print(f"\nSCLS selected {k} of {ds.X.shape[1]} features in {elapsed * 1000:.1f} ms "
          f"(criterion: Lee & Kim 2017, Eq. 25):")
    for rank, (f, s) in enumerate(zip(sel.ranking_, sel.scores_, strict=True), 1):
        print(f"  {rank:2d}. {ds.feature_names[f]:<14s} J = {s:.4f} bits")

    rng = np.random.default_rng(args.seed)
    random_subset = np.sort(rng.choice(ds.X.shape[1], size=k, replace=False))
    rows = []
    for name, cols in [("all features", slice(None)), (f"SCLS top {k}", sel.ranking_),
                       (f"random {k}", random_subset)]:
        model = MLNB().fit(Xtr[:, cols], Ytr)
        proba = model.predict_proba(Xte[:, cols])
        pred = model.predict(Xte[:, cols])
        rows.append((name, hamming_loss(Yte, pred), ranking_loss(Yte, proba),
                     multilabel_accuracy(Yte, pred)))
    print("\nMLNB on the 20% test split (lower is better for the losses):")
    print(f"  {'features':<16s} {'Hamming loss':>12s} {'ranking loss':>12s} {'accuracy':>9s}")
    for name, hl, rl, acc in rows:
        print(f"  {name:<16s} {hl:12.4f} {rl:12.4f} {acc:9.4f}")
    return 0
