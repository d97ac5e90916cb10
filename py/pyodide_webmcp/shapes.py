"""Result shapes shared by several tools (their output schemas come from these)."""

from typing import Any, Literal, Optional, get_args

from typing_extensions import NotRequired, TypedDict, TypeIs

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
    path: str
    name: str
    dirty: bool
    revision: str
    cellCount: int


class KernelInfo(TypedDict):
    name: Optional[str]
    displayName: NotRequired[str]
    status: KernelStatus


class Position(TypedDict):
    line: int
    column: int


class TextSelection(TypedDict):
    start: Position
    end: Position
    text: str
    truncated: NotRequired[bool]


class FocusContext(TypedDict):
    activeCellId: Optional[str]
    activeCellIndex: Optional[int]
    activeCellType: Optional[str]
    selectedCellIds: list[str]
    hiddenSelectedCellCount: int
    hiddenActiveCell: bool
    cursor: Optional[Position]
    textSelection: Optional[TextSelection]


class ReviewCounts(TypedDict):
    openThreads: int
    totalThreads: int


class TextDataEntry(TypedDict):
    mimeType: str
    text: str
    truncated: NotRequired[bool]


class MediaEntry(TypedDict):
    mimeType: str
    bytes: int
    included: bool
    contentIndex: NotRequired[int]


class OutputSnapshot(TypedDict):
    outputType: str
    executionCount: NotRequired[Optional[int]]
    name: NotRequired[str]
    text: NotRequired[str]
    html: NotRequired[str]
    ename: NotRequired[str]
    evalue: NotRequired[str]
    traceback: NotRequired[str]
    textData: NotRequired[list[TextDataEntry]]
    media: NotRequired[list[MediaEntry]]
    truncated: NotRequired[bool]


class CellSnapshot(TypedDict):
    id: str
    index: int
    type: str
    source: NotRequired[str]
    sourceOffset: NotRequired[int]
    sourceTruncated: NotRequired[bool]
    nextSourceOffset: NotRequired[int]
    sourceHash: str
    executionCount: NotRequired[Optional[int]]
    outputs: NotRequired[list[OutputSnapshot]]
    outputsTruncated: NotRequired[bool]
    metadata: NotRequired[dict[str, Any]]
    lastEditedBy: NotRequired[Actor]
    lastEditedAt: NotRequired[str]


class CellRef(TypedDict):
    """A cell as a write returns it: where it is now and the hash to change it again."""

    id: str
    index: int
    type: str
    sourceHash: str


class OffsetRange(TypedDict):
    start: int
    end: int


class OutputSelection(TypedDict):
    cellId: str
    outputIndex: int
    text: str
    range: OffsetRange
    outputFingerprint: str
    capturedAt: str


class SelectedOutput(OutputSelection):
    """The text the human selected in an output, as the page records it: with the notebook it is in."""

    notebookPath: str


class ProposalOutcome(TypedDict):
    """Fields of a write the human reviewed in Propose mode and denied (absent otherwise)."""

    proposalId: NotRequired[str]
    code: NotRequired[Literal["PROPOSAL_DENIED"]]
    cellId: NotRequired[str]
    reason: NotRequired[Optional[str]]


def is_cell_type(value: object) -> TypeIs[CellType]:
    return value in CELL_TYPES
