"""tools/snippets.py: jupyter_run_code, the owner's opt-in: code run in the notebook's kernel, logged for the human."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell
from pyodide_webmcp.notebook.access import METADATA_KEY


def notebook_lab(*cells: dict) -> MemoryLab:
    return MemoryLab(MemoryNotebook("n.ipynb", list(cells) or [cell("a = 1")]))


def test_run_code_runs_in_the_kernel_logs_it_and_bounds_a_huge_print():
    lab = notebook_lab()
    shown = call(lab, "jupyter_run_code", {"code": "x = 6 * 7\nprint(x)"})
    assert shown["status"] == "ok" and shown["outputs"][0]["text"] == "42\n" and not shown["outputsTruncated"]
    assert lab.notebooks["n.ipynb"].namespace["x"] == 42  # the kernel keeps what the snippet defines
    huge = call(lab, "jupyter_run_code", {"code": "print('y' * 10_000_000)"})
    assert huge["outputsTruncated"] and utf8_len(huge["outputs"][0]["text"]) <= limits.MAX_TEXT_OUTPUT_BYTES
    failed = call(lab, "jupyter_run_code", {"code": "1 / 0"})
    assert failed["status"] == "error" and failed["ename"] == "ZeroDivisionError"
    entries = lab.snippet_log.entries
    assert [entry.status for entry in entries] == ["ok", "ok", "error"]
    assert entries[0].code.startswith("x = 6 * 7") and entries[0].output == "42" and entries[0].notebook_path == "n.ipynb"


def test_run_code_is_refused_where_a_cell_is_hidden_and_on_read_only_notebooks():
    hidden = notebook_lab(cell("a = 1"), cell("secret = 2", **{METADATA_KEY: {"access": "none"}}))
    refused = call(hidden, "jupyter_run_code", {"code": "print(secret)"})
    assert refused["error"] == "NOTEBOOK_ACCESS_DENIED" and refused["detail"] == "HIDDEN_CELLS"
    assert hidden.snippet_log.entries == [] and hidden.notebooks["n.ipynb"].namespace == {}
    read_only = MemoryLab(MemoryNotebook("r.ipynb", [cell("1")], {METADATA_KEY: {"notebookAccess": "read"}}))
    assert call(read_only, "jupyter_run_code", {"code": "1"})["error"] == "NOTEBOOK_ACCESS_DENIED"
    too_long = call(notebook_lab(), "jupyter_run_code", {"code": "#" * (limits.MAX_SNIPPET_BYTES + 1)})
    assert too_long["error"] == "INVALID_ARGUMENT" and too_long["field"] == "code"
