"""Every information-theoretic selector at large label sets (issue #28).

* The label-block paths (engaged above the count engine's full-block threshold,
  ``skmlfs.info._cache.use_full_block``) select exactly what the full-table paths select:
  on the shared data sets (ties included: genbase has duplicated columns, PPT on cal500
  turns every row into its own class, so that every χ² ties) and on synthetic data with
  ties that only rounding separates, with the threshold forced to 0 so the block paths run
  on small data. With the table budget shrunk below ``d × q``, the block paths still run:
  they never build the table.
* The selectors whose terms need whole tables fail fast with
  :class:`~skmlfs.info.TableTooLargeError` naming the term.
* Row-block and Dask input: accepted where the counts add up over rows (the
  ``row_blocks`` tag), a clear error naming what would be needed otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import skmlfs.info._cache as cache_mod
from skmlfs.datasets import load
from skmlfs.discretize import EqualWidthDiscretizer
from skmlfs.info import ArrayBlocks, DiscreteData, TableTooLargeError
from skmlfs.selection import (
    AMI,
    D2F,
    FIMF,
    GICS,
    LRFS,
    MDMR,
    MLCFS,
    MLFS,
    MLJMI,
    MLMIM,
    MLMRMR,
    PMU,
    PPTCHI,
    PPTMI,
    QPFS,
    SCLS,
    MIRank,
)
from skmlfs.selection._base import is_discrete
from skmlfs.selection._tags import get_selector_tags

# selectors with a label-block path, and how they are built
BLOCK_PATH = {
    "MDMR": lambda k: MDMR(k),
    "MDMR lin2015": lambda k: MDMR(k, variant="lin2015"),
    "MDMR interaction": lambda k: MDMR(k, variant="interaction"),
    "D2F": lambda k: D2F(k),
    "D2F code": lambda k: D2F(k, variant="code"),
    "MLMIM": lambda k: MLMIM(k),
    "MLJMI": lambda k: MLJMI(k),
    "MLMRMR": lambda k: MLMRMR(k),
    "MLFS global beta=0": lambda k: MLFS(k, mode="global", beta=0.0),
    "PPT+MI": lambda k: PPTMI(k),
    "PPT+MI mrmr": lambda k: PPTMI(k, search="mrmr"),
    "PPT+chi2": lambda k: PPTCHI(k),
    "MLCFS": lambda k: MLCFS(k),
    "FIMF n_labels=3": lambda k: FIMF(k, n_labels=3),
}

_PATHS = {
    "medical": "mulan/medical/medical.arff",
    "enron": "mulan/enron/enron.arff",
    "genbase": "mulan/genbase/genbase.arff",
    "emotions": "mulan/emotions/emotions.arff",
    "yeast": "mulan/yeast/yeast.arff",
    "cal500": "mulan/cal500/cal500.arff",
}
_SPARSE_BINARY = ("medical", "enron", "genbase")


def _load(dataset_path, name):
    ds = load(dataset_path(_PATHS[name]))
    X = ds.X
    if not is_discrete(X):
        X = EqualWidthDiscretizer().fit_transform(X.toarray() if sp.issparse(X) else X)
    return X, ds.Y


def _fit_both(make, X, Y, monkeypatch):
    full = make().fit(X, Y)
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "FULL_BLOCK_PAIRS", 0)  # every label-block path engages
        blocks = make().fit(X, Y)
    return full, blocks


# genbase (1,186 features, duplicated columns) takes 7-10 s: in the full run only
def _params(names):
    return [pytest.param(n, marks=pytest.mark.slow) if n == "genbase" else n for n in names]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", _params(_PATHS))
def test_real_data_same_selection_full_table_and_label_blocks(dataset_path, name,
                                                              monkeypatch):
    X, Y = _load(dataset_path, name)
    for label, make in BLOCK_PATH.items():
        full, blocks = _fit_both(lambda make=make: make(20), X, Y, monkeypatch)
        np.testing.assert_array_equal(blocks.selection_order_, full.selection_order_,
                                      err_msg=f"{label} on {name}")
        ok = np.isfinite(full.scores_)
        np.testing.assert_array_equal(np.isfinite(blocks.scores_), ok)
        np.testing.assert_allclose(blocks.scores_[ok], full.scores_[ok], rtol=1e-9,
                                   atol=1e-9, err_msg=f"{label} on {name}")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", _params(_SPARSE_BINARY))
def test_label_block_paths_never_build_the_table(dataset_path, name, monkeypatch):
    """With the table budget just below one d × q int64 table, the full-table path
    refuses and every label-block path still selects the same features."""
    X, Y = _load(dataset_path, name)
    # the cells of the dense count table: indicator columns (constant columns have none)
    m_x, m_y = (DiscreteData.from_array(M).indicators.shape[1] for M in (X, Y))
    expected = {label: make(20).fit(X, Y).selection_order_
                for label, make in BLOCK_PATH.items() if label != "MLCFS"}
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(0.9 * 8 * m_x * m_y / 2**30))
    with pytest.raises(TableTooLargeError):
        MDMR(20).fit(X, Y)  # the full path needs the d × q table
    monkeypatch.setattr(cache_mod, "FULL_BLOCK_PAIRS", 0)
    for label, order in expected.items():
        got = BLOCK_PATH[label](20).fit(X, Y).selection_order_
        np.testing.assert_array_equal(got, order, err_msg=f"{label} on {name}")


def _tied_problem(seed=0, n=400, d=24, q=12):
    """Binary features with exact ties (duplicates) and ties only rounding separates
    (complements: the same count table, its cells summed in another order)."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, q)) < 0.2).astype(np.int64)
    X = (rng.random((n, d)) < 0.3).astype(np.int64)
    X[:, :q] |= Y & (rng.random((n, q)) < 0.6)
    X[:, 15] = X[:, 3]  # duplicate of a relevant feature
    X[:, 16] = 1 - X[:, 5]  # complement: equal information, other cells
    X[:, 17] = 1 - X[:, 15]
    X[:, 20] = 0  # constant: never selected
    return X, Y


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("label", list(BLOCK_PATH))
@pytest.mark.parametrize("sparse_input", [False, True])
def test_synthetic_ties_same_selection(label, sparse_input, monkeypatch):
    X, Y = _tied_problem()
    if sparse_input:
        X, Y = sp.csr_matrix(X), sp.csr_matrix(Y)
    full, blocks = _fit_both(lambda: BLOCK_PATH[label](12), X, Y, monkeypatch)
    np.testing.assert_array_equal(blocks.selection_order_, full.selection_order_)


