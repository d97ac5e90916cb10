"""Pyodide wheels: the pinned downloads, the bridge's own wheel, and the lock that lists shipped wheels."""

import json
import shutil
import sys
from pathlib import Path

from pyodide_lock import InfoSpec, PyodideLockSpec
from pyodide_lock.utils import add_wheels_to_spec

from .paths import BRIDGE_SOURCE, CACHE
from .shell import run
from .stamps import digest, up_to_date

WASM_PLATFORM = ["--platform", "pyemscripten_2026_0_wasm32", "--python-version", "3.14",
                 "--implementation", "cp", "--abi", "cp314"]


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


CATALOG_FILE = Path("pyodide_webmcp", "calls", "catalog.json")
"""Where the package reads its catalog (calls/catalog.py CATALOG_FILE): without it the page's start imports every
tool to make one."""


def build_bridge_wheel(destination: Path, catalog: dict) -> Path:
    """The bridge's wheel, with its tools' catalog (catalog.json) written where the package reads it."""
    from hatchling.builders.wheel import WheelBuilder

    source = destination / "source"
    shutil.copytree(BRIDGE_SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (source / CATALOG_FILE).write_text(json.dumps(catalog, separators=(",", ":")))
    builder = WheelBuilder(str(source))
    return Path(next(builder.build(directory=str(destination), versions=["standard"])))


def bridge_catalog() -> tuple[dict, dict]:
    """The tools' catalog, read off the bridge's source by this (CPython) interpreter, and the
    descriptors the page lists from it before Python starts (see py/pyodide_webmcp/calls/prelisted.py)."""
    sys.path.insert(0, str(BRIDGE_SOURCE))
    try:
        from pyodide_webmcp.calls.catalog import catalog_of, prelisted_copy, to_data
        from pyodide_webmcp.tools import BUILT_IN

        catalog = catalog_of(BUILT_IN)
        return to_data(catalog), prelisted_copy(catalog)
    finally:
        sys.path.remove(str(BRIDGE_SOURCE))


def pyodide_lock(wheels: list[Path], info: dict, pyodide_version: str) -> PyodideLockSpec:
    """A lock listing exactly these wheels, which sit in one folder beside it.

    `info` is the `info` block of the Pyodide's own lock (which lacks the Pyodide version).
    Each entry holds the wheel's PEP 503 name, its sha256, its top-level imports and the
    dependencies that apply in that Pyodide (environment markers evaluated for its platform
    and Python); a dependency that applies but is not among the wheels fails the build.
    """
    empty = PyodideLockSpec(info=InfoSpec(**{"version": pyodide_version, **info}), packages={})
    return add_wheels_to_spec(empty, wheels)
