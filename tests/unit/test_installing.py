"""calls/installing.py: a site tool listed before its wheel is installed waits for the install."""

import asyncio

import pytest
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.calls.installing import Installing

from tests.unit.aio import run


def test_a_call_waits_for_the_install_and_is_refused_when_the_budget_passes_first():
    async def scenario():
        listed = Installing([{"name": "site_a"}, {"name": "site_b"}])
        assert listed.names == {"site_a", "site_b"}
        with pytest.raises(ToolError) as waited_too_long:
            await listed.installed("site_a", 0.01)
        assert waited_too_long.value.code == ErrorCode.BRIDGE_STARTING
        waiting = asyncio.ensure_future(listed.installed("site_a", 5))
        await asyncio.sleep(0.01)
        listed.finished("site tools failed: pypi/b.whl: HTTP 404")
        await waiting
        refused = listed.not_installed("site_b")
        assert refused.code == ErrorCode.BRIDGE_UNAVAILABLE and "HTTP 404" in str(refused)

    run(scenario())
