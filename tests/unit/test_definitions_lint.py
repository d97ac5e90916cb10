"""The tool definitions as a model gets them, checked by Glama's tool definition linter (`tdqs lint`, the
reference implementation of TDQS, pinned in constraints.txt): the WebMCP list the page registers and the
tools/list the desktop MCP server sends, each with no error and no warning, every rule on."""

import io
import json
from pathlib import Path

import pytest
from pyodide_webmcp.tools import BUILT_IN
from tdqs.cli.run_cli import run_cli
from tdqs.package_version import PACKAGE_VERSION

from tests.unit.desktop.test_mcp_server import built_catalog, listed_by_the_server

ROOT = Path(__file__).resolve().parents[2]


def page_list() -> list[dict]:
    """What the page registers with WebMCP by default, as a client lists it (no opt-in tool)."""
    return [{"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
             "annotations": tool.annotations} for tool in BUILT_IN if tool.setting is None]


def test_the_linter_is_the_pinned_one():
    pinned = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if line.startswith("tdqs==")]
    assert pinned == [f"tdqs=={PACKAGE_VERSION}"]


@pytest.mark.parametrize("listed", ["page", "mcp"])
def test_tdqs_lint_fails_on_no_warning(listed, tmp_path):
    tools = page_list() if listed == "page" else listed_by_the_server(built_catalog())
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": tools}))
    report, errors = io.StringIO(), io.StringIO()
    code = run_cli(argv=["lint", "--file", str(path), "--server-name", listed, "--fail-on", "warning"],
                   env={}, stderr=errors, stdout=report)
    assert code == 0, report.getvalue() + errors.getvalue()
    assert f"{len(tools)} tools" in report.getvalue() and "\n0 errors, 0 warnings, " in report.getvalue()
