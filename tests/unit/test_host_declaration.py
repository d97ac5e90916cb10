"""The host object is declared alike on both sides: lib/handoff.js (JSDoc) and pyodide_webmcp/host.py."""

import re
import subprocess
import sys
import typing
from pathlib import Path

from pyodide_webmcp import host

HANDOFF_JS = Path(__file__).resolve().parents[2] / "lib" / "handoff.js"
JS_TYPEDEF = re.compile(r"@typedef \{object\} (\w+)\n(.*?)\*/", re.DOTALL)
JS_PROPERTY = re.compile(r"@property \{[^}]*\} (\w+)")


def js_declarations() -> dict[str, set[str]]:
    """Each object typedef of lib/handoff.js and its property names."""
    return {name: set(JS_PROPERTY.findall(body)) for name, body in JS_TYPEDEF.findall(HANDOFF_JS.read_text())}


def python_declarations() -> dict[str, set[str]]:
    """Each Protocol of host.py and its member names (attributes and methods)."""
    protocols = [value for value in vars(host).values()
                 if isinstance(value, type) and typing.Protocol in value.__mro__ and value.__module__ == host.__name__]
    return {protocol.__name__: {name for name in [*vars(protocol), *vars(protocol).get("__annotations__", {})]
                                if not name.startswith("_")}
            for protocol in protocols}


def test_both_sides_declare_the_same_types_with_the_same_keys():
    python = python_declarations()
    assert python["Host"] == {"app", "tracker", "docManager", "fileBrowser", "palette", "modelContext", "setStatus",
                              "page", "cellExecutor", "settings", "boot", "classes", "readers", "prelisted"}
    assert js_declarations() == python


def test_the_cell_row_is_declared_on_both_sides():
    assert typing.get_args(host.CellRow)[:3] == (str, str, str)
    assert "@typedef {[id: string, cellType: string, source: string, access: AccessEntry]} CellRow" in HANDOFF_JS.read_text()


def test_the_declaration_imports_no_javascript():
    imported = subprocess.run(
        [sys.executable, "-c", "import sys, pyodide_webmcp.host; print('js' in sys.modules or 'pyodide' in sys.modules)"],
        capture_output=True, text=True, check=True, cwd=Path(host.__file__).parents[1])
    assert imported.stdout.strip() == "False"
