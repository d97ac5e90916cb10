"""lite_addon.py and site_tools_probe.py: the site build lists a site's own tools in the bridge's manifest."""

import json
import textwrap
import zipfile
from pathlib import Path

import tdqs
from jupyterlite_pyodide_webmcp.lite_addon import lint_report, site_tools
from jupyterlite_pyodide_webmcp.site_tools_probe import entry_points_of, probe
from pyodide_webmcp.kit import Arguments, CallContext, tool


def wheel(folder: Path, name: str, source: str, entry: str | None = None) -> Path:
    path = folder / f"{name}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}.py", textwrap.dedent(source))
        archive.writestr(f"{name}-0.1.dist-info/entry_points.txt", f"[pyodide_webmcp.tools]\nTools = {entry or name}\n")
    return path


GOOD = '''
    from pyodide_webmcp.kit import Arguments, CallContext, tool

    @tool("site_hello", "Say hello", read_only=True)
    async def hello(args: Arguments, ctx: CallContext) -> dict:
        """Say hello; returns a greeting."""
        return {}
'''


def test_the_probe_reads_a_wheel_s_entry_points_and_describes_its_tools_as_the_page_will(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    good = wheel(tmp_path, "site_good_probe", GOOD)
    assert [entry.value for entry in entry_points_of(good)] == ["site_good_probe"]
    taken = wheel(tmp_path, "site_taken_probe", GOOD.replace("site_hello", "jupyter_get_cells"))
    found = probe([good, taken, tmp_path / "missing.whl"])
    assert [tool["name"] for tool in found["tools"]] == ["site_hello"]
    assert found["tools"][0]["annotations"]["readOnlyHint"] is True and "inputSchema" in found["tools"][0]
    assert any("missing.whl" in problem for problem in found["problems"])
    assert any("jupyter_get_cells" in problem for problem in found["problems"])


def test_the_build_lists_nothing_for_a_site_without_tools_and_says_which_wheel_is_missing(tmp_path):
    assert site_tools([], tmp_path) is None
    (tmp_path / "pypi").mkdir()
    wheel(tmp_path / "pypi", "site_listed_probe", GOOD.replace("site_hello", "site_listed"))
    listed = site_tools(["pypi/site_listed_probe-0.1-py3-none-any.whl", "pypi/gone-0.1-py3-none-any.whl"], tmp_path)
    assert [tool["name"] for tool in listed["tools"]] == ["site_listed"]
    assert listed["problems"] == ["pypi/gone-0.1-py3-none-any.whl: not a file of the built site"]
    assert json.loads(json.dumps(listed)) == listed


class Lookup(Arguments):
    table: str
    key: str
    column: str


@tool("site_lookup", "Look a value up", read_only=True)
async def lookup(args: Lookup, ctx: CallContext) -> dict:
    """Look a value up in one of the site's tables; returns the value."""
    return {}


@tool("site_hello", "Say hello", read_only=True)
async def hello(args: Arguments, ctx: CallContext) -> dict:
    """Say hello; returns a greeting."""
    return {}


def descriptors(*tools) -> list[dict]:
    """As the probe gives them to the build."""
    return [{**site.descriptor(), "hints": site.hints} for site in tools]


def test_the_build_prints_what_tdqs_lint_finds_in_the_site_s_tools():
    report = lint_report(descriptors(lookup, hello))
    head, *findings = report.splitlines()
    assert head == "[lite] [webmcp] tdqs lint of the site's tools: 0 errors, 1 warnings, 2 notes (they do not stop the build)"
    assert findings[0].startswith("  warning undocumented-parameters: site_lookup: 0 of 3 parameters")
    assert all(line.startswith("  note no-output-schema: ") for line in findings[1:])
    assert lint_report([]) is None


def test_without_tdqs_or_when_it_fails_the_build_says_so_and_goes_on(monkeypatch):
    def broken(**_):
        raise RuntimeError("a linter bug")

    monkeypatch.setattr(tdqs, "lint_server", broken)
    assert lint_report(descriptors(hello)) == "[lite] [webmcp] tdqs lint of the site's tools failed: a linter bug"
    monkeypatch.setitem(__import__("sys").modules, "tdqs", None)
    assert "pip install tdqs" in lint_report(descriptors(hello))
