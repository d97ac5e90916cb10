"""The prebuilt labextension, its wheel, and the demo site: the JS host, the bridge's wheels, the site's Pyodide."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

from jupyterlite_pyodide_webmcp.browser import CHROME_PATH_ENV

from .bytecode import precompile
from .compressed import SUFFIX, write_compressed
from .env import ensure_node_modules
from .paths import (
    BRIDGE_ASSETS,
    BRIDGE_SCRIPTS,
    BRIDGE_SOURCE,
    BROTLI_FILES,
    BUILD,
    DIST,
    FILES_PACK,
    LITE,
    NPM_PYODIDE,
    PYODIDE_CORE_FILES,
    RELAY_FILES,
    ROOT,
    SITE,
    SITE_PYODIDE,
    STDLIB_ZIP,
    STEPPED_RUNTIME,
)
from .shell import log, run
from .snapshot import PLAIN_START_ENV, add_snapshot, heap_table, snapshot_maker
from .stamps import digest
from .wheels import (
    bridge_catalog,
    build_bridge_wheel,
    download_wasm_wheels,
    pyodide_lock,
)

BRIDGE_MODULE = "pyodide_webmcp"


def npm_pyodide_version() -> str:
    """The Pyodide release the extension is built for (the npm package pinned in package.json)."""
    return json.loads((NPM_PYODIDE / "package.json").read_text())["version"]


def build_labextension(*, plain_start: bool) -> None:
    """The prebuilt extension: the JS host, and in its static assets the bridge wheels, Python's
    standard library compiled to bytecode and (unless `plain_start`) the memory snapshot, made for one
    Pyodide release."""
    maker = None if plain_start else snapshot_maker()  # what is missing for it, said before minutes of building
    ensure_node_modules()
    from jupyter_builder.federated_extensions import build_labextension as build_js

    build_js(str(ROOT))
    shutil.rmtree(BRIDGE_ASSETS, ignore_errors=True)
    BRIDGE_ASSETS.mkdir(parents=True)
    staging = BUILD / "bridge-wheels"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    catalog, prelisted = bridge_catalog()
    sources = [*download_wasm_wheels(BRIDGE_SOURCE / "wasm-requirements.txt"), build_bridge_wheel(staging, catalog)]
    wheels = precompile("wheel", sources)
    for wheel in wheels:
        shutil.copy2(wheel, BRIDGE_ASSETS / wheel.name)
    for script in BRIDGE_SCRIPTS:
        shutil.copy2(script, BRIDGE_ASSETS / script.name)
    (BRIDGE_ASSETS / "relay").mkdir()
    for name, source in RELAY_FILES.items():
        shutil.copy2(source, BRIDGE_ASSETS / "relay" / name)
    (BRIDGE_ASSETS / "brotli").mkdir()
    for name, source in BROTLI_FILES.items():
        shutil.copy2(source, BRIDGE_ASSETS / "brotli" / name)
    shutil.copy2(precompile("stdlib", [NPM_PYODIDE / STDLIB_ZIP])[0], BRIDGE_ASSETS / STDLIB_ZIP)
    stepped = {} if plain_start else {"steppedRuntime": write_stepped_runtime(BRIDGE_ASSETS / STEPPED_RUNTIME)}
    manifest = {"module": BRIDGE_MODULE, "pyodideVersion": npm_pyodide_version(), "stdlib": STDLIB_ZIP, **stepped,
                "wheels": sorted(wheel.name for wheel in wheels),
                "dynlibs": extract_dynlibs(wheels, BRIDGE_ASSETS / "dynlibs"), "files": FILES_PACK, "prelisted": prelisted}
    (BRIDGE_ASSETS / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    # Packed after the snapshot (made from the wheels): a restore writes back only what it does not hold imported.
    pack_files(wheels, BRIDGE_ASSETS / FILES_PACK, skip=frozenset(add_snapshot(BRIDGE_ASSETS, maker)))
    manifest = json.loads((BRIDGE_ASSETS / "manifest.json").read_text())
    manifest["build"] = build_id(BRIDGE_ASSETS)
    (BRIDGE_ASSETS / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    log(f"labextension ready: {len(wheels)} bridge wheels, build {manifest['build']}")


def write_stepped_runtime(target: Path) -> str:
    """Pyodide's module factory with its linking and its finish in steps (`steppedRuntime` in
    pyodide-internals.mjs, run here by node), which a restore imports: made once here, not on every page
    load. Returns its file name; fails for a Pyodide whose factory is not the text the steps were written for."""
    script = f"""import {{ readFileSync, writeFileSync }} from 'node:fs';
