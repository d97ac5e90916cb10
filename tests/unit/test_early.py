"""early.py: the tools listed, and calls refused, before Python has started."""

import json
from dataclasses import replace

import pyodide_webmcp
from pyodide_webmcp.early import descriptors_digest, early_tools
from pyodide_webmcp.registry import REGISTRY, Registry


def test_the_early_copy_lists_every_tool_as_python_registers_it():
    early = json.loads(pyodide_webmcp.early_descriptors())
    assert early["digest"] == descriptors_digest(REGISTRY)
    assert [tool["name"] for tool in early["tools"]] == [tool.name for tool in REGISTRY]
    assert {tool["setting"] for tool in early["tools"]} == {None, "runCode", "commands"}
    for listed, tool in zip(early["tools"], REGISTRY):
        assert listed.pop("setting") == tool.setting
        assert listed == json.loads(json.dumps(tool.descriptor()))


def test_the_digest_follows_any_change_to_a_descriptor():
    changed = Registry()
    for tool in REGISTRY:
        changed._tools[tool.name] = tool
    before = descriptors_digest(changed)
    name = next(iter(changed._tools))
    changed._tools[name] = replace(changed._tools[name], description=changed._tools[name].description + " ")
    assert descriptors_digest(changed) != before
    assert descriptors_digest(REGISTRY) == before


def test_calls_made_before_python_starts_are_refused_with_structured_errors():
    early = early_tools(REGISTRY)
    for key, code, retryable in (("starting", "BRIDGE_STARTING", True), ("unavailable", "BRIDGE_UNAVAILABLE", False)):
        refusal = early[key]
        assert refusal["isError"] is True and set(refusal) == {"content", "isError"}
        payload = json.loads(refusal["content"][0]["text"])
        assert payload["error"] == code and payload["retryable"] is retryable
        assert "not run" in payload["message"] and payload["hint"]
    assert early["budgetMs"] == 20_000
