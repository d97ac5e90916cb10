"""calls/budget.py: the calls in flight, pending results and their expiry, the dialogs a call opened."""

import asyncio
import sys

import pytest
from pyodide_webmcp.base import limits
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.calls.budget import CallTable, wait_for
from pyodide_webmcp.calls.pending import pending_result
from pyodide_webmcp.kit.testing import dialog

from tests.unit.aio import run


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _held_call(table: CallTable, tool: str, when: str = "t"):
    """A call whose work waits until the returned event is set."""
    release = asyncio.Event()

    async def work():
        await release.wait()
        return {"content": []}

    return table.start(tool, work, when), release


async def _settled_call(table: CallTable, pending: bool = True):
    async def work():
        return {"content": []}

    call = table.start("jupyter_run_cells", work, "t")
    call.pending_returned = pending
    await call.task
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the task's done callback settles the call
    return call


def test_settled_results_are_kept_ten_minutes_and_fifty_at_most():
    async def scenario():
        clock = Clock()
        table = CallTable(clock)
        first = await _settled_call(table)
        assert table.get(first.id) is first
        clock.now += limits.PENDING_RESULT_KEEP_MS / 1000 + 1
        with pytest.raises(ToolError) as expired:
            table.get(first.id)
        assert expired.value.code is ErrorCode.PENDING_CALL_NOT_FOUND
        calls = []
        for _ in range(limits.MAX_SETTLED_PENDING_CALLS + 5):
            clock.now += 1
            calls.append(await _settled_call(table))
        kept = [c for c in calls if _exists(table, c.id)]
        assert kept == calls[5:]  # the oldest went first
        quick = await _settled_call(table, pending=False)
        assert not _exists(table, quick.id)  # its caller got the result: nothing kept

    run(scenario())


def _exists(table: CallTable, call_id: str) -> bool:
    try:
        table.get(call_id)
        return True
    except ToolError:
        return False


def test_a_running_call_is_always_kept():
    async def scenario():
        clock = Clock()
        table = CallTable(clock)
        running, release = _held_call(table, "jupyter_run_cells")
        running.pending_returned = True
        for _ in range(limits.MAX_SETTLED_PENDING_CALLS + 3):
            clock.now += 10_000
            await _settled_call(table)
        assert table.get(running.id) is running and table.pending() == [running]
        release.set()
        await running.task

    run(scenario())


def test_a_pending_result_carries_the_calls_dialog():
    async def scenario():
        call, release = _held_call(CallTable(), "jupyter_save_notebook")
        result = pending_result(call, 20, [dialog("d9", None), dialog("d1", call.id)])
        assert result["waitingFor"] == {"kind": "dialog", "dialogId": "d1"}
        assert result["dialog"]["title"] == "File Changed" and "jupyter_answer_dialog" in result["message"]
        release.set()
        await call.task

    run(scenario())


def test_a_rename_of_the_calls_notebook_answers_pending_at_once_and_says_the_new_path():
    async def scenario():
        call, release = _held_call(CallTable(), "jupyter_run_cells", "2026-11-30T00:00:00Z")
        call.wait_on(kind="kernel", cellId="nap", done=1, total=3)
        asyncio.get_event_loop().call_later(0.05, call.notebook_renamed, "renamed.ipynb")
        started = asyncio.get_event_loop().time()
        settled = await wait_for(call, 20)
        waited = asyncio.get_event_loop().time() - started
        pending = pending_result(call, 20, [])
        release.set()
        await call.task
        return settled, waited, pending

    settled, waited, pending = run(scenario())
    assert settled is False and waited < 5
    assert pending["waitingFor"] == {"kind": "kernel", "cellId": "nap", "done": 1, "total": 3, "renamedTo": "renamed.ipynb"}
    assert "renamed to renamed.ipynb" in pending["message"] and "after 20 seconds" not in pending["message"]


def test_a_calls_work_sees_its_call_and_work_that_never_waits_settles_it_at_once():
    async def scenario():
        table = CallTable()
        seen = []

        async def work():
            seen.append(opened[0])
            return {"content": []}

        opened = []
        call = table.start("jupyter_get_context", work, "t", opened.append)
        assert seen == ([call] if sys.version_info >= (3, 12) else [])  # at once, else at the next turn
        assert await wait_for(call, 1.0) and seen == [call] and call.settled is not None
        assert table.running() == 0

    run(scenario())
