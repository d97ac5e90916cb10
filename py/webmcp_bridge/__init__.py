"""WebMCP bridge for JupyterLite: notebook tools served from a main-thread Pyodide.

Importing the package builds the tool registry and touches no JavaScript;
only `start` does, so the package imports on CPython and can be snapshotted.
"""

from . import tools  # noqa: F401  (registers the tools)
from .registry import REGISTRY

__version__ = "0.1.0"


async def start(host) -> int:
    """Register every tool with the page's WebMCP model context (called by the JS host)."""
    from .adapter import serve

    return await serve(host, REGISTRY)
