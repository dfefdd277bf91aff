"""MemeticSelector (Seo et al. 2024) and the plain GA baseline (docs/methods/memetic.md)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline
from sklearn.utils import check_random_state

from skmlfs.info import DiscreteData, InfoCache
from skmlfs.learners import MLNB
from skmlfs.metrics import multilabel_accuracy
from skmlfs.selection import GeneticSelector, MemeticSelector, gics_select
from skmlfs.selection._memetic import (
    CROSSOVER,
    MUTATION,
    RANDOM_CHILD,
    _Population,
    _round_half_up,
    crossover_size,
    ga_crossover,
    ga_mutation,
    label_pruning,
    tournament,
)


def _toy(n=200, d=30, q=4, seed=0):
    """Features 0..q-1 are noisy copies of the labels; the rest is noise."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, q)) < 0.4).astype(np.uint8)
    X = rng.integers(0, 3, size=(n, d))
    flip = rng.random((n, q)) < 0.1
    X[:, :q] = np.where(flip, 1 - Y, Y)
    return X, Y


# ---------------------------------------------------------------- Algorithm 2
def test_label_pruning_cuts_at_the_largest_gap():
    # accuracies (correct counts of 10): sorted ascending 2 (l1), 3 (l3), 8 (l2), 9 (l0), 10 (l4)
    # gaps 1, 5, 1, 1 -> cut after the 2nd label: Z = {l1, l3}; cap round(5/2) = 3 is not hit
    correct = np.array(
        [
            [9, 2, 8, 3, 10],  # S
            [5, 5, 5, 4, 5],  # Z-sum 9
            [1, 6, 1, 4, 1],  # Z-sum 10  <- S'
            [1, 4, 1, 6, 1],  # Z-sum 10 (tie, later row)
        ]
    )
    Z, Zc, sp_ = label_pruning(correct, 0)
    assert list(Z) == [1, 3]
    assert list(Zc) == [0, 2, 4]
    assert sp_ == 2  # ties on the Z-sum go to the earlier (lower-loss) member


def test_label_pruning_first_maximal_gap_and_cap():
    # gaps 1, 4, 4 -> the first maximal gap: Z = the 2 least accurate labels
    Z, _, _ = label_pruning(np.array([[1, 2, 6, 10]]), 0)
    assert sorted(Z) == [0, 1]
    # gaps 1, 1, 7 -> cut after 3 labels, capped at round(4/2) = 2
    Z, _, _ = label_pruning(np.array([[1, 2, 3, 10]]), 0)
    assert list(Z) == [0, 1]
    Z, _, _ = label_pruning(np.array([[1, 2, 3, 10]]), 0, cap=False)
    assert list(Z) == [0, 1, 2]
    # q = 5: cap round_half_up(2.5) = 3 (banker's rounding would give 2)
    Z, _, _ = label_pruning(np.array([[0, 0, 0, 0, 9]]), 0)
    assert list(Z) == [0, 1, 2]


def test_label_pruning_edge_cases():
    # all equal: |Z| = 1, the lowest label index
    Z, Zc, sp_ = label_pruning(np.array([[4, 4, 4]]), 0)
    assert list(Z) == [0] and list(Zc) == [1, 2] and sp_ is None
    # one label: Z = L
    Z, Zc, _ = label_pruning(np.array([[3], [5]]), 1)
    assert list(Z) == [0] and Zc.size == 0
    # fixed proportion: round(0.4 * 5) = 2 least accurate labels
    Z, _, _ = label_pruning(np.array([[5, 1, 9, 0, 7]]), 0, z_mode="fixed", z_fraction=0.4)
    assert list(Z) == [3, 1]
    # S' is never S itself, even when S is the best on Z
    _, _, sp_ = label_pruning(np.array([[9, 5, 9], [1, 1, 1], [2, 0, 2]]), 0)
    assert sp_ == 1  # Z = {l1}; S has the largest Z-sum (5) but is excluded
    _, _, sp_ = label_pruning(np.array([[0, 9, 9], [0, 1, 1], [1, 0, 2]]), 0)
    assert sp_ == 2


def test_round_half_up_is_matlab_round():
    assert [_round_half_up(x) for x in (0.5, 1.5, 2.5, 2.49, 3.5)] == [1, 2, 3, 2, 4]


