#!/usr/bin/env python3
"""Build, serve, document and test the JupyterLite WebMCP bridge.

    python3 build.py serve     build the demo site and serve it on 127.0.0.1
    python3 build.py test      install what is missing, build, run every test
    python3 build.py build     build the demo site into build/site
    python3 build.py docs      regenerate docs/tools.md from the tool registry
    python3 build.py bench     build, then measure boot in headless Chromium
    python3 build.py labextension   build the JupyterLab extension (used by pip install .)

Everything runs in ./.venv, created and kept in step with requirements-dev.txt
and constraints.txt on first use. Only the standard library is needed to start.
"""

import argparse
import functools
import gzip
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BUILD = ROOT / "build"
LABEXTENSION = BUILD / "labextension"
BRIDGE_ASSETS = LABEXTENSION / "static" / "bridge"
SITE = BUILD / "site"
SITE_BRIDGE_ASSETS = SITE / "extensions" / "jupyterlite-webmcp" / "static" / "bridge"
CACHE = ROOT / ".cache"
LITE = ROOT / "lite"
SITE_PYODIDE = LITE / "static" / "pyodide"
NPM_PYODIDE = ROOT / "node_modules" / "pyodide"
BRIDGE_SOURCE = ROOT / "py"
BRIDGE_MODULE = "webmcp_bridge"
TOOL_DOCS = ROOT / "docs" / "tools.md"
BOOT_MODULE = ROOT / "lib" / "boot.mjs"
SNAPSHOT_FILE = "snapshot.gz"
FILES_PACK = "site-packages.pack.gz"

STDLIB_ZIP = "python_stdlib.zip"
PYODIDE_CORE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", STDLIB_ZIP)
WASM_PLATFORM = ["--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14",
                 "--implementation", "cp", "--abi", "cp314"]
CHROMIUM_FLAGS = ["--enable-features=WebMCP", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(*command, **options) -> None:
    log(" ".join(str(part) for part in command))
    subprocess.run([str(part) for part in command], check=True, **options)


def digest(*paths: Path) -> str:
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.read_bytes())
    return sha.hexdigest()


def up_to_date(stamp: Path, value: str) -> bool:
    return stamp.exists() and stamp.read_text() == value


# Environment ---------------------------------------------------------------------------------

def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def enter_venv(argv: list[str]) -> None:
    """Create or refresh ./.venv, then re-run this script inside it."""
    if in_venv():
        return
    python = VENV / "bin" / "python"
    if not python.exists():
        run(sys.executable, "-m", "venv", VENV)
    stamp = VENV / ".requirements.sha256"
    wanted = digest(ROOT / "requirements-dev.txt", ROOT / "constraints.txt")
    if not up_to_date(stamp, wanted):
        run(python, "-m", "pip", "install", "--quiet", "-r", ROOT / "requirements-dev.txt",
            "-c", ROOT / "constraints.txt")
        stamp.write_text(wanted)
    os.execv(python, [str(python), str(Path(__file__).resolve()), *argv])


def ensure_node_modules() -> None:
    stamp = ROOT / "node_modules" / ".lock.sha256"
    wanted = digest(ROOT / "package.json", ROOT / "package-lock.json")
    if not up_to_date(stamp, wanted):
        run("npm", "ci", "--no-audit", "--no-fund", cwd=ROOT)
        stamp.write_text(wanted)


def ensure_chromium() -> str:
    """Debian's Chromium (Playwright cannot download browsers here)."""
    found = shutil.which("chromium")
    if found:
        return found
    run("apt-get", "update", "-qq")
    run("apt-get", "install", "-y", "-qq", "chromium", env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    return shutil.which("chromium") or sys.exit("chromium is still missing after apt-get install")


# Browser wheels ------------------------------------------------------------------------------

def download_wasm_wheels(requirements: Path) -> list[Path]:
    """Fetch the pinned Pyodide wheels of a requirements file (cached by its hash)."""
    destination = CACHE / "wasm" / requirements.parent.name
    stamp = destination / ".requirements.sha256"
    if not up_to_date(stamp, digest(requirements)):
        shutil.rmtree(destination, ignore_errors=True)
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
            *WASM_PLATFORM, "-d", destination, "-r", requirements)
        stamp.write_text(digest(requirements))
    return sorted(destination.glob("*.whl"))


def build_bridge_wheel(destination: Path) -> Path:
    from hatchling.builders.wheel import WheelBuilder

    builder = WheelBuilder(str(BRIDGE_SOURCE))
    return Path(next(builder.build(directory=str(destination), versions=["standard"])))


