"""WebMCP bridge for JupyterLite: notebook tools served from a main-thread Pyodide.

Importing the package touches no JavaScript and imports no tool: `start` learns the tools from their
catalog, and a tool's module is imported on its first call (in the page, the memory snapshot already holds
every built-in one), so the package imports on CPython and its start is held in a memory snapshot.
"""

import sys
from collections.abc import Awaitable, Generator
from typing import Any

__version__ = "0.1.0"

STARTUP_MODULES = (
    "pydantic",
    "pyodide_webmcp.calls.catalog",
    "pyodide_webmcp.calls.schema",
    "pyodide_webmcp.calls.envelope",
    "pyodide_webmcp.calls.paging",
    "pyodide_webmcp.notebook.arguments",
    "pyodide_webmcp.notebook.source_edits",
    "pyodide_webmcp.kit",
    "pyodide_webmcp.ui.human_side",
    "pyodide_webmcp.tools",
)
"""What the snapshot maker imports, one at a time, before the memory snapshot is made (snapshot.mjs): what
serving needs, what most tools share, the human's views (built only when first needed) and the built-in tools'
package, whose every module (`tools.MODULES`) it imports next, so that no call waits for its tool's import."""


def reseed() -> None:
    """Fresh randomness after a snapshot restore: a module-level seed was frozen at build time.

    (str hashing keeps its build-time secret: changing it would break every live dict.)
    """
    random = sys.modules.get("random")
    if random is not None:
        random.seed()


def start(host: Any) -> Generator[None, None, Awaitable[int]]:
    """Register every tool with the page's WebMCP model context: run by the JS host one step per task (the
    page's turn between them); returns what resolves to how many tools took."""
    from .adapter import serve
    from .calls.catalog import load_catalog
    from .tools import BUILT_IN

    catalog = load_catalog(BUILT_IN)
    BUILT_IN.locate(catalog.modules())
    yield
    return (yield from serve(host, BUILT_IN, catalog))
