"""Running an agent's code snippet in a notebook's kernel, without a cell: the kernel's own execute request."""

from typing import Any

from pyodide.ffi import create_proxy

from ..lab.snippet_outputs import OUTPUT_MESSAGES, SnippetOutputs
from ..port import ExecutionOutcome, Reply
from .ffi import js_value, to_js_object, to_python
from .kernel_watch import RunCancelled, watch_execution


async def run_snippet(session_context: Any, code: str, outputs: SnippetOutputs) -> ExecutionOutcome:
    """Execute `code` (kept out of the kernel's history), collecting its IOPub outputs; the reply, or
    what happened instead (died, restarted, dropped)."""
    kernel = js_value(js_value(session_context.session).kernel)
    request = {"code": code, "silent": False, "store_history": False, "allow_stdin": False, "stop_on_error": False}
    future = kernel.requestExecute(to_js_object(request), True)

    def on_message(message: Any) -> None:
        kind = str(message.header.msg_type)
        if kind in OUTPUT_MESSAGES:
            outputs.add(kind, to_python(message.content))

    async def reply_status() -> Reply:
        try:
            reply = js_value(await future.done)
        except Exception:  # the future was disposed: the kernel went away under it
            raise RunCancelled() from None
        return "ok" if reply is not None and str(reply.content.status) == "ok" else "error"

    listener = create_proxy(on_message)
    future.onIOPub = listener
    try:
        return await watch_execution(reply_status(), session_context)
    finally:
        future.onIOPub = None
        listener.destroy()
