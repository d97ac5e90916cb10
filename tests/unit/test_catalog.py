"""catalog.py and early.py: what the page knows of every tool before the tool's code is imported."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from pyodide_webmcp.catalog import catalog_of, early_copy, load_catalog, to_data
from pyodide_webmcp.registry import REGISTRY, Registry

ROOT = Path(__file__).resolve().parents[2]


def test_the_catalog_lists_every_tool_as_python_registers_it():
    catalog = catalog_of(REGISTRY)
    assert [entry.name for entry in catalog.entries] == [tool.name for tool in REGISTRY]
    for entry in catalog.entries:
        tool = REGISTRY.get(entry.name)
        assert entry.descriptor == tool.descriptor() and entry.setting == tool.setting and entry.hints == tool.hints
        assert entry.module == tool.handler.__module__ and entry.module.startswith("pyodide_webmcp.tools.")
    early = early_copy(catalog)
    assert early["digest"] == catalog.digest
    assert [tool.pop("setting") for tool in early["tools"]] == [tool.setting for tool in REGISTRY]
    assert [tool.pop("hints") for tool in early["tools"]] == [tool.hints for tool in REGISTRY]
    assert early["tools"] == [json.loads(json.dumps(tool.descriptor())) for tool in REGISTRY]


def test_the_manifest_gives_every_tool_both_hints_the_browser_registers_as_booleans():
    """readOnlyHint and untrustedContentHint, false ones too: a client may read a missing hint as unknown."""
    for listed in early_copy(catalog_of(REGISTRY))["tools"]:
        annotations = listed["annotations"]
        assert {"readOnlyHint", "untrustedContentHint"} <= set(annotations), listed["name"]
        assert all(type(value) is bool for value in annotations.values()), listed["name"]
        assert {key: annotations[key] for key in ("readOnlyHint", "untrustedContentHint")} == {
            key: listed["hints"][key] for key in ("readOnlyHint", "untrustedContentHint")}


def test_the_shipped_catalog_is_read_back_as_it_was_made(tmp_path):
    made = catalog_of(REGISTRY)
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(to_data(made)))
    assert load_catalog(REGISTRY, path) == made
    assert load_catalog(REGISTRY, tmp_path / "missing.json") == made  # a source checkout: the registry's own


def test_the_digest_follows_any_change_to_a_descriptor():
    catalog = catalog_of(REGISTRY)
    changed = Registry()
    for tool in REGISTRY:
        changed._tools[tool.name] = tool
    name = next(iter(changed._tools))
    changed._tools[name] = replace(changed._tools[name], description=changed._tools[name].description + " ")
    assert catalog_of(changed).digest != catalog.digest
    assert catalog_of(REGISTRY).digest == catalog.digest


def test_a_lookup_imports_only_the_module_of_the_tool_asked_for():
    """In a fresh interpreter, as in the page: the package imports no tool; the first call's lookup imports
    its tool's module only."""
    script = """
import importlib, json, sys
from pyodide_webmcp.catalog import to_data, catalog_of
from pyodide_webmcp.registry import REGISTRY
import pyodide_webmcp
assert not [m for m in sys.modules if m.startswith("pyodide_webmcp.tools")], "the package imported tools"
for name in pyodide_webmcp.STARTUP_MODULES:  # as the snapshot maker imports them
    importlib.import_module(name)
assert not [m for m in sys.modules if m.startswith("pyodide_webmcp.tools")], "the start's modules imported tools"
modules = json.loads(sys.argv[1])
REGISTRY.modules = modules
tool = REGISTRY.get("jupyter_get_cells")
loaded = sorted(m for m in sys.modules if m.startswith("pyodide_webmcp.tools."))
print(json.dumps([tool.name, loaded]))
"""
    modules = catalog_of(REGISTRY).modules()
    out = subprocess.run([sys.executable, "-c", script, json.dumps(modules)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "py")})
    assert out.returncode == 0, out.stderr
    name, loaded = json.loads(out.stdout)
    assert name == "jupyter_get_cells" and loaded == ["pyodide_webmcp.tools.cells"]


def test_calls_made_before_python_starts_are_refused_with_structured_errors():
    early = early_copy(catalog_of(REGISTRY))
    for key, code, retryable in (("starting", "BRIDGE_STARTING", True), ("unavailable", "BRIDGE_UNAVAILABLE", False)):
        refusal = early[key]
        assert refusal["isError"] is True and set(refusal) == {"content", "isError"}
        payload = json.loads(refusal["content"][0]["text"])
        assert payload["error"] == code and payload["retryable"] is retryable
        assert "not run" in payload["message"] and payload["hint"]
    assert early["budgetMs"] == 20_000
