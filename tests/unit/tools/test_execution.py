"""tools/execution.py: running cells."""

from tests.unit.memory_lab import MemoryLab, MemoryNotebook, call_result, cell


def test_a_notebook_closed_mid_run_ends_the_call_with_a_clear_code_and_the_results_so_far():
    notebook = MemoryNotebook("closing.ipynb", [cell(f"v = {i}", cell_id=c) for i, c in enumerate("abc")])
    original = notebook.execute_code

    async def closed_during_b(index, cell_id):
        status = await original(index, cell_id)
        if cell_id == "b":
            notebook.is_closed = True
            return "gone"
        return status

    notebook.execute_code = closed_during_b
    envelope = call_result(MemoryLab(notebook), "jupyter_run_cells", {"startIndex": 0, "endIndex": 3})
    error = envelope["structuredContent"]
    assert envelope["isError"] is True and error["error"] == "NOTEBOOK_NOT_FOUND" and error["cellId"] == "b"
    assert "closed while cell b ran" in error["message"]
    assert [result["cellId"] for result in error["results"]] == ["a"]
