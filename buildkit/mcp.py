"""`python3 build.py mcp`: the lab for a desktop MCP host, over stdio.

Builds the site when its sources changed, serves it on 127.0.0.1 and runs
@playwright/mcp behind a thin relay. The server drives a Chromium window with
WebMCP on and exposes every page tool as an MCP tool of its own
(`webmcp_jupyter_get_cells`, ... with the page's input schema). Playwright MCP
collects a page's tools only when it takes a page snapshot, and the bridge
registers them seconds after the page loads; so once the host has initialized,
the relay opens the lab, waits until the bridge is ready and makes the server
collect the tools: the host then gets `notifications/tools/list_changed` and
sees the notebook tools without a call of its own. It also adds `instructions`
to the initialize result, telling the agent how to wait for the tools.

Only MCP goes to stdout: build.py points file descriptor 1 at stderr before
anything runs and hands the relay the real stdout (`STDOUT_FD_ENV`).
"""

import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

from .browser import (
    WEBMCP_MIN_VERSION,
    browser_version,
    find_browser,
    major_version,
    missing_browser_help,
    this_machine,
)
from .demo_site import contents_key, contents_site, ensure_site
from .env import CHROMIUM_FLAGS, ensure_node_modules
from .paths import BUILD, CACHE, ROOT, SITE
from .shell import log

SERVER_NAME = "jupyterlite"
PLAYWRIGHT_MCP = ROOT / "node_modules" / "@playwright" / "mcp" / "cli.js"
POLYFILL = ROOT / "node_modules" / "@mcp-b" / "global" / "dist" / "index.iife.js"
PROFILE = CACHE / "mcp-browser-profile"
WORK = BUILD / "mcp"
STDOUT_FD_ENV = "JUPYTERLITE_WEBMCP_MCP_STDOUT"
DEFAULT_PORT = 8000
READY_TEXT = "WebMCP: ready"
LAB_PATH = "/lab/index.html"
READY_TIMEOUT_S = 300

DOCS_BUILD_PY = "/path/to/jupyterlite-pyodide-webmcp/build.py"


def host_config(build_py: str = DOCS_BUILD_PY) -> dict[str, Any]:
    """The JSON an MCP host takes (README and docs/connecting.md show it; the tests run it)."""
    return {"mcpServers": {SERVER_NAME: {"command": "python3", "args": [build_py, "mcp"]}}}


def instructions(lab_url: str) -> str:
    return (
        f"The JupyterLite lab the human works in is open in this server's browser window at {lab_url}. "
        "Its notebook tools are the webmcp_jupyter_* tools. They appear (tools/list_changed) once the lab has "
        "loaded, about 5 to 30 seconds after the server starts, and again after the page reloads. If they are "
        f'missing or a call says the tool is not registered, call browser_wait_for with text "{READY_TEXT}" '
        "(repeat it while it times out), then list the tools again. Start with webmcp_jupyter_get_context. "
        "Each result is the JSON envelope the page returned: its content[0].text is the result as JSON."
    )


# --- stdout kept for MCP alone -------------------------------------------------------------------


def keep_stdout_for_mcp() -> None:
    """Point fd 1 at stderr for everything else, keeping the real stdout for the relay.

    Called by build.py before it creates the venv (its output, pip's, npm's and the site build's
    all go to stderr); the kept descriptor survives build.py's re-exec into the venv.
    """
    if STDOUT_FD_ENV in os.environ:
        return
    kept = os.dup(1)
    os.set_inheritable(kept, True)
    sys.stdout.flush()
    os.dup2(2, 1)
    os.environ[STDOUT_FD_ENV] = str(kept)


def mcp_stdout() -> BinaryIO:
    fd = os.environ.get(STDOUT_FD_ENV)
    return os.fdopen(int(fd), "wb", buffering=0) if fd else sys.stdout.buffer


# --- Playwright MCP -------------------------------------------------------------------------------


