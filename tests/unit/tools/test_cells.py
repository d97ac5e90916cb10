"""tools/cells.py: reading cells and notebooks."""

from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell


def test_a_default_read_of_a_long_notebook_says_more_exist():
    notebook = MemoryNotebook("long.ipynb", [cell(f"x = {i}", cell_id=f"c{i}") for i in range(50)])
    lab = MemoryLab(notebook)
    first = call(lab, "jupyter_get_cells", {})
    assert len(first["cells"]) == 20 and first["hasMore"] is True and first["nextStartIndex"] == 20
    assert first["truncated"] is False and first["omittedCount"] == 0  # the reference extension's meaning: cut to the bounds
    last = call(lab, "jupyter_get_cells", {"startIndex": 40})
    assert len(last["cells"]) == 10 and last["hasMore"] is False and "nextStartIndex" not in last
