"""The MCP server a desktop host starts: the lab page's own WebMCP tools, and nothing else, over stdio.

Every tool the host is given is a tool the page registers, under the page's name, with the page's
description and input schema, and the title and hints of the bridge's catalog (the extension's
manifest): MCP's as `ToolAnnotations`, WebMCP's `untrustedContentHint` in the tool's `_meta`. A call is forwarded to the page tool and its result goes back as
the page returned it (text and image content, `isError`). Before the page has its tools, the
catalog's default tools are listed, and a call waits for the page within the call budget; the host
is sent `notifications/tools/list_changed` whenever the page's list changes.
"""

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .lab_page import STATUS_READ_S
from .stdio import log

SERVER_NAME = "jupyterlite"
PAGE_CALL_SLACK_S = 5  # past its budget, the page has this long to answer before the call is called lost
MAX_TOOL_WAIT_S = 55  # the longest wait a page tool takes as an argument (timeoutSeconds)
KERNEL_CODE_TOOLS = ("jupyter_run_cells", "jupyter_run_code")  # what they run may reach outside the lab


@dataclass
class ManifestTools:
    """What the bridge's build says of its tools (the site build adds the site's own): descriptors (title,
    every hint), the budget, its refusals."""

    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    budget_s: float = 20.0
    starting: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_manifest(cls, path: Path) -> "ManifestTools":
        if not path.is_file():
            return cls()
        manifest = json.loads(path.read_text())
        prelisted, site = manifest["prelisted"], manifest.get("siteTools") or {}
        tools = {tool["name"]: tool for tool in [*prelisted["tools"], *site.get("tools", [])]}
        return cls(tools, prelisted["budgetMs"] / 1000, prelisted["starting"])

    def default_tools(self) -> list[dict[str, Any]]:
        """The tools every page lists before its Python starts (not the opt-in ones)."""
        return [tool for tool in self.tools.values() if tool.get("setting") is None]


def tool_hints(page_tool: dict[str, Any], entry: dict[str, Any] | None) -> dict[str, bool]:
    """Every hint of a tool: the catalog's; for a tool it does not know, what the page passed on (under
    WebMCP's names or Chromium's), MCP's defaults for the rest."""
    if entry and entry.get("hints"):
        return entry["hints"]
    page_hints = page_tool.get("annotations") or {}
    return {
        "readOnlyHint": bool(page_hints.get("readOnlyHint", page_hints.get("readOnly", False))),
        "destructiveHint": True,
        "idempotentHint": False,
        "untrustedContentHint": bool(page_hints.get("untrustedContentHint", page_hints.get("untrustedContent", False))),
    }


def mcp_annotations(hints: dict[str, bool], name: str) -> dict[str, Any]:
    """MCP's hints, each that means something for this tool explicit, so no client shows MCP's defaults instead."""
    open_world = name in KERNEL_CODE_TOOLS
    if hints["readOnlyHint"]:  # MCP: the write hints mean nothing on a read-only tool
        return {"readOnlyHint": True, "openWorldHint": open_world}
    return {"readOnlyHint": False, "destructiveHint": bool(hints["destructiveHint"]),
            "idempotentHint": bool(hints["idempotentHint"]), "openWorldHint": open_world}


def mcp_tool(page_tool: dict[str, Any], catalog: ManifestTools) -> dict[str, Any]:
    """One page tool as MCP's `Tool` (as JSON). MCP has no `untrustedContentHint`, and its SDKs drop an
    annotation they do not know: it goes in the tool's `_meta`, under WebMCP's name."""
    entry = catalog.tools.get(page_tool["name"])
    hints = tool_hints(page_tool, entry)
    tool = {"name": page_tool["name"], "description": page_tool.get("description") or "",
            "inputSchema": page_tool.get("inputSchema") or {"type": "object"},
            "annotations": mcp_annotations(hints, page_tool["name"]),
            "_meta": {"untrustedContentHint": bool(hints["untrustedContentHint"])}}
    if entry and entry.get("title"):
        tool["title"] = entry["title"]
    return tool


def refusal(message: str, hint: str, code: str = "BRIDGE_UNAVAILABLE", retryable: bool = True) -> dict[str, Any]:
    """A call not run, in the page's own error shape."""
    payload = {"error": code, "message": message, "hint": hint, "retryable": retryable}
    return {"content": [{"type": "text", "text": json.dumps(payload, separators=(",", ":"))}], "isError": True}


def call_seconds(arguments: dict[str, Any], budget_s: float) -> float:
    """How long the page may take: its budget, or the wait a call asks for (wait_for_result), and slack."""
    asked = arguments.get("timeoutSeconds")
    wait = min(float(asked), MAX_TOOL_WAIT_S) if isinstance(asked, (int, float)) and asked > 0 else budget_s
    return max(wait, budget_s) + PAGE_CALL_SLACK_S


