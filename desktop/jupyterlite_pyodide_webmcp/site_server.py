"""A static server for the built site, with the MIME types and caching Pyodide needs.

Tests also use it to serve a site the ways real hosts do: under a sub-path (as GitHub Pages serves
a project site), with extra headers (cross-origin isolation, a Content-Security-Policy), or
labelling `.gz` files `Content-Encoding: gzip` as some hosts do. With a folder (contents_api.py), it
also answers the Jupyter Contents API on that folder, and only to its own Host.
"""

import collections
import functools
import http.server
import json
import re
import sys
import threading
from pathlib import Path
from typing import Optional

# URLs that change whenever their content does: a build id in the query (the bridge's assets, `?v=`) or a
# content hash in the file name (JupyterLab's bundles). A browser may keep these without asking again.
CONTENT_ADDRESSED = re.compile(r"[?&]v=[0-9a-f]{8,}(&|$)|\.[0-9a-f]{7,}\.js(\?|$)")
IMMUTABLE = "public, max-age=31536000, immutable"


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs: content-addressed URLs cached for good, everything
    else revalidated on every load (as after a deploy)."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".whl": "application/zip",
        ".gz": "application/gzip",
    }

    def __init__(self, *args, prefix: str = "/", headers: Optional[dict] = None, gzip_encoding: bool = False,
                 folder=None, **kwargs):
        self.prefix = prefix
        self.extra_headers = headers or {}
        self.gzip_encoding = gzip_encoding
        self.folder = folder  # a contents_api.FolderAPI, or None
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        if self._refused() or self._answered_by_folder():
            return
        if self.folder is not None and self.path.startswith(self.prefix + "files/"):
            status, payload, headers = self.folder.file(self.path[len(self.prefix) - 1:], self.headers.get)
            return self._send(status, payload, headers)
        if self.folder is not None and self.path.split("?")[0] == self.prefix + "jupyter-lite.json":
            return self._send_site_config()
        super().do_GET()

    def do_HEAD(self) -> None:
        if not self._refused():
            super().do_HEAD()

    def do_PUT(self) -> None:
        if not self._refused() and not self._answered_by_folder():
            self.send_error(405)

    do_POST = do_PATCH = do_DELETE = do_PUT

    def _refused(self) -> bool:
        refusal = self.folder.host_refusal(self.headers.get("Host")) if self.folder is not None else None
        if refusal is not None:
            self._send(refusal.status, refusal.payload(), {})
        return refusal is not None

    def _answered_by_folder(self) -> bool:
        from .contents_api import API

        if self.folder is None or not re.match(re.escape(API) + r"([/?]|$)", self.path):
            return False
        size = int(self.headers.get("Content-Length") or 0)
        answer = self.folder.answer(self.command, self.path, self.rfile.read(size) if size else b"", self.headers.get)
        self._send(answer.status, answer.payload(), answer.headers)
        return True

    def _send_site_config(self) -> None:
        from .contents_api import LAB_CONFIG

        config = json.loads((Path(self.directory) / "jupyter-lite.json").read_text())
        data = config.setdefault("jupyter-config-data", {})
        for name, value in LAB_CONFIG["jupyter-config-data"].items():
            data[name] = [*data.get(name, []), *value] if isinstance(value, list) else value
        self._send(200, json.dumps(config).encode(), {})

    def _send(self, status: int, payload: bytes, headers: dict) -> None:
        self.send_response(status)
        if "Content-Type" not in headers:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD" and payload:
            self.wfile.write(payload)

    def translate_path(self, path: str) -> str:
        """Only paths under the prefix exist; they map to the site's root."""
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_prefix__")
        return super().translate_path("/" + path[len(self.prefix):])

    def end_headers(self) -> None:
        self.send_header("Cache-Control", IMMUTABLE if CONTENT_ADDRESSED.search(self.path) else "no-cache")
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        if self.gzip_encoding and self.path.split("?")[0].endswith(".gz"):
            self.send_header("Content-Encoding", "gzip")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.wfile = CountingWriter(self.wfile, lambda size: self.server.count(getattr(self, "path", ""), size))


class CountingWriter:
    """A response stream that reports how many bytes (headers and body) it sends."""

    def __init__(self, stream, report):
        self.stream = stream
        self.report = report

    def write(self, data) -> int:
        self.report(len(data))
        return self.stream.write(data)

    def __getattr__(self, name):
        return getattr(self.stream, name)


class SiteServer(http.server.ThreadingHTTPServer):
    """Also counts the bytes it serves, per path (the benchmark reads them)."""

    daemon_threads = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.served = collections.Counter()
        self.lock = threading.Lock()

    def count(self, path: str, size: int) -> None:
        with self.lock:
            self.served[path.split("?")[0]] += size

    def take_served(self) -> collections.Counter:
        """The bytes served per path since the last call."""
        with self.lock:
            served, self.served = self.served, collections.Counter()
        return served

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def site_server(port: int, directory: Path, **options) -> SiteServer:
    """A server of `directory`; options: prefix (a sub-path, "/myproj/"), headers, gzip_encoding, folder (a
    contents_api.FolderAPI, bound to the server's port here)."""
    server = SiteServer(("127.0.0.1", port), functools.partial(SiteHandler, directory=str(directory), **options))
    if options.get("folder") is not None:
        options["folder"].bind(server.server_address[1])
    return server


def serve(port: int, directory: Path) -> None:
    server = site_server(port, directory)
    print(f"Serving the site at http://127.0.0.1:{server.server_address[1]}/lab/index.html (Ctrl+C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
