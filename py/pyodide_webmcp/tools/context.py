"""What the human is looking at: context and opening notebooks."""

from typing import Annotated, Any, Optional

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.positions import editor_coordinates, position_of
from ..base.shapes import (
    FocusContext,
    KernelInfo,
    NotebookField,
    NotebookInfo,
    Position,
    ReviewCounts,
)
from ..calls.budget import CallSummary
from ..calls.current import CallContext
from ..calls.dialog_views import DialogView, dialog_view
from ..calls.schema import (
    Arguments,
    NoArguments,
    PositionArgument,
    SelectionArgument,
    require_max_bytes,
)
from ..calls.tool import tool
from ..notebook.arguments import CellId, NotebookPath, SourceText
from ..notebook.resolve import (
    READ_ERRORS,
    find_cell,
    focus_of,
    info_of,
    resolve_notebook,
    review_counts,
)


class Workspace(TypedDict):
    currentDirectory: Annotated[str, Field(description="The folder the file browser shows.")]
    openDocuments: Annotated[list[str], Field(description="Paths of the open documents the agent may see.")]


class ProposeMode(TypedDict):
    """The human's Propose mode: which agent writes wait for their Accept or Deny (they set it; no tool can)."""

    on: Annotated[bool, Field(description="Whether Propose mode is on.")]
    reviewed: Annotated[list[str], Field(description=(
        "The writes that wait for the human: update (always, when on), insert, delete, run."))]


class ContextResult(TypedDict):
    workspace: Annotated[Workspace, Field(description=(
        "The workspace: the file browser's folder and the open documents."))]
    notebook: Annotated[Optional[NotebookInfo], Field(description=(
        "The notebook: path, name, unsaved changes, revision, cell count."))]
    kernel: Annotated[Optional[KernelInfo], Field(description=(
        "The notebook's kernel, or null when no notebook is current."))]
    focus: Annotated[Optional[FocusContext], Field(description="What the human has active and selected.")]
    review: Annotated[Optional[ReviewCounts], Field(description=(
        "Review thread counts of the current notebook (the agent-visible ones)."))]
    pending: NotRequired[Annotated[list[CallSummary], Field(description=(
        "Your calls still running past the call budget (absent: none)."))]]
    dialogs: NotRequired[Annotated[list[DialogView], Field(description=(
        "Open JupyterLab dialogs: yours in full, the human's as owner human only."))]]
    proposeMode: NotRequired[ProposeMode]


class Activity(TypedDict, total=False):
    """The parts of the context said only when there is something to say."""

    pending: list[CallSummary]
    dialogs: list[DialogView]
    proposeMode: ProposeMode


@tool("jupyter_get_context", "Get notebook context", read_only=True)
async def get_context(args: NoArguments, ctx: CallContext) -> ContextResult:
    """Read what the human sees now: current notebook and kernel, active and selected cells, cursor and selected text; also your pending calls, open dialogs and Propose mode (the human reviews your edits).

    Call it first: "this" usually means the selection. Fields are null when no
    notebook is open.
    """
    lab = ctx.lab
    documents = [path for path, access in lab.open_documents() if access != "none"]
    proposals = lab.proposals
    activity: Activity = {}
    pending = [call.summary() for call in ctx.calls.pending()] if ctx.calls is not None else []
    if pending:
        activity["pending"] = pending
    dialogs = [dialog_view(dialog) for dialog in lab.dialogs.open_dialogs()]
    if dialogs:
        activity["dialogs"] = dialogs
    if proposals.enabled:
        activity["proposeMode"] = {"on": True, "reviewed": sorted({"update", *proposals.reviewed_actions})}
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
    path: str = Field(description='Workspace-relative, "a/b.ipynb".')
    cellId: Optional[str] = Field(None, description="Cell to scroll to.")
    activate: bool = Field(True, description="Bring it to the front.")
    also_taken = "`notebookPath` for `path`."

    @model_validator(mode="before")
    @classmethod
    def _notebook_path(cls, raw: Any) -> Any:
        """`notebookPath`, as the other tools name it, still taken for `path`."""
        if not isinstance(raw, dict) or "notebookPath" not in raw:
            return raw
        taken = {key: value for key, value in raw.items() if key != "notebookPath"}
        if "path" in raw and raw["path"] != raw["notebookPath"]:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "path and notebookPath differ; give one.", field="notebookPath")
        return {**taken, "path": raw["notebookPath"]}


