"""The reference site of the side-by-side benchmark: the JupyterLite WebMCP reference extension (`jupyterlite-webmcp`,
pinned in tests/reference-requirements.txt) in the demo site's JupyterLite, Pyodide and contents, without
this bridge.

Both sites are built by the same venv's `jupyter lite build` (so the same jupyterlite-core, kernel and
JupyterLab). The reference site takes every labextension installed in the venv except this bridge's,
plus the reference's wheel, and the demo's `jupyter-lite.json` without what points into this bridge.
"""

import json
import shutil
import sys
from pathlib import Path

from .paths import BUILD, CACHE, LITE, ROOT, SITE_PYODIDE
from .shell import log, run
from .stamps import digest, up_to_date

REQUIREMENTS = ROOT / "tests" / "reference-requirements.txt"
REFERENCE_LITE = BUILD / "reference-lite"
REFERENCE_SITE = BUILD / "reference-site"
REFERENCE_EXTENSION = "jupyterlite-webmcp"
BRIDGE_EXTENSION = "jupyterlite-pyodide-webmcp"
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"


def reference_wheel() -> Path:
    """The reference's wheel, downloaded once with its pinned hash."""
    destination = CACHE / "reference"
    stamp = destination / ".requirements.sha256"
    if not up_to_date(stamp, digest(REQUIREMENTS)):
        shutil.rmtree(destination, ignore_errors=True)
        run(sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
            "--only-binary=:all:", "-d", destination, "-r", REQUIREMENTS)
        stamp.write_text(digest(REQUIREMENTS))
    return next(destination.glob("*.whl"))


def installed_labextensions(excluded: str = BRIDGE_EXTENSION) -> list[Path]:
    """The labextension folders `jupyter lite build` takes from the venv, but one."""
    root = Path(sys.prefix) / "share" / "jupyter" / "labextensions"
    folders = [path.parent for path in [*root.glob("*/package.json"), *root.glob("@*/*/package.json")]]
    return sorted(folder for folder in folders if json.loads((folder / "package.json").read_text())["name"] != excluded)


def reference_site_config() -> dict:
    """The demo's jupyter-lite.json without the kernel's start from this bridge's standard library."""
    config = json.loads((LITE / "jupyter-lite.json").read_text())
    kernel = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    kernel.pop("loadPyodideOptions", None)
    return config


def build_reference_site() -> Path:
    """build/reference-site, from the demo's prepared Pyodide (lite/static/pyodide: build the demo first)."""
    if not (SITE_PYODIDE / "pyodide-lock.json").exists():
        raise RuntimeError("lite/static/pyodide is missing: build the demo site first (python3 build.py build)")
    wheel = reference_wheel()
    shutil.rmtree(REFERENCE_LITE, ignore_errors=True)
    shutil.rmtree(REFERENCE_SITE, ignore_errors=True)
    shutil.copytree(SITE_PYODIDE, REFERENCE_LITE / "static" / "pyodide")
    (REFERENCE_LITE / "jupyter-lite.json").write_text(json.dumps(reference_site_config(), indent=2) + "\n")
    build_config = {
        "contents": [str(LITE / "files")],
        "output_dir": str(REFERENCE_SITE),
        "no_sourcemaps": True,
        "ignore_sys_prefix": ["federated_extensions"],
        "federated_extensions": [str(wheel), *(str(folder) for folder in installed_labextensions())],
    }
    (REFERENCE_LITE / "jupyter_lite_config.json").write_text(json.dumps({"LiteBuildConfig": build_config}, indent=2))
    run(Path(sys.executable).parent / "jupyter", "lite", "build", cwd=REFERENCE_LITE)
    extensions = {path.name for path in (REFERENCE_SITE / "extensions").iterdir()}
    if REFERENCE_EXTENSION not in extensions or BRIDGE_EXTENSION in extensions:
        raise RuntimeError(f"the reference site has the wrong extensions: {sorted(extensions)}")
    size = sum(path.stat().st_size for path in REFERENCE_SITE.rglob("*") if path.is_file())
    log(f"reference site built in {REFERENCE_SITE.relative_to(ROOT)}: {size / 2**20:.1f} MiB")
    return REFERENCE_SITE
