"""The owner's access settings hold for every tool; the human controls work with real clicks."""

import json
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.notebook.access import METADATA_KEY

from tests.browser.conftest import code_cell, notebook_json, payload
from tests.waiting import wait_until

PATH = "access/prop.ipynb"
ACCESS = ["write", "read", "none"]
CASES = {"examples": 0, "calls": 0}

SET_NOTEBOOK = """([path, cells, notebookAccess, key]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const model = panel.content.model;
    model.sharedModel.transact(() => {
        model.sharedModel.deleteCellRange(0, model.sharedModel.cells.length);
        model.sharedModel.insertCells(0, cells);
    });
    if (notebookAccess === 'write') { model.deleteMetadata(key); } else { model.setMetadata(key, {notebookAccess}); }
    panel.content.activeCellIndex = cells.length - 1;
}"""


def token(kind: str) -> str:
    return f"{kind}{uuid.uuid4().hex[:12]}"


def cell_with(access: str) -> dict:
    cell = code_cell(token("cell"), f"{token('src')} = 1")
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": token("out") + "\n"}]
    cell["execution_count"] = 1
    if access != "write":
        cell["metadata"] = {METADATA_KEY: {"access": access}}
    return cell


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.make_directory("access")
    lab.save_file(PATH, notebook_json([code_cell("seed", "pass")]))
    lab.save_file("access/other.ipynb", notebook_json([code_cell("other", "pass")]))
    lab.call("jupyter_open_notebook", {"path": PATH})
    lab.share_kernel("access/other.ipynb")
    yield lab
    print(f"\nproperty test: {CASES['examples']} notebooks, {CASES['calls']} tool calls checked")


def tool_calls(path_or_none, ids):
    """Random calls an agent could make, using only ids it could know (visible ones or made up)."""
    cell_ids = st.lists(st.sampled_from(ids), min_size=1, max_size=4)
    index = st.integers(0, 8)
    path = st.sampled_from([path_or_none, None])
    return st.one_of(
        st.just(("jupyter_get_context", {})),
        st.builds(lambda r: ("jupyter_list_workspace", {"recursive": r}), st.booleans()),
        st.builds(lambda p, a, b, o: ("jupyter_get_cells", {"notebookPath": p, "startIndex": min(a, b), "endIndex": max(a, b), "includeOutputs": o}), path, index, index, st.booleans()),
        st.builds(lambda p, c: ("jupyter_get_cells", {"notebookPath": p, "cellIds": c, "includeOutputs": True}), path, cell_ids),
        st.builds(lambda p, a: ("jupyter_get_cell_access", {"notebookPath": p, "startIndex": 0, "endIndex": a}), path, index),
        st.builds(lambda c: ("jupyter_get_cell_access", {"notebookPath": PATH, "cellIds": c}), cell_ids),
        st.builds(lambda c: ("jupyter_focus_cell", {"notebookPath": PATH, "cellId": c[0]}), cell_ids),
        st.builds(lambda c: ("jupyter_open_notebook", {"path": PATH, "cellId": c[0]}), cell_ids),
        st.builds(lambda c, pos: ("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": c[0], "position": pos, "source": "new = 1"}), cell_ids, st.sampled_from(["above", "below"])),
        st.builds(lambda c: ("jupyter_update_cell", {"notebookPath": PATH, "cellId": c[0], "source": "x = 2", "expectedSourceHash": "0" * 16}), cell_ids),
        st.builds(lambda c: ("jupyter_delete_cell", {"notebookPath": PATH, "cellId": c[0], "expectedSourceHash": "0" * 16}), cell_ids),
        st.builds(lambda p: ("jupyter_save_notebook", {"notebookPath": p}), path),
    )


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_nothing_hidden_ever_appears_in_any_result(lab, data):
    accesses = data.draw(st.lists(st.sampled_from(ACCESS), min_size=1, max_size=6), label="cell access")
    notebook_access = data.draw(st.sampled_from(ACCESS), label="notebook access")
    cells = [cell_with(access) for access in accesses]
    lab.call("jupyter_open_notebook", {"path": "access/other.ipynb"}) if notebook_access == "none" else None
    lab.page.evaluate(SET_NOTEBOOK, [PATH, cells, "write", METADATA_KEY])
    lab.call("jupyter_open_notebook", {"path": PATH})
    lab.page.evaluate(SET_NOTEBOOK, [PATH, cells, notebook_access, METADATA_KEY])

    hidden = [cell for cell, access in zip(cells, accesses) if access == "none" or notebook_access == "none"]
    secrets = {cell["id"] for cell in hidden} | {cell["source"].split(" ")[0] for cell in hidden}
    secrets |= {cell["outputs"][0]["text"].strip() for cell in hidden}
    if notebook_access == "none":
        secrets.add("prop.ipynb")
    visible_ids = [cell["id"] for cell, access in zip(cells, accesses) if access != "none"]
    known_ids = (visible_ids if notebook_access != "none" else []) + ["made-up-id"]

    calls = data.draw(st.lists(tool_calls(PATH, known_ids), min_size=3, max_size=8), label="calls")
    for name, arguments in calls:
        text = json.dumps(lab.call_raw(name, arguments))
        # A path the agent passed in is echoed back like a missing one's (compared below).
        echoed = {"prop.ipynb"} if PATH in json.dumps(arguments) else set()
        leaked = [secret for secret in secrets - echoed if secret in text]
        assert not leaked, f"{name} {arguments} leaked {leaked}: {text[:500]}"
        CASES["calls"] += 1

    for cell in hidden:  # a hidden id and a missing id give the same bytes
        for name, arguments in (
            ("jupyter_get_cells", {"notebookPath": PATH, "cellIds": [cell["id"]]}),
            ("jupyter_update_cell", {"notebookPath": PATH, "cellId": cell["id"], "source": "", "expectedSourceHash": "0"}),
            ("jupyter_focus_cell", {"notebookPath": PATH, "cellId": cell["id"]}),
        ):
            seen = lab.call_raw(name, arguments)["content"][0]["text"]
            fake = "x" * len(cell["id"])
            twin = {key: ([fake] if value == [cell["id"]] else fake if value == cell["id"] else value) for key, value in arguments.items()}
            missing = lab.call_raw(name, twin)["content"][0]["text"]
            assert seen.replace(cell["id"], fake) == missing, name
    if notebook_access == "none":
        hidden_text = lab.call_raw("jupyter_get_cells", {"notebookPath": PATH})["content"][0]["text"]
        missing_text = lab.call_raw("jupyter_get_cells", {"notebookPath": "access/prox.ipynb"})["content"][0]["text"]
        assert hidden_text.replace("prop.ipynb", "prox.ipynb") == missing_text
    CASES["examples"] += 1


