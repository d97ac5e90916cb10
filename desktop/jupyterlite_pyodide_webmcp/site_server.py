"""The local server of the lab: the built site as static files, with the MIME types and caching Pyodide
needs, on tornado, the web server Jupyter Server runs on.

Text and WebAssembly go out gzipped to browsers that accept it, as from most hosts (gzip_copies.py). Tests also
use it to serve a site the other ways real hosts do: under a sub-path (as GitHub Pages serves a project site),
with extra headers (cross-origin isolation, a Content-Security-Policy), uncompressed, or labelling `.br` files
`Content-Encoding: br` as some hosts do. With a folder (contents_api.py), Jupyter Server's application
serves the folder's contents and files beside the site, to this run's lab only.

Every request is answered: tornado answers a malformed request line or version (400), a method no route
takes (405) and a body over BODY_LIMIT (400); a request line and headers over HEAD_LIMIT, which tornado
would drop without a word, are answered 431 here. A client has HEAD_SECONDS to send a request's line and
headers and BODY_SECONDS for its body, so a slow one cannot hold the server.
"""

import asyncio
import collections
import contextlib
import functools
import json
import os
import re
import socket
import threading
from collections.abc import Callable
from http.client import responses
from pathlib import Path
from typing import Optional

from tornado.httpserver import HTTPServer
from tornado.iostream import IOStream, UnsatisfiableReadError
from tornado.netutil import bind_sockets
from tornado.web import (
    Application,
    HTTPError,
    OutputTransform,
    RequestHandler,
    StaticFileHandler,
)

from .gzip_copies import COMPRESSIBLE, GzipCopies, accepts_gzip, gzip_copies_of
from .stopping import ctrl_c_stops

# URLs that change whenever their content does: a build id in the query (the bridge's assets, `?v=`) or a
# content hash in the file name (JupyterLab's bundles). A browser may keep these without asking again.
CONTENT_ADDRESSED = re.compile(r"[?&]v=[0-9a-f]{8,}(&|$)|\.[0-9a-f]{7,}\.js(\?|$)")
IMMUTABLE = "public, max-age=31536000, immutable"
MIME_TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
              ".json": "application/json", ".whl": "application/zip", ".br": "application/octet-stream"}

HEAD_LIMIT = 64 * 1024  # a request's line and headers: tornado's own bound
BODY_LIMIT = 256 * 1024 * 1024  # far above any notebook a lab in the browser can hold, far below the memory
HEAD_SECONDS = 10  # to send a request's line and headers; an idle connection is closed after as long
BODY_SECONDS = 60
CLOSE_SECONDS = 3  # for the open connections to close once the server stops
TOO_LARGE_WHY = b"the request line and headers are over %d KiB here\n" % (HEAD_LIMIT // 1024)
HEAD_TOO_LARGE = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(TOO_LARGE_WHY), TOO_LARGE_WHY))


def json_error(handler: RequestHandler, status_code: int, **kwargs) -> None:
    """An error as Jupyter Server's API writes one: {"message", "reason"}, the message saying why."""
    failure = kwargs.get("exc_info", (None, None))[1]
    message = getattr(failure, "log_message", None) or responses.get(status_code, "Unknown error")
    handler.set_header("Content-Type", "application/json")
    handler.finish(json.dumps({"message": message, "reason": getattr(failure, "reason", None)}))


