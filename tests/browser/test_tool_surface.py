"""The tools agents use without guessing: paging, Propose mode and kernel state in the open, and the newer operations."""

import base64
import json
import struct

import pytest
from pyodide_webmcp.base.limits import MAX_IMAGE_BYTES, MAX_IMAGE_SIDE_PX
from pyodide_webmcp.notebook.access import METADATA_KEY

from tests.browser.conftest import code_cell, notebook_json, payload
from tests.waiting import wait_until

FOLDER = "surface"
LONG = f"{FOLDER}/fifty.ipynb"
EDIT = f"{FOLDER}/edit.ipynb"
PICTURES = f"{FOLDER}/pictures.ipynb"

SESSIONS = "() => Array.from(window.jupyterapp.serviceManager.sessions.running()).map(s => s.path)"
PANELS = "() => Array.from(window.jupyterapp.shell.widgets('main')).map(w => w.context && w.context.path).filter(Boolean)"

BIG_IMAGE = """
import base64, io, struct, zlib
from IPython.display import Image, SVG, display
def png(width, height):
    rows = (b'\\x00' + (bytes(range(256)) * (width * 3 // 256 + 1))[: width * 3]) * height
    chunk = lambda kind, data: struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
display(Image(png(2400, 1600)))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="red"/></svg>'))
"""