# ---------------------------------------------------------------- Algorithm 3
def test_crossover_sizes():
    # c = |Z|/|L| = 0.4: min(round(10 * 0.6), round(50 * 0.4)) = min(6, 20)
    assert crossover_size(10, 50, 2, 5) == 6
    # c = 0.5: min(round(2.5), round(3.5)) = min(3, 4) with MATLAB rounding
    assert crossover_size(5, 7, 1, 2) == 3
    # a large pool: capped by round(n_max * c)
    assert crossover_size(500, 50, 1, 10) == 5


def _pop(subsets, losses, correct, d):
    pop = _Population(d, np.asarray(correct).shape[1])
    pop.extend([np.asarray(s) for s in subsets], losses, correct)
    return pop


def test_crossover_keeps_features_for_zc_and_imports_features_for_z():
    rng = np.random.default_rng(0)
    n = 400
    Y = (rng.random((n, 2)) < 0.5).astype(np.uint8)
    X = rng.integers(0, 2, size=(n, 8))
    X[:, 0] = Y[:, 0]  # f0 = l0
    X[:, 1] = Y[:, 1]  # f1 = l1
    cache = InfoCache(X, Y)
    # S = {0, 2, 3} serves l0 only; S' = {1, 4, 5} serves l1
    pop = _pop([[0, 2, 3], [1, 4, 5]], [-0.5, -0.4], [[10, 2], [3, 9]], 8)
    Z, Zc, sp_ = label_pruning(pop.correct, 0)
    assert list(Z) == [1] and sp_ == 1
    sel = MemeticSelector(MLNB())
    child, kind = sel.crossover(pop, 0, sp_, Z, Zc, cache, check_random_state(0), 3, 8)
    assert kind == CROSSOVER
    # n = min(round(3 * 0.5), round(3 * 0.5)) = 2 imported from S' \ S, 1 kept from S
    assert child.size == 3
    assert 0 in child and 1 in child
    assert np.isin(child, [0, 1, 4, 5]).all()
    assert len(np.intersect1d(child, [0, 2, 3])) == 1
    # paper form: n = ceil(3 * 1/2) = 2 from Filter(S', Z, 2), 1 from Filter(S, Zc, 1)
    sel_p = MemeticSelector(MLNB(), operators="paper")
    child_p, _ = sel_p.crossover(pop, 0, sp_, Z, Zc, cache, check_random_state(0), 3, 8)
    assert 0 in child_p and 1 in child_p and child_p.size == 3


def test_crossover_without_new_features_falls_back_to_mutation():
    X, Y = _toy(n=100, d=10, q=2)
    cache = InfoCache(X, Y)
    # S' ⊂ S: nothing to import -> Algorithm 4 on S
    pop = _pop([[0, 1, 2, 3], [0, 1, 2, 4]], [-0.5, -0.4], [[10, 2], [3, 9]], 10)
    pop.subsets[1] = np.array([0, 1, 2])
    child, kind = MemeticSelector(MLNB()).crossover(
        pop, 0, 1, np.array([1]), np.array([0]), cache, check_random_state(0), 4, 10
    )
    assert kind == MUTATION
    assert child.size <= 4


# ---------------------------------------------------------------- Algorithm 4
def test_mutation_imports_only_features_absent_from_the_population():
    X, Y = _toy(n=150, d=12, q=3)
    cache = InfoCache(X, Y)
    pop = _pop([[0, 4, 5, 6], [4, 5, 6, 7]], [-0.6, -0.5], [[9, 9, 1], [8, 8, 2]], 12)
    absent = np.setdiff1d(np.arange(12), [0, 4, 5, 6, 7])
    for how in ("entropy_sampling", "gics"):
        sel = MemeticSelector(MLNB(), mutation_import=how)
        child, kind, Z = sel.mutation(pop, 0, cache, check_random_state(3), 4, 12)
        assert kind == MUTATION
        assert list(Z) == [2]  # the one label far below the others
        new = np.setdiff1d(child, pop.subsets[0])
        assert new.size >= 1 and np.isin(new, absent).all()
        # n = min(round(7 * 2/3), round(4 / 3)) = 1 import, 3 kept by GICS on Zc
        assert child.size == 4
    # the GICS import is the absent feature most informative about Z = {l2}: f2
    child, _, _ = MemeticSelector(MLNB(), mutation_import="gics").mutation(
        pop, 0, cache, check_random_state(0), 4, 12
    )
    ranked, _ = gics_select(cache, absent, np.array([2]), 1)
    assert ranked[0] == 2 and 2 in child


