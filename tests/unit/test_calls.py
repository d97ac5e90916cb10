"""The call budget, pending results, their expiry, and dialogs as agents see them."""

import asyncio
import json

import pytest
from pyodide_webmcp import limits
from pyodide_webmcp.calls import (
    CallTable,
    current_call,
    dialog_scope,
    pending_result,
    wait_for,
)
from pyodide_webmcp.dialogs import Dialog, choose_button, choose_dialog, view
from pyodide_webmcp.errors import ErrorCode, ToolError
from pyodide_webmcp.registry import REGISTRY, CallContext

from tests.unit.aio import run
from tests.unit.memory_lab import MemoryLab, MemoryNotebook, cell


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
    await asyncio.sleep(0)
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


def test_a_dialog_in_scope_belongs_to_the_call_and_wakes_its_waiter():
    async def scenario():
        table = CallTable()
        opened = asyncio.Event()

        async def work():
            assert current_call() is not None
            with dialog_scope() as call:
                assert table.in_dialog_scope() == [call]
                call.attention.set()  # what the dialog watcher does when a dialog opens
                await opened.wait()
            assert table.in_dialog_scope() == []
            return {"content": []}

        call = table.start("jupyter_save_notebook", work, "t")
        assert await wait_for(call, 5) is False  # woken by the dialog, not settled
        opened.set()
        assert await wait_for(call, 5) is True

    run(scenario())


def test_every_call_answers_within_the_budget_and_its_result_arrives_later():
    async def scenario():
        notebook = MemoryNotebook("n.ipynb", [cell("slow()", cell_id="s")])
        notebook.run_delay = 0.5
        lab = MemoryLab(notebook)
        table = CallTable()
        context = CallContext(lab, calls=table, budget_ms=100)
        first = json.loads((await REGISTRY.get("jupyter_run_cells").call({"cellIds": ["s"]}, context))["content"][0]["text"])
        assert first["status"] == "pending" and first["tool"] == "jupyter_run_cells"
        assert first["waitingFor"] == {"kind": "kernel", "cellId": "s", "done": 0, "total": 1}
        assert "jupyter_wait_for_result" in first["message"] and "restart" in first["message"]
        waiting = CallContext(lab, calls=table, budget_ms=100)
        again = await REGISTRY.get("jupyter_wait_for_result").call({"pendingId": first["pendingId"]}, waiting)
        assert json.loads(again["content"][0]["text"])["status"] == "pending"
        final = await REGISTRY.get("jupyter_wait_for_result").call(
            {"pendingId": first["pendingId"]}, CallContext(lab, calls=table, budget_ms=2000)
        )
        result = json.loads(final["content"][0]["text"])
        assert result["status"] == "ok" and result["results"][0]["outputSummary"] == "slow()"
        missing = await REGISTRY.get("jupyter_wait_for_result").call({"pendingId": "call-999"}, waiting)
        assert missing["isError"] and missing["structuredContent"]["error"] == "PENDING_CALL_NOT_FOUND"

    run(scenario())


def dialog(dialog_id: str, owner, shown=True, buttons=("Cancel", "Revert", "Overwrite"), **extra) -> Dialog:
    return Dialog(dialog_id, owner, "File Changed", '"a.ipynb" has changed on disk.', list(buttons), shown, **extra)


def test_dialog_views_are_bounded_and_the_humans_say_nothing():
    own = dialog("d1", "call-1", input="secret", password=True)
    shown = view(own)
    assert shown["title"] == "File Changed" and shown["buttons"] == ["Cancel", "Revert", "Overwrite"]
    assert "input" not in shown and shown["passwordField"] is True
    assert view(dialog("d2", None)) == {"id": "d2", "owner": "human", "shown": True}
    huge = Dialog("d3", "call-1", "T" * 1000, "é" * 10_000, ["x" * 500], True, input="v" * 5000)
    bounded = view(huge)
    assert len(bounded["title"]) <= limits.MAX_DIALOG_TITLE_CHARS
    assert len(bounded["body"].encode()) <= limits.MAX_DIALOG_BODY_BYTES
    assert len(bounded["buttons"][0]) <= limits.MAX_DIALOG_BUTTON_CHARS
    assert len(bounded["input"]) <= limits.MAX_DIALOG_INPUT_CHARS
    assert bounded["error"] is True  # one button: it only reports something


def test_choosing_a_dialog_and_a_button():
    mine, humans = dialog("d1", "call-1"), dialog("d2", None)
    assert choose_dialog([mine, humans], None) is mine
    assert choose_button(mine, "overwrite") == 2 and choose_button(mine, 0) == 0
    for bad in ("Save", 3, -1):
        with pytest.raises(ToolError) as wrong:
            choose_button(mine, bad)
        assert wrong.value.details["buttons"] == ["Cancel", "Revert", "Overwrite"]
    with pytest.raises(ToolError) as not_yours:
        choose_dialog([humans], None)
    assert not_yours.value.code is ErrorCode.DIALOG_NOT_YOURS
    with pytest.raises(ToolError) as named:
        choose_dialog([mine, humans], "d2")
    assert named.value.code is ErrorCode.DIALOG_NOT_YOURS and "File Changed" not in named.value.message
    with pytest.raises(ToolError) as queued:
        choose_dialog([humans, dialog("d3", "call-1", shown=False)], "d3")
    assert queued.value.code is ErrorCode.DIALOG_NOT_FOUND and '"d2"' in queued.value.message
    with pytest.raises(ToolError) as several:
        choose_dialog([mine, dialog("d4", "call-2")], None)
    assert several.value.details["dialogIds"] == ["d1", "d4"]
    with pytest.raises(ToolError) as none:
        choose_dialog([], None)
    assert none.value.code is ErrorCode.DIALOG_NOT_FOUND


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
