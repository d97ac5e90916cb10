"""desktop/jupyterlite_pyodide_webmcp/mcp_server.py: what the host is told of each page tool, and the
refusals a call gets when the lab cannot run it (over a stand-in page: the real one is in
tests/browser/test_mcp_command.py)."""

import json

import mcp_types
from jupyterlite_pyodide_webmcp.mcp_server import (
    ManifestTools,
    PageTools,
    call_seconds,
    mcp_result,
    mcp_tool,
)
from pyodide_webmcp.calls.catalog import catalog_of, prelisted_copy
from pyodide_webmcp.tools import BUILT_IN

from tests.unit.aio import run

MCP_LIST_BUDGET = 25_000
"""Characters of tools/list as compact JSON (titles, MCP's hints and `untrustedContentHint` in each tool's `_meta`
included): what a desktop host's model pays for on every turn."""

READ_HINTS = {"readOnlyHint": True, "destructiveHint": True, "idempotentHint": False, "consequentialHint": False,
              "untrustedContentHint": True}
READ_TOOL = {"name": "jupyter_get_cells", "title": "Read cells", "description": "Read.", "inputSchema": {"type": "object"},
             "annotations": {"readOnlyHint": True, "untrustedContentHint": True}, "setting": None, "hints": READ_HINTS}
WRITE_TOOL = {"name": "jupyter_insert_cell", "title": "Insert", "description": "Insert.", "inputSchema": {"type": "object"},
              "annotations": {"readOnlyHint": False, "untrustedContentHint": False}, "setting": None,
              "hints": {**READ_HINTS, "readOnlyHint": False, "destructiveHint": False, "untrustedContentHint": False}}
OPT_IN = {"name": "jupyter_run_code", "title": "Run code", "description": "Run.", "inputSchema": {"type": "object"},
          "annotations": {"readOnlyHint": False, "untrustedContentHint": True}, "setting": "runCode",
          "hints": {**READ_HINTS, "readOnlyHint": False}}
CATALOG = ManifestTools({tool["name"]: tool for tool in (READ_TOOL, WRITE_TOOL, OPT_IN)}, 0.2, {})


def page_tool(tool: dict) -> dict:
    """As Chromium passes it on: no title, its own names for the hints."""
    hints = tool["annotations"]
    return {"name": tool["name"], "description": tool["description"], "inputSchema": tool["inputSchema"],
            "annotations": {"readOnly": hints["readOnlyHint"], "untrustedContent": hints["untrustedContentHint"]}}


def test_a_page_tool_keeps_its_name_description_and_schema_and_gets_the_catalogs_title_and_every_hint():
    listed = mcp_tool(page_tool(READ_TOOL), CATALOG)
    assert listed == {"name": "jupyter_get_cells", "title": "Read cells", "description": "Read.",
                      "inputSchema": {"type": "object"},
                      "annotations": {"readOnlyHint": True, "openWorldHint": False},
                      "_meta": {"untrustedContentHint": True}}
    write = mcp_tool(page_tool(WRITE_TOOL), CATALOG)
    assert write["annotations"] == {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
                                    "openWorldHint": False}
    assert write["_meta"] == {"untrustedContentHint": False}
    assert mcp_tool(page_tool(OPT_IN), CATALOG)["annotations"]["openWorldHint"] is True


def test_a_tool_the_catalog_does_not_know_keeps_what_the_page_said():
    unknown = {"name": "site_check", "description": "Check.", "inputSchema": {"type": "object"},
               "annotations": {"readOnly": True, "untrustedContent": True}}
    listed = mcp_tool(unknown, CATALOG)
    assert "title" not in listed and listed["annotations"]["readOnlyHint"] is True
    assert listed["_meta"] == {"untrustedContentHint": True}


def listed_by_the_server(catalog: ManifestTools) -> list[dict]:
    """tools/list as the host receives it, for the catalog's default tools as Chromium passes them on."""
    tools = [mcp_types.Tool.model_validate(tool) for tool in PageTools(catalog).listed()]
    return [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]


def built_catalog() -> ManifestTools:
    """The catalog of the bridge's build, as the MCP server reads it from the manifest."""
    prelisted = prelisted_copy(catalog_of(BUILT_IN))
    return ManifestTools({tool["name"]: tool for tool in prelisted["tools"]}, prelisted["budgetMs"] / 1000, prelisted["starting"])


