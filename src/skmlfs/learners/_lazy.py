"""Lazy multi-label learners: ML-kNN, DML-kNN, MLC-WkNN (``docs/methods/lazy.md``).

All three find neighbours with the (weighted) HEOM distance of
:mod:`skmlfs.neighbors` — ``metric="heom"`` (range-normalised numeric differences,
overlap for nominal features; Mulan's default distance on complete data) or
``metric="euclidean"`` (raw numeric differences, as Zhang's ML-kNN code and
scikit-multilearn) — optionally with ``feature_weights`` (ReliefF-ML's weighted HEOM,
``sqrt(Σ_f w_f δ_f²)``). Neighbour search is a blocked brute force with exact tie handling:
equal distances → lower training index. On the training set each sample's neighbours
exclude the sample itself (not its duplicates).

Every learner returns ``predict`` as a dense ``(n, q)`` int array and ``predict_proba`` as a
dense ``(n, q)`` float array of confidences ``P(label = 1)``.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, MultiOutputMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._validation import check_labels
from ..neighbors import HEOM, check_heom_X, check_precomputed, precomputed_kneighbors
from ._base import MultiLabelLearnerMixin

__all__ = ["DMLkNN", "MLCWkNN", "MLkNN"]

_BLOCK_ENTRIES = 4_000_000


def _dense(M: Any) -> np.ndarray:
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def _label_counts(nb: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``counts[i, l]`` = number of the neighbours ``nb[i]`` having label ``l``."""
    n, k = nb.shape
    A = sp.csr_matrix(
        (np.ones(n * k), nb.ravel(), np.arange(0, n * k + 1, k)), shape=(n, Y.shape[0])
    )
    return np.rint(A @ Y.astype(np.float64)).astype(np.int64)


