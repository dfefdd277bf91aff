"""Mulan's XML label files (the label names of an ARFF file)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import quoteattr

from ._arff import ARFFError

__all__ = ["read_label_xml"]

PathLike = "str | os.PathLike[str]"


def read_label_xml(path: PathLike) -> list[str]:
    """Read the label names of a Mulan XML label file.

    Every ``<label name="...">`` element is returned in document order; nested
    (hierarchical) labels are included.  The namespace is ignored.

    Parameters
    ----------
    path : str or path-like
        The ``.xml`` file.

    Returns
    -------
    list of str

    Raises
    ------
    ARFFError
        If the XML is malformed, has no label, or names a label twice.
    """
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ARFFError(f"malformed XML label file: {exc}", path, exc.position[0]) from None
    except (LookupError, ValueError) as exc:
        # An unknown encoding="..." raises LookupError; one expat cannot decode
        # (UTF-32, shift_jis, utf-7) a ValueError that names no file.
        raise ARFFError(f"cannot decode XML label file: {exc}", path, 1) from None
    except OSError as exc:
        raise ARFFError(f"cannot read label file: {exc.strerror or exc}", path) from None
    names = [
        el.get("name")
        for el in root.iter()
        if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] == "label"
    ]
    if any(n is None for n in names):
        raise ARFFError("a <label> element has no name attribute", path)
    if not names:
        raise ARFFError("no <label name=...> element in the label file", path)
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise ARFFError(f"label {n!r} is listed twice", path, _xml_line(path, n))
        seen.add(n)
    return names  # type: ignore[return-value]


def _xml_line(path: Path, name: str) -> int | None:
    """Line of the label ``name`` in an XML file (for error messages only)."""

    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    forms = {f'"{name}"', f"'{name}'", quoteattr(name)}
    for k, line in enumerate(text.split("\n"), 1):
        if any(f in line for f in forms):
            return k
    return None
