"""Result shapes shared by several tools (their output schemas come from these)."""

from typing import Literal, Optional

from typing_extensions import NotRequired, TypedDict

Actor = Literal["human", "agent"]
DiffKind = Literal["same", "removed", "added"]
Action = Literal["inserted", "edited", "ran", "deleted"]
KernelStatus = Literal["idle", "busy", "starting", "restarting", "dead", "unavailable", "unknown"]
CellType = Literal["code", "markdown", "raw"]
ReviewedAction = Literal["insert", "update", "delete", "run"]
"""What the human may review in Propose mode: edits always, the others when they choose."""
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
    metadata: NotRequired[dict]
    lastEditedBy: NotRequired[Actor]
    lastEditedAt: NotRequired[str]


class CellRef(TypedDict):
    """A cell as a write returns it: where it is now and the hash to change it again."""

    id: str
    index: int
    type: str
    sourceHash: str


class ProposalOutcome(TypedDict):
    """Fields of a write the human reviewed in Propose mode and denied (absent otherwise)."""

    proposalId: NotRequired[str]
    code: NotRequired[Literal["PROPOSAL_DENIED"]]
    cellId: NotRequired[str]
    reason: NotRequired[Optional[str]]
