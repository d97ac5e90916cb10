"""Arguments many tools share, worded once: every tool's schema spells them the same way."""

from typing import Optional

from pydantic import Field
from typing_extensions import Annotated

from . import limits
from .schema import text_bound

NotebookPath = Optional[str]
"""Omitted: the current notebook (get_context says so once for every tool)."""
CellId = str
ExpectedSourceHash = Annotated[str, Field(description="The sourceHash you read.")]
ThreadId = str
CellSource = Annotated[str, Field(json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES))]
OverwriteUnread = Annotated[
    bool,
    Field(description="Replace a cell you read only in part (sourceTruncated)."),
]
Offset = Annotated[int, Field(ge=0)]
"""Where a page starts: the previous page's nextOffset."""
