"""Result shapes shared by several tools (their output schemas come from these)."""

from typing import Annotated, Any, Literal, Optional, get_args

from pydantic import Field
from typing_extensions import NotRequired, TypedDict, TypeIs

from .fields import (
    CellCountField,
    CellIdField,
    ColumnField,
    DirtyField,
    EnameField,
    EvalueField,
    IdField,
    KindOfEntryField,
    LineField,
    MimeTypeField,
    NameField,
    OutputIndexField,
    OutputsTruncatedField,
    PositionIndexField,
    ProposalIdField,
    TextField,
    TracebackField,
)

Actor = Literal["human", "agent"]
DiffKind = Literal["same", "removed", "added"]
Action = Literal["inserted", "edited", "ran", "deleted"]
KernelStatus = Literal["idle", "busy", "starting", "restarting", "dead", "unavailable", "unknown"]
CellType = Literal["code", "markdown", "raw"]
CELL_TYPES: tuple[CellType, ...] = get_args(CellType)
Placement = Literal["above", "below"]
"""Where a cell goes beside the cell it is placed by."""
OptInReview = Literal["insert", "delete", "run"]
"""What the human may choose to review in Propose mode besides edits."""
OPT_IN_REVIEWS: tuple[OptInReview, ...] = get_args(OptInReview)
ReviewedAction = Literal["update", OptInReview]
"""What the human may review in Propose mode: edits (updates) always, the others when they choose."""
Outcome = Literal["accepted", "denied"]
"""The human's decision on a proposal."""


class NotebookInfo(TypedDict):
    path: Annotated[str, Field(description='Workspace-relative path (forward slashes; the root is "").')]
    name: NameField
    dirty: DirtyField
    revision: Annotated[str, Field(description=(
        "A change token over the cells the agent can see; informational, not a write guard."))]
    cellCount: CellCountField


NotebookField = Annotated[NotebookInfo, Field(description=(
    "The notebook: path, name, unsaved changes, revision, cell count."))]


class KernelInfo(TypedDict):
    name: Annotated[Optional[str], Field(description="The kernel's name, or null when none is attached.")]
    displayName: NotRequired[Annotated[str, Field(description="The kernel's display name.")]]
    status: Annotated[KernelStatus, Field(description=(
        "idle, busy, starting, restarting, dead, unknown (loading) or unavailable (none attached)."))]


class Position(TypedDict):
    line: LineField
    column: ColumnField


class TextSelection(TypedDict):
    start: Annotated[Position, Field(description=(
        "Start position (zero-based line and column in characters, unless said otherwise)."))]
    end: Annotated[Position, Field(description="End position (exclusive).")]
    text: TextField
    truncated: NotRequired[Annotated[bool, Field(description=(
        "Whether something was left out to fit the bounds (see omittedCount)."))]]


class FocusContext(TypedDict):
    activeCellId: Annotated[Optional[str], Field(description="The active cell's id (null when none).")]
    activeCellIndex: Annotated[Optional[int], Field(description="The active cell's index (null when none).")]
    activeCellType: Annotated[Optional[str], Field(description="The active cell's type (null when none).")]
    selectedCellIds: Annotated[list[str], Field(description="Ids of the selected cells the agent can see.")]
    hiddenSelectedCellCount: Annotated[int, Field(description="Always 0: a hidden cell is never selected for you.")]
    hiddenActiveCell: Annotated[bool, Field(description="Always false: a hidden cell is never active for you.")]
    cursor: Annotated[Optional[Position], Field(description=(
        "The cursor in the active cell's editor (line and column in characters), or null."))]
    textSelection: Annotated[Optional[TextSelection], Field(description=(
        "The text selected in the active cell's editor, or null when nothing is selected."))]


class ReviewCounts(TypedDict):
    openThreads: Annotated[int, Field(description="Open threads.")]
    totalThreads: Annotated[int, Field(description="All threads.")]


class TextDataEntry(TypedDict):
    mimeType: MimeTypeField
    text: TextField
    truncated: NotRequired[Annotated[bool, Field(description=(
        "Whether something was left out to fit the bounds (see omittedCount)."))]]


class MediaEntry(TypedDict):
    mimeType: MimeTypeField
    bytes: Annotated[int, Field(description="Approximate size in bytes.")]
    included: Annotated[bool, Field(description=(
        "Whether the data is included: only images asked for with includeImages, as image content."))]
    contentIndex: NotRequired[Annotated[int, Field(description=(
        "Where the image is in the result's content list (the JSON text is at 0)."))]]


