"""The memory snapshot of a started bridge, made in headless Chromium when the labextension is built.

It is made against the npm Pyodide the extension is built for (the kernel's default release) and
the extension's own bytecode standard library, so it fits every site whose kernel uses that
Pyodide release, wherever the site serves it from (its own folder or the kernel's CDN default).
"""

import hashlib
import importlib.util
import json
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path

from jupyterlite_pyodide_webmcp.browser import (
    Machine,
    browser_version,
    find_browser,
    missing_browser_help,
    this_machine,
)
from jupyterlite_pyodide_webmcp.site_server import site_server

from .compressed import SUFFIX, WINDOW_BITS, write_compressed
from .env import CHROMIUM_FLAGS
from .paths import CACHE, FILES_PACK, NPM_PYODIDE
from .shell import log
from .stamps import digest

SNAPSHOT_FILE = "snapshot" + SUFFIX
MAKER_PAGE = Path(__file__).with_name("snapshot_page.html")
PYODIDE_RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")
# Set to 1 (pip install .), or build.py wheel --plain-start: a wheel whose bridge starts without a snapshot.
PLAIN_START_ENV = "JUPYTERLITE_WEBMCP_PLAIN_START"


class SnapshotUnavailable(RuntimeError):
    """The snapshot cannot be made here, and no plain start was asked for."""


def snapshot_inputs_digest(chromium: str, assets: Path, pyodide: Path = NPM_PYODIDE) -> str:
    """Everything a snapshot depends on: Pyodide's runtime, the bridge assets (standard library and
    wheels included; the files pack is made from the wheels), the maker page and the browser."""
    sha = hashlib.sha256(MAKER_PAGE.read_bytes())
    sha.update(f"brotli window {WINDOW_BITS}".encode())  # the cache keeps the snapshot compressed
    sha.update(browser_version(this_machine(), chromium).encode())
    for path in [*(pyodide / name for name in PYODIDE_RUNTIME_FILES), *sorted(assets.rglob("*"))]:
        if path.name == "manifest.json":
            derived = ("snapshot", "build")
            manifest = {key: value for key, value in json.loads(path.read_text()).items() if key not in derived}
            sha.update(json.dumps(manifest, sort_keys=True).encode())
        elif path.is_file() and path.name not in (SNAPSHOT_FILE, FILES_PACK):  # both made from the rest
            sha.update(f"{path.name}:{digest(path)}".encode())
    return sha.hexdigest()[:20]


def make_snapshot(chromium: str, assets: Path, destination: Path) -> dict:
    """Start the bridge in headless Chromium (npm Pyodide under /pyodide/, the assets under /bridge/)
    and save its memory snapshot."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as root:
        # Copies, not symbolic links: Windows lets only administrators make those.
        shutil.copytree(NPM_PYODIDE, Path(root) / "pyodide")
        shutil.copytree(assets, Path(root) / "bridge")
        server = site_server(0, Path(root))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        page_url = f"http://127.0.0.1:{server.server_address[1]}/__make_snapshot__.html"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
                page = browser.new_page(accept_downloads=True)
                page.route(page_url, lambda route: route.fulfill(path=MAKER_PAGE, content_type="text/html"))
                with page.expect_download(timeout=180_000) as download:
                    page.goto(page_url)
                    page.wait_for_function("() => window.snapshotDetails", timeout=180_000)
                    details = page.evaluate("() => window.snapshotDetails")
                    if "error" in details:
                        raise RuntimeError(details["error"])
                raw = Path(download.value.path()).read_bytes()
                browser.close()
        finally:
            server.shutdown()
    write_compressed(destination, raw)
    return details


def plain_start_requested(environ: Mapping[str, str]) -> bool:
    return environ.get(PLAIN_START_ENV, "") not in ("", "0")


def missing_for_snapshot(machine: Machine, browser: str | None, has_playwright: bool) -> list[str]:
    """What making the snapshot needs and this machine lacks (nothing: it can be made)."""
    missing = [] if browser else [missing_browser_help(machine)]
    if not has_playwright:
        missing.append("Playwright for Python is not installed where the wheel is built (pip install . builds "
                       "in an isolated environment without it).")
    return missing


def snapshot_maker() -> str:
    """The browser that makes the snapshot; SnapshotUnavailable says what is missing and the way out."""
    machine = this_machine()
    browser = find_browser(machine)
    missing = missing_for_snapshot(machine, browser, importlib.util.find_spec("playwright") is not None)
    if missing:
        raise SnapshotUnavailable(
            "The memory snapshot (the bridge's fast start) is made in a Chromium-based browser with Playwright, "
            "and cannot be made here:\n- " + "\n- ".join(missing) + "\n"
            "Build the wheel with `python3 build.py wheel` in a clone of this repository (its .venv has "
            f"Playwright), or set {PLAIN_START_ENV}=1 for a wheel whose bridge starts without a snapshot.")
    return browser


def heap_table(steps: list[dict]) -> list[str]:
    """The heap, step by step while the snapshot was made: its break (what sizes the wasm memory), the
    bytes malloc holds in use, and what each step added to both (MiB)."""
    rows = [f"{'step':44} {'break':>8} {'+':>6} {'in use':>8} {'+':>6}"]
    previous = None
    for step in steps:
        grew = ("", "") if previous is None else (
            f"{(step['breakBytes'] - previous['breakBytes']) / 2**20:+.2f}",
            f"{(step['usedBytes'] - previous['usedBytes']) / 2**20:+.2f}")
        rows.append(f"{step['step']:44} {step['breakBytes'] / 2**20:8.2f} {grew[0]:>6} "
                    f"{step['usedBytes'] / 2**20:8.2f} {grew[1]:>6}")
        previous = step
    return rows


def add_snapshot(assets: Path, chromium: str | None) -> list[str]:
    """Ship a memory snapshot of the started bridge, made in `chromium`, in the assets (cached by its
    inputs); None ships none (plain start). Returns the installed files (relative to site-packages) of
    the modules it holds imported: a restore needs none."""
    if chromium is None:
        log("plain start: the extension ships without a memory snapshot")
        return []
    inputs = snapshot_inputs_digest(chromium, assets)
    folder = CACHE / "snapshot" / inputs
    if not (folder / "details.json").exists():
        log("making the memory snapshot in headless Chromium")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        details = make_snapshot(chromium, assets, folder / SNAPSHOT_FILE)
        (folder / "details.json").write_text(json.dumps(details))
    details = json.loads((folder / "details.json").read_text())
    imported_files = details.pop("importedFiles", [])

    shutil.copy2(folder / SNAPSHOT_FILE, assets / SNAPSHOT_FILE)
    manifest_path = assets / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    # The runtime the snapshot fits: a restore keeps a copy of it only when the site serves these bytes.
    runtime_bytes = (NPM_PYODIDE / "pyodide.asm.wasm").stat().st_size
    manifest["snapshot"] = {"file": SNAPSHOT_FILE, "inputs": inputs, "runtimeBytes": runtime_bytes, **details}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    size = (folder / SNAPSHOT_FILE).stat().st_size
    log(f"memory snapshot: {details['heapBytes'] / 2**20:.1f} MiB heap, {size / 2**20:.1f} MiB compressed")
    return imported_files
