"""Calls that outlive the call budget: the pending-call table, what each call waits for, and the waiting itself.

Pure. A tool call runs as a task; whoever waits on it (the call itself, then
`jupyter_wait_for_result`) waits at most the call budget, and earlier when a
dialog of that call opens. Nothing is cancelled by the budget.
"""

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Callable,
    Literal,
    Optional,
)

from pydantic import Field
from typing_extensions import NotRequired, TypedDict, Unpack

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    CellIdField,
    DialogIdField,
    PendingIdField,
    ProposalIdField,
    SinceField,
    ToolField,
)
from ..base.tasks import started_task

if TYPE_CHECKING:
    from ..port import NotebookPort

DIALOG_GRACE_SECONDS = 0.5


WaitingKind = Literal["kernel", "input", "human", "dialog", "work"]


class WaitingFor(TypedDict):
    """What a pending call waits for: `kernel` (a cell running), `input` (a running cell's input() prompt
    waits for the human), `human` (a proposal), `dialog`, or `work`; `renamedTo` is its notebook's new path
    when it was renamed meanwhile."""

    kind: Annotated[WaitingKind, Field(description="What kind of thing this is.")]
    cellId: NotRequired[CellIdField]
    done: NotRequired[Annotated[int, Field(description="Cells of the call already run.")]]
    total: NotRequired[Annotated[int, Field(description="Cells the call runs.")]]
    proposalId: NotRequired[ProposalIdField]
    dialogId: NotRequired[DialogIdField]
    renamedTo: NotRequired[Annotated[str, Field(description=(
        "The notebook's new path: it was renamed while the call ran (the run goes on); use it from now "
        "on."))]]


class CallSummary(TypedDict):
    pendingId: PendingIdField
    tool: ToolField
    since: SinceField
    waitingFor: WaitingFor


@dataclass
class Call:
    """One tool call in flight: its task, what it is waiting for, and its dialogs."""

    id: str
    tool: str
    started: float
    started_at: str
    task: "asyncio.Future[dict[str, Any]]"
    waiting_for: WaitingFor = field(default_factory=lambda: WaitingFor(kind="work"))
    in_dialog_scope: int = 0
    pending_returned: bool = False
    settled: Optional[float] = None
    attention: asyncio.Event = field(default_factory=asyncio.Event)  # set when it settles or a dialog of it opens
    dialog_opened: asyncio.Event = field(default_factory=asyncio.Event)  # for the call's own waits on JupyterLab
    dialogs: list[str] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  # dialog id -> the label of the button that answered it
    renamed_to: Optional[str] = None  # the notebook's new path, when it was renamed while the call ran
    notebook: Optional["NotebookPort"] = None  # the notebook the call waits in, to hide what the owner hides

    def wait_on(self, notebook: Optional["NotebookPort"] = None, **what: Unpack[WaitingFor]) -> None:
        """Say what the call waits for now (shown in pending results and get_context), and in which notebook."""
        self.waiting_for = what
        self.notebook = notebook

    def waiting_kind(self, kind: WaitingKind) -> None:
        """Say that the call now waits for another kind of thing, the rest unchanged."""
        self.waiting_for = {**self.waiting_for, "kind": kind}

    def notebook_renamed(self, path: str) -> None:
        """The call's notebook was renamed under it: its caller hears at once (a pending result saying so)."""
        self.renamed_to = path
        self.attention.set()

    def waiting(self) -> WaitingFor:
        """What the call waits for, as the agent may see it now: a cell or notebook the owner hid since is not
        named (nor is anything of a notebook closed since)."""
        what = self.waiting_for.copy()
        if self.renamed_to is not None:
            what["renamedTo"] = self.renamed_to
        notebook = self.notebook
        if notebook is not None:
            if notebook.closed() or notebook.access() == "none":
                what.pop("cellId", None)
                what.pop("renamedTo", None)
            elif what.get("cellId") in notebook.cells().hidden_ids:
                del what["cellId"]
        return what

    def summary(self) -> CallSummary:
        return {"pendingId": self.id, "tool": self.tool, "since": self.started_at, "waitingFor": self.waiting()}


def unknown_call(pending_id: str) -> ToolError:
    return ToolError(
        ErrorCode.PENDING_CALL_NOT_FOUND,
        f'No pending call "{pending_id}": it never existed, or its result was delivered or expired '
        f"({limits.PENDING_RESULT_KEEP_MS // 60_000} minutes after it settled; at most "
        f"{limits.MAX_SETTLED_PENDING_CALLS} are kept).",
        pendingId=pending_id,
    )


class CallTable:
    """Every call in flight, and the calls that returned a pending result until their result expires."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._numbers = itertools.count(1)
        self._calls: dict[str, Call] = {}

    def start(self, tool: str, run: Callable[[], Any], started_at: str,
              opened: Callable[[Call], None] = lambda call: None) -> Call:
        """Start `run()` (a coroutine returning the envelope) as the task of a new call, at once up to its first
        wait (base/tasks.py); `opened(call)` runs before, so that the work sees its call."""
        call_id = f"call-{next(self._numbers)}"
        placeholder: asyncio.Future[dict[str, Any]] = asyncio.get_event_loop().create_future()
        call = Call(call_id, tool, self._clock(), started_at, placeholder)
        self._calls[call_id] = call
        opened(call)
        call.task = started_task(run())
        if call.task.done():
            self._settle(call)
        else:
            call.task.add_done_callback(lambda _: self._settle(call))
        return call

    def _settle(self, call: Call) -> None:
        call.settled = self._clock()
        call.attention.set()
        if not call.pending_returned:
            self._calls.pop(call.id, None)  # its caller got the result: nothing to keep
        self.expire()

    def expire(self) -> None:
        """Drop settled results after the keep time, and beyond the newest MAX_SETTLED_PENDING_CALLS."""
        now = self._clock()
        keep_seconds = limits.PENDING_RESULT_KEEP_MS / 1000
        settled = sorted(
            ((call.settled, call) for call in self._calls.values() if call.settled is not None), key=lambda pair: pair[0]
        )
        for index, (settled_at, call) in enumerate(settled):
            if now - settled_at > keep_seconds or index < len(settled) - limits.MAX_SETTLED_PENDING_CALLS:
                del self._calls[call.id]

    def get(self, pending_id: str) -> Call:
        self.expire()
        call = self._calls.get(pending_id)
        if call is None or not call.pending_returned:
            raise unknown_call(pending_id)
        return call

    def pending(self) -> list[Call]:
        """Calls that returned a pending result and still run."""
        self.expire()
        return [c for c in self._calls.values() if c.pending_returned and c.settled is None]

    def running(self) -> int:
        """How many calls have not settled, the pending ones included."""
        return sum(c.settled is None for c in self._calls.values())

    def in_dialog_scope(self) -> list[Call]:
        return [c for c in self._calls.values() if c.settled is None and c.in_dialog_scope > 0]

    def find(self, call_id: Optional[str]) -> Optional[Call]:
        return self._calls.get(call_id) if call_id is not None else None


async def wait_for(call: Call, seconds: float) -> bool:
    """Wait until the call settles, a dialog of it opens, or `seconds` pass; True when it settled."""
    if call.task.done():
        return True
    call.attention.clear()
    try:
        await asyncio.wait_for(call.attention.wait(), max(0.0, seconds))
    except asyncio.TimeoutError:
        return call.task.done()
    if not call.task.done():  # a dialog opened: an error dialog fails the call at once, so let it
        await asyncio.wait({call.task}, timeout=DIALOG_GRACE_SECONDS)
    return call.task.done()
