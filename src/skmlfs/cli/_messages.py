"""Library messages rewritten for the command line, in one place.

The library's errors and warnings are written for Python users: they name keyword
arguments (``pass labels=...``, ``Pass label_copies='drop'``). Under ``mlfs`` the same
advice must name the command-line flag. :data:`PYTHON_TO_CLI` maps every such keyword
argument to its flag; :func:`cli_text` rewrites ``name=value`` advice with it, and
:func:`warnings_for_the_command_line` prints each warning as one ``warning: ...`` line
(no source path, no ``UserWarning:`` prefix). ``mlfs`` applies both to every command, so a
new library message that names one of these arguments reads right without any change here.
"""

from __future__ import annotations

import ast
import contextlib
import re
import sys
import warnings
from collections.abc import Iterator

#: Python keyword argument of the data loaders -> the ``mlfs`` flag that sets it
#: (see :func:`skmlfs.cli._common.add_data_options`).
PYTHON_TO_CLI: dict[str, str] = {
    "labels": "--labels",
    "label_prefix": "--label-prefix",
    "label_copies": "--label-copies",
    "missing": "--missing",
}

# name=value, the value a quoted string, a list literal or a bare word (or nothing: "pass
# labels= (an XML file, ...)"). Not preceded by a word character, '.' or '-', so that
# "load_mat(..., label_copies=" and "--labels" are matched as intended and "n_labels=" not.
_ADVICE = re.compile(
    r"(?<![\w.\-])(" + "|".join(map(re.escape, PYTHON_TO_CLI)) + r")="
    r"(\[[^\]]*\]|'[^']*'|\"[^\"]*\"|[\w.\-]+)?"
)
# The runner relays warnings of worker processes as "Category: message" strings.
_CATEGORY_PREFIX = re.compile(r"^(?:[A-Z]\w*(?:Warning|Error)): ")


def _cli_value(value: str) -> str:
    """A Python literal as typed after the flag: quotes dropped, lists comma-joined."""
    try:
        v = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value
    if isinstance(v, (list, tuple)):
        return ",".join(map(str, v))
    return str(v)


def cli_text(message: str) -> str:
    """``message`` with Python keyword-argument advice given as ``mlfs`` flags.

    >>> cli_text("Pass label_copies='drop' to remove them")
    'Pass --label-copies drop to remove them'
    >>> cli_text("pass labels= (an XML file, a list of label names or a MEKA count)")
    'pass --labels (an XML file, a list of label names or a MEKA count)'
    >>> cli_text("e.g. labels=['a', 'b']")
    'e.g. --labels a,b'
    """

    def repl(m: re.Match) -> str:
        flag = PYTHON_TO_CLI[m.group(1)]
        return f"{flag} {_cli_value(m.group(2))}" if m.group(2) else flag

    return _ADVICE.sub(repl, message)


def format_warning(message: Warning | str, category: type[Warning] | None = None) -> str:
    """One line: ``warning: <message>``, in command-line terms (:func:`cli_text`)."""
    text = _CATEGORY_PREFIX.sub("", str(message).strip())
    return f"warning: {cli_text(' '.join(text.split()))}\n"


@contextlib.contextmanager
def warnings_for_the_command_line() -> Iterator[None]:
    """Print every warning raised inside as one clean line on stderr.

    Only the formatting is replaced (``warnings.formatwarning``), not the filters or
    ``showwarning``: a caller that records warnings (``pytest.warns``,
    ``warnings.catch_warnings(record=True)``) still receives them as they are.
    """
    saved = warnings.formatwarning

    def _format(message, category, filename, lineno, line=None):  # noqa: ARG001
        return format_warning(message, category)

    warnings.formatwarning = _format
    try:
        yield
    finally:
        warnings.formatwarning = saved


def print_error(command: str, exc: BaseException) -> None:
    """``mlfs <command>: error: <message>`` on one line of stderr, in command-line terms."""
    print(f"mlfs {command}: error: {cli_text(str(exc))}", file=sys.stderr)