class PageTools:
    """The tool list the host sees and the forwarding of its calls, over a `LabPage`-like page."""

    def __init__(self, catalog: ManifestTools):
        self.catalog = catalog
        self.page: Any = None  # a LabPage, once the site is served
        self.unavailable: str | None = None  # why the lab will not come, when it will not
        self.settled = asyncio.Event()  # set once there is a page, or a reason why there is none

    def settle(self, page: Any = None, unavailable: str | None = None) -> None:
        self.page, self.unavailable = page, unavailable
        self.settled.set()

    def listed(self) -> list[dict[str, Any]]:
        page_tools = self.page.tools if self.page is not None and self.page.tools else self.catalog.default_tools()
        return [mcp_tool(tool, self.catalog) for tool in page_tools]

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The page tool's result; a structured refusal when the lab cannot run it within the budget."""
        budget = self.catalog.budget_s
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget
        try:
            await asyncio.wait_for(self.settled.wait(), budget)
        except asyncio.TimeoutError:
            return refusal("The lab is still being built; this call was not run.",
                           "Call again in a few seconds.", "BRIDGE_STARTING")
        if self.unavailable or self.page is None:
            return refusal(f"The lab could not be opened: {self.unavailable.rstrip('.')}.",
                           "Tell the human, who must fix this first; the MCP server's log says more.", retryable=False)
        try:  # the budget less the time a refusal takes to read the lab's status
            ready = await self.page.wait_for(name, max(deadline - loop.time() - STATUS_READ_S, 0.5))
        except Exception as error:  # noqa: BLE001 - the browser could not be started again
            return refusal(f"The lab could not be opened again: {error}"[:500],
                           "Tell the human; the MCP server's log says more.")
        if not ready:
            status = await self.page.status()
            if self.page.tools:
                return refusal(f"The lab has no tool {name!r} ({status}).",
                               "List the tools again: the lab's list changed.", "INVALID_ARGUMENT")
            return refusal(f"The lab is not ready ({status}); this call was not run.",
                           "Call again in a few seconds.", "BRIDGE_STARTING")
        seconds = call_seconds(arguments, budget)
        try:
            result = await self.page.call(name, arguments, seconds)
        except Exception as error:  # noqa: BLE001 - Playwright's TimeoutError, or the page went away
            timed_out = type(error).__name__ == "TimeoutError"
            log(f"{name}: {'no answer within %.0f s' % seconds if timed_out else error}")
            what = f"The lab did not answer within {seconds:.0f} s" if timed_out else "The lab's page went away"
            return refusal(f"{what}; the call may still have run in the page.",
                           "Read the notebook before calling again.")
        return result if isinstance(result, dict) else {"content": [{"type": "text", "text": json.dumps(result)}]}


def mcp_result(envelope: dict[str, Any]) -> Any:
    """The page's return value as MCP's CallToolResult: its text and image content, and isError."""
    import mcp_types as types

    content: list[Any] = []
    for part in envelope.get("content") or []:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "image" and isinstance(part.get("data"), str):
            content.append(types.ImageContent(type="image", data=part["data"],
                                              mime_type=part.get("mimeType") or "image/png"))
        elif part.get("type") == "text":
            content.append(types.TextContent(type="text", text=str(part.get("text", ""))))
    structured = envelope.get("structuredContent")
    return types.CallToolResult(content=content, is_error=envelope.get("isError") is True,
                                structured_content=structured if isinstance(structured, dict) else None)


def instructions(lab_url: str) -> str:
    return (f"The notebook tools of the JupyterLite lab the human has open at {lab_url}. "
            "Start with jupyter_get_context.")


async def serve(tools: PageTools, lab_url: str, stdout: Any,
                start_lab: Callable[[Callable[[], Awaitable[None]]], Awaitable[None]]) -> None:
    """Serve MCP on stdin and the given text stream (the real stdout) until the host closes stdin.

    `start_lab(changed)` builds and serves the site and opens the lab, and is handed the coroutine that
    tells the host its tool list changed.
    """
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.stdio import stdio_server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
    from mcp.shared.subscriptions import ToolsListChanged

    sessions: list[Any] = []  # the host's, from its latest request: it carries notifications after it, too
    bus = InMemorySubscriptionBus()  # a host on the newer protocol gets them on its subscriptions/listen stream

    async def remember_session(ctx: Any, call_next: Any) -> Any:
        sessions[:] = [ctx.session]
        return await call_next(ctx)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in tools.listed()])

    async def call_tool(ctx: Any, params: Any) -> Any:
        return mcp_result(await tools.call(params.name, dict(params.arguments or {})))

    async def changed() -> None:
        await bus.publish(ToolsListChanged())
        for session in sessions:
            try:
                await session.send_tool_list_changed()
            except Exception as error:  # noqa: BLE001 - a host gone away
                log(f"could not tell the host its tools changed: {error}")

    server = Server(SERVER_NAME, instructions=instructions(lab_url), on_list_tools=list_tools,
                    on_call_tool=call_tool, on_subscriptions_listen=ListenHandler(bus))
    server.middleware.insert(0, remember_session)
    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server(stdout=anyio.wrap_file(stdout)) as (read, write):
        async with anyio.create_task_group() as group:
            group.start_soon(start_lab, changed)
            await server.run(read, write, options)
            group.cancel_scope.cancel()