class _LazyBase(MultiLabelLearnerMixin, MultiOutputMixin, ClassifierMixin, BaseEstimator):
    """Validation, distance geometry and neighbour search shared by the lazy learners.

    Parameters are declared in ``_parameter_constraints`` (extended by every learner) and
    checked by scikit-learn when ``fit`` starts; ``feature_weights`` and
    ``categorical_features``, whose lengths depend on the data, are checked by
    :class:`~skmlfs.neighbors.HEOM`.
    """

    _parameter_constraints: dict = {
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
        "metric": [StrOptions({"heom", "euclidean", "precomputed"})],
        "feature_weights": ["array-like", None],
        "categorical_features": ["array-like", None],
    }

    def __init__(self, k: int, metric: str, feature_weights: Any, categorical_features: Any):
        self.k = k
        self.metric = metric
        self.feature_weights = feature_weights
        self.categorical_features = categorical_features

    def _fit_neighbours(self, X: Any, Y: Any) -> tuple[Any, np.ndarray, int]:
        k = int(self.k)
        if self.metric == "precomputed":
            X = check_precomputed(self, X, reset=True)
            if X.shape[0] != X.shape[1]:
                raise ValueError(
                    "metric='precomputed' needs the square matrix of distances between the "
                    f"training samples (or their neighbours graph) at fit; got shape {X.shape}."
                )
            if self.feature_weights is not None or self.categorical_features is not None:
                raise ValueError(
                    "feature_weights and categorical_features do not apply to "
                    "metric='precomputed' (weigh the distances before passing them)."
                )
            self.heom_ = None
        else:
            X = check_heom_X(self, X, reset=True)
        Y = check_labels(Y, X.shape[0], warn_empty=True)
        if k >= X.shape[0]:
            raise ValueError(
                f"k={k} must be smaller than the number of training samples "
                f"(n_samples = {X.shape[0]}): "
                "each training sample needs k neighbours other than itself."
            )
        if self.metric != "precomputed":
            self.heom_ = HEOM(
                self.categorical_features,
                self.feature_weights,
                normalize=self.metric == "heom",
            ).fit(X)
            self._train = self.heom_.prepare(X)
        self._X_fit = X
        self._Y_fit = Y
        self.n_labels_ = Y.shape[1]
        self._fit_label_info(Y)
        self.k_ = k
        return X, Y, k

    def _train_neighbours(self) -> tuple[np.ndarray, np.ndarray]:
        """Squared distances and indices of each training sample's neighbours (not itself)."""
        if self.heom_ is None:
            d, nb = precomputed_kneighbors(self._X_fit, self.k_, exclude_self=True)
            return d**2, nb
        return self.heom_.kneighbors(self._train, self._train, self.k_, exclude_self=True)

    def _query(self, X: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        check_is_fitted(self, "n_labels_")
        if self.heom_ is None:
            X = check_precomputed(self, X, reset=False)
            d, nb = precomputed_kneighbors(X, self.k_)
            return X, d**2, nb
        X = check_heom_X(self, X, reset=False)
        d2, nb = self.heom_.kneighbors(self.heom_.prepare(X), self._train, self.k_)
        return X, d2, nb

    def kneighbors(self, X: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indices of the ``k`` nearest training samples.

        ``X=None`` gives the training samples' own neighbours, excluding each sample
        itself (the neighbourhoods the training statistics use). Sorted by (distance,
        index).
        """
        check_is_fitted(self, "n_labels_")
        if X is None:
            d2, nb = self._train_neighbours()
        else:
            _, d2, nb = self._query(X)
        return np.sqrt(d2), nb

    def predict(self, X: Any) -> np.ndarray:
        """Predicted label sets, a dense ``(n, q)`` 0/1 int array."""
        return self._check_predictions(self._predict_both(X)[1])

    def predict_proba(self, X: Any) -> np.ndarray:
        """Confidences ``P(label = 1)``, a dense ``(n, q)`` float array."""
        return self._predict_both(X)[0]

    def predict_with_proba(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(predict(X), predict_proba(X))`` from one neighbour search."""
        proba, pred = self._predict_both(X)
        return self._check_predictions(pred), proba

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # HEOM: a missing value is at distance 1
        return tags


class MLkNN(_LazyBase):
    """ML-kNN (Zhang & Zhou 2007), docs/methods/lazy.md#ml-knn.

    Training: priors ``P1_l = (s + Σ_i y_il)/(2s + N)``; for every training sample its
    ``k`` nearest training samples (itself excluded) give ``δ_il`` = the number having label
    ``l``; ``c1[l][r]`` (``c0[l][r]``) counts the samples with (without) ``l`` and
    ``δ_il = r``; ``E1[l][r] = (s + c1[l][r]) / (s(k+1) + Σ_r c1[l][r])`` (same for ``E0``).

    Prediction: ``a = P1_l·E1[l][δ_l]``, ``b = P0_l·E0[l][δ_l]``; confidence
    ``a/(a+b)`` (``P1_l`` if ``a + b = 0``); label relevant iff ``a ≥ b``.

    Parameters
    ----------
    k : int, default=10
    s : float, default=1.0
        Smoothing (1 = Laplace).
    metric : {"heom", "euclidean", "precomputed"}, default="heom"
        ``"euclidean"`` (raw features) reproduces Zhang's code and scikit-multilearn;
        ``"heom"`` range-normalises numeric features (Mulan, ReliefF-ML).
        ``"precomputed"``: ``fit`` takes the square matrix of distances between the
        training samples and ``predict`` the ``(n_queries, n_train)`` distances to them
        (e.g. from :func:`~skmlfs.neighbors.heom_distances`, to share one distance
        computation between several learners and values of ``k``). Both may instead be
        sparse neighbours graphs (CSR, e.g. from
        :func:`~skmlfs.neighbors.heom_kneighbors_graph` built for the largest ``k``, or
        scikit-learn's ``KNeighborsTransformer(mode="distance")``): the stored entries of a
        row are its candidate neighbours (at least ``k`` besides the diagonal, which is
        ignored at fit), taken by distance and, for equal distances, in stored order —
        the memory stays ``O(n·k)``.
    feature_weights : array-like of shape (n_features,) or None, default=None
        Weights of the weighted distance (e.g. ``ReliefFML().fit(X, Y).weights_``).
    categorical_features : None, bool mask or int indices, default=None
        Nominal features (overlap difference); ``None`` = all numeric.

    Attributes
    ----------
    prior_true_ : ndarray of shape (n_labels,)
    cond_true_, cond_false_ : ndarray of shape (n_labels, k + 1)
        ``E1`` and ``E0``.
    heom_ : fitted :class:`~skmlfs.neighbors.HEOM`
    """

    _parameter_constraints: dict = {
        **_LazyBase._parameter_constraints,
        "s": [Interval(numbers.Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        k: int = 10,
        s: float = 1.0,
        metric: str = "heom",
        feature_weights: Any = None,
        categorical_features: Any = None,
    ):
        super().__init__(k, metric, feature_weights, categorical_features)
        self.s = s

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any) -> MLkNN:
        """Store the training data and compute the prior and posterior tables."""
        s = float(self.s)
        X, Y, k = self._fit_neighbours(X, Y)
        n, q = Y.shape
        _, nb = self._train_neighbours()
        delta = _label_counts(nb, Y)
        self.prior_true_ = (s + Y.sum(axis=0, dtype=np.int64)) / (2.0 * s + n)
        code = np.arange(q) * (k + 1) + delta  # (n, q): cell (l, δ_il) of the tables
        pos = Y.astype(bool)
        c1 = np.bincount(code[pos], minlength=q * (k + 1)).reshape(q, k + 1)
        c0 = np.bincount(code[~pos], minlength=q * (k + 1)).reshape(q, k + 1)
        self.cond_true_ = (s + c1) / (s * (k + 1) + c1.sum(axis=1, keepdims=True))
        self.cond_false_ = (s + c0) / (s * (k + 1) + c0.sum(axis=1, keepdims=True))
        return self

    def _predict_both(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        _, _, nb = self._query(X)
        delta = _label_counts(nb, self._Y_fit)
        lab = np.arange(self.n_labels_)
        p1 = self.prior_true_
        a = p1 * self.cond_true_[lab, delta]
        b = (1.0 - p1) * self.cond_false_[lab, delta]
        tot = a + b
        proba = np.divide(a, tot, out=np.broadcast_to(p1, a.shape).copy(), where=tot > 0)
        return proba, (a >= b).astype(int)


class DMLkNN(_LazyBase):
    """DML-kNN (Younes, Abdallah & Denœux 2008) as implemented in Mulan.

    See docs/methods/lazy.md#dml-knn.

    Training: priors ``P1_l = (s + C_l)/(2s + N)``; membership counting vector ``Ci[i]`` of
    every training sample (its ``k`` nearest, itself excluded). Prediction for ``x`` with
    counting vector ``Ct``: the training samples with ``|Ci[i][q] − Ct[q]| ≤ Δ`` for every
    label ``q`` qualify; for label ``l``, over the qualifying ``i`` with ``Ci[i][l] = Ct[l]``,
    ``V_l`` counts those having ``l`` and ``NV_l`` those without::

        a = P1_l (s + V_l)/(s·q + C_l),   b = P0_l (s + NV_l)/(s·q + NC_l)

    confidence ``a/(a+b)`` (``a`` if ``a + b = 0``), relevant iff ``a ≥ b``. The ``s·q``
    denominators are Mulan's. Mulan overwrites ``Δ`` with 6 at training; here ``delta``
    is honoured.

    Parameters
    ----------
    k : int, default=10
    s : float, default=1.0
    delta : int, default=6
        Fuzzy matching tolerance Δ.
    metric, feature_weights, categorical_features
        As in :class:`MLkNN`.
    """

    _parameter_constraints: dict = {
        **MLkNN._parameter_constraints,
        "delta": [Interval(numbers.Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        k: int = 10,
        s: float = 1.0,
        delta: int = 6,
        metric: str = "heom",
        feature_weights: Any = None,
        categorical_features: Any = None,
    ):
        super().__init__(k, metric, feature_weights, categorical_features)
        self.s = s
        self.delta = delta

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any) -> DMLkNN:
        """Store the training data, priors and membership counting vectors."""
        X, Y, k = self._fit_neighbours(X, Y)
        n = Y.shape[0]
        _, nb = self._train_neighbours()
        self.counts_ = _label_counts(nb, Y)  # Ci
        self.n_pos_ = Y.sum(axis=0, dtype=np.int64)  # C_l
        self.prior_true_ = (self.s + self.n_pos_) / (2.0 * self.s + n)
        return self

    def _predict_both(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        _, _, nb = self._query(X)
        Ct = _label_counts(nb, self._Y_fit)
        Ci = self.counts_
        Y = self._Y_fit
        n, q = Y.shape
        k, s, dlt = self.k_, float(self.s), int(self.delta)
        width = k + 1
        # One-hot of the training counting vectors: column (l, v) ↔ Ci[i, l] = v.
        rows = np.repeat(np.arange(n), q)
        cols = (np.arange(q) * width + Ci).ravel()
        B = sp.csr_matrix((np.ones(n * q), (rows, cols)), shape=(n, q * width))
        B1 = sp.csr_matrix((Y.ravel().astype(float), (rows, cols)), shape=(n, q * width))
        tot, tot1 = np.asarray(B.sum(axis=0)).ravel(), np.asarray(B1.sum(axis=0)).ravel()
        # Only labels whose counts (train and test) spread over more than Δ can disqualify.
        lo = np.minimum(Ci.min(axis=0), Ct.min(axis=0))
        hi = np.maximum(Ci.max(axis=0), Ct.max(axis=0))
        check = np.flatnonzero(hi - lo > dlt)
        if check.size:
            cc = (check[:, None] * width + np.arange(width)).ravel()
            Bc = B[:, cc].tocsr()
        values = np.arange(width)
        V = np.empty(Ct.shape)
        NV = np.empty(Ct.shape)
        lab = np.arange(q) * width
        step = max(1, _BLOCK_ENTRIES // max(1, n))
        for s0 in range(0, Ct.shape[0], step):
            Cb = Ct[s0 : s0 + step]
            idx = lab + Cb  # column (l, Ct[t, l]) of every test row and label
            # Counts over all training samples, then the non-qualifying ones removed
            # (or the qualifying ones counted directly, whichever set is smaller).
            v, nall = tot1[idx], tot[idx]
            if check.size:
                # bad[i, t] = number of labels with |Ci[i, l] − Ct[t, l]| > Δ
                far = np.abs(values[None, None, :] - Cb[:, check, None]) > dlt
                bad = Bc @ far.reshape(Cb.shape[0], -1).T.astype(float)
                nq = bad.T > 0.5
                if nq.mean() <= 0.5:
                    NQ = sp.csr_matrix(nq, dtype=float)
                    v = v - np.take_along_axis(_dense(NQ @ B1), idx, axis=1)
                    nall = nall - np.take_along_axis(_dense(NQ @ B), idx, axis=1)
                else:
                    Qs = sp.csr_matrix(~nq, dtype=float)
                    v = np.take_along_axis(_dense(Qs @ B1), idx, axis=1)
                    nall = np.take_along_axis(_dense(Qs @ B), idx, axis=1)
            V[s0 : s0 + step] = v
            NV[s0 : s0 + step] = nall - v
        p1 = self.prior_true_
        C = self.n_pos_
        a = p1 * (s + V) / (s * q + C)
        b = (1.0 - p1) * (s + NV) / (s * q + (n - C))
        tot = a + b
        proba = np.divide(a, tot, out=a.copy(), where=tot > 0)
        return proba, (a >= b).astype(int)


def _simplex_qp(G: np.ndarray, max_iter: int | None = None) -> np.ndarray:
    """Solve ``min_w wᵀ G w`` s.t. ``Σ w = 1, w ≥ 0`` for a batch of SPD ``G`` (b, k, k).

    A primal active-set method run on all problems at once (masks instead of loops over
    problems): start from the uniform weights with every variable free; each iteration
    solves the equality-constrained problem on the free set, ``w_F ∝ G_FF⁻¹ 1``; an
    infeasible step is cut at the first variable reaching 0 (which is then fixed), a
    feasible one is accepted and the most negative multiplier ``(G w)_j − wᵀGw`` of a
    fixed variable frees it; a problem is solved when no multiplier is negative. Exact up
    to rounding (a finite active-set method, not an iterative approximation).
    """
    b, k, _ = G.shape
    w = np.full((b, k), 1.0 / k)
    free = np.ones((b, k), dtype=bool)
    todo = np.ones(b, dtype=bool)
    eye = np.eye(k)
    scale = np.abs(G).max(axis=(1, 2))
    scale[scale == 0] = 1.0
    for _ in range(max_iter or 10 * k + 20):
        idx = np.flatnonzero(todo)
        if idx.size == 0:
            break
        Ga, fa, wa = G[idx], free[idx], w[idx]
        M = np.where(fa[:, :, None] & fa[:, None, :], Ga, 0.0) + eye * (~fa)[:, :, None]
        try:
            u = np.linalg.solve(M, fa.astype(float)[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise ValueError(
                "MLC-WkNN: singular Gram matrix of the neighbour differences (e.g. "
                "collinear neighbours); use reg > 0."
            ) from None
        wstar = np.where(fa, u / u.sum(axis=1, keepdims=True), 0.0)
        infeasible = fa & (wstar < -1e-13)
        blocked = infeasible.any(axis=1)
        # Infeasible: move towards w* until the first variable hits 0, then fix it.
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(infeasible, wa / (wa - wstar), np.inf)
        j = ratio.argmin(axis=1)
        alpha = np.clip(ratio[np.arange(idx.size), j], 0.0, 1.0)
        w_cut = wa + alpha[:, None] * (wstar - wa)
        w_cut[np.arange(idx.size), j] = 0.0
        w_cut = np.maximum(w_cut, 0.0)
        fa_cut = fa.copy()
        fa_cut[np.arange(idx.size), j] = False
        fa_cut &= w_cut > 0
        # Feasible: accept w*, then check the multipliers of the fixed variables.
        w_ok = np.maximum(wstar, 0.0)
        g = np.einsum("bij,bj->bi", Ga, w_ok)
        mu = (w_ok * g).sum(axis=1, keepdims=True)
        nu = np.where(fa, np.inf, g - mu)
        jn = nu.argmin(axis=1)
        release = nu[np.arange(idx.size), jn] < -1e-12 * scale[idx]
        fa_ok = fa.copy()
        fa_ok[np.arange(idx.size)[release], jn[release]] = True
        w[idx] = np.where(blocked[:, None], w_cut, w_ok)
        free[idx] = np.where(blocked[:, None], fa_cut, fa_ok)
        todo[idx] = blocked | release
    if todo.any():
        warnings.warn(
            f"MLC-WkNN weight QP did not converge for {int(todo.sum())} queries; their "
            "current feasible weights are used.",
            RuntimeWarning,
            stacklevel=3,
        )
    return w / w.sum(axis=1, keepdims=True)


class MLCWkNN(_LazyBase):
    """MLC-WkNN, multi-label weighted kNN with adaptive weights (Xu 2011).

    See docs/methods/lazy.md#mlc-wknn.

    **[ASSUMPTION — neither the paper nor its code were retrievable; our reading]**
    For a query ``x`` with neighbours ``x_1..x_k`` the weights reconstruct ``x`` best::

        w* = argmin_w ‖x − Σ_j w_j x_j‖²   s.t.  Σ_j w_j = 1,  w_j ≥ 0
        ψ_l(x) = Σ_j w*_j y_jl,   relevant iff ψ_l ≥ threshold (0.5)

    The norm is that of the distance in use (weighted HEOM): the Gram matrix
    ``G_ij = (x − x_i)·(x − x_j)`` is obtained from distances by the polarisation identity
    ``G_ij = (d(x,x_i)² + d(x,x_j)² − d(x_i,x_j)²)/2``. A ridge ``reg·trace(G)/k`` is added
    to the diagonal (LLE-style; one could add it only "if singular" — adding it always makes
    the solution unique and deterministic, and changes nothing measurable otherwise). The
    convex QP is solved exactly by a batched active-set method.

    Parameters
    ----------
    k : int, default=10
    reg : float, default=1e-3
    threshold : float, default=0.5
    metric, feature_weights, categorical_features
        As in :class:`MLkNN`, except that ``metric="precomputed"`` needs the dense matrix
        of training distances at ``fit`` (the Gram matrix uses the distances between
        neighbours); ``predict`` also accepts a neighbours graph.
    """

    _parameter_constraints: dict = {
        **_LazyBase._parameter_constraints,
        "reg": [Interval(numbers.Real, 0, None, closed="left")],
        "threshold": [Interval(numbers.Real, 0, 1, closed="both")],
    }

    def __init__(
        self,
        k: int = 10,
        reg: float = 1e-3,
        threshold: float = 0.5,
        metric: str = "heom",
        feature_weights: Any = None,
        categorical_features: Any = None,
    ):
        super().__init__(k, metric, feature_weights, categorical_features)
        self.reg = reg
        self.threshold = threshold

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any) -> MLCWkNN:
        """Store the training data (a lazy learner: no model is built)."""
        X, _, _ = self._fit_neighbours(X, Y)
        if self.metric == "precomputed" and sp.issparse(X):
            raise ValueError(
                "MLC-WkNN needs the distances between a query's neighbours, which a "
                "neighbours graph does not hold: fit it on the dense matrix of training "
                "distances (a sparse graph is accepted at predict) or use metric='heom'."
            )
        return self

    def reconstruction_weights(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Neighbour indices ``(n, k)`` and their reconstruction weights ``w*`` ``(n, k)``."""
        _, d2, nb = self._query(X)
        return nb, self._weights(d2, nb)

    def _weights(self, d2: np.ndarray, nb: np.ndarray) -> np.ndarray:
        b, k = nb.shape
        iu, ju = np.triu_indices(k, 1)
        a, c = nb[:, iu].ravel(), nb[:, ju].ravel()
        lo, hi = np.minimum(a, c), np.maximum(a, c)
        n = self._X_fit.shape[0]
        key, inv = np.unique(lo.astype(np.int64) * n + hi, return_inverse=True)
        I, J = key // n, key % n
        if self.heom_ is None:
            dpair = self._X_fit[I, J] ** 2
        else:
            dpair = np.empty(key.size)
            w2 = self.heom_.weights_
            chunk = max(1, _BLOCK_ENTRIES // max(1, self._X_fit.shape[1]))
            for s in range(0, key.size, chunk):
                dl = self.heom_.deltas(self._X_fit[I[s : s + chunk]], self._X_fit[J[s : s + chunk]])
                dpair[s : s + chunk] = (
                    np.asarray(dl.multiply(dl) @ w2).ravel() if sp.issparse(dl) else (dl * dl) @ w2
                )
        Dnn = np.zeros((b, k, k))
        Dnn[:, iu, ju] = dpair[inv.ravel()].reshape(b, -1)
        Dnn[:, ju, iu] = Dnn[:, iu, ju]
        G = 0.5 * (d2[:, :, None] + d2[:, None, :] - Dnn)
        tr = np.trace(G, axis1=1, axis2=2)
        ridge = np.where(tr > 0, float(self.reg) * tr / k, 1.0)
        G = G + ridge[:, None, None] * np.eye(k)
        return _simplex_qp(G)

    def _predict_both(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        _, d2, nb = self._query(X)
        w = self._weights(d2, nb)
        Y = self._Y_fit.astype(np.float64)
        proba = np.einsum("bj,bjl->bl", w, Y[nb])
        np.clip(proba, 0.0, 1.0, out=proba)
        return proba, (proba >= self.threshold).astype(int)
