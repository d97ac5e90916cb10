"""Open, read, create and save through the tools, checked against JupyterLab's live model."""

import pytest
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.base.limits import MAX_TOTAL_RESULT_BYTES

from tests.browser.conftest import code_cell, notebook_json, payload


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open()


def test_open_then_context_then_cells_match_the_live_model(lab):
    opened = lab.call("jupyter_open_notebook", {"path": "demo.ipynb", "cellId": "failure"})
    assert opened["notebook"]["path"] == "demo.ipynb"
    assert opened["focus"]["activeCellId"] == "failure"
    assert opened["focus"]["activeCellIndex"] == 3

    context = lab.call("jupyter_get_context")
    assert context["notebook"] == opened["notebook"]
    assert "demo.ipynb" in context["workspace"]["openDocuments"]
    assert context["focus"]["activeCellId"] == "failure"
    assert context["kernel"]["name"] == "python"

    live = lab.live_cells("demo.ipynb")
    read = lab.call("jupyter_get_cells", {"includeOutputs": True})
    assert read["notebook"]["cellCount"] == len(live) == 6
    assert [(c["id"], c["type"], c["source"]) for c in read["cells"]] == [
        (c["id"], c["type"], c["source"]) for c in live
    ]
    assert [c["sourceHash"] for c in read["cells"]] == [source_hash(c["source"]) for c in live]
    by_id = {cell["id"]: cell for cell in read["cells"]}
    assert by_id["greeting"]["outputs"] == [{"outputType": "stream", "name": "stdout", "text": "hello from Pyodide\n"}]
    error = by_id["failure"]["outputs"][0]
    assert error["ename"] == "ZeroDivisionError" and "\x1b" not in error["traceback"]
    assert by_id["picture"]["outputs"][0]["media"][0]["mimeType"] == "image/png"
    assert by_id["picture"]["outputs"][0]["media"][0]["included"] is False
    assert "outputs" not in by_id["notes"]


def test_context_reports_what_the_human_selected_in_the_editor(lab):
    lab.call("jupyter_open_notebook", {"path": "demo.ipynb", "cellId": "greeting"})
    lab.page.locator(".jp-Notebook .jp-Cell").nth(1).locator(".cm-content").click()
    lab.page.keyboard.press("Control+Home")
    lab.page.keyboard.press("Shift+End")
    focus = lab.call("jupyter_get_context")["focus"]
    assert focus["activeCellId"] == "greeting" and focus["selectedCellIds"] == ["greeting"]
    line = "message = 'hello from Pyodide'"
    assert focus["textSelection"] == {
        "start": {"line": 0, "column": 0},
        "end": {"line": 0, "column": len(line)},
        "text": line,
    }
    assert focus["cursor"] == {"line": 0, "column": len(line)}
    lab.page.keyboard.press("Escape")


def test_cells_by_id_and_range(lab):
    picked = lab.call("jupyter_get_cells", {"notebookPath": "demo.ipynb", "cellIds": ["notes", "intro"]})
    assert [(c["id"], c["index"]) for c in picked["cells"]] == [("notes", 5), ("intro", 0)]
    ranged = lab.call("jupyter_get_cells", {"startIndex": 1, "endIndex": 3, "includeSource": False})
    assert [c["id"] for c in ranged["cells"]] == ["greeting", "arithmetic"]
    assert all("source" not in c for c in ranged["cells"])
    beyond = lab.call("jupyter_get_cells", {"startIndex": 4, "endIndex": 99})
    assert [c["id"] for c in beyond["cells"]] == ["picture", "notes"] and beyond["truncated"] is False


def test_a_human_edit_is_read_live_and_saved_on_request(lab):
    lab.set_source("demo.ipynb", 2, "6 * 7  # edited by the human")
    cell = lab.call("jupyter_get_cells", {"cellIds": ["arithmetic"]})["cells"][0]
    assert cell["source"] == "6 * 7  # edited by the human"
    assert cell["sourceHash"] == source_hash("6 * 7  # edited by the human")
    assert lab.call("jupyter_get_context")["notebook"]["dirty"] is True
    assert lab.read_file("demo.ipynb")["cells"][2]["source"] == "6 * 7"

    saved = lab.call("jupyter_save_notebook", {"notebookPath": "demo.ipynb"})
    assert saved == {"saved": True, "path": "demo.ipynb", "dirty": False}
    assert lab.read_file("demo.ipynb")["cells"][2]["source"] == "6 * 7  # edited by the human"


