"""Quantities that greedy selection reuses, computed once per fit by the count engine."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ._engine import DiscreteData, entropy, joint_entropy, joint_entropy_one
from ._labelsum import label_sums
from ._strata import sum_joint_entropy_given

__all__ = ["InfoCache", "use_full_block"]

# Above this many feature × label pairs, the per-feature sums over the labels (relevance,
# Σ_l H(f, l), and per greedy step Σ_l H(f, l, s)) are computed over label blocks
# (skmlfs.info._labelsum, ._strata) without the d × q block; at or below, from the full
# block as before (bit-identical results).
FULL_BLOCK_PAIRS = 2**26
# ... or above as many cells of the dense count table (indicator columns of X × those of
# Y; 512 MiB as int64, with several float64 reductions of its size): many-valued variables
# (a PPT class with thousands of label sets) make the table far larger than d·q.


# A greedy step's Σ_l H(f, l, s) from the full block costs two dense d × q reductions per
# step, from the label sums one pass over the rows (its co-occurring pairs). The full
# three-way block is kept for steps up to 1/16 of the pairs of FULL_BLOCK_PAIRS: at the
# EURLex-4K shape (2·10⁷ pairs) a step took 4.6 s from the block against 0.57 s from the
# strata (loaded machine); every shared data set (at most 5·10⁵ pairs) keeps the block.
STEP_FRACTION = 16


def use_full_block(X: DiscreteData, Y: DiscreteData, full_block_pairs: int | None = None) -> bool:
    """The one policy: whether sums over the labels come from the full ``d × q`` block.

    True when ``d·q`` is at most ``full_block_pairs`` (default :data:`FULL_BLOCK_PAIRS`)
    and the dense count table (indicator columns of ``X`` × those of ``Y``) has at most
    as many cells. Otherwise the label-sum paths run, which never hold ``d × q``
    (``docs/methods/info.md#complexity-and-scale``). Selectors that have a label-sum path
    (SCLS, AMI, MIRank, GICS, MDMR, D2F, the MLFS relevance, PPT, MLCFS) ask this.
    """
    pairs = FULL_BLOCK_PAIRS if full_block_pairs is None else int(full_block_pairs)
    cells = int(X.indicators.shape[1]) * int(Y.indicators.shape[1])
    return X.n_vars * Y.n_vars <= pairs and cells <= pairs


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
    full_block_pairs : int, optional
        Largest ``d·q`` for which :attr:`relevance` and :attr:`sum_h_xy` come from the full
        feature × label block (default :data:`FULL_BLOCK_PAIRS`); above it they are summed
        over label blocks, never holding ``d × q``.
    """

    def __init__(
        self,
        X: DiscreteData | Any,
        Y: DiscreteData | Any,
        base: float = 2.0,
        *,
        full_block_pairs: int | None = None,
    ):
        self.X = X if isinstance(X, DiscreteData) else DiscreteData.from_array(X)
        self.Y = Y if isinstance(Y, DiscreteData) else DiscreteData.from_array(Y)
        if self.X.n_samples != self.Y.n_samples:
            raise ValueError(
                f"X and Y have different numbers of rows: {self.X.n_samples} != "
                f"{self.Y.n_samples}."
            )
        self.base = base
        self.full_block_pairs = FULL_BLOCK_PAIRS if full_block_pairs is None else full_block_pairs
        self._h_ff: dict[int, np.ndarray] = {}

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

    def _use_full_block(self) -> bool:
        return "h_xy" in self.__dict__ or use_full_block(self.X, self.Y, self.full_block_pairs)

    @property
    def uses_full_block(self) -> bool:
        """Whether the label sums come from the full ``d × q`` block (:func:`use_full_block`)."""
        return self._use_full_block()

    @cached_property
    def _label_sums(self) -> tuple[np.ndarray, np.ndarray]:
        return label_sums(self.X, self.Y, h_x=self.h_x, h_y=self.h_y, base=self.base)

    @cached_property
    def relevance(self) -> np.ndarray:
        """``Σ_l I(f; l)`` (SCLS Eq. 9), shape (d,)."""
        if self._use_full_block():
            return self.mi_xy.sum(axis=1)
        return self._label_sums[0]

    @cached_property
    def sum_h_xy(self) -> np.ndarray:
        """``Σ_l H(f, l)`` for every feature, shape (d,)."""
        if self._use_full_block():
            return self.h_xy.sum(axis=1)
        return self._label_sums[1]

    def sum_h_xy_over(self, candidates: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """``Σ_{l ∈ labels} H(f, l)`` for the features ``candidates``, shape (len,)."""
        if self._use_full_block():
            return self.h_xy[np.ix_(candidates, labels)].sum(axis=1)
        if labels.size == self.Y.n_vars and np.array_equal(labels, np.arange(labels.size)):
            return self.sum_h_xy[candidates]
        Yl = self.Y.take(labels)
        return label_sums(self.X, Yl, h_x=self.h_x, h_y=self.h_y[labels], base=self.base)[1][
            candidates
        ]

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
        """``H(f, l, s)`` for every feature–label pair, shape (d, q).

        Not kept: a greedy search asks for each selected ``s`` once, and ``k`` such tables
        would hold ``k·d·q`` floats. Selectors sum it over the labels: use
        :meth:`sum_h_xy_given`.
        """
        return joint_entropy(self.X, self.Y, given=self.X.take([s]), base=self.base)

    def sum_h_xy_given(self, s: int) -> np.ndarray:
        """``Σ_l H(f, l, s)`` for every feature ``f``, shape (d,).

        From the full three-way block when :func:`use_full_block` allows it for a
        sixteenth of the pairs (:data:`STEP_FRACTION`: each step pays the block again; as
        before, bit for bit); otherwise one label-sum pass per stratum of ``s``
        (:func:`skmlfs.info._strata.sum_joint_entropy_given`), without a ``d × q`` table.
        """
        if use_full_block(self.X, self.Y, self.full_block_pairs // STEP_FRACTION):
            return self.h_xy_given(s).sum(axis=1)
        return sum_joint_entropy_given(self.X, self.Y, self.X.take([s]), base=self.base)
