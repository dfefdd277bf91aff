"""The shared count engine (plug-in entropies, MI, CMI, interaction information).

See :mod:`skmlfs.info._engine` for the representation and the counting scheme.
"""

from ._engine import (
    DiscreteData,
    conditional_mutual_info,
    entropy,
    interaction_info,
    iter_conditional_mutual_info,
    joint_entropy,
    joint_entropy_one,
    mutual_info,
)

__all__ = [
    "DiscreteData",
    "conditional_mutual_info",
    "entropy",
    "interaction_info",
    "iter_conditional_mutual_info",
    "joint_entropy",
    "joint_entropy_one",
    "mutual_info",
]

from ._cache import InfoCache  # noqa: E402

__all__ += ["InfoCache"]

from ._rowblocks import ArrayBlocks, DaskBlocks, IterableBlocks, RowBlocks  # noqa: E402

__all__ += ["ArrayBlocks", "DaskBlocks", "IterableBlocks", "RowBlocks"]
