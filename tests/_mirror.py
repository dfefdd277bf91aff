"""A local HTTP mirror of the data sets' source, for the tests of ``fetch`` and ``mlfs
fetch``: no test touches the network. Files are served from ``$MLFS_DATASETS`` by
http.server in a thread on 127.0.0.1, laid out as the source repository names them."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path

from skmlfs.datasets import REGISTRY


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_GET(self):
        self.server.requests.append(self.path)
        super().do_GET()


def start_server(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str, list[str]]:
    """Serve ``directory``; returns (server, base URL, list of request paths). Stop it with
    ``server.shutdown(); server.server_close()``."""
    handler = functools.partial(_Handler, directory=str(directory))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.requests = []
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/", srv.requests


def serve_like_the_source(tmp_path: Path, datasets_dir: Path, names) -> Path:
    """The reference Mulan files laid out as the source repository names them."""
    root = tmp_path / "source"
    for name in names:
        for rf in REGISTRY[name].files:
            dst = root / rf.path
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(datasets_dir / "mulan" / name / rf.local, dst)
    return root