class OpenNotebookResult(TypedDict):
    notebook: NotebookField
    kernel: Annotated[KernelInfo, Field(description="The notebook's kernel, or null when no notebook is current.")]
    focus: Annotated[FocusContext, Field(description="What the human has active and selected.")]
    review: Annotated[ReviewCounts, Field(description=(
        "Review thread counts of the current notebook (the agent-visible ones)."))]


@tool(
    "jupyter_open_notebook",
    "Open a notebook", read_only=False, destructive=False, idempotent=True,
    errors=(ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_PATH, ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE, ErrorCode.CELL_NOT_FOUND,
            ErrorCode.LAB_ERROR),
)
async def open_notebook(args: OpenNotebookArguments, ctx: CallContext) -> OpenNotebookResult:
    """Open a workspace notebook in a tab, or switch to its tab, to show it to the human; returns the notebook (path, cellCount, dirty), kernel, focus and review (thread counts).

    Other tools work on closed notebooks too. To make one: jupyter_create_notebook.
    """
    notebook = await resolve_notebook(ctx.lab, args.path, activate=args.activate)
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
    notebookPath: NotebookPath = None
    cellId: CellId
    text: SourceText = None
    selection: SkipJsonSchema[Optional[SelectionArgument]] = None
    cursor: SkipJsonSchema[Optional[PositionArgument]] = None
    also_taken = ("the reference extension's `selection: {start, end}` (a range to select) and `cursor: {line, column}` "
                  "(where to put the cursor), zero-based lines and columns in characters, in place of `text`.")


class FocusCellResult(TypedDict):
    notebook: NotebookField
    focus: Annotated[FocusContext, Field(description="What the human has active and selected.")]


def _position(argument: PositionArgument) -> Position:
    return {"line": argument.line, "column": argument.column}


@tool(
    "jupyter_focus_cell",
    "Focus a cell", read_only=False, destructive=False, idempotent=True,
    errors=(*READ_ERRORS, ErrorCode.CELL_NOT_FOUND),
)
async def focus_cell(args: FocusCellArguments, ctx: CallContext) -> FocusCellResult:
    """Scroll to a cell and make it active, optionally selecting text of its source; returns the new focus.

    The active cell is the default target of jupyter_insert_cell and jupyter_run_cells; nothing else changes.
    For a review thread: jupyter_focus_comment.
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    index = find_cell(records, args.cellId, notebook.path)
    source = records[index].source
    selection = None
    if args.text is not None:
        require_max_bytes("text", args.text, limits.MAX_SELECTED_TEXT_BYTES)
        start = source.find(args.text) if args.text else -1
        if start < 0:
            raise ToolError(ErrorCode.INVALID_ARGUMENT, "text does not occur in the cell's source.", field="text",
                            detail="TEXT_NOT_FOUND")
        selection = (editor_coordinates(source, position_of(source, start)),
                     editor_coordinates(source, position_of(source, start + len(args.text))))
    elif args.selection is not None:
        selection = (
            editor_coordinates(source, _position(args.selection.start)),
            editor_coordinates(source, _position(args.selection.end)),
        )
    elif args.cursor is not None:
        point = editor_coordinates(source, _position(args.cursor))
        selection = (point, point)
    await notebook.focus_cell(index, selection)
    return {"notebook": info_of(notebook), "focus": focus_of(notebook)}
