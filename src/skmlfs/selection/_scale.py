"""Fail-fast checks of the information-theoretic selectors whose terms need whole tables.

Terms over label pairs (LRFS, PMU, FIMF, the label-correlation term of MLFS), per-label
candidate pools (local MLFS) and the feature × feature matrix of QPFS have no form as a sum
over the labels: they need dense tables whose size grows with ``d·q`` or ``q²``
(``docs/methods/info.md#complexity-and-scale``). Before any counting, these selectors
compare the tables they will hold with the engine's budget
(:func:`skmlfs.info.max_table_bytes`, 4 GiB unless ``SKMLFS_MAX_TABLE_GIB`` says
otherwise) and raise :class:`~skmlfs.info.TableTooLargeError` naming the term, its size,
and what would be needed, instead of a ``MemoryError`` (or swapping) part-way.
"""

from __future__ import annotations

from ..info import TableTooLargeError, max_table_bytes

__all__ = ["check_tables"]


def check_tables(method: str, term: str, cells: float, *, tables: float = 1.0,
                 total_cells: float | None = None, instead: str = "") -> None:
    """Raise :class:`~skmlfs.info.TableTooLargeError` when ``method``'s tables exceed the budget.

    Parameters
    ----------
    method : str
        The selector's name, for the message.
    term : str
        What needs the tables (e.g. "its label-pair term Σ_{l<l'} I(f; l; l')").
    cells : float
        Cells of one dense table.
    tables : float, default=1
        Tables of that size held at once (count tables and their float64 reductions).
    total_cells : float, optional
        Table cells computed over the whole fit (e.g. ``q`` stratified ``d × q`` tables),
        stated in the message as the time it would take.
    instead : str, default=""
        What scales instead (appended to the message).
    """
    need = 8.0 * cells * tables
    budget = max_table_bytes()
    if need <= budget:
        return
    work = (f"; {total_cells:.2g} table cells over the fit" if total_cells else "")
    raise TableTooLargeError(
        f"{method}: {term} needs dense tables of {cells:,.0f} cells ({need / 2**30:,.1f} GiB "
        f"held at once{work}), above the budget of {budget / 2**30:.1f} GiB (environment "
        "variable SKMLFS_MAX_TABLE_GIB). This term has no form as a sum over the labels "
        "(docs/methods/info.md#complexity-and-scale)." + (f" {instead}" if instead else "")
    )
