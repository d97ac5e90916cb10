"""`python3 build.py mcp`: the package's own MCP server (`jupyterlite-pyodide-webmcp mcp`) on this checkout.

The same server a pip user runs, on the demo site built from this checkout's sources when they changed
(with `--contents DIR`, on that folder, read and written in place), with the browser profile kept in .cache/.
"""

from pathlib import Path
from typing import Any

from .demo_site import ensure_site
from .paths import CACHE, SITE

SERVER_NAME = "jupyterlite"
PROFILE = CACHE / "mcp-browser-profile"
DOCS_BUILD_PY = "/path/to/jupyterlite-pyodide-webmcp/build.py"


def host_config(build_py: str = DOCS_BUILD_PY) -> dict[str, Any]:
    """The JSON an MCP host takes for a clone (docs/connecting.md shows it; the tests run it)."""
    return {"mcpServers": {SERVER_NAME: {"command": "python3", "args": [build_py, "mcp"]}}}


def browser_profile(contents: Path | None) -> Path:
    """The kept browser profile: one for the demo, one per contents folder (each keeps its own lab state)."""
    from jupyterlite_pyodide_webmcp.sites import contents_key

    return PROFILE if contents is None else CACHE / "mcp-browser-profiles" / contents_key(contents)


def run(port: int, *, headless: bool | None = None, isolated: bool = False, contents: Path | None = None) -> int:
    from jupyterlite_pyodide_webmcp.cli import browser_or_reason, run_mcp
    from jupyterlite_pyodide_webmcp.contents_api import FolderAPI
    from jupyterlite_pyodide_webmcp.stdio import log

    chromium, _ = browser_or_reason()
    return run_mcp(site=SITE, prepare_site=lambda: ensure_site(chromium),
                   profile=None if isolated else browser_profile(contents), port=port, headless=headless,
                   folder=FolderAPI(contents, log=log) if contents else None)