def test_create_opens_an_empty_notebook_and_never_overwrites(lab):
    created = lab.call("jupyter_create_notebook", {"name": "scratch", "directory": "analysis", "kernel": "PYTHON"})
    assert created["path"] == "analysis/scratch.ipynb"
    assert created["notebook"]["path"] == "analysis/scratch.ipynb"
    assert created["kernel"]["name"] == "python"
    assert lab.call("jupyter_get_context")["notebook"]["path"] == "analysis/scratch.ipynb"
    assert lab.read_file("analysis/scratch.ipynb")["nbformat"] == 4
    listing = lab.call("jupyter_list_workspace", {"path": "analysis"})
    names = [entry["name"] for entry in listing["entries"]]
    assert "scratch.ipynb" in names and not any(name.startswith("Untitled") for name in names)

    again = lab.error("jupyter_create_notebook", {"name": "scratch.ipynb", "directory": "analysis"})
    assert again["error"] == "PATH_EXISTS" and again["path"] == "analysis/scratch.ipynb"


def test_list_workspace_sorts_folders_first_and_respects_the_limit(lab):
    root = lab.call("jupyter_list_workspace")
    assert root["entries"][0] == {**root["entries"][0], "name": "analysis", "type": "directory"}
    walk = lab.call("jupyter_list_workspace", {"recursive": True})
    paths = [entry["path"] for entry in walk["entries"]]
    assert paths.index("analysis") < paths.index("demo.ipynb") < paths.index("analysis/numbers.csv")
    capped = lab.call("jupyter_list_workspace", {"recursive": True, "limit": 2})
    assert len(capped["entries"]) == 2 and capped["truncated"] is True
    assert capped["omittedCount"] == len(walk["entries"]) - 2


def test_a_result_over_the_bound_is_trimmed(lab):
    cells = [code_cell(f"big-{i}", f"# cell {i}\n" + "x" * 3000) for i in range(100)]
    lab.save_file("big.ipynb", notebook_json(cells))
    result = lab.call_raw("jupyter_get_cells", {"notebookPath": "big.ipynb", "endIndex": 100})
    assert not result.get("isError")
    assert len(result["content"][0]["text"].encode("utf-8")) <= MAX_TOTAL_RESULT_BYTES
    trimmed = payload(result)
    assert trimmed["truncated"] is True and trimmed["omittedCount"] > 0
    kept = trimmed["cells"]
    assert len(kept) + trimmed["omittedCount"] == 100
    assert [c["id"] for c in kept] == [f"big-{i}" for i in range(len(kept))]


def test_repeated_reads_follow_every_change_to_the_document(lab):
    """Reads reuse an unchanged notebook's cell list; any change to the document must show at once."""
    lab.save_file("cache.ipynb", notebook_json([code_cell("one", "a = 1"), code_cell("two", "b = 2")]))
    lab.share_kernel("cache.ipynb")
    lab.call("jupyter_open_notebook", {"path": "cache.ipynb"})
    first = lab.call("jupyter_get_context")["notebook"]
    assert lab.call("jupyter_get_context")["notebook"] == first  # unchanged: same answer

    lab.set_source("cache.ipynb", 1, "b = 3")
    edited = lab.call("jupyter_get_cells")
    assert edited["cells"][1]["source"] == "b = 3"
    assert edited["notebook"]["revision"] != first["revision"]

    # Metadata only (the human hides a cell): the cell disappears from the very next read.
    lab.page.evaluate(
        """() => window.jupyterapp.shell.currentWidget.content.model.sharedModel.cells[0]
            .setMetadata('jupyterlite_webmcp', {access: 'none'})"""
    )
    hidden = lab.call("jupyter_get_cells")
    assert [cell["id"] for cell in hidden["cells"]] == ["two"]
    assert lab.error("jupyter_get_cells", {"cellIds": ["one"]})["error"] == "CELL_NOT_FOUND"
