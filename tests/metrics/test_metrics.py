"""Tests for skmlfs.metrics: hand-worked examples, scikit-learn agreement, naive references."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from skmlfs import metrics
from skmlfs.metrics import (
    METRICS,
    average_precision,
    coverage,
    get_metric,
    hamming_loss,
    hamming_score,
    macro_f1,
    micro_f1,
    multilabel_accuracy,
    normalized_coverage,
    one_error,
    ranking_loss,
    subset_accuracy,
)

# ---------------------------------------------------------------------------
# hand-worked example A (q = 4): row 0 has a tie between labels 2 and 3 at the
# bottom, row 1 a tie between labels 0 and 1, row 2 has no relevant label.
# ---------------------------------------------------------------------------
YA = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]])
SA = np.array([[0.9, 0.8, 0.3, 0.3], [0.5, 0.5, 0.1, 0.9], [0.2, 0.4, 0.6, 0.8]])
PA = np.array([[1, 1, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]])

# example B (q = 3): tie at the top of row 0; row 1 has all labels.
YB = np.array([[0, 1, 0], [1, 1, 1]])
SB = np.array([[0.7, 0.7, 0.1], [0.2, 0.2, 0.2]])


class TestBipartitionHandWorked:
    def test_hamming(self):
        # row 0 differs on labels 1 and 2: 2 wrong out of 12.
        assert hamming_loss(YA, PA) == pytest.approx(2 / 12)
        assert hamming_score(YA, PA) == pytest.approx(10 / 12)

    def test_subset_accuracy(self):
        assert subset_accuracy(YA, PA) == pytest.approx(2 / 3)

    def test_multilabel_accuracy_mulan(self):
        # row 0: |∩| = 1, |∪| = 3; row 1: 1/1; row 2: empty union -> 1.
        assert multilabel_accuracy(YA, PA) == pytest.approx((1 / 3 + 1 + 1) / 3)

    def test_multilabel_accuracy_plcfs(self):
        expected = (1.001 / 3.001 + 1.001 / 1.001 + 0.001 / 0.001) / 3
        assert multilabel_accuracy(YA, PA, convention="plcfs") == pytest.approx(expected)

    def test_f1(self):
        # label 0: F1 1; label 1: TP 1, FP 1 -> 2/3; label 2: FN 1 -> 0; label 3: 0/0.
        assert macro_f1(YA, PA) == pytest.approx((1 + 2 / 3 + 0 + 0) / 4)
        assert macro_f1(YA, PA, zero_division=1) == pytest.approx((1 + 2 / 3 + 0 + 1) / 4)
        assert np.isnan(macro_f1(YA, PA, zero_division=np.nan))
        # pooled: TP 2, FP 1, FN 1.
        assert micro_f1(YA, PA) == pytest.approx(4 / 6)

    def test_micro_f1_no_positive_at_all(self):
        Z = np.zeros((3, 2), dtype=int)
        assert micro_f1(Z, Z) == 0.0
        assert micro_f1(Z, Z, zero_division=1) == 1.0
        assert np.isnan(micro_f1(Z, Z, zero_division=np.nan))


class TestRankingHandWorked:
    def test_ranking_loss(self):
        # row 0: pairs (2,1) and the tie (2,3) are errors: 2/4; row 1: tie (1,0) and
        # (1,3): 2/3; row 2 has no label.
        assert ranking_loss(YA, SA) == pytest.approx((0.5 + 2 / 3 + 0) / 3)
        assert ranking_loss(YA, SA, convention="zhang") == pytest.approx((0.5 + 2 / 3) / 2)

    def test_ranking_loss_ties(self):
        # row 0: (2,1) wrong, (2,3) tied; row 1: (1,0) tied, (1,3) wrong; row 2 no label.
        assert ranking_loss(YA, SA, ties="error") == pytest.approx((2 / 4 + 2 / 3) / 3)
        assert ranking_loss(YA, SA, ties="half") == pytest.approx((1.5 / 4 + 1.5 / 3) / 3)
        assert ranking_loss(YA, SA, ties="correct") == pytest.approx((1 / 4 + 1 / 3) / 3)
        # a constant score vector: every pair tied
        Y, S = np.array([[1, 0, 0, 1]]), np.full((1, 4), 0.5)
        assert [ranking_loss(Y, S, ties=t) for t in ("error", "half", "correct")] == [1, 0.5, 0]
        assert ranking_loss(YA, SA, convention="zhang", ties="correct") == pytest.approx(
            (1 / 4 + 1 / 3) / 2
        )

    def test_ranking_loss_degenerate_rows(self):
        # all-label and no-label rows only: PL gives 0, ZH has nothing to average.
        assert ranking_loss(YB[1:], SB[1:]) == 0.0
        with pytest.warns(UndefinedMetricWarning):
            assert np.isnan(ranking_loss(YB[1:], SB[1:], convention="zhang"))

    def test_one_error(self):
        # row 0 top = label 0 (relevant), row 1 top = label 3 (not), row 2 empty -> error.
        assert one_error(YA, SA) == pytest.approx(2 / 3)
        # zhang: the empty row 2 is dropped.
        assert one_error(YA, SA, convention="zhang") == pytest.approx(1 / 2)

    def test_one_error_ties(self):
        # row 0: labels 0 and 1 tie at the top; only 1 is relevant.
        assert one_error(YB, SB) == pytest.approx(1 / 2)  # PL picks label 0
        assert one_error(YB, SB, tie_rule="zhang") == 0.0  # higher index: label 1
        # ZH: the all-label row 1 is removed; optimistic tie -> correct.
        assert one_error(YB, SB, convention="zhang") == 0.0

    def test_coverage_conventions(self):
        # lower_index ranks: row 0 relevant ranks {1, 3}; row 1 rank of label 1 = 3; row 2 none.
        assert coverage(YA, SA) == pytest.approx((3 + 3 + 0) / 3 - 1)
        assert coverage(YA, SA, convention="mulan") == pytest.approx((2 + 2 + 0) / 3)
        assert coverage(YA, SA, convention="plcfs") == pytest.approx((3 + 3 + 0) / 3)
        assert coverage(YA, SA, normalize=True) == pytest.approx(1 / 4)
        assert normalized_coverage(YA, SA) == pytest.approx(1 / 4)
        assert coverage(YA, SA, convention="plcfs", normalize=True) == pytest.approx(2 / 4)

    def test_coverage_tie_rule(self):
        # row 0 alone: labels 2 and 3 tie; lower_index ranks label 2 third, zhang fourth.
        assert coverage(YA[:1], SA[:1]) == 2.0
        assert coverage(YA[:1], SA[:1], tie_rule="zhang") == 3.0
        # row 1 alone: labels 0, 1 tie; lower_index: label 1 rank 3, zhang: rank 2.
        assert coverage(YA[1:2], SA[1:2], convention="plcfs") == 3.0
        assert coverage(YA[1:2], SA[1:2], convention="plcfs", tie_rule="zhang") == 2.0

    def test_average_precision(self):
        # row 0: ranks {1, 3}: (1/1 + 2/3)/2 = 5/6; row 1: rank 3: 1/3; row 2 empty.
        assert average_precision(YA, SA) == pytest.approx((5 / 6 + 1 / 3) / 2)
        assert average_precision(YA, SA, convention="zhang") == pytest.approx((5 / 6 + 1 / 3) / 2)
        # Mulan's AveragePrecision.java skips the empty row 2 (neither summed nor counted).
        assert average_precision(YA, SA, convention="mulan") == pytest.approx((5 / 6 + 1 / 3) / 2)
        # scikit-learn: the empty row scores 1; ties pessimistic: row 0 label 2 tied with
        # label 3 at rank 4 -> (1 + 2/4)/2; row 1 label 1 tied with label 0 at rank 3 -> 1/3.
        assert average_precision(YA, SA, convention="sklearn") == pytest.approx(
            (3 / 4 + 1 / 3 + 1) / 3
        )
        # zhang ties: row 0 ranks {1, 4}: (1 + 2/4)/2; row 1 rank 2: 1/2.
        assert average_precision(YA, SA, tie_rule="zhang") == pytest.approx((3 / 4 + 1 / 2) / 2)

    def test_average_precision_all_labels_row(self):
        # row 0: label 1 has rank 2 (lower_index) -> 1/2; row 1 (all labels) -> 1.
        assert average_precision(YB, SB) == pytest.approx(0.75)
        assert average_precision(YB, SB, convention="zhang") == pytest.approx(0.5)
        assert average_precision(YB, SB, convention="mulan") == pytest.approx(0.75)
        # sklearn: row 0 label 1 tied with label 0 at the top -> rank 2 -> 1/2; row 1 -> 1.
        assert average_precision(YB, SB, convention="sklearn") == pytest.approx(0.75)
        for conv in ("exclude_empty", "zhang", "mulan"):
            with pytest.warns(UndefinedMetricWarning):
                assert np.isnan(average_precision(np.zeros((2, 3)), SB, convention=conv))
        assert average_precision(np.zeros((2, 3)), SB, convention="sklearn") == 1.0

    def test_infinite_scores_are_ordered(self):
        Y = np.array([[1, 0, 0]])
        S = np.array([[-np.inf, 0.0, np.inf]])
        assert ranking_loss(Y, S) == 1.0
        assert coverage(Y, S, convention="plcfs") == 3.0


# ---------------------------------------------------------------------------
# comparisons with scikit-learn on random data
# ---------------------------------------------------------------------------


def _random(seed, n=300, q=9, density=0.3, ties=False):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, q)) < density).astype(np.uint8)
    Y[:5] = 0  # some empty rows
    Y[5:8] = 1  # some all-label rows
    P = (rng.random((n, q)) < density).astype(np.uint8)
    S = rng.integers(0, 4, size=(n, q)).astype(float) if ties else rng.random((n, q))
    return Y, P, S


@pytest.mark.parametrize("seed", [0, 1, 2])
class TestAgainstSklearn:
    def test_bipartition(self, seed):
        Y, P, _ = _random(seed)
        assert hamming_loss(Y, P) == pytest.approx(skm.hamming_loss(Y, P))
        assert hamming_score(Y, P) == pytest.approx(1 - skm.hamming_loss(Y, P))
        assert subset_accuracy(Y, P) == pytest.approx(skm.accuracy_score(Y, P))
        assert multilabel_accuracy(Y, P) == pytest.approx(
            skm.jaccard_score(Y, P, average="samples", zero_division=1)
        )

    def test_f1(self, seed):
        Y, P, _ = _random(seed, q=30, density=0.02)  # sparse: some labels never seen
        for z in (0, 1):
            assert macro_f1(Y, P, zero_division=z) == pytest.approx(
                skm.f1_score(Y, P, average="macro", zero_division=z)
            )
            assert micro_f1(Y, P, zero_division=z) == pytest.approx(
                skm.f1_score(Y, P, average="micro", zero_division=z)
            )

    def test_ranking_loss(self, seed):
        Y, _, S = _random(seed)
        assert ranking_loss(Y, S) == pytest.approx(skm.label_ranking_loss(Y, S))
        # scikit-learn also counts ties as errors (ψ_a ≤ ψ_b), so it agrees with ties too.
        Y, _, St = _random(seed, ties=True)
        assert ranking_loss(Y, St) == pytest.approx(skm.label_ranking_loss(Y, St))
        # ... and it keeps degenerate rows in the denominator (PL), unlike ZH.
        assert ranking_loss(Y, St, convention="zhang") != pytest.approx(
            skm.label_ranking_loss(Y, St)
        )
        # the other tie readings are below it (ties="error" is the most pessimistic)
        assert ranking_loss(Y, St, ties="correct") < ranking_loss(Y, St, ties="half") < (
            skm.label_ranking_loss(Y, St)
        )
        assert ranking_loss(Y, S, ties="correct") == pytest.approx(skm.label_ranking_loss(Y, S))

    def test_coverage(self, seed):
        Y, _, S = _random(seed)
        # sklearn's coverage_error is mean maxrank with 0 for empty rows = PL "mlcov".
        assert coverage(Y, S, convention="plcfs") == pytest.approx(skm.coverage_error(Y, S))
        nonempty = Y.any(axis=1)
        assert coverage(Y[nonempty], S[nonempty], convention="mulan") + 1 == pytest.approx(
            skm.coverage_error(Y[nonempty], S[nonempty])
        )
        # with ties sklearn counts every tied label (pessimistic): never below ours.
        Y, _, St = _random(seed, ties=True)
        ours = coverage(Y, St, convention="plcfs")
        assert ours < skm.coverage_error(Y, St)

    def test_average_precision(self, seed):
        Y, _, S = _random(seed)
        nonempty = Y.any(axis=1)
        assert average_precision(Y[nonempty], S[nonempty]) == pytest.approx(
            skm.label_ranking_average_precision_score(Y[nonempty], S[nonempty])
        )
        # sklearn scores an empty row 1 instead of excluding it (Mulan skips it).
        n_empty = int((~nonempty).sum())
        assert average_precision(Y, S, convention="mulan") == average_precision(Y, S)
        ours_sum = average_precision(Y, S, convention="mulan") * nonempty.sum()
        assert (ours_sum + n_empty) / len(Y) == pytest.approx(
            skm.label_ranking_average_precision_score(Y, S)
        )
        assert average_precision(Y, S, convention="sklearn") == pytest.approx(
            skm.label_ranking_average_precision_score(Y, S)
        )
        # with ties sklearn ranks pessimistically (rank = number of scores >= ψ) ...
        Y, _, St = _random(seed, ties=True)
        ne = Y.any(axis=1)
        assert average_precision(Y[ne], St[ne]) != pytest.approx(
            skm.label_ranking_average_precision_score(Y[ne], St[ne])
        )
        # ... which convention="sklearn" reproduces, empty and all-label rows included
        assert average_precision(Y, St, convention="sklearn") == pytest.approx(
            skm.label_ranking_average_precision_score(Y, St)
        )


def test_sklearn_tie_difference_small_example():
    # relevant label 0 tied with irrelevant label 1 at the top.
    Y, S = np.array([[1, 0, 0]]), np.array([[0.5, 0.5, 0.1]])
    assert coverage(Y, S, convention="plcfs") == 1.0  # lower index ranked first
    assert skm.coverage_error(Y, S) == 2.0  # every tied label counted
    assert average_precision(Y, S) == 1.0
    assert skm.label_ranking_average_precision_score(Y, S) == 0.5
    assert average_precision(Y, S, convention="sklearn") == 0.5
    assert ranking_loss(Y, S) == skm.label_ranking_loss(Y, S) == 0.5


# ---------------------------------------------------------------------------
# naive per-instance reference implementations (loops, straight from the formulas)
# ---------------------------------------------------------------------------


def _naive_rank(s, tie_rule):
    q = len(s)
    ranks = []
    for l in range(q):
        better = sum(1 for k in range(q) if s[k] > s[l])
        if tie_rule == "lower_index":
            tied_before = sum(1 for k in range(l) if s[k] == s[l])
        else:
            tied_before = sum(1 for k in range(l + 1, q) if s[k] == s[l])
        ranks.append(1 + better + tied_before)
    return ranks


def naive_ranking_loss(Y, S, convention, ties="error"):
    weight = {"error": 1.0, "half": 0.5, "correct": 0.0}[ties]
    vals = []
    for y, s in zip(Y, S, strict=True):
        rel = [l for l in range(len(y)) if y[l]]
        irr = [l for l in range(len(y)) if not y[l]]
        if not rel or not irr:
            if convention == "plcfs":
                vals.append(0.0)
            continue
        bad = sum(
            1.0 if s[a] < s[b] else weight for a in rel for b in irr if s[a] <= s[b]
        )
        vals.append(bad / (len(rel) * len(irr)))
    return float(np.mean(vals)) if vals else float("nan")


def naive_one_error(Y, S, convention, tie_rule):
    vals = []
    q = Y.shape[1]
    for y, s in zip(Y, S, strict=True):
        if convention == "plcfs":
            r = _naive_rank(s, tie_rule)
            top = r.index(1)
            vals.append(0.0 if y[top] else 1.0)
        else:
            if y.sum() in (0, q):
                continue
            m = max(s)
            vals.append(0.0 if any(y[l] and s[l] == m for l in range(q)) else 1.0)
    return float(np.mean(vals)) if vals else float("nan")


def naive_coverage(Y, S, convention, tie_rule, normalize):
    q = Y.shape[1]
    total = 0.0
    for y, s in zip(Y, S, strict=True):
        r = _naive_rank(s, tie_rule)
        m = max([r[l] for l in range(q) if y[l]], default=0)
        if convention == "mulan":
            total += m - 1 if m > 0 else 0
        else:
            total += m
    value = total / len(Y) - (1 if convention == "zhang" else 0)
    return value / q if normalize else value


def naive_average_precision(Y, S, convention, tie_rule):
    q = Y.shape[1]
    vals = []
    for y, s in zip(Y, S, strict=True):
        rel = [l for l in range(q) if y[l]]
        if not rel or len(rel) == q:
            if convention == "sklearn":
                vals.append(1.0)  # scikit-learn: no or all labels -> 1
            elif rel and convention != "zhang":
                vals.append(1.0)  # all labels: AP 1 for any ranking
            continue  # no label: skipped (exclude_empty, zhang, Mulan); all labels: zhang
        if convention == "sklearn":
            # pessimistic ranks: number of labels scoring at least as high
            r = [sum(1 for k in range(q) if s[k] >= s[l]) for l in range(q)]
        else:
            r = _naive_rank(s, tie_rule)
        vals.append(np.mean([sum(1 for k in rel if r[k] <= r[l]) / r[l] for l in rel]))
    return float(np.mean(vals)) if vals else float("nan")


def naive_jaccard(Y, P, convention):
    vals = []
    for y, p in zip(Y, P, strict=True):
        inter = sum(1 for a, b in zip(y, p, strict=True) if a and b)
        union = sum(1 for a, b in zip(y, p, strict=True) if a or b)
        if convention == "plcfs":
            vals.append((inter + 0.001) / (union + 0.001))
        else:
            vals.append(inter / union if union else 1.0)
    return float(np.mean(vals))


def naive_f1(Y, P, z):
    f1 = []
    tps = fps = fns = 0
    for l in range(Y.shape[1]):
        tp = sum(1 for i in range(len(Y)) if Y[i, l] and P[i, l])
        fp = sum(1 for i in range(len(Y)) if not Y[i, l] and P[i, l])
        fn = sum(1 for i in range(len(Y)) if Y[i, l] and not P[i, l])
        tps, fps, fns = tps + tp, fps + fp, fns + fn
        den = 2 * tp + fp + fn
        f1.append(2 * tp / den if den else z)
    den = 2 * tps + fps + fns
    return float(np.mean(f1)), (2 * tps / den if den else z)


@st.composite
def _label_score_pairs(draw):
    n = draw(st.integers(1, 8))
    q = draw(st.integers(1, 6))
    Y = draw(arrays(np.uint8, (n, q), elements=st.integers(0, 1)))
    # few distinct score values so that ties are frequent
    S = draw(arrays(np.float64, (n, q), elements=st.sampled_from([0.0, 0.25, 0.5, 1.0])))
    P = draw(arrays(np.uint8, (n, q), elements=st.integers(0, 1)))
    return Y, S, P


def _same(a, b):
    return (np.isnan(a) and np.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(_label_score_pairs(), st.sampled_from(["lower_index", "zhang"]))
def test_ranking_metrics_match_naive(data, tie_rule):
    Y, S, _ = data
    with warnings.catch_warnings():
        # all-degenerate draws legitimately warn and return NaN
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for conv in ("plcfs", "zhang"):
            for ties in ("error", "half", "correct"):
                assert _same(
                    ranking_loss(Y, S, convention=conv, ties=ties),
                    naive_ranking_loss(Y, S, conv, ties),
                )
            assert _same(
                one_error(Y, S, convention=conv, tie_rule=tie_rule),
                naive_one_error(Y, S, conv, tie_rule),
            )
        for conv in ("zhang", "mulan", "plcfs"):
            for norm in (False, True):
                assert _same(
                    coverage(Y, S, convention=conv, normalize=norm, tie_rule=tie_rule),
                    naive_coverage(Y, S, conv, tie_rule, norm),
                )
        for conv in ("exclude_empty", "zhang", "mulan", "sklearn"):
            assert _same(
                average_precision(Y, S, convention=conv, tie_rule=tie_rule),
                naive_average_precision(Y, S, conv, tie_rule),
            )


@settings(max_examples=150, deadline=None)
@given(_label_score_pairs())
def test_bipartition_metrics_match_naive(data):
    Y, _, P = data
    n, q = Y.shape
    wrong = sum(1 for i in range(n) for l in range(q) if Y[i, l] != P[i, l])
    assert _same(hamming_loss(Y, P), wrong / (n * q))
    assert _same(hamming_score(Y, P), 1 - wrong / (n * q))
    exact = sum(1 for i in range(n) if all(Y[i, l] == P[i, l] for l in range(q)))
    assert _same(subset_accuracy(Y, P), exact / n)
    for conv in ("mulan", "plcfs"):
        assert _same(multilabel_accuracy(Y, P, convention=conv), naive_jaccard(Y, P, conv))
    for z in (0, 1):
        ma, mi = naive_f1(Y, P, z)
        assert _same(macro_f1(Y, P, zero_division=z), ma)
        assert _same(micro_f1(Y, P, zero_division=z), mi)


# ---------------------------------------------------------------------------
# blocks, sparse input, validation, registry
# ---------------------------------------------------------------------------


def test_row_blocks_do_not_change_results(monkeypatch):
    Y, _, S = _random(5, n=101, q=13, ties=True)

    def all_values():
        return [
            ranking_loss(Y, S), ranking_loss(Y, S, ties="half"), coverage(Y, S),
            average_precision(Y, S), average_precision(Y, S, convention="sklearn"),
        ]

    ref = all_values()
    monkeypatch.setattr(metrics._ranking, "_BLOCK_ENTRIES", 40)  # 3 rows per block
    got = all_values()
    assert got == pytest.approx(ref)
    assert ranking_loss(Y, S) == pytest.approx(naive_ranking_loss(Y, S, "plcfs"))


def test_large_label_space_is_fast_enough():
    # delicious-sized label space; an n×q×q approach would need ~40 GB here.
    rng = np.random.default_rng(0)
    Y = (rng.random((2000, 983)) < 0.02).astype(np.uint8)
    S = rng.random((2000, 983))
    assert ranking_loss(Y, S) == pytest.approx(skm.label_ranking_loss(Y, S))
    assert coverage(Y, S, convention="plcfs") == pytest.approx(skm.coverage_error(Y, S))


def test_sparse_inputs():
    Y, P, S = _random(3)
    for f in (hamming_loss, subset_accuracy, multilabel_accuracy, macro_f1, micro_f1):
        assert f(sp.csr_matrix(Y), sp.csr_matrix(P)) == f(Y, P)
    for f in (ranking_loss, one_error, coverage, average_precision, normalized_coverage):
        assert f(sp.csr_matrix(Y), sp.csr_matrix(S)) == f(Y, S)


def test_validation_errors():
    Y, P, S = _random(4, n=10, q=3)
    with pytest.raises(ValueError, match="different shapes"):
        hamming_loss(Y, P[:, :2])
    with pytest.raises(ValueError, match="different shapes"):
        ranking_loss(Y, S[:5])
    Sn = S.copy()
    Sn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        coverage(Y, Sn)
    Pbad = P.astype(int)
    Pbad[0, 0] = 2
    with pytest.raises(ValueError, match="0/1"):
        hamming_loss(Y, Pbad)
    with pytest.raises(ValueError, match="2-D"):
        subset_accuracy(Y[:, 0], P[:, 0])
    with pytest.raises(ValueError, match="2-D"):
        ranking_loss(Y, S.ravel())
    with pytest.raises(ValueError, match="convention"):
        ranking_loss(Y, S, convention="mulan")
    with pytest.raises(ValueError, match="ties"):
        ranking_loss(Y, S, ties="random")
    with pytest.raises(ValueError, match="convention"):
        average_precision(Y, S, convention="MULAN")
    with pytest.raises(ValueError, match="tie_rule"):
        coverage(Y, S, tie_rule="random")
    with pytest.raises(ValueError, match="zero_division"):
        macro_f1(Y, P, zero_division="warn")
    with pytest.raises(ValueError, match="0 sample"):
        hamming_loss(np.zeros((0, 3)), np.zeros((0, 3)))


def test_registry():
    names = {
        "hamming_loss", "ranking_loss", "one_error", "coverage", "normalized_coverage",
        "average_precision", "multilabel_accuracy", "subset_accuracy", "hamming_score",
        "micro_f1", "macro_f1",
    }
    assert set(METRICS) == names
    Y, P, S = _random(6, n=50, q=5)
    for name, spec in METRICS.items():
        func, greater, needs = spec
        assert get_metric(name) is spec
        assert needs in ("pred", "score")
        value = func(Y, P if needs == "pred" else S)
        assert np.isfinite(value)
        # a perfect prediction / ranking is at least as good as the random one
        perfect = func(Y, Y if needs == "pred" else Y + 0.0)
        assert (perfect >= value) if greater else (perfect <= value)
    # scikit-learn's "accuracy" of multi-label targets is the exact-match ratio (issue #24)
    assert get_metric("accuracy") is METRICS["subset_accuracy"]
    with pytest.raises(KeyError, match="available"):
        get_metric("acuracy_ml")
