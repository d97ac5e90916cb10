"""A static server for the built site, with the MIME types and caching Pyodide needs."""

import functools
import http.server
import sys
from pathlib import Path

from .paths import SITE


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs, revalidated on every load (as after a deploy)."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".whl": "application/zip",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def site_server(port: int = 0, directory: Path = SITE) -> SiteServer:
    return SiteServer(("127.0.0.1", port), functools.partial(SiteHandler, directory=str(directory)))


def serve(port: int) -> None:
    server = site_server(port)
    print(f"Serving the demo site at http://127.0.0.1:{server.server_address[1]}/lab/index.html (Ctrl+C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
