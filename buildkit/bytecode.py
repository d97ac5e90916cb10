"""Bytecode-compiled copies of the standard library zip and of wheels, made by Pyodide itself in Node."""

import hashlib
import json
import subprocess
from pathlib import Path

from .paths import CACHE, NPM_PYODIDE, ROOT
from .shell import log
from .stamps import digest

PROGRAM = Path(__file__).with_name("pyodide_precompile.py")
LAUNCHER = Path(__file__).with_name("pyodide_precompile.mjs")


def precompile(kind: str, sources: list[Path]) -> list[Path]:
    """Compiled copies of a stdlib zip ("stdlib") or of wheels ("wheel"), same names, cached by content."""
    key = hashlib.sha256(digest(PROGRAM, LAUNCHER, NPM_PYODIDE / "pyodide.asm.wasm").encode())
    for source in sources:
        key.update(digest(source).encode())
    folder = CACHE / "compiled" / key.hexdigest()[:20]
    outputs = [folder / source.name for source in sources]
    if not all(output.exists() for output in outputs):
        folder.mkdir(parents=True, exist_ok=True)
        jobs = [[kind, f"/host/{source.relative_to(ROOT)}", f"/host/{output.relative_to(ROOT)}"]
                for source, output in zip(sources, outputs)]
        log(f"compiling {len(sources)} {kind} file(s) to bytecode with Pyodide (node)")
        subprocess.run(["node", LAUNCHER, (NPM_PYODIDE / "pyodide.mjs").as_uri(), ROOT, PROGRAM, json.dumps(jobs)],
                       check=True)
    return outputs
