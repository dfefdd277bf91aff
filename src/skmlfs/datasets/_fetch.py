"""Standard multi-label data sets by name: download, verify, cache, and find them again.

Source
------
The files come from the public GitHub repository ``mrapp-ke/Boomer-Datasets``, pinned to
commit ``f7e13d57a83f95c00098252641d69f78a8d0c204`` (8 August 2022), which redistributes
the Mulan and MEKA benchmark sets in Mulan's format (ARFF + XML label file). The
checksums in ``_fetch_registry.txt`` (next to this module) are the ones that repository
itself publishes:

* ARFF files are stored with Git LFS: the repository holds a pointer file per ARFF file
  (``version https://git-lfs.github.com/spec/v1`` / ``oid sha256:<hex>`` / ``size <n>``);
  ``sha256`` and ``size`` are copied from those pointer files at the pinned commit.
* XML label files are ordinary Git blobs: ``git_sha1`` is the blob id in the tree of the
  pinned commit (the SHA-1 of ``b"blob <size>\\0" + content``), ``size`` its length.

Only data sets whose files were checked to load with :func:`~skmlfs.datasets.load` are
listed (the ARFF and XML files of every entry are byte-identical to the copies of the Mulan
distribution used in this project's tests). One file is corrected after its download:
Boomer's ``delicious.xml`` names a label ``TTAG_m\\'usica`` that its ARFF file does not
declare (Mulan's says ``TAG_m\\'usica``). The registry entry keeps the Git blob id of
Boomer's file, which is checked first; the one substitution is then applied and the result
checked against the sha256 recorded with it (Mulan's ``delicious.xml`` without its final
newline). Only the corrected file is cached.

The PLCFS ``.mat`` files (``plcfs/emotions``, ``plcfs/enron``, ``plcfs/genbase``,
``plcfs/medical``, ``plcfs/yeast``: the data of the SCLS and memetic-FS papers, with the
authors' 50 train/test splits in ``sim_seq``) come from the public GitHub repository
``minercode625/PLCFS`` (the code of Lee & Kim's memetic feature selection), pinned to commit
``90c8f16781ebb4193e05d37bed7ce308dba1129e`` (24 April 2023), folder ``Dataset/``. They are
ordinary Git blobs: ``git_sha1`` is the blob id in the tree of that commit and ``size`` its
length. The authors' files hold, besides ``data``/``answer``/``sim_seq`` (and
``data_dis`` for emotions and yeast), a few more variables (e.g. their selected feature
lists); :func:`~skmlfs.datasets.load_mat` reads only the ones it knows.

Downloads go to ``<data home>/mulan/<name>/`` (Mulan sets) and ``<data home>/plcfs/<name>.mat``
(PLCFS sets), where the data home is ``$MLFS_DATA_HOME`` or ``~/scikit_mlfs_data``: the layout
of ``$MLFS_DATASETS``, so :func:`~skmlfs.datasets.load_name` (and experiment files that say
``path = "plcfs/enron.mat"``) read the cache like any data directory.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._dataset import MultiLabelDataset
from ._load import load_name
from ._sources import (
    BLOB_BASE_URL,
    LFS_BASE_URL,
    PLCFS_BASE_URL,
    REGISTRY,
    FetchError,
    RemoteDataset,
    RemoteFile,
    data_home,
    registry_key,
)

__all__ = ["fetch"]

_CHUNK = 1 << 20


_home = data_home  # fetch() takes a parameter of the same name


def base_url_for(
    base_url: str | None, rf: RemoteFile | None = None, collection: str = "mulan"
) -> str:
    """``base_url``, else ``$MLFS_DATA_URL`` (one mirror for every file: each file at its
    path in its source repository), else the source's URL for the collection and kind of
    file (Git LFS content or ordinary blob)."""
    url = base_url or os.environ.get("MLFS_DATA_URL")
    if not url and collection == "plcfs":
        url = PLCFS_BASE_URL
    if not url:
        url = BLOB_BASE_URL if rf is not None and rf.git_sha1 else LFS_BASE_URL
    return url if url.endswith("/") else url + "/"


def _verify(path: Path, rf: RemoteFile) -> tuple[bool, str]:
    """Whether ``path`` has the registered size and checksum (of the corrected file for an
    entry with a fix), and the checksum found."""
    if path.stat().st_size != rf.cached_size():
        return False, f"size {path.stat().st_size}"
    if rf.fix is not None:
        got = hashlib.sha256(path.read_bytes()).hexdigest()
        return got == rf.fix[2], got
    h = rf.hasher()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest() == rf.checksum()[1], h.hexdigest()


def _download(url: str, target: Path, rf: RemoteFile, timeout: float) -> None:
    """Download ``url`` to ``target`` atomically: a temporary file beside it, verified, renamed.

    A failed or mismatched download leaves nothing behind (the temporary file is removed),
    so a later run never mistakes a partial file for the data set.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        h = rf.hasher()
        size = 0
        announced = None
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
                announced = resp.headers.get("Content-Length")
                for chunk in iter(lambda: resp.read(_CHUNK), b""):
                    out.write(chunk)
                    h.update(chunk)
                    size += len(chunk)
        except urllib.error.HTTPError as exc:
            raise FetchError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
        except http.client.HTTPException as exc:  # e.g. the connection closed mid-file
            raise FetchError(f"download of {url} broke off: {exc!r}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(
                f"cannot download {url}: {reason}. Are you offline? Copy the files into "
                f"{target.parent} yourself, or set MLFS_DATA_URL to a mirror of the source."
            ) from None
        if announced and announced.isdigit() and size < int(announced):
            raise FetchError(
                f"download of {url} broke off after {size} of {announced} bytes; nothing was "
                "written, retry"
            )
        algo, want = rf.checksum()
        got = h.hexdigest()
        if size != rf.size or got != want:
            with tmp.open("rb") as fh:
                pointer = fh.read(64).startswith(b"version https://git-lfs.github.com/spec/")
            why = (
                "The server sent a Git LFS pointer file, not the data: the base URL must "
                "serve LFS content."
                if pointer
                else "The source or a proxy served a different file; retry, or check "
                "MLFS_DATA_URL."
            )
            raise FetchError(
                f"checksum mismatch for {url}: expected {rf.size} bytes with {algo} {want}, "
                f"got {size} bytes with {algo} {got}; the download was discarded (nothing "
                f"written). {why}"
            )
        if rf.fix is not None:
            tmp.write_bytes(rf.apply_fix(tmp.read_bytes()))
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()


