"""Result fields several results share, each with its meaning written once: every output schema and the
tool reference take the description from here."""

from typing import Annotated

from pydantic import Field

STATUS_MEANING = ("The call's outcome: pending (still running: see pendingId), accepted or denied (a write the human "
                  "reviewed in Propose mode), or the tool's own status.")
"""What every result's `status` means, whatever values the tool's own may take."""

BodyField = Annotated[str, Field(description="The message text.")]
CellCountField = Annotated[int, Field(description="How many cells the notebook has, hidden ones included.")]
CellIdField = Annotated[str, Field(description="Stable id of the cell.")]
CellIndexField = Annotated[int | None, Field(description="The anchored cell's index now, or null when it is gone.")]
ColumnField = Annotated[int, Field(description="Zero-based column, in characters.")]
CreatedAtField = Annotated[str, Field(description="When it was created (ISO 8601).")]
DialogIdField = Annotated[str, Field(description="The dialog's id.")]
DirtyField = Annotated[bool, Field(description="Whether the notebook has changes not yet saved to its file.")]
EnameField = Annotated[str, Field(description="The exception's name, as Python prints it.")]
EvalueField = Annotated[str, Field(description="The exception's message.")]
HiddenCellCountField = Annotated[int, Field(description="Cells in the selection the owner hid: left out, only counted.")]
IdField = Annotated[str, Field(description="Stable id.")]
LineField = Annotated[int, Field(description="Zero-based line.")]
MessageField = Annotated[str, Field(description="What happened, for the agent to read.")]
MimeTypeField = Annotated[str, Field(description="MIME type.")]
NameField = Annotated[str, Field(description="File name (the last part of the path).")]
NotebookPathField = Annotated[str, Field(description="Workspace-relative path of the notebook.")]
OmittedCountField = Annotated[int, Field(description="How many items were left out to fit the bounds.")]
OutputIndexField = Annotated[int, Field(description="Zero-based index of the output within its cell.")]
OutputsTruncatedField = Annotated[bool, Field(description="Some outputs were left out.")]
PendingIdField = Annotated[str, Field(description="Pass it to jupyter_wait_for_result to get the result.")]
ProposalIdField = Annotated[str, Field(description="The proposal the human decided on.")]
SelectedTextField = Annotated[str, Field(description="The text the thread is attached to.")]
SinceField = Annotated[str, Field(description="When the call started (ISO 8601).")]
TextField = Annotated[str, Field(description="Text (bounded; a cut ends in [truncated]).")]
ThreadIdField = Annotated[str, Field(description="The thread's id.")]
ToolField = Annotated[str, Field(description="The tool that acted.")]
TracebackField = Annotated[str, Field(description="The traceback, ANSI codes removed.")]
UpdatedAtField = Annotated[str, Field(description="When it last changed (ISO 8601).")]
KindOfEntryField = Annotated[str, Field(description=(
    "The kind: a cell's type (code, markdown, raw), or a workspace entry's (directory, notebook, file)."))]
PositionIndexField = Annotated[int, Field(description=(
    "Zero-based position in the notebook now (-1 when the cell no longer exists)."))]
TruncatedField = Annotated[bool, Field(description=(
    "Whether something was left out to fit the bounds (see omittedCount)."))]