def test_mutation_with_every_feature_in_the_population_draws_a_random_subset():
    X, Y = _toy(n=80, d=6, q=2)
    cache = InfoCache(X, Y)
    pop = _pop([[0, 1, 2], [3, 4, 5]], [-0.6, -0.5], [[9, 1], [8, 2]], 6)
    child, kind, Z = MemeticSelector(MLNB()).mutation(pop, 0, cache, check_random_state(0), 3, 6)
    assert kind == RANDOM_CHILD and Z is None and child.size == 3


def test_entropy_sampling_weights():
    from skmlfs.selection._memetic import _weighted_sample

    rng = check_random_state(0)
    cand = np.array([10, 11, 12])
    draws = [_weighted_sample(cand, np.array([0.0, 1.0, 3.0]), 1, rng)[0] for _ in range(4000)]
    freq = np.bincount(np.asarray(draws) - 10, minlength=3) / 4000
    assert freq[0] == 0 and abs(freq[2] - 0.75) < 0.03
    both = _weighted_sample(cand, np.array([0.0, 1.0, 3.0]), 3, rng)
    assert sorted(both) == [10, 11, 12]  # zero weights drawn last, uniformly


# ---------------------------------------------------------------- selection, survival
def test_tournament_winners_are_group_minima():
    loss = np.array([0.1, 0.5, 0.3, 0.9, 0.2, 0.7, 0.4, 0.8, 0.6, 1.0])
    W = tournament(loss, 2, check_random_state(1))
    assert W.shape == (2, 5)
    rng = check_random_state(1)
    for r in range(2):
        groups = rng.permutation(10).reshape(5, 2)
        assert list(W[r]) == [g[np.argmin(loss[g])] for g in groups]
    assert all(0 in row for row in W)  # the best member wins every group it is in
    W3 = tournament(loss, 3, check_random_state(0))  # 10 = 3 + 3 + 3 + 1
    assert W3.shape == (3, 4)


def test_population_dedup_sort_and_truncation():
    pop = _pop([[1, 2], [0, 3]], [0.5, 0.2], np.zeros((2, 1)), 5)
    pop.sort()
    assert [list(s) for s in pop.subsets] == [[0, 3], [1, 2]]
    # duplicates of members and within the offspring are dropped, the first copy kept
    pop.extend(
        [np.array([1, 2]), np.array([2, 4]), np.array([2, 4]), np.array([0, 1])],
        [0.0, 0.3, 0.1, 0.2],
        np.zeros((4, 1)),
    )
    assert len(pop) == 4
    pop.sort()
    # equal losses (0.2) are ordered lexicographically by the 0/1 chromosome:
    # {0,1} = 11000 > {0,3} = 10010, so {0,3} first
    assert [list(s) for s in pop.subsets] == [[0, 3], [0, 1], [2, 4], [1, 2]]
    assert list(pop.loss) == [0.2, 0.2, 0.3, 0.5]
    pop.truncate(2)
    assert [list(s) for s in pop.subsets] == [[0, 3], [0, 1]]


# ---------------------------------------------------------------- the GA operators
def test_ga_operators():
    rng = check_random_state(0)
    S1, S2 = np.array([0, 1, 2, 3, 4]), np.array([3, 4, 5, 6, 7])
    for _ in range(20):
        c = ga_crossover(S1, S2, 5, 20, rng)
        assert c.size == 5 and {3, 4} <= set(c) and set(c) <= set(range(8))
    c = ga_crossover(np.array([0, 1]), np.array([0, 2]), 5, 20, rng)
    assert c.size == 5 and {0, 1, 2} <= set(c)
    for _ in range(20):
        m = ga_mutation(S1, 5, 20, rng)
        assert m.size == 5 and len(set(m)) == 5 and len(set(m) - set(S1)) >= 1


