"""A tool call's context: what the tool gets besides its arguments, and the one context variable that names
the call the running code serves (the kit's functions, dialogs and the page's waits find their call there)."""

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from typing_extensions import Unpack

from ..base import limits
from ..port import AbortState, LabPort, NotebookPort
from .budget import Call, CallTable, WaitingFor
from .pending import Answered, PendingResult, pending_result


class NeverAborted:
    """The abort state of a call made without an AbortSignal."""

    @property
    def aborted(self) -> bool:
        return False

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the call is aborted; returns a function that cancels that."""
        return lambda: None


@dataclass
class CallContext:
    """What a tool call gets besides its arguments: the lab, the abort state, the tool's own name, the calls in
    flight (None: no budget, every call runs to its end) and its own entry among them."""

    lab: LabPort
    abort: AbortState = field(default_factory=NeverAborted)
    tool: str = ""
    calls: Optional[CallTable] = None
    budget_ms: int = limits.CALL_BUDGET_MS
    key: object = field(default_factory=object, repr=False)  # this call's own: the kit's context names it
    call: Optional[Call] = field(default=None, repr=False)  # its entry in `calls`, once started there

    def wait_on(self, notebook: Optional[NotebookPort] = None, **what: Unpack[WaitingFor]) -> None:
        """Say what this call waits for now, and in which notebook; a pending result reports it."""
        if self.call is not None:
            self.call.wait_on(notebook, **what)

    def pending(self, call: Call, answered: Optional[Answered] = None) -> PendingResult:
        return pending_result(call, self.budget_ms / 1000, self.lab.dialogs.open_dialogs(), answered)


CURRENT_CALL: contextvars.ContextVar[CallContext] = contextvars.ContextVar("webmcp_call_context")
"""The context of the tool call this code runs for."""


def current_call() -> Optional[Call]:
    """The entry of the call whose task runs this code, if any."""
    context = CURRENT_CALL.get(None)
    return None if context is None else context.call


@contextlib.contextmanager
def dialog_scope() -> Iterator[Optional[Call]]:
    """Mark a wait on JupyterLab during which a dialog that opens belongs to the current call."""
    call = current_call()
    if call is not None:
        call.in_dialog_scope += 1
    try:
        yield call
    finally:
        if call is not None:
            call.in_dialog_scope -= 1
