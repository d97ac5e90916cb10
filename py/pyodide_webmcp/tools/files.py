"""The workspace's files: listing, creating and saving notebooks."""

from collections import deque
from typing import Annotated, Any, Literal, Optional, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import DirtyField, NameField, OmittedCountField, TruncatedField
from ..base.paths import NOTEBOOK_SUFFIX, join_path, normalize_path
from ..base.shapes import KernelInfo, NotebookField
from ..calls.current import CallContext
from ..calls.paging import OffsetPage, offset_page
from ..calls.schema import Arguments, require_max_bytes, text_bound
from ..calls.tool import tool
from ..lab.kernels import match_kernel
from ..notebook.arguments import NotebookPath, Offset
from ..notebook.resolve import WRITE_ERRORS, info_of, resolve_notebook

EntryType = Literal["directory", "notebook", "file"]
ENTRY_TYPES: tuple[EntryType, ...] = get_args(EntryType)


class WorkspaceEntry(TypedDict):
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    name: NameField
    type: Annotated[EntryType, Field(description=(
        "The kind: a cell's type (code, markdown, raw), or a workspace entry's (directory, notebook, "
        "file)."))]
    size: NotRequired[Annotated[int, Field(description="Size in bytes.")]]
    modified: NotRequired[Annotated[str, Field(description="Last modification time (ISO 8601).")]]


class ListWorkspaceArguments(Arguments):
    path: Optional[str] = Field(None, description="Folder; default: the workspace root.")
    recursive: bool = False
    limit: int = Field(limits.MAX_WORKSPACE_ROWS, ge=1, le=limits.MAX_WORKSPACE_ROWS)
    offset: Offset = 0


class ListWorkspaceResult(OffsetPage):
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    entries: Annotated[list[WorkspaceEntry], Field(description=(
        "The files and folders, folders first, each alphabetical."))]
    truncated: TruncatedField
    omittedCount: OmittedCountField


def _entry(model: dict[str, Any]) -> WorkspaceEntry:
    kind = model.get("type")
    entry: WorkspaceEntry = {
        "path": str(model.get("path", "")),
        "name": str(model.get("name", "")),
        "type": kind if kind in ENTRY_TYPES else "file",
    }
    if isinstance(model.get("size"), int):
        entry["size"] = model["size"]
    if model.get("last_modified"):
        entry["modified"] = str(model["last_modified"])
    return entry


def _sorted_children(listing: dict[str, Any]) -> list[WorkspaceEntry]:
    children = [_entry(child) for child in listing.get("content") or []]
    return sorted(children, key=lambda entry: (entry["type"] != "directory", entry["name"]))


@tool(
    "jupyter_list_workspace",
    "List workspace files", read_only=True,
    errors=(ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_PATH),
)
async def list_workspace(args: ListWorkspaceArguments, ctx: CallContext) -> ListWorkspaceResult:
    """List workspace files and folders (path, name, type, size, modified; never contents), folders first; paged (hasMore, nextOffset).

    Use it to find a notebook, or a file for jupyter_read_file.
    """
    root = normalize_path(args.path or "")
    listing = await ctx.lab.get_entry(root, content=True)
    if listing is None:
        raise ToolError(
            ErrorCode.NOTEBOOK_NOT_FOUND, f'No directory at "{root}".', path=root, detail="DIRECTORY_NOT_FOUND"
        )
    if listing.get("type") != "directory":
        raise ToolError(ErrorCode.INVALID_PATH, f'"{root}" is a file, not a directory.', path=root)
    entries: list[WorkspaceEntry] = []
    skipped = omitted = 0
    pending = deque([listing])
    while pending:
        for child in _sorted_children(pending.popleft()):
            if child["type"] == "notebook" and await ctx.lab.notebook_access(child["path"]) == "none":
                continue  # hidden by the owner: not listed, not counted
            if skipped < args.offset:
                skipped += 1
            elif len(entries) < args.limit:
                entries.append(child)
            else:
                omitted += 1
            if args.recursive and child["type"] == "directory":
                nested = await ctx.lab.get_entry(child["path"], content=True)
                if nested is not None:
                    pending.append(nested)
    return {
        "path": root,
        "entries": entries,
        "truncated": omitted > 0,
        "omittedCount": omitted,
        **offset_page(args.offset, len(entries), omitted),
    }


