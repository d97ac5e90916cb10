"""Review threads shared by the human (Comments tab) and the agent (tools)."""

import pytest
from pyodide_webmcp.notebook.access import METADATA_KEY

from tests.browser.conftest import code_cell, notebook_json

PATH = "review.ipynb"


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    secret = code_cell("hidden", "secret = 1")
    secret["metadata"] = {METADATA_KEY: {"access": "none"}}
    locked = code_cell("locked", "locked = 2")
    locked["metadata"] = {METADATA_KEY: {"access": "read"}}
    lab.save_file(
        PATH,
        notebook_json(
            [
                code_cell("calc", "values = [1, 2, 3]\ntotal = sum(values)\nprint(total)"),
                secret,
                locked,
                code_cell("show", "print('first')"),
            ]
        ),
    )
    lab.open_with_idle_kernel(PATH)
    return lab


def open_comments(lab):
    lab.panel_tab("Comments").locator(".jp-webmcp-thread-filter").select_option("all")


def card(lab, thread_id):
    return lab.page.locator(f'.jp-webmcp-thread[data-thread-id="{thread_id}"]')


def test_agent_comment_on_text_survives_edits_elsewhere_and_orphans_when_deleted(lab):
    created = lab.call(
        "jupyter_create_comment",
        {"anchor": {"kind": "source-range", "cellId": "calc", "text": "sum(values)"}, "message": "Use math.fsum?"},
    )
    thread_id = created["thread"]["id"]
    assert created["counts"] == {"openThreads": 1, "totalThreads": 1}
    assert lab.call("jupyter_get_context")["review"] == {"openThreads": 1, "totalThreads": 1}
    assert created["thread"]["messages"][0]["author"] == {"kind": "agent", "name": "Browser agent"}

    def state():
        return lab.call("jupyter_get_comment", {"threadId": thread_id})["anchorStatus"]["state"]

    assert state() == "exact"
    lab.set_source(PATH, 0, "# totals\nvalues = [1, 2, 3]\ntotal = sum(values)\nprint(total)")
    assert state() == "reanchored"
    read = lab.call("jupyter_get_comment", {"threadId": thread_id})
    assert read["anchorStatus"]["range"] == {"start": {"line": 2, "column": 8}, "end": {"line": 2, "column": 19}}
    assert read["context"]["cell"]["id"] == "calc"
    lab.set_source(PATH, 0, "values = [1, 2, 3]\nprint(values)")
    assert state() == "orphaned"
    listed = lab.call("jupyter_list_comments")
    assert listed["threads"][0]["anchor"]["state"] == "orphaned"


def test_human_comments_in_the_ui_and_the_agent_answers(lab):
    lab.call("jupyter_focus_cell", {"cellId": "show", "selection": {"start": {"line": 0, "column": 6}, "end": {"line": 0, "column": 13}}})
    lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:comment-selection')")
    lab.page.locator(".jp-webmcp-composer-text").fill("Why 'first'?")
    lab.page.locator(".jp-webmcp-composer-add").click()
    listed = lab.call("jupyter_list_comments", {"scope": "notebook"})
    human = next(t for t in listed["threads"] if t["lastMessage"]["author"]["kind"] == "human")
    assert human["anchor"]["selectedText"] == "'first'" and human["anchor"]["state"] == "exact"

    reply = lab.call("jupyter_reply_comment", {"threadId": human["threadId"], "message": "It marks the <b>first</b> run <script>alert(1)</script>"})
    assert reply["thread"]["messages"][-1]["author"]["kind"] == "agent"
    open_comments(lab)
    body = card(lab, human["threadId"]).locator('.jp-webmcp-message[data-author="agent"] .jp-webmcp-message-body')
    assert body.inner_text() == "It marks the <b>first</b> run <script>alert(1)</script>"
    assert body.locator("b, script").count() == 0

    card(lab, human["threadId"]).locator(".jp-webmcp-reply-text").fill("Thanks")
    card(lab, human["threadId"]).locator(".jp-webmcp-reply").click()
    card(lab, human["threadId"]).locator(".jp-webmcp-toggle-status").click()
    thread = lab.call("jupyter_get_comment", {"threadId": human["threadId"]})["thread"]
    assert thread["status"] == "resolved" and thread["messages"][-1]["body"] == "Thanks"
    reopened = lab.call("jupyter_reopen_comment", {"threadId": human["threadId"]})
    assert reopened["thread"]["status"] == "open"
    resolved = lab.call("jupyter_resolve_comment", {"threadId": human["threadId"], "resolutionMessage": "Done."})
    assert resolved["thread"]["status"] == "resolved" and resolved["thread"]["messages"][-1]["body"] == "Done."
    assert [t["threadId"] for t in lab.call("jupyter_list_comments", {"status": "resolved"})["threads"]] == [human["threadId"]]


def test_rerunning_flips_output_changed(lab):
    lab.call("jupyter_run_cells", {"cellIds": ["show"]})
    created = lab.call("jupyter_create_comment", {"anchor": {"kind": "output", "cellId": "show"}, "message": "Output?"})
    thread_id = created["thread"]["id"]
    status = lab.call("jupyter_get_comment", {"threadId": thread_id})["anchorStatus"]
    assert status["outputChanged"] is False and status["outputIndex"] == 0

    def listed():
        return next(t for t in lab.call("jupyter_list_comments", {})["threads"] if t["threadId"] == thread_id)

    assert listed()["anchor"]["outputChanged"] is False and listed()["anchor"]["outputChanged"] is False  # kept
    lab.call("jupyter_run_cells", {"cellIds": ["show"]})  # the same output again: the same fingerprint
    assert listed()["anchor"]["outputChanged"] is False
    lab.set_source(PATH, 3, "print('second')")
    lab.call("jupyter_run_cells", {"cellIds": ["show"]})
    status = lab.call("jupyter_get_comment", {"threadId": thread_id})["anchorStatus"]
    assert status["outputChanged"] is True and listed()["anchor"]["outputChanged"] is True
    focused = lab.call("jupyter_focus_comment", {"threadId": thread_id})
    assert focused["anchorStatus"]["cellIndex"] == 3


