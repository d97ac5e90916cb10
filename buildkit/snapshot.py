"""The memory snapshot of a started bridge, made in headless Chromium when the labextension is built.

It is made against the npm Pyodide the extension is built for (the kernel's default release) and
the extension's own bytecode standard library, so it fits every site whose kernel uses that
Pyodide release, wherever the site serves it from (its own folder or the kernel's CDN default).
"""

import gzip
import hashlib
import json
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from .env import CHROMIUM_FLAGS
from .paths import CACHE, FILES_PACK, NPM_PYODIDE
from .server import site_server
from .shell import log
from .stamps import digest

SNAPSHOT_FILE = "snapshot.gz"
MAKER_PAGE = Path(__file__).with_name("snapshot_page.html")
PYODIDE_RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm")


def snapshot_inputs_digest(chromium: str, assets: Path, pyodide: Path = NPM_PYODIDE) -> str:
    """Everything a snapshot depends on: Pyodide's runtime, the bridge assets (standard library and
    wheels included; the files pack is made from the wheels), the maker page and the browser."""
    sha = hashlib.sha256(MAKER_PAGE.read_bytes())
    sha.update(subprocess.run([chromium, "--version"], capture_output=True, text=True).stdout.encode())
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
        (Path(root) / "pyodide").symlink_to(NPM_PYODIDE)
        (Path(root) / "bridge").symlink_to(assets.resolve())
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
    with gzip.GzipFile(destination, "wb", compresslevel=6, mtime=0) as out:
        out.write(raw)
    return details


def snapshot_maker() -> str | None:
    """The Chromium that makes snapshots, or None (then the extension ships none: plain start)."""
    chromium = shutil.which("chromium")
    if not chromium:
        log("no chromium: the extension ships without a memory snapshot (plain start)")
        return None
    try:
        import playwright  # noqa: F401
    except ImportError:
        log("no playwright: the extension ships without a memory snapshot (plain start); "
            "python3 build.py wheel makes one")
        return None
    return chromium


def add_snapshot(assets: Path) -> list[str]:
    """Ship a memory snapshot of the started bridge in the assets (cached by its inputs). Returns the
    installed files (relative to site-packages) of the modules it holds imported: a restore needs none."""
    chromium = snapshot_maker()
    if chromium is None:
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
    log(f"memory snapshot: {details['heapBytes'] / 2**20:.1f} MiB heap, {size / 2**20:.1f} MiB gzipped")
    return imported_files