# ---------------------------------------------------------------- the fitness helper
def _mlnb_reference_check(X, Y, rng, trials, S_size=None):
    n, d = X.shape
    n_checked = 0
    for params in (
        {"alpha": 0.0},
        {"alpha": 1.0},
        {"alpha": 0.5, "handle_unseen": "ignore"},
        {"alpha": 0.0, "reference_single_class_bug": True},
    ):
        evaluator = MLNB(**params).subset_evaluator(X, Y)  # the fast path MLNB offers
        for _ in range(trials):
            k = S_size or int(rng.integers(1, d + 1))
            S = np.sort(rng.choice(d, size=k, replace=False))
            test = np.sort(rng.choice(n, size=max(1, n // 5), replace=False))
            train = np.setdiff1d(np.arange(n), test)
            model = MLNB(**params).fit(X[train][:, S], Y[train])
            proba = model.predict_proba(X[test][:, S])
            pred = model.predict(X[test][:, S])
            p_fast, psi_fast = evaluator.predict(S, test)
            np.testing.assert_allclose(psi_fast, proba, rtol=1e-10, atol=1e-12)
            # predictions are identical except where ψ is exactly 0.5 in exact arithmetic
            # and rounding puts the two summation orders on different sides of it
            tie = np.abs(proba - 0.5) < 1e-9
            assert np.array_equal(p_fast[~tie], pred[~tie])
            n_checked += 1
    return n_checked


def test_fitness_tables_equal_mlnb_refit_on_random_data():
    rng = np.random.default_rng(1)
    for _ in range(60):
        n, d, q = int(rng.integers(6, 40)), int(rng.integers(2, 8)), int(rng.integers(1, 5))
        # several values per feature, some features scaled so values are not codes
        X = rng.integers(0, rng.integers(2, 5), size=(n, d)) * rng.choice([1, 7], size=d)
        Y = (rng.random((n, q)) < rng.uniform(0.02, 0.6)).astype(np.uint8)
        assert _mlnb_reference_check(X, Y, rng, 3) == 12


def test_fitness_tables_equal_mlnb_refit_on_enron(dataset_path):
    from skmlfs.datasets import load_mat

    ds = load_mat(dataset_path("plcfs/enron.mat"))
    X = np.asarray(ds.X.todense()) if hasattr(ds.X, "todense") else np.asarray(ds.X)
    rng = np.random.default_rng(0)
    assert _mlnb_reference_check(X, np.asarray(ds.Y), rng, 3, S_size=50) == 12


# ---------------------------------------------------------------- the whole search
SMALL = dict(n_features_to_select=5, population_size=10, max_evaluations=40)


def test_memetic_finds_the_informative_features():
    X, Y = _toy()
    found_memetic, found_ga = [], []
    for seed in range(5):
        sel = MemeticSelector(MLNB(), **SMALL, random_state=seed).fit(X, Y)
        assert sel.get_support().sum() == 5
        assert sel.transform(X).shape == (200, 5)
        assert sorted(sel.selection_order_) == list(sel.best_subset_)
        found_memetic.append(len(set(range(4)) & set(sel.best_subset_)))
        ga = GeneticSelector(MLNB(), **SMALL, random_state=seed).fit(X, Y)
        found_ga.append(len(set(range(4)) & set(ga.best_subset_)))
    # the 4 label copies among 30 features, with 43 FFCs: the refinement finds at least
    # 3 in every run and more than the plain GA with the same budget
    assert min(found_memetic) >= 3
    assert sum(found_memetic) > sum(found_ga)


def test_budget_counts_every_fitness_call():
    X, Y = _toy()
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0).fit(X, Y)
    # 10 initial + 3 generations of 11 (the budget is checked once per generation)
    assert sel.n_evaluations_ == 43
    assert sel.history_["loss"].shape == (43,)
    strict = MemeticSelector(MLNB(), **SMALL, strict_budget=True, random_state=0).fit(X, Y)
    assert strict.n_evaluations_ == 40 and strict.history_["best_loss"].size == 40
    ga = GeneticSelector(MLNB(), **SMALL, strict_budget=True, random_state=0).fit(X, Y)
    assert ga.n_evaluations_ == 40


@pytest.mark.parametrize("cls", [MemeticSelector, GeneticSelector])
def test_history_is_monotone_and_ends_at_the_best(cls):
    X, Y = _toy()
    sel = cls(MLNB(), **SMALL, random_state=2).fit(X, Y)
    h = sel.history_
    assert np.all(np.diff(h["best_loss"]) <= 0)
    assert h["best_loss"][-1] == sel.best_loss_ == sel.population_loss_[0]
    # a duplicate of a member may score better on its own holdout; it is dropped
    assert h["loss"].min() <= sel.best_loss_
    assert np.all(np.diff(sel.population_loss_) >= 0)
    assert h["best_score"][-1] == -sel.best_loss_  # accuracy: score = −loss
    assert h["label_accuracy"].shape == (sel.n_evaluations_, 4)
    reps = h["reproductions"]
    assert reps["ffc"].size == reps["z_labels"].size == sel.n_evaluations_ - 10
    z_sizes = [Z.size for Z in reps["z_labels"]]
    np.testing.assert_array_equal(z_sizes, reps["z_size"])
    if cls is GeneticSelector:
        assert not any(z_sizes)
    assert h["generation_ffc"][-1] == sel.n_evaluations_
    # each member's loss is the loss it was evaluated with
    assert np.isin(sel.population_loss_, h["loss"]).all()


def test_memetic_history_records_z():
    X, Y = _toy()
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0).fit(X, Y)
    reps = sel.history_["reproductions"]
    cross = reps["kind"] == CROSSOVER
    assert cross.sum() >= 30
    assert np.all((reps["z_size"][cross] >= 1) & (reps["z_size"][cross] <= 2))
    assert np.all(reps["parent_z_accuracy"][cross] >= 0)
    assert np.all(reps["child_z_accuracy"][cross] <= 1)


def test_history_z_labels_are_the_pruned_labels_of_the_parent(monkeypatch):
    """``z_labels`` is ``label_pruning`` of the parent's accuracy vector, offspring by offspring.

    ``_meta`` is called once per offspring, in evaluation order, with the population of
    that moment; the spy copies the parent's correct counts there, and ``Z`` is then
    recomputed from that vector alone (``Z`` depends only on the row of ``S``).
    """
    parents = []
    meta = MemeticSelector._meta

    def spy(pop, parent, Z, kind):
        parents.append(pop.correct[parent].copy())
        return meta(pop, parent, Z, kind)

    monkeypatch.setattr(MemeticSelector, "_meta", staticmethod(spy))
    X, Y = _toy(n=300, d=30, q=7, seed=3)
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0).fit(X, Y)
    reps, h = sel.history_["reproductions"], sel.history_
    n_test = 60  # ⌊0.2 · 300⌋
    assert len(parents) == reps["ffc"].size == reps["z_labels"].size
    n_checked = 0
    for i, (r, Z) in enumerate(zip(parents, reps["z_labels"], strict=True)):
        assert Z.dtype.kind == "i" and Z.size == reps["z_size"][i]
        if reps["kind"][i] == RANDOM_CHILD and Z.size == 0:
            continue
        expected, Zc, _ = label_pruning(r[None, :], 0)
        np.testing.assert_array_equal(Z, expected)
        # the lowest-accuracy labels of the parent, and the recorded means are over them
        assert r[Z].max() <= r[Zc].min()
        assert reps["parent_z_accuracy"][i] == pytest.approx(r[Z].mean() / n_test)
        child = h["label_accuracy"][reps["ffc"][i] - 1]
        assert reps["child_z_accuracy"][i] == pytest.approx(child[Z].mean())
        n_checked += 1
    assert n_checked >= 30
    # several different Z occur, of more than one size
    assert len({tuple(Z) for Z in reps["z_labels"]}) > 3
    assert np.unique(reps["z_size"]).size > 1


