import base64

from pyodide_webmcp import limits
from pyodide_webmcp.hashing import source_hash
from pyodide_webmcp.outputs import (
    html_to_text,
    is_text_like,
    media_size,
    serialize_output,
    serialize_outputs,
)
from pyodide_webmcp.positions import utf16_to_index
from pyodide_webmcp.text import utf8_len
from pyodide_webmcp.views import (
    CellRecord,
    EditorState,
    cell_snapshot,
    focus_context,
    notebook_info,
)


def test_stream_output_is_ansi_free_and_bounded():
    output = {"output_type": "stream", "name": "stderr", "text": ["\x1b[31mwarn\x1b[0m\n", "y" * 20_000]}
    result = serialize_output(output)
    assert result["name"] == "stderr"
    assert result["text"].startswith("warn\n")
    assert utf8_len(result["text"]) <= limits.MAX_TEXT_OUTPUT_BYTES
    assert result["truncated"] is True


def test_error_output_fields_have_their_own_bounds():
    result = serialize_output(
        {"output_type": "error", "ename": "E" * 1000, "evalue": "v", "traceback": ["\x1b[1mline1\x1b[0m", "line2"]}
    )
    assert utf8_len(result["ename"]) <= limits.MAX_ENAME_BYTES
    assert result["evalue"] == "v"
    assert result["traceback"] == "line1\nline2"
    assert result["truncated"] is True


def test_rich_bundle_splits_text_html_text_data_and_media():
    png = base64.b64encode(b"\x89PNG" + b"\x00" * 96).decode()
    result = serialize_output(
        {
            "output_type": "execute_result",
            "execution_count": 7,
            "data": {
                "text/plain": "Figure",
                "text/html": "<div><script>alert(1)</script><b>bold</b> &amp; text</div>",
                "text/markdown": "# title",
                "application/json": {"a": 1},
                "image/png": png,
                "image/svg+xml": "<svg></svg>",
                "application/pdf": "JVBERi0=",
            },
        }
    )
    assert result["executionCount"] == 7
    assert result["text"] == "Figure"
    assert result["html"] == "bold & text"
    assert [entry["mimeType"] for entry in result["textData"]] == ["text/markdown", "application/json"]
    assert result["textData"][1]["text"] == '{"a": 1}'
    media = {entry["mimeType"]: entry for entry in result["media"]}
    assert media["image/png"] == {"mimeType": "image/png", "bytes": 100, "included": False}
    assert media["image/svg+xml"]["bytes"] == len("<svg></svg>")
    assert "application/pdf" in media
    assert "truncated" not in result
    assert png not in str(result)


def test_text_data_entries_share_one_budget():
    data = {f"text/x-{i}": "z" * 6000 for i in range(3)}
    result = serialize_output({"output_type": "display_data", "data": data})
    total = sum(utf8_len(entry["text"]) for entry in result["textData"])
    assert total <= limits.MAX_TEXT_DATA_BYTES
    assert result["truncated"] is True
    assert len(result["textData"]) < 3


def test_html_is_bounded_to_half_the_text_bound():
    result = serialize_output({"output_type": "display_data", "data": {"text/html": "<p>" + "w " * 20_000 + "</p>"}})
    assert utf8_len(result["html"]) <= limits.MAX_HTML_OUTPUT_BYTES


def test_outputs_per_cell_are_capped():
    outputs = [{"output_type": "stream", "name": "stdout", "text": str(i)} for i in range(15)]
    kept, cut = serialize_outputs(outputs)
    assert len(kept) == limits.MAX_OUTPUTS_PER_CELL and cut


def test_mime_classification():
    assert is_text_like("text/latex") and is_text_like("application/vnd.foo+json")
    assert is_text_like("application/x-latex") and is_text_like("application/javascript")
    assert not is_text_like("image/svg+xml") and not is_text_like("application/octet-stream")
    assert media_size("AAAA") == 3
    assert html_to_text("<style>p{}</style><p>a</p>\n<p>b</p>") == "a b"


