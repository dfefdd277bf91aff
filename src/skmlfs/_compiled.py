"""The one switch between the optional compiled kernels (numba) and the numpy path.

Kernels live next to the code they speed up (``skmlfs.info._kernels`` for the count
engine, ``skmlfs.neighbors._numba_kernels`` for the neighbour searches); whether they run is
decided here, for all of them: when ``numba`` is installed (the ``fast`` extra,
``pip install scikit-mlfs[fast]``), unless the environment variable ``SKMLFS_NO_NUMBA``
is set to a non-empty value other than ``0`` or :data:`FORCE_NUMPY` is set (tests and
benchmarks force the numpy path that way). Every kernel gives results identical to the
numpy path, so the switch changes speed only.

numba itself is imported (and the kernels compiled or loaded from numba's cache) on first
use only, by the kernel modules: ``import skmlfs`` and the small problems, which never
reach a kernel, do not pay the ~0.3 s of importing it.
"""

from __future__ import annotations

import importlib.util
import os

__all__ = ["FORCE_NUMPY", "NUMBA_AVAILABLE", "use_numba"]

NUMBA_AVAILABLE = importlib.util.find_spec("numba") is not None

# Set to True to force the numpy/scipy path in this process (tests, benchmarks).
FORCE_NUMPY = False


def use_numba() -> bool:
    """Whether the compiled kernels run: numba installed, and not switched off by
    :data:`FORCE_NUMPY` or the environment variable ``SKMLFS_NO_NUMBA``."""
    if FORCE_NUMPY or not NUMBA_AVAILABLE:
        return False
    return os.environ.get("SKMLFS_NO_NUMBA", "") in ("", "0")
