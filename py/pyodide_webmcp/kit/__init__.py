"""The site owner's kit: what a site's own tool is written with, and nothing else.

    from pyodide_webmcp.kit import Arguments, CallContext, NotebookPath, read_cells, tool

A tool is one typed async function and the `tool` decorator: its docstring is its description, its
argument model (an `Arguments` subclass) its input schema, its return annotation (a TypedDict, or `dict`)
its output schema. Notebooks are read and written only through the kit (`read_cells`,
`replace_cell_source`), so the owner's access rules apply: a hidden cell is not there, a read-only one
refuses writes, and in Propose mode the human reviews an edit before it applies. `testing` is the
in-memory lab to test tools on CPython. Every name is documented in docs/own-tools.md.
"""

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..calls.schema import Arguments
from ..notebook.access import cell_not_found
from ..notebook.arguments import CellId, ExpectedSourceHash, NotebookPath
from .call_context import CallContext, tool
from .visible_cells import Cell, SourceWritten, read_cells, replace_cell_source

__all__ = [
    "Arguments",
    "CallContext",
    "Cell",
    "CellId",
    "ErrorCode",
    "ExpectedSourceHash",
    "NotebookPath",
    "SourceWritten",
    "ToolError",
    "cell_not_found",
    "limits",
    "read_cells",
    "replace_cell_source",
    "testing",
    "tool",
]
