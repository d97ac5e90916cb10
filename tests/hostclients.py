"""The clients an agent reaches the page's tools through, for the host tests and the bench.

- `PageClient`: the page's own WebMCP API, `executeTool` on `document.modelContext` (Chromium's native
  WebMCP, or the @mcp-b/global polyfill in a Chromium without it), as an in-browser agent calls it.
- `McpClient`: a desktop MCP host, the MCP Python SDK over stdio to the package's MCP server
  (`jupyterlite-pyodide-webmcp mcp`, or `build.py mcp` in a clone), which lists each page tool under
  its own name.

Each call returns an `Outcome`: what the client hands the model (`seen`), the client's own failure
flag, the tool's whole return value as the client got it, and the payload (`content[0].text`).
"""

import asyncio
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parents[1]
POLYFILL = ROOT / "node_modules" / "@mcp-b" / "global" / "dist" / "index.iife.js"


@dataclass
class Outcome:
    seen: str  # every character the client hands the model for this call
    client_error: bool  # the client's own failure flag (MCP isError; in the page, the result's isError)
    envelope: Optional[dict]  # the tool's whole return value, as the client got it
    text: Optional[str]  # envelope content[0].text: the payload, compact JSON

    @property
    def payload(self) -> Any:
        return json.loads(self.text) if self.text is not None else None


def _text_of(envelope: Any) -> Optional[str]:
    try:
        return envelope["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return None


# --- the page's own WebMCP API --------------------------------------------------------------------

PAGE_TOOLS = """async () => {
    const webmcp = document.modelContext ?? navigator.modelContext;
    return (await webmcp.getTools()).map(({window: _, execute: __, ...tool}) => tool);
}"""

# Native Chromium takes the input as an object; the @mcp-b/global polyfill as a JSON string.
PAGE_EXECUTE = """async ([name, input]) => {
    const webmcp = document.modelContext ?? navigator.modelContext;
    const tool = (await webmcp.getTools()).find(t => t.name === name);
    if (!tool) throw new Error(`no WebMCP tool ${name}`);
    let result;
    try {
        result = await webmcp.executeTool(tool, input);
    } catch (error) {
        if (!String(error?.message).includes('Failed to parse input')) throw error;
        result = await webmcp.executeTool(tool, JSON.stringify(input));
    }
    return typeof result === 'string' ? result : JSON.stringify(result);
}"""


class PageClient:
    """`document.modelContext.executeTool` in the page: what the browser hands an in-page agent."""

    def __init__(self, page, name: str = "native page.webmcp"):
        self.page = page
        self.name = name

    def tools(self) -> dict[str, dict]:
        return {tool["name"]: tool for tool in self.page.evaluate(PAGE_TOOLS)}

    def call(self, tool: str, arguments: Optional[dict] = None) -> Outcome:
        seen = self.page.evaluate(PAGE_EXECUTE, [tool, arguments or {}])
        envelope = json.loads(seen)
        return Outcome(seen, envelope.get("isError") is True, envelope, _text_of(envelope))

    def evaluate(self, function: str, argument: Any = None) -> Any:
        return self.page.evaluate(function, argument)


# --- a desktop MCP host ---------------------------------------------------------------------------


class McpHost:
    """The MCP Python SDK as a host: stdio to a server command, driven synchronously from a test."""

    def __init__(self, command: str, args: list[str], errlog: Path, env: Optional[dict] = None):
        from mcp import StdioServerParameters

        self.parameters = StdioServerParameters(command=command, args=args, env=env)
        self.errlog_path = errlog
        self.notifications: list[Any] = []
        self.stream_errors: list[Exception] = []
        self.initialize_result = None
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._failure: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True)

    def start(self, timeout: float = 600) -> "McpHost":
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the MCP server did not initialize in {timeout} s; see {self.errlog_path}")
        if self._failure:
            raise RuntimeError(f"the MCP session failed; see {self.errlog_path}") from self._failure
        return self

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.stream_errors.append(message)  # for example a line on stdout that is not JSON-RPC
        else:
            self.notifications.append(message)

    async def _main(self) -> None:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        self._stop = asyncio.Event()
        try:
            with open(self.errlog_path, "w") as errlog:
                async with stdio_client(self.parameters, errlog=errlog) as (read, write):
                    async with ClientSession(read, write, message_handler=self._on_message) as session:
                        self.session = session
                        self.initialize_result = await session.initialize()
                        self._ready.set()
                        await self._stop.wait()
        except BaseException as error:  # noqa: BLE001 - reported to the test thread
            self._failure = error
        finally:
            self._ready.set()

    def _run(self, coroutine, timeout: float) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def list_tools(self) -> list:
        return self._run(self.session.list_tools(), 60).tools

    def call(self, name: str, arguments: dict, timeout: float = 60) -> Any:
        """tools/call with the host's request timeout (raises the SDK's MCPError when it runs out)."""
        return self._run(self.session.call_tool(name, arguments, read_timeout_seconds=timeout), timeout + 30)

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(30)


class McpClient:
    """A page tool called through an MCP host; the model sees the result's text parts (and any structured
    content the server adds)."""

    def __init__(self, host: McpHost, name: str = "MCP server"):
        self.host = host
        self.name = name

    def tools(self) -> dict[str, Any]:
        return {tool.name: tool for tool in self.host.list_tools()}

    def call(self, tool: str, arguments: Optional[dict] = None, timeout: float = 60) -> Outcome:
        return self.outcome(self.host.call(tool, arguments or {}, timeout))

    @staticmethod
    def outcome(result: Any) -> Outcome:
        """The page's envelope as the host got it: its content parts (text, images) and isError."""
        texts = [part.text for part in result.content if part.type == "text"]
        seen = "\n".join(texts)
        if result.structured_content is not None:
            seen += json.dumps(result.structured_content, ensure_ascii=False)
        content = [{"type": "text", "text": part.text} if part.type == "text" else
                   {"type": part.type, "data": part.data, "mimeType": part.mime_type} for part in result.content]
        envelope = {"content": content, **({"isError": True} if result.is_error else {})}
        return Outcome(seen, bool(result.is_error), envelope, _text_of(envelope))


