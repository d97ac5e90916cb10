"""The memory snapshot of a started bridge, made in headless Chromium and shipped in the built site."""

import gzip
import hashlib
import json
import shutil
import subprocess
import threading
from pathlib import Path

from .env import CHROMIUM_FLAGS
from .paths import CACHE, PYODIDE_CORE_FILES, SITE, SITE_BRIDGE_ASSETS
from .server import site_server
from .shell import log
from .stamps import digest

SNAPSHOT_FILE = "snapshot.gz"
MAKER_PAGE = Path(__file__).with_name("snapshot_page.html")


def snapshot_inputs_digest(chromium: str) -> str:
    """Everything a snapshot depends on: Pyodide, the stdlib zip, the bridge assets, the maker page, the browser."""
    sha = hashlib.sha256(MAKER_PAGE.read_bytes())
    sha.update(subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout.encode())
    pyodide = SITE / "static" / "pyodide"
    for path in [*(pyodide / name for name in PYODIDE_CORE_FILES), *sorted(SITE_BRIDGE_ASSETS.rglob("*"))]:
        if path.name == "manifest.json":
            manifest = {key: value for key, value in json.loads(path.read_text()).items() if key != "snapshot"}
            sha.update(json.dumps(manifest, sort_keys=True).encode())
        elif path.is_file() and path.name != SNAPSHOT_FILE:
            sha.update(f"{path.name}:{digest(path)}".encode())
    return sha.hexdigest()[:20]


def make_snapshot(chromium: str, destination: Path) -> dict:
    """Start the bridge in headless Chromium, serving the built site, and save its memory snapshot."""
    from playwright.sync_api import sync_playwright

    server = site_server(0, SITE)
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
    with gzip.GzipFile(destination, "wb", compresslevel=6, mtime=0) as out:
        out.write(raw)
    return details


def add_snapshot() -> None:
    """Ship a memory snapshot of the started bridge in the built site (cached by its inputs).

    Without a browser to make it the site still works: the host starts Pyodide the plain way.
    """
    chromium = shutil.which("chromium")
    if not chromium:
        log("no chromium: the site ships without a memory snapshot (plain start)")
        return
    inputs = snapshot_inputs_digest(chromium)
    folder = CACHE / "snapshot" / inputs
    if not (folder / "details.json").exists():
        log("making the memory snapshot in headless Chromium")
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        details = make_snapshot(chromium, folder / SNAPSHOT_FILE)
        (folder / "details.json").write_text(json.dumps(details))
    details = json.loads((folder / "details.json").read_text())
    shutil.copy2(folder / SNAPSHOT_FILE, SITE_BRIDGE_ASSETS / SNAPSHOT_FILE)
    manifest_path = SITE_BRIDGE_ASSETS / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["snapshot"] = {"file": SNAPSHOT_FILE, "inputs": inputs, **details}
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    size = (folder / SNAPSHOT_FILE).stat().st_size
    log(f"memory snapshot: {details['heapBytes'] / 2**20:.1f} MiB heap, {size / 2**20:.1f} MiB gzipped")