def wheel_metadata(wheel: Path) -> dict:
    """Name, version, imports and dependencies of a wheel, as a Pyodide lock entry needs."""
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata_name = next(name for name in names if name.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(archive.read(metadata_name).decode("utf-8"))
    imports = sorted({
        name.split("/")[0].removesuffix(".py")
        for name in names
        if not name.split("/")[0].endswith((".dist-info", ".data"))
        and (name.endswith("/__init__.py") and name.count("/") == 1 or "/" not in name and name.endswith(".py"))
    })
    depends = []
    for requirement in metadata.get_all("Requires-Dist") or []:
        if "extra ==" in requirement:
            continue
        name = requirement.split(";")[0].strip()
        for separator in "<>=!~[( ":
            name = name.split(separator)[0]
        depends.append(canonical(name))
    return {"name": metadata["Name"], "version": metadata["Version"], "imports": imports, "depends": depends}


def canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


# Bytecode ------------------------------------------------------------------------------------

# Runs inside Pyodide (Node), so the bytecode matches the browser's Python exactly. Writes
# unchecked hash-based .pyc (PEP 552): imports never stat or re-read the source.
PRECOMPILE_PY = r"""
import importlib.util, json, marshal, sys, zipfile

def pyc(source, filename):
    code = compile(source, filename, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source)
    return header + marshal.dumps(code)

def stdlib(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith(".py"):
                try:
                    zout.writestr(info.filename + "c", pyc(data, "/lib/python314.zip/" + info.filename))
                    continue
                except SyntaxError:
                    pass
            zout.writestr(info, data)

def wheel(src, dst):
    tag = sys.implementation.cache_tag
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, data)
            folder, _, base = info.filename.rpartition("/")
            if base.endswith(".py") and ".data/" not in info.filename:
                try:
                    code = pyc(data, "/lib/python3.14/site-packages/" + info.filename)
                except SyntaxError:
                    continue
                zout.writestr(f"{folder + '/' if folder else ''}__pycache__/{base[:-3]}.{tag}.pyc", code)

for kind, src, dst in json.loads(JOBS):
    (stdlib if kind == "stdlib" else wheel)(src, dst)
"""

PRECOMPILE_NODE = """
const [pyodideModule, root, jobs, script] = process.argv.slice(1);
const { loadPyodide } = await import(pyodideModule);
const pyodide = await loadPyodide();
pyodide.FS.mkdirTree('/host');
pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, '/host');
pyodide.globals.set('JOBS', jobs);
pyodide.runPython(script);
"""


def precompile(kind: str, sources: list[Path]) -> list[Path]:
    """Bytecode-compiled copies of a stdlib zip or of wheels (same names), cached by content."""
    key = hashlib.sha256(PRECOMPILE_PY.encode() + digest(NPM_PYODIDE / "pyodide.asm.wasm").encode())
    for source in sources:
        key.update(digest(source).encode())
    folder = CACHE / "compiled" / key.hexdigest()[:20]
    outputs = [folder / source.name for source in sources]
    if not all(output.exists() for output in outputs):
        folder.mkdir(parents=True, exist_ok=True)
        jobs = [[kind, f"/host/{source.relative_to(ROOT)}", f"/host/{output.relative_to(ROOT)}"]
                for source, output in zip(sources, outputs)]
        log(f"compiling {len(sources)} {kind} file(s) to bytecode with Pyodide (node)")
        subprocess.run(["node", "--input-type=module", "-e", PRECOMPILE_NODE, (NPM_PYODIDE / "pyodide.mjs").as_uri(),
                        str(ROOT), json.dumps(jobs), PRECOMPILE_PY], check=True)
    return outputs


# Steps ---------------------------------------------------------------------------------------

def build_labextension() -> None:
    """The prebuilt extension: the JS host plus the bridge wheels in its static assets."""
    ensure_node_modules()
    from jupyter_builder.federated_extensions import build_labextension as build_js

    build_js(str(ROOT))
    shutil.rmtree(BRIDGE_ASSETS, ignore_errors=True)
    BRIDGE_ASSETS.mkdir(parents=True)
    staging = BUILD / "bridge-wheels"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    sources = [*download_wasm_wheels(BRIDGE_SOURCE / "wasm-requirements.txt"), build_bridge_wheel(staging)]
    wheels = precompile("wheel", sources)
    for wheel in wheels:
        shutil.copy2(wheel, BRIDGE_ASSETS / wheel.name)
    shutil.copy2(BOOT_MODULE, BRIDGE_ASSETS / BOOT_MODULE.name)
    manifest = {"module": BRIDGE_MODULE, "wheels": sorted(wheel.name for wheel in wheels),
                "dynlibs": extract_dynlibs(wheels, BRIDGE_ASSETS / "dynlibs"),
                "files": pack_files(wheels, BRIDGE_ASSETS / FILES_PACK)}
    (BRIDGE_ASSETS / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"labextension ready: {len(wheels)} bridge wheels")


def extract_dynlibs(wheels: list[Path], destination: Path) -> list[dict]:
    """The wheels' compiled extension modules, which a snapshot restore links before Python starts."""
    destination.mkdir(parents=True, exist_ok=True)
    dynlibs = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for name in sorted(archive.namelist()):
                if name.endswith(".so"):
                    # .wasm: served as application/wasm, so browsers compile it while streaming
                    target = destination / (name.rpartition("/")[2] + ".wasm")
                    target.write_bytes(archive.read(name))
                    dynlibs.append({"file": f"{destination.name}/{target.name}", "path": name})
    return dynlibs


def pack_files(wheels: list[Path], destination: Path) -> str:
    """Every installed file except the extension modules, in one gzip that a restore writes back.

    Layout: little-endian u32 length of a JSON list of [path, size], the list, then the contents.
    """
    entries, contents = [], []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                if not info.is_dir() and not info.filename.endswith(".so"):
                    data = archive.read(info)
                    entries.append([info.filename, len(data)])
                    contents.append(data)
    index = json.dumps(entries, separators=(",", ":")).encode()
    with gzip.GzipFile(destination, "wb", compresslevel=9, mtime=0) as out:
        out.write(len(index).to_bytes(4, "little") + index + b"".join(contents))
    return destination.name


def prepare_site_pyodide() -> None:
    """Pyodide core from npm plus the kernel's wheels, with a lock listing only what ships."""
    ensure_node_modules()
    shutil.rmtree(SITE_PYODIDE, ignore_errors=True)
    SITE_PYODIDE.mkdir(parents=True)
    for name in PYODIDE_CORE_FILES:
        if name != STDLIB_ZIP:
            shutil.copy2(NPM_PYODIDE / name, SITE_PYODIDE / name)
    shutil.copy2(precompile("stdlib", [NPM_PYODIDE / STDLIB_ZIP])[0], SITE_PYODIDE / STDLIB_ZIP)
    npm_lock = json.loads((NPM_PYODIDE / "pyodide-lock.json").read_text())
    packages = {}
    for wheel in precompile("wheel", download_wasm_wheels(LITE / "kernel-requirements.txt")):
        shutil.copy2(wheel, SITE_PYODIDE / wheel.name)
        meta = wheel_metadata(wheel)
        packages[canonical(meta["name"])] = {
            "name": meta["name"], "version": meta["version"], "file_name": wheel.name, "install_dir": "site",
            "sha256": digest(wheel), "package_type": "package", "imports": meta["imports"],
            "depends": meta["depends"], "unvendored_tests": False,
        }
    for entry in packages.values():
        entry["depends"] = [name for name in entry["depends"] if name in packages]
    lock = {"info": npm_lock["info"], "packages": dict(sorted(packages.items()))}
    (SITE_PYODIDE / "pyodide-lock.json").write_text(json.dumps(lock, indent=1) + "\n")
    log(f"site pyodide ready: {len(packages)} kernel wheels")


def install_extension() -> None:
    """pip install . into the venv, exactly as a user would: the hook builds the labextension."""
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
        "--force-reinstall", ROOT)


