"""What an agent is told of a call not done within the budget: the pending result, and what to do about it. Pure."""

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base.fields import (
    STATUS_MEANING,
    DialogIdField,
    MessageField,
    PendingIdField,
    SinceField,
    ToolField,
)
from ..base.text import one_line
from ..port import Dialog
from .budget import Call, WaitingFor
from .dialog_views import DialogView, dialog_view


class Answered(TypedDict):
    dialogId: DialogIdField
    button: Annotated[str, Field(description="The label of the button pressed.")]


class PendingResult(TypedDict):
    """A call not done within the budget: it goes on; jupyter_wait_for_result gets its result."""

    status: Annotated[Literal["pending"], Field(description=STATUS_MEANING)]
    pendingId: PendingIdField
    tool: ToolField
    since: SinceField
    message: MessageField
    waitingFor: WaitingFor
    dialog: NotRequired[Annotated[DialogView, Field(description=(
        "A JupyterLab dialog of this call waiting for an answer (jupyter_answer_dialog)."))]]
    answered: NotRequired[Annotated[Answered, Field(description="The dialog and button this answer pressed.")]]


def dialog_of(call: Call, dialogs: Sequence[Dialog]) -> Dialog | None:
    """The call's open dialog that needs attention first: a shown one, else the oldest queued."""
    own = [d for d in dialogs if d.owner == call.id]
    return next((d for d in own if d.shown), own[0] if own else None)


def pending_result(
    call: Call, budget_seconds: float, dialogs: Sequence[Dialog], answered: Answered | None = None
) -> PendingResult:
    dialog = None if call.task.done() else dialog_of(call, dialogs)
    waiting: WaitingFor = {"kind": "dialog", "dialogId": dialog.id} if dialog is not None else call.waiting()
    result: PendingResult = {
        "status": "pending",
        "pendingId": call.id,
        "tool": call.tool,
        "since": call.started_at,
        "message": pending_message(call, budget_seconds, None if dialog is None else dialog_view(dialog)),
        "waitingFor": waiting,
    }
    if dialog is not None:
        result["dialog"] = dialog_view(dialog)
    if answered is not None:
        result["answered"] = answered
    return result


def pending_message(call: Call, budget_seconds: float, dialog: DialogView | None) -> str:
    """What the agent should know and do about a call that has not settled yet."""
    if dialog is not None:
        if dialog.get("error"):
            return (
                f"JupyterLab reported an error in a dialog while {call.tool} ran, and the call probably failed. "
                "Read the dialog, close it with jupyter_answer_dialog, then call jupyter_wait_for_result."
            )
        return (
            f"{call.tool} waits for an answer to a JupyterLab dialog. Press one of its buttons with "
            "jupyter_answer_dialog (or ask the human to); the call then goes on."
        )
    what = call.waiting()
    kind = what["kind"]
    cell = f"cell {what['cellId']}" if "cellId" in what else "a cell"
    if kind == "kernel":
        doing = f"The kernel is running {cell} ({what.get('done', 0)} of {what.get('total', 1)} done)"
        advice = " The Pyodide kernel cannot stop running code; restart the kernel to stop it."
    elif kind == "input":
        doing = (
            f"{cell.capitalize()} waits for the human to answer its input() prompt (the box under the cell; "
            f"{what.get('done', 0)} of {what.get('total', 1)} cells done)"
        )
        advice = " Ask the human to answer it, or restart the kernel to stop the run."
    elif kind == "human":
        doing = "The human is reviewing the proposal (Propose mode) and may take as long as they like"
        advice = ""
    else:
        doing = f"{call.tool} is still working"
        advice = ""
    if "renamedTo" in what:
        doing = f"The notebook was renamed to {what['renamedTo']} while the call ran (use that path from now on). {doing}"
        after = "; it continues in the background"
    elif kind == "human":
        after = f"; the call went past {budget_seconds:g} seconds and continues in the background"
    else:
        after = f" after {budget_seconds:g} seconds; it continues in the background"
    return one_line(
        f"{doing}{after}. Call jupyter_wait_for_result with pendingId {call.id} to get its result.{advice}"
    )
