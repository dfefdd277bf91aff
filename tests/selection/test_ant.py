"""MLACO and Ant-TD (docs/methods/ant.md): hand-worked heuristics, a per-ant loop reference
of the colony on the same random stream, determinism, sparse input, real data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from skmlfs.selection import MLACO, AntTD, RandomSelection

# --------------------------------------------------------------------------- references


def _pearson(a, b):
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    am, bm = a.mean(), b.mean()
    num = sum((x - am) * (y - bm) for x, y in zip(a, b, strict=True))
    den = math.sqrt(sum((x - am) ** 2 for x in a)) * math.sqrt(sum((y - bm) ** 2 for y in b))
    return float("nan") if den == 0 else abs(num) / den


def _cosine(a, b):
    num = sum(x * y for x, y in zip(a, b, strict=True))
    den = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return float("nan") if den == 0 else abs(num) / den


def _mi(a, b):
    """Plug-in I(a; b) in bits, by counting pairs."""
    n = len(a)
    pa, pb, pab = {}, {}, {}
    for x, y in zip(a, b, strict=True):
        pa[x] = pa.get(x, 0) + 1
        pb[y] = pb.get(y, 0) + 1
        pab[(x, y)] = pab.get((x, y), 0) + 1
    return sum(c / n * math.log2(c * n / (pa[x] * pb[y])) for (x, y), c in pab.items())


def _maxlab(fn, X, Y):
    out = []
    for j in range(X.shape[1]):
        vals = [fn(X[:, j], Y[:, l]) for l in range(Y.shape[1])]
        vals = [v for v in vals if not math.isnan(v)]
        out.append(max(vals) if vals else 0.0)
    return np.array(out)


def _minmax(v):
    lo, hi = min(v), max(v)
    return np.ones(len(v)) if hi <= lo else np.array([(x - lo) / (hi - lo) for x in v])


def _redundancy(X):
    d = X.shape[1]
    R = np.empty((d, d))
    for i in range(d):
        for j in range(d):
            r = _pearson(X[:, i], X[:, j])
            R[i, j] = 1.0 if math.isnan(r) else (1e-4 if r == 0 else min(r, 1.0))
    return R


def loop_colony(kind, X, Y, *, seed, n_ants, n_cycles, decay, **p):
    """The equations of docs/methods/ant.md, one ant and one feature at a time."""
    X = np.asarray(X, float)
    n, d = X.shape
    red = _redundancy(X)
    if kind == "mlaco":
        tau = _minmax(_maxlab(_cosine, X, Y))
        rel = _maxlab(_pearson, X, Y)
        off = 1
    else:
        rel = _minmax(_maxlab(_cosine, X, Y))
        Xr = np.sign(X) * np.floor(np.abs(X) + 0.5)
        tau = _minmax(_maxlab(_mi, Xr, Y))
        V = rel.copy()
        off = 0
    rng = np.random.RandomState(seed)
    m = min(n_ants, d)
    history = [tau.copy()]
    for _ in range(n_cycles):
        start = rng.permutation(d)[:m]
        if kind == "mlaco":
            nf = [int(min(max(math.floor(p["path_fraction"] * d), 1), d - 1))] * m
        else:
            lo = int(min(max(math.floor(p["min_path_fraction"] * d), 1), d - 1))
            hi = max(lo, int(min(max(math.floor(p["max_path_fraction"] * d), 1), d - 1)))
            nf = list(rng.randint(lo, hi + 1, size=m))
        u, v = [], []
        for _t in range(max(nf)):
            u.append(rng.random_sample(m))
            v.append(rng.random_sample(m))
        counts = np.zeros(d)
        copies = []
        for a in range(m):
            cur = int(start[a])
            visited = {cur}
            Va = V.copy() if kind != "mlaco" else None
            for t in range(nf[a]):
                w = []
                for j in range(d):
                    if j in visited:
                        w.append(0.0)
                    elif kind == "mlaco":
                        w.append(red[cur, j] ** (-p["beta"]) * (tau[j] * rel[j]))
                    else:
                        w.append(Va[j] * tau[j])
                q = (1 - (t + off) / nf[a]) ** 0.7
                unvisited = [j for j in range(d) if j not in visited]
                if u[t][a] > q:
                    nxt = max(unvisited, key=lambda j: (w[j], -j))
                else:
                    total = 0.0
                    cum = []
                    for x in w:
                        total += x
                        cum.append(total)
                    if total > 0:
                        nxt = next(j for j in range(d) if cum[j] > v[t][a] * total)
                    else:
                        nxt = unvisited[int(math.floor(v[t][a] * len(unvisited)))]
                if kind != "mlaco":
                    sim = red[cur, nxt]
                    if p["reward"] == "code":
                        r = (1 + sim) * rel[nxt]
                    else:
                        r = rel[nxt] / (1 + sim)
                    Va[cur] += p["learning_rate"] * (r + p["discount"] * Va[nxt] - Va[cur])
                visited.add(nxt)
                counts[nxt] += 1
                cur = nxt
            copies.append(Va)
        if kind != "mlaco":
            V = np.mean(copies, axis=0)
        if counts.sum() > 0:
            tau = (1 - decay) * tau + counts / counts.sum()
        history.append(tau.copy())
    return np.array(history), (None if kind == "mlaco" else V)


def _tiny():
    X = np.array([[1, 1, 2], [0, 1, 0], [1, 0, 2], [0, 0, 1]], dtype=float)
    Y = np.array([[1, 1], [0, 1], [1, 0], [0, 1]])
    return X, Y


# --------------------------------------------------------------------------- tests


def test_hand_worked_heuristics():
    # f0 = y0; f1 = [1,1,0,0]; f2 = [2,0,2,1]; y1 = [1,1,0,1]
    # max |cos|: f0: cos(f0,y0) = 1; f1: 2/(sqrt2 sqrt3); f2: 4/(3 sqrt2)
    # max |Pearson|: f0: 1; f1: 0.5/sqrt(0.75) = 1/sqrt3; f2: 1.5/sqrt(2.75)
    # max MI (bits): f0: H(y0) = 1; f1: 1 + H(y1) - 1.5 (the smallest); f2: I(f2; y0) = 1
    X, Y = _tiny()
    c = [1.0, 2 / math.sqrt(6), 4 / (3 * math.sqrt(2))]
    mlaco = MLACO(2, n_cycles=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(
        mlaco.initial_pheromone_, [1.0, 0.0, (c[2] - c[1]) / (1 - c[1])], atol=1e-12
    )
    np.testing.assert_allclose(
        mlaco.relevance_, [1.0, 1 / math.sqrt(3), 1.5 / math.sqrt(2.75)], atol=1e-12
    )
    td = AntTD(2, n_cycles=1, random_state=0).fit(X, Y)
    np.testing.assert_allclose(td.relevance_, mlaco.initial_pheromone_, atol=1e-12)
    np.testing.assert_allclose(td.initial_values_, td.relevance_)
    np.testing.assert_allclose(td.initial_pheromone_, [1.0, 0.0, 1.0], atol=1e-12)


def test_one_cycle_by_hand():
    # d = 3, NF = floor(3/2) = 1: each of the 3 ants makes one (exploiting: q = 0) move
    # to the more desirable of the two other features; tau <- 0.9 tau + counts / 3
    X, Y = _tiny()
    sel = MLACO(2, n_ants=3, n_cycles=1, random_state=0).fit(X, Y)
    tau0, rel = sel.initial_pheromone_, sel.relevance_
    red = _redundancy(X)
    counts = np.zeros(3)
    for start in range(3):
        others = [j for j in range(3) if j != start]
        w = [tau0[j] * rel[j] / red[start, j] for j in others]
        counts[others[int(np.argmax(w))]] += 1
    np.testing.assert_allclose(sel.scores_, 0.9 * tau0 + counts / 3, atol=1e-12)


@pytest.mark.parametrize("reward", ["corrected", "code"])
def test_ant_td_matches_loop_reference(reward):
    rng = np.random.default_rng(3)
    X = np.round(rng.random((30, 14)) * 3, 1)
    X[:, 5] = 0.0  # a constant feature
    Y = (rng.random((30, 3)) < 0.4).astype(int)
    Y[:, 0] = X[:, 0] > 1.5
    params = dict(
        n_ants=6,
        n_cycles=4,
        decay=0.2,
        learning_rate=0.5,
        discount=0.8,
        min_path_fraction=1 / 8,
        max_path_fraction=1 / 3,
        reward=reward,
    )
    sel = AntTD(3, random_state=7, **params).fit(X, Y)
    hist, V = loop_colony("ant_td", X, Y, seed=7, **params)
    np.testing.assert_allclose(sel.pheromone_history_, hist, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sel.values_, V, rtol=1e-12, atol=1e-12)


def test_mlaco_matches_loop_reference():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 12))
    X[:, 3] = X[:, 2]  # a duplicate: redundancy 1
    Y = (X[:, :3] + rng.normal(size=(25, 3)) > 0).astype(int)
    params = dict(n_ants=5, n_cycles=5, decay=0.1, path_fraction=0.5, beta=1.0)
    sel = MLACO(3, random_state=11, **params).fit(X, Y)
    hist, _ = loop_colony("mlaco", X, Y, seed=11, **params)
    np.testing.assert_allclose(sel.pheromone_history_, hist, rtol=1e-12, atol=1e-12)
    assert list(sel.selection_order_) == list(np.argsort(-hist[-1], kind="stable"))


@pytest.mark.parametrize("cls", [MLACO, AntTD])
def test_seeded_and_sparse(cls):
    rng = np.random.default_rng(5)
    X = (rng.random((40, 20)) < 0.3) * rng.integers(1, 4, (40, 20))
    Y = (rng.random((40, 4)) < 0.3).astype(int)
    a = cls(5, n_cycles=6, random_state=1).fit(X, Y)
    b = cls(5, n_cycles=6, random_state=1).fit(X, Y)
    c = cls(5, n_cycles=6, random_state=2).fit(X, Y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert not np.array_equal(a.pheromone_history_, c.pheromone_history_)
    s = cls(5, n_cycles=6, random_state=1).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(s.pheromone_history_, a.pheromone_history_, rtol=1e-10)
    # the ranking is a permutation of all features; smaller budgets are prefixes
    assert sorted(a.selection_order_) == list(range(20))
    assert np.flatnonzero(a.set_params(n_features_to_select=3).get_support()).tolist() == sorted(
        a.selection_order_[:3]
    )


@pytest.mark.parametrize("cls", [MLACO, AntTD])
def test_total_pheromone_converges_to_one_over_decay(cls):
    # tau_t = (1 - rho) tau_{t-1} + c / sum(c): the total follows the geometric recursion
    rng = np.random.default_rng(6)
    X = rng.normal(size=(30, 16))
    Y = (X[:, :2] > 0).astype(int)
    sel = cls(4, n_cycles=12, random_state=0).fit(X, Y)
    tot = sel.pheromone_history_.sum(axis=1)
    rho = sel.decay
    np.testing.assert_allclose(tot[1:], (1 - rho) * tot[:-1] + 1, rtol=1e-12)
    gap = np.abs(tot - 1 / rho)
    assert np.all(gap[1:] <= gap[:-1] + 1e-12)  # monotone convergence to 1/rho


def test_memetic_paper_constants_are_ant_td_defaults():
    # the memetic paper's "MLACO": decay 0.2, learning rate 0.5, discount 0.8
    p = AntTD().get_params()
    assert (p["decay"], p["learning_rate"], p["discount"]) == (0.2, 0.5, 0.8)


def test_reward_variants_differ_and_bad_paths_refused():
    X, Y = _tiny()
    X = np.hstack([X, X * 2 + 1, X[:, ::-1]])
    Y = np.hstack([Y, Y[:, ::-1]])
    a = AntTD(2, n_ants=4, random_state=0, max_path_fraction=0.5).fit(X, Y)
    b = AntTD(2, n_ants=4, random_state=0, max_path_fraction=0.5, reward="code").fit(X, Y)
    assert not np.allclose(a.values_, b.values_)
    with pytest.raises(ValueError, match="min_path_fraction"):
        AntTD(min_path_fraction=0.5, max_path_fraction=0.1).fit(X, Y)


# --------------------------------------------------------------------------- real data


def _emotions(dataset_path):
    from skmlfs.datasets import load

    ds = load(dataset_path("mulan/emotions/emotions.arff"))
    return np.asarray(ds.X, float), np.asarray(ds.Y)


def test_emotions_beats_random_selection(dataset_path):
    from skmlfs.learners import MLkNN
    from skmlfs.metrics import ranking_loss

    X, Y = _emotions(dataset_path)
    losses: dict[str, list[float]] = {"mlaco": [], "ant_td": [], "random": []}
    for s in range(5):
        p = np.random.RandomState(s).permutation(len(X))
        tr, te = p[:400], p[400:]
        for name, sel in [
            ("mlaco", MLACO(10, random_state=s)),
            ("ant_td", AntTD(10, random_state=s)),
            ("random", RandomSelection(10, random_state=s)),
        ]:
            f = sel.fit(X[tr], Y[tr]).get_support()
            model = MLkNN(k=10).fit(X[tr][:, f], Y[tr])
            losses[name].append(ranking_loss(Y[te], model.predict_proba(X[te][:, f])))
    assert np.mean(losses["mlaco"]) < np.mean(losses["random"])
    assert np.mean(losses["ant_td"]) < np.mean(losses["random"])


def test_emotions_ant_td_pheromone_settles(dataset_path):
    # ACO has no objective; its pheromone, normalised, changes less and less as the TD
    # values and visit frequencies settle (averaged over seeds, not a per-run guarantee)
    X, Y = _emotions(dataset_path)
    early, late = [], []
    for s in range(3):
        h = AntTD(10, random_state=s).fit(X, Y).pheromone_history_
        h = h / h.sum(axis=1, keepdims=True)
        ch = np.abs(np.diff(h, axis=0)).sum(axis=1)
        early.append(ch[:5].mean())
        late.append(ch[-5:].mean())
    assert np.mean(late) < np.mean(early)


@pytest.mark.parametrize("cls", [MLACO, AntTD])
def test_same_selection_whatever_the_blas_threads(cls):
    """The colony's products run on one BLAS thread: a serial run (all threads) and an
    engine worker (one thread) give the same pheromone to the last bit. Without it, the
    blocked sums of a two-thread product differed in their last bits and sent the seeded
    colony elsewhere (430 of 500 positions on corel16k)."""
    from threadpoolctl import threadpool_limits

    from skmlfs.selection._ant import abs_correlation, feature_label_cosine

    rng = np.random.default_rng(5)
    X = rng.random((1500, 300)) * (rng.random((1500, 300)) < 0.3)
    Y = (X[:, :20] + rng.random((1500, 20)) > 0.6).astype(int)
    got = []
    for threads in (1, 2, 4):
        with threadpool_limits(threads):
            est = cls(n_features_to_select=30, n_cycles=5, random_state=0).fit(X, Y)
            got.append((est.scores_, abs_correlation(X), feature_label_cosine(X, Y)))
    for other in got[1:]:
        for a, b in zip(got[0], other, strict=True):
            np.testing.assert_array_equal(a, b)
