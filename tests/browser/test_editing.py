"""The read-hash-write protocol: an agent never overwrites what the human typed."""

import pytest
from conftest import code_cell, notebook_json
from pyodide_webmcp.hashing import source_hash

PATH = "editing.ipynb"


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    cells = [code_cell("first", "a = 1"), code_cell("second", "b = 2"), code_cell("third", "c = 3")]
    lab.save_file(PATH, notebook_json(cells))
    lab.call("jupyter_open_notebook", {"path": PATH, "cellId": "first"})
    return lab


def read(lab, cell_id):
    return lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": [cell_id]})["cells"][0]


def test_update_with_the_read_hash_writes_the_live_model(lab):
    cell = read(lab, "first")
    result = lab.call(
        "jupyter_update_cell", {"cellId": "first", "source": "a = 10", "expectedSourceHash": cell["sourceHash"]}
    )
    assert result["cell"]["id"] == "first" and result["cell"]["index"] == 0
    assert result["cell"]["sourceHash"] == source_hash("a = 10") and "source" not in result["cell"]
    assert lab.live_cells(PATH)[0]["source"] == "a = 10"
    assert result["notebook"]["dirty"] is True


def test_a_human_edit_through_the_model_wins_over_a_stale_write(lab):
    cell = read(lab, "second")
    lab.set_source(PATH, 1, "b = 'human'")
    stale = lab.error(
        "jupyter_update_cell", {"cellId": "second", "source": "b = 'agent'", "expectedSourceHash": cell["sourceHash"]}
    )
    assert stale == {
        "error": "STALE_CELL",
        "message": "Cell changed since it was read.",
        "cellId": "second",
        "expectedSourceHash": cell["sourceHash"],
        "currentSourceHash": source_hash("b = 'human'"),
        "currentSourcePreview": "b = 'human'",
    }
    assert lab.live_cells(PATH)[1]["source"] == "b = 'human'"
    retried = lab.call(
        "jupyter_update_cell",
        {"cellId": "second", "source": "b = 'agent'", "expectedSourceHash": stale["currentSourceHash"]},
    )
    assert retried["cell"]["sourceHash"] == source_hash(lab.live_cells(PATH)[1]["source"]) == source_hash("b = 'agent'")


def test_real_typing_in_the_editor_wins_over_a_stale_write(lab):
    cell = read(lab, "third")
    lab.call("jupyter_focus_cell", {"cellId": "third", "cursor": {"line": 0, "column": 5}})
    lab.page.keyboard.type("  # typed")
    assert lab.live_cells(PATH)[2]["source"] == "c = 3  # typed"
    stale = lab.error(
        "jupyter_update_cell", {"cellId": "third", "source": "c = 0", "expectedSourceHash": cell["sourceHash"]}
    )
    assert stale["error"] == "STALE_CELL" and stale["currentSourcePreview"] == "c = 3  # typed"
    deleted = lab.error("jupyter_delete_cell", {"cellId": "third", "expectedSourceHash": cell["sourceHash"]})
    assert deleted["error"] == "STALE_CELL" and deleted["message"] == "Cell changed since it was read; it was not deleted."
    assert [c["id"] for c in lab.live_cells(PATH)] == ["first", "second", "third"]
    lab.page.keyboard.press("Escape")
    fresh = read(lab, "third")
    updated = lab.call("jupyter_update_cell", {"cellId": "third", "source": "c = 30",
                                               "expectedSourceHash": fresh["sourceHash"], "includeSource": True})
    assert updated["cell"]["source"] == "c = 30"  # asked for


