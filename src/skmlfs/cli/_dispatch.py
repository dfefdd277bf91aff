"""The one place where the command line imports code by name.

Each command's parser module (``_select.py``, ...) defines its arguments with the standard
library alone and names the function that does the work as a ``"module:function"`` string
(its ``RUN``); that module, with the library it needs (scikit-learn alone takes seconds to
import), is imported by :func:`load` only when the command runs. ``mlfs --help`` and an
argument error therefore answer at once, while every other module of the command line
imports at module level like the rest of the package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def load(target: str) -> Callable[..., Any]:
    """The function named by ``"package.module:function"``, its module imported now."""
    module, sep, name = target.partition(":")
    if not sep or not module or not name:
        raise ValueError(f"expected 'module:function', got {target!r}")
    return getattr(importlib.import_module(module), name)


def deferred_type(target: str) -> Callable[[str], Any]:
    """An argparse ``type`` whose check (``"module:function"``) is imported when the option
    is given, not when the parser is built: a check that needs the library (the budget
    grammar of ``-k``) still reports a bad value as an argument error, with the usage."""

    def check(value: str) -> Any:
        return load(target)(value)

    # argparse names the type in "invalid <name> value" messages
    check.__name__ = target.partition(":")[2]
    return check
