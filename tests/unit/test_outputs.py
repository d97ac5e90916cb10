"""notebook/outputs.py: cell outputs as agents get them: ANSI-free text, bounded, media described rather than sent."""

import base64

from pyodide_webmcp.base import limits
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.notebook.outputs import (
    html_to_text,
    is_text_like,
    media_size,
    serialize_output,
    serialize_outputs,
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
