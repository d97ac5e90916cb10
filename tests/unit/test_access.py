"""notebook/access.py: who may read or change a cell or a notebook, as its metadata and the owner's defaults say."""

import pytest
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.notebook.access import (
    METADATA_KEY,
    cell_access,
    guard_cell,
    guard_notebook,
    next_access,
    notebook_access,
    with_cell_access,
    with_notebook_access,
)
from pyodide_webmcp.owner.site_settings import Settings


@pytest.mark.parametrize(
    ("metadata", "access"),
    [
        ({}, "write"),
        (None, "write"),
        ({METADATA_KEY: {}}, "write"),
        ({METADATA_KEY: {"access": "read"}}, "read"),
        ({METADATA_KEY: {"access": "none"}}, "none"),
        ({METADATA_KEY: {"access": "READ"}}, "none"),
        ({METADATA_KEY: {"access": 3}}, "none"),
        ({METADATA_KEY: {"access": None}}, "none"),
        ({METADATA_KEY: "garbage"}, "none"),
        ({METADATA_KEY: None}, "none"),
        ({METADATA_KEY: ["read"]}, "none"),
    ],
)
def test_cell_access_reads_absent_as_write_and_anything_unreadable_as_hidden(metadata, access):
    assert cell_access(metadata) == access


@pytest.mark.parametrize(
    ("entry", "access"),
    [
        ({}, "write"),
        ({"notebookAccess": "read"}, "read"),
        ({"notebookAccess": "none"}, "none"),
        ({"access": "read"}, "read"),  # written by earlier versions of this bridge
        ({"notebookAccess": "write", "access": "none"}, "none"),
        ({"notebookAccess": "none", "access": "write"}, "none"),
        ({"notebookAccess": "read", "access": "write"}, "read"),
        ({"notebookAccess": "Write"}, "none"),
        ({"notebookAccess": {"level": "write"}}, "none"),
        ({"history": [], "unknown": 1}, "write"),
    ],
)
def test_notebook_access_reads_the_reference_extensions_field_and_ours_and_the_stricter_wins(entry, access):
    assert notebook_access({METADATA_KEY: entry}) == access
    assert notebook_access({}) == "write" and notebook_access({METADATA_KEY: 7}) == "none"


def test_cycle_and_setting_keep_what_else_is_stored():
    assert [next_access(a) for a in ("write", "read", "none")] == ["read", "none", "write"]
    entry = with_cell_access({METADATA_KEY: {"history": [1], "future": {"x": 1}}}, "read")
    assert entry == {"history": [1], "future": {"x": 1}, "access": "read"}
    assert with_cell_access({METADATA_KEY: "junk"}, "none") == {"access": "none"}
    notebook = with_notebook_access({METADATA_KEY: {"access": "none", "future": 2}}, "write")
    assert notebook == {"future": 2, "notebookAccess": "write"}
    assert notebook_access({METADATA_KEY: notebook}) == "write"


def test_guards():
    guard_cell("write", "write", "a", "n.ipynb")
    guard_cell("read", "read", "a", "n.ipynb")
    with pytest.raises(ToolError) as denied:
        guard_cell("read", "write", "a", "n.ipynb")
    assert denied.value.code is ErrorCode.CELL_ACCESS_DENIED and denied.value.details == {"cellId": "a", "access": "read"}
    with pytest.raises(ToolError) as hidden:
        guard_cell("none", "read", "a", "n.ipynb")
    assert hidden.value.code is ErrorCode.CELL_NOT_FOUND and hidden.value.details == {"cellId": "a", "notebookPath": "n.ipynb"}
    with pytest.raises(ToolError) as notebook:
        guard_notebook("read", "write", "n.ipynb")
    assert notebook.value.code is ErrorCode.NOTEBOOK_ACCESS_DENIED
    guard_notebook("read", "read", "n.ipynb")


def test_default_access_applies_only_where_metadata_says_nothing():
    strict = Settings.read({"defaultNotebookAccess": "none", "defaultCellAccess": "read"})
    assert notebook_access({}, strict.access.notebook) == "none"
    assert notebook_access({METADATA_KEY: {"notebookAccess": "write"}}, "none") == "write"
    assert cell_access({}, strict.access.cell) == "read"
    assert cell_access({METADATA_KEY: {"access": "write"}}, "read") == "write"
