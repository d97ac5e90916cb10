"""Arguments many tools share, worded once: every tool's schema spells them the same way."""

from typing import Optional

from pydantic import Field
from typing_extensions import Annotated

from ..base import limits
from ..calls.schema import text_bound

NotebookPath = Annotated[Optional[str], Field(description="Default: current notebook.")]
CellId = str
ExpectedSourceHash = Annotated[str, Field(description="From your last read or write of it.")]
ThreadId = str
CellSource = str
"""A cell's new source: at most MAX_CELL_SOURCE_WRITE_BYTES of UTF-8, checked on call (the refusal gives the size);
the schema does not say it, a bound no cell nears at the cost of every turn's characters."""
OverwriteUnread = Annotated[
    bool,
    Field(description="Replace it even if you read only part."),
]
Offset = Annotated[int, Field(ge=0, description="The previous page's nextOffset.")]
SourceText = Annotated[Optional[str], Field(
    description="Exact text of the source (its first occurrence).",
    json_schema_extra=text_bound(limits.MAX_SELECTED_TEXT_BYTES),
)]
