"""WebMCP bridge for JupyterLite: notebook tools served from a main-thread Pyodide.

Importing the package builds the tool registry and touches no JavaScript;
only `start` does, so the package imports on CPython and can be snapshotted.
"""

import sys
from typing import Any

from . import tools  # noqa: F401  (registers the tools)
from .early import early_tools
from .registry import REGISTRY
from .text import to_json

__version__ = "0.1.0"


def prepare() -> int:
    """Build every tool's schemas now (run before the build-time memory snapshot)."""
    for tool in REGISTRY:
        tool.input_schema, tool.output_schema
    return len(REGISTRY)


def early_descriptors() -> str:
    """The tools as the host lists them before Python starts (JSON; made beside the build-time snapshot)."""
    return to_json(early_tools(REGISTRY))


def reseed() -> None:
    """Fresh randomness after a snapshot restore: a module-level seed was frozen at build time.

    (str hashing keeps its build-time secret: changing it would break every live dict.)
    """
    random = sys.modules.get("random")
    if random is not None:
        random.seed()


async def start(host: Any) -> int:
    """Register every tool with the page's WebMCP model context (called by the JS host)."""
    from .adapter import serve

    return await serve(host, REGISTRY)
