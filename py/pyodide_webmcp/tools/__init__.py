"""The built-in tools, one module per job, each exporting its tools (calls.tool.tool makes them).

Importing this package imports none of them: a tool's module is imported on its first call, or, in the page, by the
memory snapshot's maker (snapshot.mjs imports every module of MODULES).
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
