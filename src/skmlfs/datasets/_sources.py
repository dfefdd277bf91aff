"""Where the data sets are: the download registry (files, checksums, provenance), the
download cache and the data directories a name is looked up in.

Kept apart from :mod:`._fetch` (which downloads and then loads) so that the loaders can
resolve a name without importing the downloader: imports run ``_sources`` ← ``_load`` ←
``_fetch``, one way.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "REGISTRY",
    "FetchError",
    "RemoteDataset",
    "RemoteFile",
    "data_home",
    "dataset_locations",
    "find_dataset",
    "registry_key",
]


SOURCE_REPOSITORY = "mrapp-ke/Boomer-Datasets"


SOURCE_COMMIT = "f7e13d57a83f95c00098252641d69f78a8d0c204"


PLCFS_REPOSITORY = "minercode625/PLCFS"


PLCFS_COMMIT = "90c8f16781ebb4193e05d37bed7ce308dba1129e"


# GitHub serves the content of Git LFS files from media.githubusercontent.com (its
# raw.githubusercontent.com answers with the pointer file) and ordinary blobs from
# raw.githubusercontent.com; both URLs are pinned to the commit.
LFS_BASE_URL = f"https://media.githubusercontent.com/media/{SOURCE_REPOSITORY}/{SOURCE_COMMIT}/"


BLOB_BASE_URL = f"https://raw.githubusercontent.com/{SOURCE_REPOSITORY}/{SOURCE_COMMIT}/"


PLCFS_BASE_URL = f"https://raw.githubusercontent.com/{PLCFS_REPOSITORY}/{PLCFS_COMMIT}/"


#: Where each collection's files come from (the provenance printed by ``mlfs fetch --list``).
PROVENANCE = {
    "mulan": (
        f"github.com/{SOURCE_REPOSITORY} at commit {SOURCE_COMMIT}: sha256 and size of the "
        "ARFF files from their Git LFS pointer files, Git blob ids of the XML files from "
        "the commit's tree"
    ),
    "plcfs": (
        f"github.com/{PLCFS_REPOSITORY} at commit {PLCFS_COMMIT} (folder Dataset/): Git blob "
        "ids and sizes of the .mat files from the commit's tree"
    ),
}


class FetchError(OSError):
    """A download failed: no connection, HTTP error, or a checksum or size mismatch."""


@dataclass(frozen=True)
class RemoteFile:
    """One file of a registered data set.

    ``path`` is the file's path in the source repository (appended to the base URL),
    ``local`` its name in the cache; exactly one of ``sha256`` (hex) and ``git_sha1``
    (hex Git blob id) is set, with the byte ``size``.
    """

    path: str
    local: str
    size: int
    sha256: str | None = None
    git_sha1: str | None = None
    #: ``(old, new, sha256 of the result)``: a correction applied once after the download
    #: was verified; the cache holds the corrected file
    fix: tuple[str, str, str] | None = None

    def cached_size(self) -> int:
        if self.fix is None:
            return self.size
        return self.size + len(self.fix[1].encode()) - len(self.fix[0].encode())

    def apply_fix(self, data: bytes) -> bytes:
        """The corrected content (:attr:`fix`), or a :class:`FetchError` if it does not
        apply exactly once or does not give the recorded checksum."""
        old, new, want = self.fix  # type: ignore[misc]
        if data.count(old.encode()) != 1:
            raise FetchError(f"{self.path}: the registered correction {old!r} -> {new!r} "
                             "does not apply once")
        out = data.replace(old.encode(), new.encode())
        if hashlib.sha256(out).hexdigest() != want:
            raise FetchError(f"{self.path}: the corrected file does not have sha256 {want}")
        return out

    def checksum(self) -> tuple[str, str]:
        if self.sha256:
            return "sha256", self.sha256
        if self.git_sha1:
            return "git blob sha1", self.git_sha1
        raise ValueError(f"registry entry {self.path!r} has no checksum")

    def hasher(self) -> Any:
        if self.sha256:
            return hashlib.sha256()
        h = hashlib.sha1(usedforsecurity=False)
        h.update(b"blob %d\0" % self.size)  # Git hashes the header "blob <size>\0" first
        return h


@dataclass(frozen=True)
class RemoteDataset:
    """A data set of the registry: its files and where their checksums come from."""

    name: str
    files: tuple[RemoteFile, ...]
    provenance: str = PROVENANCE["mulan"]
    #: ``"mulan"`` (cached as ``mulan/<name>/<file>``) or ``"plcfs"`` (``plcfs/<file>``)
    collection: str = "mulan"

    @property
    def key(self) -> str:
        """The name :data:`REGISTRY` knows it by: ``"emotions"``, ``"plcfs/emotions"``."""
        return self.name if self.collection == "mulan" else f"{self.collection}/{self.name}"

    def folder(self, home: Path) -> Path:
        """Where its files go in the cache ``home``."""
        if self.collection == "mulan":
            return home / "mulan" / self.name
        return home / self.collection

    def cached(self, home: Path) -> bool:
        return all((self.folder(home) / f.local).is_file() for f in self.files)

    def load_spec(self) -> str:
        """The :func:`~skmlfs.datasets.load_name` name of the cached files."""
        return f"{self.collection}/{self.name}"


def _read_registry() -> dict[str, tuple[RemoteFile, ...]]:
    """The files of every data set, from the checksum table shipped next to this module
    (``_fetch_registry.txt``: one file a line, in the order :func:`fetch` downloads them)."""
    files: dict[str, list[RemoteFile]] = {}
    text = (Path(__file__).parent / "_fetch_registry.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, path, local, size, checksum, *fix = line.split()
        kind, digest = checksum.split(":")
        key = {"sha256": "sha256", "git-sha1": "git_sha1"}[kind]
        extra: dict[str, Any] = {key: digest}
        if fix:  # fix:<old>|<new>|<sha256 of the corrected file>
            old, new, want = fix[0].removeprefix("fix:").split("|")
            extra["fix"] = (old, new, want)
        files.setdefault(name, []).append(RemoteFile(path, local, int(size), **extra))
    return {name: tuple(fs) for name, fs in files.items()}


def _entry(key: str, files: tuple[RemoteFile, ...]) -> RemoteDataset:
    collection, _, name = key.rpartition("/")
    collection = collection or "mulan"
    return RemoteDataset(name, files, PROVENANCE[collection], collection)


_FILES = _read_registry()


#: The data sets :func:`fetch` knows, by name: ``"emotions"`` (Mulan's ARFF + XML) or
#: ``"plcfs/emotions"`` (the PLCFS ``.mat`` file with the authors' splits).
REGISTRY: dict[str, RemoteDataset] = {n: _entry(n, f) for n, f in _FILES.items()}


def registry_key(name: str, registry: Mapping[str, RemoteDataset] | None = None) -> str | None:
    """The :data:`REGISTRY` key of ``name`` (case-insensitive), or None.

    ``"emotions"`` and ``"mulan/emotions"`` name the Mulan set; ``"plcfs/emotions"`` the
    PLCFS file; a bare name no Mulan entry has (``"genbase"``) names the one other
    collection's entry that has it, if exactly one does.
    """
    reg = REGISTRY if registry is None else registry
    found = {k.lower(): k for k in reg}
    collection, _, base = name.strip("/").rpartition("/")
    base = base.lower()
    if collection.lower() in ("", "mulan") and base in found:
        return found[base]
    if collection:
        return found.get(f"{collection.lower()}/{base}")
    hits = [k for low, k in found.items() if low.rpartition("/")[2] == base]
    return hits[0] if len(hits) == 1 else None


def data_home(data_home: str | os.PathLike[str] | None = None) -> Path:
    """The download cache: ``data_home``, else ``$MLFS_DATA_HOME``, else ``~/scikit_mlfs_data``."""
    if data_home is not None:
        return Path(data_home).expanduser()
    env = os.environ.get("MLFS_DATA_HOME")
    return Path(env).expanduser() if env else Path.home() / "scikit_mlfs_data"


def dataset_locations(data_home_: str | os.PathLike[str] | None = None) -> list[tuple[str, Path]]:
    """The data directories searched for a data set given by name, in order.

    ``$MLFS_DATASETS`` (when set), then the download cache (:func:`data_home`).
    """
    out: list[tuple[str, Path]] = []
    env = os.environ.get("MLFS_DATASETS")
    if env:
        out.append(("MLFS_DATASETS", Path(env)))
    out.append(("download cache", data_home(data_home_)))
    return out


_SUFFIXES = (".arff", ".mat", ".xml", ".csv", ".tsv", ".tab", ".parquet", ".pq")


def _name_candidates(root: Path, name: str) -> tuple[str | None, list[Path]]:
    """The ``load_name`` spec found under ``root`` for ``name`` (or None) and the places tried."""
    collection, _, base = name.strip("/").rpartition("/")
    collection = collection or "mulan"
    if collection == "plcfs":
        p = root / "plcfs" / f"{base}.mat"
        return (f"plcfs/{base}" if p.is_file() else None), [p]
    d = root / collection / base
    if d.is_dir():
        return f"{collection}/{base}", [d]
    parent = root / collection
    if parent.is_dir():
        hits = [e for e in parent.iterdir() if e.is_dir() and e.name.lower() == base.lower()]
        if len(hits) == 1:
            return f"{collection}/{base}", [d]
    return None, [d]


def find_dataset(spec: str | os.PathLike[str]) -> tuple[Path | None, Path | None, str | None]:
    """Resolve a file path or a data set name to where it is.

    Returns ``(file, root, name)``: ``file`` an existing path (given directly, or relative
    to a data directory), or ``root`` and ``name`` for :func:`load_name`.

    Raises
    ------
    FileNotFoundError
        Nothing found; the message lists every place tried and, for a registered name,
        how to download it.
    """
    p = Path(spec)
    if p.is_file():
        return p, None, None
    text = str(spec)
    tried: list[str] = [f"{p.resolve()} (as a path)"]
    suffix = p.suffix.lower()
    # "emotions.arff" may name the data set "emotions"; "x.json" is a file, never a name.
    stem_name: str | None = text[: -len(p.suffix)] if suffix in _SUFFIXES else text
    if suffix and suffix not in _SUFFIXES and not re.fullmatch(r"\.\d+", suffix):
        stem_name = None
    for label, root in dataset_locations():
        if p.is_absolute():
            continue
        rel = root / p
        if rel.is_file():
            return rel, None, None
        if suffix:
            tried.append(f"{rel} ({label})")
        if stem_name is None or stem_name.strip("/").count("/") > 1:
            continue  # not a name: names are "<name>" or "<collection>/<name>"
        name, places = _name_candidates(root, stem_name)
        if name is not None:
            return None, root, name
        tried += [f"{q}{'/' if q.suffix == '' else ''} ({label})" for q in places]
    if not os.environ.get("MLFS_DATASETS") and not p.is_absolute():
        tried.append("$MLFS_DATASETS is not set")
    msg = f"{text!r} is not a file, nor a data set name found; looked in: " + "; ".join(tried)
    key = registry_key(stem_name or "")
    wanted = (stem_name or "").strip("/").rpartition("/")[0] or "mulan"
    if key is not None and REGISTRY[key].collection == wanted:
        msg += f". Download it with `mlfs fetch {key}` or skmlfs.datasets.fetch({key!r})"
    raise FileNotFoundError(msg)
