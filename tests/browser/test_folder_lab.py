"""The lab on a folder of the user's computer, read and written in place: the built site served with the
folder's Jupyter Contents API beside it (the desktop command's server, in process), driven as the human
and an agent use it. tests/browser/test_mcp_command.py runs the installed command on a folder."""

import base64
import json
import threading

import nbformat
import pytest
from jupyterlite_pyodide_webmcp.contents_api import FolderAPI
from jupyterlite_pyodide_webmcp.site_server import site_server

from buildkit.paths import SITE
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    READY,
    Lab,
    RequestRecorder,
    require_current_site,
)
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
    lab.share_kernel("work.ipynb")
    lab.call("jupyter_open_notebook", {"path": "work.ipynb"})
    cell = lab.call("jupyter_get_cells")["cells"][0]
    lab.call("jupyter_update_cell", {"cellId": cell["id"], "source": "x = 2", "expectedSourceHash": cell["sourceHash"]})
    saved = lab.call("jupyter_save_notebook")
    assert saved["saved"] is True and saved["dirty"] is False
    book = on_disk(folder / "work.ipynb")
    assert book.cells[0].source == "x = 2" and book.nbformat_minor >= 5


def write_notebook(path, source, cell_id="c"):
    path.write_text(json.dumps(notebook([code_cell(cell_id, source)])))


def test_the_humans_typing_and_ctrl_s_write_the_file(folder_lab, folder):
    lab, _ = folder_lab
    write_notebook(folder / "typed.ipynb", "")
    lab.share_kernel("typed.ipynb")
    lab.call("jupyter_open_notebook", {"path": "typed.ipynb"})
    editor = lab.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .cm-content").first
    editor.click()
    lab.page.keyboard.type("typed = 'by the human'")
    lab.page.keyboard.press("Control+s")
    wait_until(lambda: "by the human" in (folder / "typed.ipynb").read_text(), timeout=30, what="the file saved")
    assert on_disk(folder / "typed.ipynb").cells[0].source == "typed = 'by the human'"


@pytest.mark.parametrize("answer", ["Overwrite", "Revert"])
def test_a_file_changed_on_disk_keeps_both_versions_whichever_button(folder_lab, folder, answer):
    lab, _ = folder_lab
    path = f"conflict-{answer.lower()}.ipynb"
    write_notebook(folder / path, "value = 'original'")
    lab.share_kernel(path)
    lab.call("jupyter_open_notebook", {"path": path})
    cell = lab.call("jupyter_get_cells", {"notebookPath": path})["cells"][0]
    lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": "c", "source": "value = 'in the lab'",
                                     "expectedSourceHash": cell["sourceHash"]})
    write_notebook(folder / path, "value = 'another editor'")  # git checkout, another editor

    pending = lab.call("jupyter_save_notebook", {"notebookPath": path})
    assert pending["status"] == "pending" and pending["dialog"]["title"] == "File Changed"
    result = lab.call("jupyter_answer_dialog", {"button": answer})
    sources = {entry.name: on_disk(entry).cells[0].source for entry in folder.glob(f"conflict-{answer.lower()}*")}
    if answer == "Overwrite":
        assert result["saved"] is True
        assert sources == {path: "value = 'in the lab'",
                           path.replace(".ipynb", ".on-disk.ipynb"): "value = 'another editor'"}
    else:
        assert result["reverted"] is True and result["keptAs"] == path.replace(".ipynb", ".from-lab.ipynb")
        assert sources == {path: "value = 'another editor'", result["keptAs"]: "value = 'in the lab'"}
        assert lab.call("jupyter_get_cells", {"notebookPath": path})["cells"][0]["source"] == "value = 'another editor'"


def test_a_notebook_deleted_on_disk_is_a_clear_error_on_save(folder_lab, folder):
    lab, _ = folder_lab
    write_notebook(folder / "gone.ipynb", "g = 1")
    lab.share_kernel("gone.ipynb")
    lab.call("jupyter_open_notebook", {"path": "gone.ipynb"})
    (folder / "gone.ipynb").unlink()
    error = lab.error("jupyter_save_notebook", {"notebookPath": "gone.ipynb"})
    assert error["error"] == "NOTEBOOK_NOT_FOUND" and "no longer" in error["message"]
    assert not (folder / "gone.ipynb").exists()


def test_the_kernel_reads_and_writes_the_folders_files(folder_lab, folder):
    lab, _ = folder_lab
    source = "print(open('data.csv').read().splitlines()[2])\nopen('written.txt', 'w').write('by the kernel')"
    write_notebook(folder / "reads.ipynb", source, "reads")
    lab.open_with_idle_kernel("reads.ipynb")
    ran = lab.call("jupyter_run_cells", {"notebookPath": "reads.ipynb", "cellIds": ["reads"]})
    assert "3,4" in json.dumps(ran)
    wait_until(lambda: (folder / "written.txt").is_file(), timeout=30, what="the kernel's file on disk")
    assert (folder / "written.txt").read_text() == "by the kernel"


RED_SQUARE = "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP4z8AARwzEcQCukw/x0F8jngAAAABJRU5ErkJggg=="


def test_a_markdown_image_from_the_folder_shows(folder_lab, folder):
    lab, _ = folder_lab
    (folder / "red.png").write_bytes(base64.b64decode(RED_SQUARE))
    markdown = {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "![a red square](red.png)"}
    (folder / "pictures.ipynb").write_text(json.dumps(notebook([markdown])))
    lab.share_kernel("pictures.ipynb")
    lab.call("jupyter_open_notebook", {"path": "pictures.ipynb"})
    shown = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown img')]
        .some(image => image.complete && image.naturalWidth === 4)"""
    wait_until(lambda: lab.page.evaluate(shown), timeout=30, what="the folder's image in the markdown cell")
