"""`jupyterlite-pyodide-webmcp ship-pyodide [LITE_DIR]`: a lite folder made to ship Pyodide, from the installed
package alone, so a stock `jupyter lite build` there makes a site that loads nothing from outside it.

It puts the Pyodide runtime this package ships (Pyodide's core and the kernel's wheels, with a lock that
lists only them) in the folder's `static/pyodide/`, which `jupyter lite build` copies into the site and
points the kernel (and so the bridge) at, and sets in its `jupyter-lite.json` what the kernel needs to stay
offline: no PyPI fallback, and the bridge's bytecode standard library (one download for both).
"""

import json
import shutil
from pathlib import Path
from typing import Any

from .sites import RUNTIME, SITE_CONFIG

KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"


def merged(config: dict[str, Any]) -> dict[str, Any]:
    """A jupyter-lite.json with the kernel's offline settings added (the folder's own settings kept)."""
    wanted = SITE_CONFIG["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    data = config.setdefault("jupyter-config-data", {})
    kernel = data.setdefault("litePluginSettings", {}).setdefault(KERNEL_PLUGIN, {})
    kernel["disablePyPIFallback"] = wanted["disablePyPIFallback"]
    kernel.setdefault("loadPyodideOptions", {}).update(wanted["loadPyodideOptions"])
    config.setdefault("jupyter-lite-schema-version", 0)
    return config


def ship_pyodide(lite_dir: Path) -> str:
    """Make `lite_dir` ship Pyodide; returns what was done, for the human."""
    if not (RUNTIME / "pyodide-lock.json").is_file():
        raise FileNotFoundError(f"this installation has no Pyodide runtime ({RUNTIME}): reinstall the package")
    target = lite_dir / "static" / "pyodide"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(RUNTIME, target)
    config_path = lite_dir / "jupyter-lite.json"
    config = json.loads(config_path.read_text()) if config_path.is_file() else {}
    config_path.write_text(json.dumps(merged(config), indent=2) + "\n")
    size = sum(path.stat().st_size for path in target.rglob("*") if path.is_file()) / 2**20
    return (f"{target}: Pyodide {json.loads((RUNTIME / 'pyodide-lock.json').read_text())['info']['version']} and the "
            f"kernel's wheels ({size:.0f} MiB); {config_path}: no PyPI fallback. Now run jupyter lite build there.")
