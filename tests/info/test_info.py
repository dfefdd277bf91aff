"""The count engine against straightforward per-pair references."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skmlfs.info import (
    DiscreteData,
    InfoCache,
    conditional_mutual_info,
    entropy,
    interaction_info,
    joint_entropy,
    mutual_info,
)
from skmlfs.info._reference import ref_conditional_mutual_info, ref_entropy, ref_mutual_info

TOL = 1e-10


def _ref_matrix(fn, A, B):
    return np.array([[fn(A[:, i], B[:, j]) for j in range(B.shape[1])] for i in range(A.shape[1])])


def test_hand_worked_binary():
    # x = [0,0,1,1], y = [0,1,1,1]: H(x) = 1, H(y) = H(1/4) ; joint: (0,0),(0,1),(1,1),(1,1)
    x = np.array([[0], [0], [1], [1]])
    y = np.array([[0], [1], [1], [1]])
    h_y = -(0.25 * np.log2(0.25) + 0.75 * np.log2(0.75))
    h_xy = -(2 * 0.25 * np.log2(0.25) + 0.5 * np.log2(0.5))  # 1.5 bits
    assert entropy(x)[0] == pytest.approx(1.0, abs=TOL)
    assert entropy(y)[0] == pytest.approx(h_y, abs=TOL)
    assert joint_entropy(x, y)[0, 0] == pytest.approx(1.5, abs=TOL)
    assert mutual_info(x, y)[0, 0] == pytest.approx(1.0 + h_y - h_xy, abs=TOL)
    # base e
    assert entropy(x, base=np.e)[0] == pytest.approx(np.log(2), abs=TOL)


def test_hand_worked_cmi():
    # x = y = z xor noise: with z constant-free, I(x; y | z) where x == y and z independent
    x = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    z = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    # x and y identical: I(x; x | z) = H(x | z) = 1 bit
    assert conditional_mutual_info(x[:, None], x[:, None], z[:, None])[0, 0] == pytest.approx(1.0)
    # y = x xor z: pairwise independent, but fully dependent given z (synergy)
    y = x ^ z
    assert mutual_info(x[:, None], y[:, None])[0, 0] == pytest.approx(0.0, abs=TOL)
    assert conditional_mutual_info(x[:, None], y[:, None], z[:, None])[0, 0] == pytest.approx(1.0)
    assert interaction_info(x[:, None], y[:, None], z[:, None])[0, 0] == pytest.approx(-1.0)


@st.composite
def _discrete_blocks(draw):
    n = draw(st.integers(1, 40))
    p = draw(st.integers(1, 5))
    q = draw(st.integers(1, 4))
    A = draw(arrays(np.int64, (n, p), elements=st.integers(-2, 3)))
    B = draw(arrays(np.int64, (n, q), elements=st.integers(0, 2)))
    z = draw(arrays(np.int64, (n,), elements=st.integers(0, 3)))
    return A, B, z


@settings(max_examples=60, deadline=None)
@given(_discrete_blocks(), st.booleans(), st.booleans())
def test_property_against_reference(blocks, sparse_a, dense_b):
    A, B, z = blocks
    Ain = sp.csr_matrix(A) if sparse_a else A
    DA = DiscreteData.from_array(Ain)
    DB = DiscreteData.from_array(B, dense=dense_b)
    np.testing.assert_allclose(entropy(DA), [ref_entropy(a) for a in A.T], atol=TOL)
    np.testing.assert_allclose(
        joint_entropy(DA, DB), _ref_matrix(lambda a, b: ref_entropy(a, b), A, B), atol=TOL
    )
    np.testing.assert_allclose(mutual_info(DA, DB), _ref_matrix(ref_mutual_info, A, B), atol=TOL)
    np.testing.assert_allclose(
        joint_entropy(DA, DB, given=z[:, None]),
        _ref_matrix(lambda a, b: ref_entropy(a, b, z), A, B),
        atol=TOL,
    )
    np.testing.assert_allclose(
        conditional_mutual_info(DA, DB, z[:, None]),
        _ref_matrix(lambda a, b: ref_conditional_mutual_info(a, b, z), A, B),
        atol=TOL,
    )


def test_float_symbols_not_floored():
    # MIToolbox floors values (0.3 and 0.7 would collapse); the engine treats them as symbols
    x = np.array([0.3, 0.7, 0.3, 0.7])
    assert entropy(x[:, None])[0] == pytest.approx(1.0)


def test_general_values_and_wide_ranges():
    rng = np.random.default_rng(1)
    X = np.column_stack(
        [rng.normal(size=30).round(1), rng.integers(0, 10**6, 30), rng.integers(5, 9, 30)]
    )
    np.testing.assert_allclose(entropy(X), [ref_entropy(c) for c in X.T], atol=TOL)


def test_sparse_stays_sparse_and_matches_dense():
    rng = np.random.default_rng(0)
    Xs = sp.random(200, 50, density=0.05, random_state=0, format="csr")
    Xs.data = np.ceil(Xs.data * 2)
    D = DiscreteData.from_array(Xs)
    assert sp.issparse(D.indicators)
    assert D.indicators.nnz == Xs.nnz
    Y = (rng.random((200, 7)) < 0.2).astype(int)
    np.testing.assert_allclose(
        mutual_info(D, Y), mutual_info(Xs.toarray(), Y), atol=TOL
    )


@pytest.mark.parametrize("value", [1, 3.5, -2])
def test_binary_sparse_fast_path(value):
    Xs = sp.random(120, 30, density=0.1, random_state=4, format="csr")
    Xs.data[:] = value
    Xs[:, 7] = 0  # an all-zero column
    Xs.eliminate_zeros()
    D = DiscreteData.from_array(Xs)
    Xd = Xs.toarray()
    assert sp.issparse(D.indicators) and D.indicators.nnz == Xs.nnz
    np.testing.assert_allclose(entropy(D), [ref_entropy(c) for c in Xd.T], atol=TOL)
    np.testing.assert_array_equal(D.codes() * value, Xd)
    np.testing.assert_allclose(
        joint_entropy(D, Xd[:, :5]), _ref_matrix(lambda a, b: ref_entropy(a, b), Xd, Xd[:, :5]),
        atol=TOL,
    )


def test_constant_and_empty_columns():
    X = np.column_stack([np.zeros(10), np.ones(10), np.arange(10) % 2])
    D = DiscreteData.from_array(X)
    np.testing.assert_allclose(entropy(D), [0.0, 0.0, 1.0], atol=TOL)
    np.testing.assert_allclose(mutual_info(D, D)[2], [0.0, 0.0, 1.0], atol=TOL)
    Xs = sp.csr_matrix((10, 3))
    np.testing.assert_allclose(entropy(Xs), 0.0)


def test_errors():
    with pytest.raises(ValueError, match="NaN"):
        DiscreteData.from_array(np.array([[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="different numbers of rows"):
        joint_entropy(np.zeros((3, 1)), np.zeros((4, 1)))
    with pytest.raises(ValueError, match="exactly one variable"):
        joint_entropy(np.zeros((3, 1)), np.zeros((3, 1)), given=np.zeros((3, 2)))


def test_cache_reuses_columns():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (60, 8))
    Y = rng.integers(0, 2, (60, 3))
    c = InfoCache(X, Y)
    col = c.h_xx(2)
    assert c.h_xx(2) is col  # memoised
    np.testing.assert_allclose(c.mi_xx(2), [ref_mutual_info(X[:, i], X[:, 2]) for i in range(8)])
    np.testing.assert_allclose(
        c.h_xy_given(4),
        [[ref_entropy(X[:, i], Y[:, j], X[:, 4]) for j in range(3)] for i in range(8)],
        atol=TOL,
    )
    np.testing.assert_allclose(c.relevance, c.mi_xy.sum(1))


@pytest.mark.parametrize("chunk", [1, 7, 50])
def test_chunked_xlogx_sums_are_bit_identical(monkeypatch, chunk):
    # Large count tables are summed in chunks of whole A-variables (cache-sized); every
    # cell and every per-variable group sum is computed in the same order as in one pass.
    import skmlfs.info._engine as engine

    rng = np.random.default_rng(11)
    A = rng.integers(0, 5, size=(200, 23))
    A[:, 4] = 0  # a constant variable: an empty group of indicator columns
    B = rng.integers(0, 3, size=(200, 9))
    one_pass = engine.joint_entropy(A, B)
    monkeypatch.setattr(engine, "_XLOGX_CHUNK_CELLS", chunk)
    assert np.array_equal(engine.joint_entropy(A, B), one_pass)
    assert np.allclose(one_pass[4], entropy(B))  # H(const, B_j) = H(B_j)


@pytest.mark.parametrize(("da", "db"), [(0.3, 0.05), (0.05, 0.3)])
def test_sparse_products_in_either_orientation_match_dense(da, db):
    # _cross_counts puts the operand with more stored entries on the right of the sparse
    # product; both orientations must give the dense counts exactly.
    rng = np.random.default_rng(3)
    A = (rng.random((500, 40)) < da).astype(int)
    B = (rng.random((500, 30)) < db).astype(int)
    for f in (mutual_info, joint_entropy):
        np.testing.assert_array_equal(f(sp.csr_matrix(A), sp.csr_matrix(B)), f(A, B))