@pytest.mark.parametrize("cls", [MemeticSelector, GeneticSelector])
def test_deterministic_under_random_state(cls):
    X, Y = _toy()
    a = cls(MLNB(), **SMALL, random_state=7).fit(X, Y)
    b = cls(MLNB(), **SMALL, random_state=7).fit(X, Y)
    np.testing.assert_array_equal(a.selection_order_, b.selection_order_)
    np.testing.assert_array_equal(a.history_["loss"], b.history_["loss"])
    c = cls(MLNB(), **SMALL, random_state=8).fit(X, Y)
    assert not np.array_equal(a.history_["loss"], c.history_["loss"])


def test_refit_learner_path_gives_the_same_search():
    """Any other learner is refitted per FFC; for MLNB both paths must agree."""

    class RefitMLNB(MLNB):
        subset_evaluator = None  # no fast path: the search clones, fits and predicts

    X, Y = _toy(n=120, d=20, q=3, seed=4)
    for metric in ("multilabel_accuracy", "ranking_loss"):
        fast = MemeticSelector(MLNB(), **SMALL, metric=metric, random_state=1).fit(X, Y)
        slow = MemeticSelector(**SMALL, metric=metric, learner=RefitMLNB(), random_state=1)
        slow.fit(X, Y)
        np.testing.assert_allclose(fast.history_["loss"], slow.history_["loss"], atol=1e-12)
        np.testing.assert_array_equal(fast.selection_order_, slow.selection_order_)


