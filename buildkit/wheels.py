"""Pyodide wheels: the pinned downloads, the bridge's own wheel, and what a Pyodide lock entry says of a wheel."""

import shutil
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

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
