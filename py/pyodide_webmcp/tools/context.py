"""What the human is looking at: context and opening notebooks."""

from typing import Optional

from pydantic import Field
from typing_extensions import TypedDict

from ..calls import CallSummary
from ..dialogs import DialogView, view
from ..errors import ErrorCode, ToolError
from ..notebooks import (
    READ_ERRORS,
    find_cell,
    focus_of,
    info_of,
    resolve_notebook,
    review_counts,
)
from ..positions import editor_coordinates
from ..registry import CallContext, tool
from ..schema import Arguments, NoArguments, PositionArgument, SelectionArgument
from ..shapes import FocusContext, KernelInfo, NotebookInfo, Position, ReviewCounts


class Workspace(TypedDict):
    currentDirectory: str
    openDocuments: list[str]


class ProposeMode(TypedDict):
    """The human's Propose mode: which agent writes wait for their Accept or Deny (they set it; no tool can)."""

    on: bool
    reviewed: list[str]


class ContextResult(TypedDict):
    workspace: Workspace
    notebook: Optional[NotebookInfo]
    kernel: Optional[KernelInfo]
    focus: Optional[FocusContext]
    review: Optional[ReviewCounts]
    pending: list[CallSummary]
    dialogs: list[DialogView]
    proposeMode: ProposeMode


@tool("jupyter_get_context", "Get notebook context", read_only=True)
async def get_context(args: NoArguments, ctx: CallContext) -> ContextResult:
    """Read what the human sees now: current notebook and kernel, active and selected cells, cursor, selected text; also your pending calls, open dialogs, Propose mode.

    Call it first: "this" usually means the selection. Reads the live state,
    unsaved edits included; fields are null when no notebook is current.
    `review` counts the notebook's review threads; `pending` lists your calls
    still running past the call budget (get their results with
    jupyter_wait_for_result); `dialogs` lists open JupyterLab dialogs, yours
    in full, the human's only as `owner: "human"`; `proposeMode` says which
    of your writes wait for the human. The selected text is cut at 4 KiB.
    """
    lab = ctx.lab
    documents = [path for path, access in lab.open_documents() if access != "none"]
    proposals = lab.proposals
    activity = {
        "pending": [call.summary() for call in ctx.calls.pending()] if ctx.calls is not None else [],
        "dialogs": [view(dialog) for dialog in lab.dialogs.open_dialogs()],
        "proposeMode": {
            "on": proposals.enabled,
            "reviewed": sorted({"update", *proposals.reviewed_actions}) if proposals.enabled else [],
        },
    }
    workspace: Workspace = {"currentDirectory": lab.current_directory(), "openDocuments": documents}
    notebook = lab.current_notebook()
    if notebook is None or notebook.access() == "none":
        return {"workspace": workspace, "notebook": None, "kernel": None, "focus": None, "review": None, **activity}
    records = notebook.cells()
    return {
        "workspace": workspace,
        "notebook": info_of(notebook, records),
        "kernel": notebook.kernel(),
        "focus": focus_of(notebook, records),
        "review": review_counts(notebook, records),
        **activity,
    }


class OpenNotebookArguments(Arguments):
    path: Optional[str] = Field(
        None,
        description='Workspace-relative path of the .ipynb file, for example "analysis/sales.ipynb" (this or '
        "notebookPath is required).",
    )
    notebookPath: Optional[str] = Field(
        None, description="The same as path (the name the other tools use): give one of the two."
    )
    cellId: Optional[str] = Field(None, description="Cell to activate and scroll to once open.")
    activate: bool = Field(True, description="Bring the notebook to the front.")


class OpenNotebookResult(TypedDict):
    notebook: NotebookInfo
    kernel: KernelInfo
    focus: FocusContext
    review: ReviewCounts


@tool(
    "jupyter_open_notebook",
    "Open a notebook", read_only=False, destructive=False, idempotent=True,
    errors=(ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_PATH, ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE, ErrorCode.CELL_NOT_FOUND,
            ErrorCode.LAB_ERROR),
)
async def open_notebook(args: OpenNotebookArguments, ctx: CallContext) -> OpenNotebookResult:
    """Open a workspace notebook (or reuse its open tab, unsaved edits and all) and show it; returns its summary, kernel, focus and review counts.

    This changes what the human sees; other tools do not need it (they read a
    notebook that is not open from its file, and open it themselves to write
    or run). Optionally scrolls to one cell. Opening may start the notebook's
    kernel; a notebook without a kernelspec makes JupyterLab ask which kernel
    to start: the call then returns pending with that dialog.
    """
    path = args.path if args.path is not None else args.notebookPath
    if path is None:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, 'Missing required argument "path".', field="path")
    if args.notebookPath is not None and args.path is not None and args.notebookPath != args.path:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "path and notebookPath differ; give one.", field="notebookPath")
    notebook = await resolve_notebook(ctx.lab, path, activate=args.activate)
    if args.cellId is not None:
        await notebook.reveal_cell(find_cell(notebook.cells(), args.cellId, notebook.path))
    records = notebook.cells()
    return {
        "notebook": info_of(notebook, records),
        "kernel": notebook.kernel(),
        "focus": focus_of(notebook, records),
        "review": review_counts(notebook, records),
    }


class FocusCellArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook of the cell; the current one when omitted.")
    cellId: str = Field(description="Cell to show.")
    cursor: Optional[PositionArgument] = Field(None, description="Where to put the cursor; ignored with selection.")
    selection: Optional[SelectionArgument] = Field(None, description="Source range to select; wins over cursor.")


class FocusCellResult(TypedDict):
    notebook: NotebookInfo
    focus: FocusContext


def _position(argument: PositionArgument) -> Position:
    return {"line": argument.line, "column": argument.column}


@tool(
    "jupyter_focus_cell",
    "Focus a cell", read_only=False, destructive=False, idempotent=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def focus_cell(args: FocusCellArguments, ctx: CallContext) -> FocusCellResult:
    """Scroll to a cell and select it, optionally placing the cursor or selecting a source range in its editor; returns the notebook and the new focus.

    Use it to point the human at the code under discussion: only the view
    changes, never the content. Positions are zero-based lines and columns
    in characters, clamped into the source. The cell is checked before
    anything moves.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    index = find_cell(records, args.cellId, notebook.path)
    source = records[index].source
    selection = None
    if args.selection is not None:
        selection = (
            editor_coordinates(source, _position(args.selection.start)),
            editor_coordinates(source, _position(args.selection.end)),
        )
    elif args.cursor is not None:
        point = editor_coordinates(source, _position(args.cursor))
        selection = (point, point)
    await notebook.focus_cell(index, selection)
    return {"notebook": info_of(notebook), "focus": focus_of(notebook)}
