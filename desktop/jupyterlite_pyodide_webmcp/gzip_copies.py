"""gzip copies of a site's text and WebAssembly files, sent to browsers that accept them, as most hosts do
(GitHub Pages among them).

Beyond the bytes saved, it lets a private window download Pyodide's runtime once: its in-memory cache keeps
no response over 6.25 MiB, and the runtime is 9.2 MiB plain but 3.4 MiB gzipped, so the kernel's worker and
the bridge share one copy instead of each fetching its own. A copy is made once per version of its file, for
every server of the site in the process; the large files' copies as the first server starts, so the first
visitor does not wait for them.
"""

import functools
import gzip
import os
import stat
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Optional

COMPRESSIBLE = frozenset({".wasm", ".js", ".mjs", ".json", ".css", ".html", ".svg", ".ico", ".ttf", ".eot",
                          ".map", ".txt", ".md", ".xml", ".webmanifest", ".ipynb", ".py"})
SMALLEST = 1024  # below this, the gzip header costs about what it saves
MADE_AT_START = 256 * 1024  # files this large get their copy as the server starts
LEVEL = 6


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header lets the answer be gzipped ("gzip;q=0" refuses it)."""
    for coding in accept_encoding.lower().split(","):
        name, _, parameters = coding.partition(";")
        if name.strip() == "gzip":
            try:
                return float(parameters.strip().removeprefix("q=") or 1) > 0
            except ValueError:
                return False
    return False


class GzipCopies:
    """The copies, made when first asked for (or by `make_large()`), by one caller per file version."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.lock = threading.Lock()
        self.copies: dict[str, tuple[tuple[int, int], Future]] = {}

    def copy(self, path: str) -> Optional[bytes]:
        """The gzip of the file at `path`, or None when it is not a compressible file."""
        if Path(path).suffix.lower() not in COMPRESSIBLE:
            return None
        try:
            found = os.stat(path)
        except (OSError, ValueError):  # ValueError: a NUL in the path
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_size < SMALLEST:
            return None
        version = (found.st_mtime_ns, found.st_size)
        with self.lock:
            known = self.copies.get(path)
            mine = known is None or known[0] != version
            if mine:
                known = self.copies[path] = (version, Future())
        if mine:
            try:
                known[1].set_result(gzip.compress(Path(path).read_bytes(), LEVEL, mtime=0))
            except Exception:  # sent plain; never left unsettled for the callers waiting on it
                known[1].set_result(None)
        return known[1].result()

    def make_large(self) -> None:
        """Make the copies of the files of MADE_AT_START bytes or more."""
        for folder, _, names in os.walk(self.directory):
            for name in names:
                path = os.path.join(folder, name)
                try:
                    large = os.path.getsize(path) >= MADE_AT_START
                except OSError:
                    continue
                if large:
                    self.copy(path)


@functools.cache
def gzip_copies_of(directory: Path) -> GzipCopies:
    """One store of copies per site folder in a process, shared by its servers; the large files' copies are
    begun in the background at the first call."""
    copies = GzipCopies(directory)
    threading.Thread(target=copies.make_large, name="gzip copies", daemon=True).start()
    return copies
