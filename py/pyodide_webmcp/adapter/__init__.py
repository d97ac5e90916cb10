"""The only code that touches `js`, Pyodide's FFI and JupyterLab objects.

Imported by `pyodide_webmcp.start` only, never at package import.
"""

import asyncio
import json
from collections.abc import Awaitable, Generator
from typing import Any, Callable

from js import JSON, Object, console, performance
from pyodide.ffi import create_proxy, to_js

from ..base.tasks import started_task
from ..base.text import to_json
from ..calls.budget import CallTable
from ..calls.catalog import Catalog, Entry, Toolbox
from ..calls.current import CallContext, NeverAborted
from ..calls.dispatch import dispatch
from ..calls.envelope import wire
from ..calls.installing import Installing
from ..host import BootPath, Host
from ..owner.site_settings import Settings
from ..ui.agent_work import AgentWork
from ..ui.human_side import HumanSide
from .ffi import as_promise, js_value, to_python
from .human_saves import HumanSaves
from .output_selection import OutputSelectionTracker
from .page_lab import PageLab
from .registrations import Registrations
from .settings import SettingsWatcher

CONTROLS_ONLY = ("WebMCP unavailable: this browser has no WebMCP; the access, review and Propose-mode controls "
                 "are on (no agent can connect)")


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


def serve(host: Host, toolbox: Toolbox, catalog: Catalog) -> Generator[None, None, Awaitable[int]]:
    """Register the tools the owner's settings allow, and follow the settings live: steps the JS host runs in
    tasks of their own, the page's turn between them (a turn of Python's loop waited 0.1-1 s on a busy page,
    start-up.md, seventh run); returns what resolves to how many tools took. Without a model context (a
    browser without WebMCP, started for the human's controls) only the controls."""
    _stage("serving")
    calls = CallTable()
    settings = SettingsWatcher(host.settings)
    work = AgentWork()
    lab = PageLab(host, calls, settings, work)
    _stage("lab")
    yield  # what serves calls, the human's views and what they follow in steps of their own (one took 0.3 s cold)
    human = HumanSide(lab.page, lab, work, js_value(host.fileBrowser))
    lab.notebook_services.events.on(human.opened, human.changed, human.reviewed, human.saved, human.closed)
    _stage("views")
    yield
    lab.human_edits.watch_all(host.tracker)
    HumanSaves(lab.notebook_services, host.tracker).watch(host.app.commands)
    if js_value(host.modelContext) is None:  # a browser without WebMCP: the human's controls only
        host.setStatus("unavailable", CONTROLS_ONLY)
        return _none_registered()
    lab.output_selection = OutputSelectionTracker(lab.locate_cell_node)
    _stage("watching")
    yield

    def execute_for(name: str) -> Any:
        async def execute(raw: Any = None, options: Any = None) -> Any:
            signal = js_value(getattr(options, "signal", None)) if js_value(options) is not None else None
            abort = SignalAbort(signal) if signal is not None else NeverAborted()
            context = CallContext(lab, abort, calls=calls, budget_ms=settings.current.call_budget_ms)
            started = performance.now()
            arguments = _arguments(raw)
            snippets = lab.snippet_log.count
            work.started(context.key, name, lambda: context.call)
            try:
                envelope = await dispatch(toolbox, name, arguments, context, installing)
            finally:
                _time_call(name, started)
            payload = _payload(envelope)

            def tell_the_human(result: dict[str, Any]) -> None:
                """The human's feed and presence hear how the call ended; their failure never reaches the agent."""
                try:
                    work.ended(context.key, arguments, result, _payload(result), lab.snippet_log.since(snippets),
                               lab.cell_index)
                except Exception as error:
                    console.error(f"WebMCP: the activity feed failed on {name}: {error!r}")

            tell_the_human(envelope)
            call = context.call
            if isinstance(payload, dict) and payload.get("status") == "pending" and call is not None \
                    and payload.get("pendingId") == call.id:  # this call goes on (not the one a wait asked after)
                call.task.add_done_callback(lambda task: tell_the_human(
                    task.result() if not task.cancelled() and task.exception() is None else envelope))
            # Through JSON so None becomes null (to_js would make it undefined).
            return JSON.parse(to_json(wire(envelope)))

        def started(raw: Any = None, options: Any = None) -> Any:
            return as_promise(started_task(execute(raw, options)))  # at once: no turn of the loop before it runs

        return create_proxy(started)

    def descriptor(entry: Entry) -> Any:
        # Through JSON so schema defaults of None stay null (to_js would drop them).
        described = JSON.parse(to_json(entry.descriptor))
        described.execute = execute_for(entry.name)
        return described

    prelisted = js_value(host.prelisted)
    site_tools = to_python(prelisted.siteTools) if prelisted is not None and settings.current.owner_tools else []
    installing = Installing(site_tools)
    registrations = Registrations(host.modelContext, catalog, descriptor)
    registrations.adopt(prelisted, execute_for, installing.names)
    _stage("adopted")
    if prelisted is not None:
        yield  # the tools taken over in one task, the calls that waited run in the next
        prelisted.release()  # served now, not once every tool is listed
        yield  # the calls released run first
    return _following(host, toolbox, settings, registrations, installing)


async def _none_registered() -> int:
    return 0


async def _following(host: Host, toolbox: Toolbox, settings: SettingsWatcher, registrations: Registrations,
                     installing: Installing) -> int:
    """Register the rest of the tools the settings allow and follow the settings live; returns how many took."""
    notes: list[str] = []  # what the site's own tools add to the status

    async def follow(current: Settings) -> None:
        failures = await registrations.follow(current)
        if failures:
            host.setStatus("unavailable", f"WebMCP: {registrations.count} tools; failed: {'; '.join(failures)}")
        elif not current.enabled:
            host.setStatus("off", "WebMCP: off (settings)")
        else:
            said = "; ".join([_boot_path(host.boot), *notes])
            host.setStatus("ready", f"WebMCP: ready ({registrations.count} tools; {said})")

    settings.on_change(lambda current: asyncio.ensure_future(follow(current)))
    await follow(settings.current)
    if settings.current.owner_tools:  # installed once the built-in tools serve: their start is not delayed
        from .owner_install import serve_site_tools

        asyncio.ensure_future(serve_site_tools(host, toolbox, registrations, settings, notes, follow, installing))
    return registrations.count


def _payload(envelope: dict[str, Any]) -> Any:
    """What the agent reads of a result (the envelope's text), for the human's feed."""
    try:
        return json.loads(envelope["content"][0]["text"])
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def _stage(name: str) -> None:
    """A User Timing mark of the start (`webmcp:stage:<name>`: DevTools, the benchmark's stages)."""
    performance.mark(f"webmcp:stage:{name}")


def _time_call(name: str, started: float) -> None:
    """A User Timing measure per call (DevTools' Performance panel, benchmarks), not kept."""
    measure = f"webmcp:{name}"
    performance.measure(measure, to_js({"start": started}, dict_converter=Object.fromEntries))
    performance.clearMeasures(measure)


def _boot_path(boot: BootPath) -> str:
    """How the interpreter started, and why a shipped snapshot was not used."""
    if boot.fallback:
        return f"{boot.path} start, snapshot not used: {boot.fallback}"
    return f"{boot.path} start"