class OutputSnapshot(TypedDict):
    outputType: Annotated[str, Field(description="stream, execute_result, display_data or error.")]
    executionCount: NotRequired[Annotated[Optional[int], Field(description=(
        "The kernel's execution count of the last run (absent or null: not run)."))]]
    name: NotRequired[Annotated[str, Field(description="The stream: stdout or stderr.")]]
    text: NotRequired[TextField]
    html: NotRequired[Annotated[str, Field(description="HTML reduced to plain text.")]]
    ename: NotRequired[EnameField]
    evalue: NotRequired[EvalueField]
    traceback: NotRequired[TracebackField]
    textData: NotRequired[Annotated[list[TextDataEntry], Field(description=(
        "Other text-like representations (JSON, LaTeX, markdown...)."))]]
    media: NotRequired[Annotated[list[MediaEntry], Field(description=(
        "Binary representations (images...), as their size only."))]]
    truncated: NotRequired[Annotated[bool, Field(description=(
        "Whether something was left out to fit the bounds (see omittedCount)."))]]


class CellSnapshot(TypedDict):
    id: IdField
    index: PositionIndexField
    type: KindOfEntryField
    source: NotRequired[Annotated[str, Field(description="The cell's source text (bounded; see sourceTruncated).")]]
    sourceOffset: NotRequired[Annotated[int, Field(description=(
        "Where the shown source starts, in characters (absent: at 0)."))]]
    sourceTruncated: NotRequired[Annotated[bool, Field(description=(
        "The source was cut to its bound (25 KiB); nextSourceOffset says where the rest starts."))]]
    nextSourceOffset: NotRequired[Annotated[int, Field(description=(
        "Pass it as sourceOffset to read the rest of the source."))]]
    sourceHash: Annotated[str, Field(description=(
        "Hash of the source; pass it back as expectedSourceHash to change or delete the cell (ends in "
        ":part when only part of the source was shown)."))]
    executionCount: NotRequired[Annotated[Optional[int], Field(description=(
        "The kernel's execution count of the last run (absent or null: not run)."))]]
    outputs: NotRequired[Annotated[list[OutputSnapshot], Field(description=(
        "The cell's outputs, bounded (at most 10, text cut to 10 KiB)."))]]
    outputsTruncated: NotRequired[OutputsTruncatedField]
    metadata: NotRequired[Annotated[dict[str, Any], Field(description=(
        "The cell's own metadata (free-form JSON; only when short)."))]]
    lastEditedBy: NotRequired[Annotated[Actor, Field(description="Who changed or ran the cell last: human or agent.")]]
    lastEditedAt: NotRequired[Annotated[str, Field(description="When (ISO 8601).")]]


class CellRef(TypedDict):
    """A cell as a write returns it: where it is now and the hash to change it again."""

    id: IdField
    index: PositionIndexField
    type: KindOfEntryField
    sourceHash: Annotated[str, Field(description=(
        "Hash of the source; pass it back as expectedSourceHash to change or delete the cell (ends in "
        ":part when only part of the source was shown)."))]


class OffsetRange(TypedDict):
    start: Annotated[int, Field(description=(
        "Start position (zero-based line and column in characters, unless said otherwise)."))]
    end: Annotated[int, Field(description="End position (exclusive).")]


class OutputSelection(TypedDict):
    cellId: CellIdField
    outputIndex: OutputIndexField
    text: TextField
    range: Annotated[OffsetRange, Field(description="Where the text is now, columns in characters.")]
    outputFingerprint: Annotated[str, Field(description=(
        "Hash of the output as it was; a different output has a different hash."))]
    capturedAt: Annotated[str, Field(description="When the selection was captured (ISO 8601).")]


class SelectedOutput(OutputSelection):
    """The text the human selected in an output, as the page records it: with the notebook it is in."""

    notebookPath: str


class ProposalOutcome(TypedDict):
    """Fields of a write the human reviewed in Propose mode and denied (absent otherwise)."""

    proposalId: NotRequired[ProposalIdField]
    code: NotRequired[Annotated[Literal["PROPOSAL_DENIED"], Field(description=(
        "PROPOSAL_DENIED when the human said no (a normal result, not an error)."))]]
    cellId: NotRequired[CellIdField]
    reason: NotRequired[Annotated[Optional[str], Field(description=(
        "Why (for a denied proposal: the human's reason, or null)."))]]


def is_cell_type(value: object) -> TypeIs[CellType]:
    return value in CELL_TYPES