# --- fixtures in the page -------------------------------------------------------------------------

SAVE_NOTEBOOK = """([path, content]) => window.jupyterapp.serviceManager.contents.save(
    path, {type: 'notebook', format: 'json', content}).then(() => true)"""


# JupyterLite takes a file as changed on disk (and a save over it raises "File Changed") only when it was saved
# more than 500 ms after the copy the lab opened.
SAVED_OVER_A_SECOND_AGO = "saved => Date.now() - Date.parse(saved) > 1000"
LAST_SAVED = "path => window.jupyterapp.serviceManager.contents.get(path, {content: false}).then(m => m.last_modified)"


def wait_until_a_change_on_disk_would_show(page, path: str) -> None:
    """Wait until a save of `path` now would be newer, by JupyterLite's margin, than the copy the lab holds."""
    page.wait_for_function(SAVED_OVER_A_SECOND_AGO, arg=page.evaluate(LAST_SAVED, path))


def code_cell(cell_id: str, source: str, outputs: Optional[list] = None, count: Optional[int] = None) -> dict:
    return {"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "outputs": outputs or [],
            "execution_count": count}


def notebook(cells: list[dict]) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}}}


def measured_notebook() -> dict:
    """Six cells of ordinary work, with outputs: the fixed notebook the characters table reads."""
    table = "\n".join(f"| {i} | {i * i} | {'x' * (i % 7)} |" for i in range(40))
    loop = "\n".join(f"    total += weights[{i}] * values[{i}]  # term {i}" for i in range(60))
    return notebook([
        {"cell_type": "markdown", "id": "intro", "metadata": {},
         "source": "# Sales analysis\n\nWe load the numbers, clean them and plot \"monthly\" totals.\n\n" + table},
        code_cell("load", "import csv, statistics\nrows = [(m, 100 + 7 * m) for m in range(12)]\nlen(rows)",
                  [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                    "data": {"text/plain": "12"}}], 1),
        code_cell("clean", "clean = [r for r in rows if r[1] > 0]\nprint(f\"kept {len(clean)} of {len(rows)}\")",
                  [{"output_type": "stream", "name": "stdout", "text": "kept 12 of 12\n"}], 2),
        code_cell("weights", "weights = [1 / (i + 1) for i in range(60)]\nvalues = list(range(60))\ntotal = 0\n"
                  "for _ in range(1):\n" + loop + "\ntotal",
                  [{"output_type": "execute_result", "execution_count": 3, "metadata": {},
                    "data": {"text/plain": "59.0"}}], 3),
        code_cell("stats", "print(statistics.mean(v for _, v in clean))\nprint({'min': 100, 'max': 177})",
                  [{"output_type": "stream", "name": "stdout", "text": "138.5\n{'min': 100, 'max': 177}\n"}], 4),
        code_cell("fail", "1 / 0",
                  [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
                    "traceback": ["\u001b[31mZeroDivisionError\u001b[0m: division by zero"]}], 5),
    ])


MEASURED_PATH = "measured.ipynb"
BIG_SOURCE = "\n".join(f"value_{i:05d} = {i} * 3  # a long generated cell, line {i}" for i in range(480))


def measure_characters(client) -> list[dict]:
    """A fixed set of calls; per call the payload's characters and the characters the model sees.

    The notebook is written fresh first where the client can write it in the page (an MCP host starts the lab on
    a folder holding it), so every client reads the same cells.
    """
    if hasattr(client, "evaluate"):
        client.evaluate(SAVE_NOTEBOOK, [MEASURED_PATH, measured_notebook()])
    rows = []

    def measure(label: str, tool: str, arguments: dict) -> Outcome:
        outcome = client.call(tool, arguments)
        assert outcome.text is not None, outcome.seen[:500]
        rows.append({"call": label, "payload": len(outcome.text), "seen": len(outcome.seen)})
        return outcome

    measure("open_notebook", "jupyter_open_notebook", {"path": MEASURED_PATH})
    measure("get_context", "jupyter_get_context", {})
    measure("list_workspace", "jupyter_list_workspace", {})
    cells = measure("get_cells (6 cells, outputs)", "jupyter_get_cells", {"includeOutputs": True}).payload["cells"]
    measure("export_notebook", "jupyter_export_notebook", {})
    inserted = measure(f"insert_cell ({len(BIG_SOURCE):,} chars)", "jupyter_insert_cell",
                       {"referenceCellId": cells[-1]["id"], "source": BIG_SOURCE, "activate": False}).payload["cell"]
    updated = measure(f"update_cell ({len(BIG_SOURCE) + 2:,} chars)", "jupyter_update_cell",
                      {"cellId": inserted["id"], "source": BIG_SOURCE + "\n1",  # over the read bound: shown in part
                       "expectedSourceHash": inserted["sourceHash"], "overwriteUnread": True}).payload["cell"]
    measure("update_cell, stale hash (error)", "jupyter_update_cell",
            {"cellId": inserted["id"], "source": "x = 1", "expectedSourceHash": inserted["sourceHash"]})
    measure("get_cells (7 cells, sources only)", "jupyter_get_cells", {})
    measure("delete_cell", "jupyter_delete_cell", {"cellId": inserted["id"], "expectedSourceHash": updated["sourceHash"]})
    return rows
