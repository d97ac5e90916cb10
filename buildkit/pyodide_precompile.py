"""Bytecode-compile a standard library zip or wheels, inside Pyodide, so the bytecode matches the browser's Python.

Writes unchecked hash-based .pyc (PEP 552): imports never stat or re-read the source.
pyodide_precompile.mjs runs this file in Node with the project mounted at /host and calls main().
"""

import importlib.util
import json
import marshal
import sys
import zipfile


def pyc(source: bytes, filename: str) -> bytes:
    code = compile(source, filename, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source)
    return header + marshal.dumps(code)


def stdlib(src: str, dst: str) -> None:
    """The zip with each compilable module's .py replaced by its .pyc (where Pyodide imports it from)."""
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


def wheel(src: str, dst: str) -> None:
    """The wheel with __pycache__/*.pyc beside each module, sources kept for tracebacks."""
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


def main(jobs: str) -> None:
    """Run each [kind, source, destination] of a JSON list; kind is "stdlib" or "wheel"."""
    for kind, src, dst in json.loads(jobs):
        (stdlib if kind == "stdlib" else wheel)(src, dst)