def test_fitness_is_the_metric_on_the_inner_holdout():
    X, Y = _toy(n=100)
    sel = MemeticSelector(
        MLNB(),
        n_features_to_select=4,
        population_size=3,
        max_evaluations=3,
        inner_split="fixed",
        random_state=0,
    ).fit(X, Y)
    # reproduce the first FFC by hand: the first draws of the seeded RandomState
    rng = check_random_state(0)
    test = np.sort(rng.permutation(100)[:20])  # the fixed split is drawn first
    S0 = np.sort(rng.permutation(30)[:4])
    train = np.setdiff1d(np.arange(100), test)
    pred = MLNB().fit(X[train][:, S0], Y[train]).predict(X[test][:, S0])
    expected = multilabel_accuracy(Y[test], pred, convention="plcfs")
    assert sel.history_["loss"][0] == pytest.approx(-expected, abs=1e-12)
    np.testing.assert_allclose(sel.history_["label_accuracy"][0], (pred == Y[test]).mean(axis=0))


@pytest.mark.parametrize(
    "params",
    [
        {"operators": "paper"},
        {"z_mode": "fixed", "z_fraction": 0.5},
        {"reference_parent_quirk": True},
        {"metric": "onerr"},
        {"metric": "mlcov", "inner_split": "fixed"},
    ],
)
def test_variants_run(params):
    X, Y = _toy()
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0, **params).fit(X, Y)
    if params.get("operators") == "paper":
        # the printed union Filter(S, Zc, ·) ∪ Filter(S', Z, ·) shrinks on shared features;
        # with this seed such a 4-feature child survives into the final population
        assert 1 <= sel.best_subset_.size <= 5
        assert min(S.size for S in sel.population_) < 5
    else:
        assert sel.best_subset_.size == 5
    assert np.all(np.diff(sel.history_["best_loss"]) <= 0)


def test_sklearn_api():
    X, Y = _toy()
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0)
    cloned = clone(sel).get_params()
    assert cloned.pop("learner") is not sel.learner  # a fresh, unfitted copy
    assert cloned == {k: v for k, v in sel.get_params().items() if k != "learner"}
    pipe = make_pipeline(MemeticSelector(MLNB(), **SMALL, random_state=0), MLNB()).fit(X, Y)
    assert pipe.predict(X).shape == Y.shape
    # n_max >= d: every subset is F, the search ends at the budget
    full = MemeticSelector(
        MLNB(),
        n_features_to_select=50, population_size=4, max_evaluations=10, random_state=0
    ).fit(X[:, :6], Y)
    assert full.get_support().all() and full.n_evaluations_ <= 15


@pytest.mark.parametrize(
    "params, match",
    [
        ({"metric": "nope"}, "unknown metric"),
        ({"population_size": 0}, "population_size"),
        ({"n_features_to_select": 0}, "n_features_to_select"),
        ({"holdout": 1.0}, "holdout"),
        ({"z_mode": "x"}, "z_mode"),
        ({"operators": "x"}, "operators"),
        ({"inner_split": "x"}, "inner_split"),
    ],
)
def test_invalid_parameters(params, match):
    X, Y = _toy(n=40)
    with pytest.raises(ValueError, match=match):
        MemeticSelector(MLNB(), **{**SMALL, **params}).fit(X, Y)


# ---------------------------------------------------------------- any learner (#15)
@pytest.mark.parametrize("name", ["genbase", "emotions"])
def test_fast_path_losses_equal_refit_on_real_data(dataset_path, name):
    """MLNB's ``subset_evaluator`` gives the same losses as cloning, fitting and predicting
    the same MLNB, on real data sets (binary; LAIM codes), for several subsets, splits and
    all four metrics."""
    from skmlfs.datasets import load_mat
    from skmlfs.selection._memetic import _Fitness

    ds = load_mat(dataset_path(f"plcfs/{name}.mat"))
    X = ds.X if ds.X_discrete is None else ds.X_discrete  # emotions: its stored LAIM codes
    X = np.asarray(X.todense()) if hasattr(X, "todense") else np.asarray(X)
    Y = np.asarray(ds.Y.todense() if hasattr(ds.Y, "todense") else ds.Y).astype(np.uint8)
    rng = np.random.default_rng(3)
    for alpha in (0.0, 1.0):
        learner = MLNB(alpha=alpha)
        evaluator = learner.subset_evaluator(X, Y)
        assert evaluator is not None
        for metric in ("multilabel_accuracy", "one_error", "ranking_loss", "coverage"):
            fast = _Fitness(X, evaluator, Y, learner, metric, 0.2, "resample",
                            check_random_state(5))
            slow = _Fitness(X, None, Y, learner, metric, 0.2, "resample",
                            check_random_state(5))
            for size in (1, 5, 20, 60):
                S = np.sort(rng.choice(X.shape[1], size=size, replace=False))
                (lf, cf), (ls, cs) = fast(S), slow(S)
                assert lf == ls  # exact, not approximate
                np.testing.assert_array_equal(cf, cs)


