"""Straightforward per-pair reference implementations.

These compute each entropy independently from ``np.unique`` counts, one pair (or triple)
at a time, exactly as the equations read. They exist to check the count engine in tests
and to give the benchmarks their baseline; they are deliberately slow.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ref_entropy", "ref_mutual_info", "ref_conditional_mutual_info"]


def ref_entropy(*columns: np.ndarray, base: float = 2.0) -> float:
    """Plug-in joint entropy of the given 1-D columns (rows as symbols)."""
    M = np.column_stack(columns)
    _, counts = np.unique(M, axis=0, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log(p)).sum() / np.log(base))


def ref_mutual_info(x: np.ndarray, y: np.ndarray, base: float = 2.0) -> float:
    """``I(x; y) = H(x) + H(y) − H(x, y)``."""
    return ref_entropy(x, base=base) + ref_entropy(y, base=base) - ref_entropy(x, y, base=base)


def ref_conditional_mutual_info(
    x: np.ndarray, y: np.ndarray, z: np.ndarray, base: float = 2.0
) -> float:
    """``I(x; y | z) = H(x,z) + H(y,z) − H(x,y,z) − H(z)``."""
    return (
        ref_entropy(x, z, base=base)
        + ref_entropy(y, z, base=base)
        - ref_entropy(x, y, z, base=base)
        - ref_entropy(z, base=base)
    )