def image_size(item: dict) -> tuple[int, int]:
    data = base64.b64decode(item["data"])
    if item["mimeType"] == "image/png":
        return struct.unpack(">II", data[16:24])
    index = 2
    while index < len(data):  # JPEG: the frame header holds the size
        marker, length = data[index + 1], struct.unpack(">H", data[index + 2 : index + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return width, height
        index += 2 + length
    raise AssertionError("no JPEG frame header")


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.make_directory(FOLDER)
    lab.save_file(LONG, notebook_json([code_cell(f"n{i}", f"value_{i} = {i}") for i in range(50)]))
    hidden = code_cell("secret", "needle_in_hidden = 1")
    hidden["metadata"] = {METADATA_KEY: {"access": "none"}}
    lab.save_file(EDIT, notebook_json([
        code_cell("first", "alpha = 1\nneedle = alpha + 1\nprint(needle)"),
        hidden,
        code_cell("second", "beta = 2\nbeta = 3"),
        {"cell_type": "markdown", "id": "prose", "metadata": {}, "source": "Some *needle* prose"},
    ]))
    return lab


def test_reading_a_notebook_that_is_not_open_opens_nothing_and_starts_no_kernel(lab):
    panels, sessions = lab.page.evaluate(PANELS), lab.page.evaluate(SESSIONS)
    first = lab.call("jupyter_get_cells", {"notebookPath": LONG})
    assert len(first["cells"]) == 20 and first["hasMore"] is True and first["nextStartIndex"] == 20
    assert first["truncated"] is False and first["notebook"]["cellCount"] == 50
    rest = lab.call("jupyter_get_cells", {"notebookPath": LONG, "startIndex": first["nextStartIndex"], "endIndex": 50})
    assert [c["id"] for c in rest["cells"]][-1] == "n49" and rest["hasMore"] is False and "nextStartIndex" not in rest
    lab.call("jupyter_get_cell_access", {"notebookPath": LONG, "cellIds": ["n3"]})
    lab.call("jupyter_export_notebook", {"notebookPath": LONG})
    lab.call("jupyter_list_comments", {"notebookPath": LONG})
    lab.call("jupyter_search_notebook", {"notebookPath": LONG, "query": "value_4"})
    assert lab.page.evaluate(PANELS) == panels and lab.page.evaluate(SESSIONS) == sessions


def test_listings_page_the_same_way(lab):
    first = lab.call("jupyter_list_workspace", {"path": FOLDER, "limit": 1})
    assert len(first["entries"]) == 1 and first["hasMore"] is True and first["nextOffset"] == 1
    second = lab.call("jupyter_list_workspace", {"path": FOLDER, "limit": 1, "offset": 1})
    assert second["entries"][0]["path"] != first["entries"][0]["path"]
    for body in ("one", "two", "three"):
        lab.call("jupyter_create_comment", {"notebookPath": EDIT, "anchor": {"kind": "cell", "cellId": "second"}, "message": body})
    page = lab.call("jupyter_list_comments", {"notebookPath": EDIT, "limit": 2})
    assert [t["lastMessage"]["body"] for t in page["threads"]] == ["three", "two"] and page["nextOffset"] == 2
    more = lab.call("jupyter_list_comments", {"notebookPath": EDIT, "limit": 2, "offset": 2})
    assert [t["lastMessage"]["body"] for t in more["threads"]] == ["one"] and more["hasMore"] is False


def test_search_finds_what_the_agent_may_see_and_nothing_else(lab):
    found = lab.call("jupyter_search_notebook", {"notebookPath": EDIT, "query": "needle"})
    assert [(m["cellId"], m["line"], m["column"]) for m in found["matches"]] == [
        ("first", 1, 0), ("first", 2, 6), ("prose", 0, 6),
    ]
    assert found["matchCount"] == 3 and found["hiddenCellCount"] == 1 and "secret" not in json.dumps(found)
    regex = lab.call("jupyter_search_notebook", {"notebookPath": EDIT, "query": r"beta = \d", "regex": True, "limit": 1})
    assert regex["matchCount"] == 2 and len(regex["matches"]) == 1 and regex["nextOffset"] == 1
    refused = lab.error("jupyter_search_notebook", {"notebookPath": EDIT, "query": "(b+)+x", "regex": True})
    assert refused["error"] == "INVALID_ARGUMENT" and refused["field"] == "query"


def test_replace_one_piece_of_a_cell(lab):
    cell = lab.call("jupyter_get_cells", {"notebookPath": EDIT, "cellIds": ["second"]})["cells"][0]
    twice = lab.error("jupyter_replace_in_cell", {"notebookPath": EDIT, "cellId": "second", "expectedSourceHash": cell["sourceHash"],
                                                  "old": "beta = ", "new": "gamma = "})
    assert twice["detail"] == "TEXT_NOT_UNIQUE" and twice["occurrences"] == 2
    done = lab.call("jupyter_replace_in_cell", {"notebookPath": EDIT, "cellId": "second", "expectedSourceHash": cell["sourceHash"],
                                                "old": "beta = 3", "new": "beta = 30"})
    assert lab.live_cells(EDIT)[2]["source"] == "beta = 2\nbeta = 30"
    assert "source" not in done["cell"] and done["cell"]["sourceHash"] != cell["sourceHash"]
    stale = lab.error("jupyter_replace_in_cell", {"notebookPath": EDIT, "cellId": "second", "expectedSourceHash": cell["sourceHash"],
                                                  "old": "beta = 2", "new": "x"})
    assert stale["error"] == "STALE_CELL"
    history = lab.call("jupyter_get_cell_access", {"notebookPath": EDIT, "cellIds": ["second"]})["cells"][0]["history"]
    assert history[-1]["tool"] == "jupyter_replace_in_cell" and history[-1]["actor"] == "agent"


def test_move_retype_and_clear_a_cell(lab):
    lab.open_with_idle_kernel(EDIT)
    lab.call("jupyter_run_cells", {"notebookPath": EDIT, "cellIds": ["first"]})
    cell = lab.call("jupyter_get_cells", {"notebookPath": EDIT, "cellIds": ["first"], "includeOutputs": True})["cells"][0]
    assert cell["outputs"]
    moved = lab.call("jupyter_move_cell", {"notebookPath": EDIT, "cellId": "first", "referenceCellId": "prose"})
    assert [c["id"] for c in lab.live_cells(EDIT)][-1] == "first" and moved["cell"]["index"] == 3
    assert lab.call("jupyter_clear_outputs", {"notebookPath": EDIT, "cellIds": ["first"]})["clearedCellIds"] == ["first"]
    cleared = lab.call("jupyter_get_cells", {"notebookPath": EDIT, "cellIds": ["first"], "includeOutputs": True})["cells"][0]
    assert cleared["outputs"] == [] and "executionCount" not in cleared
    lab.call("jupyter_move_cell", {"notebookPath": EDIT, "cellId": "first", "referenceCellId": "second",
                                   "position": "above", "expectedSourceHash": cell["sourceHash"]})
    retyped = lab.call("jupyter_update_cell", {"notebookPath": EDIT, "cellId": "first", "source": cell["source"],
                                               "expectedSourceHash": cell["sourceHash"], "cellType": "markdown"})
    live = lab.live_cells(EDIT)
    assert retyped["cell"] == {**retyped["cell"], "id": "first", "type": "markdown"}
    assert [c["id"] for c in live] == ["secret", "first", "second", "prose"] and live[1]["type"] == "markdown"
    assert live[1]["source"] == "alpha = 1\nneedle = alpha + 1\nprint(needle)"


def test_read_a_text_file_but_never_a_notebook(lab):
    csv = lab.call("jupyter_read_file", {"path": "analysis/numbers.csv", "limit": 2})
    assert len(csv["lines"]) == 2 and csv["offset"] == 0 and csv["lineCount"] >= 2 and csv["nextOffset"] == 2
    notebook = lab.error("jupyter_read_file", {"path": EDIT})
    assert notebook["error"] == "INVALID_PATH" and notebook["detail"] == "IS_NOTEBOOK"
    hidden = notebook_json([code_cell("h", "x = 1")])
    hidden["metadata"][METADATA_KEY] = {"notebookAccess": "none"}
    lab.save_file(f"{FOLDER}/hidden.ipynb", hidden)
    seen = lab.error("jupyter_read_file", {"path": f"{FOLDER}/hidden.ipynb"})
    missing = lab.error("jupyter_read_file", {"path": f"{FOLDER}/hiddex.ipynb"})
    assert json.dumps(seen).replace("hidden", "hiddex") == json.dumps(missing)
    assert lab.error("jupyter_read_file", {"path": FOLDER})["detail"] == "IS_DIRECTORY"


def test_context_shows_propose_mode_and_a_kernel_can_be_started(lab):
    assert "proposeMode" not in lab.call("jupyter_get_context")
    lab.switch("propose-toggle", True)
    lab.switch("review-run", True)
    try:
        assert lab.call("jupyter_get_context")["proposeMode"] == {"on": True, "reviewed": ["run", "update"]}
    finally:
        lab.switch("review-run", False)
        lab.switch("propose-toggle", False)
    lab.call("jupyter_open_notebook", {"notebookPath": EDIT})
    lab.page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "unavailable", timeout=30)
    unavailable = payload(lab.call_raw("jupyter_run_cells", {"cellIds": ["second"]}))
    assert unavailable["error"] == "KERNEL_UNAVAILABLE" and unavailable["retryable"] is True
    assert "jupyter_start_kernel" in unavailable["hint"]
    started = lab.call("jupyter_start_kernel")
    assert started["kernel"]["name"] == "python"
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "idle", timeout=120)
    assert lab.call("jupyter_run_cells", {"cellIds": ["second"]})["status"] == "ok"