# ------------------------------------------------------------------ fail fast
@pytest.mark.parametrize("make, term", [
    (lambda: PMU(5), "label-pair term"),
    (lambda: LRFS(5), "label-redundancy relevance"),
    (lambda: MLFS(5, mode="global"), "label-correlation term"),
    (lambda: MLFS(5, beta=0.0), "local mode"),
    (lambda: FIMF(5), "interaction term"),
])
def test_table_terms_fail_fast_with_the_term_named(make, term, monkeypatch):
    X, Y = _tied_problem()
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(1e-6))  # ~1 KiB
    with pytest.raises(TableTooLargeError, match=term) as err:
        make().fit(X, Y)
    msg = str(err.value)
    assert "GiB" in msg and "SKMLFS_MAX_TABLE_GIB" in msg and "complexity-and-scale" in msg


def test_label_sum_selectors_run_below_one_table(monkeypatch):
    """Sparse data, table budget just below one d × q int64 table: the label-sum paths
    select (their own tables are at most 100 candidates × max(100, q), or b × k)."""
    rng = np.random.default_rng(9)
    X = sp.random(1500, 300, density=0.05, random_state=rng, format="csr")
    Y = sp.random(1500, 40, density=0.04, random_state=rng, format="csr")
    X.data[:] = 1
    Y.data[:] = 1
    m_x, m_y = (DiscreteData.from_array(M).indicators.shape[1] for M in (X, Y))
    monkeypatch.setenv("SKMLFS_MAX_TABLE_GIB", str(0.9 * 8 * m_x * m_y / 2**30))
    with pytest.raises(TableTooLargeError):
        MDMR(6).fit(X, Y)
    monkeypatch.setattr(cache_mod, "FULL_BLOCK_PAIRS", 0)
    for make in (SCLS, AMI, MIRank, GICS, MDMR, D2F, MLMIM, MLJMI, MLMRMR, PPTMI, PPTCHI):
        assert make(6).fit(X, Y).selection_order_.size == 6
    assert MLFS(6, mode="global", beta=0.0).fit(X, Y).selection_order_.size == 6
    assert FIMF(6, n_labels=2).fit(X, Y).selection_order_.size == 6


