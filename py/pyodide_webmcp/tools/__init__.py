"""Importing this package registers every tool on the registry."""

from . import (  # noqa: F401
    calls,
    cell_changes,
    cells,
    commands,
    context,
    editing,
    execution,
    export,
    files,
    review,
    search,
    selection,
    snippets,
    textfiles,
)
