"""Searching a notebook's cells."""

from typing import Optional

from pydantic import Field

from .. import limits
from ..notebooks import READ_ERRORS, info_of, read_notebook
from ..paging import OffsetPage, offset_page
from ..registry import CallContext, tool
from ..schema import Arguments, text_bound
from ..search import Match, compile_query, find
from ..shapes import NotebookInfo


class SearchArguments(Arguments):
    notebookPath: Optional[str] = Field(None, description="Notebook to search; the current one when omitted.")
    query: str = Field(
        description=f"Text to find (at most {limits.MAX_SEARCH_QUERY_CHARS} characters); a regular expression with regex.",
        json_schema_extra=text_bound(limits.MAX_SEARCH_QUERY_CHARS),
    )
    regex: bool = Field(False, description="Treat query as a Python regular expression (within one line).")
    caseSensitive: bool = Field(False, description="Match case exactly.")
    includeOutputs: bool = Field(False, description="Search the text of code cells' outputs too.")
    limit: int = Field(
        limits.DEFAULT_SEARCH_MATCHES, ge=1, le=limits.MAX_SEARCH_MATCHES, description="Most matches to return."
    )
    offset: int = Field(0, ge=0, description="Matches to skip first (nextOffset of the previous page).")


class SearchResult(OffsetPage):
    notebook: NotebookInfo
    matches: list[Match]
    matchCount: int
    hiddenCellCount: int


@tool("jupyter_search_notebook", "Search a notebook", read_only=True, errors=READ_ERRORS)
async def search_notebook(args: SearchArguments, ctx: CallContext) -> SearchResult:
    """Find text in a notebook's cells (sources, and outputs if asked), literally or by regex; returns each match's cell id, index, line, column and excerpt.

    Use it to locate code before reading or editing it (then jupyter_get_cells
    or jupyter_replace_in_cell). Matches stay within one line; excerpts are
    cut at 160 characters; at most `limit` (100) matches per call, then
    hasMore and nextOffset; matchCount counts them all. A regex that could
    run too long in the page (nested repetition such as (a+)+, or more than
    2 unbounded repetitions) is refused with INVALID_ARGUMENT, and looks at
    the first 2,000 characters of each line. Cells the owner hid are never
    searched (hiddenCellCount says how many were skipped).
    """
    pattern = compile_query(args.query, args.regex, args.caseSensitive)
    notebook = await read_notebook(ctx.lab, args.notebookPath)
    records = notebook.cells()
    visible = [index for index, record in enumerate(records) if not record.hidden]
    cells = notebook.cells_json(visible) if args.includeOutputs else [None] * len(visible)
    found = find(
        [(index, records[index], cell) for index, cell in zip(visible, cells)],
        pattern,
        args.includeOutputs,
        args.offset,
        args.limit,
        literal=not args.regex,
    )
    remaining = max(0, found.total - args.offset - len(found.matches))
    return {
        "notebook": info_of(notebook, records),
        "matches": found.matches,
        "matchCount": found.total,
        "hiddenCellCount": len(records) - len(visible),
        **offset_page(args.offset, len(found.matches), remaining),
    }
