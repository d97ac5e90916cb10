"""owner/site_tools.py: a site's own tools, the tools their entry points export, and what the status says of them."""

import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from pyodide_webmcp.owner.site_tools import (
    ENTRY_POINT_GROUP,
    load_tools,
    status_note,
    wheel_url,
)
from pyodide_webmcp.tools import BUILT_IN

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://example.org/course/"


def site_file(path: str) -> str:
    from urllib.parse import urljoin

    return urljoin(SITE, path)


def test_a_wheel_is_a_file_of_the_site():
    assert wheel_url("pypi/course_tools-0.1.0-py3-none-any.whl", site_file) == \
        "https://example.org/course/pypi/course_tools-0.1.0-py3-none-any.whl"
    for outside in ("https://elsewhere.org/x-0.1-py3-none-any.whl", "../other/x-0.1-py3-none-any.whl",
                    "//elsewhere.org/x-0.1-py3-none-any.whl", "pypi/notes.txt"):
        with pytest.raises(ValueError):
            wheel_url(outside, site_file)


MODULES = {
    "site_good": '''
        from pyodide_webmcp.kit import Arguments, CallContext, tool

        @tool("site_good_hello", "Say hello", read_only=True)
        async def hello(args: Arguments, ctx: CallContext) -> dict:
            """Say hello; returns a greeting."""
            return {"greeting": "hello"}
    ''',
    "site_broken": "raise RuntimeError('this module does not import')",
    "site_taken": '''
        from pyodide_webmcp.kit import Arguments, CallContext, tool

        @tool("jupyter_site_cells", "Pretend", read_only=True)
        async def pretend(args: Arguments, ctx: CallContext) -> dict:
            """Pretend to be the bridge; returns nothing."""
            return {}
    ''',
}


MODULES["site_listed"] = '''
    from pyodide_webmcp.kit import Arguments, CallContext, tool

    @tool("site_listed_one", "One", read_only=True)
    async def one(args: Arguments, ctx: CallContext) -> dict:
        """One; returns nothing."""
        return {}

    TOOLS = [one]
'''
MODULES["site_empty"] = "VALUE = 1\n"


@pytest.fixture
def site_modules(tmp_path, monkeypatch):
    for name, source in MODULES.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield {name: EntryPoint(name, name, ENTRY_POINT_GROUP) for name in MODULES}
    for name in MODULES:
        sys.modules.pop(name, None)


def test_the_tools_an_entry_point_exports_are_taken_and_problems_reported_one_by_one(site_modules):
    found = [site_modules[name] for name in ("site_good", "site_broken", "site_taken", "site_empty")]
    found.append(EntryPoint("listed", "site_listed:TOOLS", ENTRY_POINT_GROUP))
    loaded = load_tools(BUILT_IN.known(), found)
    assert [tool.name for tool in loaded.tools] == ["site_good_hello", "site_listed_one"]
    assert loaded.problems[0] == "site_broken: RuntimeError: this module does not import"
    assert "jupyter_site_cells: names beginning jupyter_ are the bridge's own" in loaded.problems[1]
    assert loaded.problems[2] == "site_empty: defines no tool (pyodide_webmcp.kit.tool)"
    assert "jupyter_site_cells" not in BUILT_IN.known() and "site_good_hello" not in BUILT_IN.known()
    note = status_note(loaded, ["pypi/bad-0.1-py3-none-any.whl: BadZipFile: not a zip"])
    assert note.startswith("site tools: site_good_hello, site_listed_one; site tools failed: pypi/bad-0.1")


def test_a_name_already_served_cannot_be_taken_again(site_modules):
    loaded = load_tools({"site_good_hello"}, [site_modules["site_good"]])
    assert loaded.tools == () and "a tool of that name is already served" in loaded.problems[0]
    twice = load_tools(set(), [site_modules["site_good"], EntryPoint("again", "site_good", ENTRY_POINT_GROUP)])
    assert [tool.name for tool in twice.tools] == ["site_good_hello"] and len(twice.problems) == 1


def test_importing_a_site_module_registers_nothing_anywhere(site_modules):
    before = BUILT_IN.known()
    load_tools(BUILT_IN.known(), [site_modules["site_good"]])
    assert BUILT_IN.known() == before


def test_nothing_found_says_nothing():
    assert status_note(load_tools(BUILT_IN.known(), ())) == ""


def test_the_example_packages_own_tests_pass():
    """examples/owner-tools, tested on CPython with the in-memory lab as its README says."""
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                            cwd=ROOT / "examples" / "owner-tools", capture_output=True, text=True,
                            env={"PYTHONPATH": f"{ROOT / 'py'}:{ROOT / 'examples' / 'owner-tools'}", "PATH": ""})
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
