"""Quantities that greedy selection reuses, computed once per fit by the count engine."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ._engine import DiscreteData, entropy, joint_entropy, joint_entropy_one

__all__ = ["InfoCache"]


class InfoCache:
    """Lazily computed, memoised information quantities of features ``X`` and labels ``Y``.

    Everything is in the same log base. Whole-block quantities (all features × all
    labels) are computed with one product; per-feature columns (against one selected
    feature) are computed once and kept, so a greedy step costs one restricted product.

    Parameters
    ----------
    X, Y : DiscreteData or array-like
        Discrete features ``(n, d)`` and labels ``(n, q)``.
    base : float, default=2
    """

    def __init__(self, X: DiscreteData | Any, Y: DiscreteData | Any, base: float = 2.0):
        self.X = X if isinstance(X, DiscreteData) else DiscreteData.from_array(X)
        self.Y = Y if isinstance(Y, DiscreteData) else DiscreteData.from_array(Y)
        if self.X.n_samples != self.Y.n_samples:
            raise ValueError(
                f"X and Y have different numbers of rows: {self.X.n_samples} != "
                f"{self.Y.n_samples}."
            )
        self.base = base
        self._h_ff: dict[int, np.ndarray] = {}
        self._h_fyz: dict[int, np.ndarray] = {}

    # -- whole blocks -------------------------------------------------------------
    @cached_property
    def h_x(self) -> np.ndarray:
        """``H(f)`` for every feature, shape (d,)."""
        return entropy(self.X, base=self.base)

    @cached_property
    def h_y(self) -> np.ndarray:
        """``H(l)`` for every label, shape (q,)."""
        return entropy(self.Y, base=self.base)

    @cached_property
    def h_xy(self) -> np.ndarray:
        """``H(f, l)`` for every feature–label pair, shape (d, q)."""
        return joint_entropy(self.X, self.Y, base=self.base)

    @cached_property
    def mi_xy(self) -> np.ndarray:
        """``I(f; l)``, shape (d, q)."""
        return self.h_x[:, None] + self.h_y[None, :] - self.h_xy

    @cached_property
    def relevance(self) -> np.ndarray:
        """``Σ_l I(f; l)`` (SCLS Eq. 9), shape (d,)."""
        return self.mi_xy.sum(axis=1)

    # -- per selected feature s -------------------------------------------------
    def h_xx(self, s: int) -> np.ndarray:
        """``H(f, s)`` for every feature ``f``, shape (d,)."""
        col = self._h_ff.get(s)
        if col is None:
            col = joint_entropy_one(self.X, self.X, s, base=self.base)
            self._h_ff[s] = col
        return col

    def mi_xx(self, s: int) -> np.ndarray:
        """``I(f; s)`` for every feature ``f``, shape (d,)."""
        return self.h_x + self.h_x[s] - self.h_xx(s)

    def h_xy_given(self, s: int) -> np.ndarray:
        """``H(f, l, s)`` for every feature–label pair, shape (d, q)."""
        t = self._h_fyz.get(s)
        if t is None:
            t = joint_entropy(self.X, self.Y, given=self.X.take([s]), base=self.base)
            self._h_fyz[s] = t
        return t
