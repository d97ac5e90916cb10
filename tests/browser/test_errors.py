"""Every error code the first tools can produce, provoked on purpose."""

import pytest


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open()


def test_no_active_notebook(lab):
    assert lab.call("jupyter_get_context")["notebook"] is None
    for tool in ("jupyter_get_cells", "jupyter_save_notebook"):
        error = lab.error(tool)
        assert error["error"] == "NO_ACTIVE_NOTEBOOK", tool


@pytest.mark.parametrize("path", ["/demo.ipynb", "../demo.ipynb", "analysis\\sample.ipynb", "a/../../demo.ipynb"])
def test_invalid_paths(lab, path):
    for tool, key in (("jupyter_get_cells", "notebookPath"), ("jupyter_open_notebook", "path")):
        error = lab.error(tool, {key: path})
        assert error == {**error, "error": "INVALID_PATH", "path": path}, tool
    listing = lab.error("jupyter_list_workspace", {"path": path})
    assert listing["error"] == "INVALID_PATH"


def test_notebook_not_found(lab):
    for tool, key in (("jupyter_get_cells", "notebookPath"), ("jupyter_open_notebook", "path")):
        error = lab.error(tool, {key: "./missing.ipynb"})
        assert error == {"error": "NOTEBOOK_NOT_FOUND", "message": 'No file exists at "missing.ipynb".', "path": "missing.ipynb"}
        for path in ("analysis/numbers.csv", "analysis"):
            error = lab.error(tool, {key: path})
            assert error == {"error": "NOTEBOOK_NOT_FOUND", "message": f'"{path}" is not a notebook JupyterLab can open.', "path": path}
    assert lab.error("jupyter_list_workspace", {"path": "nowhere"})["error"] == "NOTEBOOK_NOT_FOUND"


def test_listing_a_file_is_an_invalid_path(lab):
    assert lab.error("jupyter_list_workspace", {"path": "demo.ipynb"})["error"] == "INVALID_PATH"


def test_cell_not_found(lab):
    error = lab.error("jupyter_get_cells", {"notebookPath": "demo.ipynb", "cellIds": ["intro", "nope"]})
    assert error["error"] == "CELL_NOT_FOUND" and error["cellId"] == "nope"
    opened = lab.error("jupyter_open_notebook", {"path": "analysis/sample.ipynb", "cellId": "nope"})
    assert opened["error"] == "CELL_NOT_FOUND"


def test_path_exists(lab):
    error = lab.error("jupyter_create_notebook", {"name": "demo"})
    assert error["error"] == "PATH_EXISTS" and error["path"] == "demo.ipynb"


def test_create_in_a_missing_folder_cleans_up(lab):
    error = lab.error("jupyter_create_notebook", {"name": "x", "directory": "no/such/folder"})
    assert error == {
        "error": "INVALID_PATH",
        "message": 'Could not create a notebook at "no/such/folder/x.ipynb".',
        "path": "no/such/folder/x.ipynb",
    }
    names = [entry["name"] for entry in lab.call("jupyter_list_workspace", {"recursive": True})["entries"]]
    assert not any(name.startswith("Untitled") for name in names)


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("jupyter_get_cells", {"startIndex": "0"}, "startIndex"),
        ("jupyter_get_cells", {"cellIds": "intro"}, "cellIds"),
        ("jupyter_get_cells", {"startIndex": 5, "endIndex": 2}, "endIndex"),
        ("jupyter_open_notebook", {}, "path"),
        ("jupyter_open_notebook", {"path": "demo.ipynb", "activate": "yes"}, "activate"),
        ("jupyter_list_workspace", {"limit": 0}, "limit"),
        ("jupyter_list_workspace", {"limit": 101}, "limit"),
        ("jupyter_create_notebook", {"name": "   "}, "name"),
        ("jupyter_create_notebook", {"name": "n" * 300}, "name"),
        ("jupyter_save_notebook", {"path": "demo.ipynb"}, "path"),
    ],
)
def test_invalid_arguments_name_the_field(lab, tool, arguments, field):
    error = lab.error(tool, arguments)
    assert error["error"] == "INVALID_ARGUMENT" and error["field"] == field
    if "Unknown" in error["message"]:
        assert error["accepted"] == ["notebookPath"]


def test_oversized_name_reports_its_bytes(lab):
    error = lab.error("jupyter_create_notebook", {"name": "é" * 200})
    assert error["bytes"] == 400


def test_a_notebook_without_kernelspec_does_not_hang_the_tools(lab):
    bare = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "k", "metadata": {}, "source": "1", "outputs": [], "execution_count": None}
    ]}
    lab.save_file("bare.ipynb", bare)
    pending = lab.call("jupyter_open_notebook", {"path": "bare.ipynb"})  # JupyterLab asks which kernel
    assert pending["status"] == "pending" and pending["dialog"]["title"] == "Select Kernel"
    lab.page.locator(".jp-Dialog-button", has_text="No Kernel").click()  # the human answers it
    opened = lab.call("jupyter_wait_for_result", {"pendingId": pending["pendingId"]})
    assert opened["notebook"]["path"] == "bare.ipynb" and opened["kernel"]["status"] == "unavailable"
    error = lab.error("jupyter_run_cells", {"cellIds": ["k"]})
    assert error["error"] == "KERNEL_UNAVAILABLE"


def test_explicit_nulls_mean_the_defaults(lab):
    lab.call("jupyter_open_notebook", {"path": "demo.ipynb", "cellId": None})
    read = lab.call("jupyter_get_cells", {"notebookPath": None, "cellIds": None, "endIndex": None})
    assert read["notebook"]["path"] == "demo.ipynb" and len(read["cells"]) == 6
    listing = lab.call("jupyter_list_workspace", {"path": None})
    assert listing["path"] == ""
