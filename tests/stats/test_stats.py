"""Tests of skmlfs.stats against hand-worked examples, the papers' printed values,
straightforward reference implementations and scipy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats as sst

from skmlfs.stats import (
    average_ranks,
    bonferroni_dunn,
    cd_groups,
    critical_difference,
    friedman_from_ranks,
    friedman_test,
    nemenyi_pairs,
    paired_ttest,
    q_alpha,
    rank_matrix,
    wilcoxon_critical_value,
    wilcoxon_signed_rank,
    win_tie_loss,
)

# Average ranks printed by SCLS (Tables 2-4, k = 5 methods, N = 25 datasets).
SCLS_NAMES = ["Proposed", "AMI", "MDMR", "MLCFS", "PPT+RF"]
SCLS_HLOSS = [1.12, 4.52, 3.40, 2.20, 3.76]
SCLS_RLOSS = [1.04, 4.00, 2.96, 2.52, 4.48]
SCLS_NCOV = [1.16, 4.00, 2.96, 2.40, 4.48]


def ref_ranks(scores, greater_is_better):
    """Straightforward per-row ranking with shared mean ranks."""
    scores = np.asarray(scores, float)
    out = np.empty_like(scores)
    for i, row in enumerate(scores):
        for j, v in enumerate(row):
            better = np.sum(row > v) if greater_is_better else np.sum(row < v)
            equal = np.sum(row == v)
            out[i, j] = better + (equal + 1) / 2
    return out


# ---------------------------------------------------------------- ranks


def test_rank_matrix_hand_example_with_ties():
    scores = np.array([[0.10, 0.20, 0.20, 0.05], [0.3, 0.1, 0.2, 0.4]])
    # Losses: smaller is better.
    expected = np.array([[2.0, 3.5, 3.5, 1.0], [3.0, 1.0, 2.0, 4.0]])
    np.testing.assert_array_equal(rank_matrix(scores, greater_is_better=False), expected)
    np.testing.assert_array_equal(rank_matrix(scores, greater_is_better=True), 5 - expected)
    np.testing.assert_array_equal(
        average_ranks(scores, greater_is_better=False), expected.mean(axis=0)
    )


def test_rank_matrix_matches_reference():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, size=(30, 6)).astype(float)  # many ties
    for gib in (True, False):
        r = rank_matrix(scores, gib)
        np.testing.assert_allclose(r, ref_ranks(scores, gib))
        np.testing.assert_allclose(r.sum(axis=1), 6 * 7 / 2)


def test_rank_matrix_decimals_creates_printed_ties():
    scores = np.array([[0.0381, 0.0379, 0.05], [0.2, 0.1, 0.3]])
    assert rank_matrix(scores, False)[0, 0] == 2.0
    assert rank_matrix(scores, False, decimals=3)[0, 0] == 1.5


@pytest.mark.parametrize(
    "scores, match",
    [
        (np.ones(4), "2-D"),
        (np.ones((1, 3)), "at least 2 datasets"),
        (np.ones((3, 1)), "at least 2 methods"),
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "NaN"),
    ],
)
def test_rank_matrix_errors(scores, match):
    with pytest.raises(ValueError, match=match):
        rank_matrix(scores, True)


def test_greater_is_better_must_be_bool():
    with pytest.raises(TypeError, match="greater_is_better"):
        rank_matrix(np.ones((2, 2)), "loss")


# ---------------------------------------------------------------- Friedman


def test_friedman_matches_scipy_on_tie_free_data():
    rng = np.random.default_rng(1)
    scores = rng.random((12, 5))
    res = friedman_test(scores, greater_is_better=True)
    ref = sst.friedmanchisquare(*scores.T)
    assert res.chi2 == pytest.approx(ref.statistic, rel=1e-12)
    assert res.chi2_pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    assert res.df == (4, 44)
    n, k = scores.shape
    ff = (n - 1) * res.chi2 / (n * (k - 1) - res.chi2)
    assert res.ff == pytest.approx(ff)
    assert res.ff_pvalue == pytest.approx(sst.f.sf(ff, 4, 44))
    assert res.f_critical == pytest.approx(sst.f.ppf(0.95, 4, 44))


def test_friedman_ties_scipy_corrects_we_do_not_by_default():
    rng = np.random.default_rng(2)
    scores = np.round(rng.random((15, 4)), 1)
    assert any(len(set(row)) < 4 for row in scores)
    ref = sst.friedmanchisquare(*scores.T)
    plain = friedman_test(scores, greater_is_better=False)
    corrected = friedman_test(scores, greater_is_better=False, tie_correction=True)
    assert corrected.chi2 == pytest.approx(ref.statistic, rel=1e-12)
    assert corrected.tie_corrected and not plain.tie_corrected
    # Demšar's formula (the papers') is the uncorrected, smaller statistic.
    assert plain.chi2 < ref.statistic
    r = ref_ranks(scores, False).mean(axis=0)
    n, k = scores.shape
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4)
    assert plain.chi2 == pytest.approx(chi2)


@pytest.mark.parametrize(
    "ranks, printed",
    [(SCLS_HLOSS, 62.406), (SCLS_RLOSS, 63.719), (SCLS_NCOV, 54.370)],
)
def test_friedman_scls_table5(ranks, printed):
    res = friedman_from_ranks(ranks, 25)
    assert round(res.ff, 3) == pytest.approx(printed)
    assert round(res.f_critical, 3) == pytest.approx(2.466)
    assert res.df == (4, 96) and res.reject


def test_friedman_occ_table7_micro_f1():
    # oCC Table 6 average ranks (k = 7, N = 13); printed F_F = 5.052 comes from
    # unrounded ranks, hence the tolerance. Printed critical value 2.230 is 2.227.
    ranks = [4.423, 3.115, 4.385, 6.077, 4.346, 2.769, 2.885]
    res = friedman_from_ranks(ranks, 13)
    assert res.ff == pytest.approx(5.052, abs=0.01)
    assert round(res.f_critical, 3) == pytest.approx(2.227)


def test_friedman_demsar_worked_example():
    # Demšar (2006) §3.2.2: four classifiers on 14 datasets, χ²_F = 9.28, F_F = 3.69.
    res = friedman_from_ranks([3.143, 2.000, 2.893, 1.964], 14)
    assert round(res.chi2, 2) == pytest.approx(9.28)
    assert round(res.ff, 2) == pytest.approx(3.69)


@pytest.mark.parametrize(
    "k, n, value",
    [
        (2, 5, 7.709),
        (3, 10, 3.555),
        (5, 25, 2.466),
        (7, 13, 2.227),
        (10, 30, 1.916),
        (8, 14, 2.112),
    ],  # fmt: skip
)
def test_friedman_critical_values_spec_table(k, n, value):
    rng = np.random.default_rng(k * n)
    res = friedman_test(rng.random((n, k)), True)
    assert round(res.f_critical, 3) == pytest.approx(value)


def test_friedman_from_ranks_matches_friedman_test():
    rng = np.random.default_rng(3)
    scores = rng.random((9, 6))
    a = friedman_test(scores, True)
    b = friedman_from_ranks(a.average_ranks, 9)
    assert b.chi2 == pytest.approx(a.chi2) and b.ff == pytest.approx(a.ff)


def test_friedman_identical_rankings_gives_infinite_ff():
    scores = np.tile([0.1, 0.2, 0.3], (6, 1))
    res = friedman_test(scores, greater_is_better=False)
    assert res.chi2 == pytest.approx(6 * 2)
    assert np.isinf(res.ff) and res.ff_pvalue == 0.0 and res.reject


def test_friedman_from_ranks_rejects_misprinted_ranks():
    # oCC Table 5 (Macro-F1) ranks sum to 26.46 instead of 28.
    with pytest.raises(ValueError, match="sum to"):
        friedman_from_ranks([3.039, 5.039, 5.308, 4.000, 3.115, 2.923, 3.039], 13)


def test_friedman_errors():
    with pytest.raises(ValueError, match="at least 2 datasets"):
        friedman_test(np.ones((1, 4)), True)
    with pytest.raises(ValueError, match="alpha"):
        friedman_test(np.ones((3, 4)), True, alpha=1.5)
    with pytest.raises(ValueError, match="N"):
        friedman_from_ranks([1.5, 1.5], 1)
    with pytest.raises(ValueError, match="1-D"):
        friedman_from_ranks([[1.5, 1.5]], 4)


# ---------------------------------------------------------------- q_alpha and CD

# Demšar's printed q_α (docs/methods/statistics.md#post-hoc), k = 2..10.
SPEC_Q = {
    ("nemenyi", 0.05): [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    ("nemenyi", 0.10): [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
    ("bonferroni-dunn", 0.05): [1.960, 2.241, 2.394, 2.498, 2.576, 2.638, 2.690, 2.724, 2.773],
    ("bonferroni-dunn", 0.10): [1.645, 1.960, 2.128, 2.241, 2.326, 2.394, 2.450, 2.498, 2.539],
}


def test_q_alpha_default_is_printed_table():
    for (test, alpha), row in SPEC_Q.items():
        assert [q_alpha(k, alpha, test) for k in range(2, 11)] == row


def test_q_alpha_formula_reproduces_table_except_documented_cells():
    differ = set()
    for (test, alpha), row in SPEC_Q.items():
        for k, printed in zip(range(2, 11), row, strict=True):
            exact = q_alpha(k, alpha, test, exact=True)
            if test == "nemenyi":
                ref = sst.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2)
            else:
                ref = sst.norm.ppf(1 - alpha / (2 * (k - 1)))
            assert exact == pytest.approx(ref)
            if round(exact, 3) != printed:
                differ.add((test, alpha, k))
                assert abs(exact - printed) < (0.011 if k == 9 else 0.0015)
    # Exactly the cells of Demšar's table (k=9 Bonferroni–Dunn 2.724 is a misprint of 2.734).
    assert differ == {
        ("nemenyi", 0.05, 3),
        ("nemenyi", 0.05, 7),
        ("nemenyi", 0.10, 5),
        ("bonferroni-dunn", 0.05, 9),
    }


def test_q_alpha_beyond_table_is_computed():
    assert q_alpha(11, 0.05, "nemenyi") == pytest.approx(
        sst.studentized_range.ppf(0.95, 11, np.inf) / np.sqrt(2)
    )
    assert q_alpha(12, 0.05, "bonferroni-dunn") == pytest.approx(sst.norm.ppf(1 - 0.05 / 22))
    assert q_alpha(4, 0.01, "bonferroni-dunn") == pytest.approx(sst.norm.ppf(1 - 0.01 / 6))
    qs = [q_alpha(k) for k in range(2, 16)]
    assert all(np.diff(qs) > 0)


def test_critical_difference_scls():
    # SCLS §4.1: Bonferroni–Dunn, N = 25, k = 5, q_α = 2.498 -> CD = 1.117.
    assert q_alpha(5, 0.05, "bonferroni-dunn") == 2.498
    assert round(critical_difference(5, 25, 0.05, "bonferroni-dunn"), 3) == 1.117


def test_critical_difference_memetic_is_nemenyi():
    # Memetic paper: "Bonferroni–Dunn" CD = 2.015 for k = 6, N = 14 is the Nemenyi value.
    assert round(critical_difference(6, 14, test="nemenyi"), 3) == 2.015
    assert round(critical_difference(6, 14, test="bonferroni-dunn"), 3) == 1.822


def test_critical_difference_errors():
    with pytest.raises(ValueError, match="at least 2"):
        critical_difference(1, 10)
    with pytest.raises(ValueError, match="at least 2"):
        critical_difference(5, 1)
    with pytest.raises(ValueError, match="nemenyi"):
        critical_difference(5, 10, test="tukey")
    with pytest.raises(TypeError):
        critical_difference(5.5, 10)


# ---------------------------------------------------------------- groups and post-hoc


def ref_groups(ranks, cd):
    """Maximal cliques of the 'not significantly different' graph, by brute force."""
    k = len(ranks)
    cliques = [
        set(s)
        for size in range(2, k + 1)
        for s in itertools.combinations(range(k), size)
        if max(ranks[i] for i in s) - min(ranks[i] for i in s) < cd
    ]
    return {frozenset(c) for c in cliques if not any(c < d for d in cliques)}


def test_cd_groups_hand_example():
    ranks = {"A": 1.0, "B": 1.5, "C": 2.3, "D": 3.9, "E": 4.0}
    assert cd_groups(ranks, 1.25) == [("A", "B"), ("B", "C"), ("D", "E")]
    assert cd_groups(ranks, 0.05) == []
    assert cd_groups(ranks, 10.0) == [("A", "B", "C", "D", "E")]
    # Bonferroni–Dunn with a control: one group around it.
    assert cd_groups(ranks, 1.25, control="A") == [("A", "B")]
    assert cd_groups(ranks, 1.25, control="C") == [("B", "C")]
    assert cd_groups(ranks, 0.1, control="A") == []


def test_cd_groups_matches_brute_force_cliques():
    rng = np.random.default_rng(4)
    for _ in range(200):
        k = int(rng.integers(2, 8))
        ranks = np.round(rng.uniform(1, k, k), 1)
        cd = float(rng.uniform(0.2, 3))
        got = cd_groups(ranks, cd)
        names = [str(i) for i in range(k)]
        assert {frozenset(names.index(m) for m in g) for g in got} == ref_groups(ranks, cd)
        for g in got:  # best to worst within each group
            assert list(ranks[[int(m) for m in g]]) == sorted(ranks[[int(m) for m in g]])


def test_nemenyi_pairs():
    res = nemenyi_pairs(dict(zip(SCLS_NAMES, SCLS_RLOSS, strict=True)), 25)
    cd = 2.728 * np.sqrt(30 / 150)
    assert res.cd == pytest.approx(cd)
    r = np.array(SCLS_RLOSS)
    np.testing.assert_array_equal(res.significant, np.abs(r[:, None] - r[None, :]) >= cd)
    assert res.pairs[0] == ("Proposed", "PPT+RF")
    # CD = 1.220: only AMI–MDMR (1.04), AMI–PPT+RF (0.48), MDMR–MLCFS (0.44) are closer.
    assert set(res.pairs) == {
        ("Proposed", "AMI"), ("Proposed", "MDMR"), ("Proposed", "MLCFS"), ("Proposed", "PPT+RF"),
        ("MLCFS", "AMI"), ("MDMR", "PPT+RF"), ("MLCFS", "PPT+RF"),
    }  # fmt: skip
    assert res.groups == cd_groups(r, cd, names=SCLS_NAMES)


def test_bonferroni_dunn_scls_hamming_loss():
    # SCLS Fig. 1 (Hamming loss): MLCFS lies within CD = 1.117 of the proposed method.
    res = bonferroni_dunn(SCLS_HLOSS, 25, control="Proposed", names=SCLS_NAMES)
    assert round(res.cd, 3) == 1.117 and res.q_alpha == 2.498
    assert res.worse == ("AMI", "MDMR", "PPT+RF") and res.better == ()
    np.testing.assert_array_equal(res.significant, [False, True, True, False, True])
    res = bonferroni_dunn(SCLS_RLOSS, 25, control=0, names=SCLS_NAMES)
    assert res.worse == ("AMI", "MDMR", "MLCFS", "PPT+RF")


def test_posthoc_errors():
    with pytest.raises(ValueError, match="not one of"):
        bonferroni_dunn(SCLS_HLOSS, 25, control="SCLS", names=SCLS_NAMES)
    with pytest.raises(ValueError, match="names"):
        nemenyi_pairs(SCLS_HLOSS, 25, names=SCLS_NAMES[:3])
    with pytest.raises(ValueError, match="NaN"):
        nemenyi_pairs([1.0, np.nan], 25)
    with pytest.raises(ValueError, match="positive"):
        cd_groups([1.0, 2.0], 0.0)


# ---------------------------------------------------------------- Wilcoxon

# Two-sided exact critical values (docs/methods/statistics.md#wilcoxon), N = 5..30 (None = "–").
SPEC_T = {
    0.05: [None, 0, 2, 3, 5, 8, 10, 13, 17, 21, 25, 29, 34,
           40, 46, 52, 58, 65, 73, 81, 89, 98, 107, 116, 126, 137],
    0.01: [None, None, None, 0, 1, 3, 5, 7, 9, 12, 15, 19, 23,
           27, 32, 37, 42, 48, 54, 61, 68, 75, 83, 91, 100, 109],
}  # fmt: skip


def ref_signed_rank(d):
    """R+ and R− of SCLS §4.1 (zeros included, half of their ranks to each side)."""
    r = sst.rankdata(np.abs(d))
    return r[d > 0].sum() + r[d == 0].sum() / 2, r[d < 0].sum() + r[d == 0].sum() / 2


def ref_exact_pvalue(d):
    """Two-sided p-value by enumerating all 2^n sign flips of the non-zero ranks."""
    r = sst.rankdata(np.abs(d))
    nz = r[d != 0]
    base = r[d == 0].sum() / 2
    obs = ref_signed_rank(d)[0]
    dist = np.array([base + np.dot(s, nz) for s in itertools.product([0, 1], repeat=len(nz))])
    lo = np.mean(dist <= obs + 1e-9)
    hi = np.mean(dist >= obs - 1e-9)
    return min(1.0, 2 * min(lo, hi))


def test_wilcoxon_scls_table6():
    # SCLS Table 6: 10 datasets, the proposed method better everywhere: win (0/55, 1.95e-3).
    proposed = np.linspace(0.05, 0.14, 10)
    compared = proposed + np.linspace(0.003, 0.03, 10)
    res = wilcoxon_signed_rank(proposed, compared, greater_is_better=False)
    assert (res.r_plus, res.r_minus, res.total_rank) == (0.0, 55.0, 55.0)
    assert res.pvalue == pytest.approx(2 / 2**10) and round(res.pvalue, 5) == 0.00195
    assert res.pvalue_method == "exact"
    assert res.t_critical == 8 and res.reject and res.verdict == "win"
    assert res.summary() == "win (0/55, 0.00195)"
    # The same data as a score (greater is better) make the proposed method lose.
    res = wilcoxon_signed_rank(proposed, compared, greater_is_better=True)
    assert (res.r_plus, res.r_minus) == (55.0, 0.0) and res.verdict == "loss"


def test_wilcoxon_rank_sums_with_zeros_and_ties():
    a = np.zeros(8)
    b = np.array([0.0, 0.0, 0.2, 0.2, -0.5, 0.7, -0.1, 0.9])
    res = wilcoxon_signed_rank(a, b, greater_is_better=True)
    # |d| ranks: zeros 1.5, 1.5; 0.1 -> 3; 0.2 -> 4.5, 4.5; 0.5 -> 6; 0.7 -> 7; 0.9 -> 8
    assert res.r_plus == pytest.approx(4.5 + 4.5 + 7 + 8 + 1.5)
    assert res.r_minus == pytest.approx(6 + 3 + 1.5)
    assert res.r_plus + res.r_minus == 36 and res.n_zeros == 2 and not res.dropped_zero
    assert res.pvalue_method == "exact-conditional"
    assert res.pvalue == pytest.approx(ref_exact_pvalue(b))


def test_wilcoxon_odd_number_of_zeros_drops_one():
    b = np.array([0.0, 0.0, 0.0, 0.3, 0.4, -0.1, 0.5])
    res = wilcoxon_signed_rank(np.zeros(7), b, greater_is_better=True)
    assert res.dropped_zero and res.n == 6 and res.n_zeros == 2
    rp, rm = ref_signed_rank(b[1:])
    assert (res.r_plus, res.r_minus) == (rp, rm)
    assert res.total_rank == 21


def test_wilcoxon_matches_scipy_exact_tie_free():
    rng = np.random.default_rng(5)
    for n in (6, 10, 17, 25):
        a, b = rng.random(n), rng.random(n)
        res = wilcoxon_signed_rank(a, b, greater_is_better=True)
        ref = sst.wilcoxon(b - a, method="exact")
        assert res.statistic == ref.statistic
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        if n <= 10:
            assert res.pvalue == pytest.approx(ref_exact_pvalue(b - a))


def test_wilcoxon_exact_conditional_matches_enumeration_and_scipy():
    rng = np.random.default_rng(6)
    for _ in range(4):
        d = rng.integers(-3, 4, size=9).astype(float)
        if np.sum(d == 0) % 2:
            d[np.flatnonzero(d == 0)[0]] = 5.0
        res = wilcoxon_signed_rank(np.zeros(9), d, greater_is_better=True, method="exact")
        assert res.pvalue == pytest.approx(ref_exact_pvalue(d), rel=1e-12)
        if hasattr(sst, "PermutationMethod") and np.any(d != 0):
            ref = sst.wilcoxon(d, zero_method="zsplit", method=sst.PermutationMethod(np.inf))
            assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_wilcoxon_normal_matches_scipy_asymptotic_without_zeros():
    rng = np.random.default_rng(7)
    d = rng.normal(0.2, 1, 40)
    res = wilcoxon_signed_rank(np.zeros(40), d, greater_is_better=True)
    assert res.pvalue_method == "normal" and res.decision_rule == "p-value"
    asym = "asymptotic" if "asymptotic" in (sst.wilcoxon.__doc__ or "") else "approx"
    ref = sst.wilcoxon(d, method=asym)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    dt = np.round(d, 1)  # ties, and no zeros after replacing them
    dt[dt == 0] = 3.0
    res = wilcoxon_signed_rank(np.zeros(40), dt, greater_is_better=True)
    assert res.pvalue == pytest.approx(sst.wilcoxon(dt, method=asym).pvalue, rel=1e-10)


def test_wilcoxon_critical_values_reproduce_spec_table():
    from skmlfs.stats._wilcoxon import _computed_critical_value

    for alpha, row in SPEC_T.items():
        for n, t in zip(range(5, 31), row, strict=True):
            assert wilcoxon_critical_value(n, alpha) == t
            assert _computed_critical_value(n, alpha) == t
    assert wilcoxon_critical_value(11, 0.01) == 5  # ReliefF-ML, α = 0.01, N = 11
    assert wilcoxon_critical_value(10, 0.05) == 8  # SCLS


def test_wilcoxon_reliefml_alpha():
    # ReliefF-ML: α = 0.01, N = 11 -> T_crit = 5.
    a = np.zeros(11)
    neg = -np.arange(3, 12) / 10  # ranks 3..11 favour the proposed method
    res = wilcoxon_signed_rank(a, np.r_[neg, 0.1, 0.2], greater_is_better=True, alpha=0.01)
    assert res.t_critical == 5 and res.statistic == 1 + 2 and res.verdict == "win"
    # R+ = 1 + 5 = 6 > 5: significant at 0.05 (p = 0.0137) but not at 0.01.
    b = np.r_[-0.2, -0.3, -0.4, -0.6, -0.7, -0.8, -0.9, -1.0, -1.1, 0.1, 0.5]
    res = wilcoxon_signed_rank(a, b, greater_is_better=True, alpha=0.01)
    assert res.statistic == 6 and res.verdict == "tie"
    assert 0.01 < res.pvalue < 0.05
    assert wilcoxon_signed_rank(a, b, greater_is_better=True).verdict == "win"


def test_wilcoxon_decimals_turns_printed_equal_values_into_zeros():
    a = np.array([0.0381, 0.1, 0.2, 0.3, 0.4, 0.5])
    b = np.array([0.0379, 0.2, 0.3, 0.4, 0.5, 0.6])
    assert wilcoxon_signed_rank(a, b, False).n_zeros == 0
    res = wilcoxon_signed_rank(a, b, False, decimals=3)
    assert res.dropped_zero and res.n == 5 and res.r_plus == 0.0


def test_wilcoxon_small_n_cannot_reject():
    res = wilcoxon_signed_rank(np.zeros(5), np.arange(1, 6.0), greater_is_better=True)
    assert res.t_critical is None and not res.reject and res.verdict == "tie"
    assert res.pvalue == pytest.approx(2 / 32)


def test_wilcoxon_errors():
    with pytest.raises(ValueError, match="length"):
        wilcoxon_signed_rank([1, 2, 3], [1, 2], True)
    with pytest.raises(ValueError, match="at least 2"):
        wilcoxon_signed_rank([1.0], [2.0], True)
    with pytest.raises(ValueError, match="NaN"):
        wilcoxon_signed_rank([1.0, np.nan], [2.0, 3.0], True)
    with pytest.raises(ValueError, match="1-D"):
        wilcoxon_signed_rank(np.ones((2, 2)), np.ones((2, 2)), True)
    with pytest.raises(ValueError, match="method"):
        wilcoxon_signed_rank([1.0, 2.0], [2.0, 3.0], True, method="perm")


# ---------------------------------------------------------------- paired t-test


def test_paired_ttest_matches_scipy():
    rng = np.random.default_rng(8)
    a = rng.normal(0.5, 0.05, (6, 10))
    b = a + rng.normal(0.01, 0.02, (6, 10))
    res = paired_ttest(a, b, greater_is_better=True)
    for i in range(6):
        ref = sst.ttest_rel(a[i], b[i])
        assert res.statistic[i] == pytest.approx(ref.statistic)
        assert res.pvalue[i] == pytest.approx(ref.pvalue)
    assert res.df == 9 and round(res.t_critical, 3) == 2.262
    assert round(paired_ttest(a[:, :5], b[:, :5], True).t_critical, 3) == 2.776
    expect = np.where(res.pvalue <= 0.05, np.where(res.mean_difference > 0, "win", "loss"), "tie")
    np.testing.assert_array_equal(res.outcome, expect)


def test_paired_ttest_direction_and_degenerate_cases():
    a = np.array([[0.1, 0.12, 0.11, 0.13], [0.2, 0.2, 0.2, 0.2], [0.1, 0.2, 0.3, 0.4]])
    b = np.array([[0.3, 0.33, 0.31, 0.35], [0.2, 0.2, 0.2, 0.2], [0.2, 0.3, 0.4, 0.5]])
    res = paired_ttest(a, b, greater_is_better=False)  # a loss: a is smaller, so better
    assert list(res.outcome) == ["win", "tie", "win"]
    assert res.pvalue[1] == 1.0 and res.pvalue[2] == 0.0 and np.isinf(res.statistic[2])
    assert list(paired_ttest(a, b, greater_is_better=True).outcome) == ["loss", "tie", "loss"]
    single = paired_ttest(a[0], b[0], greater_is_better=False)
    assert single.outcome.shape == (1,)


def test_paired_ttest_errors():
    with pytest.raises(ValueError, match="same shape"):
        paired_ttest(np.ones((2, 5)), np.ones((2, 4)), True)
    with pytest.raises(ValueError, match="at least 2 runs"):
        paired_ttest(np.ones((3, 1)), np.ones((3, 1)), True)
    with pytest.raises(ValueError, match="NaN"):
        paired_ttest([1.0, np.nan], [1.0, 2.0], True)


def test_win_tie_loss_matches_reference():
    rng = np.random.default_rng(9)
    k, n, r = 4, 5, 10
    runs = rng.normal(0.5, 0.03, (k, n, r)) + rng.normal(0, 0.03, (k, n, 1))
    names = ["P", "Q", "R", "S"]
    res = win_tie_loss(dict(zip(names, runs, strict=True)), greater_is_better=True)
    for d in range(n):
        for i in range(k):
            a = b = c = 0
            for j in range(k):
                if j == i:
                    continue
                t, p = sst.ttest_rel(runs[i, d], runs[j, d])
                if p <= 0.05:
                    a, c = (a + 1, c) if t > 0 else (a, c + 1)
                else:
                    b += 1
            assert (res.wins[d, i], res.ties[d, i], res.losses[d, i]) == (a, b, c)
    np.testing.assert_array_equal(res.wins + res.ties + res.losses, k - 1)
    np.testing.assert_array_equal(res.outcome, -res.outcome.transpose(1, 0, 2))
    assert res.names == tuple(names)
    frame = res.as_frame()
    assert frame.shape == (n + 1, k) and frame.index[-1] == "Total"
    w, t, lo = res.totals[0]
    assert frame.loc["Total", "P"] == f"{w}/{t}/{lo}"
    assert frame.iloc[0, 0] == f"{res.wins[0, 0]}/{res.ties[0, 0]}/{res.losses[0, 0]}"


def test_win_tie_loss_loss_metric_and_errors():
    base = np.linspace(0.1, 0.2, 10)
    runs = np.stack([base, base + 0.05 + 0.001 * np.arange(10), base])[:, None, :]
    res = win_tie_loss(runs, greater_is_better=False, names=["A", "B", "C"])
    assert (res.wins[0].tolist(), res.ties[0].tolist(), res.losses[0].tolist()) == (
        [1, 0, 1], [1, 0, 1], [0, 2, 0])  # fmt: skip
    with pytest.raises(ValueError, match="same"):
        win_tie_loss({"A": np.ones((2, 5)), "B": np.ones((2, 4))}, True)
    with pytest.raises(ValueError, match="at least 2 methods"):
        win_tie_loss(np.ones((1, 3, 5)), True)
    with pytest.raises(ValueError, match="NaN"):
        win_tie_loss(np.full((2, 3, 5), np.nan), True)
