"""`jupyterlite-pyodide-webmcp mcp`: the lab's notebook tools for a desktop MCP host, over stdio.

    jupyterlite-pyodide-webmcp mcp [--contents DIR] [--port N] [--headless | --headed] [--isolated]
    jupyterlite-pyodide-webmcp ship-pyodide [LITE_DIR]

Needs the `mcp` extra (`pip install 'jupyterlite-pyodide-webmcp[mcp]'`) and a Chromium-based browser
(Chrome, Chromium or Edge 146+, found as browser.py says). No Node.js.
"""

import argparse
import asyncio
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

from .browser import (
    WEBMCP_MIN_VERSION,
    browser_version,
    find_browser,
    major_version,
    missing_browser_help,
    this_machine,
)
from .stdio import keep_stdout_for_mcp, log, mcp_stdout

DEFAULT_PORT = 8000
LAB_PATH = "/lab/index.html"
COMMAND = "jupyterlite-pyodide-webmcp"


def has_display() -> bool:
    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def browser_or_reason() -> tuple[str | None, str | None]:
    """The browser to drive, or why there is none; warns when it is older than WebMCP."""
    machine = this_machine()
    chromium = find_browser(machine)
    if chromium is None:
        return None, missing_browser_help(machine)
    major = major_version(browser_version(machine, chromium))
    if major is not None and major < WEBMCP_MIN_VERSION:
        log(f"{chromium} is version {major}: WebMCP needs {WEBMCP_MIN_VERSION} or later. Update it, or set "
            "CHROME_PATH to a newer one")
    return chromium, None


def run_mcp(*, site: Path, prepare_site: Callable[[], Path], profile: Path | None, port: int = DEFAULT_PORT,
            headless: bool | None = None, manifest: Path | None = None) -> int:
    """Serve MCP on stdio until the host closes it. `prepare_site` builds `site` (run while the host is
    already answered); `profile` is the browser profile kept between sessions (None: a fresh one);
    `manifest`, the bridge's, lists the tools until the site's own is built."""
    from .lab_page import LabPage
    from .mcp_server import Catalog, PageTools, serve
    from .site_server import site_server
    from .sites import site_manifest

    stdout = mcp_stdout()
    chromium, no_browser = browser_or_reason()
    try:
        http = site_server(port, site)  # bound now, served once the site is built
    except OSError:
        http = site_server(0, site)
        log(f"port {port} is taken; serving on {http.server_address[1]} (another origin: the browser keeps "
            "notebooks per origin)")
    lab_url = f"http://127.0.0.1:{http.server_address[1]}{LAB_PATH}"
    if headless is None:
        headless = not has_display()
        if headless:
            log("no display: the browser runs headless (pass --headed to insist)")
    built = site_manifest(site)
    tools = PageTools(Catalog.from_manifest(built if built.is_file() or manifest is None else manifest))
    serving = threading.Event()

    async def start_lab(changed: Callable[[], Awaitable[None]]) -> None:
        if chromium is None:  # no lab to open: the site is not built either
            tools.settle(unavailable=no_browser)
            log(f"no browser, so no lab: {no_browser}")
            return
        try:
            prepared = await asyncio.to_thread(prepare_site)
        except Exception as error:  # noqa: BLE001 - every call says it, the log has the rest
            tools.settle(unavailable=f"the site could not be built ({error})")
            log(str(tools.unavailable))
            return
        catalog = Catalog.from_manifest(site_manifest(prepared))
        if catalog.tools != tools.catalog.tools:
            tools.catalog = catalog
            await changed()
        serving.set()
        threading.Thread(target=http.serve_forever, daemon=True).start()

        async def page_changed(_: list) -> None:
            await changed()

        page = LabPage(lab_url, chromium, headless=headless, profile=profile, on_tools=page_changed)
        try:
            await page.start()
        except Exception as error:  # noqa: BLE001 - every call says it
            tools.settle(unavailable=f"the browser did not start ({error})")
            log(str(tools.unavailable))
            return
        log(f"MCP on stdio; the lab at {lab_url} in {chromium} ({'headless' if headless else 'a window'}, "
            f"{f'profile {page.profile}' if page.profile else 'a fresh profile'})")
        tools.settle(page)

    async def serve_then_close() -> None:
        try:
            await serve(tools, lab_url, stdout, start_lab)
        finally:
            if tools.page is not None:
                await tools.page.close()

    try:
        asyncio.run(serve_then_close())
    except KeyboardInterrupt:
        pass
    finally:
        if serving.is_set():
            http.shutdown()
        http.server_close()
    return 0


def folder(text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder")
    return path.resolve()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=COMMAND, description="JupyterLite with the WebMCP bridge.")
    commands = parser.add_subparsers(dest="command", required=True)
    mcp = commands.add_parser("mcp", help="an MCP server on stdio: the lab's notebook tools for a desktop host")
    mcp.add_argument("--contents", type=folder, metavar="DIR",
                     help="the folder of notebooks and files the lab starts with (default: an empty lab)")
    mcp.add_argument("--port", type=int, default=DEFAULT_PORT, help="port of the site (another one when taken)")
    shown = mcp.add_mutually_exclusive_group()
    shown.add_argument("--headless", action="store_true", default=None, help="no browser window")
    shown.add_argument("--headed", dest="headless", action="store_false", help="a window even without a display")
    mcp.add_argument("--isolated", action="store_true",
                     help="a fresh in-memory browser profile (default: one kept per contents folder)")
    ship = commands.add_parser("ship-pyodide", help="make a lite folder ship Pyodide: a stock jupyter lite build "
                               "there then loads nothing from outside the site")
    ship.add_argument("lite_dir", nargs="?", type=folder, default=Path.cwd(), metavar="LITE_DIR",
                      help="the folder jupyter lite build runs in (default: this one)")
    args = parser.parse_args(argv)
    if args.command == "ship-pyodide":
        from .offline import ship_pyodide

        print(ship_pyodide(args.lite_dir))
        return
    keep_stdout_for_mcp()  # from here on, only MCP reaches stdout
    try:
        import mcp  # noqa: F401
        import playwright  # noqa: F401
    except ImportError as error:
        sys.exit(f"{COMMAND} mcp needs its extra: pip install '{COMMAND}[mcp]' ({error})")
    from .sites import (
        BRIDGE_ASSETS,
        contents_key,
        installed_extension,
        site_folder,
        site_for,
        user_cache,
    )

    profile = None if args.isolated else user_cache() / "browser-profiles" / contents_key(args.contents)
    try:
        manifest = installed_extension() / BRIDGE_ASSETS / "manifest.json"
    except FileNotFoundError as error:
        manifest = None
        log(str(error))
    sys.exit(run_mcp(site=site_folder(args.contents), prepare_site=lambda: site_for(args.contents),
                     profile=profile, port=args.port, headless=args.headless, manifest=manifest))
