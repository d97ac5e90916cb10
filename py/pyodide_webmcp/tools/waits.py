"""Long work and dialogs: getting the result of a call that went on past the budget, and answering its dialogs."""

from typing import Annotated, Any, Optional, Union

from pydantic import Field
from typing_extensions import TypedDict

from ..base import limits
from ..base.errors import ErrorCode
from ..calls.budget import unknown_call, wait_for
from ..calls.current import CallContext
from ..calls.dialog_views import choose_button, choose_dialog
from ..calls.envelope import Delivered, failure, success
from ..calls.pending import Answered
from ..calls.schema import Arguments
from ..calls.tool import tool

BUDGET_SECONDS = limits.CALL_BUDGET_MS / 1000


class WaitArguments(Arguments):
    pendingId: str
    timeoutSeconds: Optional[float] = Field(
        None,
        ge=0,
        description=f"Default and cap: the per-call limit, {BUDGET_SECONDS:g} s unless the human set another.",
    )


class AnyResult(TypedDict, total=False):
    """The waited-for call's own result (its tool's shape, an error, or pending again)."""


@tool(
    "jupyter_wait_for_result",
    "Wait for a pending result", read_only=True, budgeted=False,
    errors=(ErrorCode.PENDING_CALL_NOT_FOUND,),
)
async def wait_for_result(args: WaitArguments, ctx: CallContext) -> Delivered[AnyResult]:
    """Wait for a call that returned {status: "pending", pendingId}; returns its final result in that tool's own shape, or pending again.

    A call waiting on its dialog returns at once: answer it with jupyter_answer_dialog. Results are kept 10
    minutes; an unknown pendingId is error PENDING_CALL_NOT_FOUND.
    """
    if ctx.calls is None:  # calls made without a budget never return pending
        raise unknown_call(args.pendingId)
    call = ctx.calls.get(args.pendingId)
    budget = ctx.budget_ms / 1000
    seconds = budget if args.timeoutSeconds is None else min(args.timeoutSeconds, budget)
    waiting_dialog = any(d.owner == call.id and d.shown and not d.error for d in ctx.lab.dialogs.open_dialogs())
    if waiting_dialog and not call.task.done():
        return Delivered(success(ctx.pending(call)))
    if await wait_for(call, seconds):
        return Delivered(call.task.result())
    return Delivered(success(ctx.pending(call)))


class AnswerArguments(Arguments):
    button: Union[str, int] = Field(description="Its label (case-insensitive) or 0-based index.")
    dialogId: Optional[str] = Field(None, description="Needed only when several of your dialogs are open.")


class AnswerResult(TypedDict, total=False):
    """The owning call's result (its tool's shape, or pending) with `answered`; else {success, answered}."""

    success: Annotated[bool, Field(description="The answer was given.")]
    answered: Annotated[Answered, Field(description="The dialog and button this answer pressed.")]


def _with_answer(envelope: dict[str, Any], answered: Answered) -> dict[str, Any]:
    payload = envelope.get("structuredContent")
    if not isinstance(payload, dict):
        return envelope  # a result cut to its last-resort form stays as it is
    if envelope.get("isError"):
        return failure({**payload, "answered": answered})
    return success({**payload, "answered": answered})


@tool(
    "jupyter_answer_dialog",
    "Answer a dialog", read_only=False, destructive=True, idempotent=False, consequential=True, budgeted=False,
    errors=(ErrorCode.DIALOG_NOT_FOUND, ErrorCode.DIALOG_NOT_YOURS),
)
async def answer_dialog(
    args: AnswerArguments, ctx: CallContext
) -> Union[AnswerResult, Delivered[AnswerResult]]:
    """Press a button of a dialog one of your calls raised, as the human would; returns that call's result (or pending) with answered (dialogId, button).

    Its pending result and jupyter_get_context list open dialogs with dialogId and buttons.
    """
    dialogs = ctx.lab.dialogs.open_dialogs()
    dialog = choose_dialog(dialogs, args.dialogId)
    index = choose_button(dialog, args.button)
    await ctx.lab.dialogs.press(dialog.id, index)
    answered: Answered = {"dialogId": dialog.id, "button": dialog.buttons[index]}
    call = ctx.calls.find(dialog.owner) if ctx.calls is not None else None
    if call is None or not call.pending_returned:
        return {"success": True, "answered": answered}
    seconds = limits.ERROR_DIALOG_WAIT_MS / 1000 if dialog.error else ctx.budget_ms / 1000
    if await wait_for(call, seconds):
        return Delivered(_with_answer(call.task.result(), answered))
    return Delivered(success(ctx.pending(call, answered=answered)))