def has_display() -> bool:
    return sys.platform in ("win32", "darwin") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def playwright_config(chromium: str, *, headless: bool, profile: Path | None, polyfill: bool,
                      output_dir: Path) -> dict:
    """@playwright/mcp's configuration: Chromium's flags can only be given this way. No profile: isolated."""
    args = [flag for flag in CHROMIUM_FLAGS if flag != "--no-sandbox"]
    if polyfill:
        args.remove("--enable-features=WebMCP")
    root = getattr(os, "geteuid", lambda: 1)() == 0
    browser: dict[str, Any] = {
        "browserName": "chromium",
        "isolated": profile is None,
        "launchOptions": {"executablePath": chromium, "headless": headless, "chromiumSandbox": not root,
                          "args": args},
    }
    if profile is not None:
        browser["userDataDir"] = str(profile)
    if polyfill:
        browser["initScript"] = [str(POLYFILL)]
    return {
        "browser": browser,
        # settle 0: no half-second wait after each call; idle 0: never close the human's window.
        "timeouts": {"settle": 0, "idle": 0},
        "outputDir": str(output_dir),
        "outputMaxSize": 64 * 2**20,
        # Results mention new console entries from this level up: the kernel's info lines are noise.
        "console": {"level": "warning"},
    }


# --- the relay ------------------------------------------------------------------------------------


class Relay:
    """Passes MCP between the host (our stdin / kept stdout) and the server, line by line.

    It reads each message only to find the host's initialize exchange and to take back the
    answers to its own requests (ids `jupyterlite-webmcp-N`, which the host never sees).
    """

    ID_PREFIX = "jupyterlite-webmcp-"

    def __init__(self, server: subprocess.Popen, host_in: BinaryIO, host_out: BinaryIO, lab_url: str):
        self.server = server
        self.host_in = host_in
        self.host_out = host_out
        self.lab_url = lab_url
        self.initialized = threading.Event()
        self._to_server = threading.Lock()
        self._to_host = threading.Lock()
        self._ids = itertools.count(1)
        self._answers: dict[str, queue.Queue] = {}
        self._initialize_id: Any = None

    def send_to_server(self, message: bytes) -> None:
        with self._to_server:
            self.server.stdin.write(message)
            self.server.stdin.flush()

    def send_to_host(self, message: bytes) -> None:
        with self._to_host:
            self.host_out.write(message)
            self.host_out.flush()

    def host_to_server(self) -> None:
        try:
            for line in self.host_in:
                if b'"initialize"' in line or b"notifications/initialized" in line:
                    message = _parse(line)
                    if message.get("method") == "initialize":
                        self._initialize_id = message.get("id")
                    elif message.get("method") == "notifications/initialized":
                        self.send_to_server(line)
                        self.initialized.set()
                        continue
                self.send_to_server(line)
        except (BrokenPipeError, ValueError):
            pass
        finally:
            try:
                self.server.stdin.close()
            except (BrokenPipeError, ValueError):
                pass

    def server_to_host(self) -> None:
        for line in self.server.stdout:
            if self.ID_PREFIX.encode() in line:
                message = _parse(line)
                answer = self._answers.get(str(message.get("id")))
                if answer is not None and "method" not in message:
                    answer.put(message)
                    continue
            if self._initialize_id is not None and b'"result"' in line:
                message = _parse(line)
                if message.get("id") == self._initialize_id and "result" in message:
                    self._initialize_id = None
                    message["result"].setdefault("instructions", instructions(self.lab_url))
                    line = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
            try:
                self.send_to_host(line)
            except (BrokenPipeError, OSError):
                break

    def call_tool(self, name: str, arguments: dict, timeout: float = 120) -> dict:
        """Call one of the server's tools on our own account; the host never sees it."""
        request_id = f"{self.ID_PREFIX}{next(self._ids)}"
        answer: queue.Queue = queue.Queue()
        self._answers[request_id] = answer
        request = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}
        try:
            self.send_to_server((json.dumps(request) + "\n").encode())
            return answer.get(timeout=timeout)
        finally:
            del self._answers[request_id]

    def open_lab(self) -> None:
        """Open the lab, then wait until its tools are registered and the server has collected them."""
        self.initialized.wait()
        try:
            opened = self.call_tool("browser_navigate", {"url": self.lab_url})
            if opened.get("result", {}).get("isError") or "error" in opened:
                log(f"could not open the lab: {_text_of(opened)[:500]}")
                return
            log(f"lab opened at {self.lab_url}; waiting for its WebMCP tools")
            started = time.monotonic()
            while time.monotonic() - started < READY_TIMEOUT_S:
                # Waits up to the server's action timeout (5 s); its page snapshot collects the tools.
                waited = self.call_tool("browser_wait_for", {"text": READY_TEXT})
                if not waited.get("result", {}).get("isError") and "error" not in waited:
                    log(f"lab ready after {time.monotonic() - started:.1f} s: its tools are listed for the host")
                    return
            status = self.call_tool("browser_evaluate", {
                "function": "() => document.querySelector('.jp-webmcp-status')?.textContent ?? 'no status item'"})
            log(f"the lab's tools did not appear within {READY_TIMEOUT_S} s: {_text_of(status)[-300:]}")
        except (queue.Empty, BrokenPipeError, OSError) as error:
            log(f"could not open the lab: {error!r}")


