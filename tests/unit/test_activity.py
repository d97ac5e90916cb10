"""ui/activity.py: what the human is told of each call, and of what the agent does now."""

from datetime import datetime, timezone

from pyodide_webmcp.ui.activity import (
    ActivityLog,
    Doing,
    Touch,
    doing_text,
    feed_line,
    since_text,
)

OK = {"content": [{"type": "text", "text": "{}"}]}
FAILED = {"content": [], "isError": True}


def test_a_line_says_the_verb_what_it_touched_and_how_it_ended():
    edited = feed_line(1, "t", "jupyter_update_cell", {"notebookPath": "a.ipynb"}, OK, {}, [Touch("a.ipynb", "c", 4)])
    assert (edited.text, edited.cell_id, edited.notebook) == ("edited cell 5", "c", "a.ipynb")
    ran = feed_line(2, "t", "jupyter_run_cells", {}, OK, {"notebook": {"path": "a.ipynb"}},
                    [Touch("a.ipynb", "x", 1), Touch("a.ipynb", "y", 2)])
    assert ran.text == "ran 2 cells"
    read = feed_line(3, "t", "jupyter_get_cells", {"notebookPath": "a.ipynb"}, OK, {"cells": [{}, {}, {}]}, [])
    assert read.text == "read 3 cells"
    refused = feed_line(4, "t", "jupyter_update_cell", {"notebookPath": "a.ipynb", "cellId": "locked"}, FAILED,
                        {"error": "CELL_ACCESS_DENIED", "message": "read-only"}, [], place=lambda path, cell: 3)
    assert (refused.outcome, refused.text, refused.detail) == ("refused", "edit cell 4 (refused)",
                                                               "CELL_ACCESS_DENIED: read-only")
    failed = feed_line(5, "t", "jupyter_save_notebook", {"notebookPath": "d/a.ipynb"}, FAILED,
                       {"error": "LAB_ERROR", "message": "no"}, [])
    assert (failed.outcome, failed.target) == ("failed", "a.ipynb")
    denied = feed_line(6, "t", "jupyter_update_cell", {}, OK, {"status": "denied", "reason": "not yet"}, [])
    assert (denied.outcome, denied.detail) == ("denied", "You said no: not yet")
    assert feed_line(7, "t", "course_grade", {}, OK, {}, []).text == "used course_grade"
    # A call that named no cell, notebook or file says what it did in words, never a tool's name.
    assert feed_line(11, "t", "jupyter_list_commands", {}, OK, {}, []).text == "read the lab"
    assert feed_line(12, "t", "jupyter_wait_for_result", {"pendingId": "call-1"}, OK, {}, []).text == "waited for a result"
    # Arguments as an agent may send them, not as the schema wants them: a line all the same.
    for odd in ({"cellIds": True}, {"cellIds": 9007199254740993}, {"cells": True}, {"anchor": [1]}, [1], "x"):
        assert feed_line(15, "t", "jupyter_run_cells", odd, FAILED, {"error": "INVALID_ARGUMENT"}, []).outcome == "refused"
    still = feed_line(14, "t", "jupyter_wait_for_result", {}, OK, {"status": "pending", "pendingId": "call-1"}, [])
    assert (still.outcome, still.text) == ("done", "waited for a result")  # the call it waited for goes on
    assert feed_line(13, "t", "jupyter_execute_command", {"commandId": "x" * 200}, OK, {}, []).target == "x" * 80
    commented = feed_line(10, "t", "jupyter_create_comment", {"notebookPath": "a.ipynb", "anchor": {"cellId": "m"}},
                          OK, {}, [], place=lambda path, cell: 4)
    assert commented.text == "commented cell 5"
    raised = feed_line(8, "t", "jupyter_run_code", {}, OK, {"status": "error", "ename": "ZeroDivisionError",
                                                             "evalue": "division by zero"}, [])
    assert (raised.outcome, raised.detail) == ("failed", "ZeroDivisionError: division by zero")
    cells = feed_line(9, "t", "jupyter_run_cells", {}, OK, {"results": [{"status": "ok"}, {"status": "error"}]}, [])
    assert (cells.outcome, cells.detail) == ("failed", "1 of 2 cells raised an error")


def test_the_same_line_again_is_counted_not_repeated_and_the_feed_is_bounded():
    log, heard = ActivityLog(), []
    log.on_change(lambda line: heard.append(len(log.lines)))
    for at in ("t1", "t2", "t3"):
        log.add(feed_line(log.new_number(), at, "jupyter_get_context", {}, OK, {"notebook": {"path": "a.ipynb"}}, []))
    assert len(log.lines) == 1 and log.last().count == 3 and log.last().at == "t3" and heard == [1, 1, 1]
    for _ in range(log.lines.maxlen + 5):
        log.add(feed_line(log.new_number(), "t", "jupyter_run_cells", {}, OK, {}, [Touch("a.ipynb", "c", len(log.lines))]))
    assert len(log.lines) == log.lines.maxlen and log.notebooks() == ["a.ipynb"]


def test_what_the_agent_does_now_in_a_few_words():
    assert doing_text(Doing("jupyter_update_cell", (Touch("a", "c", 4),))) == ("working", "editing cell 5")
    assert doing_text(Doing("jupyter_run_cells", (), "kernel", 1, 3)) == ("working", "running 3 cells (1 done)")
    assert doing_text(Doing("jupyter_update_cell", (), "human")) == ("waiting", "waiting for you: a proposal")
    assert doing_text(Doing("jupyter_save_notebook", (), "dialog"))[1] == "waiting for you: a dialog"
    now = datetime(2026, 12, 4, 10, 5, tzinfo=timezone.utc)
    assert [since_text(at, now) for at in ("2026-12-04T10:04:50.000Z", "2026-12-04T10:02:00.000Z", "bad")] == [
        "just now", "3 min ago", ""]