def test_output_images_come_back_as_image_content_within_the_budget(lab):
    lab.save_file(PICTURES, notebook_json([code_cell("pics", BIG_IMAGE)]))
    lab.share_kernel(PICTURES)
    lab.open_with_idle_kernel(PICTURES)
    lab.call("jupyter_run_cells", {"notebookPath": PICTURES, "cellIds": ["pics"]})
    plain = lab.call_raw("jupyter_get_cells", {"notebookPath": PICTURES, "includeOutputs": True})
    assert len(plain["content"]) == 1
    result = lab.call_raw("jupyter_get_cells", {"notebookPath": PICTURES, "includeImages": True})
    images = result["content"][1:]
    assert [item["type"] for item in images] == ["image", "image"]
    for item in images:
        width, height = image_size(item)
        assert max(width, height) <= MAX_IMAGE_SIDE_PX and len(base64.b64decode(item["data"])) <= MAX_IMAGE_BYTES
    assert image_size(images[0])[0] == MAX_IMAGE_SIDE_PX  # 2400 x 1600 scaled to fit
    media = [m for o in json.loads(result["content"][0]["text"])["cells"][0]["outputs"] for m in o.get("media", [])]
    assert [(m["included"], m.get("contentIndex")) for m in media if m["mimeType"].startswith("image/")] == [
        (True, 1), (True, 2),
    ]
