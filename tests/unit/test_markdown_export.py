"""notebook/markdown_export.py: a notebook as Markdown: fences that hold, hidden cells left out, bounded."""

import json

from pyodide_webmcp.base import limits
from pyodide_webmcp.notebook.markdown_export import export_markdown, fence_for
from pyodide_webmcp.port import CellRecord


def code(cell_id, source, outputs=(), access="write"):
    return CellRecord(cell_id, "code", source, access), {"outputs": list(outputs)}


def test_fences_outgrow_any_backtick_run():
    assert fence_for("plain") == "```"
    assert fence_for("a ``` b") == "````"
    assert fence_for("`````") == "``````"


def test_nasty_notebook_exports_cleanly():
    cells = [
        (CellRecord("m", "markdown", "# Title\n\nSome ```inline``` text"), {}),
        code("c", "print('```')\nx = 1", [
            {"output_type": "stream", "name": "stdout", "text": "\x1b[31m```red```\x1b[0m\n"},
            {"output_type": "display_data", "data": {"image/png": "AAAA", "text/plain": "<Figure>"}},
            {"output_type": "error", "ename": "E", "evalue": "v", "traceback": ["\x1b[1mTrace\x1b[0m"]},
        ]),
        code("h", "secret = 42", [{"output_type": "stream", "name": "stdout", "text": "hidden output"}], access="none"),
        (CellRecord("r", "raw", "raw text"), {}),
    ]
    document, truncated, count, hidden = export_markdown(cells, include_outputs=True)
    assert not truncated and count == 3 and hidden == 1
    assert document.startswith("# Title\n\nSome ```inline``` text\n\n````python\nprint('```')\nx = 1\n````")
    assert "````\n```red```\n````" in document
    assert "![output](image/png, 3 bytes — not included)" in document
    assert "AAAA" not in document and "\x1b" not in document
    assert "secret" not in document and "hidden output" not in document
    assert "```\nraw text\n```" in document
    without = export_markdown(cells, include_outputs=False)[0]
    assert "red" not in without and "image/png" not in without


def test_bounds_by_escaped_size_and_cell_count():
    big = [code(str(i), "\n".join(['"q"'] * 400)) for i in range(30)]
    document, truncated, count, _ = export_markdown(big, True)
    assert truncated and 0 < count < 30
    assert len(json.dumps(document).encode()) - 2 <= limits.MAX_EXPORT_BYTES
    many = [code(str(i), "1") for i in range(limits.MAX_EXPORT_CELLS + 5)]
    document, truncated, count, _ = export_markdown(many, False)
    assert truncated and count == limits.MAX_EXPORT_CELLS