def test_the_built_catalogs_tools_list_states_both_hints_on_every_tool_within_its_budget():
    listed = listed_by_the_server(built_catalog())
    assert [tool["name"] for tool in listed] == [tool.name for tool in BUILT_IN if tool.setting is None]
    for tool in listed:
        hints = BUILT_IN.get(tool["name"]).hints
        assert tool["annotations"]["readOnlyHint"] is hints["readOnlyHint"], tool["name"]
        assert tool["_meta"] == {"untrustedContentHint": hints["untrustedContentHint"]}, tool["name"]
    size = len(json.dumps(listed, separators=(",", ":")))
    assert size <= MCP_LIST_BUDGET, f"tools/list is {size:,} characters; the budget is {MCP_LIST_BUDGET:,}"


def test_before_the_page_has_tools_the_catalogs_default_ones_are_listed():
    assert [tool["name"] for tool in PageTools(CATALOG).listed()] == ["jupyter_get_cells", "jupyter_insert_cell"]


def test_a_call_may_take_the_budget_or_the_wait_it_asks_for_plus_slack():
    assert call_seconds({}, 20) == 25
    assert call_seconds({"timeoutSeconds": 50}, 20) == 55
    assert call_seconds({"timeoutSeconds": 500}, 20) == 60
    assert call_seconds({"timeoutSeconds": "soon"}, 20) == 25


def payload(result: dict) -> dict:
    assert result["isError"] is True
    return json.loads(result["content"][0]["text"])


def test_a_call_while_the_site_builds_answers_within_the_budget():
    refused = payload(run(PageTools(CATALOG).call("jupyter_get_cells", {})))
    assert refused["error"] == "BRIDGE_STARTING" and refused["retryable"] is True


def test_a_lab_that_cannot_open_says_why():
    tools = PageTools(CATALOG)
    tools.settle(unavailable="CHROME_PATH is '/nowhere', which is not a file: point it at the browser's executable.")
    refused = payload(run(tools.call("jupyter_get_cells", {})))
    assert refused["error"] == "BRIDGE_UNAVAILABLE" and "is not a file" in refused["message"]
    assert refused["retryable"] is False and ".." not in refused["message"]  # calling again cannot help


class StandInPage:
    """A page that has some tools and answers, or does not, in the time it is given."""

    def __init__(self, tools: list, answer=None, fails: Exception = None):
        self.tools = tools
        self.answer, self.fails = answer, fails

    async def wait_for(self, name: str, seconds: float) -> bool:
        return any(tool["name"] == name for tool in self.tools)

    async def status(self) -> str:
        return "WebMCP: ready (2 tools)"

    async def call(self, name, arguments, seconds):
        if self.fails:
            raise self.fails
        return self.answer


def test_a_call_returns_the_page_tools_own_result():
    tools = PageTools(CATALOG)
    answer = {"content": [{"type": "text", "text": "{}"}]}
    tools.settle(StandInPage([READ_TOOL], answer))
    assert run(tools.call("jupyter_get_cells", {})) == answer


def test_a_tool_the_page_does_not_have_and_a_page_that_does_not_answer_are_refused():
    tools = PageTools(CATALOG)
    tools.settle(StandInPage([READ_TOOL]))
    assert payload(run(tools.call("jupyter_nothing", {})))["error"] == "INVALID_ARGUMENT"

    class TimeoutError(Exception):  # Playwright's is named so
        pass

    tools.settle(StandInPage([READ_TOOL], fails=TimeoutError("30000 ms")))
    refused = payload(run(tools.call("jupyter_get_cells", {})))
    assert refused["error"] == "BRIDGE_UNAVAILABLE" and "may still have run" in refused["message"]


def test_images_stay_images_and_the_error_flag_stays():
    result = mcp_result({"content": [{"type": "text", "text": "{}"},
                                     {"type": "image", "data": "aGk=", "mimeType": "image/png"}], "isError": True})
    assert [part.type for part in result.content] == ["text", "image"] and result.is_error is True
    assert result.content[1].data == "aGk=" and result.content[1].mime_type == "image/png"