def fetch(
    name: str,
    *,
    data_home: str | os.PathLike[str] | None = None,
    base_url: str | None = None,
    registry: Mapping[str, RemoteDataset] | None = None,
    download: bool = True,
    timeout: float = 60.0,
    **load_options: Any,
) -> MultiLabelDataset:
    """Download a standard multi-label data set by name (once) and load it.

    Parameters
    ----------
    name : str
        A name of :data:`REGISTRY` (``"emotions"``, ``"scene"``, ``"yeast"``, ...;
        case-insensitive; ``"mulan/emotions"`` is accepted), or a PLCFS ``.mat`` set
        (``"plcfs/enron"``, ``"plcfs/genbase"``, ...; see :func:`registry_key`).
    data_home : str or path-like, optional
        The cache directory; default ``$MLFS_DATA_HOME`` or ``~/scikit_mlfs_data``. Files
        go to ``<data_home>/mulan/<name>/`` or ``<data_home>/plcfs/<name>.mat``.
    base_url : str, optional
        Where the registry's file paths are fetched from; default ``$MLFS_DATA_URL`` or
        the pinned commit of the source repository (Git LFS content from
        ``media.githubusercontent.com``, ordinary blobs from ``raw.githubusercontent.com``).
    registry : mapping, optional
        Name -> :class:`RemoteDataset`; default :data:`REGISTRY`.
    download : bool, default True
        If False, only use the cache and raise :class:`FileNotFoundError` when a file is
        missing.
    timeout : float, default 60
        Seconds to wait for the server.
    **load_options
        Passed to :func:`~skmlfs.datasets.load_name` (``labels``, ``missing``).

    Returns
    -------
    MultiLabelDataset
        The same object :func:`~skmlfs.datasets.load` returns for the downloaded files.

    Raises
    ------
    KeyError
        Unknown name (the message lists the known ones).
    FetchError
        No connection, an HTTP error, or a file whose size or checksum differs from the
        registry (the bad download is deleted).

    Notes
    -----
    Files already in the cache are verified (size and checksum) and not downloaded
    again; a cached file that fails verification is downloaded again.
    """
    reg = REGISTRY if registry is None else registry
    key = registry_key(name, reg)
    if key is None:
        raise KeyError(f"unknown data set {name!r}; known: {', '.join(sorted(reg))}")
    entry = reg[key]
    home = _home(data_home)
    folder = entry.folder(home)
    existed = folder.is_dir()
    try:
        for rf in entry.files:
            target = folder / rf.local
            if target.is_file():
                ok, _ = _verify(target, rf)
                if ok:
                    continue
            if not download:
                raise FileNotFoundError(
                    f"{target} is missing or does not match its checksum (download=False)"
                )
            url = base_url_for(base_url, rf, entry.collection) + rf.path
            _download(url, target, rf, timeout)
    except BaseException:
        # An empty folder would make the name resolve to a data set with no files.
        if not existed and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
        raise
    return load_name(entry.load_spec(), root=home, **load_options)
