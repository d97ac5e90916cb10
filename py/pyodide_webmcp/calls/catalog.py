"""The tools by name, and their catalog: what the page needs of every tool before the tool's code is imported.

A `Toolbox` holds the tools the modules it knows export, importing a module on the first lookup of one of
its tools. The catalog is made from the built-in toolbox on CPython when the extension is built, and
shipped in the package (catalog.json) and in the extension's manifest (the descriptors the page lists
early). At start in the page the toolbox learns from it which module defines each tool; a tool's module,
argument model and validator are imported and built on the tool's first call, unless the memory snapshot already
holds them (it holds every built-in tool's).
"""

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional

from .prelisted import descriptors_digest, prelisted_tools
from .tool import Tool, tools_of


class Toolbox:
    """Tools by name. `modules`: every module that exports some (iterating imports them all); `located`: which
    module exports which tool (from the catalog), so that a lookup imports only that one."""

    def __init__(self, modules: Iterable[str] = ()) -> None:
        self._modules = tuple(modules)
        self._located: dict[str, str] = {}
        self._tools: dict[str, Tool] = {}
        self._imported: set[str] = set()

    def locate(self, located: dict[str, str]) -> None:
        self._located = dict(located)

    def add(self, tools: Iterable[Tool]) -> None:
        """Tools beyond the modules' (a site's own); ValueError for a name already taken."""
        for tool in tools:
            if self._tools.get(tool.name, tool) is not tool:
                raise ValueError(f"duplicate tool {tool.name}")
            self._tools[tool.name] = tool

    def get(self, name: str) -> Optional[Tool]:
        if name not in self._tools:
            module = self._located.get(name)
            if module is not None:
                self._import(module)
            else:
                self._import_all()
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Every tool's name (importing every module)."""
        return [tool.name for tool in self]

    def known(self) -> set[str]:
        """The names of the tools it has or knows where to find, importing nothing."""
        return {*self._located, *self._tools}

    def __iter__(self) -> Iterator[Tool]:
        self._import_all()
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        self._import_all()
        return len(self._tools)

    def _import_all(self) -> None:
        for module in self._modules:
            self._import(module)

    def _import(self, module: str) -> None:
        if module not in self._imported:
            self.add(tools_of(importlib.import_module(module)))
            self._imported.add(module)

CATALOG_FILE = Path(__file__).with_name("catalog.json")


@dataclass(frozen=True)
class Entry:
    name: str
    module: str  # the module that defines it
    setting: Optional[str]  # the owner's setting that turns this opt-in tool on
    descriptor: dict[str, Any]  # what WebMCP registers (an `execute` added)
    hints: dict[str, bool]  # every hint, MCP's write hints included (the MCP server's)


@dataclass(frozen=True)
class Catalog:
    entries: tuple[Entry, ...]
    digest: str  # of the descriptors: the page keeps the prelisted registrations only under this one

    def modules(self) -> dict[str, str]:
        return {entry.name: entry.module for entry in self.entries}


def catalog_of(toolbox: Toolbox) -> Catalog:
    """The catalog of every tool, read off their definitions (all imported)."""
    entries = tuple(Entry(tool.name, tool.module, tool.setting, tool.descriptor(), tool.hints) for tool in toolbox)
    return Catalog(entries, descriptors_digest(entry.descriptor for entry in entries))


def prelisted_copy(catalog: Catalog) -> dict[str, Any]:
    """The descriptors the manifest lists before Python starts (prelisted.py), of this catalog."""
    return prelisted_tools(((entry.descriptor, entry.setting, entry.hints) for entry in catalog.entries), catalog.digest)


def to_data(catalog: Catalog) -> dict[str, Any]:
    return {
        "digest": catalog.digest,
        "tools": [{"name": e.name, "module": e.module, "setting": e.setting, "descriptor": e.descriptor,
                   "hints": e.hints} for e in catalog.entries],
    }


def load_catalog(toolbox: Toolbox, path: Path = CATALOG_FILE) -> Catalog:
    """The shipped catalog; in a source checkout, where none was built, the toolbox's own (all imported)."""
    if not path.exists():
        return catalog_of(toolbox)
    data = json.loads(path.read_text())
    entries = tuple(Entry(t["name"], t["module"], t["setting"], t["descriptor"], t["hints"]) for t in data["tools"])
    return Catalog(entries, data["digest"])