class SiteFiles(StaticFileHandler):
    """The site's files, with the MIME types Pyodide needs; a folder's index.html for the folder. Links in the
    site are followed wherever they point, as a site may be put together from links."""

    def initialize(self, path: str, gzip_copies: Optional[GzipCopies] = None) -> None:
        super().initialize(path, default_filename="index.html", allowed_symlink_directory=os.path.abspath(os.sep))
        self.gzip_copies = gzip_copies
        self.encoded: Optional[bytes] = None

    async def get(self, path: str, include_body: bool = True) -> None:
        self.encoded = await self.gzip_copy(path)
        if self.encoded is None:
            return await super().get(path, include_body)
        # StaticFileHandler.get's steps, sending the gzip copy whole (a range asks for the plain file)
        self.path = self.parse_url_path(path)
        self.absolute_path = self.validate_absolute_path(self.root, self.get_absolute_path(self.root, self.path))
        if self.absolute_path is None:
            return
        self.modified = self.get_modified_time()
        self.set_headers()
        self.clear_header("Accept-Ranges")
        if self.should_return_304():
            self.set_status(304)
            return
        self.set_header("Content-Length", len(self.encoded))
        if include_body:
            self.write(self.encoded)

    async def gzip_copy(self, path: str) -> Optional[bytes]:
        """The gzip copy to send for `path`, if the browser takes one and the file is in the site."""
        if (self.gzip_copies is None or "Range" in self.request.headers
                or not accepts_gzip(self.request.headers.get("Accept-Encoding", ""))):
            return None
        root = os.path.abspath(self.root)
        candidate = self.get_absolute_path(root, self.parse_url_path(path))
        if not candidate.startswith(root + os.sep):
            return None
        if os.path.isdir(candidate):  # a folder's index.html, as validate_absolute_path picks it
            candidate = os.path.join(candidate, self.default_filename)
        return await asyncio.get_running_loop().run_in_executor(None, self.gzip_copies.copy, candidate)

    def validate_absolute_path(self, root: str, absolute_path: str) -> Optional[str]:
        if "\0" in absolute_path:  # no file's name has one; os.path would raise
            raise HTTPError(404)
        return super().validate_absolute_path(root, absolute_path)

    def compute_etag(self) -> Optional[str]:
        etag = super().compute_etag()
        return f'{etag[:-1]}-gzip"' if etag and self.encoded is not None else etag

    def set_extra_headers(self, path: str) -> None:
        if Path(self.absolute_path).suffix.lower() in COMPRESSIBLE:
            self.set_header("Vary", "Accept-Encoding")
        if self.encoded is not None:
            self.set_header("Content-Encoding", "gzip")

    def get_content_type(self) -> str:
        return MIME_TYPES.get(Path(self.absolute_path).suffix) or super().get_content_type()

    def get_cache_time(self, path, modified, mime_type) -> int:
        return 0  # SiteAnswers sets Cache-Control, on every answer

    def write_error(self, status_code: int, **kwargs) -> None:
        json_error(self, status_code, **kwargs)


class SiteAnswers(OutputTransform):
    """What every answer of the server carries, whichever handler wrote it: a Cache-Control for its URL
    (content-addressed URLs kept for good, everything else revalidated on every load, as after a deploy), the
    server's extra headers and the brotli label; and the bytes it sends, counted for the benchmark."""

    def __init__(self, request, server: "SiteServer"):
        self.uri = request.uri
        self.server = server

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        headers["Cache-Control"] = IMMUTABLE if CONTENT_ADDRESSED.search(self.uri) else "no-cache"
        for name, value in self.server.headers.items():
            headers[name] = value
        if self.server.brotli_encoding and self.uri.split("?")[0].endswith(".br"):
            headers["Content-Encoding"] = "br"
        head = len(f"HTTP/1.1 {status_code} \r\n\r\n") + sum(len(f"{name}: {value}\r\n")
                                                            for name, value in headers.get_all())
        self.server.count(self.uri, head + len(chunk))
        return status_code, headers, chunk

    def transform_chunk(self, chunk, finishing):
        self.server.count(self.uri, len(chunk))
        return chunk


class HeadAnsweringStream(IOStream):
    """A connection that answers 431 to a read over its bound (a request line and headers over HEAD_LIMIT; also a
    chunked body's size line over 64 bytes) before tornado closes it."""

    def close(self, exc_info=False) -> None:
        if isinstance(exc_info, UnsatisfiableReadError) and not self.closed():
            with contextlib.suppress(OSError):
                for _ in range(64):  # what the client sent on is read first, so the answer is not lost to a reset
                    if not self.socket.recv(HEAD_LIMIT):
                        break
            with contextlib.suppress(OSError):
                self.socket.send(HEAD_TOO_LARGE)
        super().close(exc_info)