def build_site() -> None:
    """A stock `jupyter lite build` of lite/, finding the installed extension by itself."""
    install_extension()
    prepare_site_pyodide()
    # A clean build: jupyterlite's task cache would skip patching a fresh output folder.
    shutil.rmtree(SITE, ignore_errors=True)
    (LITE / ".jupyterlite.doit.db").unlink(missing_ok=True)
    run(Path(sys.executable).parent / "jupyter", "lite", "build", cwd=LITE)
    add_snapshot()
    size = sum(path.stat().st_size for path in SITE.rglob("*") if path.is_file())
    log(f"site built in {SITE.relative_to(ROOT)}: {size / 2**20:.1f} MiB")


# Memory snapshot --------------------------------------------------------------------------------

SNAPSHOT_PAGE = """<!doctype html><script type="module">
const assetsUrl = new URL('/extensions/jupyterlite-webmcp/static/bridge/', location.href).href;
const pyodideUrl = new URL('/static/pyodide/pyodide.mjs', location.href).href;
try {
  const manifest = await (await fetch(assetsUrl + 'manifest.json')).json();
  const { makeSnapshot } = await import(assetsUrl + 'boot.mjs');
  const { memory, ...details } = await makeSnapshot({ pyodideUrl, assetsUrl, manifest });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([memory]));
  link.download = 'snapshot';
  document.body.append(link);
  link.click();
  window.snapshotDetails = { ...details, heapBytes: memory.length };
} catch (error) {
  window.snapshotDetails = { error: String(error.stack || error) };
}
</script>"""