const {{ steppedRuntime }} = await import({json.dumps((ROOT / "lib" / "pyodide-internals.mjs").as_uri())});
const text = steppedRuntime(readFileSync({json.dumps(str(NPM_PYODIDE / "pyodide.asm.mjs"))}, 'utf8'));
if (text === null) {{
  console.error('Pyodide ' + {json.dumps(npm_pyodide_version())} + "'s pyodide.asm.mjs is not the text its linking steps were written for");
  process.exit(1);
}}
writeFileSync({json.dumps(str(target))}, text);"""
    log(f"{target.name}: Pyodide's module factory with its linking in steps")
    subprocess.run(["node", "--input-type=module", "-e", script], check=True)
    return target.name


def build_id(assets: Path) -> str:
    """A digest of every asset but the manifest: the version the host asks for, so caches never mix builds."""
    sha = hashlib.sha256()
    for path in sorted(assets.rglob("*")):
        if path.is_file() and path.name != "manifest.json":
            sha.update(f"{path.relative_to(assets).as_posix()}:{digest(path)}\n".encode())
    return sha.hexdigest()[:16]


def extract_dynlibs(wheels: list[Path], destination: Path) -> list[dict]:
    """The wheels' compiled extension modules, which a snapshot restore links before Python starts."""
    destination.mkdir(parents=True, exist_ok=True)
    dynlibs = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for name in sorted(archive.namelist()):
                if name.endswith(".so"):
                    # compressed: a fifth of the bytes; the page decodes it as it compiles (dynlibs.mjs)
                    target = destination / (name.rpartition("/")[2] + ".wasm" + SUFFIX)
                    write_compressed(target, archive.read(name))
                    dynlibs.append({"file": f"{destination.name}/{target.name}", "path": name})
    return dynlibs


# Installed files no tool imports: pydantic's v1 compatibility package, its mypy plugin, type stubs. Left out
# of the pack, they cost neither download nor memory (Pyodide's files live in the page's array buffers).
UNUSED_FILES = re.compile(r"pydantic/v1/|pydantic/(__pycache__/)?mypy\.|\.pyi$")


def pack_files(wheels: list[Path], destination: Path, skip: frozenset) -> None:
    """Every installed file except the extension modules, UNUSED_FILES and `skip` (the files of modules
    the snapshot holds imported), in one compressed file that a restore writes back (the plain start installs the
    wheels whole).

    Layout: little-endian u32 length of a JSON list of [path, size], the list, then the contents.
    """
    entries, contents = [], []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            for info in archive.infolist():
                name = info.filename
                if not (info.is_dir() or name.endswith(".so") or UNUSED_FILES.search(name) or name in skip):
                    data = archive.read(info)
                    entries.append([name, len(data)])
                    contents.append(data)
    index = json.dumps(entries, separators=(",", ":")).encode()
    write_compressed(destination, len(index).to_bytes(4, "little") + index + b"".join(contents))


