"""No call leaves an agent hanging: the call budget, pending results, dialogs and kernel health, with the real kernel."""

import json
import time

import pytest
from jupyterlite_pyodide_webmcp.sites import SETTINGS_ID
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.base.limits import CALL_BUDGET_MS

from tests.browser.conftest import code_cell, notebook_json, payload
from tests.hostclients import wait_until_a_change_on_disk_would_show
from tests.waiting import wait_until

BUDGET = CALL_BUDGET_MS / 1000
LONG = "long.ipynb"
PROPOSE = "proposals.ipynb"


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.save_file(PROPOSE, notebook_json([code_cell("p1", "a = 1"), code_cell("p2", "b = 2")]))
    return lab


def wait_result(lab, pending_id: str) -> dict:
    """jupyter_wait_for_result until the call settles (each wait answers within the budget)."""

    def settled():
        started = time.monotonic()
        result = lab.call_raw("jupyter_wait_for_result", {"pendingId": pending_id})
        assert time.monotonic() - started < BUDGET + 5
        payload = json.loads(result["content"][0]["text"])
        assert payload.get("status") != "pending" or payload["pendingId"] == pending_id
        return payload.get("status") != "pending" and result

    return wait_until(settled, timeout=300, interval=0, what="the pending call settling")


def set_budget(lab, seconds) -> None:
    """The owner's call budget, set in the Settings Editor as an owner sets it (None: the default)."""
    lab.page.evaluate("async () => { await window.jupyterapp.commands.execute('settingeditor:open', {query: 'WebMCP'}); }")
    lab.page.click(f'.jp-PluginList-entry[data-id="{SETTINGS_ID}"]')
    field = lab.page.locator(f'[id="jp-SettingsEditor-{SETTINGS_ID}_callBudgetSeconds"]')
    value = seconds or int(BUDGET)
    field.fill(str(value))
    field.press("Tab")
    saved = """async ([id, value]) => (await window.jupyterapp.serviceManager.settings.fetch(id)).raw
        .replace(/\\s/g, '').includes(`"callBudgetSeconds":${value}`)"""
    wait_until(lambda: lab.page.evaluate(saved, [SETTINGS_ID, value]), what="the budget saved")
    lab.page.evaluate("() => { window.jupyterapp.shell.currentWidget.close(); }")  # the Settings Editor


@pytest.mark.parametrize("budget, sleep", [
    (2, 6),  # a budget the owner shortened
    pytest.param(None, 28, marks=pytest.mark.hosts_long),  # the default budget: python3 build.py hosts
])
def test_a_long_run_and_proposals_decided_after_the_budget_never_hang(lab, budget, sleep):
    limit = budget or BUDGET
    lab.save_file(LONG, notebook_json([code_cell("sleepy", f"import time\ntime.sleep({sleep})\nprint('woke up')")]))
    if budget:
        set_budget(lab, budget)
    lab.call("jupyter_open_notebook", {"path": PROPOSE})
    lab.switch("propose-toggle", True)
    hashes = {cell["id"]: cell["sourceHash"] for cell in lab.call("jupyter_get_cells")["cells"]}
    lab.share_kernel(LONG)
    lab.open_with_idle_kernel(LONG)

    started = time.monotonic()
    lab.start_call("jupyter_run_cells", {"notebookPath": LONG, "cellIds": ["sleepy"]}, key="run")
    for cell_id, source in (("p1", "a = 'accepted'"), ("p2", "b = 'denied'")):
        lab.start_call("jupyter_update_cell", {"notebookPath": PROPOSE, "cellId": cell_id, "source": source,
                                               "expectedSourceHash": hashes[cell_id]}, key=cell_id)
    run = lab.finish_call("run")
    assert time.monotonic() - started < limit + 5
    assert run["status"] == "pending" and run["tool"] == "jupyter_run_cells"
    assert run["waitingFor"] == {"kind": "kernel", "cellId": "sleepy", "done": 0, "total": 1}
    proposals = {cell_id: lab.finish_call(cell_id) for cell_id in ("p1", "p2")}
    for cell_id, pending in proposals.items():
        assert pending["status"] == "pending" and pending["waitingFor"]["kind"] == "human"
        assert pending["waitingFor"]["cellId"] == cell_id

    quick = time.monotonic()
    context = lab.call("jupyter_get_context")
    assert time.monotonic() - quick < 1.0
    listed = {call["pendingId"]: call for call in context.get("pending", [])}
    assert set(listed) == {run["pendingId"], *(p["pendingId"] for p in proposals.values())}
    assert listed[run["pendingId"]]["waitingFor"]["kind"] == "kernel"

    # Both proposals answered pending, so their budget has run out: the human decides after it.
    lab.call("jupyter_open_notebook", {"path": PROPOSE})  # the human looks at the proposals
    boxes = lab.page.locator(".jp-webmcp-proposal")
    first = boxes.filter(has_text="a = 'accepted'")
    first.locator(".jp-webmcp-proposal-accept").click()
    second = boxes.filter(has_text="b = 'denied'")
    second.locator(".jp-webmcp-proposal-reason").fill("not now")
    second.locator(".jp-webmcp-proposal-deny").click()

    accepted = payload(wait_result(lab, proposals["p1"]["pendingId"]))
    assert accepted["status"] == "accepted" and accepted["cell"]["sourceHash"] == source_hash("a = 'accepted'")
    denied = payload(wait_result(lab, proposals["p2"]["pendingId"]))
    assert denied == {**denied, "status": "denied", "code": "PROPOSAL_DENIED", "cellId": "p2", "reason": "not now"}

    final = payload(wait_result(lab, run["pendingId"]))
    assert final["status"] == "ok" and final["results"][0]["outputSummary"] == "woke up"
    # The human's feed: each line that said pending now says how its call ended, in its place.
    feed = lab.panel_tab("Activity")

    def outcomes(verb):
        return feed.locator(f".jp-webmcp-feed-line[data-verb='{verb}']").evaluate_all(
            "lines => lines.map(line => line.dataset.outcome)")

    wait_until(lambda: {"denied", "done"} <= set(outcomes("edited")) and "done" in outcomes("ran")
               and feed.locator(".jp-webmcp-feed-line[data-outcome='pending']").count() == 0,
               what="the pending lines taking their outcomes")
    assert time.monotonic() - started >= sleep
    again = lab.call("jupyter_wait_for_result", {"pendingId": run["pendingId"]})  # kept for 10 minutes
    assert again == final
    lab.switch("propose-toggle", False)
    if budget:
        set_budget(lab, None)


