"""Products whose last bits must not depend on the number of BLAS threads.

A multi-threaded BLAS splits a matrix product into blocks whose partial sums it adds in
an order that depends on the number of threads, so the same product differs in its last
bits between a serial run (all threads) and an engine worker (one thread). Most methods
do not notice; a randomised search does: the ant colonies of MLACO and Ant-TD compare
roulette draws with probabilities built from such products, and one different bit sends a
seeded colony down another path (measured: 430 of 500 selected positions differed on
corel16k between one and two threads). Those products run under :func:`one_blas_thread`,
which makes them the same whatever the thread count (for the same BLAS library and
processor).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["one_blas_thread"]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the enclosed products on one BLAS thread (restored afterwards)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield
