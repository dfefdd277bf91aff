"""Neighbour graphs shared by the cells of one task (issue #14: the ReliefF-ML grid).

The cells of one (dataset, split, selector) task that evaluate lazy learners on the same
features would each search the same neighbours again: ML-kNN and DML-kNN with k = 5, 10,
15, plain and with ReliefF-ML feature weights ("-WF", Reyes et al. 2013). The neighbours
depend only on the training/test rows, the HEOM geometry (categorical features, feature
weights, normalization) and k, and the k nearest are the first k entries of the
``k_max`` nearest (ties → lower index, :func:`~skmlfs.neighbors.heom_kneighbors_graph`).
So a task computes, per distinct geometry, one train–train and one test–train graph for
the largest k of its cells, and fits every such learner with ``metric="precomputed"`` on
it: the same neighbours, hence the same predictions, as the learner's own search.

:func:`fit_predict` is the per-cell fit and prediction of :mod:`._execute`; learners it
cannot share a graph for (tuned searches, MLC-WkNN, which needs distances between
neighbours, any other estimator) are fitted as they are, and predict once with
``predict_with_proba`` when they have it and both outputs are needed.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.base import clone

from .._ids import array_digest
from ..learners import DMLkNN, MLkNN
from ..model_selection import WeightedLearner
from ..neighbors import heom_kneighbors_graph

__all__ = ["NeighbourGraphs", "fit_predict"]


def _graph_learner(est: Any) -> tuple[Any, Any] | None:
    """``(weighted wrapper or None, lazy learner)`` when ``est`` can use a shared graph."""
    wrapper = None
    inner = est
    if isinstance(est, WeightedLearner):
        if est.weights_param != "feature_weights":
            return None
        wrapper, inner = est, est.learner
    # exact classes: a subclass may use the neighbours differently
    if type(inner) not in (MLkNN, DMLkNN):
        return None
    if getattr(inner, "metric", None) not in ("heom", "euclidean"):
        return None
    if wrapper is None and inner.feature_weights is not None:
        return None  # fixed weights: rare, left to the learner's own search
    return wrapper, inner


class NeighbourGraphs:
    """Per-task cache of HEOM neighbour graphs (train–train, test–train).

    Parameters
    ----------
    k_max : int
        Neighbours stored per row: the largest k of the task's lazy learners.
    """

    def __init__(self, k_max: int):
        self.k_max = int(k_max)
        self._graphs: dict[tuple, tuple[Any, Any]] = {}
        self.seconds = 0.0
        self.n_built = 0

    @classmethod
    def for_learners(cls, learners: Iterable[Any]) -> NeighbourGraphs | None:
        """A cache sized for ``learners`` (built estimators), or ``None`` when fewer than
        two of them could share a graph (nothing to gain)."""
        ks = [int(g[1].k) for g in map(_graph_learner, learners)
              if g is not None and _valid_k(g[1].k)]
        if len(ks) < 2:
            return None
        return cls(max(ks))

    @classmethod
    def for_cells(cls, cells: Iterable[Any], seed: Any = None) -> NeighbourGraphs | None:
        """:meth:`for_learners` of the cells' learners (a learner that cannot be built
        here is left out; its cell reports the error itself)."""
        built = []
        for c in cells:
            try:
                built.append(c.learner.build(random_state=seed))
            except Exception:  # noqa: BLE001 — the cell itself raises it, with context
                continue
        return cls.for_learners(built)

    def get(self, A: Any, B: Any, key: tuple, cat: Any, weights: Any, normalize: bool,
            k: int) -> tuple[Any, Any, float, float]:
        """``(train graph, test graph, seconds train, seconds test)`` (0 s when cached)."""
        hit = self._graphs.get(key)
        if hit is not None and _stored(hit[0]) >= k:
            return hit[0], hit[1], 0.0, 0.0
        kk = max(k, min(self.k_max, A.shape[0] - 1))
        kw = {"categorical_features": cat, "feature_weights": weights, "n_neighbors": kk,
              "normalize": normalize}
        t0 = time.perf_counter()
        Gtr = heom_kneighbors_graph(A, **kw)
        t1 = time.perf_counter()
        Gte = heom_kneighbors_graph(B, A, ranges_from=A, **kw)
        t2 = time.perf_counter()
        self._graphs[key] = (Gtr, Gte)
        self.seconds += t2 - t0
        self.n_built += 1
        return Gtr, Gte, t1 - t0, t2 - t1


def _valid_k(k: Any) -> bool:
    return isinstance(k, numbers.Integral) and not isinstance(k, bool) and k > 0


def _stored(G: Any) -> int:
    return int(G.indptr[1] - G.indptr[0]) if G.shape[0] else 0


def fit_predict(
    learner: Any, A: Any, Ytr: np.ndarray, B: Any, needs: set[str],
    graphs: NeighbourGraphs | None = None, feats: np.ndarray | None = None,
) -> tuple[Any, Any, float, float]:
    """Fit ``learner`` on ``(A, Ytr)`` and predict ``B``: ``(pred, score, fit s, predict s)``.

    ``pred``/``score`` are ``None`` unless ``"pred"``/``"score"`` is in ``needs``. With
    ``graphs`` (the task's cache) and a lazy learner it can serve, the neighbours come
    from the shared graph (``feats``, the selected columns, is part of its key).
    """
    g = _graph_learner(learner) if graphs is not None else None
    if g is not None and not (_valid_k(g[1].k) and g[1].k < A.shape[0]):
        g = None  # an invalid k: the learner's own fit says what is wrong
    if g is not None:
        wrapper, inner = g
        t0 = time.perf_counter()
        weights = wrapper.fit_weights(A, Ytr) if wrapper is not None else None
        cat = inner.categorical_features
        cat_key = None if cat is None else np.asarray(cat).tobytes()
        normalize = inner.metric == "heom"
        key = (b"" if feats is None else np.asarray(feats).tobytes(), cat_key, normalize,
               array_digest(weights))
        Gtr, Gte, s_tr, s_te = graphs.get(A, B, key, cat, weights, normalize, int(inner.k))

        est = clone(inner).set_params(metric="precomputed", feature_weights=None,
                                      categorical_features=None)
        t1 = time.perf_counter()
        est.fit(Gtr, Ytr)
        t2 = time.perf_counter()
        pred, score = est.predict_with_proba(Gte)
        t3 = time.perf_counter()
        if wrapper is not None:
            wrapper.learner_ = est
            wrapper.n_features_in_ = int(np.asarray(weights).size)
        # the graph searches count as fit (train graph) and prediction (test graph) time
        return (pred if "pred" in needs else None, score if "score" in needs else None,
                (t1 - t0) - s_te + (t2 - t1), (t3 - t2) + s_te)
    t0 = time.perf_counter()
    learner.fit(A, Ytr)
    t1 = time.perf_counter()
    pred = score = None
    both = getattr(learner, "predict_with_proba", None)
    if both is None and hasattr(learner, "learner_"):  # a weighted learner's inner one
        both = getattr(learner.learner_, "predict_with_proba", None)
    if both is not None and needs >= {"pred", "score"}:
        pred, score = both(B)  # one neighbour search instead of two
    else:
        pred = learner.predict(B) if "pred" in needs else None
        score = learner.predict_proba(B) if "score" in needs else None
    return pred, score, t1 - t0, time.perf_counter() - t1