def test_insert_above_and_below_and_markdown_renders(lab):
    below = lab.call(
        "jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": "first", "source": "d = 4"}
    )["cell"]
    above = lab.call(
        "jupyter_insert_cell",
        {"referenceCellId": "first", "position": "above", "cellType": "markdown", "source": "# Notes"},
    )["cell"]
    ids = [c["id"] for c in lab.live_cells(PATH)]
    assert ids[:3] == [above["id"], "first", below["id"]]
    assert below["type"] == "code" and below["sourceHash"] == source_hash("d = 4") and "source" not in below
    assert above["index"] == 0 and above["type"] == "markdown"
    assert lab.call("jupyter_get_context")["focus"]["activeCellId"] == above["id"]
    rendered = lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.content.widgets[0].rendered"
    )
    assert rendered is True


def test_insert_into_a_new_notebook_goes_below_its_starter_cell(lab):
    # JupyterLab keeps at least one cell in a live notebook (it re-adds one a frame
    # after the last is deleted), so the empty-notebook branch is unit-tested.
    lab.call("jupyter_create_notebook", {"name": "fresh-start"})
    path = "fresh-start.ipynb"
    starter = lab.live_cells(path)
    inserted = lab.call("jupyter_insert_cell", {"notebookPath": path, "source": "x = 1"})
    assert inserted["cell"]["index"] == len(starter) and inserted["notebook"]["cellCount"] == len(starter) + 1
    assert [c["source"] for c in lab.live_cells(path)][-1] == "x = 1"
    lab.call("jupyter_open_notebook", {"path": PATH})


def test_delete_with_the_read_hash(lab):
    target = lab.call("jupyter_insert_cell", {"notebookPath": PATH, "source": "gone = True"})["cell"]
    result = lab.call(
        "jupyter_delete_cell", {"notebookPath": PATH, "cellId": target["id"], "expectedSourceHash": target["sourceHash"]}
    )
    assert result["deletedCellId"] == target["id"]
    assert target["id"] not in [c["id"] for c in lab.live_cells(PATH)]
    assert result["activeCellId"] in [c["id"] for c in lab.live_cells(PATH)]


def test_write_errors(lab):
    for tool, extra in (("jupyter_update_cell", {"source": "x"}), ("jupyter_delete_cell", {})):
        missing = lab.error(tool, {"notebookPath": PATH, "cellId": "nope", "expectedSourceHash": "0", **extra})
        assert missing["error"] == "CELL_NOT_FOUND" and missing["cellId"] == "nope"
        no_hash = lab.error(tool, {"notebookPath": PATH, "cellId": "first", **extra})
        assert no_hash["error"] == "INVALID_ARGUMENT" and no_hash["field"] == "expectedSourceHash"
    bad_reference = lab.error("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": "nope"})
    assert bad_reference["error"] == "CELL_NOT_FOUND"
    wrong_type = lab.error("jupyter_insert_cell", {"notebookPath": PATH, "cellType": "heading"})
    assert wrong_type["error"] == "INVALID_CELL_TYPE"


def test_focus_cell_selects_an_exact_range_in_the_editor(lab):
    lab.call("jupyter_open_notebook", {"path": "demo.ipynb"})
    result = lab.call(
        "jupyter_focus_cell",
        {"notebookPath": PATH, "cellId": "second", "selection": {"start": {"line": 0, "column": 4}, "end": {"line": 0, "column": 11}}},
    )
    assert result["notebook"]["path"] == PATH
    assert result["focus"]["activeCellId"] == "second"
    assert result["focus"]["textSelection"]["text"] == "'agent'"
    context = lab.call("jupyter_get_context")
    assert context["notebook"]["path"] == PATH and context["focus"]["textSelection"]["text"] == "'agent'"
    lab.page.keyboard.press("Escape")


def test_focus_on_a_missing_cell_changes_nothing(lab):
    lab.call("jupyter_open_notebook", {"path": "demo.ipynb"})
    error = lab.error("jupyter_focus_cell", {"notebookPath": PATH, "cellId": "nope"})
    assert error["error"] == "CELL_NOT_FOUND"
    assert lab.call("jupyter_get_context")["notebook"]["path"] == "demo.ipynb"
