"""tools/editing.py: inserting, replacing and deleting cells under the sourceHash guard, one or several
at a time, reviewed by the human in Propose mode."""

from pyodide_webmcp.base.errors import GUIDE, ErrorCode
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell


def notebook_of(*sources, **kwargs):
    return MemoryNotebook("n.ipynb", [cell(source, cell_id=cell_id) for cell_id, source in sources], **kwargs)


def test_insert_into_an_empty_notebook_appends_whatever_the_reference():
    lab = MemoryLab(MemoryNotebook("n.ipynb", []))
    result = call(lab, "jupyter_insert_cell", {"referenceCellId": "missing", "position": "above", "source": "x"})
    assert result["cell"]["index"] == 0 and result["cell"]["source"] == "x"
    assert [c.source for c in lab.current.cells()] == ["x"]


def test_insert_without_reference_goes_below_the_active_cell_and_returns_the_cell_as_read():
    notebook = notebook_of(("a", "1"), ("b", "2"))
    result = call(MemoryLab(notebook), "jupyter_insert_cell", {"cellType": "markdown", "source": "# m"})
    inserted = result["cell"]
    assert inserted["index"] == 1 and inserted["type"] == "markdown" and inserted["source"] == "# m"
    assert inserted["sourceHash"] == source_hash("# m") and inserted["lastEditedBy"] == "agent"
    assert [c.id for c in notebook.cells()][::2] == ["a", "b"]


def test_several_cells_are_inserted_in_order_in_one_call_without_their_sources_echoed():
    notebook = notebook_of(("a", "1"), ("b", "2"))
    lab = MemoryLab(notebook)
    new = [{"source": "import pandas as pd"}, {"cellType": "markdown", "source": "## Plot"}, {"source": "df.plot()"}]
    result = call(lab, "jupyter_insert_cell", {"referenceCellId": "a", "cells": new})
    assert [c.source for c in notebook.cells()] == ["1", "import pandas as pd", "## Plot", "df.plot()", "2"]
    assert [ref["index"] for ref in result["cells"]] == [1, 2, 3]
    assert [ref["sourceHash"] for ref in result["cells"]] == [source_hash(c["source"]) for c in new]
    assert all(set(ref) == {"id", "index", "type", "sourceHash"} for ref in result["cells"])
    assert result["notebook"]["cellCount"] == 5
    histories = [c["metadata"]["jupyterlite_webmcp"]["history"][-1]["action"] for c in notebook.data[1:4]]
    assert histories == ["inserted"] * 3


def test_a_batch_insert_is_refused_whole_when_one_cell_is_bad():
    notebook = notebook_of(("a", "1"))
    lab = MemoryLab(notebook)
    wrong_type = call(lab, "jupyter_insert_cell", {"cells": [{"source": "x"}, {"cellType": "sql", "source": "y"}]})
    remote = call(lab, "jupyter_insert_cell", {"cells": [{"source": "x"}, {"cellType": "markdown",
                                                                          "source": "![](https://example.org/p.png)"}]})
    both = call(lab, "jupyter_insert_cell", {"source": "x", "cells": [{"source": "y"}]})
    assert wrong_type["error"] == "INVALID_CELL_TYPE"
    assert remote["error"] == "INVALID_ARGUMENT" and remote["field"] == "cells.1.source"
    assert both["error"] == "INVALID_ARGUMENT" and both["field"] == "cells"
    assert [c.source for c in notebook.cells()] == ["1"]


def test_update_checks_the_hash_and_returns_the_cell_with_its_source():
    notebook = notebook_of(("a", "old"))
    lab = MemoryLab(notebook)
    stale = call(lab, "jupyter_update_cell", {"cellId": "a", "source": "new", "expectedSourceHash": "x"})
    assert stale["error"] == "STALE_CELL" and stale["message"] == "Cell changed since it was read."
    assert stale["currentSourceHash"] == source_hash("old") and notebook.cells()[0].source == "old"
    fine = call(lab, "jupyter_update_cell", {"cellId": "a", "source": "new", "expectedSourceHash": source_hash("old")})
    assert fine["cell"]["source"] == "new" and fine["cell"]["sourceHash"] == source_hash("new")


