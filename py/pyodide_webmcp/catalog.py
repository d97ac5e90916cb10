"""The tools' catalog: what the page needs of every tool before the tool's code is imported.

Made from the registry on CPython when the extension is built, and shipped in the package
(catalog.json) and in the extension's manifest (the descriptors the page lists early). At start in
the page the registry learns from it which module defines each tool; a tool's module, argument
model and validator are imported and built on the tool's first call.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .early import descriptors_digest, early_tools
from .registry import Registry

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
    digest: str  # of the descriptors: the page keeps early registrations only under this one

    def modules(self) -> dict[str, str]:
        return {entry.name: entry.module for entry in self.entries}


def catalog_of(registry: Registry) -> Catalog:
    """The catalog of every tool, read off their definitions (all imported)."""
    entries = tuple(
        Entry(tool.name, tool.handler.__module__, tool.setting, tool.descriptor(), tool.hints) for tool in registry
    )
    return Catalog(entries, descriptors_digest(entry.descriptor for entry in entries))


def early_copy(catalog: Catalog) -> dict[str, Any]:
    """The manifest's early descriptors (early.py) of this catalog."""
    return early_tools(((entry.descriptor, entry.setting, entry.hints) for entry in catalog.entries), catalog.digest)


def to_data(catalog: Catalog) -> dict[str, Any]:
    return {
        "digest": catalog.digest,
        "tools": [{"name": e.name, "module": e.module, "setting": e.setting, "descriptor": e.descriptor,
                   "hints": e.hints} for e in catalog.entries],
    }


def load_catalog(registry: Registry, path: Path = CATALOG_FILE) -> Catalog:
    """The shipped catalog; in a source checkout, where none was built, the registry's own (all imported)."""
    if not path.exists():
        return catalog_of(registry)
    data = json.loads(path.read_text())
    entries = tuple(Entry(t["name"], t["module"], t["setting"], t["descriptor"], t["hints"]) for t in data["tools"])
    return Catalog(entries, data["digest"])