def test_cell_snapshot_bounds_source_and_marks_its_hash_partial():
    source = "s" * (limits.MAX_CELL_SOURCE_BYTES + 10)
    snapshot = cell_snapshot({"id": "c1", "cell_type": "code", "source": source, "outputs": [], "metadata": {}}, 3)
    assert snapshot["sourceTruncated"] is True and snapshot["nextSourceOffset"] == limits.MAX_CELL_SOURCE_BYTES
    assert snapshot["source"] == "s" * limits.MAX_CELL_SOURCE_BYTES  # cut without a mark: pages join exactly
    assert snapshot["sourceHash"] == source_hash(source) + ":part"
    unread = cell_snapshot({"id": "c1", "cell_type": "code", "source": source, "metadata": {}}, 3, include_source=False)
    assert unread["sourceHash"] == source_hash(source)  # nothing shown, nothing to build a write on
    assert snapshot["index"] == 3 and "outputs" not in snapshot and "metadata" not in snapshot


def test_cell_snapshot_options_and_metadata_rule():
    cell = {
        "id": "m",
        "cell_type": "markdown",
        "source": ["a", "b"],
        "metadata": {"tags": ["x"]},
    }
    snapshot = cell_snapshot(cell, 0, include_source=False, include_outputs=True)
    assert "source" not in snapshot and snapshot["sourceHash"] == source_hash("ab")
    assert snapshot["metadata"] == {"tags": ["x"]}
    assert "executionCount" not in snapshot
    big = cell_snapshot({**cell, "metadata": {"k": "v" * 600}}, 0)
    assert "metadata" not in big


def test_notebook_info_counts_and_revision():
    cells = [CellRecord("a", "code", "1"), CellRecord("b", "markdown", "2")]
    info = notebook_info("dir/n.ipynb", True, cells)
    assert info["name"] == "n.ipynb" and info["cellCount"] == 2 and info["dirty"] is True
    changed = notebook_info("dir/n.ipynb", True, [cells[0], CellRecord("b", "markdown", "3")])
    assert changed["revision"] != info["revision"]


def test_utf16_columns_become_character_indexes():
    assert utf16_to_index("a😀b", 0) == 0
    assert utf16_to_index("a😀b", 3) == 2
    assert utf16_to_index("a😀b", 4) == 3
    assert utf16_to_index("ab", 10) == 2


def test_focus_context_reports_selection_text():
    cells = [CellRecord("a", "code", "x = 1\ny = 😀 + 2"), CellRecord("b", "code", "")]
    focus = focus_context(cells, 0, [0, 1], EditorState(cursor=(1, 8), selection_start=(1, 4), selection_end=(1, 8)))
    assert focus["activeCellId"] == "a" and focus["selectedCellIds"] == ["a", "b"]
    assert focus["cursor"] == {"line": 1, "column": 7}
    assert focus["textSelection"]["text"] == "😀 +"
    empty = focus_context(cells, 0, [0], EditorState(cursor=(0, 1), selection_start=(0, 1), selection_end=(0, 1)))
    assert empty["textSelection"] is None
    none = focus_context(cells, None, [], None)
    assert none["activeCellId"] is None and none["cursor"] is None


def test_selected_text_is_bounded():
    source = "q" * 10_000
    focus = focus_context([CellRecord("a", "code", source)], 0, [0], EditorState((0, 0), (0, 0), (0, 10_000)))
    assert focus["textSelection"]["truncated"] is True
    assert utf8_len(focus["textSelection"]["text"]) <= limits.MAX_SELECTED_TEXT_BYTES


def test_a_cell_list_derives_revision_and_hidden_ids_like_a_plain_list():
    from pyodide_webmcp.hashing import revision
    from pyodide_webmcp.views import CellList

    records = [CellRecord("a", "code", "x = 1"), CellRecord("h", "code", "secret", "none"),
               CellRecord("b", "markdown", "# t", "read")]
    cells = CellList(records)
    expected = revision((r.id, r.type, r.source_hash) for r in records if not r.hidden)
    assert cells.revision == expected == notebook_info("n.ipynb", False, records)["revision"]
    assert notebook_info("n.ipynb", False, cells)["revision"] == expected
    assert cells.hidden_ids == {"h"}
    assert CellList(records[:1]).revision != expected  # a different list, a different token
