"""ui/agent_work.py: the calls in flight and the cells they touch, feeding the presence, the marks and the feed."""

import asyncio

from pyodide_webmcp.calls.budget import CallTable
from pyodide_webmcp.kit.testing import MemoryNotebook
from pyodide_webmcp.ui.activity import Touch, feed_line
from pyodide_webmcp.ui.agent_changes import AgentChange
from pyodide_webmcp.ui.agent_work import AgentWork

from tests.unit.aio import run

OK = {"content": [{"type": "text", "text": "{}"}]}


def started(work: AgentWork, tool: str):
    """A call of `tool` in a fresh call table, followed by `work`, its body held until the event is set."""
    release = asyncio.Event()

    async def body():
        await release.wait()
        return OK

    entry = CallTable().start(tool, body, "t")
    key = object()
    work.started(key, tool, lambda: entry)
    return entry, key, release


def test_a_call_is_followed_from_start_to_its_feed_line():
    async def scenario():
        work, heard = AgentWork(), []
        work.on_change(heard.append)
        entry, key, release = started(work, "jupyter_run_cells")
        notebook = MemoryNotebook("a.ipynb", [])
        entry.wait_on(notebook, kind="kernel", cellId="c2", done=1, total=2)
        work.touched(key, Touch("a.ipynb", "c1", 0))
        assert work.busy and work.paths() == {"a.ipynb"}
        assert work.here("a.ipynb") == {"c1": "running", "c2": "running"}  # on a cell: what, not how far
        assert work.doing()[0].waiting == "kernel" and work.here("b.ipynb") == {}
        work.changed(key, "nb", AgentChange(work.journal.new_number(), "t", "jupyter_run_cells", "cleared", "c3", 2),
                     "a.ipynb")
        line = work.ended(key, {"notebookPath": "a.ipynb"}, OK, {})
        assert line.text == "ran 2 cells" and not work.busy  # the cells it ran or changed, not those it waited on and work.log.last() is line
        assert work.journal.since_checkpoint("nb")[0].cell_id == "c3"
        assert heard[-1] == {"a.ipynb"} and work.ended(key, {}, OK, {}) is None
        release.set()
        await entry.task

    run(scenario())


def test_a_call_that_answered_pending_stays_in_flight_and_its_line_gets_the_outcome():
    async def scenario():
        work = AgentWork()
        entry, key, release = started(work, "jupyter_update_cell")
        entry.wait_on(None, kind="human")
        work.touched(key, Touch("a.ipynb", "c1", 0))
        pending = work.ended(key, {"notebookPath": "a.ipynb"}, OK, {"status": "pending"})
        assert pending.outcome == "pending" and work.busy  # still waiting for the human
        assert work.doing()[0].waiting == "human" and work.here("a.ipynb") == {"c1": "waiting for you: a proposal"}
        work.log.add(feed_line(work.log.new_number(), "t", "jupyter_get_context", {}, OK, {}, []))
        release.set()
        await entry.task
        final = work.ended(key, {"notebookPath": "a.ipynb"}, OK, {"status": "denied", "reason": "no"})
        assert (final.number, final.outcome, final.text) == (pending.number, "denied", "edit cell 1 (denied)")
        assert not work.busy and [line.number for line in work.log.lines] == [pending.number, pending.number + 1]
        assert work.log.lines[0] is final  # in its place, not a new line

    run(scenario())