def test_an_unknown_pending_id_is_a_clear_error(lab):
    error = lab.error("jupyter_wait_for_result", {"pendingId": "call-424242"})
    assert error["error"] == "PENDING_CALL_NOT_FOUND" and error["pendingId"] == "call-424242"


def change_on_disk(lab, path: str, source: str) -> None:
    """The file changes under the open notebook (another tab, an upload)."""
    wait_until_a_change_on_disk_would_show(lab.page, path)
    notebook = lab.read_file(path)
    notebook["cells"][0]["source"] = source
    lab.save_file(path, notebook)


@pytest.mark.parametrize("answer", ["Overwrite", "Revert"])
def test_the_file_changed_dialog_is_answered_through_the_tools(lab, answer):
    path = f"changed-{answer.lower()}.ipynb"
    lab.save_file(path, notebook_json([code_cell("c", "value = 'original'")]))
    lab.share_kernel(path)
    lab.call("jupyter_open_notebook", {"path": path})
    lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": "c", "source": "value = 'human edit'",
                                     "expectedSourceHash": source_hash("value = 'original'")})
    change_on_disk(lab, path, "value = 'on disk'")

    pending = lab.call("jupyter_save_notebook", {"notebookPath": path})
    assert pending["status"] == "pending" and pending["waitingFor"]["kind"] == "dialog"
    dialog = pending["dialog"]
    assert dialog["title"] == "File Changed" and dialog["buttons"] == ["Cancel", "Revert", "Overwrite"]
    assert path in dialog["body"] and dialog["owner"] == "agent"
    assert lab.call("jupyter_get_context").get("dialogs", []) == [dialog]
    waited = lab.call("jupyter_wait_for_result", {"pendingId": pending["pendingId"], "timeoutSeconds": 5})
    assert waited["status"] == "pending" and waited["dialog"]["id"] == dialog["id"]  # at once: the dialog waits

    result = lab.call("jupyter_answer_dialog", {"button": answer.lower()})
    assert result["answered"] == {"dialogId": dialog["id"], "button": answer}
    on_disk = lab.read_file(path)["cells"][0]["source"]
    live = lab.call("jupyter_get_cells", {"notebookPath": path})["cells"][0]["source"]
    if answer == "Overwrite":
        assert result["saved"] is True and on_disk == live == "value = 'human edit'"
    else:
        assert result["saved"] is False and result["reverted"] is True
        assert on_disk == live == "value = 'on disk'"
        assert result["keptAs"] == path.replace(".ipynb", ".from-lab.ipynb")
        assert lab.read_file(result["keptAs"])["cells"][0]["source"] == "value = 'human edit'"
    assert lab.call("jupyter_get_context").get("dialogs", []) == []


