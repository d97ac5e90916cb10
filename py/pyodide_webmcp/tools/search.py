"""Searching a notebook's cells."""

from typing import Annotated

from pydantic import Field

from ..base import limits
from ..base.fields import HiddenCellCountField
from ..base.shapes import NotebookField
from ..calls.current import CallContext
from ..calls.paging import OffsetPage, offset_page
from ..calls.schema import Arguments, text_bound
from ..calls.tool import tool
from ..notebook.arguments import NotebookPath, Offset
from ..notebook.cell_search import Match, compile_query, find
from ..notebook.resolve import READ_ERRORS, info_of, read_notebook


class SearchArguments(Arguments):
    notebookPath: NotebookPath = None
    query: str = Field(json_schema_extra=text_bound(limits.MAX_SEARCH_QUERY_CHARS))
    regex: bool = Field(False, description=(
        "query is a Python regex, matched within a line; nested repeats like (a+)+ or over 2 of *, +, {n,} are refused."))
    caseSensitive: bool = False
    includeOutputs: bool = Field(False, description="Also search code cells' outputs.")
    limit: int = Field(limits.DEFAULT_SEARCH_MATCHES, ge=1, le=limits.MAX_SEARCH_MATCHES)
    offset: Offset = 0


class SearchResult(OffsetPage):
    notebook: NotebookField
    matches: Annotated[list[Match], Field(description="The matches, in notebook order.")]
    matchCount: Annotated[int, Field(description="How many matches there are in all (beyond this page too).")]
    hiddenCellCount: HiddenCellCountField


@tool("jupyter_search_notebook", "Search a notebook", read_only=True, errors=READ_ERRORS)
async def search_notebook(args: SearchArguments, ctx: CallContext) -> SearchResult:
    """Find text (literal or regex) in a notebook's sources, and outputs if asked; returns each match's cell id, index, zero-based line and column, and excerpt; paged (hasMore, nextOffset).

    Use it to locate code before reading or editing it.
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
