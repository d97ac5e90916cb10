"""tools/context.py: opening a notebook and focusing a cell, on the in-memory lab."""

from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell


class FocusingNotebook(MemoryNotebook):
    """Keeps the editor selection each focus asked for: (line, UTF-16 column) pairs."""

    focused = None

    async def focus_cell(self, index, selection):
        await super().focus_cell(index, selection)
        self.focused = selection


def lab():
    notebook = FocusingNotebook("f.ipynb", [cell("a = 1", cell_id="a"), cell("x = 1\ny = 'é' + z", cell_id="b")])
    return notebook, MemoryLab(notebook)


def test_focus_selects_text_of_the_source_and_makes_the_cell_active():
    notebook, focus_lab = lab()
    done = call(focus_lab, "jupyter_focus_cell", {"cellId": "b", "text": "+ z"})
    assert notebook.active == 1 and done["focus"]["activeCellId"] == "b"
    assert notebook.focused == ((1, 8), (1, 11))
    missing = call(focus_lab, "jupyter_focus_cell", {"cellId": "a", "text": "nowhere"})
    assert missing["error"] == "INVALID_ARGUMENT" and missing["field"] == "text" and missing["detail"] == "TEXT_NOT_FOUND"
    assert notebook.active == 1, "a refused focus moves nothing"


def test_focus_still_takes_the_reference_s_cursor_and_selection():
    notebook, focus_lab = lab()
    call(focus_lab, "jupyter_focus_cell", {"cellId": "b", "cursor": {"line": 1, "column": 2}})
    assert notebook.focused == ((1, 2), (1, 2))
    selection = {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": 1}}
    call(focus_lab, "jupyter_focus_cell", {"cellId": "a", "selection": selection})
    assert notebook.focused == ((0, 0), (0, 1)) and notebook.active == 0


def test_open_needs_a_path_and_still_takes_notebook_path_for_it():
    _, open_lab = lab()
    assert call(open_lab, "jupyter_open_notebook", {"notebookPath": "f.ipynb"})["notebook"]["path"] == "f.ipynb"
    assert call(open_lab, "jupyter_open_notebook", {"path": "f.ipynb", "notebookPath": "f.ipynb"})["notebook"]["cellCount"] == 2
    differ = call(open_lab, "jupyter_open_notebook", {"path": "f.ipynb", "notebookPath": "g.ipynb"})
    assert differ["error"] == "INVALID_ARGUMENT" and differ["field"] == "notebookPath"
    missing = call(open_lab, "jupyter_open_notebook", {"cellId": "a"})
    assert missing["error"] == "INVALID_ARGUMENT" and missing["field"] == "path"
