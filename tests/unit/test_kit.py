"""kit/__init__.py: the site owner's contract, pinned; every name in it documented for owners."""

from pathlib import Path

import pyodide_webmcp.kit as kit

OWNER_DOCS = (Path(__file__).resolve().parents[2] / "docs" / "own-tools.md").read_text()

CONTRACT = [
    "Arguments", "CallContext", "Cell", "CellId", "ErrorCode", "ExpectedSourceHash", "NotebookPath", "SourceWritten",
    "ToolError", "cell_not_found", "limits", "read_cells", "replace_cell_source", "testing", "tool",
]


def test_the_kit_is_the_owner_s_contract_and_nothing_else():
    assert sorted(kit.__all__) == sorted(CONTRACT)
    public = {name for name in vars(kit) if not name.startswith("_")} - {"call_context", "visible_cells", "testing"}
    assert public <= set(CONTRACT), public - set(CONTRACT)


def test_every_name_of_the_kit_is_documented_for_owners():
    table = OWNER_DOCS[OWNER_DOCS.index("## The kit"):OWNER_DOCS.index("## Package it")]
    assert [name for name in CONTRACT if f"`{name}" not in table] == []


def test_the_in_memory_lab_is_part_of_it():
    from pyodide_webmcp.kit import testing

    assert callable(testing.call) and testing.MemoryLab and testing.MemoryNotebook