# ------------------------------------------------------------------ row blocks
ROW_BLOCK_OK = [SCLS, AMI, MIRank, GICS, MDMR, D2F]


@pytest.mark.parametrize("selector", ROW_BLOCK_OK)
def test_row_blocks_accepted_where_counts_add_up(selector):
    X, Y = _tied_problem(seed=3)
    ref = selector(10).fit(X, Y)
    assert get_selector_tags(ref).row_blocks
    got = selector(10).fit(ArrayBlocks(sp.csr_matrix(X), Y, block_rows=90), None)
    np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)


def test_mlmim_row_blocks_with_symbols_only():
    X, Y = _tied_problem(seed=4)
    ref = MLMIM(8, discretizer=None).fit(X, Y)
    got = MLMIM(8, discretizer=None).fit(ArrayBlocks(X, Y, block_rows=100), None)
    np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
    with pytest.raises(NotImplementedError, match="discretizer=None"):
        MLMIM(8).fit(ArrayBlocks(X, Y), None)


@pytest.mark.parametrize("make, need", [
    (lambda: PMU(4), "label-pair term"),
    (lambda: LRFS(4), "stratified"),
    (lambda: MLJMI(4), "candidate pool"),
    (lambda: MLMRMR(4), "candidate pool"),
    (lambda: MLFS(4), "candidate pool"),
    (lambda: PPTMI(4), "label set"),
    (lambda: PPTCHI(4), "label set"),
    (lambda: MLCFS(4), "Pearson"),
    (lambda: FIMF(4), "pair of kept"),
    (lambda: QPFS(4), "d × d"),
])
def test_row_blocks_refused_with_what_is_needed(make, need):
    X, Y = _tied_problem(seed=5)
    with pytest.raises(NotImplementedError, match=need) as err:
        make().fit(ArrayBlocks(X, Y), None)
    assert "in-memory" in str(err.value) and "MDMR" in str(err.value)


def test_dask_arrays_mdmr_d2f_mlmim():
    da = pytest.importorskip("dask.array")
    X, Y = _tied_problem(seed=6, n=600)
    Xs = sp.csr_matrix(X)
    for make in (lambda: MDMR(8), lambda: MDMR(8, variant="interaction"), lambda: D2F(8),
                 lambda: D2F(8, variant="code"), lambda: MLMIM(8, discretizer=None)):
        ref = make().fit(X, Y)
        got = make().fit(da.from_array(Xs, chunks=(150, 12), asarray=False), Y)
        np.testing.assert_array_equal(got.selection_order_, ref.selection_order_)
        dense = make().fit(da.from_array(X, chunks=(200, 24)),
                           da.from_array(Y, chunks=(250, 12)))
        np.testing.assert_array_equal(dense.selection_order_, ref.selection_order_)
    with pytest.raises(NotImplementedError, match="label-pair term"):
        PMU(4).fit(da.from_array(X, chunks=(200, 24)), Y)
    with pytest.raises(NotImplementedError, match="Pearson"):
        MLCFS(4).fit(da.from_array(X, chunks=(200, 24)), Y)
