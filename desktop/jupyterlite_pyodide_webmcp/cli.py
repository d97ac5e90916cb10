"""`jupyterlite-pyodide-webmcp mcp`: the lab's notebook tools for a desktop MCP host, over stdio.

    jupyterlite-pyodide-webmcp mcp [--contents DIR] [--tools WHEEL...] [--port N] [--headless | --headed]
                                   [--isolated]
    jupyterlite-pyodide-webmcp serve [--contents DIR] [--tools WHEEL...] [--port N] [--no-browser]
    jupyterlite-pyodide-webmcp ship-pyodide [LITE_DIR]
    jupyterlite-pyodide-webmcp check SITE_DIR

With --contents, the lab reads and writes DIR in place (contents_api.py); without it, an empty lab keeps
its files in the browser profile.

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
from typing import TYPE_CHECKING

from .browser import (
    WEBMCP_MIN_VERSION,
    browser_version,
    find_browser,
    major_version,
    missing_browser_help,
    this_machine,
)
from .stdio import keep_stdout_for_mcp, log, mcp_stdout

if TYPE_CHECKING:
    from .contents_api import FolderAPI

DEFAULT_PORT = 8000
CONTENTS_HELP = ("the folder the lab works on, read and written in place (default: an empty lab whose files "
                 "stay in the browser profile)")
EARLIER_EDITS_READ_S = 20  # the lab's tools wait for this read; the browser's storage may not answer
TOOLS_HELP = "wheels of your own site tools (docs/own-tools.md): served beside the built-in tools"
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


def bound_server(port: int, site: Path, folder: "FolderAPI | None"):
    """The local server, bound now (served once the site is built): on `port`, else on a free one."""
    from .site_server import site_server

    try:
        return site_server(port, site, folder=folder)
    except OSError:
        http = site_server(0, site, folder=folder)
        log(f"port {port} is taken; serving on {http.server_address[1]} (another origin: the browser keeps "
            "its settings per origin)")
        return http


def lab_url(http, folder: "FolderAPI | None") -> str:
    return f"http://127.0.0.1:{http.server_address[1]}{LAB_PATH}{folder.lab_fragment() if folder else ''}"


async def keep_earlier_edits(page, folder: "FolderAPI", profile: Path | None) -> None:
    """Once per profile: what an earlier version kept in its browser storage, written into the folder."""
    from .browser_edits import MARKER, READ_BROWSER_STORAGE, keep_browser_edits

    if profile is None or (profile / MARKER).is_file():
        return
    try:
        stored = await asyncio.wait_for(page.evaluate(READ_BROWSER_STORAGE), EARLIER_EDITS_READ_S)
        written = keep_browser_edits(stored, folder.root)
    except Exception as error:  # noqa: BLE001 - looked at again on the next start (a TimeoutError too)
        log(f"could not read the browser profile's earlier edits ({error}); trying again on the next start")
        return
    for path in written:
        log(f"kept an edit the browser profile held: {path}")
    (profile / MARKER).write_text(f"{len(written)} earlier edit(s) written into {folder.root}\n")


def run_mcp(*, site: Path, prepare_site: Callable[[], Path], profile: Path | None, port: int = DEFAULT_PORT,
            headless: bool | None = None, manifest: Path | None = None, folder: "FolderAPI | None" = None) -> int:
    """Serve MCP on stdio until the host closes it. `prepare_site` builds `site` (run while the host is
    already answered); `profile` is the browser profile kept between sessions (None: a fresh one);
    `manifest`, the bridge's, lists the tools until the site's own is built; `folder`, the lab's files
    (None: an empty lab in browser storage)."""
    from .lab_page import LabPage
    from .mcp_server import ManifestTools, PageTools, serve
    from .sites import site_manifest

    stdout = mcp_stdout()
    chromium, no_browser = browser_or_reason()
    http = bound_server(port, site, folder)
    url = lab_url(http, folder)
    shown_url = url.split("#")[0]
    if headless is None:
        headless = not has_display()
        if headless:
            log("no display: the browser runs headless (pass --headed to insist)")
    built = site_manifest(site)
    tools = PageTools(ManifestTools.from_manifest(built if built.is_file() or manifest is None else manifest))
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
        catalog = ManifestTools.from_manifest(site_manifest(prepared))
        if catalog.tools != tools.catalog.tools:
            tools.catalog = catalog
            await changed()
        serving.set()
        threading.Thread(target=http.serve_forever, daemon=True).start()

        async def page_changed(_: list) -> None:
            await changed()

        page = LabPage(url, chromium, headless=headless, profile=profile, on_tools=page_changed)
        try:
            await page.start()
        except Exception as error:  # noqa: BLE001 - every call says it
            tools.settle(unavailable=f"the browser did not start ({error})")
            log(str(tools.unavailable))
            return
        log(f"MCP on stdio; the lab at {shown_url} in {chromium} ({'headless' if headless else 'a window'}, "
            f"{f'profile {page.profile}' if page.profile else 'a fresh profile'}; "
            f"{f'files: {folder.root}' if folder else 'files kept in the browser profile'})")
        if folder is not None:
            await keep_earlier_edits(page, folder, page.profile)
        tools.settle(page)

    async def serve_then_close() -> None:
        try:
            await serve(tools, shown_url, stdout, start_lab)
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


def serve_folder(*, site: Path, prepare_site: Callable[[], Path], folder: "FolderAPI | None",
                 port: int = DEFAULT_PORT, open_browser: bool = True) -> int:
    """Serve the lab for the human's own browser until Ctrl+C."""
    import webbrowser

    http = bound_server(port, site, folder)
    prepare_site()
    url = lab_url(http, folder)
    why = f"\n(Open this link: the part after # lets this browser use {folder.root}; " if folder else " ("
    print(f"The lab: {url}{why}Ctrl+C stops)", flush=True)
    if open_browser:
        webbrowser.open(url)
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        http.server_close()
    return 0


