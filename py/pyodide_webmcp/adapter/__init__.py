"""The only code that touches `js`, Pyodide's FFI and JupyterLab objects.

Imported by `pyodide_webmcp.start` only, never at package import.
"""

import asyncio
from typing import Any, Callable

from js import JSON, Object, performance
from pyodide.ffi import create_proxy, to_js

from ..envelope import wire
from ..text import to_json
from ..calls import CallTable
from ..registry import CallContext, NeverAborted, Registry
from .panel import install_controls
from .ffi import js_value, to_python
from .lab import Lab
from .selection import OutputSelectionTracker


class SignalAbort:
    """A call's AbortSignal, as the tools see abort state."""

    def __init__(self, signal: Any):
        self._signal = signal

    @property
    def aborted(self) -> bool:
        return bool(self._signal.aborted)

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        listener = create_proxy(lambda _event: callback())
        self._signal.addEventListener("abort", listener)

        def cancel() -> None:
            self._signal.removeEventListener("abort", listener)
            listener.destroy()

        return cancel


def _arguments(raw: Any) -> Any:
    """The call's input as Python; anything that is not JSON data fails validation as a non-object."""
    try:
        return to_python(raw)
    except Exception:
        return raw


async def serve(host: Any, registry: Registry) -> int:
    """Register every tool on the host's model context; returns how many took."""
    calls = CallTable()
    lab = Lab(host, calls)
    lab.human_edits.watch_all(host.tracker)
    install_controls(lab, host)
    lab.output_selection = OutputSelectionTracker(lab)
    model_context = host.modelContext
    registrations = []
    for tool in registry:

        async def execute(raw: Any = None, options: Any = None, tool=tool) -> Any:
            signal = js_value(getattr(options, "signal", None)) if js_value(options) is not None else None
            context = CallContext(lab, SignalAbort(signal) if signal is not None else NeverAborted(), calls=calls)
            started = performance.now()
            try:
                envelope = await tool.call(_arguments(raw), context)
            finally:
                _time_call(tool.name, started)
            # Through JSON so None becomes null (to_js would make it undefined).
            return JSON.parse(to_json(wire(envelope)))

        # Through JSON so schema defaults of None stay null (to_js would drop them). No outputSchema:
        # Chromium drops it, and a client that got one would expect the structuredContent we do not send.
        descriptor = JSON.parse(
            to_json(
                {
                    "name": tool.name,
                    "title": tool.title,
                    "description": tool.description,
                    "inputSchema": tool.input_schema,
                    "annotations": tool.annotations,
                }
            )
        )
        descriptor.execute = create_proxy(execute)
        registrations.append(_register(model_context, tool.name, descriptor))
    # All at once: each registration is a round trip to the browser.
    failures = [failure for failure in await asyncio.gather(*registrations) if failure]
    registered = len(registrations) - len(failures)
    if failures:
        host.setStatus("unavailable", f"WebMCP: {registered} tools; failed: {'; '.join(failures)}")
    else:
        host.setStatus("ready", f"WebMCP: ready ({registered} tools; {_boot_path(host.boot)})")
    return registered


def _time_call(name: str, started: float) -> None:
    """A User Timing measure per call (DevTools' Performance panel, benchmarks), not kept."""
    measure = f"webmcp:{name}"
    performance.measure(measure, to_js({"start": started}, dict_converter=Object.fromEntries))
    performance.clearMeasures(measure)


async def _register(model_context: Any, name: str, descriptor: Any) -> str:
    """Register one tool; returns why it failed, or an empty string."""
    try:
        pending = model_context.registerTool(descriptor)
        if hasattr(pending, "then"):
            await pending
        return ""
    except Exception as exc:
        return f"{name}: {exc}"


def _boot_path(boot: Any) -> str:
    """How the interpreter started, and why a shipped snapshot was not used."""
    if boot.fallback:
        return f"{boot.path} start, snapshot not used: {boot.fallback}"
    return f"{boot.path} start"
