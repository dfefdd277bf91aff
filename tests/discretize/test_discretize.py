"""Tests for skmlfs.discretize (docs/methods/discretizers.md)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import KBinsDiscretizer

from skmlfs.discretize import (
    EqualFrequencyDiscretizer,
    EqualWidthDiscretizer,
    LAIMDiscretizer,
    MeanStdDiscretizer,
)
from skmlfs.discretize._base import with_categorical
from skmlfs.selection import SCLS

ALL = [EqualWidthDiscretizer, EqualFrequencyDiscretizer, MeanStdDiscretizer, LAIMDiscretizer]


def _fit(est, X, Y=None):
    return est.fit(X, Y) if isinstance(est, LAIMDiscretizer) else est.fit(X)


# ---------------------------------------------------------------------------
# equal width / equal frequency
# ---------------------------------------------------------------------------


class TestEqualWidth:
    def test_hand_worked(self):
        X = np.array([[0.0], [1], [2], [3], [5], [10]])
        est = EqualWidthDiscretizer(n_bins=2).fit(X)
        np.testing.assert_array_equal(est.bin_edges_[0], [0, 5, 10])
        # left-closed: 5 opens the second bin; 10 (the maximum) closes the last bin
        np.testing.assert_array_equal(est.transform(X).ravel(), [0, 0, 0, 0, 1, 1])
        # outside the training range: first / last bin
        np.testing.assert_array_equal(est.transform([[-3.0], [11.0]]).ravel(), [0, 1])
        assert est.transform(X).dtype == np.int32
        assert est.n_bins_[0] == 2

    def test_constant_column(self):
        est = EqualWidthDiscretizer(n_bins=3).fit([[4.5], [4.5], [4.5]])
        np.testing.assert_array_equal(est.transform([[1.0], [4.5], [9.0]]).ravel(), [0, 0, 0])
        assert est.n_bins_[0] == 1

    def test_matches_sklearn_uniform(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(300, 6)) * [1, 10, 0.1, 5, 2, 3]
        Xt = rng.normal(size=(100, 6)) * 2
        ours = EqualWidthDiscretizer(n_bins=7).fit(X)
        ref = KBinsDiscretizer(n_bins=7, encode="ordinal", strategy="uniform").fit(X)
        for j in range(6):
            np.testing.assert_allclose(ours.bin_edges_[j], ref.bin_edges_[j])
        np.testing.assert_array_equal(ours.transform(Xt), ref.transform(Xt))


class TestEqualFrequency:
    def test_hand_worked(self):
        X = np.arange(1.0, 9.0)[:, None]
        est = EqualFrequencyDiscretizer(n_bins=4).fit(X)
        np.testing.assert_allclose(est.bin_edges_[0], [1, 2.75, 4.5, 6.25, 8])
        np.testing.assert_array_equal(est.transform(X).ravel(), [0, 0, 1, 1, 2, 2, 3, 3])
        np.testing.assert_array_equal(est.transform([[4.5], [0.0], [100.0]]).ravel(), [2, 0, 3])

    def test_ties_merge_edges(self):
        X = np.array([0.0] * 6 + [1, 2, 3, 4])[:, None]
        est = EqualFrequencyDiscretizer(n_bins=4).fit(X)
        # quantiles at positions 0, 2.25, 4.5, 6.75, 9 of the sorted column: 0, 0, 0, 1.75,
        # 4 -> the repeated 0 is merged and only 2 bins remain
        np.testing.assert_allclose(est.bin_edges_[0], [0, 1.75, 4])
        assert est.n_bins_[0] == 2
        np.testing.assert_array_equal(est.transform(X).ravel(), [0] * 7 + [1, 1, 1])

    def test_matches_sklearn_quantile(self):
        rng = np.random.default_rng(1)
        X = rng.exponential(size=(257, 5))
        Xt = rng.exponential(size=(90, 5)) * 1.5
        ours = EqualFrequencyDiscretizer(n_bins=5).fit(X)
        ref = KBinsDiscretizer(
            n_bins=5, encode="ordinal", strategy="quantile", quantile_method="linear"
        ).fit(X)
        for j in range(5):
            np.testing.assert_allclose(ours.bin_edges_[j], ref.bin_edges_[j])
        np.testing.assert_array_equal(ours.transform(Xt), ref.transform(Xt))


# ---------------------------------------------------------------------------
# MeanStd = oCC myDisc
# ---------------------------------------------------------------------------


def mydisc_reference(train, test, n_states=3, factor=0.5):
    """Straightforward transcription of myDisc (one column at a time, MATLAB semantics)."""
    out = test.astype(float).copy()
    for j in range(train.shape[1]):
        x = train[:, j]
        non1 = x[x != 1]
        if non1.size == 0 or non1.max() == 0:
            continue  # left unchanged
        mu, s = x.mean(), factor * (x.std(ddof=1) if len(x) > 1 else 0.0)
        if s == 0:
            out[:, j] = 0
            continue
        ks = [-1, 1] if n_states == 3 else [-2, -1, 1, 2]
        edges = []
        for k in ks:
            e = mu + k * s
            e = np.sign(e) * np.floor(abs(e) * 1000 + 0.5) / 1000  # MATLAB round(e, 3)
            edges.append(e)
        for i, v in enumerate(test[:, j]):
            # MATLAB discretize with [-inf, edges, inf]: bin k holds edges[k-1] <= v < edges[k]
            state = sum(1 for e in edges if v >= e)
            out[i, j] = state - n_states // 2
    return out


class TestMeanStd:
    def test_hand_worked(self):
        # μ = 2, std (ddof 1) = √2.5, s = 0.5·√2.5 = 0.7906 -> edges 1.209, 2.791
        X = np.array([[0.0], [1], [2], [3], [4]])
        est = MeanStdDiscretizer().fit(X)
        np.testing.assert_allclose(est.bin_edges_[0][1:-1], [1.209, 2.791])
        np.testing.assert_array_equal(est.transform(X).ravel(), [-1, -1, 0, 1, 1])
        assert est.transform(X).dtype == np.float64
        assert est.mean_[0] == 2.0
        assert est.scale_[0] == pytest.approx(0.5 * np.sqrt(2.5))

    def test_exact_edge_values(self):
        est = MeanStdDiscretizer().fit(np.array([[0.0], [1], [2], [3], [4]]))
        probe = np.array([[1.2089999], [1.209], [2.7909999], [2.791], [-50], [50]])
        # left-closed bins: μ−s belongs to the middle state, μ+s to the upper one
        np.testing.assert_array_equal(est.transform(probe).ravel(), [-1, 0, 0, 1, -1, 1])

    def test_rounding_half_away_from_zero(self):
        # μ = 2, std = 1 exactly, factor 1/16: edges 1.9375 and 2.0625 round to 1.938 and
        # 2.063 (MATLAB, halves away from zero); numpy's half-to-even would give 2.062.
        est = MeanStdDiscretizer(factor=0.0625).fit(np.array([[1.0], [2.0], [3.0]]))
        np.testing.assert_array_equal(est.bin_edges_[0][1:-1], [1.938, 2.063])
        np.testing.assert_array_equal(
            est.transform([[1.9375], [1.938], [2.0625], [2.063]]).ravel(), [-1, 0, 0, 1]
        )

    def test_five_states(self):
        X = np.array([[1.0], [2.0], [3.0]])  # μ 2, std 1
        est = MeanStdDiscretizer(factor=1.0, n_states=5).fit(X)
        np.testing.assert_array_equal(est.bin_edges_[0][1:-1], [0, 1, 3, 4])
        probe = np.array([[-1.0], [0], [0.5], [1], [2], [3], [3.5], [4], [5]])
        np.testing.assert_array_equal(est.transform(probe).ravel(), [-2, -1, -1, 0, 0, 1, 1, 2, 2])
        assert est.n_bins_[0] == 5

    def test_mydisc_skip_rule(self):
        X = np.array([
            # {0,1} {-2,0,1} all 1  all 0  {0,2}  {0,0.5,1} {-1,1} const 3
            [0, -2, 1, 0, 0, 0.0, -1, 3],
            [1, 0, 1, 0, 2, 0.5, 1, 3],
            [1, 1, 1, 0, 2, 1.0, 1, 3],
            [0, 1, 1, 0, 0, 1.0, -1, 3],
        ], dtype=float)
        est = MeanStdDiscretizer().fit(X)
        np.testing.assert_array_equal(
            est.passthrough_mask_, [True, True, True, True, False, False, False, False]
        )
        out = est.transform(X)
        np.testing.assert_array_equal(out[:, :4], X[:, :4])  # unchanged
        np.testing.assert_array_equal(out[:, 7], 0)  # constant column: middle state
        np.testing.assert_array_equal(out, mydisc_reference(X, X))
        # sparse input: the same rule from the stored entries plus the implicit zeros
        np.testing.assert_array_equal(
            MeanStdDiscretizer().fit(sp.csr_matrix(X)).passthrough_mask_, est.passthrough_mask_
        )

    @pytest.mark.parametrize("n_states,factor", [(3, 0.5), (3, 1.0), (5, 0.5)])
    def test_matches_reference_on_random_data(self, n_states, factor):
        rng = np.random.default_rng(n_states + int(10 * factor))
        X = np.round(rng.normal(size=(60, 6)), 2)  # coarse values: many exact edge hits
        X[:, 0] = rng.integers(0, 2, size=60)
        Xt = np.round(rng.normal(size=(40, 6)) * 1.3, 3)
        est = MeanStdDiscretizer(factor=factor, n_states=n_states).fit(X)
        np.testing.assert_array_equal(
            est.transform(Xt), mydisc_reference(X, Xt, n_states, factor)
        )


# ---------------------------------------------------------------------------
# LAIM
# ---------------------------------------------------------------------------


def laim_value(x, Y, boundaries, interval_total):
    """LAIM of a scheme from scratch: quanta matrix by loops, (1/I) Σ_r max_r² / M_{+r}."""
    edges = sorted(boundaries)
    n_int = len(edges) + 1
    quanta = np.zeros((Y.shape[1], n_int))
    patterns = np.zeros(n_int)
    for i, v in enumerate(x):
        r = sum(1 for b in edges if v > b)  # right-closed intervals
        patterns[r] += 1
        for l in range(Y.shape[1]):
            quanta[l, r] += Y[i, l]
    total = 0.0
    for r in range(n_int):
        m = patterns[r] if interval_total == "patterns" else quanta[:, r].sum()
        if m > 0:
            total += quanta[:, r].max() ** 2 / m
    return total / n_int


def laim_brute_force(x, Y, interval_total="patterns", max_intervals=None):
    vals = sorted(set(x.tolist()))
    candidates = [(a + b) / 2 for a, b in itertools.pairwise(vals)]
    chosen, best_global = [], 0.0
    while max_intervals is None or len(chosen) + 1 < max_intervals:
        scored = [(laim_value(x, Y, chosen + [c], interval_total), c)
                  for c in candidates if c not in chosen]
        if not scored:
            break
        top = max(v for v, _ in scored)
        value, cut = min(((v, c) for v, c in scored if v >= top - 1e-12 * abs(top)),
                         key=lambda t: t[1])
        if not value > best_global + 1e-12 * abs(best_global):
            break
        chosen.append(cut)
        best_global = value
    return sorted(chosen)


class TestLAIM:
    def test_hand_worked(self):
        # one label: cut 2.5 gives LAIM ((2²/2) + 0)/2 = 1, better than 2/3 for the other
        # cuts; no second cut improves it.
        X = np.array([[1.0], [2], [3], [4]])
        Y = np.array([[1], [1], [0], [0]])
        est = LAIMDiscretizer(interval_total="patterns").fit(X, Y)
        np.testing.assert_array_equal(est.bin_edges_[0], [1, 2.5, 4])
        np.testing.assert_array_equal(est.transform(X).ravel(), [0, 0, 1, 1])
        # right-closed intervals; out-of-range values to the end intervals
        np.testing.assert_array_equal(
            est.transform([[2.5], [2.6], [-5], [99]]).ravel(), [0, 1, 0, 1]
        )
        assert est.n_bins_[0] == 2

    def test_hand_worked_two_labels(self):
        # labels alternate in blocks: the greedy takes 2.5 (value 2), then 4.5 (value 7/3).
        X = np.array([[1.0], [2], [3], [4], [5], [6]])
        Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 0], [1, 0]])
        est = LAIMDiscretizer(interval_total="patterns").fit(X, Y)
        np.testing.assert_array_equal(est.bin_edges_[0], [1, 2.5, 4.5, 6])
        assert laim_value(X[:, 0], Y, [2.5, 4.5], "patterns") == pytest.approx(2.0)
        np.testing.assert_array_equal(est.transform(X).ravel(), [0, 0, 1, 1, 2, 2])

    @pytest.mark.parametrize("seed", range(6))
    @pytest.mark.parametrize("interval_total", ["patterns", "label_occurrences"])
    def test_matches_brute_force(self, seed, interval_total):
        rng = np.random.default_rng(seed)
        n, q = 24, 3
        X = np.column_stack([
            rng.integers(0, 8, size=n).astype(float),  # ties
            rng.normal(size=n),
            np.round(rng.normal(size=n), 1),
        ])
        Y = (rng.random((n, q)) < 0.4).astype(int)
        Y[: n // 2, 0] |= (X[: n // 2, 1] > 0).astype(int)  # some signal
        est = LAIMDiscretizer(interval_total=interval_total).fit(X, Y)
        for j in range(X.shape[1]):
            ref = laim_brute_force(X[:, j], Y, interval_total)
            np.testing.assert_allclose(est.bin_edges_[j][1:-1], ref)
        capped = LAIMDiscretizer(max_intervals=2, interval_total=interval_total).fit(X, Y)
        for j in range(X.shape[1]):
            ref = laim_brute_force(X[:, j], Y, interval_total, max_intervals=2)
            np.testing.assert_allclose(capped.bin_edges_[j][1:-1], ref)

    def test_no_labels_no_cut(self):
        est = LAIMDiscretizer().fit(np.array([[0.1], [0.2], [0.3]]), np.zeros((3, 2)))
        assert est.n_bins_[0] == 1
        np.testing.assert_array_equal(est.transform([[0.0], [0.25], [1.0]]).ravel(), [0, 0, 0])

    def test_needs_labels(self):
        with pytest.raises(ValueError, match="supervised"):
            LAIMDiscretizer().fit(np.array([[0.1], [0.2]]))

    def test_in_pipeline_with_labels(self):
        from skmlfs.learners import MLNB

        rng = np.random.default_rng(3)
        X = rng.normal(size=(80, 4))
        Y = (X[:, :2] > 0).astype(int)
        pipe = Pipeline([("disc", LAIMDiscretizer()), ("nb", MLNB())]).fit(X, Y)
        assert (pipe.predict(X) == Y).mean() > 0.9


# ---------------------------------------------------------------------------
# real data (emotions, yeast): levels, train-only fitting, agreement with data_dis
# ---------------------------------------------------------------------------


def _mulan_numeric(path, n_labels):
    import arff  # liac-arff, the test suite's reference parser

    with open(path) as fh:
        data = np.array(arff.load(fh)["data"], dtype=float)
    return data[:, :-n_labels], data[:, -n_labels:].astype(np.uint8)


def _same_partition(a, b):
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.mark.parametrize("name,q", [("emotions", 6), ("yeast", 14)])
def test_laim_real_data_and_data_dis_agreement(dataset_path, name, q):
    X, Y = _mulan_numeric(dataset_path(f"mulan/{name}/{name}.arff"), q)
    mat = scipy.io.loadmat(dataset_path(f"plcfs/{name}.mat"))
    np.testing.assert_array_equal(mat["answer"], Y)  # same pattern order as the .mat
    data_dis = mat["data_dis"]

    # fit on the first stored training split only; test data uses the training edges
    train = mat["sim_seq"][:, 0].astype(bool)
    est = LAIMDiscretizer().fit(X[train], Y[train])
    assert not est.passthrough_mask_.any()
    assert np.all(est.n_bins_ >= 2), "LAIM must cut every numeric feature at least once"
    Zte = est.transform(X[~train])
    for j in range(X.shape[1]):
        inner = est.bin_edges_[j][1:-1]
        np.testing.assert_array_equal(Zte[:, j], np.searchsorted(inner, X[~train, j], "left"))
        assert Zte[:, j].min() >= 0 and Zte[:, j].max() < est.n_bins_[j]

    # data_dis was computed once on all patterns: compare with LAIM fitted on all patterns
    lines = []
    for interval_total in ("patterns", "label_occurrences"):
        full = LAIMDiscretizer(interval_total=interval_total).fit(X, Y)
        Z = full.transform(X)
        same_levels = int(np.sum(full.n_bins_ == [len(np.unique(c)) for c in data_dis.T]))
        same_part = sum(_same_partition(Z[:, j], data_dis[:, j]) for j in range(X.shape[1]))
        lines.append(
            f"{name} LAIM({interval_total}) vs data_dis: same number of levels "
            f"{same_levels}/{X.shape[1]}, identical partition {same_part}/{X.shape[1]}"
        )
        assert np.all(full.n_bins_ >= 2)
    print("\n" + "\n".join(lines))
    # every data_dis column is a single threshold on the raw feature (levels 1 < 2)
    for j in range(X.shape[1]):
        lo, hi = X[data_dis[:, j] == 1, j], X[data_dis[:, j] == 2, j]
        assert lo.size == 0 or hi.size == 0 or lo.max() < hi.min()


# ---------------------------------------------------------------------------
# shared behaviour: pass-through, sparse, validation, estimator conventions
# ---------------------------------------------------------------------------


def _mixed(seed=0, n=50):
    rng = np.random.default_rng(seed)
    return np.column_stack([
        rng.integers(0, 2, size=n),  # binary: passes through ("auto")
        rng.normal(size=n),
        rng.integers(0, 5, size=n),  # integer with 5 values: discretized by default
        rng.uniform(size=n) * 10,
    ]).astype(float), (rng.random((n, 3)) < 0.5).astype(int)


@pytest.mark.parametrize("cls", [EqualWidthDiscretizer, EqualFrequencyDiscretizer,
                                 LAIMDiscretizer])
class TestPassThrough:
    def test_auto_rule(self, cls):
        X, Y = _mixed()
        est = _fit(cls(), X, Y)
        np.testing.assert_array_equal(est.passthrough_mask_, [True, False, False, False])
        out = est.transform(X)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out[:, 0], X[:, 0])
        assert est.bin_edges_[0] is None and est.n_bins_[0] == 2
        # raising the threshold keeps the 5-valued integer column as well
        est5 = _fit(cls(max_discrete_values=5), X, Y)
        np.testing.assert_array_equal(est5.passthrough_mask_, [True, False, True, False])
        np.testing.assert_array_equal(est5.transform(X)[:, 2], X[:, 2])

    def test_explicit_mask_and_indices(self, cls):
        X, Y = _mixed()
        a = _fit(cls(categorical_features=[2]), X, Y)
        b = _fit(cls(categorical_features=np.array([False, False, True, False])), X, Y)
        np.testing.assert_array_equal(a.passthrough_mask_, [False, False, True, False])
        np.testing.assert_array_equal(a.transform(X), b.transform(X))
        none = _fit(cls(categorical_features=None), X, Y)
        assert not none.passthrough_mask_.any()
        with pytest.raises(ValueError, match="integers"):
            _fit(cls(categorical_features=[1]), X, Y)  # a real-valued column
        with pytest.raises(ValueError, match="length"):
            _fit(cls(categorical_features=[True, False]), X, Y)

    def test_sparse(self, cls):
        rng = np.random.default_rng(2)
        B = sp.random(40, 30, density=0.1, format="csr", random_state=3)
        B.data[:] = 1.0
        Y = (rng.random((40, 2)) < 0.5).astype(int)
        est = _fit(cls(), B, Y)
        out = est.transform(B)
        assert sp.issparse(out) and out.dtype == np.int32
        assert (out != B).nnz == 0
        # one numeric column: dense output, the same as for dense input
        X, Y = _mixed()
        dense = _fit(cls(), X, Y).transform(X)
        np.testing.assert_array_equal(_fit(cls(), sp.csr_matrix(X), Y).transform(
            sp.csc_matrix(X)), dense)

    def test_non_integer_in_passthrough_at_transform(self, cls):
        X, Y = _mixed()
        est = _fit(cls(), X, Y)
        Xb = X.copy()
        Xb[3, 0] = 0.5
        with pytest.raises(ValueError, match="column 0"):
            est.transform(Xb)


def test_meanstd_sparse_all_skipped_stays_sparse():
    B = sp.random(20, 10, density=0.2, format="csc", random_state=0)
    B.data[:] = 1.0
    out = MeanStdDiscretizer().fit(B).transform(B)
    assert sp.issparse(out) and out.dtype == np.float64
    assert (out != B).nnz == 0


@pytest.mark.parametrize("cls", ALL)
def test_fit_on_train_only_and_conventions(cls):
    X, Y = _mixed(4, n=60)
    Xtr, Xte, Ytr = X[:40], X[40:] * 3, Y[:40]
    est = _fit(cls(), Xtr, Ytr)
    refit = _fit(cls(), X, Y)
    edges_train = [e for e in est.bin_edges_ if e is not None]
    # transforming new data never changes the edges learned from the training data
    est.transform(Xte)
    for a, b in zip(edges_train, [e for e in est.bin_edges_ if e is not None], strict=True):
        np.testing.assert_array_equal(a, b)
    assert any(
        not np.array_equal(a, b)
        for a, b in zip(edges_train, [e for e in refit.bin_edges_ if e is not None], strict=True)
    )
    # clone, feature names, input not modified
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "bin_edges_")
    before = X.copy()
    _fit(cls(), X, Y).transform(X)
    np.testing.assert_array_equal(X, before)
    assert list(est.get_feature_names_out()) == ["x0", "x1", "x2", "x3"]


@pytest.mark.parametrize("cls", ALL)
def test_validation(cls):
    X, Y = _mixed()
    Xn = X.copy()
    Xn[0, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _fit(cls(), Xn, Y)
    est = _fit(cls(), X, Y)
    with pytest.raises(ValueError, match="NaN"):
        est.transform(Xn)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :3])
    with pytest.raises(ValueError, match="categorical_features"):
        _fit(cls(categorical_features="binary"), X, Y)


@pytest.mark.parametrize(
    "est, name",
    [(EqualWidthDiscretizer(n_bins=1), "n_bins"),
     (EqualFrequencyDiscretizer(n_bins=2.5), "n_bins"),
     (EqualWidthDiscretizer(max_discrete_values=-1), "max_discrete_values"),
     (MeanStdDiscretizer(factor=0), "factor"),
     (MeanStdDiscretizer(factor=float("inf")), "factor"),
     (MeanStdDiscretizer(n_states=4), "n_states"),
     (LAIMDiscretizer(max_intervals=0), "max_intervals"),
     (LAIMDiscretizer(interval_total="rows"), "interval_total")],
)
def test_parameter_validation(est, name):
    # _parameter_constraints, checked by scikit-learn when fit starts: the message names
    # the parameter and the estimator
    X, Y = _mixed()
    with pytest.raises(ValueError, match=f"'{name}' parameter of {type(est).__name__}"):
        _fit(est, X, Y)


def test_with_categorical_validates_the_discretizer_it_resolves():
    # with_categorical resolves categorical_features before any fit: a bad value must
    # not pass as "auto"
    X, _ = _mixed()
    with pytest.raises(ValueError, match="'categorical_features' parameter"):
        with_categorical(EqualWidthDiscretizer(categorical_features="binary"), [0], X)


# ---------------------------------------------------------------------------
# declared nominal (categorical) columns
# ---------------------------------------------------------------------------


def _with_nominal(seed=5, n=60):
    """Columns: binary, normal, a 3-valued nominal code {0, 1, 2}, uniform."""
    rng = np.random.default_rng(seed)
    nominal = np.tile([0.0, 1.0, 2.0], n // 3)
    rng.shuffle(nominal)
    X = np.column_stack(
        [rng.integers(0, 2, size=n), rng.normal(size=n), nominal, rng.uniform(size=n) * 10]
    ).astype(float)
    Y = np.column_stack([nominal == 2, rng.random(n) < 0.4]).astype(int)
    return X, Y


@pytest.mark.parametrize("cls", ALL)
def test_declared_nominal_column_passes_through_unchanged(cls):
    X, Y = _with_nominal()
    # the gap: by its "auto" rule a 3-valued integer column is binned like a number
    auto = _fit(cls(), X, Y)
    assert not auto.passthrough_mask_[2]
    # declared categorical (indices or mask): its codes come out exactly as they went in
    for cf in ([2], np.array([False, False, True, False])):
        est = _fit(cls(categorical_features=cf), X, Y)
        np.testing.assert_array_equal(est.passthrough_mask_, [False, False, True, False])
        out = est.transform(X)
        np.testing.assert_array_equal(out[:, 2], X[:, 2])
        assert sorted(np.unique(out[:, 2])) == [0, 1, 2]
        assert est.n_bins_[2] == 3 and est.bin_edges_[2] is None
        # unseen data: the code is copied, not mapped to a bin
        np.testing.assert_array_equal(est.transform(X[::-1])[:, 2], X[::-1, 2])
        # the numeric columns are binned exactly as without the declaration
        np.testing.assert_array_equal(out[:, [1, 3]], auto.transform(X)[:, [1, 3]])


@pytest.mark.parametrize("cls", ALL)
def test_with_categorical_adds_to_the_auto_rule(cls):
    from skmlfs.discretize._base import with_categorical

    X, Y = _with_nominal()
    proto = cls()
    est = with_categorical(proto, [2], X)
    assert est is not proto and proto.categorical_features == "auto"  # a clone
    est = _fit(est, X, Y)
    # the binary column still passes by the "auto" rule, the nominal one by declaration
    np.testing.assert_array_equal(est.passthrough_mask_, [True, False, True, False])
    out = est.transform(X)
    np.testing.assert_array_equal(out[:, [0, 2]], X[:, [0, 2]])
    np.testing.assert_array_equal(out[:, [1, 3]], _fit(cls(), X, Y).transform(X)[:, [1, 3]])
    # nothing declared: a plain clone with the discretizer's own rule
    assert with_categorical(proto, None, X).get_params() == proto.get_params()


def test_with_categorical_foreign_transformer_warns():
    from skmlfs.discretize._base import with_categorical

    X, _ = _with_nominal()
    kb = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform")
    with pytest.warns(UserWarning, match=r"KBinsDiscretizer.*1 nominal column\(s\) \[2\]"):
        out = with_categorical(kb, [2], X)
    assert out.get_params() == kb.get_params()


def test_discretize_features_keeps_nominal_columns():
    from skmlfs.selection._base import discretize_features

    X, Y = _with_nominal()
    Xd = discretize_features("auto", X, Y, categorical_features=[2])
    laim = LAIMDiscretizer().fit(X, Y).transform(X)
    np.testing.assert_array_equal(Xd[:, [0, 2]], X[:, [0, 2]])
    np.testing.assert_array_equal(Xd[:, [1, 3]], laim[:, [1, 3]])
    assert not np.array_equal(laim[:, 2], X[:, 2])  # what "auto" alone does to it
    # integer-valued data is still used as it is; a transformer gets the columns too
    Xi = X[:, [0, 2]]
    assert discretize_features("auto", Xi, Y, categorical_features=[1]) is Xi
    Xw = discretize_features(EqualWidthDiscretizer(n_bins=4), X, Y, categorical_features=[2])
    np.testing.assert_array_equal(Xw[:, 2], X[:, 2])
    # a selector fitted on the pre-discretized data sees the nominal codes
    sel = SCLS(n_features_to_select=1, discretizer=None).fit(Xd, Y)
    assert sel.selection_order_.tolist() == [2]  # label 0 is "code == 2"


def test_prepare_split_and_nominal_columns():
    from skmlfs.datasets import MultiLabelDataset
    from skmlfs.experiments._execute import nominal_columns, prepare_split

    X, Y = _with_nominal()
    ds = MultiLabelDataset(
        X=X, Y=Y.astype(np.uint8), feature_names=list("abcd"), label_names=["y0", "y1"],
        feature_types=["numeric", "numeric", "nominal", "numeric"],
    )
    assert nominal_columns(ds) == (2,)
    assert nominal_columns((X, Y)) is None
    train, test = np.arange(40), np.arange(40, 60)
    Xtr, _, Xte, _, _ = prepare_split(X, Y, train, test, "auto", categorical_features=(2,))
    np.testing.assert_array_equal(Xtr[:, 2], X[train, 2])
    np.testing.assert_array_equal(Xte[:, 2], X[test, 2])
    ref = LAIMDiscretizer().fit(X[train], Y[train])
    np.testing.assert_array_equal(Xte[:, [1, 3]], ref.transform(X[test])[:, [1, 3]])
    Xtr0 = prepare_split(X, Y, train, test, "auto")[0]
    assert not np.array_equal(Xtr0[:, 2], X[train, 2])


class _Spy(SCLS):
    """SCLS that records the training data it is fitted on."""

    seen: list = []

    def fit(self, X, Y):
        _Spy.seen.append(np.array(X))
        return super().fit(X, Y)


def test_evaluate_passes_the_nominal_columns_of_a_dataset():
    from skmlfs.datasets import MultiLabelDataset
    from skmlfs.experiments import evaluate

    X, Y = _with_nominal()
    ds = MultiLabelDataset(
        X=X, Y=Y.astype(np.uint8), feature_names=list("abcd"), label_names=["y0", "y1"],
        feature_types=["numeric", "numeric", "nominal", "numeric"],
    )
    train, test = np.arange(45), np.arange(45, 60)
    _Spy.seen.clear()
    # discretizing before the selector (not evaluate's default, which passes X as given)
    evaluate(ds, {"spy": _Spy()}, splits=[(train, test)], n_features_to_select=2, progress=False,
             discretizer="auto")
    ds.feature_types[2] = "numeric"  # undeclared: binned like the numeric columns
    evaluate(ds, {"spy": _Spy()}, splits=[(train, test)], n_features_to_select=2, progress=False,
             discretizer="auto")
    seen, undeclared = _Spy.seen
    np.testing.assert_array_equal(seen[:, 2], X[train, 2])
    assert not np.array_equal(undeclared[:, 2], X[train, 2])
    np.testing.assert_array_equal(
        seen[:, 1], LAIMDiscretizer().fit(X[train], Y[train]).transform(X[train])[:, 1]
    )


@pytest.mark.parametrize("cls_name", ["SCLS", "AMI", "MLMIM"])
def test_selector_discretizes_with_its_categorical_features(cls_name):
    """An information-theoretic selector told the nominal columns (categorical_features)
    discretizes in its own fit exactly as the former route did — the data discretized
    before it with those columns passed through, then used as codes (discretizer=None)."""
    from skmlfs import selection
    from skmlfs.discretize import discretize_features

    cls = getattr(selection, cls_name)
    X, Y = _with_nominal(n=90)
    own = cls(n_features_to_select=3, categorical_features=[2]).fit(X, Y)
    disc = own.get_params()["discretizer"]
    if cls_name == "MLMIM":  # the MLFS family's own "auto": mean ± 0.5 std
        from skmlfs.selection._mlfs import _meanstd_default

        disc = _meanstd_default(disc)
    Xd = discretize_features(disc, X, Y, categorical_features=[2])
    assert not np.array_equal(discretize_features(disc, X, Y)[:, 2], X[:, 2])  # it matters
    former = cls(n_features_to_select=3, discretizer=None).fit(Xd, Y)
    np.testing.assert_array_equal(own.selection_order_, former.selection_order_)
    np.testing.assert_array_equal(own.scores_, former.scores_)
    mask = cls(n_features_to_select=3, categorical_features=[False, False, True, False])
    np.testing.assert_array_equal(mask.fit(X, Y).selection_order_, own.selection_order_)
    with pytest.raises(ValueError):  # a mask of another length, even for integer data
        cls(categorical_features=[True, False, True]).fit(X[:, [0, 2]], Y)


def test_experiment_hands_a_selector_the_nominal_columns():
    """categorical_features = "nominal" in a selector's table: the engine passes X as given
    (discretizer "none") and the selector discretizes it with the nominal columns kept."""
    from skmlfs.datasets import MultiLabelDataset
    from skmlfs.experiments import MethodSpec, evaluate

    X, Y = _with_nominal(n=90)
    ds = MultiLabelDataset(
        X=X, Y=Y.astype(np.uint8), feature_names=list("abcd"), label_names=["y0", "y1"],
        feature_types=["numeric", "numeric", "nominal", "numeric"],
    )
    train, test = np.arange(60), np.arange(60, 90)
    spec = MethodSpec("scls", "scls", {"categorical_features": "nominal"})
    res = evaluate(ds, [spec], splits=[(train, test)], n_features_to_select=3, progress=False)
    ref = SCLS(n_features_to_select=3, categorical_features=[2]).fit(X[train], Y[train])
    assert res["features"].iloc[0] == ref.selection_order_.tolist()


def test_binning_docstrings_carry_their_shared_parameters():
    # the two binnings share one parameter description (filled in when the class is made)
    for cls in (EqualWidthDiscretizer, EqualFrequencyDiscretizer):
        assert "%(parameters)s" not in cls.__doc__
        for name in ("n_bins : int", "categorical_features :", "max_discrete_values : int"):
            assert name in cls.__doc__, (cls.__name__, name)


@pytest.mark.parametrize("cls_name", ["AntTD", "GeneticSelector", "MemeticSelector"])
def test_wrapper_and_ant_selectors_discretize_with_their_categorical_features(cls_name):
    """The evolutionary searches and Ant-TD take categorical_features too: fitted on the
    raw data with the nominal columns named, they select what they select on the data
    discretized before them with those columns passed through (discretizer=None)."""
    from skmlfs import selection
    from skmlfs.discretize import discretize_features
    from skmlfs.learners import MLNB

    cls = getattr(selection, cls_name)
    X, Y = _with_nominal(n=90)
    kw = {"discretizer": "auto", "random_state": 0}
    if cls_name != "AntTD":
        kw.update(learner=MLNB(), population_size=6, max_evaluations=24)
    Xd = discretize_features("auto", X, Y, categorical_features=[2])
    assert not np.array_equal(discretize_features("auto", X, Y)[:, 2], X[:, 2])  # it matters
    own = cls(n_features_to_select=2, categorical_features=[2], **kw).fit(X, Y)
    former = cls(n_features_to_select=2, **{**kw, "discretizer": None})
    if cls_name == "AntTD":  # relevance and redundancy read raw values; I(f; y) the symbols
        from skmlfs.info import DiscreteData, InfoCache

        mi = InfoCache(DiscreteData.from_array(Xd), DiscreteData.from_array(Y)).mi_xy
        top = np.asarray(mi, dtype=float).max(axis=1)
        want = (top - top.min()) / (top.max() - top.min())
        np.testing.assert_allclose(own.initial_pheromone_, want, rtol=0, atol=1e-12)
        pher = cls(n_features_to_select=2, **kw).fit(X, Y).initial_pheromone_
        assert not np.array_equal(own.initial_pheromone_, pher)
    else:
        np.testing.assert_array_equal(own.selection_order_, former.fit(Xd, Y).selection_order_)
    with pytest.raises(ValueError, match="categorical_features"):
        cls(n_features_to_select=2, categorical_features=[True, False], **kw).fit(X, Y)