def test_update_can_change_the_type_too():
    notebook = notebook_of(("a", "x = 1"))
    result = call(MemoryLab(notebook), "jupyter_update_cell",
                  {"cellId": "a", "source": "# Title", "expectedSourceHash": source_hash("x = 1"), "cellType": "markdown"})
    assert result["cell"]["type"] == "markdown" and notebook.data[0]["cell_type"] == "markdown"


def test_stale_preview_is_bounded():
    notebook = notebook_of(("a", "p" * 5000))
    stale = call(MemoryLab(notebook), "jupyter_update_cell", {"cellId": "a", "source": "", "expectedSourceHash": "x"})
    assert len(stale["currentSourcePreview"]) <= 400


def test_agent_writes_are_recorded_and_guarded_by_access():
    notebook = MemoryNotebook("n.ipynb", [
        cell("1", cell_id="a"),
        cell("2", cell_id="locked", jupyterlite_webmcp={"access": "read"}),
        cell("3", cell_id="secret", jupyterlite_webmcp={"access": "none"}),
    ])
    lab = MemoryLab(notebook)
    call(lab, "jupyter_update_cell", {"cellId": "a", "source": "10", "expectedSourceHash": source_hash("1")})
    history = notebook.data[0]["metadata"]["jupyterlite_webmcp"]["history"]
    assert [(entry["actor"], entry["action"], entry["tool"]) for entry in history] == [
        ("agent", "edited", "jupyter_update_cell")
    ]
    denied = call(lab, "jupyter_update_cell", {"cellId": "locked", "source": "x", "expectedSourceHash": source_hash("2")})
    assert denied == {
        "error": "CELL_ACCESS_DENIED",
        "message": 'The notebook owner made cell "locked" read-only for agents.',
        "cellId": "locked",
        "access": "read",
        "hint": GUIDE[ErrorCode.CELL_ACCESS_DENIED].hint,
        "retryable": False,
    }
    hidden = call(lab, "jupyter_update_cell", {"cellId": "secret", "source": "x", "expectedSourceHash": source_hash("3")})
    missing = call(lab, "jupyter_update_cell", {"cellId": "nope", "source": "x", "expectedSourceHash": source_hash("3")})
    assert hidden["error"] == "CELL_NOT_FOUND"
    assert str(hidden).replace("secret", "ID") == str(missing).replace("nope", "ID")
    assert [c.source for c in notebook.cells()] == ["10", "2", "3"]


def test_update_cells_writes_all_or_nothing():
    notebook = notebook_of(("a", "1"), ("b", "2"), ("c", "3"))
    lab = MemoryLab(notebook)
    edits = {
        "a": {"source": "10", "expectedSourceHash": source_hash("1")},
        "c": {"source": "30", "expectedSourceHash": source_hash("3")},
    }
    notebook.data[2]["source"] = "3 (the human's edit)"
    stale = call(lab, "jupyter_update_cells", {"cells": edits})
    assert stale["error"] == "STALE_CELL" and stale["cellId"] == "c"
    assert [c.source for c in notebook.cells()] == ["1", "2", "3 (the human's edit)"]
    too_big = call(lab, "jupyter_update_cells", {"cells": {"a": {**edits["a"], "source": "x" * (2**18 + 1)}}})
    assert too_big["error"] == "INVALID_ARGUMENT" and too_big["field"] == "cells.a.source"
    notebook.data[2]["source"] = "3"
    done = call(lab, "jupyter_update_cells", {"cells": edits})
    assert [c.source for c in notebook.cells()] == ["10", "2", "30"]
    assert [(ref["id"], ref["index"], ref["sourceHash"]) for ref in done["cells"]] == [
        ("a", 0, source_hash("10")), ("c", 2, source_hash("30"))
    ]