class CreateNotebookArguments(Arguments):
    name: str = Field(description=".ipynb is added when missing.", json_schema_extra=text_bound(limits.MAX_NAME_BYTES))
    directory: Optional[str] = Field(None, description="Default: the workspace root.")
    kernel: Optional[str] = Field(None, description="Kernel name or language; default: the lab's default.")


class CreateNotebookResult(TypedDict):
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    notebook: NotebookField
    kernel: Annotated[KernelInfo, Field(description="The notebook's kernel, or null when no notebook is current.")]


def _notebook_name(raw: str) -> str:
    name = raw.strip()
    if not name:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "name must not be blank.", field="name")
    require_max_bytes("name", name, limits.MAX_NAME_BYTES)
    if "/" in name or "\\" in name or name in (".", ".."):
        raise ToolError(ErrorCode.INVALID_PATH, f'"{name}" is not a file name.', path=name)
    return name if name.endswith(NOTEBOOK_SUFFIX) else name + NOTEBOOK_SUFFIX


@tool(
    "jupyter_create_notebook",
    "Create a notebook", read_only=False, destructive=False, idempotent=False, untrusted_content=False,
    errors=(ErrorCode.INVALID_PATH, ErrorCode.PATH_EXISTS, ErrorCode.LAB_ERROR, ErrorCode.NOTEBOOK_NOT_IN_THIS_PAGE),
)
async def create_notebook(args: CreateNotebookArguments, ctx: CallContext) -> CreateNotebookResult:
    """Create an empty notebook and open it, never overwriting a file; returns its path, summary and kernel.

    For a notebook that exists, use jupyter_open_notebook.
    """
    lab = ctx.lab
    name = _notebook_name(args.name)
    directory = normalize_path(args.directory or "")
    path = join_path(directory, name)
    cannot_create = ToolError(ErrorCode.INVALID_PATH, f'Could not create a notebook at "{path}".', path=path)
    existing = await lab.get_entry(path)
    if existing is not None:
        if existing.get("type") == "notebook" and await lab.notebook_access(path) == "none":
            raise cannot_create  # a hidden notebook must look like a failed creation, never like PATH_EXISTS
        raise ToolError(ErrorCode.PATH_EXISTS, f'"{path}" already exists; nothing was overwritten.', path=path)
    untitled = None
    try:
        untitled = await lab.new_untitled_notebook(directory)
        await lab.rename(untitled, path)
    except Exception:
        if untitled is not None and await lab.get_entry(untitled) is not None:
            await lab.delete(untitled)
        raise cannot_create from None
    default_kernel, specs = lab.kernel_specs()
    notebook = await lab.open_notebook(path, activate=True, kernel=match_kernel(args.kernel, specs) or default_kernel)
    return {"path": path, "notebook": info_of(notebook), "kernel": notebook.kernel()}


class SaveNotebookArguments(Arguments):
    notebookPath: NotebookPath = None


class SaveNotebookResult(TypedDict):
    saved: Annotated[bool, Field(description="Whether the live notebook was written to its file.")]
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    dirty: DirtyField
    reverted: NotRequired[Annotated[bool, Field(description=(
        "True when the file on disk was loaded instead (File Changed: Revert)."))]]
    keptAs: NotRequired[Annotated[str, Field(description="New file holding the live edits.")]]


@tool(
    "jupyter_save_notebook",
    "Save the notebook", read_only=False, destructive=True, idempotent=True, consequential=True, untrusted_content=False,
    errors=(*WRITE_ERRORS, ErrorCode.DIALOG_CANCELLED, ErrorCode.LAB_ERROR),
)
async def save_notebook(args: SaveNotebookArguments, ctx: CallContext) -> SaveNotebookResult:
    """Save the live notebook, unsaved edits included, to its file; returns saved, path and dirty.

    Tools never save on their own. If the file changed on disk, a File Changed
    dialog makes the call pending: answer it with jupyter_answer_dialog
    (Revert loads the file; the live edits go to keptAs).
    """
    notebook = await resolve_notebook(ctx.lab, args.notebookPath, "write")
    if await ctx.lab.get_entry(notebook.path) is None:
        raise ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'"{notebook.path}" is no longer on disk (deleted or renamed '
                        "outside the lab); nothing was written, and its edits stay open in the lab.", path=notebook.path)
    outcome, kept = await notebook.save()
    result: SaveNotebookResult = {"saved": outcome == "saved", "path": notebook.path, "dirty": notebook.dirty}
    if outcome == "reverted":
        result["reverted"] = True
        if kept is not None:
            result["keptAs"] = kept
    return result
