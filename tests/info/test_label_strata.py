"""Σ_l H(f, l, s) over the strata of s, without the d × q three-way table (issue #28).

The label-sum path of a greedy step (:mod:`skmlfs.info._strata`, in memory, and
:meth:`StreamInfoCache.sum_h_xy_given`, over row blocks) against the engine's full
three-way block ``joint_entropy(X, Y, given=s).sum(axis=1)`` and against a
straightforward per-pair count in extended precision.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from skmlfs.info import ArrayBlocks, DiscreteData, InfoCache, joint_entropy
from skmlfs.info._rowblocks import StreamInfoCache
from skmlfs.info._strata import sum_joint_entropy_given, xlogx_label_sums


def _data(seed, n=260, d=30, q=18, multi=False):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, d)) < 0.25).astype(np.int64)
    if multi:
        X *= rng.integers(1, 4, (n, d))
    X[:, 4] = 0  # constant
    X[:, 5] = X[:, 6]  # duplicate columns: exactly tied sums
    Y = (rng.random((n, q)) < 0.12).astype(np.int64)
    Y[:, 2] = 0  # a label without positives
    Y[:, 3] = X[:, 7] > 0  # a label equal to a feature
    return X, Y


def _three_way_sum_ld(X, Y, s):
    """Σ_l H(f, l, s) in bits by counting each triple's cells (extended precision)."""
    n, d = X.shape
    out = np.zeros(d, dtype=np.longdouble)
    for f in range(d):
        for lab in range(Y.shape[1]):
            _, c = np.unique(np.stack([X[:, f], Y[:, lab], X[:, s]], axis=1), axis=0,
                             return_counts=True)
            p = c.astype(np.longdouble) / n
            out[f] -= (p * np.log(p)).sum()
    return out / np.log(np.longdouble(2))


@pytest.mark.parametrize("multi", [False, True])
@pytest.mark.parametrize("dense", [False, True])
def test_strata_sums_equal_full_block(multi, dense):
    X, Y = _data(0, multi=multi)
    A = DiscreteData.from_array(X if dense else sp.csr_matrix(X), dense=dense)
    B = DiscreteData.from_array(Y if dense else sp.csr_matrix(Y), dense=dense)
    for s in (0, 4, 5, 7):  # binary or multi-valued, constant, duplicated, label-equal
        ref = joint_entropy(A, B, given=A.take([s])).sum(axis=1)
        got = sum_joint_entropy_given(A, B, A.take([s]))
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
        assert got[5] == got[6]  # duplicated features: the same float


def test_strata_sums_against_straightforward_count():
    X, Y = _data(1, n=120, d=9, q=6, multi=True)
    A, B = DiscreteData.from_array(sp.csr_matrix(X)), DiscreteData.from_array(sp.csr_matrix(Y))
    for s in (0, 8):
        ref = _three_way_sum_ld(X, Y, s).astype(float)
        np.testing.assert_allclose(sum_joint_entropy_given(A, B, A.take([s])), ref,
                                   rtol=0, atol=1e-12)


def test_xlogx_label_sums_is_the_raw_label_sum():
    X, Y = _data(2)
    A, B = DiscreteData.from_array(sp.csr_matrix(X)), DiscreteData.from_array(sp.csr_matrix(Y))
    n, q = X.shape[0], Y.shape[1]
    # Σ_l H(f, l) = q log n − (1/n) Σ_l Σ_cells c log c  (nats)
    h = (q * np.log(n) - xlogx_label_sums(A, B) / n) / np.log(2)
    np.testing.assert_allclose(h, joint_entropy(A, B).sum(axis=1), rtol=0, atol=1e-12)


def test_cache_policy_full_block_or_strata():
    X, Y = _data(3)
    full = InfoCache(X, Y)
    blocks = InfoCache(X, Y, full_block_pairs=0)
    assert full.uses_full_block and not blocks.uses_full_block
    for s in (0, 7):
        np.testing.assert_allclose(blocks.sum_h_xy_given(s), full.sum_h_xy_given(s),
                                   rtol=0, atol=1e-12)
        np.testing.assert_array_equal(full.sum_h_xy_given(s),
                                      full.h_xy_given(s).sum(axis=1))
    assert "h_xy" not in blocks.__dict__  # the label-sum path never built the table
    # the step's three-way tables are not kept (k of them would hold k·d·q floats)
    assert not any(isinstance(v, dict) and v and np.ndim(next(iter(v.values()))) == 2
                   for v in full.__dict__.values())


@pytest.mark.parametrize("block_entries", [2**23, 40])
@pytest.mark.parametrize("multi", [False, True])
def test_row_block_strata_sums(block_entries, multi):
    X, Y = _data(4, multi=multi)
    A, B = DiscreteData.from_array(sp.csr_matrix(X)), DiscreteData.from_array(sp.csr_matrix(Y))
    cache = StreamInfoCache(ArrayBlocks(sp.csr_matrix(X), Y, block_rows=70),
                            block_entries=block_entries)
    before = cache.n_passes
    for s in (0, 4, 7):
        ref = joint_entropy(A, B, given=A.take([s])).sum(axis=1)
        np.testing.assert_allclose(cache.sum_h_xy_given(s), ref, rtol=0, atol=1e-12)
    if block_entries < 100:  # several label blocks: one pass over the rows each
        assert cache.n_passes - before > 3
    with pytest.raises(NotImplementedError, match="sum_h_xy_given"):
        cache.h_xy_given(0)
