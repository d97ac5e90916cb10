"""What the human is looking at: context and opening notebooks."""

from typing import Optional

from pydantic import Field
from typing_extensions import TypedDict

from ..errors import ErrorCode, ToolError
from ..models import FocusContext, KernelInfo, NotebookInfo, ReviewCounts
from ..notebooks import focus_of, info_of, notebook_not_found
from ..paths import is_notebook_path, normalize_path
from ..registry import CallContext, tool
from ..schema import Arguments


class NoArguments(Arguments):
    pass


class Workspace(TypedDict):
    currentDirectory: str
    openDocuments: list[str]


class ContextResult(TypedDict):
    workspace: Workspace
    notebook: Optional[NotebookInfo]
    kernel: Optional[KernelInfo]
    focus: Optional[FocusContext]
    review: Optional[ReviewCounts]


@tool("jupyter_get_context", "Get notebook context", read_only=True)
async def get_context(args: NoArguments, ctx: CallContext) -> ContextResult:
    """Read what the human is looking at right now: open documents, the current notebook, its kernel, the active and selected cells, the cursor and the selected text.

    Call it first; "this" usually means the selection. Reads the live state,
    unsaved edits included. Fields are null when no notebook is current.
    `review` stays null until review threads exist.
    """
    lab = ctx.lab
    workspace: Workspace = {"currentDirectory": lab.current_directory(), "openDocuments": lab.open_documents()}
    notebook = lab.current_notebook()
    if notebook is None:
        return {"workspace": workspace, "notebook": None, "kernel": None, "focus": None, "review": None}
    return {
        "workspace": workspace,
        "notebook": info_of(notebook),
        "kernel": notebook.kernel(),
        "focus": focus_of(notebook),
        "review": None,
    }


class OpenNotebookArguments(Arguments):
    path: str = Field(description="Workspace-relative path of the .ipynb file.")
    cellId: Optional[str] = Field(None, description="Cell to activate and scroll to once open.")
    activate: bool = Field(True, description="Bring the notebook to the front.")


class OpenNotebookResult(TypedDict):
    notebook: NotebookInfo
    kernel: KernelInfo
    focus: FocusContext
    review: Optional[ReviewCounts]


@tool("jupyter_open_notebook", "Open a notebook", read_only=False)
async def open_notebook(args: OpenNotebookArguments, ctx: CallContext) -> OpenNotebookResult:
    """Open a workspace notebook (or reuse its open tab, unsaved edits and all) and show it, optionally scrolled to one cell.

    This changes what the human sees. Returns the notebook summary, its
    kernel and the resulting focus.
    """
    lab = ctx.lab
    path = normalize_path(args.path)
    notebook = lab.find_notebook(path)
    if notebook is None:
        entry = await lab.get_entry(path) if is_notebook_path(path) else None
        if entry is None or entry.get("type") != "notebook":
            raise notebook_not_found(args.path)
        notebook = await lab.open_notebook(path, activate=args.activate)
    elif args.activate:
        notebook.activate()
    if args.cellId is not None:
        ids = [cell.id for cell in notebook.cells()]
        if args.cellId not in ids:
            raise ToolError(ErrorCode.CELL_NOT_FOUND, f'No cell "{args.cellId}" in {path}.', cellId=args.cellId)
        await notebook.reveal_cell(ids.index(args.cellId))
    return {"notebook": info_of(notebook), "kernel": notebook.kernel(), "focus": focus_of(notebook), "review": None}
