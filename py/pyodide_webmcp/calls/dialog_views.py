"""JupyterLab dialogs as agents see them, and how an answer names a button. Pure.

A dialog raised while an agent call waited on JupyterLab belongs to that call:
the agent sees it and may answer it. Any other dialog is the human's: the agent
learns only that one is open, nothing of its text (it may name a hidden
notebook), and cannot press it.
"""

from typing import Annotated, Any, Optional, Union

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import BodyField, IdField
from ..base.shapes import Actor
from ..base.text import clamp_chars, clamp_utf8, one_line
from ..port import Dialog


class DialogView(TypedDict):
    id: IdField
    owner: Annotated[Actor, Field(description=(
        "agent (raised by one of your calls; you may answer it) or human (theirs alone)."))]
    shown: Annotated[bool, Field(description=(
        "Whether it is shown (JupyterLab shows one dialog at a time; others wait)."))]
    title: NotRequired[Annotated[str, Field(description="The dialog's title.")]]
    body: NotRequired[BodyField]
    buttons: NotRequired[Annotated[list[str], Field(description="Its button labels, in order.")]]
    input: NotRequired[Annotated[Union[str, bool], Field(description=(
        "The value of its first input field (a boolean for a checkbox); never a password."))]]
    passwordField: NotRequired[Annotated[bool, Field(description=(
        "The dialog has a password field (its value is never shown)."))]]
    error: NotRequired[Annotated[bool, Field(description="The error code (closed set; see the tool reference).")]]


def dialog_view(dialog: Dialog) -> DialogView:
    """What an agent may know of a dialog: all of its own, only the existence of the human's."""
    if dialog.owner is None:
        return {"id": dialog.id, "owner": "human", "shown": dialog.shown}
    shown: DialogView = {
        "id": dialog.id,
        "owner": "agent",
        "shown": dialog.shown,
        "title": clamp_chars(one_line(dialog.title), limits.MAX_DIALOG_TITLE_CHARS)[0],
        "body": clamp_utf8(dialog.body.strip(), limits.MAX_DIALOG_BODY_BYTES)[0],
        "buttons": [clamp_chars(one_line(label), limits.MAX_DIALOG_BUTTON_CHARS)[0] for label in dialog.buttons],
    }
    if isinstance(dialog.input, bool):
        shown["input"] = dialog.input
    elif isinstance(dialog.input, str) and not dialog.password:
        shown["input"] = clamp_chars(dialog.input, limits.MAX_DIALOG_INPUT_CHARS)[0]
    if dialog.password:
        shown["passwordField"] = True
    if dialog.error:
        shown["error"] = True
    return shown


def _not_found(message: str, **details: Any) -> ToolError:
    return ToolError(ErrorCode.DIALOG_NOT_FOUND, message, **details)


def choose_dialog(dialogs: list[Dialog], dialog_id: Optional[str]) -> Dialog:
    """The dialog an answer is for: the one named, or the only open dialog of the agent's calls."""
    if dialog_id is not None:
        chosen = next((d for d in dialogs if d.id == dialog_id), None)
        if chosen is None:
            raise _not_found(f'No dialog "{dialog_id}" is open.', dialogId=dialog_id)
    else:
        own = [d for d in dialogs if d.owner is not None]
        if len(own) > 1:
            raise _not_found("Several dialogs are open; name one with dialogId.", dialogIds=[d.id for d in own])
        if not own:
            if dialogs:
                raise ToolError(
                    ErrorCode.DIALOG_NOT_YOURS,
                    "The open dialog is the human's: only they can answer it.",
                    dialogId=dialogs[0].id,
                )
            raise _not_found("No dialog is open.")
        chosen = own[0]
    if chosen.owner is None:
        raise ToolError(
            ErrorCode.DIALOG_NOT_YOURS, "That dialog is the human's: only they can answer it.", dialogId=chosen.id
        )
    if not chosen.shown:
        first = next((d for d in dialogs if d.shown), None)
        waiting = f' behind "{first.id}", which must be closed first' if first is not None else ""
        raise _not_found(f"That dialog is queued{waiting}: JupyterLab shows one dialog at a time.", dialogId=chosen.id)
    return chosen


def choose_button(dialog: Dialog, button: Union[str, int]) -> int:
    """The index of the button named by its label (case-insensitive) or by its 0-based index."""
    if isinstance(button, int):
        if 0 <= button < len(dialog.buttons):
            return button
    else:
        wanted = one_line(button).casefold()
        matches = [i for i, label in enumerate(dialog.buttons) if one_line(label).casefold() == wanted]
        if matches:
            return matches[0]
    raise ToolError(
        ErrorCode.INVALID_ARGUMENT,
        f"The dialog has no button {button!r}; its buttons are {', '.join(repr(b) for b in dialog.buttons)}.",
        field="button",
        buttons=list(dialog.buttons),
    )
