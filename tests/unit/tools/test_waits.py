"""tools/waits.py: a call that outlasts its budget answers pending; jupyter_wait_for_result collects it."""

import json

from pyodide_webmcp.calls.budget import CallTable
from pyodide_webmcp.calls.current import CallContext
from pyodide_webmcp.calls.dispatch import dispatch
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, cell
from pyodide_webmcp.tools import BUILT_IN

from tests.unit.aio import run


async def slow_run_pending() -> tuple[MemoryLab, CallTable, CallContext, dict]:
    """A run of 0.5 s under a 100 ms budget: it answers pending (call it inside one event loop throughout,
    where the pending call's task lives)."""
    notebook = MemoryNotebook("n.ipynb", [cell("slow()", cell_id="s")])
    notebook.run_delay = 0.5
    lab = MemoryLab(notebook)
    table = CallTable()
    context = CallContext(lab, calls=table, budget_ms=100)
    first = json.loads((await dispatch(BUILT_IN, "jupyter_run_cells", {"cellIds": ["s"]}, context))["content"][0]["text"])
    return lab, table, context, first


def test_every_call_answers_within_the_budget_and_its_result_arrives_later():
    async def scenario():
        lab, table, _, first = await slow_run_pending()
        assert first["status"] == "pending" and first["tool"] == "jupyter_run_cells"
        assert first["waitingFor"] == {"kind": "kernel", "cellId": "s", "done": 0, "total": 1}
        assert "jupyter_wait_for_result" in first["message"] and "restart" in first["message"]
        waiting = CallContext(lab, calls=table, budget_ms=100)
        again = await dispatch(BUILT_IN, "jupyter_wait_for_result", {"pendingId": first["pendingId"]}, waiting)
        assert json.loads(again["content"][0]["text"])["status"] == "pending"
        final = await dispatch(BUILT_IN, "jupyter_wait_for_result", {"pendingId": first["pendingId"]},
                               CallContext(lab, calls=table, budget_ms=2000))
        result = json.loads(final["content"][0]["text"])
        assert result["status"] == "ok" and result["results"][0]["outputSummary"] == "slow()"
        missing = await dispatch(BUILT_IN, "jupyter_wait_for_result", {"pendingId": "call-999"}, waiting)
        assert missing["isError"] and missing["structuredContent"]["error"] == "PENDING_CALL_NOT_FOUND"

    run(scenario())


def test_a_wait_asked_longer_than_the_per_call_limit_is_taken_and_capped_at_it():
    async def scenario():
        _, _, context, first = await slow_run_pending()
        long_wait = {"pendingId": first["pendingId"], "timeoutSeconds": 3600}
        again = json.loads((await dispatch(BUILT_IN, "jupyter_wait_for_result", long_wait, context))["content"][0]["text"])
        assert again["status"] == "pending", "capped at the per-call limit, not refused and not an hour"
        assert "maximum" not in BUILT_IN.get("jupyter_wait_for_result").input_schema["properties"]["timeoutSeconds"]

    run(scenario())
