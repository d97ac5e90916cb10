"""calls/catalog.py and calls/prelisted.py: the tools by name, and what the page knows of every tool before the tool's code is
imported."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from pyodide_webmcp.calls.catalog import (
    Toolbox,
    catalog_of,
    load_catalog,
    prelisted_copy,
    to_data,
)
from pyodide_webmcp.tools import BUILT_IN

ROOT = Path(__file__).resolve().parents[2]


def test_the_catalog_lists_every_tool_its_module_exports():
    catalog = catalog_of(BUILT_IN)
    assert [entry.name for entry in catalog.entries] == [tool.name for tool in BUILT_IN]
    for entry in catalog.entries:
        tool = BUILT_IN.get(entry.name)
        assert entry.descriptor == tool.descriptor() and entry.setting == tool.setting and entry.hints == tool.hints
        assert entry.module == tool.module and entry.module.startswith("pyodide_webmcp.tools.")
    prelisted = prelisted_copy(catalog)
    assert prelisted["digest"] == catalog.digest
    assert [tool.pop("setting") for tool in prelisted["tools"]] == [tool.setting for tool in BUILT_IN]
    assert [tool.pop("hints") for tool in prelisted["tools"]] == [tool.hints for tool in BUILT_IN]
    assert prelisted["tools"] == [json.loads(json.dumps(tool.descriptor())) for tool in BUILT_IN]


def test_the_manifest_gives_every_tool_both_hints_the_browser_registers_as_booleans():
    """readOnlyHint and untrustedContentHint, false ones too: a client may read a missing hint as unknown."""
    for listed in prelisted_copy(catalog_of(BUILT_IN))["tools"]:
        annotations = listed["annotations"]
        assert {"readOnlyHint", "untrustedContentHint"} <= set(annotations), listed["name"]
        assert all(type(value) is bool for value in annotations.values()), listed["name"]
        assert {key: annotations[key] for key in ("readOnlyHint", "untrustedContentHint")} == {
            key: listed["hints"][key] for key in ("readOnlyHint", "untrustedContentHint")}


def test_the_shipped_catalog_is_read_back_as_it_was_made(tmp_path):
    made = catalog_of(BUILT_IN)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(to_data(made)))
    assert load_catalog(BUILT_IN, path) == made
    assert load_catalog(BUILT_IN, tmp_path / "missing.json") == made  # a source checkout: the toolbox's own


def test_the_digest_follows_any_change_to_a_descriptor():
    catalog = catalog_of(BUILT_IN)
    tools = list(BUILT_IN)
    changed = Toolbox()
    changed.add([replace(tools[0], description=tools[0].description + " "), *tools[1:]])
    assert catalog_of(changed).digest != catalog.digest
    assert catalog_of(BUILT_IN).digest == catalog.digest


def test_a_lookup_imports_only_the_module_of_the_tool_asked_for():
    """In a fresh interpreter: neither the package nor the start's modules import a tool; the first call's lookup
    imports its tool's module only (in the page, the snapshot's maker then imports them all)."""
    script = """
import importlib, json, sys
import pyodide_webmcp
assert not [m for m in sys.modules if m.startswith("pyodide_webmcp.tools")], "the package imported tools"
for name in pyodide_webmcp.STARTUP_MODULES:  # as the snapshot maker imports them
    importlib.import_module(name)
assert not [m for m in sys.modules if m.startswith("pyodide_webmcp.tools.")], "the start's modules imported tools"
from pyodide_webmcp.tools import BUILT_IN
assert not [m for m in sys.modules if m.startswith("pyodide_webmcp.tools.")], "the built-in toolbox imported tools"
modules = json.loads(sys.argv[1])
BUILT_IN.locate(modules)
tool = BUILT_IN.get("jupyter_get_cells")
loaded = sorted(m for m in sys.modules if m.startswith("pyodide_webmcp.tools."))
print(json.dumps([tool.name, loaded]))
"""
    modules = catalog_of(BUILT_IN).modules()
    out = subprocess.run([sys.executable, "-c", script, json.dumps(modules)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "py")})
    assert out.returncode == 0, out.stderr
    name, loaded = json.loads(out.stdout)
    assert name == "jupyter_get_cells" and loaded == ["pyodide_webmcp.tools.cells"]


def test_calls_made_before_python_starts_are_refused_with_structured_errors():
    prelisted = prelisted_copy(catalog_of(BUILT_IN))
    for key, code, retryable in (("starting", "BRIDGE_STARTING", True), ("unavailable", "BRIDGE_UNAVAILABLE", False)):
        refusal = prelisted[key]
        assert refusal["isError"] is True and set(refusal) == {"content", "isError"}
        payload = json.loads(refusal["content"][0]["text"])
        assert payload["error"] == code and payload["retryable"] is retryable
        assert "not run" in payload["message"] and payload["hint"]
    assert prelisted["budgetMs"] == 20_000


def test_a_toolbox_refuses_a_name_taken_and_finds_what_a_module_exports():
    tools = list(BUILT_IN)
    box = Toolbox()
    box.add(tools[:2])
    box.add(tools[:1])  # the same tool again is no change
    try:
        box.add([replace(tools[0], description="another")])
    except ValueError as error:
        assert tools[0].name in str(error)
    else:
        raise AssertionError("a taken name was accepted")
    assert box.names() == [tool.name for tool in tools[:2]]
