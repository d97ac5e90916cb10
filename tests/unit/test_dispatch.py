"""calls/dispatch.py: the one path of a call, in the page and in tests; a site tool listed before its install."""

import asyncio

from pydantic import BaseModel
from pyodide_webmcp.calls.catalog import Toolbox
from pyodide_webmcp.calls.current import CallContext
from pyodide_webmcp.calls.dispatch import dispatch
from pyodide_webmcp.calls.installing import Installing
from pyodide_webmcp.kit import tool
from pyodide_webmcp.kit.testing import MemoryLab

from tests.unit.aio import run


class Nothing(BaseModel):
    pass


@tool("site_echo", "Echo", read_only=True)
async def site_echo(args: Nothing, ctx) -> dict:
    """Answers ok."""
    return {"ok": True}


def error_of(envelope: dict) -> str:
    assert envelope["isError"], envelope
    return envelope["structuredContent"]["error"]


def test_a_listed_site_tool_waits_for_its_install_within_the_budget_then_runs_or_is_refused():
    async def scenario():
        box = Toolbox()
        listed = Installing([{"name": "site_echo"}, {"name": "site_missing"}])
        context = CallContext(MemoryLab(), budget_ms=20)
        assert error_of(await dispatch(box, "site_echo", {}, context, listed)) == "BRIDGE_STARTING"
        waiting = asyncio.ensure_future(dispatch(box, "site_echo", {}, CallContext(MemoryLab(), budget_ms=5000),
                                                 listed))
        await asyncio.sleep(0.01)
        box.add([site_echo])
        listed.finished("site tools failed: pypi/missing.whl: HTTP 404")
        assert (await waiting)["structuredContent"] == {"ok": True}
        refused = await dispatch(box, "site_missing", {}, context, listed)
        assert error_of(refused) == "BRIDGE_UNAVAILABLE" and "HTTP 404" in refused["structuredContent"]["message"]
        assert error_of(await dispatch(box, "no_such_tool", {}, context, listed)) == "INTERNAL_ERROR"

    run(scenario())
