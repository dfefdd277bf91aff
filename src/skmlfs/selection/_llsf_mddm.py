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

from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_labels, resolve_count, resolve_n_features
from ._base import NON_NEGATIVE, BaseSelector, Number, check_magnitude, degenerate_selection

__all__ = ["LLSF", "MDDM"]


def _gram(X: Any) -> np.ndarray:
    G = X.T @ X
    return G.toarray() if sp.issparse(G) else np.asarray(G)


class LLSF(BaseSelector):
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
    n_features_to_select : int, float, str or None, default=None
        For ``transform``: the features with the largest row norms ``‖W_i·‖₂``
        **[ASSUMPTION]** (a count, a fraction ``⌈f·d⌉`` or a budget string as for every
        selector); ``None`` keeps every feature with a non-zero row. Any value can be set
        after ``fit`` without refitting (``selection_order_`` orders every feature).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features, n_labels)
        ``W``.
    label_features_ : list of ndarray
        ``{i : W_ij ≠ 0}`` for every label, by decreasing ``|W_ij|``; all features when
        a column of ``W`` is entirely zero **[ASSUMPTION, docs/methods/sparse.md#llsf]**.
    selection_order_ : ndarray of int
        Features by decreasing row norm (ties: lower index).
    ranking_ : ndarray of shape (n_features,)
        scikit-learn's ranking, as ``RFE``'s: 1 for the selected features, then 2, 3,
        ... along ``selection_order_``.
    scores_ : ndarray of shape (n_features,)
        Row norms ``‖W_i·‖₂`` of every feature (``scores_[f]`` is feature ``f``'s).
    n_iter_ : int
    """

    _parameter_constraints: dict = {
        **BaseSelector._parameter_constraints,
        **dict.fromkeys(("alpha", "beta", "gamma", "tol"), [NON_NEGATIVE]),
        "max_iter": [Number(Integral, 1, None, closed="left")],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_meaning = (
            "weight_norm",
            "norm of the feature's row of the label-specific weight matrix W (the ranking sorts by "
            "it)",
        )
        tags.selector_tags.orders_all_features = True
        return tags

    def __init__(self, alpha: float = 0.5, beta: float = 0.1, gamma: float = 0.01,
                 max_iter: int = 100, tol: float = 0.01, n_features_to_select: Any = None):
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select

    def _fit(self, X: Any, Y: Any) -> LLSF:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64,
                          ensure_all_finite=True)
        Yv = check_labels(Y, X.shape[0], warn_empty=True).astype(np.float64)
        check_magnitude(X, "LLSF", "forms the Gram matrix XᵀX in its least-squares steps")
        if degenerate_selection(self, X):
            self.coef_ = np.zeros((X.shape[1], Yv.shape[1]))
            self.label_features_ = [np.zeros(0, dtype=np.intp)] * Yv.shape[1]
            self.n_iter_ = 0
            return self
        alpha, beta, gamma, tol = (float(v) for v in (self.alpha, self.beta, self.gamma,
                                                      self.tol))
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
        self._set_order(np.lexsort((np.arange(d), -norms)), scores=norms,
                          k=self._budget_of(norms, X.shape[0]), n_samples=X.shape[0])
        feats = []
        for j in range(W.shape[1]):
            nz = np.flatnonzero(W[:, j])
            if nz.size == 0:
                feats.append(np.arange(d, dtype=np.intp))
            else:
                feats.append(nz[np.argsort(-np.abs(W[nz, j]), kind="stable")].astype(np.intp))
        self.label_features_ = feats
        return self

    def _budget_of(self, norms: np.ndarray, n_samples: int) -> int:
        """``None``: the features with a non-zero row of ``W``; else the usual budget."""
        if self.n_features_to_select is None:
            return int(np.count_nonzero(norms))
        return resolve_n_features(self.n_features_to_select, n_samples, norms.size, warn=False)

    def _budget(self) -> int:
        return self._budget_of(self.scores_, self._fit_n_samples)


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

    _parameter_constraints: dict = {
        "n_components": [None, Number(Integral, 1, None, closed="left"),
                         Number(RealNotInt, 0, 1, closed="right")],
        "variant": [StrOptions({"proj", "uncorrelated"})],
        "mu": [Number(Real, 0, 1, closed="both")],
    }

    def __init__(self, n_components: Any = 0.3, variant: str = "proj", mu: float = 0.5):
        self.n_components = n_components
        self.variant = variant
        self.mu = mu

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, Y: Any) -> MDDM:
        X = validate_data(self, X, accept_sparse=["csr", "csc"], dtype=np.float64,
                          ensure_all_finite=True)
        Yv = check_labels(Y, X.shape[0], warn_empty=True).astype(np.float64)
        check_magnitude(X, "MDDM", "forms the dependence matrix XᵀYYᵀX and the covariance XᵀX")
        mu = float(self.mu)
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
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False  # the target is a 0/1 label matrix
        tags.input_tags.sparse = True
        return tags
