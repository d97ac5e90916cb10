"""The prebuilt labextension and the demo site: the JS host, the bridge's wheels, the site's Pyodide."""

import gzip
import json
import shutil
import sys
import zipfile
from pathlib import Path

from .bytecode import precompile
from .env import ensure_node_modules
from .paths import (
    BOOT_MODULE,
    BRIDGE_ASSETS,
    BRIDGE_SOURCE,
    BUILD,
    LITE,
    NPM_PYODIDE,
    PYODIDE_CORE_FILES,
    ROOT,
    SITE,
    SITE_PYODIDE,
    STDLIB_ZIP,
)
from .shell import log, run
from .snapshot import add_snapshot
from .wheels import build_bridge_wheel, download_wasm_wheels, pyodide_lock

BRIDGE_MODULE = "pyodide_webmcp"
FILES_PACK = "site-packages.pack.gz"


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
    compiled = precompile("wheel", download_wasm_wheels(LITE / "kernel-requirements.txt"))
    wheels = [Path(shutil.copy2(wheel, SITE_PYODIDE / wheel.name)) for wheel in compiled]
    # The npm lock names 356 packages that live on a CDN: only its info block is kept.
    npm_info = json.loads((NPM_PYODIDE / "pyodide-lock.json").read_text())["info"]
    npm_version = json.loads((NPM_PYODIDE / "package.json").read_text())["version"]
    lock = pyodide_lock(wheels, npm_info, npm_version)
    lock.to_json(SITE_PYODIDE / "pyodide-lock.json", indent=1)
    log(f"site pyodide ready: {len(lock.packages)} kernel wheels")


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

