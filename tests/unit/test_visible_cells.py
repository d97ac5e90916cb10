"""kit/visible_cells.py and kit/call_context.py: the cells a site's tool may see, its guarded write of a cell's
source, and the narrow context it gets (nothing of the lab)."""

from typing import Optional

from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.kit import (
    Arguments,
    CallContext,
    SourceWritten,
    read_cells,
    replace_cell_source,
    tool,
)
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell
from typing_extensions import TypedDict

from tests.unit.aio import run

HIDDEN = {"jupyterlite_webmcp": {"access": "none"}}
READ_ONLY = {"jupyterlite_webmcp": {"access": "read"}}


def lab() -> tuple[MemoryLab, MemoryNotebook]:
    notebook = MemoryNotebook("n.ipynb", [cell("a = 1", cell_id="a"), cell("h", cell_id="h", **HIDDEN),
                                          cell("r", cell_id="r", **READ_ONLY)])
    return MemoryLab(notebook), notebook


class Seen(TypedDict):
    cells: list[list[str]]
    tool: str


@tool("site_read", "Read", read_only=True)
async def site_read(args: Arguments, ctx: CallContext) -> Seen:
    """Read the cells."""
    return {"cells": [[c.id, c.access, c.source_hash] for c in await read_cells(ctx)], "tool": ctx.tool}


class Write(Arguments):
    cellId: str
    source: str
    expectedSourceHash: str


@tool("site_write", "Write", read_only=False, destructive=True, idempotent=True, reviewed=True)
async def site_write(args: Write, ctx: CallContext) -> SourceWritten:
    """Write a cell."""
    return await replace_cell_source(ctx, None, args.cellId, args.source, args.expectedSourceHash)


def test_read_cells_leaves_hidden_cells_out():
    memory, _ = lab()
    seen = call(memory, site_read, {})
    assert [(cell_id, access) for cell_id, access, _ in seen["cells"]] == [("a", "write"), ("r", "read")]
    assert seen["tool"] == "site_read"


def test_replace_cell_source_is_the_guarded_write():
    memory, notebook = lab()
    digests = {cell_id: digest for cell_id, _, digest in call(memory, site_read, {})["cells"]}
    result = call(memory, site_write, {"cellId": "a", "source": "a = 2", "expectedSourceHash": digests["a"]})
    assert result["cell"]["source"] == "a = 2" and notebook.data[0]["source"] == "a = 2"
    assert notebook.data[0]["metadata"]["jupyterlite_webmcp"]["history"][-1]["tool"] == "site_write"
    refused = {
        "stale": call(memory, site_write, {"cellId": "a", "source": "x", "expectedSourceHash": digests["a"]}),
        "read only": call(memory, site_write, {"cellId": "r", "source": "x", "expectedSourceHash": digests["r"]}),
        "hidden": call(memory, site_write, {"cellId": "h", "source": "x", "expectedSourceHash": ""}),
        "too big": call(memory, site_write, {"cellId": "a", "source": "x" * 300_000, "expectedSourceHash": ""}),
    }
    assert {why: error["error"] for why, error in refused.items()} == {
        "stale": "STALE_CELL", "read only": "CELL_ACCESS_DENIED", "hidden": "CELL_NOT_FOUND", "too big": "INVALID_ARGUMENT"}
    assert refused["too big"]["bytes"] == 300_000


def test_replace_cell_source_waits_for_the_human_in_propose_mode():
    memory, notebook = lab()
    memory.proposals.enabled = True
    memory.proposals.human = lambda *shown: ("denied", "not now")
    digest = call(memory, site_read, {})["cells"][0][2]
    result = call(memory, site_write, {"cellId": "a", "source": "a = 3", "expectedSourceHash": digest})
    assert result["status"] == "denied" and notebook.data[0]["source"] == "a = 1"
    assert memory.proposals.shown[0][2] == [("removed", "a = 1"), ("added", "a = 3")]


def test_a_site_tool_cannot_reach_the_lab_through_its_context():
    """What an owner's code could try on the context it is given: no lab, no port, no page."""
    tried: dict[str, object] = {}

    @tool("site_probe", "Probe", read_only=True)
    async def probe(args: Arguments, ctx: CallContext) -> dict:
        """Probe the context."""
        for name in ("lab", "_lab", "port", "abort", "calls", "notebook", "page", "__dict__"):
            try:
                tried[name] = getattr(ctx, name)
            except AttributeError:
                tried[name] = None
        tried["attributes"] = [name for name in dir(ctx) if not name.startswith("__")]
        tried["slots"] = [getattr(ctx, slot) for slot in type(ctx).__slots__]
        return {}

    memory, _ = lab()
    assert call(memory, probe, {}) == {}
    assert all(tried[name] is None for name in ("lab", "_lab", "port", "abort", "calls", "notebook", "page", "__dict__"))
    assert tried["attributes"] == ["_key", "aborted", "tool"]
    assert all(type(value) is object for value in tried["slots"])  # a bare token: it holds nothing


def test_the_kit_s_functions_work_only_inside_the_call_whose_context_they_get():
    kept: list[CallContext] = []

    @tool("site_keep", "Keep", read_only=True)
    async def keep(args: Arguments, ctx: CallContext) -> dict:
        """Keep the context for later."""
        kept.append(ctx)
        return {}

    memory, _ = lab()
    call(memory, keep, {})
    try:
        run(read_cells(kept[0]))
    except ToolError as error:
        assert error.code == ErrorCode.INTERNAL_ERROR
    else:
        raise AssertionError("a context was used after its call")


def test_a_site_tool_s_output_schema_comes_from_its_result_type_and_a_plain_dict_still_works():
    written = site_write.output_schema["anyOf"][0]
    assert "cell" in written["properties"] and "status" in written["properties"]

    @tool("site_plain", "Plain", read_only=True)
    async def plain(args: Arguments, ctx: CallContext) -> dict:
        """Return a plain dict."""
        return {"any": "thing"}

    @tool("site_unannotated", "Unannotated", read_only=True)
    async def unannotated(args: Arguments, ctx: Optional[CallContext]):  # type: ignore[no-untyped-def]
        """Return whatever."""
        return {"still": "fine"}

    memory, _ = lab()
    assert call(memory, plain, {}) == {"any": "thing"} and call(memory, unannotated, {}) == {"still": "fine"}
    assert plain.output_schema["anyOf"][0]["type"] == "object"
