"""tools/cell_changes.py: edits that resend no source (replace a piece, move, clear outputs)."""

import pytest
from pyodide_webmcp.base.errors import ToolError
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell
from pyodide_webmcp.tools.cell_changes import replaced


def three_cells():
    notebook = MemoryNotebook("m.ipynb", [cell("a", cell_id="a"), cell("b", cell_id="b"), cell("c", cell_id="c")])
    for data in notebook.data:
        data.update(outputs=[{"output_type": "stream", "name": "stdout", "text": data["source"] + "\n"}], execution_count=1)
    return notebook


def test_replace_changes_one_unique_piece_under_the_hash_guard():
    notebook = MemoryNotebook("r.ipynb", [cell("x = 1\ny = x + 1", cell_id="a")])
    lab = MemoryLab(notebook)
    arguments = {"cellId": "a", "expectedSourceHash": source_hash("x = 1\ny = x + 1"), "old": "x + 1", "new": "x + 2"}
    done = call(lab, "jupyter_replace_in_cell", arguments)
    assert notebook.data[0]["source"] == "x = 1\ny = x + 2"
    assert done["cell"] == {"id": "a", "index": 0, "type": "code", "sourceHash": source_hash("x = 1\ny = x + 2")}
    assert call(lab, "jupyter_replace_in_cell", arguments)["error"] == "STALE_CELL"
    ambiguous = call(lab, "jupyter_replace_in_cell", {**arguments, "old": "x", "expectedSourceHash": done["cell"]["sourceHash"]})
    assert ambiguous["error"] == "INVALID_ARGUMENT" and ambiguous["detail"] == "TEXT_NOT_UNIQUE"


def test_replacement_needs_exactly_one_occurrence():
    assert replaced("a = 1\nb = 1", "b = 1", "b = 2") == "a = 1\nb = 2"
    for source, detail, count in (("a = 1", "TEXT_NOT_FOUND", 0), ("x x", "TEXT_NOT_UNIQUE", 2)):
        with pytest.raises(ToolError) as refused:
            replaced(source, "x" if count else "zz", "y")
        assert refused.value.details["detail"] == detail and refused.value.details["occurrences"] == count


def test_a_move_needs_no_hash_and_keeps_the_cell():
    notebook = three_cells()
    lab = MemoryLab(notebook)
    moved = call(lab, "jupyter_move_cell", {"cellId": "a", "referenceCellId": "c"})
    assert [c["id"] for c in notebook.data] == ["b", "c", "a"] and moved["cell"]["index"] == 2
    assert notebook.data[2]["outputs"] and notebook.data[2]["source"] == "a"
    up = call(lab, "jupyter_move_cell", {"cellId": "a", "referenceCellId": "b", "position": "above"})
    assert [c["id"] for c in notebook.data] == ["a", "b", "c"] and up["cell"]["index"] == 0
    stale = call(lab, "jupyter_move_cell", {"cellId": "a", "referenceCellId": "c", "expectedSourceHash": "0" * 16})
    unknown = call(lab, "jupyter_move_cell", {"cellId": "a", "referenceCellId": "nope"})
    assert stale["error"] == "STALE_CELL" and unknown["error"] == "CELL_NOT_FOUND"
    assert [c["id"] for c in notebook.data] == ["a", "b", "c"]


def test_clear_outputs_of_some_cells_or_of_every_cell_you_may_change():
    notebook = three_cells()
    notebook.data[2]["metadata"]["jupyterlite_webmcp"] = {"access": "read"}
    notebook.data.append(cell("# notes", "markdown", cell_id="m"))
    lab = MemoryLab(notebook)
    some = call(lab, "jupyter_clear_outputs", {"cellIds": ["b", "m"]})
    assert some["clearedCellIds"] == ["b"] and notebook.data[1]["outputs"] == [] and notebook.data[0]["outputs"]
    every = call(lab, "jupyter_clear_outputs", {})
    assert every["clearedCellIds"] == ["a", "b"] and notebook.data[2]["outputs"], "read-only cells keep theirs"
    locked = call(lab, "jupyter_clear_outputs", {"cellIds": ["c"]})
    assert locked["error"] == "CELL_ACCESS_DENIED"


def test_an_empty_list_of_cell_ids_to_clear_is_an_invalid_argument():
    error = call(MemoryLab(MemoryNotebook("n.ipynb", [cell("1")])), "jupyter_clear_outputs", {"cellIds": []})
    assert error["error"] == "INVALID_ARGUMENT" and error["field"] == "cellIds"


def test_a_replacement_left_out_deletes_the_piece():
    notebook = MemoryNotebook("d.ipynb", [cell("x = 1  # old note", cell_id="a")])
    done = call(MemoryLab(notebook), "jupyter_replace_in_cell",
                {"cellId": "a", "expectedSourceHash": source_hash("x = 1  # old note"), "old": "  # old note"})
    assert notebook.data[0]["source"] == "x = 1" and done["cell"]["sourceHash"] == source_hash("x = 1")