def test_the_kernel_selection_dialog_belongs_to_the_call_that_opened_the_notebook(lab):
    notebook = notebook_json([code_cell("k", "6 * 7")])
    del notebook["metadata"]["kernelspec"]
    lab.save_file("no-kernelspec.ipynb", notebook)
    pending = lab.call("jupyter_open_notebook", {"path": "no-kernelspec.ipynb"})
    assert pending["status"] == "pending" and pending["dialog"]["title"] == "Select Kernel"
    assert pending["dialog"]["buttons"] == ["No Kernel", "Select"]
    opened = lab.call("jupyter_answer_dialog", {"button": "Select", "dialogId": pending["dialog"]["id"]})
    assert opened["notebook"]["path"] == "no-kernelspec.ipynb" and opened["kernel"]["name"] == "python"
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "idle", timeout=120)
    assert lab.call("jupyter_run_cells", {"cellIds": ["k"]})["results"][0]["outputSummary"] == "42"


def test_a_file_jupyterlab_cannot_read_is_refused_before_anything_opens(lab):
    lab.page.evaluate(
        "() => window.jupyterapp.serviceManager.contents.save('broken.ipynb', {type: 'file', format: 'text', content: '{oops'})"
    )
    for tool, key in (("jupyter_open_notebook", "path"), ("jupyter_get_cells", "notebookPath")):
        error = lab.error(tool, {key: "broken.ipynb"})
        assert error["error"] == "NOTEBOOK_NOT_FOUND" and "can open" in error["message"]
    assert lab.call("jupyter_get_context").get("dialogs", []) == []  # no error dialog in front of the human


def test_a_dialog_the_human_opened_is_theirs_alone(lab):
    lab.page.evaluate("() => { void window.jupyterapp.commands.execute('application:about'); }")
    lab.page.locator(".jp-Dialog").wait_for(timeout=10_000)
    text = lab.page.locator(".jp-Dialog").inner_text()
    dialogs = lab.call("jupyter_get_context").get("dialogs", [])
    assert len(dialogs) == 1 and dialogs[0]["owner"] == "human" and set(dialogs[0]) == {"id", "owner", "shown"}
    refused = lab.error("jupyter_answer_dialog", {"button": 0})
    named = lab.error("jupyter_answer_dialog", {"button": "OK", "dialogId": dialogs[0]["id"]})
    assert refused["error"] == named["error"] == "DIALOG_NOT_YOURS"
    seen = json.dumps([dialogs, refused, named])
    assert "JupyterLite" not in seen and all(line not in seen for line in text.splitlines() if len(line) > 3)
    lab.page.locator(".jp-Dialog-footer .jp-mod-reject").click()  # a click, not Escape: keys go where the focus is
    lab.page.locator(".jp-Dialog").wait_for(state="detached", timeout=10_000)
    assert lab.call("jupyter_get_context").get("dialogs", []) == []


@pytest.mark.parametrize("fate", ["dies", "restarts"])
def test_a_kernel_lost_mid_run_settles_the_call_within_seconds(lab, fate):
    path = f"kernel-{fate}.ipynb"
    lab.save_file(path, notebook_json([code_cell("first", "x = 1"), code_cell("nap", "import time\ntime.sleep(30)"),
                                       code_cell("after", "y = 2")]))
    lab.open_with_idle_kernel(path)
    lab.start_call("jupyter_run_cells", {"notebookPath": path, "startIndex": 0, "endIndex": 3}, key=fate)
    wait_until(lambda: lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[1].model.executionState === 'running'"), timeout=30)
    lost = time.monotonic()
    action = "session.kernel.shutdown()" if fate == "dies" else "restartKernel()"
    lab.page.evaluate(f"() => {{ void window.jupyterapp.shell.currentWidget.sessionContext.{action}; }}")
    result = lab.finish_call(fate)
    assert time.monotonic() - lost < 5
    expected = "KERNEL_DIED" if fate == "dies" else "KERNEL_RESTARTED"
    assert result["error"] == expected and result["cellId"] == "nap"
    assert [(r["cellId"], r["status"]) for r in result["results"]] == [("first", "ok")]


def test_a_run_jupyterlite_drops_behind_a_failing_cell_is_reported_not_awaited_forever(lab):
    path = "dropped.ipynb"
    lab.save_file(path, notebook_json([code_cell("boom", "import time\ntime.sleep(3)\nraise ValueError('first')"),
                                       code_cell("next", "print('next')")]))
    lab.share_kernel(path)
    lab.open_with_idle_kernel(path)
    lab.page.evaluate("() => { void window.jupyterapp.commands.execute('notebook:run-cell'); }")  # the human runs boom
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "busy", timeout=10)
    started = time.monotonic()
    result = lab.call("jupyter_run_cells", {"cellIds": ["next"]})
    assert time.monotonic() - started < BUDGET
    assert result["status"] == "error" and result["results"][0]["ename"] == "ExecutionCancelled"
    again = lab.call("jupyter_run_cells", {"cellIds": ["next"]})
    assert again["status"] == "ok" and again["results"][0]["outputSummary"] == "next"
