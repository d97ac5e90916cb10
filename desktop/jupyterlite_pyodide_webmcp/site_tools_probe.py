"""A site's tool wheels read at build time on CPython: the descriptors its tools will register with (and every
hint, MCP's too, for the MCP server), so the page lists them with the built-in ones from the start.

    python -m jupyterlite_pyodide_webmcp.site_tools_probe WHEEL...

prints `{"tools": [descriptor...], "problems": [...]}`. Run in a process of its own by the site build (the
owner's code is imported to read its tools: it should not run in the build's own process).
"""

import configparser
import json
import sys
import zipfile
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

from pyodide_webmcp.calls.catalog import load_catalog
from pyodide_webmcp.owner.site_tools import ENTRY_POINT_GROUP, load_tools, problem
from pyodide_webmcp.tools import BUILT_IN


def entry_points_of(wheel: Path) -> list[EntryPoint]:
    """The wheel's entry points of the group, read from its metadata (the wheel is not installed)."""
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if name.endswith(".dist-info/entry_points.txt")]
        text = archive.read(names[0]).decode() if names else ""
    parser = configparser.ConfigParser(delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # entry point names keep their case
    parser.read_string(text)
    if not parser.has_section(ENTRY_POINT_GROUP):
        return []
    return [EntryPoint(name, value.strip(), ENTRY_POINT_GROUP) for name, value in parser.items(ENTRY_POINT_GROUP)]


def probe(wheels: list[Path]) -> dict[str, Any]:
    """Each wheel put on the path as it is (a pure-Python wheel imports from its zip), its tools loaded as the
    page loads them; the descriptors of those that load, and the problems of the rest."""
    problems: list[str] = []
    found: list[EntryPoint] = []
    for wheel in wheels:
        try:
            found += entry_points_of(wheel)
            sys.path.insert(0, str(wheel))
        except Exception as error:  # not a wheel: the page will say the same
            problems.append(problem(wheel.name, error))
    taken = {entry.name for entry in load_catalog(BUILT_IN).entries}
    loaded = load_tools(taken, found)
    return {"tools": [{**tool.descriptor(), "hints": tool.hints} for tool in loaded.tools],
            "problems": [*problems, *loaded.problems]}


if __name__ == "__main__":
    print(json.dumps(probe([Path(argument) for argument in sys.argv[1:]])))