def test_update_cells_still_takes_the_earlier_list_of_edits_each_naming_its_cell():
    notebook = notebook_of(("a", "1"), ("b", "2"))
    lab = MemoryLab(notebook)
    edit = {"cellId": "a", "source": "10", "expectedSourceHash": source_hash("1")}
    twice = call(lab, "jupyter_update_cells", {"cells": [edit, edit]})
    assert twice["error"] == "INVALID_ARGUMENT" and twice["field"] == "cells.1.cellId"
    unnamed = call(lab, "jupyter_update_cells", {"cells": [edit, {"source": "20"}]})
    assert unnamed["error"] == "INVALID_ARGUMENT" and unnamed["field"] == "cells.1.cellId"
    assert [c.source for c in notebook.cells()] == ["1", "2"]
    done = call(lab, "jupyter_update_cells", {"cells": [edit, {"cellId": "b", "source": "20",
                                                                "expectedSourceHash": source_hash("2")}]})
    assert [ref["id"] for ref in done["cells"]] == ["a", "b"] and [c.source for c in notebook.cells()] == ["10", "20"]


def test_delete_is_guarded_and_says_what_is_active_now():
    notebook = notebook_of(("a", "1"), ("b", "2"))
    lab = MemoryLab(notebook)
    stale = call(lab, "jupyter_delete_cell", {"cellId": "a", "expectedSourceHash": source_hash("x")})
    assert stale["error"] == "STALE_CELL" and stale["message"] == "Cell changed since it was read; it was not deleted."
    done = call(lab, "jupyter_delete_cell", {"cellId": "a", "expectedSourceHash": source_hash("1")})
    assert done["deletedCellId"] == "a" and done["activeCellId"] == "b" and done["notebook"]["cellCount"] == 1


LONG = "".join(f"line_{number:05d} = {number}\n" for number in range(2000))  # about 38 KiB


def test_a_long_cell_is_read_in_pages_and_a_write_built_on_part_of_it_is_refused():
    notebook = notebook_of(("long", LONG))
    lab = MemoryLab(notebook)
    first = call(lab, "jupyter_get_cells", {"cellIds": ["long"]})["cells"][0]
    assert first["sourceTruncated"] is True and first["sourceHash"].endswith(":part")
    rest = call(lab, "jupyter_get_cells", {"cellIds": ["long"], "sourceOffset": first["nextSourceOffset"]})["cells"][0]
    assert rest["sourceOffset"] == first["nextSourceOffset"] and "sourceTruncated" not in rest
    assert first["source"] + rest["source"] == LONG

    edited = first["source"].replace("line_00001 = 1", "line_00001 = 100")  # rewrites what it read, and only that
    refused = call(lab, "jupyter_update_cell", {"cellId": "long", "source": edited, "expectedSourceHash": first["sourceHash"]})
    assert refused["error"] == "PARTIAL_READ" and refused["sourceLength"] == len(LONG)
    assert notebook.data[0]["source"] == LONG

    piece = call(lab, "jupyter_replace_in_cell", {"cellId": "long", "expectedSourceHash": first["sourceHash"],
                                                  "old": "line_00001 = 1\n", "new": "line_00001 = 100\n"})
    assert piece["cell"]["sourceHash"] == source_hash(notebook.data[0]["source"])
    assert notebook.data[0]["source"].endswith(LONG[-100:]), "the tail survives"

    whole = call(lab, "jupyter_update_cell", {"cellId": "long", "source": "short", "overwriteUnread": True,
                                              "expectedSourceHash": source_hash(notebook.data[0]["source"]) + ":part"})
    assert whole["cell"]["source"] == "short"


