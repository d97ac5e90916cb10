"""kit/visible_cells.py: the cells a kit tool may see, and its guarded write of a cell's source."""

from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.calls.tool import CallContext
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, cell
from pyodide_webmcp.kit.visible_cells import read_cells, replace_cell_source

from tests.unit.aio import run

HIDDEN = {"jupyterlite_webmcp": {"access": "none"}}
READ_ONLY = {"jupyterlite_webmcp": {"access": "read"}}


def lab() -> tuple[MemoryLab, MemoryNotebook]:
    notebook = MemoryNotebook("n.ipynb", [cell("a = 1", cell_id="a"), cell("h", cell_id="h", **HIDDEN),
                                          cell("r", cell_id="r", **READ_ONLY)])
    return MemoryLab(notebook), notebook


def error_of(coroutine) -> ErrorCode:
    try:
        run(coroutine)
    except ToolError as exc:
        return exc.code
    raise AssertionError("no ToolError")


def test_read_cells_leaves_hidden_cells_out():
    memory, _ = lab()
    cells = run(read_cells(CallContext(memory)))
    assert [(c.id, c.access) for c in cells] == [("a", "write"), ("r", "read")]


def test_replace_cell_source_is_the_guarded_write():
    memory, notebook = lab()
    ctx = CallContext(memory, tool="site_tool")
    first = run(read_cells(ctx))[0]
    result = run(replace_cell_source(ctx, None, "a", "a = 2", first.source_hash))
    assert result["cell"]["source"] == "a = 2" and notebook.data[0]["source"] == "a = 2"
    assert notebook.data[0]["metadata"]["jupyterlite_webmcp"]["history"][-1]["tool"] == "site_tool"
    assert error_of(replace_cell_source(ctx, None, "a", "x", first.source_hash)) == ErrorCode.STALE_CELL
    read_only = run(read_cells(ctx))[1]
    assert error_of(replace_cell_source(ctx, None, "r", "x", read_only.source_hash)) == ErrorCode.CELL_ACCESS_DENIED
    assert error_of(replace_cell_source(ctx, None, "h", "x", "")) == ErrorCode.CELL_NOT_FOUND


def test_replace_cell_source_waits_for_the_human_in_propose_mode():
    memory, notebook = lab()
    memory.proposals.enabled = True
    memory.proposals.human = lambda *shown: ("denied", "not now")
    digest = run(read_cells(CallContext(memory)))[0].source_hash
    result = run(replace_cell_source(CallContext(memory), None, "a", "a = 3", digest))
    assert result["status"] == "denied" and notebook.data[0]["source"] == "a = 1"
    assert memory.proposals.shown[0][2] == [("removed", "a = 1"), ("added", "a = 3")]