def snapshot_inputs_digest(chromium: str) -> str:
    """Everything a snapshot depends on: Pyodide, the stdlib zip, the bridge assets, the browser."""
    sha = hashlib.sha256(SNAPSHOT_PAGE.encode())
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
    import threading

    from playwright.sync_api import sync_playwright

    server = site_server(0, SITE)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page_url = f"http://127.0.0.1:{server.server_address[1]}/__make_snapshot__.html"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
            page = browser.new_page(accept_downloads=True)
            page.route(page_url, lambda route: route.fulfill(body=SNAPSHOT_PAGE, content_type="text/html"))
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


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs, revalidated on every load (as after a deploy)."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".json": "application/json",
        ".whl": "application/zip",
    }

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def site_server(port: int = 0, directory: Path = SITE) -> SiteServer:
    return SiteServer(("127.0.0.1", port), functools.partial(SiteHandler, directory=str(directory)))


def serve(port: int) -> None:
    server = site_server(port)
    print(f"Serving the demo site at http://127.0.0.1:{server.server_address[1]}/lab/index.html (Ctrl+C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


def write_docs(check: bool) -> None:
    sys.path[:0] = [str(BRIDGE_SOURCE), str(ROOT / "docs")]
    from reference import render_reference

    text = render_reference()
    if check:
        if not TOOL_DOCS.exists() or TOOL_DOCS.read_text() != text:
            sys.exit(f"{TOOL_DOCS.relative_to(ROOT)} is stale: run python3 build.py docs")
        log("tool reference is up to date")
        return
    TOOL_DOCS.write_text(text)
    log(f"wrote {TOOL_DOCS.relative_to(ROOT)}")


def test(pytest_args: list[str]) -> None:
    chromium = ensure_chromium()
    build_site()
    env = {**os.environ, "CHROMIUM": chromium}
    result = subprocess.run([sys.executable, "-m", "pytest", *pytest_args], cwd=ROOT, env=env)
    sys.exit(result.returncode)


def bench(runs: int, calls: int) -> None:
    chromium = ensure_chromium()
    build_site()
    sys.path.insert(0, str(ROOT / "tests"))
    from bench import run_benchmark

    run_benchmark(site_server, SITE, chromium, CHROMIUM_FLAGS, runs, calls, BUILD / "bench.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="build the demo site and serve it on 127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    serve_parser.add_argument("--no-build", action="store_true", help="serve the existing build/site")
    commands.add_parser("build", help="build the demo site into build/site")
    commands.add_parser("labextension", help="build the JupyterLab extension into build/labextension")
    docs_parser = commands.add_parser("docs", help="regenerate docs/tools.md")
    docs_parser.add_argument("--check", action="store_true", help="fail when docs/tools.md is stale")
    bench_parser = commands.add_parser("bench", help="build, then measure boot in headless Chromium")
    bench_parser.add_argument("--runs", type=int, default=3, help="page loads, cold and warm")
    bench_parser.add_argument("--calls", type=int, default=50, help="calls per measured tool")
    commands.add_parser("test", help="install what is missing, build, run all tests (extra arguments go to pytest)")
    args, extra = parser.parse_known_args()
    if extra and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    enter_venv(sys.argv[1:])
    if args.command == "serve":
        if not args.no_build:
            build_site()
        serve(args.port)
    elif args.command == "build":
        build_site()
    elif args.command == "labextension":
        build_labextension()
    elif args.command == "docs":
        write_docs(args.check)
    elif args.command == "bench":
        bench(args.runs, args.calls)
    elif args.command == "test":
        test(extra)


if __name__ == "__main__":
    main()
