"""Tool logic of the write path, on a small in-memory notebook standing in for the adapter."""

import asyncio
from concurrent.futures import ThreadPoolExecutor

from pyodide_webmcp.errors import GUIDE, ErrorCode
from pyodide_webmcp.hashing import source_hash
from pyodide_webmcp.registry import REGISTRY, CallContext
from pyodide_webmcp.views import CellRecord


class MemoryNotebook:
    def __init__(self, cells):
        self.path = "memory.ipynb"
        self.dirty = False
        self._cells = [dict(cell) for cell in cells]
        self._active = 0 if cells else None
        self.history = []

    def cells(self):
        return [CellRecord(c["id"], c["cell_type"], c["source"], c.get("access", "write")) for c in self._cells]

    def access(self):
        return "write"

    def record_history(self, cell_id, actor, action, tool=None):
        self.history.append((cell_id, actor, action, tool))

    def cell_json(self, index):
        return self._cells[index]

    def active_index(self):
        return self._active

    def insert_cell(self, index, cell_type, source):
        cell_id = f"new-{len(self._cells)}"
        self._cells.insert(index, {"id": cell_id, "cell_type": cell_type, "source": source, "metadata": {}})
        return cell_id

    def activate_cell(self, index, *, render_markdown):
        self._active = index

    def set_source(self, index, source):
        self._cells[index]["source"] = source


class DirectMode:
    def reviews(self, action):
        return False


class MemoryLab:
    def __init__(self, notebook):
        self.notebook = notebook
        self.proposals = DirectMode()

    def current_notebook(self):
        return self.notebook


def call(lab, name, arguments):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, REGISTRY.get(name).call(arguments, CallContext(lab))).result()


def test_insert_into_an_empty_notebook_appends_whatever_the_reference():
    lab = MemoryLab(MemoryNotebook([]))
    result = call(lab, "jupyter_insert_cell", {"referenceCellId": "missing", "position": "above", "source": "x"})
    assert not result.get("isError"), result
    assert result["structuredContent"]["cell"]["index"] == 0
    assert [c.source for c in lab.notebook.cells()] == ["x"]


def test_insert_without_reference_goes_below_the_active_cell():
    notebook = MemoryNotebook([{"id": "a", "cell_type": "code", "source": "1"}, {"id": "b", "cell_type": "code", "source": "2"}])
    result = call(MemoryLab(notebook), "jupyter_insert_cell", {"cellType": "markdown", "source": "# m"})
    assert result["structuredContent"]["cell"]["index"] == 1
    assert [c.id for c in notebook.cells()] == ["a", "new-2", "b"]


def test_update_checks_the_hash_before_writing():
    notebook = MemoryNotebook([{"id": "a", "cell_type": "code", "source": "old"}])
    stale = call(MemoryLab(notebook), "jupyter_update_cell", {"cellId": "a", "source": "new", "expectedSourceHash": "x"})
    assert stale["structuredContent"]["error"] == "STALE_CELL"
    assert notebook.cells()[0].source == "old"
    fine = call(
        MemoryLab(notebook), "jupyter_update_cell", {"cellId": "a", "source": "new", "expectedSourceHash": source_hash("old")}
    )
    assert fine["structuredContent"]["cell"]["sourceHash"] == source_hash("new") == notebook.cells()[0].source_hash
    assert "source" not in fine["structuredContent"]["cell"]  # the agent has just sent it


def test_a_write_returns_the_source_only_when_asked():
    notebook = MemoryNotebook([{"id": "a", "cell_type": "code", "source": "old"}])
    inserted = call(MemoryLab(notebook), "jupyter_insert_cell", {"referenceCellId": "a", "source": "b = 1"})["structuredContent"]
    assert "source" not in inserted["cell"] and inserted["cell"]["sourceHash"] == source_hash("b = 1")
    arguments = {"cellId": inserted["cell"]["id"], "source": "b = 2", "expectedSourceHash": source_hash("b = 1")}
    updated = call(MemoryLab(notebook), "jupyter_update_cell", {**arguments, "includeSource": True})
    assert updated["structuredContent"]["cell"]["source"] == "b = 2"


def test_stale_preview_is_bounded():
    notebook = MemoryNotebook([{"id": "a", "cell_type": "code", "source": "p" * 5000}])
    stale = call(MemoryLab(notebook), "jupyter_update_cell", {"cellId": "a", "source": "", "expectedSourceHash": "x"})
    assert len(stale["structuredContent"]["currentSourcePreview"]) <= 400


def test_agent_writes_are_recorded_and_guarded_by_access():
    notebook = MemoryNotebook(
        [
            {"id": "a", "cell_type": "code", "source": "1"},
            {"id": "locked", "cell_type": "code", "source": "2", "access": "read"},
            {"id": "secret", "cell_type": "code", "source": "3", "access": "none"},
        ]
    )
    lab = MemoryLab(notebook)
    call(lab, "jupyter_update_cell", {"cellId": "a", "source": "10", "expectedSourceHash": source_hash("1")})
    assert notebook.history == [("a", "agent", "edited", "jupyter_update_cell")]
    denied = call(lab, "jupyter_update_cell", {"cellId": "locked", "source": "x", "expectedSourceHash": source_hash("2")})
    assert denied["structuredContent"] == {
        "error": "CELL_ACCESS_DENIED",
        "message": 'The notebook owner made cell "locked" read-only for agents.',
        "cellId": "locked",
        "access": "read",
        "hint": GUIDE[ErrorCode.CELL_ACCESS_DENIED].hint,
        "retryable": False,
    }
    hidden = call(lab, "jupyter_update_cell", {"cellId": "secret", "source": "x", "expectedSourceHash": source_hash("3")})
    missing = call(lab, "jupyter_update_cell", {"cellId": "nope", "source": "x", "expectedSourceHash": source_hash("3")})
    assert hidden["structuredContent"]["error"] == "CELL_NOT_FOUND"
    assert hidden["content"][0]["text"].replace("secret", "ID") == missing["content"][0]["text"].replace("nope", "ID")
    assert [c.source for c in notebook.cells()] == ["10", "2", "3"]