class AnsweringHTTPServer(HTTPServer):
    """tornado's HTTP server, on connections that answer a request head over the limit."""

    def handle_stream(self, stream: IOStream, address) -> None:
        answering = HeadAnsweringStream(stream.socket, max_buffer_size=stream.max_buffer_size,
                                        read_chunk_size=stream.read_chunk_size)
        super().handle_stream(answering, address)


class SiteServer:
    """The server, bound to 127.0.0.1 at once (a taken port fails here) and serving from `serve_forever()`,
    in the thread that calls it, until `shutdown()`: the calls of Python's socketserver, which its users make.
    `application` makes the tornado application, in the serving thread. Also counts the bytes it serves, per
    path (the benchmark reads them)."""

    def __init__(self, port: int, application: Callable[[], Application], headers: Optional[dict] = None,
                 brotli_encoding: bool = False):
        self.sockets = bind_sockets(port, "127.0.0.1", family=socket.AF_INET)
        self.server_address = self.sockets[0].getsockname()[:2]
        self.application = application
        self.headers = headers or {}
        self.brotli_encoding = brotli_encoding
        self.served = collections.Counter()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.serving = threading.Event()
        self.stopped = threading.Event()

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self.serving.set()
        try:
            with ctrl_c_stops(self.stopping):
                asyncio.run(self._serve(poll_interval))
        finally:
            self.stopped.set()

    async def _serve(self, poll_interval: float) -> None:
        application = self.application()
        application.add_transform(lambda request: SiteAnswers(request, self))
        server = AnsweringHTTPServer(application, max_header_size=HEAD_LIMIT, max_body_size=BODY_LIMIT,
                                     idle_connection_timeout=HEAD_SECONDS, body_timeout=BODY_SECONDS)
        server.add_sockets(self.sockets)
        while not self.stopping.is_set():
            await asyncio.sleep(poll_interval)
        server.stop()
        with contextlib.suppress(asyncio.TimeoutError):  # a connection that will not close is dropped with the loop
            await asyncio.wait_for(server.close_all_connections(), CLOSE_SECONDS)

    def shutdown(self) -> None:
        """Stop serving, and wait until the server has."""
        self.stopping.set()
        if self.serving.is_set():
            self.stopped.wait()

    def server_close(self) -> None:
        for bound in self.sockets:
            bound.close()

    def count(self, uri: str, size: int) -> None:
        with self.lock:
            self.served[uri.split("?")[0]] += size

    def take_served(self) -> collections.Counter:
        """The bytes served per path since the last call."""
        with self.lock:
            served, self.served = self.served, collections.Counter()
        return served


def quiet(handler: RequestHandler) -> None:
    """No line per request: the lab asks for hundreds of files, and for some that are not there."""


def site_application(directory: Path, prefix: str = "/", gzip_copies: Optional[GzipCopies] = None) -> Application:
    """The site's files under `prefix`."""
    files = {"path": str(directory), "gzip_copies": gzip_copies}
    return Application([(re.escape(prefix) + "(.*)", SiteFiles, files)], log_function=quiet)


def site_server(port: int, directory: Path, prefix: str = "/", headers: Optional[dict] = None,
                brotli_encoding: bool = False, folder=None, compress: bool = True) -> SiteServer:
    """A server of `directory`; options: prefix (a sub-path, "/myproj/"), headers, brotli_encoding, folder (a
    contents_api.FolderAPI: the folder's contents and files beside the site), compress (False: every file
    sent as it is, as by a host that does not compress)."""
    gzip_copies = gzip_copies_of(Path(directory).resolve()) if compress else None
    application = site_application if folder is None else folder.application
    return SiteServer(port, functools.partial(application, directory, prefix, gzip_copies), headers=headers,
                      brotli_encoding=brotli_encoding)


def serve(port: int, directory: Path) -> None:
    server = site_server(port, directory)
    print(f"Serving the site at http://127.0.0.1:{server.server_address[1]}/lab/index.html (Ctrl+C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
