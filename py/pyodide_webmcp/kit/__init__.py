"""The tool kit: everything a tool is written with, built-in or a site's own, behind one import.

    from pyodide_webmcp.kit import Arguments, CallContext, tool

A tool is one typed async function and the `tool` decorator: its docstring is its description, its
argument model (an `Arguments` subclass) its input schema, its return annotation its result. Notebooks
are read and written through the kit (`read_cells`, `replace_cell_source`), so the owner's access
rules apply: a hidden cell is not there, a read-only one refuses writes, and in Propose mode the human
reviews an edit before it applies.
"""

from .. import limits
from ..errors import ErrorCode, ToolError
from ..params import CellId, ExpectedSourceHash, NotebookPath
from ..registry import CallContext, tool
from ..schema import Arguments
from .visible_cells import Cell, read_cells, replace_cell_source

__all__ = [
    "Arguments",
    "CallContext",
    "Cell",
    "CellId",
    "ErrorCode",
    "ExpectedSourceHash",
    "NotebookPath",
    "ToolError",
    "limits",
    "read_cells",
    "replace_cell_source",
    "tool",
]