def test_read_only_refuses_every_write_and_reports_access(lab):
    cells = [code_cell("free", "a = 1"), code_cell("locked", "b = 2")]
    cells[1]["metadata"] = {METADATA_KEY: {"access": "read"}}
    lab.page.evaluate(SET_NOTEBOOK, [PATH, cells, "write", METADATA_KEY])
    denied = lab.error("jupyter_run_cells", {"notebookPath": PATH, "cellIds": ["free", "locked"]})
    assert denied == {**denied, "error": "CELL_ACCESS_DENIED", "cellId": "locked", "access": "read"}
    assert lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["locked"]})["cells"][0]["source"] == "b = 2"
    summary = lab.call("jupyter_get_cell_access", {"notebookPath": PATH})
    assert [(c["cellId"], c["access"]) for c in summary["cells"]] == [("free", "write"), ("locked", "read")]

    lab.page.evaluate(SET_NOTEBOOK, [PATH, cells, "read", METADATA_KEY])
    for name, arguments in (
        ("jupyter_update_cell", {"cellId": "free", "source": "", "expectedSourceHash": source_hash("a = 1")}),
        ("jupyter_insert_cell", {}),
        ("jupyter_run_cells", {"cellIds": ["free"]}),
        ("jupyter_save_notebook", {}),
        ("jupyter_kernel_action", {"action": "restart"}),
    ):
        error = lab.error(name, {"notebookPath": PATH, **arguments})
        assert error == {**error, "error": "NOTEBOOK_ACCESS_DENIED", "path": PATH, "access": "read"}, name
    assert lab.call("jupyter_focus_cell", {"notebookPath": PATH, "cellId": "locked"})["focus"]["activeCellId"] == "locked"


