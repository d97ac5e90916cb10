"""Arguments many tools share, worded once: every tool's schema spells them the same way."""

from typing import Optional

from pydantic import Field
from typing_extensions import Annotated

from ..base import limits
from ..calls.schema import text_bound

NotebookPath = Annotated[Optional[str], Field(description="Default: the current notebook.")]
CellId = str
ExpectedSourceHash = Annotated[str, Field(description="From your last read or write of it.")]
ThreadId = str
CellSource = Annotated[str, Field(json_schema_extra=text_bound(limits.MAX_CELL_SOURCE_WRITE_BYTES))]
OverwriteUnread = Annotated[
    bool,
    Field(description="Replace it even if you read only part."),
]
Offset = Annotated[int, Field(ge=0, description="The previous page's nextOffset.")]
