"""Data sets by name: fetch() into a checksummed cache, bare names in load() and the CLI.

No test touches the network: files are served from $MLFS_DATASETS by a local HTTP server
(http.server in a thread on 127.0.0.1), and registries are built here from the served files.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from _mirror import serve_like_the_source, start_server

from skmlfs.cli import main
from skmlfs.datasets import REGISTRY, FetchError, data_home, fetch, load
from skmlfs.datasets._fetch import _verify
from skmlfs.datasets._sources import RemoteDataset, RemoteFile


@pytest.fixture
def serve():
    """Start a local HTTP server on a directory; returns (base URL, list of request paths)."""
    servers = []

    def start(directory: Path) -> tuple[str, list[str]]:
        srv, url, requests = start_server(directory)
        servers.append(srv)
        return url, requests

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def _sha256(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _git_sha1(p: Path) -> str:
    data = p.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@pytest.fixture
def remote(tmp_path, dataset_path):
    """A served copy of emotions (ARFF + XML) and a registry computed from those files."""
    root = tmp_path / "remote"
    root.mkdir()
    arff = shutil.copy(dataset_path("mulan/emotions/emotions.arff"), root / "emo.arff")
    xml = shutil.copy(dataset_path("mulan/emotions/emotions.xml"), root / "emo.xml")
    arff, xml = Path(arff), Path(xml)
    reg = {
        "emotions": RemoteDataset(
            "emotions",
            (
                RemoteFile("emo.arff", "emotions.arff", arff.stat().st_size, sha256=_sha256(arff)),
                RemoteFile("emo.xml", "emotions.xml", xml.stat().st_size, git_sha1=_git_sha1(xml)),
            ),
        )
    }
    return root, reg


def _same(a, b):
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.Y, b.Y)
    assert a.feature_names == b.feature_names and a.label_names == b.label_names


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_fetch_downloads_verifies_caches_and_loads(tmp_path, remote, serve, dataset_path):
    root, reg = remote
    url, requests = serve(root)
    cache = tmp_path / "cache"
    ds = fetch("emotions", data_home=cache, base_url=url, registry=reg)
    _same(ds, load(dataset_path("mulan/emotions/emotions.arff")))
    assert ds.name == "emotions"
    folder = cache / "mulan" / "emotions"
    assert _leftovers(folder) == ["emotions.arff", "emotions.xml"]  # no temporary file left
    assert (folder / "emotions.arff").read_bytes() == (root / "emo.arff").read_bytes()
    assert sorted(requests) == ["/emo.arff", "/emo.xml"]
    # Cache reuse: no request at all the second time, same data.
    _same(fetch("emotions", data_home=cache, base_url=url, registry=reg), ds)
    assert len(requests) == 2
    # A damaged cached file fails verification and is downloaded again.
    (folder / "emotions.xml").write_text("damaged")
    fetch("EMOTIONS", data_home=cache, base_url=url, registry=reg)
    assert requests[2:] == ["/emo.xml"]
    assert _verify(folder / "emotions.xml", reg["emotions"].files[1])[0]


def test_checksum_mismatch_leaves_nothing_behind(tmp_path, remote, serve):
    root, reg = remote
    url, _ = serve(root)
    good = reg["emotions"].files[0]
    bad = {"emotions": RemoteDataset("emotions", (
        RemoteFile(good.path, good.local, good.size, sha256="0" * 64),))}
    cache = tmp_path / "cache"
    with pytest.raises(FetchError, match="checksum mismatch .* discarded"):
        fetch("emotions", data_home=cache, base_url=url, registry=bad)
    assert _leftovers(cache / "mulan" / "emotions") == []
    # A wrong size is a mismatch too (the body is served whole, the registry says otherwise).
    short = {"emotions": RemoteDataset("emotions", (
        RemoteFile(good.path, good.local, good.size - 1, sha256=good.sha256),))}
    with pytest.raises(FetchError, match=f"expected {good.size - 1} bytes"):
        fetch("emotions", data_home=cache, base_url=url, registry=short)
    assert _leftovers(cache / "mulan" / "emotions") == []
    # A server that hands out the Git LFS pointer instead of the file is named as such.
    (root / "pointer.arff").write_text(
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{good.sha256}\n"
        f"size {good.size}\n")
    lfs = {"emotions": RemoteDataset("emotions", (
        RemoteFile("pointer.arff", good.local, good.size, sha256=good.sha256),))}
    with pytest.raises(FetchError, match="sent a Git LFS pointer file"):
        fetch("emotions", data_home=cache, base_url=url, registry=lfs)
    assert _leftovers(cache / "mulan" / "emotions") == []


def test_connection_broken_mid_file_leaves_nothing(tmp_path, remote):
    root, reg = remote

    class Truncating(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            self.wfile.write(b"@relation x\n" * 100)  # then the connection closes

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Truncating)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        cache = tmp_path / "cache"
        with pytest.raises(FetchError, match="broke off after 1200 of 1000000 bytes"):
            fetch("emotions", data_home=cache, base_url=f"http://127.0.0.1:{srv.server_address[1]}",
                  registry=reg)
        assert _leftovers(cache / "mulan" / "emotions") == []
    finally:
        srv.shutdown()
        srv.server_close()


def test_offline_is_a_clear_message(tmp_path, remote, monkeypatch):
    _, reg = remote
    with socket.socket() as s:  # a port nobody listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cache = tmp_path / "cache"
    with pytest.raises(FetchError) as err:
        fetch("emotions", data_home=cache, base_url=f"http://127.0.0.1:{port}/", registry=reg)
    msg = str(err.value)
    assert "cannot download" in msg and "refused" in msg.lower() and "offline" in msg
    assert str(cache / "mulan" / "emotions") in msg  # where to put the files by hand
    assert not (cache / "mulan" / "emotions").exists()  # no empty folder posing as the set
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    monkeypatch.delenv("MLFS_DATASETS", raising=False)
    with pytest.raises(FileNotFoundError, match="not a file, nor a data set name found"):
        load("emotions")


def test_download_is_atomic(tmp_path, remote, serve, monkeypatch):
    """The file appears only by a rename of a complete, verified temporary file beside it."""
    root, reg = remote
    url, _ = serve(root)
    import skmlfs.datasets._fetch as F

    seen = []
    real_replace = os.replace

    def spy(src, dst):
        src, dst = Path(src), Path(dst)
        seen.append((src, dst, dst.exists(), src.stat().st_size))
        real_replace(src, dst)

    monkeypatch.setattr(F.os, "replace", spy)
    cache = tmp_path / "cache"
    fetch("emotions", data_home=cache, base_url=url, registry=reg)
    assert len(seen) == 2
    for (src, dst, existed, size), rf in zip(seen, reg["emotions"].files, strict=True):
        assert src.parent == dst.parent and src.name != dst.name and src.name.endswith(".part")
        assert not existed and size == rf.size


def test_unknown_name_lists_the_known_ones(tmp_path):
    with pytest.raises(KeyError, match="emotions"):
        fetch("no-such-set", data_home=tmp_path)


def test_data_home_default_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("MLFS_DATA_HOME", raising=False)
    assert data_home() == Path.home() / "scikit_mlfs_data"
    monkeypatch.setenv("MLFS_DATA_HOME", str(tmp_path))
    assert data_home() == tmp_path
    assert data_home(tmp_path / "x") == tmp_path / "x"


def test_registry_checksums_match_the_reference_files(datasets_dir):
    """Every registered file (sha256 from the source's Git LFS pointers, Git blob ids of the
    XML files) is byte-identical to the Mulan copy under $MLFS_DATASETS. (The PLCFS copies
    there were saved again with fewer variables, so their bytes differ from the source's.)"""
    for name, entry in REGISTRY.items():
        if entry.collection != "mulan":
            continue
        for rf in entry.files:
            local = datasets_dir / "mulan" / name / rf.local
            if rf.fix is not None:
                # delicious.xml: Boomer's blob is Mulan's file with one label misspelled and
                # no final newline; the correction gives Mulan's file without that newline
                old, new, want = rf.fix
                fixed = local.read_bytes().rstrip(b"\n")
                assert hashlib.sha256(fixed).hexdigest() == want, name
                source = fixed.replace(new.encode(), old.encode())
                assert hashlib.sha1(b"blob %d\0" % len(source) + source).hexdigest() == (
                    rf.git_sha1), name
                assert len(source) == rf.size and rf.apply_fix(source) == fixed
                continue
            ok, got = _verify(local, rf)
            assert ok, (name, rf.path, got)


def test_mlfs_fetch_then_bare_name_everywhere(tmp_path, datasets_dir, serve, monkeypatch, capsys):
    root = serve_like_the_source(tmp_path, datasets_dir, ["emotions", "scene"])
    url, requests = serve(root)
    cache = tmp_path / "cache"
    monkeypatch.setenv("MLFS_DATA_URL", url)
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    monkeypatch.delenv("MLFS_DATASETS")
    assert main(["fetch", "emotions", "scene"]) == 0
    out = capsys.readouterr().out
    assert "emotions: 593 patterns, 72 features, 6 labels" in out
    assert "scene: 2407 patterns, 294 features, 6 labels" in out
    assert len(requests) == 5
    # The bare name now works in Python and in every command, from the cache.
    ds = load("scene")
    assert ds.part is not None and ds.n_train == 1211  # Mulan's train/test parts
    _same(ds, load([datasets_dir / "mulan/scene/scene-train.arff",
                    datasets_dir / "mulan/scene/scene-test.arff"]))
    assert main(["info", "emotions", "scene"]) == 0
    assert "emotions" in capsys.readouterr().out
    assert main(["select", "emotions", "-k", "3"]) == 0
    out_arff = tmp_path / "red.arff"
    assert main(["transform", "emotions", "-k", "3", "-w", str(out_arff)]) == 0
    assert load(out_arff).n_features == 3
    assert len(requests) == 5  # all from the cache
    from skmlfs.experiments._spec import DatasetSpec  # experiment files: load = "emotions"

    _same(DatasetSpec(name="e", load_name="emotions").load(), load("emotions"))
    assert main(["fetch", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "emotions" in listing and "yes" in listing and "mrapp-ke/Boomer-Datasets" in listing


def test_missing_name_says_where_it_looked(tmp_path, monkeypatch, capsys):
    data = tmp_path / "data"
    (data / "mulan").mkdir(parents=True)
    cache = tmp_path / "cache"
    monkeypatch.setenv("MLFS_DATASETS", str(data))
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    with pytest.raises(FileNotFoundError) as err:
        load("nosuchset")
    msg = str(err.value)
    assert str(data / "mulan" / "nosuchset") in msg and str(cache / "mulan" / "nosuchset") in msg
    with pytest.raises(FileNotFoundError) as err:
        load("nosuchfile.arff")
    msg = str(err.value)
    assert str(data / "nosuchfile.arff") in msg and str(cache / "nosuchfile.arff") in msg
    # A registered name not downloaded yet: the message says how to get it.
    with pytest.raises(FileNotFoundError, match="mlfs fetch emotions"):
        load("emotions")
    for command in ("info", "select", "evaluate", "transform"):
        args = [command, "nosuchset"] + (["-w", str(tmp_path / "o.csv")] if command == "transform"
                                        else [])
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mlfs {command}: error:") and str(data / "mulan") in err
        assert str(cache / "mulan") in err and "\n" not in err.strip()


def test_offline_fetch_on_the_command_line(tmp_path, monkeypatch, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("MLFS_DATA_URL", f"http://127.0.0.1:{port}/")
    assert main(["fetch", "emotions", "--data-home", str(tmp_path)]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after the "from <url>" line
    assert last.startswith("mlfs fetch: error: cannot download") and "offline" in last
    assert main(["fetch", "nosuchset"]) == 2
    assert "unknown dataset name" in capsys.readouterr().err


def test_names_look_in_mlfs_datasets_first_then_the_cache(tmp_path, datasets_dir, monkeypatch):
    cache = tmp_path / "cache"
    tiny = cache / "mulan" / "emotions"
    tiny.mkdir(parents=True)
    (tiny / "emotions.arff").write_text(
        "@relation r\n@attribute x numeric\n@attribute l {0,1}\n@data\n1,0\n2,1\n")
    (tiny / "emotions.xml").write_text('<labels><label name="l"/></labels>')
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    monkeypatch.setenv("MLFS_DATASETS", str(datasets_dir))
    for spec in ("emotions", "emotions.arff", "mulan/emotions"):
        assert load(spec).n_samples == 593, spec
    assert load("mulan/emotions/emotions-test.arff").n_samples == 202  # relative to the root
    monkeypatch.delenv("MLFS_DATASETS")
    assert load("emotions").n_samples == 2


def test_default_urls_are_pinned_to_the_commit(monkeypatch):
    from skmlfs.datasets._fetch import base_url_for
    from skmlfs.datasets._sources import SOURCE_COMMIT

    monkeypatch.delenv("MLFS_DATA_URL", raising=False)
    arff, xml = REGISTRY["emotions"].files
    assert len(SOURCE_COMMIT) == 40
    assert base_url_for(None, arff) + arff.path == (
        f"https://media.githubusercontent.com/media/mrapp-ke/Boomer-Datasets/{SOURCE_COMMIT}/"
        "emotions.arff")  # Git LFS content
    assert base_url_for(None, xml) + xml.path == (
        f"https://raw.githubusercontent.com/mrapp-ke/Boomer-Datasets/{SOURCE_COMMIT}/"
        "emotions.xml")  # an ordinary blob
    monkeypatch.setenv("MLFS_DATA_URL", "http://mirror.example/x")
    assert base_url_for(None, arff) == base_url_for(None, xml) == "http://mirror.example/x/"
    assert base_url_for("http://other/", arff) == "http://other/"


# --------------------------------------------------------------------------- PLCFS (.mat) sets
_PLCFS = ("emotions", "enron", "genbase", "medical", "yeast")


def test_registry_has_the_plcfs_files_pinned_to_their_commit(monkeypatch):
    """The five .mat sets of the SCLS/memetic papers, as Git blobs of minercode625/PLCFS."""
    from skmlfs.datasets import registry_key
    from skmlfs.datasets._fetch import base_url_for
    from skmlfs.datasets._sources import PLCFS_COMMIT

    monkeypatch.delenv("MLFS_DATA_URL", raising=False)
    assert len(PLCFS_COMMIT) == 40
    for name in _PLCFS:
        entry = REGISTRY[f"plcfs/{name}"]
        assert entry.collection == "plcfs" and "minercode625/PLCFS" in entry.provenance
        (rf,) = entry.files
        assert rf.path == f"Dataset/{name}.mat" and rf.local == f"{name}.mat"
        assert rf.git_sha1 and len(rf.git_sha1) == 40 and rf.size > 0
        assert base_url_for(None, rf, "plcfs") + rf.path == (
            f"https://raw.githubusercontent.com/minercode625/PLCFS/{PLCFS_COMMIT}/"
            f"Dataset/{name}.mat")
        assert registry_key(f"PLCFS/{name}") == f"plcfs/{name}"
    # Bare names keep meaning the Mulan sets; a name only PLCFS has resolves to it.
    assert registry_key("emotions") == registry_key("mulan/emotions") == "emotions"
    assert registry_key("genbase") == "plcfs/genbase"
    assert registry_key("nosuchset") is None and registry_key("plcfs/scene") is None


@pytest.fixture
def plcfs_remote(tmp_path, datasets_dir):
    """The .mat files served at their paths in the source repository, and a registry of
    them (checksums computed here from the served files)."""
    root = tmp_path / "source"
    (root / "Dataset").mkdir(parents=True)
    reg = {}
    for name in ("enron", "genbase"):
        p = Path(shutil.copy(datasets_dir / "plcfs" / f"{name}.mat", root / "Dataset"))
        rf = RemoteFile(f"Dataset/{name}.mat", f"{name}.mat", p.stat().st_size,
                        git_sha1=_git_sha1(p))
        reg[f"plcfs/{name}"] = RemoteDataset(name, (rf,), "test", "plcfs")
    return root, reg


def test_fetch_plcfs_goes_where_names_and_experiments_find_it(
    tmp_path, plcfs_remote, serve, datasets_dir, monkeypatch
):
    from skmlfs.datasets import load_mat
    from skmlfs.experiments._spec import DatasetSpec

    root, reg = plcfs_remote
    url, requests = serve(root)
    cache = tmp_path / "cache"
    ds = fetch("plcfs/enron", data_home=cache, base_url=url, registry=reg)
    assert (cache / "plcfs" / "enron.mat").is_file() and requests == ["/Dataset/enron.mat"]
    ref = load_mat(datasets_dir / "plcfs" / "enron.mat")
    _same(ds, ref)
    np.testing.assert_array_equal(ds.split_masks, ref.split_masks)
    fetch("GENBASE", data_home=cache, base_url=url, registry=reg)  # bare: the PLCFS entry
    assert (cache / "plcfs" / "genbase.mat").is_file()
    fetch("plcfs/enron", data_home=cache, base_url=url, registry=reg)
    assert len(requests) == 2  # verified in the cache, not downloaded again
    # A new user: no $MLFS_DATASETS, the cache as the data directory.
    monkeypatch.delenv("MLFS_DATASETS")
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    _same(load("plcfs/enron"), ref)
    spec = DatasetSpec(name="enron", path="plcfs/enron.mat", base_dir=str(tmp_path))
    assert spec.resolved_path() == cache / "plcfs" / "enron.mat"
    _same(spec.load(), ref)
    with pytest.raises(FileNotFoundError, match="mlfs fetch plcfs/medical"):
        DatasetSpec(name="m", path="plcfs/medical.mat").resolved_path()


def test_scls_paper_datasets_can_all_be_fetched():
    """Every .mat file of experiments/scls_paper.toml is a registered download."""
    from skmlfs.datasets import registry_key
    from skmlfs.experiments import load_experiment

    spec = load_experiment(Path(__file__).parents[2] / "experiments" / "scls_paper.toml")
    mats = [d.path for d in spec.datasets if d.path and d.path.endswith(".mat")]
    assert len(mats) == 3
    for path in mats:
        key = registry_key(path[: -len(".mat")])
        assert key is not None and REGISTRY[key].collection == "plcfs", path
    # ... and every Mulan set by name (delicious with its label file corrected)
    names = [d.load_name for d in spec.datasets if d.load_name]
    assert len(names) == 5 and all(registry_key(n) is not None for n in names), names


def test_mlfs_fetch_of_a_set_in_mlfs_datasets_does_not_download(
    tmp_path, datasets_dir, serve, monkeypatch, capsys
):
    root = serve_like_the_source(tmp_path, datasets_dir, ["emotions"])
    url, requests = serve(root)
    cache = tmp_path / "cache"
    monkeypatch.setenv("MLFS_DATA_URL", url)
    monkeypatch.setenv("MLFS_DATA_HOME", str(cache))
    monkeypatch.setenv("MLFS_DATASETS", str(datasets_dir))
    assert main(["fetch", "emotions", "plcfs/enron"]) == 0
    out = capsys.readouterr().out
    assert f"emotions: already in $MLFS_DATASETS ({datasets_dir / 'mulan' / 'emotions'})" in out
    assert f"plcfs/enron: already in $MLFS_DATASETS ({datasets_dir / 'plcfs' / 'enron.mat'})" in out
    assert requests == [] and not cache.exists()
    # An explicit --data-home asks for a copy there.
    assert main(["fetch", "emotions", "--data-home", str(cache)]) == 0
    assert len(requests) == 2 and (cache / "mulan" / "emotions" / "emotions.arff").is_file()
    assert main(["fetch", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "plcfs/enron" in listing and "minercode625/PLCFS" in listing


def test_a_registered_correction_is_applied_once_and_cached(tmp_path, remote, serve,
                                                           dataset_path):
    """The source's file is verified by its own checksum, corrected, verified again, and
    only the corrected file is cached (delicious.xml misspells a label in the source)."""
    root, reg = remote
    good = (root / "emo.xml").read_bytes()
    bad = good.replace(b'"amazed-suprised"', b'"TTamazed-suprised"')
    (root / "emo.xml").write_bytes(bad)
    arff, xml = reg["emotions"].files
    fix = ('"TTamazed-suprised"', '"amazed-suprised"', hashlib.sha256(good).hexdigest())
    fixed_xml = RemoteFile("emo.xml", "emotions.xml", len(bad), git_sha1=hashlib.sha1(
        b"blob %d\0" % len(bad) + bad).hexdigest(), fix=fix)
    reg = {"emotions": RemoteDataset("emotions", (arff, fixed_xml))}
    url, requests = serve(root)
    cache = tmp_path / "cache"
    ds = fetch("emotions", data_home=cache, base_url=url, registry=reg)
    _same(ds, load(dataset_path("mulan/emotions/emotions.arff")))
    assert (cache / "mulan" / "emotions" / "emotions.xml").read_bytes() == good
    fetch("emotions", data_home=cache, base_url=url, registry=reg)
    assert len(requests) == 2  # the corrected file verifies in the cache
    wrong = RemoteFile("emo.xml", "emotions.xml", len(bad), git_sha1=fixed_xml.git_sha1,
                       fix=(fix[0], fix[1], "0" * 64))
    (cache / "mulan" / "emotions" / "emotions.xml").unlink()
    with pytest.raises(FetchError, match="corrected file does not have sha256"):
        fetch("emotions", data_home=cache, base_url=url,
              registry={"emotions": RemoteDataset("emotions", (arff, wrong))})
    assert not (cache / "mulan" / "emotions" / "emotions.xml").exists()
