"""Reading the workspace's text files (a CSV's first lines, a Python module), paged by lines."""

from typing import Annotated

from pydantic import Field

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import TruncatedField
from ..base.paths import is_notebook_path, normalize_path
from ..calls.current import CallContext
from ..calls.paging import OffsetPage
from ..calls.schema import Arguments
from ..calls.tool import tool
from ..lab.text_pages import is_binary, page_lines
from ..notebook.access import notebook_access
from ..notebook.arguments import Offset


class ReadFileArguments(Arguments):
    path: str = Field(description="Workspace-relative.")
    offset: Offset = Field(0, description="First line (zero-based): 0, then nextOffset.")
    limit: int = Field(limits.DEFAULT_FILE_LINES, description="Lines to read.", ge=1, le=limits.MAX_FILE_LINES)


class ReadFileResult(OffsetPage):
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    offset: Annotated[int, Field(description="Where this page starts (for read_file: the first line, zero-based).")]
    lines: Annotated[list[str], Field(description="The lines, without their line endings (each cut at 4 KiB).")]
    lineCount: Annotated[int, Field(description="How many lines the file has.")]
    truncated: TruncatedField


def _missing(path: str) -> ToolError:
    return ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'No file exists at "{path}".', path=path, detail="FILE_NOT_FOUND")


def _hidden_notebook(ctx: CallContext, path: str, content: object) -> bool:
    """Hidden by the owner: the open notebook's live access wins over its (maybe older) file."""
    open_notebook = ctx.lab.find_notebook(path)
    if open_notebook is not None:
        return open_notebook.access() == "none"
    return isinstance(content, dict) and notebook_access(content.get("metadata"), ctx.lab.access_defaults.notebook) == "none"


def _refused(path: str, why: str, detail: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_PATH, f'"{path}" {why}.', path=path, detail=detail)


@tool(
    "jupyter_read_file",
    "Read a text file",
    read_only=True,
    errors=(ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.INVALID_PATH),
)
async def read_file(args: ReadFileArguments, ctx: CallContext) -> ReadFileResult:
    """Read lines of a workspace text file (CSV, .py, README...); returns them, lineCount, hasMore and nextOffset.

    Notebooks are refused: read them with jupyter_get_cells.
    """
    path = normalize_path(args.path)
    entry = await ctx.lab.get_entry(path, content=True) if path else None
    if entry is None:
        raise _missing(path)
    if entry.get("type") == "notebook" or is_notebook_path(path):
        if _hidden_notebook(ctx, path, entry.get("content")):
            raise _missing(path)
        raise _refused(path, "is a notebook: read its cells with jupyter_get_cells", "IS_NOTEBOOK")
    if entry.get("type") == "directory":
        raise _refused(path, "is a folder: list it with jupyter_list_workspace", "IS_DIRECTORY")
    text = entry.get("content")
    if entry.get("format") != "text" or not isinstance(text, str) or is_binary(text):
        raise _refused(path, "is not a text file", "NOT_TEXT")
    page = page_lines(text, args.offset, args.limit)
    result: ReadFileResult = {
        "path": path,
        "offset": args.offset,
        "lines": page.lines,
        "lineCount": page.line_count,
        "truncated": page.cut,
        "hasMore": page.next_start is not None,
    }
    if page.next_start is not None:
        result["nextOffset"] = page.next_start
    return result
