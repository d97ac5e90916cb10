"""JupyterLab's dialogs, watched: who each belongs to, what it says, pressing its buttons, and bounded waits.

A dialog that opens while exactly one agent call waits on JupyterLab (inside
`calls.dialog_scope`) belongs to that call; any other is the human's. The
bridge never closes a dialog on its own.
"""

import asyncio
import itertools
from dataclasses import dataclass, field
from typing import Any, Optional

from pyodide.ffi import create_proxy

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.text import one_line
from ..calls.budget import CallTable
from ..calls.current import dialog_scope
from ..port import Dialog
from .ffi import js_value

PRESS_WAIT_MS = 1_000


@dataclass
class _Watched:
    widget: Any
    owner: Optional[str]
    proxies: list[Any] = field(default_factory=list)


class DialogWatcher:
    """Every dialog JupyterLab creates, from the moment it is constructed until it is disposed."""

    def __init__(self, dialog_class: Any, calls: CallTable):
        self._calls = calls
        self._numbers = itertools.count(1)
        self._open: dict[str, _Watched] = {}
        self._added = create_proxy(lambda _tracker, widget: self._watch(widget))
        tracker = dialog_class.tracker
        existing = create_proxy(lambda widget, *_: self._watch(widget, human=True))
        tracker.forEach(existing)
        existing.destroy()
        tracker.widgetAdded.connect(self._added)

    def _watch(self, widget: Any, human: bool = False) -> None:
        scoped = [] if human else self._calls.in_dialog_scope()
        owner = scoped[0] if len(scoped) == 1 else None
        dialog_id = f"dialog-{next(self._numbers)}"
        watched = _Watched(widget, owner.id if owner is not None else None)
        self._open[dialog_id] = watched

        def on_click(event: Any) -> None:  # the human's click, or ours: which button answered
            target = js_value(event.target)
            button = js_value(target.closest(".jp-Dialog-button")) if target is not None else None
            index = int(widget._buttonNodes.indexOf(button)) if button is not None else -1
            if index >= 0 and owner is not None:
                owner.answers[dialog_id] = self._labels(widget)[index]

        def on_disposed(*_: Any) -> None:
            gone = self._open.pop(dialog_id, None)
            if gone is not None:
                widget.node.removeEventListener("click", gone.proxies[0], True)
                for proxy in gone.proxies:
                    proxy.destroy()

        watched.proxies = [create_proxy(on_click), create_proxy(on_disposed)]
        widget.node.addEventListener("click", watched.proxies[0], True)
        widget.disposed.connect(watched.proxies[1])
        if owner is not None:
            owner.dialogs.append(dialog_id)
            owner.dialog_opened.set()
            owner.attention.set()

    # Reading

    @staticmethod
    def _labels(widget: Any) -> list[str]:
        return [str(js_value(button.label) or "") for button in js_value(widget._buttons) or []]

    def _read(self, dialog_id: str, watched: _Watched) -> Dialog:
        widget = watched.widget
        body_widget = js_value(widget._bodyWidget)
        body = str(body_widget.node.innerText or body_widget.node.textContent or "") if body_widget is not None else ""
        raw_body = js_value(widget._body)
        label = str(js_value(widget.node.getAttribute("aria-label")) or "")
        if isinstance(raw_body, str) and label.endswith(raw_body):
            title = label[: len(label) - len(raw_body)]
        else:
            header = js_value(widget.node.querySelector(".jp-Dialog-header"))
            title = str(header.textContent or "") if header is not None else ""
        field_node = js_value(widget.node.querySelector(".jp-Dialog-body input, .jp-Dialog-body select, .jp-Dialog-body textarea"))
        value: Any = None
        password = False
        if field_node is not None:
            kind = str(js_value(field_node.type) or "")
            password = kind == "password"
            value = bool(field_node.checked) if kind == "checkbox" else None if password else str(field_node.value)
        return Dialog(
            id=dialog_id,
            owner=watched.owner,
            title=one_line(title),
            body=body,
            buttons=self._labels(widget),
            shown=bool(widget.isAttached),
            input=value,
            password=password,
        )

    def open_dialogs(self) -> list[Dialog]:
        return [self._read(dialog_id, watched) for dialog_id, watched in list(self._open.items())]

    # Answering

    async def press(self, dialog_id: str, index: int) -> None:
        """Click the button as the human would, then check the dialog closed."""
        watched = self._open[dialog_id]
        nodes = js_value(watched.widget._buttonNodes)
        nodes[index].click()
        deadline = asyncio.get_event_loop().time() + PRESS_WAIT_MS / 1000
        while dialog_id in self._open and asyncio.get_event_loop().time() < deadline:
            await asyncio.sleep(0.02)
        if dialog_id in self._open:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                "The dialog did not close: JupyterLab refused the answer (an input of the dialog is invalid).",
                dialogId=dialog_id,
            )

    # Waiting on JupyterLab for the current call

    def _owned(self, call_id: str) -> list[tuple[str, bool]]:
        """(id, is an error dialog) of the call's open dialogs, without reading their text."""
        return [
            (dialog_id, len(self._labels(watched.widget)) <= 1)
            for dialog_id, watched in list(self._open.items())
            if watched.owner == call_id
        ]

    async def wait(self, promise: Any, what: str, wait_ms: int = limits.LAB_WAIT_MS, *, required: bool = True) -> bool:
        """Await a JupyterLab promise for the current call, at most `wait_ms` while no dialog of the call is open.

        While one of the call's dialogs waits for an answer there is no limit (the
        human may take their time); an error dialog fails the call with LAB_ERROR.
        Returns whether the promise settled; a required one that did not is LAB_ERROR.
        """
        future = asyncio.ensure_future(promise)
        with dialog_scope() as call:
            loop = asyncio.get_event_loop()
            deadline = loop.time() + wait_ms / 1000
            while not future.done():
                if call is not None:
                    call.dialog_opened.clear()
                    owned = self._owned(call.id)
                    error = next((dialog_id for dialog_id, is_error in owned if is_error), None)
                    if error is not None:
                        future.cancel()
                        shown = self._read(error, self._open[error])
                        raise ToolError(
                            ErrorCode.LAB_ERROR,
                            f"JupyterLab reported an error while the call {what}: {shown.title}: {one_line(shown.body)}",
                            dialogId=error,
                        )
                    if owned:
                        deadline = loop.time() + wait_ms / 1000  # no limit while the call's dialog waits
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                woken = asyncio.ensure_future(call.dialog_opened.wait()) if call is not None else None
                # The first of: the promise settles, a dialog of the call opens, a quarter second passes.
                await asyncio.wait({future} | ({woken} if woken else set()), timeout=min(remaining, 0.25),
                                   return_when=asyncio.FIRST_COMPLETED)
                if woken is not None:
                    woken.cancel()
        if future.done():
            future.result()  # a rejection reaches the caller
            return True
        if required:
            raise ToolError(ErrorCode.LAB_ERROR, f"JupyterLab did not finish while the call {what} within {wait_ms // 1000} s.")
        return False