def test_wrapper_takes_any_classifier():
    """A classifier without a fast path (scikit-learn's k-NN on the 0/1 label matrix) is
    cloned, fitted and asked for predictions / per-label probabilities in every FFC."""
    from sklearn.neighbors import KNeighborsClassifier

    from skmlfs.metrics import ranking_loss

    X, Y = _toy(n=100)
    knn = KNeighborsClassifier(n_neighbors=5)
    assert not hasattr(knn, "subset_evaluator")
    for metric in ("multilabel_accuracy", "ranking_loss"):
        sel = MemeticSelector(knn, n_features_to_select=4, population_size=4,
                              max_evaluations=15, metric=metric, inner_split="fixed",
                              random_state=0).fit(X, Y)
        assert sel.best_subset_.size == 4 and sel.n_evaluations_ >= 15
        # the first FFC by hand: the fixed split is drawn first, then the first subset
        rng = check_random_state(0)
        test = np.sort(rng.permutation(100)[:20])
        S0 = np.sort(rng.permutation(30)[:4])
        train = np.setdiff1d(np.arange(100), test)
        model = KNeighborsClassifier(n_neighbors=5).fit(X[train][:, S0], Y[train])
        if metric == "multilabel_accuracy":
            pred = model.predict(X[test][:, S0])
            expected = -multilabel_accuracy(Y[test], pred, convention="plcfs")
        else:
            P = np.column_stack([p[:, 1] for p in model.predict_proba(X[test][:, S0])])
            expected = ranking_loss(Y[test], P, convention="plcfs")
        assert sel.history_["loss"][0] == pytest.approx(expected, abs=1e-12)
    ga = GeneticSelector(knn, n_features_to_select=4, population_size=4, max_evaluations=15,
                         random_state=0).fit(X, Y)
    assert ga.get_support().sum() == 4


def test_learner_is_required_with_a_clear_message():
    X, Y = _toy(n=40)
    with pytest.raises(TypeError, match="learner"):
        MemeticSelector()  # required, as SequentialFeatureSelector's estimator
    for cls in (MemeticSelector, GeneticSelector):
        with pytest.raises(TypeError, match=r"needs a multi-label classifier.*MLNB\(\)"):
            cls(None, **SMALL).fit(X, Y)
    with pytest.raises(ValueError, match="'learner' parameter of MemeticSelector"):
        MemeticSelector("mlnb", **SMALL).fit(X, Y)


def test_scores_are_indexed_by_feature():
    X, Y = _toy()
    sel = MemeticSelector(MLNB(), **SMALL, random_state=0).fit(X, Y)
    assert sel.scores_.shape == (X.shape[1],)
    inside = np.zeros(X.shape[1], dtype=bool)
    inside[sel.best_subset_] = True
    assert np.isnan(sel.scores_[~inside]).all()
    # the GICS order of the best subset on all labels, value of each feature where placed
    cache = InfoCache(DiscreteData.from_array(X), DiscreteData.from_array(Y))
    ranked, scores = gics_select(cache, sel.best_subset_, np.arange(Y.shape[1]), 5)
    np.testing.assert_array_equal(sel.selection_order_, ranked)
    np.testing.assert_array_equal(sel.scores_[ranked], scores)


def test_parameters_are_validated_by_scikit_learn():
    from sklearn.utils._param_validation import InvalidParameterError

    X, Y = _toy(n=40)
    for cls, bad in (
        (MemeticSelector, {"z_fraction": 0.0}),
        (MemeticSelector, {"mutation_import": "x"}),
        (GeneticSelector, {"n_crossovers": 0}),
        (GeneticSelector, {"strict_budget": "yes"}),
    ):
        with pytest.raises(InvalidParameterError, match=next(iter(bad))):
            cls(MLNB(), **{**SMALL, **bad}).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="alpha"):
        MemeticSelector(MLNB(alpha=-1), **SMALL).fit(X, Y)  # the learner's own constraints


def test_selection_does_not_import_learners():
    import ast
    import inspect

    import skmlfs.selection._memetic as mod

    tree = ast.parse(inspect.getsource(mod))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert "learners" not in (node.module or ""), ast.unparse(node)
        elif isinstance(node, ast.Import):
            assert not any("learners" in a.name for a in node.names), ast.unparse(node)


