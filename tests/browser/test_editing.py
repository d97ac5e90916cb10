"""The read-hash-write protocol: an agent never overwrites what the human typed."""

import pytest
from pyodide_webmcp.base.hashing import source_hash

from tests.browser.conftest import code_cell, notebook_json

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
    assert result["cell"]["sourceHash"] == source_hash("a = 10") and result["cell"]["source"] == "a = 10"
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
                                               "expectedSourceHash": fresh["sourceHash"]})
    assert updated["cell"]["source"] == "c = 30"  # the reference's clients read it back


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
    assert below["type"] == "code" and below["sourceHash"] == source_hash("d = 4") and below["source"] == "d = 4"
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
    lab.share_kernel("demo.ipynb")
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


def test_several_cells_are_inserted_and_updated_in_one_call_all_or_nothing(lab):
    new = [{"source": "import math"}, {"cellType": "markdown", "source": "## Area"}, {"source": "area = math.pi"}]
    inserted = lab.call("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": "second", "cells": new})
    ids = [cell["id"] for cell in inserted["cells"]]
    live = lab.live_cells(PATH)
    position = [c["id"] for c in live].index("second")
    assert [c["id"] for c in live[position + 1:position + 4]] == ids
    assert [c["source"] for c in live[position + 1:position + 4]] == [cell["source"] for cell in new]
    assert [cell["type"] for cell in inserted["cells"]] == ["code", "markdown", "code"]

    edits = [{"cellId": ids[0], "source": "import math as m", "expectedSourceHash": inserted["cells"][0]["sourceHash"]},
             {"cellId": ids[2], "source": "area = m.pi", "expectedSourceHash": inserted["cells"][2]["sourceHash"]}]
    lab.set_source(PATH, position + 3, "area = math.pi * 2  # the human's edit")
    stale = lab.error("jupyter_update_cells", {"notebookPath": PATH, "cells": edits})
    assert stale["error"] == "STALE_CELL" and stale["cellId"] == ids[2]
    after = {c["id"]: c["source"] for c in lab.live_cells(PATH)}
    assert after[ids[0]] == "import math" and after[ids[2]] == "area = math.pi * 2  # the human's edit", "nothing written"

    edits[1]["expectedSourceHash"] = source_hash("area = math.pi * 2  # the human's edit")
    updated = lab.call("jupyter_update_cells", {"notebookPath": PATH, "cells": edits})
    after = {c["id"]: c["source"] for c in lab.live_cells(PATH)}
    assert after[ids[0]] == "import math as m" and after[ids[2]] == "area = m.pi"
    assert [cell["sourceHash"] for cell in updated["cells"]] == [source_hash("import math as m"), source_hash("area = m.pi")]


LONG_SOURCE = "".join(f"value_{number:05d} = {number}  # a long cell\n" for number in range(1000))  # about 38 KiB


def test_a_long_cell_read_in_part_cannot_lose_its_tail(lab):
    lab.call("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": "first", "cells": [{"source": LONG_SOURCE}]})
    cell_id = next(c["id"] for c in lab.live_cells(PATH) if c["source"] == LONG_SOURCE)
    first = read(lab, cell_id)
    assert first["sourceTruncated"] is True and len(first["source"]) < len(LONG_SOURCE)

    rewritten = first["source"].replace("value_00001 = 1 ", "value_00001 = 100 ")  # what an agent does with what it read
    refused = lab.error("jupyter_update_cell", {"notebookPath": PATH, "cellId": cell_id, "source": rewritten,
                                                "expectedSourceHash": first["sourceHash"]})
    assert refused["error"] == "PARTIAL_READ" and refused["sourceLength"] == len(LONG_SOURCE)
    assert next(c["source"] for c in lab.live_cells(PATH) if c["id"] == cell_id) == LONG_SOURCE

    rest = lab.call("jupyter_get_cells", {"notebookPath": PATH, "cellIds": [cell_id],
                                          "sourceOffset": first["nextSourceOffset"]})["cells"][0]
    assert first["source"] + rest["source"] == LONG_SOURCE

    lab.call("jupyter_replace_in_cell", {"notebookPath": PATH, "cellId": cell_id, "expectedSourceHash": first["sourceHash"],
                                         "old": "value_00001 = 1 ", "new": "value_00001 = 100 "})
    live = next(c["source"] for c in lab.live_cells(PATH) if c["id"] == cell_id)
    assert live == LONG_SOURCE.replace("value_00001 = 1 ", "value_00001 = 100 "), "the tail survives"
    lab.call("jupyter_delete_cell", {"notebookPath": PATH, "cellId": cell_id, "expectedSourceHash": source_hash(live)})