def test_a_stale_partial_hash_is_stale():
    notebook = notebook_of(("long", LONG))
    lab = MemoryLab(notebook)
    read = call(lab, "jupyter_get_cells", {"cellIds": ["long"]})["cells"][0]
    notebook.data[0]["source"] = LONG + "# the human's line\n"
    stale = call(lab, "jupyter_update_cell", {"cellId": "long", "source": "x", "overwriteUnread": True,
                                              "expectedSourceHash": read["sourceHash"]})
    assert stale["error"] == "STALE_CELL" and stale["currentSourceHash"].endswith(":part")


def test_in_propose_mode_a_write_waits_for_the_human_and_is_checked_again():
    notebook = notebook_of(("a", "1"), ("b", "2"))
    lab = MemoryLab(notebook)
    lab.proposals.enabled = True
    lab.proposals.human = lambda *_: ("denied", "Not now.")
    arguments = {"cellId": "a", "source": "10", "expectedSourceHash": source_hash("1")}
    denied = call(lab, "jupyter_update_cell", arguments)
    assert denied == {"status": "denied", "code": "PROPOSAL_DENIED", "proposalId": "p-1", "cellId": "a",
                      "reason": "Not now."}
    assert notebook.data[0]["source"] == "1"

    def accepts_after_typing(notebook, cell_id, title, preview):
        notebook.data[0]["source"] = "1  # the human typed while deciding"
        return "accepted", None

    lab.proposals.human = accepts_after_typing
    stale = call(lab, "jupyter_update_cell", arguments)
    assert stale["error"] == "STALE_CELL", "a human edit made while they decided wins"

    lab.proposals.human = lambda *_: ("accepted", None)
    batch = call(lab, "jupyter_update_cells", {"cells": {
        "a": {"source": "10", "expectedSourceHash": source_hash(notebook.data[0]["source"])},
        "b": {"source": "20", "expectedSourceHash": source_hash("2")},
    }})
    assert batch["status"] == "accepted" and batch["proposalId"] == "p-3"
    cell_id, title, preview = lab.proposals.shown[-1]
    assert cell_id == "a" and "2 cells" in title and ("added", "20") in preview
    assert [c.source for c in notebook.cells()] == ["10", "20"]


def test_inserts_are_reviewed_only_when_the_human_chose_so_even_in_an_empty_notebook():
    notebook = notebook_of(("a", "1"))
    lab = MemoryLab(notebook)
    lab.proposals.enabled = True
    lab.proposals.human = lambda *_: ("accepted", None)
    call(lab, "jupyter_insert_cell", {"source": "x"})
    assert lab.proposals.shown == []
    lab.proposals.reviewed_actions = {"insert"}
    accepted = call(lab, "jupyter_insert_cell", {"cells": [{"source": "y"}, {"source": "z"}]})
    assert accepted["status"] == "accepted" and len(accepted["cells"]) == 2
    assert lab.proposals.shown[0][1] == "The agent proposes 2 new cells below this one:"
    empty = MemoryLab(MemoryNotebook("e.ipynb", []))
    empty.proposals.enabled, empty.proposals.reviewed_actions = True, {"insert"}
    empty.proposals.human = lambda *_: ("denied", "not now")
    denied = call(empty, "jupyter_insert_cell", {"source": "first"})
    assert denied["status"] == "denied" and denied["cellId"] == "" and empty.current.data == []
    assert empty.proposals.shown[0][:2] == ("", "The agent proposes a new code cell at the end of the notebook:")


def test_an_empty_list_of_cells_is_an_invalid_argument_that_the_schema_states():
    from pyodide_webmcp.tools import BUILT_IN

    lab = MemoryLab(notebook_of(("a", "1")))
    for name, empty, bound in (("jupyter_update_cells", {}, "minProperties"), ("jupyter_update_cells", [], "minProperties"),
                               ("jupyter_insert_cell", [], "minItems")):
        error = call(lab, name, {"cells": empty})
        assert error["error"] == "INVALID_ARGUMENT" and error["field"] == "cells", name
        assert BUILT_IN.get(name).input_schema["properties"]["cells"][bound] == 1
    assert [c.source for c in lab.current.cells()] == ["1"]
