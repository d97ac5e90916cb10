"""The built-in tools, one module per job, each exporting its tools (calls.tool.tool makes them).

Importing this package imports none of them: the page imports a tool's module on its first call.
"""

from ..calls.catalog import Toolbox

MODULES = (
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
    "waits",
)


BUILT_IN = Toolbox(f"{__name__}.{module}" for module in MODULES)
"""Every built-in tool, by name."""