def test_access_rules_apply_to_threads(lab):
    entry = {"version": 1, "threads": [{
        "id": "t-secret", "status": "open", "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z",
        "anchor": {"kind": "cell", "cellId": "hidden"},
        "messages": [{"id": "m1", "author": {"kind": "human", "name": "You"}, "createdAt": "2026-01-01T00:00:00Z", "body": "private"}],
    }]}
    lab.page.evaluate(
        """([path, entry]) => {
            const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
            const stored = panel.content.model.getMetadata('jupyterlite_webmcp_review');
            entry.threads.push(...stored.threads);
            panel.content.model.setMetadata('jupyterlite_webmcp_review', entry);
        }""",
        [PATH, entry],
    )
    listed = lab.call("jupyter_list_comments", {"status": "all"})
    assert "t-secret" not in str(listed) and "private" not in str(listed)
    hidden = lab.error("jupyter_get_comment", {"threadId": "t-secret"})
    missing = lab.error("jupyter_get_comment", {"threadId": "t-secrex"})
    assert str(hidden).replace("t-secret", "t-secrex") == str(missing)
    assert lab.error("jupyter_create_comment", {"anchor": {"kind": "cell", "cellId": "hidden"}, "message": "x"})["error"] == "CELL_NOT_FOUND"
    denied = lab.error("jupyter_create_comment", {"anchor": {"kind": "cell", "cellId": "locked"}, "message": "x"})
    assert denied["error"] == "CELL_ACCESS_DENIED"
    stale = lab.error("jupyter_create_comment", {"anchor": {"kind": "source-range", "cellId": "calc", "text": "nowhere"}, "message": "x"})
    assert stale["error"] == "COMMENT_ANCHOR_STALE"
    no_output = lab.error("jupyter_create_comment", {"anchor": {"kind": "output", "cellId": "calc", "outputIndex": 5}, "message": "x"})
    assert no_output["error"] == "COMMENT_ANCHOR_STALE"
    too_big = lab.error("jupyter_reply_comment", {"threadId": "x", "message": "é" * 5000})
    assert too_big["error"] == "INVALID_ARGUMENT" and too_big["bytes"] == 10000


def test_threads_survive_save_and_reload(lab):
    before = lab.call("jupyter_list_comments", {"status": "all"})
    lab.call("jupyter_save_notebook")
    lab.open(f"?path={PATH}")
    after = lab.call("jupyter_list_comments", {"notebookPath": PATH, "status": "all"})
    assert [t["threadId"] for t in after["threads"]] == [t["threadId"] for t in before["threads"]]
    assert after["counts"] == before["counts"]


def test_comments_tab_navigates_reanchors_and_comments_on_outputs(lab):
    orphan = next(t for t in lab.call("jupyter_list_comments", {"notebookPath": PATH})["threads"] if t["anchor"]["state"] == "orphaned")
    lab.call("jupyter_focus_cell", {"notebookPath": PATH, "cellId": "calc", "selection": {"start": {"line": 1, "column": 6}, "end": {"line": 1, "column": 12}}})
    open_comments(lab)
    card(lab, orphan["threadId"]).locator(".jp-webmcp-reanchor").click()
    status = lab.call("jupyter_get_comment", {"notebookPath": PATH, "threadId": orphan["threadId"]})["anchorStatus"]
    assert status["state"] == "exact" and status["text"] == "values"

    output = lab.page.locator(".jp-Notebook .jp-Cell").nth(3).locator(".jp-OutputArea-child").first
    output.click(button="right")
    lab.page.locator(".lm-Menu-item", has_text="Comment on this output").click()
    lab.page.locator(".jp-webmcp-composer-text").fill("About this output")
    lab.page.locator(".jp-webmcp-composer-add").click()
    threads = lab.call("jupyter_list_comments", {"notebookPath": PATH})["threads"]
    mine = next(t for t in threads if t["lastMessage"]["body"] == "About this output")
    assert mine["anchor"]["kind"] == "output" and mine["anchor"]["outputIndex"] == 0

    card(lab, mine["threadId"]).locator(".jp-webmcp-show").click()
    lab.page.wait_for_selector(".jp-OutputArea-child.jp-webmcp-highlight", timeout=5000)


@pytest.mark.parametrize("count", [2, 25])
def test_resolve_and_reopen_return_the_thread_jupyter_get_comment_returns(lab, count):
    where = {"notebookPath": PATH}
    created = lab.call("jupyter_create_comment", {**where, "anchor": {"kind": "cell", "cellId": "show"}, "message": "0"})
    thread = {**where, "threadId": created["thread"]["id"]}
    for number in range(1, count):
        lab.call("jupyter_reply_comment", {**thread, "message": str(number)})
    for name in ("jupyter_resolve_comment", "jupyter_reopen_comment"):
        returned = lab.call(name, thread)
        read = lab.call("jupyter_get_comment", thread)
        assert (returned["thread"], returned["omittedMessages"]) == (read["thread"], read["omittedMessages"]), name
    shown = [message["body"] for message in read["thread"]["messages"]]
    kept = min(count, 20)
    assert shown == ["0", *map(str, range(count - kept + 1, count))] and read["omittedMessages"] == count - kept
