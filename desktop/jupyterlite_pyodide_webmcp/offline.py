"""`jupyterlite-pyodide-webmcp ship-pyodide [LITE_DIR]`: a lite folder (the folder `jupyter lite build` runs in)
made to ship Pyodide, from the installed package alone, so a stock `jupyter lite build` there makes a site that
loads nothing from outside it.

It puts the Pyodide runtime this package ships (Pyodide's core, the bridge's bytecode standard library and the
kernel's wheels, with a lock that lists only them) in the folder's `static/pyodide/`, which `jupyter lite build`
copies into the site and points the kernel (and so the bridge) at, and sets in its `jupyter-lite.json` that the
kernel never asks PyPI. Nothing it leaves in the folder names the bridge, so the site still works once the bridge
is uninstalled. While it is installed, the build starts the kernel on the bridge's copy of the same standard
library (`shared_stdlib`): one download for both.
"""

import filecmp
import json
import shutil
from pathlib import Path
from typing import Any

from .sites import (
    BRIDGE_ASSETS,
    KERNEL_PLUGIN,
    RUNTIME,
    SITE_BRIDGE_ASSETS,
    SITE_STDLIB_URL,
    STDLIB,
    installed_extension,
)

SITE_PYODIDE = Path("static") / "pyodide"  # in the lite folder, and where the build copies it in the site


def offline_config(config: dict[str, Any]) -> dict[str, Any]:
    """A jupyter-lite.json whose kernel never asks PyPI, the folder's own settings kept; a standard library URL
    into the bridge's folder, which would fail once the bridge is uninstalled, is dropped."""
    data = config.setdefault("jupyter-config-data", {})
    kernel = data.setdefault("litePluginSettings", {}).setdefault(KERNEL_PLUGIN, {})
    kernel["disablePyPIFallback"] = True
    options = kernel.get("loadPyodideOptions")
    if isinstance(options, dict) and options.get("stdLibURL") == SITE_STDLIB_URL:
        del options["stdLibURL"]
        if not options:
            del kernel["loadPyodideOptions"]
    config.setdefault("jupyter-lite-schema-version", 0)
    return config


def ship_pyodide(lite_dir: Path) -> str:
    """Make `lite_dir` ship Pyodide; returns what was done, for the human."""
    if not (RUNTIME / "pyodide-lock.json").is_file():
        raise FileNotFoundError(f"this installation has no Pyodide runtime ({RUNTIME}): reinstall the package")
    stdlib = installed_extension() / BRIDGE_ASSETS / STDLIB
    target = lite_dir / SITE_PYODIDE
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(RUNTIME, target)
    shutil.copy2(stdlib, target / STDLIB)
    config_path = lite_dir / "jupyter-lite.json"
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    config_path.write_text(json.dumps(offline_config(config), indent=2) + "\n")
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file()) / 2**20
    version = json.loads((RUNTIME / "pyodide-lock.json").read_text())["info"]["version"]
    return (f"{target}: Pyodide {version}, its standard library and the kernel's wheels ({size:.0f} MiB); "
            f"{config_path}: no PyPI fallback. Now run jupyter lite build in {lite_dir}.")


def shared_stdlib(kernel: dict[str, Any], site: Path) -> dict[str, Any]:
    """The kernel's settings in the built `site`, starting it on the bridge's standard library when the site's
    Pyodide ships that very file (ship-pyodide puts it there): one download for kernel and bridge. A standard
    library the site's owner chose is kept."""
    options = kernel.get("loadPyodideOptions")
    if isinstance(options, dict) and options.get("stdLibURL"):
        return kernel
    bridge, pyodide = site / SITE_BRIDGE_ASSETS / STDLIB, site / SITE_PYODIDE / STDLIB
    if not (bridge.is_file() and pyodide.is_file() and filecmp.cmp(bridge, pyodide, shallow=False)):
        return kernel
    options = options if isinstance(options, dict) else {}
    return {**kernel, "loadPyodideOptions": {**options, "stdLibURL": SITE_STDLIB_URL}}
