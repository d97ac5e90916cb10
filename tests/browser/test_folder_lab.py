"""The lab on a folder of the user's computer, read and written in place: the built site served with the
folder's Jupyter Contents API beside it (the desktop command's server, in process), driven as the human
and an agent use it. tests/browser/test_mcp_command.py runs the installed command on a folder."""

import json
import threading

import nbformat
import pytest
from jupyterlite_pyodide_webmcp.contents_api import FolderAPI
from jupyterlite_pyodide_webmcp.site_server import site_server

from buildkit.paths import SITE
from tests.browser.conftest import BOOT_TIMEOUT_MS, READY, Lab, RequestRecorder, require_current_site
from tests.hostclients import code_cell, notebook
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("notebooks")
    (root / "work.ipynb").write_text(json.dumps(notebook([code_cell("first", "x = 1")])))
    (root / "data.csv").write_text("a,b\n1,2\n3,4\n")
    return root


@pytest.fixture(scope="module")
def folder_lab(browser, folder):
    require_current_site()
    api = FolderAPI(folder)
    server = site_server(0, SITE, folder=api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    context = browser.new_context()
    recorder = RequestRecorder(origin)
    context.on("request", recorder.record)
    page = context.new_page()
    page.goto(f"{origin}/lab/index.html{api.lab_fragment()}")
    page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
    yield Lab(page, origin), api
    context.close()
    server.shutdown()
    assert recorder.foreign() == []


def on_disk(path):
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    return book


def test_the_workspace_is_the_folder(folder_lab, folder):
    lab, _ = folder_lab
    listed = lab.call("jupyter_list_workspace")
    print(listed)
    assert {"work.ipynb", "data.csv"} <= {entry["path"] for entry in listed["entries"]}
    (folder / "later.ipynb").write_text(json.dumps(notebook([code_cell("later", "y = 2")])))
    listed = lab.call("jupyter_list_workspace")
    assert "later.ipynb" in {entry["path"] for entry in listed["entries"]}


def test_an_agent_save_writes_the_file(folder_lab, folder):
    lab, _ = folder_lab
    lab.call("jupyter_open_notebook", {"path": "work.ipynb"})
    cell = lab.call("jupyter_get_cells")["cells"][0]
    lab.call("jupyter_update_cell", {"cellId": cell["id"], "source": "x = 2", "expectedSourceHash": cell["sourceHash"]})
    saved = lab.call("jupyter_save_notebook")
    assert saved["saved"] is True and saved["dirty"] is False
    book = on_disk(folder / "work.ipynb")
    assert book.cells[0].source == "x = 2" and book.nbformat_minor >= 5