def _parse(line: bytes) -> dict:
    try:
        message = json.loads(line)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


def _text_of(response: dict) -> str:
    result = response.get("result") or {}
    texts = [part.get("text", "") for part in result.get("content", []) if isinstance(part, dict)]
    return "\n".join(texts) or json.dumps(response.get("error"))


def browser_profile(contents: Path | None) -> Path:
    """The kept browser profile: one for the demo, one per contents folder (each keeps its own notebooks)."""
    return PROFILE if contents is None else CACHE / "mcp-browser-profiles" / contents_key(contents)


def require_browser(polyfill: bool) -> str:
    """The browser to drive; exits saying what to install when there is none, warns when it is too old."""
    machine = this_machine()
    chromium = find_browser(machine) or sys.exit(f"build.py mcp: {missing_browser_help(machine)}")
    major = major_version(browser_version(machine, chromium))
    if not polyfill and major is not None and major < WEBMCP_MIN_VERSION:
        log(f"{chromium} is version {major}: WebMCP needs {WEBMCP_MIN_VERSION} or later. Update it, set "
            "CHROME_PATH to a newer one, or pass --polyfill")
    return chromium


def run(port: int = DEFAULT_PORT, *, headless: bool | None = None, isolated: bool = False,
        polyfill: bool = False, contents: Path | None = None) -> int:
    """Serve MCP on stdio through @playwright/mcp behind the relay; returns the server's exit code.

    The server answers the host at once; the site (with `contents` as its files, if given) is built
    when its inputs changed meanwhile, then served, and the relay opens the lab.
    """
    from .server import site_server

    keep_stdout_for_mcp()  # build.py has done it already, before its own output; this makes sure
    host_out = mcp_stdout()
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")  # no pip self-update check on a rebuild
    node = shutil.which("node") or sys.exit("build.py mcp needs Node.js 20+ (node on PATH)")
    chromium = require_browser(polyfill)
    ensure_node_modules()
    site = contents_site(contents) if contents else SITE
    try:
        server = site_server(port, site)  # bound now, served once the site is built
    except OSError:
        server = site_server(0, site)
        log(f"port {port} is taken; serving on {server.server_address[1]} (another origin: the browser's "
            "stored notebooks differ per port)")
    lab_url = f"http://127.0.0.1:{server.server_address[1]}{LAB_PATH}"
    if headless is None:
        headless = not has_display()
        if headless:
            log("no display: the browser runs headless (pass --headed to insist)")
    WORK.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="session-", dir=WORK)) if isolated else WORK
    config_file = work / "playwright-mcp.json"
    profile = None if isolated else browser_profile(contents)
    config = playwright_config(chromium, headless=headless, profile=profile, polyfill=polyfill,
                               output_dir=work / "output")
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    log(f"MCP on stdio through @playwright/mcp; the lab at {lab_url} in {chromium} "
        f"({'headless' if headless else 'visible window'}"
        f"{', polyfill' if polyfill else ''}, {f'profile {profile}' if profile else 'isolated profile'}"
        f"{f', files from {contents}' if contents else ''})")
    child = subprocess.Popen([node, str(PLAYWRIGHT_MCP), "--config", str(config_file)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=work)
    # A host that stops us with SIGTERM stops the server (and its browser) too.
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    relay = Relay(child, sys.stdin.buffer, host_out, lab_url)
    serving = threading.Event()

    def build_serve_open() -> None:
        try:
            ensure_site(chromium, contents)
        except (Exception, SystemExit) as error:  # noqa: BLE001 - the host learns it from the server's exit
            log(f"the site could not be built ({error!r}); stopping the MCP server")
            child.terminate()
            return
        serving.set()
        threading.Thread(target=server.serve_forever, daemon=True).start()
        relay.open_lab()

    threading.Thread(target=relay.host_to_server, daemon=True).start()
    threading.Thread(target=build_serve_open, daemon=True).start()
    try:
        relay.server_to_host()
        return child.wait()
    except KeyboardInterrupt:
        child.terminate()
        return child.wait()
    finally:
        if serving.is_set():
            server.shutdown()
        server.server_close()
        if isolated:
            shutil.rmtree(work, ignore_errors=True)