def wheel_file(text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_file() or path.suffix != ".whl":
        raise argparse.ArgumentTypeError(f"{text} is not a wheel file")
    return path.resolve()


def folder(text: str) -> Path:
    path = Path(text).expanduser()
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is not a folder")
    return path.resolve()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog=COMMAND, description="JupyterLite with the WebMCP bridge.")
    commands = parser.add_subparsers(dest="command", required=True)
    lab = argparse.ArgumentParser(add_help=False)  # what both ways into the lab take
    lab.add_argument("--contents", type=folder, metavar="DIR", help=CONTENTS_HELP)
    lab.add_argument("--tools", type=wheel_file, nargs="+", default=[], metavar="WHEEL", help=TOOLS_HELP)
    lab.add_argument("--port", type=int, default=DEFAULT_PORT, help="port of the site (another one when taken)")
    mcp = commands.add_parser("mcp", parents=[lab],
                              help="an MCP server on stdio: the lab's notebook tools for a desktop host")
    shown = mcp.add_mutually_exclusive_group()
    shown.add_argument("--headless", action="store_true", default=None, help="no browser window")
    shown.add_argument("--headed", dest="headless", action="store_false", help="a window even without a display")
    mcp.add_argument("--isolated", action="store_true",
                     help="a fresh in-memory browser profile (default: one kept per contents folder)")
    serve = commands.add_parser("serve", parents=[lab], help="the lab for your own browser, on 127.0.0.1 (its "
                                "WebMCP tools reach a desktop host through a local relay)")
    serve.add_argument("--no-browser", dest="open_browser", action="store_false", help="only print the link")
    ship = commands.add_parser("ship-pyodide", help="make the folder jupyter lite build runs in ship Pyodide: the "
                               "site it builds there loads nothing from outside it")
    ship.add_argument("lite_dir", nargs="?", type=folder, default=Path.cwd(), metavar="LITE_DIR",
                      help="the folder jupyter lite build runs in (default: this one)")
    check = commands.add_parser("check", help="what a built site gives its visitors, before you publish it: the "
                                "bridge and its tools, whether it is offline, the notebooks' agent access, https")
    check.add_argument("site", type=folder, metavar="SITE_DIR", help="the built site (jupyter lite build's output)")
    args = parser.parse_args(argv)
    if args.command == "ship-pyodide":
        from .offline import ship_pyodide

        try:
            print(ship_pyodide(args.lite_dir))
        except FileNotFoundError as error:
            sys.exit(str(error))
        return
    if args.command == "check":
        from .site_check import check_site

        report = check_site(args.site)
        print(report.text())
        sys.exit(1 if report.problems else 0)
    from .contents_api import FolderAPI
    from .sites import (
        BRIDGE_ASSETS,
        contents_key,
        installed_extension,
        site_folder,
        site_for,
        user_cache,
    )

    contents = FolderAPI(args.contents, log=log) if args.contents else None
    if args.command == "serve":
        sys.exit(serve_folder(site=site_folder(args.tools), prepare_site=lambda: site_for(args.tools),
                              folder=contents, port=args.port, open_browser=args.open_browser))
    keep_stdout_for_mcp()  # from here on, only MCP reaches stdout
    try:
        import mcp  # noqa: F401
        import playwright  # noqa: F401
    except ImportError as error:
        sys.exit(f"{COMMAND} mcp needs its extra: pip install '{COMMAND}[mcp]' ({error})")
    profile = None if args.isolated else user_cache() / "browser-profiles" / contents_key(args.contents)
    try:
        manifest = installed_extension() / BRIDGE_ASSETS / "manifest.json"
    except FileNotFoundError as error:
        manifest = None
        log(str(error))
    sys.exit(run_mcp(site=site_folder(args.tools), prepare_site=lambda: site_for(args.tools), profile=profile,
                     port=args.port, headless=args.headless, manifest=manifest, folder=contents))