def prepare_site_pyodide() -> None:
    """Pyodide core from npm (as released) plus the kernel's wheels, with a lock listing only what ships.

    The kernel starts with the extension's bytecode standard library instead of the one here
    (lite/jupyter-lite.json, loadPyodideOptions.stdLibURL): one download for kernel and bridge.
    """
    ensure_node_modules()
    shutil.rmtree(SITE_PYODIDE, ignore_errors=True)
    SITE_PYODIDE.mkdir(parents=True)
    for name in PYODIDE_CORE_FILES:
        shutil.copy2(NPM_PYODIDE / name, SITE_PYODIDE / name)
    compiled = precompile("wheel", download_wasm_wheels(LITE / "kernel-requirements.txt"))
    wheels = [Path(shutil.copy2(wheel, SITE_PYODIDE / wheel.name)) for wheel in compiled]
    # The npm lock names 356 packages that live on a CDN: only its info block is kept.
    npm_info = json.loads((NPM_PYODIDE / "pyodide-lock.json").read_text())["info"]
    lock = pyodide_lock(wheels, npm_info, npm_pyodide_version())
    lock.to_json(SITE_PYODIDE / "pyodide-lock.json", indent=1)
    log(f"site pyodide ready: {len(lock.packages)} kernel wheels")


def wheel_environment(environ: Mapping[str, str], browser: str | None) -> dict[str, str]:
    """What the wheel's build hook is told: the browser that makes the snapshot, or to ship none."""
    environment = {key: value for key, value in environ.items() if key not in (PLAIN_START_ENV, CHROME_PATH_ENV)}
    environment.update({CHROME_PATH_ENV: browser} if browser else {PLAIN_START_ENV: "1"})
    return environment


def build_wheel(browser: str | None) -> Path:
    """The prebuilt wheel in dist/: the labextension as shared data, nothing to build at install. Its
    memory snapshot is made in `browser`; None builds a plain-start wheel."""
    shutil.rmtree(DIST, ignore_errors=True)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", DIST, ROOT,
        env=wheel_environment(os.environ, browser))
    wheel = next(DIST.glob("*.whl"))
    kit = Path(shutil.copy2(next((BUILD / "bridge-wheels").glob(f"{BRIDGE_MODULE}-*.whl")), DIST))
    log(f"wheel: {wheel.relative_to(ROOT)}, {wheel.stat().st_size / 2**20:.1f} MiB"
        f"{'' if browser else ', plain start (no memory snapshot)'}; the bridge's own package for CPython (the "
        f"kit, which it needs): {kit.relative_to(ROOT)}, {kit.stat().st_size / 2**10:.0f} KiB")
    snapshot = json.loads((BRIDGE_ASSETS / "manifest.json").read_text()).get("snapshot")
    if snapshot:
        log(f"memory snapshot: {snapshot['heapBytes'] / 2**20:.1f} MiB of wasm heap; the heap as it was made (MiB):")
        for row in heap_table(snapshot["heapSteps"]):
            log(f"  {row}")
    return wheel


def build_site(browser: str | None) -> None:
    """The prebuilt wheel installed into the venv as a user would, then a stock `jupyter lite build` of lite/.
    Without a browser the bridge starts plainly (no memory snapshot)."""
    wheel = build_wheel(browser)  # its build hook prepares the site's Pyodide too (the wheel ships it)
    run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", wheel,
        *DIST.glob(f"{BRIDGE_MODULE}-*.whl"))
    lite_build(SITE)


def lite_build(output: Path, contents: Path | None = None) -> None:
    """A clean `jupyter lite build` of lite/ into `output`, its files from lite/files or else `contents`."""
    # A clean build: jupyterlite's task cache would skip patching a fresh output folder.
    shutil.rmtree(output, ignore_errors=True)
    (LITE / ".jupyterlite.doit.db").unlink(missing_ok=True)
    chosen = ["--contents", contents.resolve()] if contents else []
    run(Path(sys.executable).parent / "jupyter", "lite", "build", "--output-dir", output, *chosen, cwd=LITE)
    size = sum(path.stat().st_size for path in output.rglob("*") if path.is_file())
    log(f"site built in {output.relative_to(ROOT)}: {size / 2**20:.1f} MiB")
