"""The JupyterLite site with the bridge, built from the installed packages.

`jupyter lite build` (jupyterlite-core) with the installed extension, the Pyodide kernel and the
Pyodide runtime this package ships (pyodide/: the runtime and the kernel's wheels, with a lock that
lists only them), so the site makes no request off its own origin. It holds no files of the user's:
a folder's files are served beside it (contents_api.py), so one site serves every folder. It is kept
in the user's cache and built again only when the installed packages change.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .stdio import log

EXTENSION = "jupyterlite-pyodide-webmcp"
SETTINGS_ID = "jupyterlite-pyodide-webmcp:bridge"  # the bridge's settings, in a site's litePluginSettings
BRIDGE_ASSETS = Path("static") / "bridge"
SITE_BRIDGE_ASSETS = Path("extensions") / EXTENSION / BRIDGE_ASSETS
RUNTIME = Path(__file__).with_name("pyodide")
STDLIB = "python_stdlib.zip"  # the bridge's standard library, compiled to bytecode, in BRIDGE_ASSETS
SITE_STDLIB_URL = f"./{(SITE_BRIDGE_ASSETS / STDLIB).as_posix()}"  # where a built site serves it
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
CACHE_ENV = "JUPYTERLITE_WEBMCP_CACHE"

# jupyter-lite.json: no PyPI fallback (everything the kernel loads is in the site), and the kernel starts
# from the bridge's bytecode standard library (one download for both).
SITE_CONFIG = {
    "jupyter-lite-schema-version": 0,
    "jupyter-config-data": {
        "appName": "JupyterLite",
        "litePluginSettings": {
            KERNEL_PLUGIN: {
                "disablePyPIFallback": True,
                "loadPyodideOptions": {"stdLibURL": SITE_STDLIB_URL},
            }
        },
    },
}


def user_cache() -> Path:
    """Where this package keeps its sites and browser profiles: $JUPYTERLITE_WEBMCP_CACHE, else the OS's
    cache folder."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / EXTENSION


def installed_extension() -> Path:
    """The installed labextension's folder (where `jupyter lite build` finds it)."""
    try:
        from jupyter_core.paths import jupyter_path

        folders = [Path(folder) for folder in jupyter_path("labextensions")]
    except ImportError:
        folders = []
    folders.append(Path(sys.prefix) / "share" / "jupyter" / "labextensions")
    for folder in folders:
        if (folder / EXTENSION / BRIDGE_ASSETS / "manifest.json").is_file():
            return folder / EXTENSION
    raise FileNotFoundError(f"the {EXTENSION} labextension is not installed in this environment "
                            f"(looked in {', '.join(map(str, folders))}): reinstall the package")


def contents_key(folder: Path | None) -> str:
    """A folder's own name for its browser profile: its name and a digest of its absolute path."""
    if folder is None:
        return "no-contents"
    resolved = folder.resolve()
    return f"{resolved.name}-{hashlib.sha256(str(resolved).encode()).hexdigest()[:12]}"


def tools_digest(tools: Sequence[Path]) -> str:
    """The names and bytes of the site tools' wheels."""
    sha = hashlib.sha256()
    for wheel in tools:
        sha.update(wheel.name.encode() + b"\0" + wheel.read_bytes() + b"\0")
    return sha.hexdigest()


def inputs_digest(extension: Path, tools: Sequence[Path] = ()) -> str:
    """Changes with the bridge's build, the packages `jupyter lite build` uses and the site tools' wheels."""
    from importlib.metadata import version

    build = json.loads((extension / BRIDGE_ASSETS / "manifest.json").read_text())["build"]
    packages = [f"{name}=={version(name)}" for name in ("jupyterlite-core", "jupyterlite-pyodide-kernel")]
    lock = (RUNTIME / "pyodide-lock.json").read_bytes() if (RUNTIME / "pyodide-lock.json").is_file() else b""
    sha = hashlib.sha256("\0".join([build, *packages, tools_digest(tools) if tools else ""]).encode())
    sha.update(lock)
    return sha.hexdigest()


def site_folder(tools: Sequence[Path] = ()) -> Path:
    """Where the site is kept: one for the built-in tools, one per set of site tools."""
    return user_cache() / "sites" / ("lab" if not tools else f"lab-{tools_digest(tools)[:12]}") / "site"


def site_for(tools: Sequence[Path] = ()) -> Path:
    """The site (with `tools`, the wheels of site tools, shipped and listed in its ownerTools), built when its
    inputs changed; earlier versions' sites, one per folder, are removed then."""
    if not (RUNTIME / "pyodide-lock.json").is_file():
        raise FileNotFoundError(f"this installation has no Pyodide runtime ({RUNTIME}): reinstall the package")
    extension = installed_extension()
    site = site_folder(tools)
    folder, stamp = site.parent, site.parent / "inputs.sha256"
    wanted = inputs_digest(extension, tools)
    if (site / "index.html").is_file() and stamp.is_file() and stamp.read_text() == wanted:
        log(f"the site is up to date ({site})")
        return site
    log(f"building the site into {site}")
    for earlier in folder.parent.iterdir() if folder.parent.is_dir() else []:
        if not earlier.name.startswith("lab") and (earlier / "inputs.sha256").is_file():
            shutil.rmtree(earlier, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    lite = folder / "lite"
    shutil.rmtree(lite, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(RUNTIME, lite / "static" / "pyodide")
    config = json.loads(json.dumps(SITE_CONFIG))
    if tools:
        (lite / "pypi").mkdir()
        for wheel in tools:
            shutil.copy2(wheel, lite / "pypi" / wheel.name)
        config["jupyter-config-data"]["litePluginSettings"][SETTINGS_ID] = {
            "ownerTools": [f"pypi/{wheel.name}" for wheel in tools]}
    (lite / "jupyter-lite.json").write_text(json.dumps(config, indent=2) + "\n")
    build_config = {"LiteBuildConfig": {"contents": [], "output_dir": str(site), "no_sourcemaps": True}}
    (lite / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=2) + "\n")
    # Its output is the log's, never MCP's stdout; stdin is not the host's either.
    subprocess.run([sys.executable, "-m", "jupyterlite_core", "build"], cwd=lite, check=True,
                   stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno())
    stamp.write_text(wanted)
    log(f"site built: {sum(path.stat().st_size for path in site.rglob('*') if path.is_file()) / 2**20:.1f} MiB")
    return site


def site_manifest(site: Path) -> Path:
    """The bridge's manifest as the site serves it."""
    return site / SITE_BRIDGE_ASSETS / "manifest.json"