def test_splitter_and_metric_spec():
    """``inner_split`` takes a scikit-learn splitter (every FFC scores its splits, drawn
    once) and ``metric`` a MetricSpec; MLNB's fast path serves splits whose training rows
    are all the other rows, a refit the others."""
    from sklearn.model_selection import KFold, ShuffleSplit

    from skmlfs.metrics import MetricSpec, hamming_loss

    X, Y = _toy(n=90)

    class RefitMLNB(MLNB):
        subset_evaluator = None

    kf = KFold(3, shuffle=True, random_state=0)
    params = dict(n_features_to_select=4, population_size=4, max_evaluations=12)
    fast = MemeticSelector(MLNB(), **params, inner_split=kf, random_state=0).fit(X, Y)
    slow = MemeticSelector(RefitMLNB(), **params, inner_split=kf, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(fast.history_["loss"], slow.history_["loss"])
    np.testing.assert_array_equal(fast.best_subset_, slow.best_subset_)
    # the first FFC by hand: the mean loss over the folds, accuracies over all 90 rows
    S0 = np.sort(check_random_state(0).permutation(30)[:4])
    losses, correct = [], 0
    for train, test in kf.split(X, Y):
        pred = MLNB().fit(X[train][:, S0], Y[train]).predict(X[test][:, S0])
        losses.append(-multilabel_accuracy(Y[test], pred, convention="plcfs"))
        correct = correct + (pred == Y[test]).sum(axis=0)
    assert fast.history_["loss"][0] == pytest.approx(np.mean(losses), abs=1e-12)
    np.testing.assert_allclose(fast.history_["label_accuracy"][0], correct / 90)
    # a split that does not train on all other rows, and a user's metric
    ss = ShuffleSplit(2, test_size=0.2, train_size=0.5, random_state=1)
    spec = MetricSpec(hamming_loss, False, "pred")
    sel = GeneticSelector(MLNB(), **params, inner_split=ss, metric=spec, random_state=0)
    sel.fit(X, Y)
    losses = []
    for train, test in ss.split(X, Y):
        pred = MLNB().fit(X[train][:, S0], Y[train]).predict(X[test][:, S0])
        losses.append(hamming_loss(Y[test], pred))
    assert sel.history_["loss"][0] == pytest.approx(np.mean(losses), abs=1e-12)
    assert sel.metric_ == "hamming_loss"


def test_registry_default_learner_is_mlnb():
    """Experiment files and ``mlfs select --method memetic`` need not name a learner: the
    registry fills in MLNB; a misspelt parameter is still named with a suggestion."""
    from skmlfs.experiments._build import build_method
    from skmlfs.experiments._registry import default_params

    for name in ("memetic", "GA", "genetic"):
        (p, learner), = default_params("selector", name).items()
        assert p == "learner" and type(learner) is MLNB
    assert default_params("selector", "scls") == {}
    sel = build_method("memetic", {"population_size": 4}, "selector")
    assert type(sel.learner) is MLNB and sel.population_size == 4
    sel = build_method("ga", {"learner": {"method": "mlnb", "alpha": 0.0}}, "selector")
    assert sel.learner.alpha == 0.0
    with pytest.raises(ValueError, match="did you mean 'population_size'"):
        build_method("memetic", {"populaton_size": 4}, "selector")


def test_any_learner_may_offer_the_fast_path():
    """The search finds ``subset_evaluator`` by duck typing: a user's estimator offering it
    is asked once per fit and its evaluator serves every FFC."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    calls = {"make": 0, "predict": 0}

    class Counting:
        def __init__(self, inner):
            self.inner = inner

        def predict(self, S, test):
            calls["predict"] += 1
            return self.inner.predict(S, test)

    class MyNB(ClassifierMixin, BaseEstimator):
        def fit(self, X, Y):
            raise AssertionError("the fast path is offered: no refit expected")

        def predict(self, X):
            raise AssertionError("the fast path is offered: no refit expected")

        def subset_evaluator(self, X, Y):
            calls["make"] += 1
            return Counting(MLNB().subset_evaluator(X, Y))

    X, Y = _toy()
    mine = GeneticSelector(MyNB(), **SMALL, random_state=2).fit(X, Y)
    ref = GeneticSelector(MLNB(), **SMALL, random_state=2).fit(X, Y)
    assert calls == {"make": 1, "predict": mine.n_evaluations_}
    np.testing.assert_array_equal(mine.history_["loss"], ref.history_["loss"])
