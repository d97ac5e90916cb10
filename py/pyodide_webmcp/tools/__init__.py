"""The tools, one module per job; importing a module registers its tools (registry.tool).

Importing this package imports none of them: the page imports a tool's module on its first call.
"""

import importlib

MODULES = (
    "calls",
    "cell_changes",
    "cells",
    "commands",
    "context",
    "editing",
    "execution",
    "export",
    "files",
    "review",
    "search",
    "selection",
    "snippets",
    "textfiles",
)


def import_all() -> None:
    """Register every tool."""
    for module in MODULES:
        importlib.import_module(f"{__name__}.{module}")
