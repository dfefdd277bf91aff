"""LLSF and MDDM, the FS-DR baselines of the oCC paper (§8.2).

Definitions: ``docs/methods/sparse.md``.

Why these live in :mod:`skmlfs.selection` and not in :mod:`skmlfs.learners`: both are
*feature-space* methods fitted on ``(X, Y)`` whose output a classifier consumes.

* :class:`LLSF` is a **selector** (``SelectorMixin``): its sparse coefficient matrix
  ``W`` (d × q) gives label-specific feature subsets ``label_features_`` and a global
  ranking by row norm. The *learner* of the oCC experiments ("LLSF" in Tables 3–6) is
  :class:`~skmlfs.learners.BinaryRelevance` with ``selector=LLSF(...)``: label ``j``'s
  linear SVM sees only ``label_features_[j]`` (local FS-DR).
* :class:`MDDM` is a **projection** (``TransformerMixin``), not a selection: it maps the
  features to ``n_components`` linear combinations. The "MDDM" learner of the paper is
  ``BinaryRelevance(selector=MDDM(...))`` (global FS-DR).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_labels
from ._base import check_magnitude, degenerate_selection

__all__ = ["LLSF", "MDDM"]


def _gram(X: Any) -> np.ndarray:
    G = X.T @ X
    return G.toarray() if sp.issparse(G) else np.asarray(G)


def _check_nonneg(name: str, v: Any, *, strict: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or v < 0 or (strict and v == 0):
        raise ValueError(f"{name} must be a {'positive' if strict else 'non-negative'} "
                         f"number; got {v!r}.")
    return float(v)


class LLSF(SelectorMixin, BaseEstimator):
    """Learning Label-Specific Features (Huang, Li, Huang & Wu 2015).

    Solves ``min_W ½‖XW − Y‖_F² + (α/2)·Tr(R WᵀW) + β‖W‖₁`` (``W ∈ R^{d×q}``) by the
    accelerated proximal gradient of the reference ``LLSF.m``, with
    ``R_ij = 1 − cos(Y_·i + ε, Y_·j + ε)`` (cosine distance of the label columns, ``ε``
    machine epsilon), ridge start ``W₀ = (XᵀX + γI)⁻¹XᵀY``, step ``1/Lip`` with
    ``Lip = √(2(‖XᵀX‖₂² + ‖αR‖₂²))``, and the reference stopping rule on
    ``‖XW − Y‖² + α·Tr(R WᵀW) + β·nnz(W)`` (not the optimised objective — kept for
    faithfulness): stop when it changes by at most ``tol`` or is ``≤ 0``.

    Parameters
    ----------
    alpha : float, default=0.5
        Label-correlation weight (oCC experiments: 0.5).
    beta : float, default=0.1
        Sparsity weight (oCC experiments tune it in {0.001, 0.01, 0.1, 1, 10}).
    gamma : float, default=0.01
        Ridge of the initial solution (oCC experiments: 0.01).
    max_iter : int, default=100
    tol : float, default=0.01
        The reference's ``minimumLossMargin``.
    n_features_to_select : int, float or None, default=None
        For ``transform``: the features with the largest row norms ``‖W_i·‖₂``
        **[ASSUMPTION]**; ``None`` keeps every feature with a non-zero row.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features, n_labels)
        ``W``.
    label_features_ : list of ndarray
        ``{i : W_ij ≠ 0}`` for every label, by decreasing ``|W_ij|``; all features when
        a column of ``W`` is entirely zero **[ASSUMPTION, docs/methods/sparse.md#llsf]**.
    ranking_ : ndarray of int
        Features by decreasing row norm (ties: lower index).
    scores_ : ndarray of shape (n_features,)
        Row norms ``‖W_i·‖₂`` in the order of ``ranking_`` (the project's convention:
        ``scores_[r]`` is the score of feature ``ranking_[r]``).
    n_iter_ : int
    """

    def __init__(self, alpha: float = 0.5, beta: float = 0.1, gamma: float = 0.01,
                 max_iter: int = 100, tol: float = 0.01, n_features_to_select: Any = None):
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select

    def fit(self, X: Any, Y: Any) -> LLSF:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64,
                          ensure_all_finite=True)
        Yv = check_labels(Y, X.shape[0], warn_empty=True).astype(np.float64)
        check_magnitude(X, "LLSF", "forms the Gram matrix XᵀX in its least-squares steps")
        if degenerate_selection(self, X):
            self.coef_ = np.zeros((X.shape[1], Yv.shape[1]))
            self.scores_ = np.zeros(X.shape[1])  # LLSF's scores_ are per feature
            self.label_features_ = [np.zeros(0, dtype=np.intp)] * Yv.shape[1]
            self.n_iter_ = 0
            return self
        alpha = _check_nonneg("alpha", self.alpha)
        beta = _check_nonneg("beta", self.beta)
        gamma = _check_nonneg("gamma", self.gamma)
        tol = _check_nonneg("tol", self.tol)
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, numbers.Integral) \
                or self.max_iter < 1:
            raise ValueError(f"max_iter must be a positive int; got {self.max_iter!r}.")
        d = X.shape[1]
        XtX = _gram(X)
        XtY = np.asarray(X.T @ Yv)
        Ye = Yv + np.finfo(float).eps
        nrm = np.linalg.norm(Ye, axis=0)
        R = 1.0 - (Ye.T @ Ye) / np.outer(nrm, nrm)
        W = np.linalg.solve(XtX + gamma * np.eye(d), XtY)
        W_prev = W.copy()
        norm_xtx = float(sla.eigvalsh(XtX, subset_by_index=[d - 1, d - 1])[0]) if d else 0.0
        norm_r = float(np.max(np.abs(np.linalg.eigvalsh(alpha * R)))) if R.size else 0.0
        lip = np.sqrt(2.0 * (norm_xtx**2 + norm_r**2))
        if lip == 0:
            lip = 1.0
        b = b_prev = 1.0
        old = 0.0
        yty = float((Yv * Yv).sum())
        it = 0
        for it in range(1, self.max_iter + 1):  # noqa: B007 - n_iter_ below
            Wk = W + ((b_prev - 1.0) / b) * (W - W_prev)
            G = Wk - (XtX @ Wk - XtY + alpha * (Wk @ R)) / lip
            b_prev, b = b, (1.0 + np.sqrt(4.0 * b * b + 1.0)) / 2.0
            W_prev = W
            W = np.sign(G) * np.maximum(np.abs(G) - beta / lip, 0.0)
            # ‖XW − Y‖² via the Gram matrices (no n × q product per iteration)
            fit = float((W * (XtX @ W)).sum() - 2.0 * (W * XtY).sum() + yty)
            loss = fit + alpha * float(((W @ R) * W).sum()) + beta * np.count_nonzero(W)
            if abs(old - loss) <= tol or loss <= 0:
                break
            old = loss
        self.n_iter_ = it
        self.coef_ = W
        norms = np.linalg.norm(W, axis=1)
        self.ranking_ = np.lexsort((np.arange(d), -norms)).astype(np.intp)
        self.scores_ = norms[self.ranking_]
        feats = []
        for j in range(W.shape[1]):
            nz = np.flatnonzero(W[:, j])
            if nz.size == 0:
                feats.append(np.arange(d, dtype=np.intp))
            else:
                feats.append(nz[np.argsort(-np.abs(W[nz, j]), kind="stable")].astype(np.intp))
        self.label_features_ = feats
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "coef_")
        d = self.coef_.shape[0]
        mask = np.zeros(d, dtype=bool)
        if self.n_features_to_select is None:
            mask[self.ranking_[self.scores_ > 0]] = True
            return mask
        from ._mlfs import resolve_count

        k = resolve_count(self.n_features_to_select, d, "n_features_to_select")
        mask[self.ranking_[:k]] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags


class MDDM(TransformerMixin, BaseEstimator):
    """Multi-label Dimensionality reduction via Dependence Maximization (Zhang & Zhou 2010).

    HSIC with a linear label kernel: the projection ``U`` maximises
    ``Tr(Uᵀ X̃ᵀ Ỹ Ỹᵀ X̃ U)`` with ``X̃`` the centred training features and ``Ỹ`` the centred
    labels (all-zero label columns removed). ``M = (X̃ᵀỸ)(X̃ᵀỸ)ᵀ`` (symmetrised
    element-wise by ``max(M, Mᵀ)`` as the reference wrappers do).

    * ``variant="proj"`` (MDDMp, what the public wrappers — including the oCC authors'
      ``ML-FSDR`` — implement): ``U`` = top eigenvectors of ``M``, orthonormal.
    * ``variant="uncorrelated"`` (MDDMf): generalized problem
      ``M u = λ ((1 − μ) X̃ᵀX̃ + μ I) u``; ``μ`` is the regularisation the oCC paper sets to
      0.5 **[ASSUMPTION: neither reference implements μ]**; columns scaled to unit norm.

    Eigenvector signs are fixed so that each column's largest-magnitude entry is positive.
    Eigenvectors of the zero eigenvalues (beyond rank ``q``) are whatever LAPACK returns.

    Parameters
    ----------
    n_components : int or float, default=0.3
        Output dimension; a float is a fraction of ``d`` (``⌈thr·d⌉``; oCC tunes
        ``thr ∈ {0.1, 0.3, 0.5, 0.7, 0.9}``). When it reaches ``d`` the features are only
        centred (the ML-FSDR wrapper falls back to plain BR).
    variant : {"proj", "uncorrelated"}, default="proj"
    mu : float in [0, 1], default=0.5

    Attributes
    ----------
    components_ : ndarray of shape (n_features, ``n_components_``)
    mean_ : ndarray of shape (n_features,)
    eigenvalues_ : ndarray of shape (``n_components_``,)
    """

    def __init__(self, n_components: Any = 0.3, variant: str = "proj", mu: float = 0.5):
        self.n_components = n_components
        self.variant = variant
        self.mu = mu

    def fit(self, X: Any, Y: Any) -> MDDM:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64,
                          ensure_all_finite=True)
        Yv = check_labels(Y, X.shape[0], warn_empty=True).astype(np.float64)
        check_magnitude(X, "MDDM", "forms the dependence matrix XᵀYYᵀX and the covariance XᵀX")
        if self.variant not in ("proj", "uncorrelated"):
            raise ValueError(f"variant must be 'proj' or 'uncorrelated'; got {self.variant!r}.")
        mu = _check_nonneg("mu", self.mu)
        if mu > 1:
            raise ValueError(f"mu must lie in [0, 1]; got {mu}.")
        from ._mlfs import resolve_count

        n, d = X.shape
        dim = resolve_count(self.n_components, d, "n_components")
        self.mean_ = np.asarray(X.mean(axis=0)).ravel()
        if dim >= d:
            self.components_ = np.eye(d)
            self.eigenvalues_ = np.full(d, np.nan)
            self.n_components_ = d
            return self
        Yc = Yv[:, Yv.sum(axis=0) > 0]
        Yc = Yc - Yc.mean(axis=0)
        A = np.asarray(X.T @ Yc)  # = X̃ᵀỸ because Ỹ has zero column sums
        M = A @ A.T
        M = np.maximum(M, M.T)
        if self.variant == "proj":
            w, U = sla.eigh(M, subset_by_index=[d - dim, d - 1])
        else:
            G = _gram(X) - n * np.outer(self.mean_, self.mean_)
            B = (1.0 - mu) * G + mu * np.eye(d)
            w, U = sla.eigh(M, B, subset_by_index=[d - dim, d - 1])
            U = U / np.linalg.norm(U, axis=0)
        w, U = w[::-1], U[:, ::-1]
        big = np.abs(U).argmax(axis=0)
        U = U * np.where(U[big, np.arange(U.shape[1])] < 0, -1.0, 1.0)
        self.components_ = U
        self.eigenvalues_ = w
        self.n_components_ = dim
        return self

    def transform(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "components_")
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64,
                          ensure_all_finite=True, reset=False)
        return np.asarray(X @ self.components_) - self.mean_ @ self.components_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        return tags
