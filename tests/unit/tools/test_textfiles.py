"""tools/textfiles.py: jupyter_read_file on a notebook the owner hid reads as a missing file, also when the notebook
is open and hidden only in the page (found by the stress run: its file still said visible, so the call answered IS_NOTEBOOK)."""

from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call_result, cell
from pyodide_webmcp.notebook.access import METADATA_KEY


class SavedEarlier(MemoryLab):
    """The files hold what was saved before the owner hid the notebooks in the page."""

    async def get_entry(self, path, *, content=False):
        entry = await super().get_entry(path, content=content)
        if entry is not None and content:
            entry["content"] = {**entry["content"], "metadata": {}}
        return entry


def text(lab, path):
    return call_result(lab, "jupyter_read_file", {"path": path})["content"][0]["text"]


def test_a_notebook_hidden_in_the_page_reads_as_missing():
    hidden = MemoryNotebook("secret.ipynb", [cell("x = 1")], {METADATA_KEY: {"notebookAccess": "none"}})
    twin = MemoryNotebook("secreq.ipynb", [cell("x = 1")])
    lab = SavedEarlier(hidden, twin)
    seen = text(lab, "secret.ipynb")
    del lab.notebooks["secreq.ipynb"]
    assert seen.replace("secret", "secreq") == text(lab, "secreq.ipynb")
    assert "FILE_NOT_FOUND" in seen
    assert "IS_NOTEBOOK" in text(SavedEarlier(twin), "secreq.ipynb")  # a visible one is still named a notebook