def test_creating_over_a_hidden_notebook_looks_like_a_failed_creation(lab):
    secret = notebook_json([code_cell("s", "pass")])
    secret["metadata"][METADATA_KEY] = {"access": "none"}
    lab.save_file("access/secret.ipynb", secret)
    hidden = lab.error("jupyter_create_notebook", {"name": "secret", "directory": "access"})
    failed = lab.error("jupyter_create_notebook", {"name": "secret", "directory": "access/missing-folder"})
    assert hidden == {"error": "INVALID_PATH", "message": 'Could not create a notebook at "access/secret.ipynb".', "path": "access/secret.ipynb"}
    assert failed["message"].replace("access/missing-folder", "access") == hidden["message"]
    listing = lab.call("jupyter_list_workspace", {"path": "access"})
    assert "secret.ipynb" not in json.dumps(listing)
    hidden_open = lab.error("jupyter_open_notebook", {"path": "access/secret.ipynb"})
    missing_open = lab.error("jupyter_open_notebook", {"path": "access/secrex.ipynb"})
    assert json.dumps(hidden_open).replace("secret", "secrex") == json.dumps(missing_open)


def test_the_cell_context_menu_cycles_access_and_marks_the_cell(lab):
    lab.page.evaluate(SET_NOTEBOOK, [PATH, [code_cell("target", "t = 1"), code_cell("plain", "p = 2")], "write", METADATA_KEY])
    lab.call("jupyter_open_notebook", {"path": PATH, "cellId": "target"})
    cell = lab.page.locator(".jp-Notebook .jp-Cell").first
    for expected in ("read", "none", "write"):
        cell.locator(".jp-InputPrompt").click(button="right")
        lab.page.locator(".lm-Menu-item", has_text="Agent access:").click()
        if expected == "none":
            assert lab.error("jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["target"]})["error"] == "CELL_NOT_FOUND"
            wait_until(lambda: "jp-webmcp-access-none" in cell.get_attribute("class"))
            assert cell.locator(".jp-webmcp-chip-access").inner_text() == "Hidden from agent"
        else:
            access = lab.call("jupyter_get_cell_access", {"notebookPath": PATH, "cellIds": ["target"]})["cells"][0]["access"]
            assert access == expected
    wait_until(lambda: "jp-webmcp-access" not in cell.get_attribute("class"), what="the marks gone with write access")
    assert cell.locator(".jp-webmcp-cell-marks").count() == 0


def test_the_file_browser_menu_cycles_a_closed_notebooks_access(lab):
    lab.save_file("access/closed.ipynb", notebook_json([code_cell("c", "pass")]))
    lab.page.evaluate(
        """async () => {
            await window.jupyterapp.commands.execute('filebrowser:go-to-path', {path: 'access'});
            window.jupyterapp.shell.activateById('filebrowser');
        }"""
    )
    item = lab.page.locator('.jp-DirListing-item[data-file-type="notebook"]', has_text="closed.ipynb")
    item.click(button="right")
    lab.page.locator(".lm-Menu-item", has_text="Cycle agent access").click()
    wait_until(lambda: lab.read_file("access/closed.ipynb")["metadata"].get(METADATA_KEY) == {"notebookAccess": "read"})
    assert lab.error("jupyter_save_notebook", {"notebookPath": "access/closed.ipynb"})["error"] == "NOTEBOOK_ACCESS_DENIED"
    item.click(button="right")
    lab.page.locator(".lm-Menu-item", has_text="Cycle agent access").click()
    wait_until(lambda: "closed.ipynb" not in json.dumps(lab.call("jupyter_list_workspace", {"path": "access"})))


def test_the_agent_panel_sets_notebook_and_cell_access(lab):
    lab.save_file("access/panel.ipynb", notebook_json([code_cell("p1", "1"), code_cell("p2", "2")]))
    tab = lab.panel_tab("Access")
    tab.locator(".jp-webmcp-refresh").click()
    row = tab.locator('.jp-webmcp-row[data-path="access/panel.ipynb"]')
    row.locator(".jp-webmcp-cells-access").select_option("read")
    row.locator(".jp-webmcp-apply").click()
    wait_until(
        lambda: [c["access"] for c in lab.call("jupyter_get_cell_access", {"notebookPath": "access/panel.ipynb"})["cells"]]
        == ["read", "read"]
    )
    row.locator(".jp-webmcp-notebook-access").select_option("none")
    wait_until(
        lambda: payload(lab.call_raw("jupyter_get_cells", {"notebookPath": "access/panel.ipynb"})).get("error")
        == "NOTEBOOK_NOT_FOUND"
    )


def test_provenance_attributes_agent_and_human_edits(lab):
    lab.page.evaluate(SET_NOTEBOOK, [PATH, [code_cell("hist", "h = 1")], "write", METADATA_KEY])
    lab.call("jupyter_update_cell", {"notebookPath": PATH, "cellId": "hist", "source": "h = 2", "expectedSourceHash": source_hash("h = 1")})
    cell = lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["hist"]})["cells"][0]
    assert cell["lastEditedBy"] == "agent"
    lab.call("jupyter_focus_cell", {"notebookPath": PATH, "cellId": "hist", "cursor": {"line": 0, "column": 5}})
    lab.page.keyboard.type("0")
    lab.page.keyboard.press("Escape")
    cell = wait_until(
        lambda: (c := lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": ["hist"]})["cells"][0])
        .get("lastEditedBy") == "human" and c,
        timeout=10,
    )
    history = lab.call("jupyter_get_cell_access", {"notebookPath": PATH, "cellIds": ["hist"]})["cells"][0]["history"]
    assert [(h["actor"], h["action"]) for h in history][-2:] == [("agent", "edited"), ("human", "edited")]
    assert history[-2]["tool"] == "jupyter_update_cell"


HUMAN_ON_HIDDEN = """async path => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    window.jupyterapp.shell.activateById(panel.id);
    const notebook = panel.content;
    notebook.activeCellIndex = 1;
    notebook.deselectAll();
    notebook.extendContiguousSelectionTo(2);
    await notebook.activeCell.ready;
    notebook.activeCell.editor.setSelection({start: {line: 0, column: 0}, end: {line: 0, column: 12}});
    return [notebook.activeCellIndex, notebook.widgets.filter(w => notebook.isSelectedOrActive(w)).length];
}"""


NO_FOCUS = {"activeCellId": None, "activeCellIndex": None, "activeCellType": None, "selectedCellIds": [],
            "hiddenSelectedCellCount": 0, "hiddenActiveCell": False, "cursor": None, "textSelection": None}


def test_the_human_s_cursor_on_a_hidden_cell_reads_as_no_active_cell_on_every_default(lab):
    """Active cell (the third), selection (the second and third) and editor on hidden cells: every default reads
    as with no active cell (which the lab never has in a notebook with cells: the in-memory lab's unit test
    compares the two), and the same bytes whatever the hidden cells hold."""
    answers = {}
    for name in ("cursor-a", "cursor-b"):
        path = f"access/{name}.ipynb"
        hidden = [code_cell(token("SECRET"), f"{token('SECRET')} = 'under the cursor'") for _ in range(2)]
        for cell in hidden:
            cell["metadata"] = {METADATA_KEY: {"access": "none"}}
        lab.save_file(path, notebook_json([code_cell("shown", "shown = 1"), *hidden]))
        lab.share_kernel(path)
        lab.call("jupyter_open_notebook", {"path": path})
        assert lab.page.evaluate(HUMAN_ON_HIDDEN, path) == [2, 2]  # the lab itself has them active and selected
        seen = {
            "context": lab.call_raw("jupyter_get_context")["content"][0]["text"],
            "run": lab.call_raw("jupyter_run_cells")["content"][0]["text"],
            "comments": lab.call_raw("jupyter_list_comments", {"scope": "current-cell"})["content"][0]["text"],
            "open": lab.call_raw("jupyter_open_notebook", {"path": path})["content"][0]["text"],
        }
        assert "SECRET" not in json.dumps(seen), seen
        answers[name] = json.loads(json.dumps(seen).replace(name, "cursor-x"))
        answers[name]["context"] = {**json.loads(answers[name]["context"]), "workspace": None}  # both are open
        assert json.loads(seen["context"])["focus"] == json.loads(seen["open"])["focus"] == NO_FOCUS
        assert json.loads(seen["run"])["message"] == "No selector was given and there is no active cell."
        assert json.loads(seen["comments"])["message"] == "There is no active cell to scope the comments to."
        for arguments in ({}, {"position": "above", "cellType": "raw"}, {"cells": [{"source": "a"}, {"source": "b"}]}):
            lab.page.evaluate(HUMAN_ON_HIDDEN, path)
            result = lab.call_raw("jupyter_insert_cell", arguments)
            text = result["content"][0]["text"]
            assert not result.get("isError") and "SECRET" not in text, (arguments, text)
            cells = lab.live_cells(path)
            new = payload(result).get("cell") or payload(result)["cells"][-1]
            assert cells[-1]["id"] == new["id"] and cells[1]["id"] == hidden[0]["id"]  # at the end, hidden cells kept
    assert answers["cursor-a"] == answers["cursor-b"]
