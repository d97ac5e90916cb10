from pathlib import Path

from docs.reference import render_reference

TOOL_DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def test_committed_tool_reference_is_current():
    assert TOOL_DOCS.read_text() == render_reference(), "docs/tools.md is stale: run python3 build.py docs"


def test_reference_covers_every_tool_and_code():
    from pyodide_webmcp.errors import ErrorCode
    from pyodide_webmcp.registry import REGISTRY

    text = render_reference()
    for tool in REGISTRY:
        assert f"## `{tool.name}`" in text
    for code in ErrorCode:
        assert f"`{code.value}`" in text
