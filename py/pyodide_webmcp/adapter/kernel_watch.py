"""Waiting for one execution while watching the kernel: it may die, restart, or drop the request.

JupyterLite's kernel never answers an execution that was queued behind a cell
that failed, and a restarted or dead kernel never answers the one it was
running; a wait on the reply alone would never end.
"""

import asyncio
from typing import Any, Awaitable, Literal, TypeVar, Union

from pyodide.ffi import create_proxy

from ..base import limits
from ..calls.current import current_call
from ..lab.kernels import STARTING, UP, KernelLoss, kernel_loss, kernel_status
from .ffi import js_value

POLL_SECONDS = 0.25
REPLACED = "replaced"  # seen when the session's kernel was replaced by another
Ended = TypeVar("Ended", bound=str)


class RunCancelled(Exception):
    """The execution's request was cancelled: the kernel went away under it."""


def waits_for_input(session_context: Any) -> bool:
    """A cell of this notebook shows an input() box the human has not answered yet."""
    return bool(js_value(session_context.pendingInput))


async def watch_execution(
    execution: Awaitable[Ended], session_context: Any
) -> Union[Ended, KernelLoss, Literal["dropped"]]:
    """The execution's own outcome ("ok", "error", ...), or what happened instead: "died", "restarted", "dropped".

    While it waits, the current call says whether the cell waits for the human's input() answer.
    """
    kernel = js_value(js_value(session_context.session).kernel)
    seen: list[str] = []
    on_status = create_proxy(lambda _kernel, status: seen.append(str(status)))
    on_kernel = create_proxy(lambda *_: seen.append(REPLACED))
    kernel.statusChanged.connect(on_status)
    session_context.kernelChanged.connect(on_kernel)
    future = asyncio.ensure_future(execution)
    loop = asyncio.get_event_loop()
    idle_since = None
    was_up = kernel_status(str(kernel.status)) in UP
    try:
        while not future.done():
            await asyncio.wait({future}, timeout=POLL_SECONDS)
            if future.done():
                break
            for reported in seen:
                status = kernel_status(reported)
                if reported == REPLACED or (was_up and status in STARTING):
                    return "restarted"
                loss = kernel_loss(status)
                if loss is not None:
                    return loss
                was_up = was_up or status in UP
            seen.clear()
            _say_whether_input_is_awaited(waits_for_input(session_context))
            if kernel_status(str(kernel.status)) == "idle":
                idle_since = idle_since if idle_since is not None else loop.time()
                if loop.time() - idle_since >= limits.KERNEL_DROPPED_AFTER_MS / 1000:
                    return "dropped"
            else:
                idle_since = None
        try:
            return future.result()
        except RunCancelled:
            losses = (kernel_loss(kernel_status(reported)) for reported in seen)
            return next((loss for loss in losses if loss is not None), "restarted")
    finally:
        if not future.done():
            future.cancel()
        kernel.statusChanged.disconnect(on_status)
        session_context.kernelChanged.disconnect(on_kernel)
        on_status.destroy()
        on_kernel.destroy()


def _say_whether_input_is_awaited(waiting: bool) -> None:
    call = current_call()
    if call is not None and call.waiting_for["kind"] in ("kernel", "input"):
        call.waiting_kind("input" if waiting else "kernel")
