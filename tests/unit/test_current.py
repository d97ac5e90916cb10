"""calls/current.py: the one context variable naming the call the running code serves, and the dialogs a call opens."""

import asyncio

from pyodide_webmcp.calls.budget import CallTable, wait_for
from pyodide_webmcp.calls.current import (
    CURRENT_CALL,
    CallContext,
    current_call,
    dialog_scope,
)
from pyodide_webmcp.kit.testing import MemoryLab

from tests.unit.aio import run


def test_a_dialog_in_scope_belongs_to_the_call_and_wakes_its_waiter():
    async def scenario():
        table = CallTable()
        opened = asyncio.Event()
        started = {}

        async def work():
            assert current_call() is None
            CURRENT_CALL.set(CallContext(MemoryLab(), calls=table, call=started["call"]))
            with dialog_scope() as call:
                assert call is started["call"] and table.in_dialog_scope() == [call]
                call.attention.set()  # what the dialog watcher does when a dialog opens
                await opened.wait()
            assert table.in_dialog_scope() == []
            return {"content": []}

        started["call"] = table.start("jupyter_save_notebook", work, "t")
        assert await wait_for(started["call"], 5) is False  # woken by the dialog, not settled
        opened.set()
        assert await wait_for(started["call"], 5) is True
        assert current_call() is None  # the call's context stayed in its task

    run(scenario())
