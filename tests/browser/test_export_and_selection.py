"""Export of a nasty notebook, and the human's selection inside an output."""

import pytest
from pyodide_webmcp.notebook.access import METADATA_KEY

from tests.browser.conftest import code_cell, notebook_json, payload
from tests.waiting import wait_until

PATH = "nasty.ipynb"


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    hidden = code_cell("hidden", "password = 'hunter2'")
    hidden["metadata"] = {METADATA_KEY: {"access": "none"}}
    fenced = code_cell("fences", "print('``` not a fence end')")
    fenced["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": "\x1b[32m```green```\x1b[0m\n"},
        {"output_type": "display_data", "metadata": {}, "data": {"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}},
    ]
    lab.save_file(
        PATH,
        notebook_json(
            [
                {"cell_type": "markdown", "id": "md", "metadata": {}, "source": "# Report\n\nUses ```` in prose."},
                fenced,
                hidden,
                code_cell("words", "print('alpha beta gamma')"),
                code_cell("other", "print('delta epsilon')"),
            ]
        ),
    )
    lab.open_with_idle_kernel(PATH)
    return lab


def test_export_is_safe_markdown_of_the_live_notebook(lab):
    lab.call("jupyter_save_notebook")
    result = lab.call("jupyter_export_notebook")
    document = result["document"]
    assert result["notebookPath"] == PATH and result["hiddenCellCount"] == 1 and result["truncated"] is False
    assert document.startswith("# Report\n\nUses ```` in prose.\n\n````python\nprint('``` not a fence end')\n````")
    assert "````\n```green```\n````" in document and "\x1b" not in document
    assert "![output](image/png, 8 bytes — not included)" in document and "iVBOR" not in document
    assert "hunter2" not in document and "password" not in document
    assert lab.call("jupyter_get_context")["notebook"]["dirty"] is False
    bare = lab.call("jupyter_export_notebook", {"includeOutputs": False})["document"]
    assert "green" not in bare
    assert lab.error("jupyter_export_notebook", {"format": "html"})["field"] == "format"


def output_node(lab, cell_index):
    return lab.page.locator(".jp-Notebook .jp-Cell").nth(cell_index).locator(".jp-OutputArea-output").first


def test_a_word_selected_with_the_mouse_is_read_until_the_output_changes(lab):
    lab.call("jupyter_run_cells", {"cellIds": ["words", "other"]})
    nothing = lab.call_raw("jupyter_get_output_selection")
    assert nothing == {"content": [{"type": "text", "text": "null"}]}
    output = output_node(lab, 3)
    box = output.bounding_box()
    lab.page.mouse.dblclick(box["x"] + 8, box["y"] + box["height"] / 2)
    selection = wait_until(lambda: payload(lab.call_raw("jupyter_get_output_selection")), timeout=5)
    assert selection == {**selection, "cellId": "words", "outputIndex": 0, "text": "alpha", "range": {"start": 0, "end": 5}}

    other = output_node(lab, 4).bounding_box()
    lab.page.mouse.move(box["x"] + 100, box["y"] + box["height"] / 2)  # not on the selected word: a new selection
    lab.page.mouse.down()
    lab.page.mouse.move(other["x"] + 40, other["y"] + other["height"] / 2, steps=5)
    lab.page.mouse.up()
    spans = lab.page.evaluate("() => window.getSelection().toString()")
    assert "amma" in spans and "delta" in spans  # the page selection really crosses two cells
    wait_until(lambda: payload(lab.call_raw("jupyter_get_output_selection")) is None, timeout=5)

    lab.page.mouse.dblclick(box["x"] + 8, box["y"] + box["height"] / 2)
    wait_until(lambda: payload(lab.call_raw("jupyter_get_output_selection")), timeout=5)
    set_access = """([index, access]) => window.jupyterapp.shell.currentWidget.content.model.sharedModel
        .cells[index].setMetadata('jupyterlite_webmcp', {access})"""
    lab.page.evaluate(set_access, [3, "none"])
    assert lab.call_raw("jupyter_get_output_selection")["content"][0]["text"] == "null"
    lab.page.evaluate(set_access, [3, "read"])  # read-only cells may be read
    assert payload(lab.call_raw("jupyter_get_output_selection"))["text"] == "alpha"
    lab.page.evaluate(set_access, [3, "write"])
    lab.set_source(PATH, 3, "print('omega beta gamma')")
    lab.call("jupyter_run_cells", {"cellIds": ["words"]})
    assert payload(lab.call_raw("jupyter_get_output_selection")) is None
