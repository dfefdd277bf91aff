"""The shared count engine (plug-in entropies, MI, CMI, interaction information).

See :mod:`skmlfs.info._engine` for the representation and the counting scheme.
"""

from . import _engine
from ._engine import *  # noqa: F403  (its __all__ is the public list)

# the engine's public names are listed once, in its own __all__
__all__ = list(_engine.__all__)

from ._cache import InfoCache  # noqa: E402

__all__ += ["InfoCache"]

from ._rowblocks import (  # noqa: E402
    ArrayBlocks,
    DaskBlocks,
    IterableBlocks,
    RowBlocks,
    StreamInfoCache,
    as_row_blocks,
    is_dask_array,
)

# the row-block side of the engine: sources of row blocks, the counts over them (what a
# selector fitted on row blocks reads) and the conversion of an input to blocks
__all__ += ["ArrayBlocks", "DaskBlocks", "IterableBlocks", "RowBlocks", "StreamInfoCache",
            "as_row_blocks", "is_dask_array"]
