"""``mlfs demo``: what feature selection buys, on data the project generates itself.

The data (:func:`skmlfs.datasets.make_multilabel_discrete`) has a known answer: a few
informative features drive the labels, some features are noisy copies of those, and most
are noise. SCLS ranks the features on a training part; naive Bayes (MLNB, the SCLS
paper's learner) is then trained on all features, on the SCLS subset and on random
subsets of the same size, and tested on patterns it has not seen.
"""

from __future__ import annotations

import argparse
import textwrap
import time
import warnings

import numpy as np

from ...datasets import make_multilabel_discrete
from ...learners import MLNB, NoPositivePredictionWarning
from ...metrics import hamming_loss, multilabel_accuracy, ranking_loss
from ...model_selection import holdout_splits
from ...selection import SCLS

N_RANDOM = 20  # random subsets averaged for the "same number of features at random" row


def demo_data(samples: int, features: int, labels: int, seed: int):
    """The generated data set of the demo (informative = min(16, max(labels, features//6)))."""
    n_inf = min(16, max(labels, features // 6), features)
    n_red = min(n_inf // 2, features - n_inf)
    return make_multilabel_discrete(
        n_samples=samples, n_features=features, n_labels=labels, n_informative=n_inf,
        n_redundant=n_red, random_state=seed,
    )


def _evaluate(Xtr, Ytr, Xte, Yte, cols, repeat: int = 3):
    """(Hamming loss, ranking loss, accuracy, seconds of fit + predict) of MLNB on ``cols``."""
    best = float("inf")
    for _ in range(repeat):  # the fastest of a few runs: timings on a busy machine vary
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # random subsets and tiny budgets may predict no label at all: that is what the
            # demo measures (in Hamming loss), not a mistake to warn the user about
            warnings.simplefilter("ignore", NoPositivePredictionWarning)
            model = MLNB().fit(Xtr[:, cols], Ytr)
            proba = model.predict_proba(Xte[:, cols])
            pred = model.predict(Xte[:, cols])
        best = min(best, time.perf_counter() - t0)
    return (hamming_loss(Yte, pred), ranking_loss(Yte, proba),
            multilabel_accuracy(Yte, pred), best)


def _plot(path, curve_k, scls_curve, random_curve, all_hl, k, n_features) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.plot(curve_k, scls_curve, marker=".", label="first m features chosen by SCLS")
    ax.plot(curve_k, random_curve, marker=".",
            label=f"m features at random (mean of {N_RANDOM // 2})")
    ax.axhline(all_hl, color="grey", linestyle="--", label=f"all {n_features} features")
    ax.axvline(k, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("number of features m")
    ax.set_ylabel("Hamming loss of MLNB, test part")
    ax.set_title("mlfs demo: quality versus number of features (lower is better)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    ds = demo_data(args.samples, args.features, args.labels, args.seed)
    roles = np.array([name.split("_")[0] for name in ds.feature_names])
    n_inf, n_red = int((roles == "inf").sum()), int((roles == "red").sum())
    n, d = ds.X.shape
    (train, test), = holdout_splits(n, repeats=1, test_size=0.2, random_state=args.seed)
    Xtr, Ytr, Xte, Yte = ds.X[train], ds.Y[train], ds.X[test], ds.Y[test]

    print("mlfs demo: what feature selection buys, on generated data with a known answer\n")
    print(f"The data: {n} patterns, {d} features, {ds.Y.shape[1]} labels (seed {args.seed}).")
    print(f"  {n_inf} features drive the labels (inf_*), {n_red} are noisy copies of those "
          f"(red_*),\n  {d - n_inf - n_red} are pure noise (noise_*).")
    print(f"  Training part: {len(train)} patterns; test part: {len(test)} patterns that the "
          "selector\n  and the learner never see.\n")

    t0 = time.perf_counter()
    sel = SCLS(n_features_to_select=args.k).fit(Xtr, Ytr)
    sel_time = time.perf_counter() - t0
    k = int(sel.selection_order_.size)
    picked = roles[sel.selection_order_]
    print(f"Step 1. SCLS (Lee & Kim 2017) ranks the features by how much they tell about the "
          f"labels,\n  minus what the features already chosen tell; it keeps {k} of {d} "
          f"({100 * k / d:.0f} %) in {sel_time:.2f} s.")
    print(f"  It found {int((picked == 'inf').sum())} of the {n_inf} informative features, "
          f"took {int((picked == 'red').sum())} redundant copies and "
          f"{int((picked == 'noise').sum())} noise features.")
    print(textwrap.fill("Chosen, best first: " + ", ".join(
        ds.feature_names[f] for f in sel.selection_order_), width=92, initial_indent="  ",
        subsequent_indent="    ") + "\n")

    rng = np.random.default_rng(args.seed)
    subsets = [np.sort(rng.choice(d, size=k, replace=False)) for _ in range(N_RANDOM)]
    full = _evaluate(Xtr, Ytr, Xte, Yte, np.arange(d))
    chosen = _evaluate(Xtr, Ytr, Xte, Yte, sel.selection_order_)
    random_rows = np.array([_evaluate(Xtr, Ytr, Xte, Yte, s, repeat=1) for s in subsets])
    rand = tuple(random_rows.mean(axis=0))

    print("Step 2. Naive Bayes (MLNB) learns from the training part and predicts the "
          "test part.\n  Losses: lower is better; accuracy (Jaccard): higher is better.\n")
    print(f"  {'features used':<32s} {'Hamming loss':>12s} {'ranking loss':>12s} "
          f"{'accuracy':>9s} {'fit+predict':>12s}")
    for label, (hl, rl, acc, sec) in [
        (f"all {d}", full),
        (f"the {k} chosen by SCLS", chosen),
        (f"{k} at random (mean of {N_RANDOM})", rand),
    ]:
        print(f"  {label:<32s} {hl:12.4f} {rl:12.4f} {acc:9.4f} {sec * 1000:9.1f} ms")

    def change(a: float, b: float) -> str:
        if a < b:
            return f"{100 * (b - a) / b:.0f} % fewer"
        return f"{100 * (a - b) / b:.0f} % more" if a > b else "as many"

    print(f"\nIn plain words: with {k} of the {d} features ({100 * k / d:.0f} %), naive Bayes "
          f"makes\n  {change(chosen[0], full[0])} label errors than with all of them "
          f"and {change(chosen[0], rand[0])} than with {k} features\n  chosen at random; "
          f"it learns and predicts {full[3] / max(chosen[3], 1e-9):.1f}x faster "
          f"({full[3] * 1000:.1f} ms -> {chosen[3] * 1000:.1f} ms;\n  the selection itself "
          f"took {sel_time * 1000:.0f} ms, once).")
    print("  SCLS discounts redundancy: once an inf_* feature is chosen, its noisy copies "
          "red_* add\n  almost nothing and rank low.")

    if args.plot:
        m_max = min(d, max(2 * k, 30))
        ranking = SCLS(n_features_to_select=m_max).fit(Xtr, Ytr).selection_order_
        curve_k = [m for m in range(1, m_max + 1) if m <= 10 or m % 2 == 0 or m == k]
        scls_curve = [_evaluate(Xtr, Ytr, Xte, Yte, ranking[:m], repeat=1)[0] for m in curve_k]
        orders = [rng.permutation(d) for _ in range(N_RANDOM // 2)]
        random_curve = [np.mean([_evaluate(Xtr, Ytr, Xte, Yte, o[:m], repeat=1)[0]
                                 for o in orders]) for m in curve_k]
        _plot(args.plot, curve_k, scls_curve, random_curve, full[0], k, d)
        best = curve_k[int(np.argmin(scls_curve))]
        print(f"\nWrote {args.plot}: Hamming loss versus number of features; the SCLS "
              f"order is best at {best} features ({min(scls_curve):.4f}).")
    return 0
